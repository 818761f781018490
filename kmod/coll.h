/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The collectives as the data-path ioctls call them (coll_reduce.c,
 * coll_alltoall.c): they check the caller's arguments and drive the
 * engines.  The caller holds a reference on c (its endpoint's binding).
 */
#ifndef NC_COLL_H
#define NC_COLL_H

#include <linux/types.h>
#include <linux/netcoll.h>

struct nc_comm;
struct nc_endpoint;

int nc_coll_barrier(struct nc_endpoint *ep, struct nc_comm *c, u32 timeout_ms);
int nc_coll_reduce(struct nc_endpoint *ep, struct nc_comm *c,
		   struct netcoll_reduce *r, bool start);
int nc_coll_wait(struct nc_endpoint *ep, struct nc_comm *c, u64 handle);
int nc_coll_alltoall(struct nc_comm *c, const struct netcoll_alltoall_args *a);

#endif /* NC_COLL_H */

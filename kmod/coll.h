/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The collectives as the data-path ioctls call them (coll_reduce.c,
 * coll_alltoall.c): they check the caller's arguments and drive the
 * engines.  The caller holds a reference on c (its endpoint's binding).
 */
#ifndef NCK_COLL_H
#define NCK_COLL_H

#include <linux/types.h>
#include <linux/netcoll.h>

struct nck_comm;
struct nck_endpoint;

int nck_coll_barrier(struct nck_endpoint *ep, struct nck_comm *c, u32 timeout_ms);
int nck_coll_reduce(struct nck_endpoint *ep, struct nck_comm *c,
		    struct netcoll_reduce *r, bool start);
int nck_coll_wait(struct nck_endpoint *ep, struct nck_comm *c, u64 handle);
int nck_coll_alltoall(struct nck_comm *c, const struct netcoll_alltoall_args *a);

#endif /* NCK_COLL_H */

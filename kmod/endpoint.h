/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Endpoints: one per open /dev/netcoll file (chardev.c).  An endpoint binds
 * to one communicator and keeps the reductions it posted.
 *
 * Owner: the file.  It is freed by the file's release, which runs only
 * once no ioctl is in progress on it, so nothing here races release.
 */
#ifndef NC_ENDPOINT_H
#define NC_ENDPOINT_H

#include "comm.h"

struct nc_endpoint {
	struct net *net;
	struct mutex lock;		/* BIND and alltoall: one at a time */
	struct nc_comm *comm;		/* set once by BIND, with a reference */
	u32 id;				/* the high half of its handles */
	u32 next;			/* handle numbers are handed out cyclically */
	u32 nposted;			/* entries in ops, under its lock */
	struct xarray ops;		/* handle -> struct nc_agg_op, see endpoint.c */
};

struct nc_endpoint *nc_ep_create(struct net *net);
void nc_ep_destroy(struct nc_endpoint *ep);
int nc_ep_bind(struct nc_endpoint *ep, struct netcoll_bind *b,
	       void __user *uarg);
struct nc_comm *nc_ep_comm(struct nc_endpoint *ep);

int nc_ep_reserve(struct nc_endpoint *ep, u32 *idx);
void nc_ep_unreserve(struct nc_endpoint *ep, u32 idx);
void nc_ep_set(struct nc_endpoint *ep, u32 idx, struct nc_agg_op *op,
	       bool claimed);
u64 nc_ep_handle(const struct nc_endpoint *ep, u32 idx);
struct nc_agg_op *nc_ep_claim(struct nc_endpoint *ep, u64 handle, u32 *idx,
			      int *err);
void nc_ep_unclaim(struct nc_endpoint *ep, u32 idx);
void nc_ep_finish(struct nc_endpoint *ep, u32 idx);
void nc_ep_orphan(struct nc_endpoint *ep, u32 idx);
struct nc_agg_op *nc_ep_claimed(struct nc_endpoint *ep, u32 idx);

/* chardev.c: /dev/netcoll, the file an endpoint lives in */
int nc_chardev_init(void);
void nc_chardev_exit(void);

#endif /* NC_ENDPOINT_H */

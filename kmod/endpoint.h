/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Endpoints: one per open /dev/netcoll file (chardev.c).  An endpoint binds
 * to one communicator and keeps the reductions it posted.
 *
 * Owner: the file.  It is freed by the file's release, which runs only
 * once no ioctl is in progress on it, so nothing here races release.
 */
#ifndef NCK_ENDPOINT_H
#define NCK_ENDPOINT_H

#include "comm.h"

struct nck_endpoint {
	struct net *net;
	struct mutex lock;		/* BIND and alltoall: one at a time */
	struct nck_comm *comm;		/* set once by BIND, with a reference */
	u32 id;				/* the high half of its handles */
	u32 next;			/* handle numbers are handed out cyclically */
	u32 nposted;			/* entries in ops, under its lock */
	bool ends_comm;			/* close deletes comm (transient), set by BIND */
	struct xarray ops;		/* handle -> struct nck_agg_op, see endpoint.c */
};

struct nck_endpoint *nck_ep_create(struct net *net);
void nck_ep_destroy(struct nck_endpoint *ep);
int nck_ep_bind(struct nck_endpoint *ep, const struct file *file,
		struct netcoll_bind *b, void __user *uarg);
struct nck_comm *nck_ep_comm(struct nck_endpoint *ep);

int nck_ep_reserve(struct nck_endpoint *ep, u32 *idx);
void nck_ep_unreserve(struct nck_endpoint *ep, u32 idx);
void nck_ep_set(struct nck_endpoint *ep, u32 idx, struct nck_agg_op *op,
		bool claimed);
u64 nck_ep_handle(const struct nck_endpoint *ep, u32 idx);
struct nck_agg_op *nck_ep_claim(struct nck_endpoint *ep, u64 handle, u32 *idx,
				int *err);
void nck_ep_unclaim(struct nck_endpoint *ep, u32 idx);
void nck_ep_finish(struct nck_endpoint *ep, u32 idx);
void nck_ep_orphan(struct nck_endpoint *ep, u32 idx);

/* chardev.c: /dev/netcoll, the file an endpoint lives in */
int nck_chardev_init(void);
void nck_chardev_exit(void);

#endif /* NCK_ENDPOINT_H */

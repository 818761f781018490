// SPDX-License-Identifier: GPL-2.0
/*
 * Reduce, allreduce and barrier as the endpoint sees them: argument
 * checks and the blocking or start/wait forms over the aggregation engine
 * (agg.c), with every posted operation kept in the endpoint's table
 * (endpoint.c).  The barrier is an allreduce of nothing on the same trees:
 * one implementation for all three.
 */
#include "endpoint.h"
#include "coll.h"

static int nc_coll_args(const struct netcoll_reduce *r, struct nc_agg_args *a)
{
	if (r->reserved || r->handle)
		return -EINVAL;
	*a = (struct nc_agg_args){
		.sendbuf = u64_to_user_ptr(r->sendbuf),
		.recvbuf = u64_to_user_ptr(r->recvbuf),
		.count = r->count,
		.op = r->op,
		.dtype = r->dtype,
		.root = r->root,
		.flags = r->flags,
		.split = r->split,
		.timeout_ms = r->timeout_ms,
	};
	return 0;
}

/*
 * Post an operation under a number of the endpoint's: the number first
 * (the limit is checked before anything starts), then the operation.
 */
static int nc_coll_post(struct nc_endpoint *ep, struct nc_comm *c,
			const struct nc_agg_args *a, bool claimed, u32 *idx)
{
	struct nc_agg_op *op;
	int err;

	err = nc_ep_reserve(ep, idx);
	if (err)
		return err;
	op = nc_agg_start(c, a);
	if (IS_ERR(op)) {
		nc_ep_unreserve(ep, *idx);
		return PTR_ERR(op);
	}
	nc_ep_set(ep, *idx, op, claimed);
	return 0;
}

/* Wait for the claimed entry idx holding op. */
static int nc_coll_collect(struct nc_endpoint *ep, struct nc_comm *c,
			   struct nc_agg_op *op, u32 idx, bool orphan_on_intr)
{
	int err = nc_agg_wait(c, op);

	if (err != -EINTR)
		nc_ep_finish(ep, idx);
	else if (orphan_on_intr)	/* the others still need our part */
		nc_ep_orphan(ep, idx);
	else
		nc_ep_unclaim(ep, idx);
	return err;
}

static int nc_coll_run(struct nc_endpoint *ep, struct nc_comm *c,
		       const struct nc_agg_args *a)
{
	struct nc_agg_op *op;
	u32 idx;
	int err;

	err = nc_coll_post(ep, c, a, true, &idx);
	if (err)
		return err;
	op = nc_ep_claimed(ep, idx);
	return nc_coll_collect(ep, c, op, idx, true);
}

int nc_coll_reduce(struct nc_endpoint *ep, struct nc_comm *c,
		   struct netcoll_reduce *r, bool start)
{
	struct nc_agg_args a;
	u32 idx;
	int err;

	err = nc_coll_args(r, &a);
	if (err)
		return err;
	if (!start)
		return nc_coll_run(ep, c, &a);
	err = nc_coll_post(ep, c, &a, false, &idx);
	if (!err)
		r->handle = nc_ep_handle(ep, idx);
	return err;
}

int nc_coll_wait(struct nc_endpoint *ep, struct nc_comm *c, u64 handle)
{
	struct nc_agg_op *op;
	u32 idx;
	int err;

	op = nc_ep_claim(ep, handle, &idx, &err);
	if (!op)
		return err;
	return nc_coll_collect(ep, c, op, idx, false);
}

int nc_coll_barrier(struct nc_endpoint *ep, struct nc_comm *c, u32 timeout_ms)
{
	struct nc_agg_args a = {
		.flags = NETCOLL_RED_ALL,
		.op = NETCOLL_OP_BOR,
		.dtype = NETCOLL_DT_UINT32,
		.timeout_ms = timeout_ms,
	};

	return nc_coll_run(ep, c, &a);
}

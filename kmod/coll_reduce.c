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

static int nck_coll_args(const struct netcoll_reduce *r, struct nck_agg_args *a)
{
	if (r->reserved || r->handle)
		return -EINVAL;
	*a = (struct nck_agg_args){
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
 * Returns it, its reference now the entry's (a caller that did not claim
 * it must not touch it: another thread may collect it), or an ERR_PTR.
 */
static struct nck_agg_op *nck_coll_post(struct nck_endpoint *ep, struct nck_comm *c,
					const struct nck_agg_args *a, bool claimed,
					u32 *idx)
{
	struct nck_agg_op *op;
	int err;

	err = nck_ep_reserve(ep, idx);
	if (err)
		return ERR_PTR(err);
	op = nck_agg_start(c, a);
	if (IS_ERR(op))
		nck_ep_unreserve(ep, *idx);
	else
		nck_ep_set(ep, *idx, op, claimed);
	return op;
}

/* Wait for the claimed entry idx holding op. */
static int nck_coll_collect(struct nck_endpoint *ep, struct nck_comm *c,
			    struct nck_agg_op *op, u32 idx, bool orphan_on_intr)
{
	int err = nck_agg_wait(c, op);

	if (err != -EINTR)
		nck_ep_finish(ep, idx);
	else if (orphan_on_intr)	/* the others still need our part */
		nck_ep_orphan(ep, idx);
	else
		nck_ep_unclaim(ep, idx);
	return err;
}

static int nck_coll_run(struct nck_endpoint *ep, struct nck_comm *c,
			const struct nck_agg_args *a)
{
	struct nck_agg_op *op;
	u32 idx;

	op = nck_coll_post(ep, c, a, true, &idx);
	if (IS_ERR(op))
		return PTR_ERR(op);
	return nck_coll_collect(ep, c, op, idx, true);
}

int nck_coll_reduce(struct nck_endpoint *ep, struct nck_comm *c,
		    struct netcoll_reduce *r, bool start)
{
	struct nck_agg_args a;
	struct nck_agg_op *op;
	u32 idx;
	int err;

	err = nck_coll_args(r, &a);
	if (err)
		return err;
	if (!start)
		return nck_coll_run(ep, c, &a);
	op = nck_coll_post(ep, c, &a, false, &idx);
	if (!IS_ERR(op))
		r->handle = nck_ep_handle(ep, idx);
	return PTR_ERR_OR_ZERO(op);
}

int nck_coll_wait(struct nck_endpoint *ep, struct nck_comm *c, u64 handle)
{
	struct nck_agg_op *op;
	u32 idx;
	int err;

	op = nck_ep_claim(ep, handle, &idx, &err);
	if (!op)
		return err;
	return nck_coll_collect(ep, c, op, idx, false);
}

int nck_coll_barrier(struct nck_endpoint *ep, struct nck_comm *c, u32 timeout_ms)
{
	struct nck_agg_args a = {
		.flags = NETCOLL_RED_ALL,
		.op = NETCOLL_OP_BOR,
		.dtype = NETCOLL_DT_UINT32,
		.timeout_ms = timeout_ms,
	};

	return nck_coll_run(ep, c, &a);
}

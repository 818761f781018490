// SPDX-License-Identifier: GPL-2.0
/*
 * Reduce, allreduce and barrier as the endpoint sees them: argument
 * checks and the blocking or start/wait forms over the aggregation engine
 * (agg.c).  The barrier is an allreduce of nothing on the same trees: one
 * implementation for all three.
 */
#include "core.h"

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

int nc_coll_reduce_start(struct nc_comm *c, struct netcoll_reduce *r)
{
	struct nc_agg_args a;
	u32 seq;
	int err;

	err = nc_coll_args(r, &a);
	if (err)
		return err;
	err = nc_agg_start(c, &a, &seq);
	if (err)
		return err;
	r->handle = seq;
	return 0;
}

int nc_coll_wait(struct nc_comm *c, u64 handle)
{
	if (handle > U32_MAX)
		return -ESRCH;
	return nc_agg_wait(c, (u32)handle);
}

static int nc_coll_run(struct nc_comm *c, const struct nc_agg_args *a)
{
	u32 seq;
	int err;

	err = nc_agg_start(c, a, &seq);
	if (err)
		return err;
	err = nc_agg_wait(c, seq);
	if (err == -EINTR)	/* the others still need our part: let it run */
		nc_agg_orphan(c, seq);
	return err;
}

int nc_coll_reduce(struct nc_comm *c, const struct netcoll_reduce *r)
{
	struct nc_agg_args a;
	int err;

	err = nc_coll_args(r, &a);
	return err ?: nc_coll_run(c, &a);
}

int nc_coll_barrier(struct nc_comm *c, u32 timeout_ms)
{
	struct nc_agg_args a = {
		.flags = NETCOLL_RED_ALL,
		.op = NETCOLL_OP_BOR,
		.dtype = NETCOLL_DT_UINT32,
		.timeout_ms = timeout_ms,
	};

	return nc_coll_run(c, &a);
}

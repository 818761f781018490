// SPDX-License-Identifier: BSD-2-Clause
/*
 * The data path: one open /dev/netcoll is one endpoint; collectives are
 * ioctls.  Nothing here retries: EINTR goes back to the caller like any
 * other error.  An interrupted alltoall is cancelled (the peers time out);
 * an interrupted reduction keeps running in the kernel, since the other
 * ranks need this rank's contribution.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/netcoll.h>

#include "netcoll.h"
#include "args.h"
#include "bootstrap.h"
#include "reduce_scatter.h"

_Static_assert((int)NC_A2A_DEFAULT == (int)NETCOLL_A2A_DEFAULT &&
	       (int)NC_A2A_LINEAR == (int)NETCOLL_A2A_LINEAR &&
	       (int)NC_A2A_PAIRWISE == (int)NETCOLL_A2A_PAIRWISE &&
	       (int)NC_A2A_RING == (int)NETCOLL_A2A_RING &&
	       (int)NC_A2A_SCHED == (int)NETCOLL_A2A_SCHED,
	       "enum nc_a2a_algo must mirror enum netcoll_a2a_algo");

_Static_assert((int)NC_OP_COUNT == (int)NETCOLL_OP_COUNT &&
	       (int)NC_OP_MAXLOC == (int)NETCOLL_OP_MAXLOC &&
	       (int)NC_OP_BXOR == (int)NETCOLL_OP_BXOR &&
	       (int)NC_DT_COUNT == (int)NETCOLL_DT_COUNT &&
	       (int)NC_DT_DOUBLE == (int)NETCOLL_DT_DOUBLE &&
	       (int)NC_DT_UINT32 == (int)NETCOLL_DT_UINT32,
	       "enum nc_op/nc_dtype must mirror the uapi enums");

/* Sizes in bytes from min up to, not including, max (min >= max: none). */
struct nc_sizes {
	size_t min, max;
};

static int nc_sizes_have(struct nc_sizes r, size_t bytes)
{
	return bytes >= r.min && bytes < r.max;
}

/* An endpoint's setting of sizes (r: NULL without an endpoint). */
static int nc_sizes_set(struct nc_sizes *r, size_t min, size_t max)
{
	if (!r)
		return -EINVAL;
	*r = (struct nc_sizes){ min, max };
	return 0;
}

struct nc_endpoint {
	int fd;
	enum nc_dist dist;		/* default result distribution */
	uint32_t timeout_ms;		/* 0: the communicator's default */
	uint32_t size;			/* members of the bound communicator */
	uint32_t rank;			/* ours in it */
	/* NC_DIST_AUTO: broadcasts, allreduce results of these sizes multicast */
	struct nc_sizes bcast_mcast, red_mcast;
	size_t rsag_min;		/* nc_allreduce: reduce-scatter + allgather
					 * from this many bytes; 0: never
					 */
	struct nc_info info;
};

/* A size from the environment (name), else def. */
static size_t nc_env_size(const char *name, size_t def)
{
	const char *env = getenv(name);
	unsigned long long v;
	char *end;

	if (!env || !*env)
		return def;
	errno = 0;
	v = strtoull(env, &end, 0);
	if (errno || *end || v > SIZE_MAX)
		return def;
	return (size_t)v;
}

/*
 * A range of sizes [min, max) from the environment: neither, from def_min
 * (SIZE_MAX: none); only the maximum, from 0; only the minimum, to
 * SIZE_MAX.
 */
static struct nc_sizes nc_env_sizes(const char *min_name,
				    const char *max_name, size_t def_min)
{
	struct nc_sizes r = { .max = nc_env_size(max_name, SIZE_MAX) };

	r.min = nc_env_size(min_name, r.max == SIZE_MAX ? def_min : 0);
	return r;
}

int nc_open(nc_endpoint **pep, const char *path)
{
	struct netcoll_info ki = { 0 };
	nc_endpoint *ep;
	int fd, err;

	if (!pep)
		return -EINVAL;
	*pep = NULL;
	fd = open(path ? path : "/dev/" NETCOLL_DEVICE_NAME, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		err = errno;
		/* No node, or a node without a driver behind it. */
		if (err == ENOENT || err == ENODEV || err == ENXIO)
			return -NC_ENOMODULE;
		return -err;
	}
	if (ioctl(fd, NETCOLL_IOC_INFO, &ki) < 0) {
		/* ENOTTY: the file does not know this ioctl number. */
		err = errno == ENOTTY ? -NC_EABI : -errno;
		goto fail;
	}
	if (ki.abi_version != NETCOLL_ABI_VERSION) {
		err = -NC_EABI;
		goto fail;
	}
	ep = calloc(1, sizeof(*ep));
	if (!ep) {
		err = -ENOMEM;
		goto fail;
	}
	ep->fd = fd;
	ep->dist = NC_DIST_AUTO;
	ep->rsag_min = nc_env_size("NETCOLL_RSAG_MIN", NC_RSAG_MIN_DEFAULT);
	ep->bcast_mcast = nc_env_sizes("NETCOLL_BCAST_MCAST_MIN",
				       "NETCOLL_BCAST_MCAST_MAX", SIZE_MAX);
	ep->red_mcast = nc_env_sizes("NETCOLL_ALLREDUCE_MCAST_MIN",
				     "NETCOLL_ALLREDUCE_MCAST_MAX",
				     NC_ALLREDUCE_MCAST_MIN_DEFAULT);
	ep->info.abi_version = ki.abi_version;
	ep->info.wire_version = ki.wire_version;
	ep->info.features = ki.features;
	ep->info.comm_size_max = ki.comm_size_max;
	*pep = ep;
	return 0;
fail:
	close(fd);
	return err;
}

void nc_close(nc_endpoint *ep)
{
	if (!ep)
		return;
	close(ep->fd);	/* ends a transient communicator (nc_open_bootstrap) */
	free(ep);
}

int nc_get_info(nc_endpoint *ep, struct nc_info *info)
{
	if (!ep || !info)
		return -EINVAL;
	*info = ep->info;
	return 0;
}

int nc_bind(nc_endpoint *ep, uint32_t comm_id, uint32_t rank)
{
	struct netcoll_bind b = { .comm_id = comm_id, .rank = rank };

	if (!ep || nc_check_comm_id(comm_id) || rank >= NETCOLL_COMM_SIZE_MAX)
		return -EINVAL;
	if (ioctl(ep->fd, NETCOLL_IOC_BIND, &b) < 0)
		return -errno;
	ep->size = b.size;
	ep->rank = rank;
	return 0;
}

int nc_comm_size(const nc_endpoint *ep)
{
	if (!ep || !ep->size)
		return -ENOTCONN;
	return (int)ep->size;
}

int nc_comm_rank(const nc_endpoint *ep)
{
	if (!ep || !ep->size)
		return -ENOTCONN;
	return (int)ep->rank;
}

/*
 * Every rank must choose alike, so the MTU comes from the kernel, which
 * cuts a reduction by its device's MTU when it starts: asked on the
 * endpoint itself (no query that could fail on one rank only) when the
 * operation starts, and only where the MTU can make a difference (the
 * byte rule splits: a large MTU can only make fewer pieces).
 */
uint32_t nc_comm_split(const nc_endpoint *ep, size_t bytes)
{
	struct netcoll_info ki = { 0 };
	uint32_t n;

	if (!ep || !ep->size)
		return 1;
	n = nc_split_for(bytes, ep->size);
	if (n > 1 && !ioctl(ep->fd, NETCOLL_IOC_INFO, &ki) &&
	    (ki.features & NETCOLL_FEAT_COMM_MTU))
		n = nc_split_for_mtu(bytes, ep->size, ki.mtu);
	return n;
}

int nc_set_timeout(nc_endpoint *ep, uint32_t timeout_ms)
{
	if (!ep || nc_check_timeout(timeout_ms))
		return -EINVAL;
	ep->timeout_ms = timeout_ms;
	return 0;
}

int nc_set_dist(nc_endpoint *ep, enum nc_dist dist)
{
	if (!ep || (dist != NC_DIST_TREE && dist != NC_DIST_MCAST &&
		    dist != NC_DIST_AUTO))
		return -EINVAL;
	ep->dist = dist;
	return 0;
}

int nc_set_bcast_mcast(nc_endpoint *ep, size_t min, size_t max)
{
	return nc_sizes_set(ep ? &ep->bcast_mcast : NULL, min, max);
}

int nc_set_allreduce_mcast(nc_endpoint *ep, size_t min, size_t max)
{
	return nc_sizes_set(ep ? &ep->red_mcast : NULL, min, max);
}

static int nc_dist_ok(enum nc_dist d)
{
	return d == NC_DIST_TREE || d == NC_DIST_MCAST || d == NC_DIST_AUTO;
}

static int nc_red_fill(const nc_endpoint *ep, const struct nc_red_args *a,
		       struct netcoll_reduce *r)
{
	size_t esize;
	int mcast;

	if (!ep || !a || a->comp_mask)	/* no later fields known yet */
		return -EINVAL;
	esize = a->count ? nc_elem_size(a->op, a->dtype) : 1;
	if (!esize || a->count > NETCOLL_REDUCE_MAX / esize ||
	    (a->count && (!a->sendbuf || !a->recvbuf)) ||
	    a->split > NETCOLL_TREES_MAX || !nc_dist_ok(a->dist))
		return -EINVAL;
	/* the same on every rank: it depends on the size and a setting */
	mcast = a->dist == NC_DIST_MCAST ||
		(a->dist == NC_DIST_AUTO && a->all && a->count &&
		 nc_sizes_have(ep->red_mcast, a->count * esize));
	*r = (struct netcoll_reduce){
		.sendbuf = (uintptr_t)a->sendbuf,
		.recvbuf = (uintptr_t)a->recvbuf,
		.count = a->count,
		.op = a->op,
		.dtype = a->dtype,
		.root = a->all ? 0 : a->root,
		.flags = (a->all ? NETCOLL_RED_ALL : 0) |
			 (mcast ? NETCOLL_RED_MCAST : 0),
		.timeout_ms = ep->timeout_ms,
		.split = a->split ? a->split :
			 nc_comm_split(ep, a->count * esize),
	};
	return 0;
}

int nc_reduce_ex(nc_endpoint *ep, const struct nc_red_args *a)
{
	struct netcoll_reduce r;
	int err = nc_red_fill(ep, a, &r);

	if (err)
		return err;
	return ioctl(ep->fd, NETCOLL_IOC_REDUCE, &r) < 0 ? -errno : 0;
}

int nc_ireduce_ex(nc_endpoint *ep, const struct nc_red_args *a,
		  nc_request *req)
{
	struct netcoll_reduce r;
	int err = nc_red_fill(ep, a, &r);

	if (err || !req)
		return err ? err : -EINVAL;
	if (ioctl(ep->fd, NETCOLL_IOC_REDUCE_START, &r) < 0)
		return -errno;
	*req = r.handle;
	return 0;
}

int nc_wait(nc_endpoint *ep, nc_request req)
{
	struct netcoll_wait w = { .handle = req };

	if (!ep)
		return -EINVAL;
	return ioctl(ep->fd, NETCOLL_IOC_WAIT, &w) < 0 ? -errno : 0;
}

int nc_reduce(nc_endpoint *ep, const void *sendbuf, void *recvbuf,
	      size_t count, enum nc_dtype dtype, enum nc_op op, uint32_t root)
{
	struct nc_red_args a = {
		.sendbuf = sendbuf, .recvbuf = recvbuf, .count = count,
		.dtype = dtype, .op = op, .root = root,
		.dist = ep ? ep->dist : NC_DIST_TREE,
	};

	return nc_reduce_ex(ep, &a);
}

int nc_set_rsag_min(nc_endpoint *ep, size_t bytes)
{
	if (!ep)
		return -EINVAL;
	ep->rsag_min = bytes;
	return 0;
}

int nc_allreduce(nc_endpoint *ep, const void *sendbuf, void *recvbuf,
		 size_t count, enum nc_dtype dtype, enum nc_op op)
{
	size_t elem = nc_elem_size(op, dtype);
	struct nc_red_args a = {
		.sendbuf = sendbuf, .recvbuf = recvbuf, .count = count,
		.dtype = dtype, .op = op, .all = 1,
		.dist = ep ? ep->dist : NC_DIST_TREE,
	};

	/* the same choice on every rank: it depends on arguments and settings */
	if (ep && elem && ep->rsag_min && ep->size > 1 && count &&
	    count <= NETCOLL_REDUCE_MAX / elem && count * elem >= ep->rsag_min &&
	    sendbuf && recvbuf)
		return nc_allreduce_rsag(ep, sendbuf, recvbuf, count, dtype, op);
	return nc_reduce_ex(ep, &a);
}

static int nc_bcast_fill(const nc_endpoint *ep, const struct nc_bcast_args *a,
			 struct netcoll_reduce *r)
{
	int mcast;

	if (!ep || !a || a->comp_mask || a->len > NETCOLL_REDUCE_MAX ||
	    (a->len && !a->buf) || !nc_dist_ok(a->dist))
		return -EINVAL;
	/* the same on every rank: it depends on the length and a setting */
	mcast = a->dist == NC_DIST_MCAST ||
		(a->dist == NC_DIST_AUTO && nc_sizes_have(ep->bcast_mcast, a->len));
	/* one piece: every piece would run on the same tree from the root */
	*r = (struct netcoll_reduce){
		.sendbuf = (uintptr_t)a->buf,
		.recvbuf = (uintptr_t)a->buf,
		.count = a->len,
		.root = a->root,
		.flags = NETCOLL_RED_BCAST | (mcast ? NETCOLL_RED_MCAST : 0),
		.timeout_ms = ep->timeout_ms,
		.split = 1,
	};
	return 0;
}

int nc_bcast_ex(nc_endpoint *ep, const struct nc_bcast_args *a)
{
	struct netcoll_reduce r;
	int err = nc_bcast_fill(ep, a, &r);

	if (err)
		return err;
	return ioctl(ep->fd, NETCOLL_IOC_REDUCE, &r) < 0 ? -errno : 0;
}

int nc_ibcast_ex(nc_endpoint *ep, const struct nc_bcast_args *a,
		 nc_request *req)
{
	struct netcoll_reduce r;
	int err = nc_bcast_fill(ep, a, &r);

	if (err || !req)
		return err ? err : -EINVAL;
	if (ioctl(ep->fd, NETCOLL_IOC_REDUCE_START, &r) < 0)
		return -errno;
	*req = r.handle;
	return 0;
}

int nc_bcast(nc_endpoint *ep, void *buf, size_t len, uint32_t root)
{
	struct nc_bcast_args a = {
		.buf = buf, .len = len, .root = root,
		.dist = ep ? ep->dist : NC_DIST_TREE,
	};

	return nc_bcast_ex(ep, &a);
}

/* The tree barrier; with multicast distribution, its release is one frame. */
int nc_barrier(nc_endpoint *ep)
{
	struct netcoll_barrier_args a = { 0 };
	struct nc_red_args r = { .all = 1, .dist = NC_DIST_MCAST, .split = 1 };

	if (!ep)
		return -EINVAL;
	if (ep->dist == NC_DIST_MCAST)
		return nc_reduce_ex(ep, &r);
	a.timeout_ms = ep->timeout_ms;
	return ioctl(ep->fd, NETCOLL_IOC_BARRIER, &a) < 0 ? -errno : 0;
}

int nc_alltoall_algo(nc_endpoint *ep, const void *sendbuf, void *recvbuf,
		     size_t count, enum nc_a2a_algo algo)
{
	struct netcoll_alltoall_args a = { 0 };

	if (!ep || nc_check_alltoall(sendbuf, recvbuf, count,
				     ep->size ? ep->size : ep->info.comm_size_max,
				     (int)algo))
		return -EINVAL;
	a.sendbuf = (uintptr_t)sendbuf;
	a.recvbuf = (uintptr_t)recvbuf;
	a.count = count;
	a.timeout_ms = ep->timeout_ms;
	a.algo = algo;
	return ioctl(ep->fd, NETCOLL_IOC_ALLTOALL, &a) < 0 ? -errno : 0;
}

int nc_alltoall(nc_endpoint *ep, const void *sendbuf, void *recvbuf,
		size_t count)
{
	return nc_alltoall_algo(ep, sendbuf, recvbuf, count, NC_A2A_DEFAULT);
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * The data path: one open /dev/netcoll is one endpoint; collectives are
 * blocking ioctls.  Nothing here retries: an interrupted operation is
 * cancelled in the kernel (the peers time out), so EINTR goes back to the
 * caller like any other error.
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

_Static_assert((int)NC_A2A_DEFAULT == (int)NETCOLL_A2A_DEFAULT &&
	       (int)NC_A2A_LINEAR == (int)NETCOLL_A2A_LINEAR &&
	       (int)NC_A2A_PAIRWISE == (int)NETCOLL_A2A_PAIRWISE &&
	       (int)NC_A2A_RING == (int)NETCOLL_A2A_RING &&
	       (int)NC_A2A_SCHED == (int)NETCOLL_A2A_SCHED,
	       "enum nc_a2a_algo must mirror enum netcoll_a2a_algo");

struct nc_endpoint {
	int fd;
	uint32_t timeout_ms;		/* 0: the communicator's default */
	uint32_t size;			/* members of the bound communicator */
	struct nc_info info;
};

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
	close(ep->fd);
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
	return 0;
}

int nc_comm_size(const nc_endpoint *ep)
{
	if (!ep || !ep->size)
		return -ENOTCONN;
	return (int)ep->size;
}

int nc_set_timeout(nc_endpoint *ep, uint32_t timeout_ms)
{
	if (!ep || nc_check_timeout(timeout_ms))
		return -EINVAL;
	ep->timeout_ms = timeout_ms;
	return 0;
}

int nc_barrier(nc_endpoint *ep)
{
	struct netcoll_barrier_args a = { 0 };

	if (!ep)
		return -EINVAL;
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

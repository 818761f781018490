// SPDX-License-Identifier: BSD-2-Clause
/* Argument checks shared by the netlink and data-path halves. */
#include <errno.h>
#include <string.h>

#include <linux/netcoll.h>

#include "args.h"

int nc_check_ifname(const char *ifname)
{
	if (!ifname || !ifname[0] || strnlen(ifname, NC_IFNAMSIZ) >= NC_IFNAMSIZ)
		return -EINVAL;
	return 0;
}

int nc_check_comm_id(uint32_t id)
{
	return id == 0 || id > NETCOLL_COMM_ID_MAX ? -EINVAL : 0;
}

int nc_check_timeout(uint32_t timeout_ms)
{
	if (timeout_ms == 0)
		return 0;
	if (timeout_ms < NETCOLL_TIMEOUT_MS_MIN ||
	    timeout_ms > NETCOLL_TIMEOUT_MS_MAX)
		return -EINVAL;
	return 0;
}

int nc_check_comm_spec(const struct nc_comm_spec *spec)
{
	uint32_t r, len;

	if (!spec || nc_check_comm_id(spec->id) || nc_check_ifname(spec->ifname))
		return -EINVAL;
	if (spec->size == 0 || spec->size > NETCOLL_COMM_SIZE_MAX ||
	    spec->rank >= spec->size || !spec->members)
		return -EINVAL;
	if (nc_check_timeout(spec->timeout_ms))
		return -EINVAL;
	/* All members sit on one bearer, so their addresses share a length. */
	len = spec->members[0].addr_len;
	if (len == 0 || len > NC_ADDR_MAX)
		return -EINVAL;
	for (r = 1; r < spec->size; r++)
		if (spec->members[r].addr_len != len)
			return -EINVAL;
	if (spec->oso > NETCOLL_OSO_MAX)
		return -EINVAL;
	if (spec->tree_degree &&
	    (spec->tree_degree < 2 || spec->tree_degree > NETCOLL_TREE_DEGREE_MAX))
		return -EINVAL;
	/* The result group lives on the members' bearer. */
	if (spec->mcast_addr && spec->mcast_addr_len != len)
		return -EINVAL;
	if (spec->flags & ~(NC_COMM_SPEC_OWNER | NC_COMM_SPEC_GROUP |
			    NC_COMM_SPEC_KEY | NC_COMM_SPEC_MEM |
			    NC_COMM_SPEC_RX_MEM | NC_COMM_SPEC_TRANSIENT))
		return -EINVAL;
	if ((spec->flags & NC_COMM_SPEC_KEY) &&
	    (!spec->key || spec->key_len < NC_KEY_MIN || spec->key_len > NC_KEY_MAX))
		return -EINVAL;
	return 0;
}

int nc_check_tree(const uint32_t *parents, uint32_t size)
{
	/* 0: not yet seen, 1: on the current walk, 2: reaches the root */
	uint8_t state[NETCOLL_COMM_SIZE_MAX];
	uint32_t r, v, roots = 0;

	if (!parents || size == 0 || size > NETCOLL_COMM_SIZE_MAX)
		return -EINVAL;
	for (r = 0; r < size; r++) {
		if (parents[r] >= size)
			return -EINVAL;
		roots += parents[r] == r;
	}
	if (roots != 1)
		return -EINVAL;
	memset(state, 0, size);
	/* Walk up from each rank; meeting the walk itself again is a cycle. */
	for (r = 0; r < size; r++) {
		for (v = r; state[v] == 0 && parents[v] != v; v = parents[v])
			state[v] = 1;
		if (state[v] == 1)
			return -EINVAL;
		for (v = r; state[v] != 2; v = parents[v])
			state[v] = 2;
	}
	return 0;
}

int nc_check_order(const uint32_t *order, uint32_t size)
{
	uint8_t seen[NETCOLL_COMM_SIZE_MAX];
	uint32_t i;

	if (!order || size == 0 || size > NETCOLL_COMM_SIZE_MAX)
		return -EINVAL;
	memset(seen, 0, size);
	for (i = 0; i < size; i++) {
		if (order[i] >= size || seen[order[i]])
			return -EINVAL;
		seen[order[i]] = 1;
	}
	return 0;
}

int nc_check_alltoall(const void *sendbuf, const void *recvbuf, size_t count,
		      uint32_t comm_size_max, int algo)
{
	if (algo < NETCOLL_A2A_DEFAULT || algo > NETCOLL_A2A_MAX)
		return -EINVAL;
	if (count > NETCOLL_MSG_MAX)
		return -EINVAL;
	if (count == 0)
		return 0;
	if (!sendbuf || !recvbuf)
		return -EINVAL;
	if (comm_size_max && count > SIZE_MAX / comm_size_max)
		return -EINVAL;
	return 0;
}

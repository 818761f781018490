/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Argument checks of libnetcoll, private to the library and its unit tests.
 * Every public entry point runs them before any system call, so a bad
 * argument costs no round trip and is reported the same way with or
 * without the module loaded.
 */
#ifndef NC_ARGS_H
#define NC_ARGS_H

#include <stddef.h>
#include <stdint.h>

#include "netcoll.h"

/* Linked into libnetcoll.so but not part of its interface. */
#define NC_INTERNAL __attribute__((visibility("hidden")))

NC_INTERNAL int nc_check_ifname(const char *ifname);
NC_INTERNAL int nc_check_comm_id(uint32_t id);
/* 0 (= default) or NETCOLL_TIMEOUT_MS_MIN .. NETCOLL_TIMEOUT_MS_MAX. */
NC_INTERNAL int nc_check_timeout(uint32_t timeout_ms);
NC_INTERNAL int nc_check_comm_spec(const struct nc_comm_spec *spec);
/* parents[size]: every rank below size, one root, no cycle. */
NC_INTERNAL int nc_check_tree(const uint32_t *parents, uint32_t size);
/* order[size] holds each rank once. */
NC_INTERNAL int nc_check_order(const uint32_t *order, uint32_t size);
/*
 * The endpoint does not learn the communicator size at bind time, so the
 * P * count buffer size is checked against the largest size the module
 * accepts (netcoll_info.comm_size_max).
 */
NC_INTERNAL int nc_check_alltoall(const void *sendbuf, const void *recvbuf,
				  size_t count, uint32_t comm_size_max, int algo);

#endif /* NC_ARGS_H */

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The netlink client's request machinery (nl.c), for the library files
 * that build requests of their own (sched_install.c).
 */
#ifndef NC_NL_H
#define NC_NL_H

#include <stddef.h>
#include <stdint.h>
#include <netlink/genl/genl.h>

#include "netcoll.h"

typedef int (*nc_reply_fn)(nc_ctl *ctl, struct nlattr **tb, void *arg);

/* A request for cmd, its genl header in place; size 0: default size. */
struct nl_msg *nc_msg(nc_ctl *ctl, uint8_t cmd, int flags, size_t size);
/* Send msg (consumed) and read its whole answer, each message through fn. */
int nc_nl_request(nc_ctl *ctl, struct nl_msg *msg, nc_reply_fn fn, void *arg);
/* COMM_ID, and COMM_RANK when ctl names a rank (nc_ctl_set_rank). */
int nc_put_comm(nc_ctl *ctl, struct nl_msg *msg, uint32_t id);
/* Delete rank of communicator id on this host, whatever ctl names. */
int nc_comm_delete_rank(nc_ctl *ctl, uint32_t id, uint32_t rank);
/* A request whose only attribute is COMM_ID, answered by an ack. */
int nc_request_comm(nc_ctl *ctl, uint8_t cmd, uint32_t id);
/* Record why a call failed, for nc_ctl_last_error(). */
void nc_ctl_seterr(nc_ctl *ctl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Record why (nc_ctl_last_error) and return -NC_EPROTO. */
int nc_proto(nc_ctl *ctl, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif /* NC_NL_H */

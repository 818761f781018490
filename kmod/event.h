/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Events (event.c): what the engines and bearers report — an operation
 * failed, a device went away — to whoever listens.  The generic netlink
 * family listens and multicasts them to user space; the layers that post
 * do not know it, so no lower layer calls up into netlink.c.
 *
 * Posting may sleep (listeners allocate): process context only.
 */
#ifndef NC_EVENT_H
#define NC_EVENT_H

#include <linux/notifier.h>
#include <linux/types.h>

struct nc_comm;
struct net;
struct net_device;

enum nc_event_kind {
	NC_EVENT_OP_FAILED,
	NC_EVENT_DEV_DETACHED,
};

/**
 * struct nc_event - one event, as listeners get it (valid during the call)
 * @net: the namespace it happened in
 * @comm_id: OP_FAILED: the communicator
 * @seq: OP_FAILED: the operation's sequence
 * @peer: OP_FAILED: the rank that stalled it, or NETCOLL_NONE
 * @err: positive errno: why
 * @dev: DEV_DETACHED: the device
 */
struct nc_event {
	struct net *net;
	u32 comm_id;
	u32 seq;
	u32 peer;
	int err;
	const struct net_device *dev;
};

int nc_event_listen(struct notifier_block *nb);
void nc_event_unlisten(struct notifier_block *nb);
void nc_event_op_failed(struct nc_comm *c, u32 seq, int err, u32 peer);
void nc_event_dev_detached(struct net *net, struct net_device *dev, int err);

#endif /* NC_EVENT_H */

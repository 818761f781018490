/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Events (event.c): what the engines and bearers report — an operation
 * failed, a device went away — to whoever listens.  The generic netlink
 * family listens and multicasts them to user space; the layers that post
 * do not know it, so no lower layer calls up into netlink.c.
 *
 * Posting may sleep (listeners allocate): process context only.
 */
#ifndef NCK_EVENT_H
#define NCK_EVENT_H

#include <linux/notifier.h>
#include <linux/types.h>

struct nck_comm;
struct net;
struct net_device;

enum nck_event_kind {
	NCK_EVENT_OP_FAILED,
	NCK_EVENT_DEV_DETACHED,
};

/**
 * struct nck_event - one event, as listeners get it (valid during the call)
 * @net: the namespace it happened in
 * @comm_id: OP_FAILED: the communicator
 * @rank: OP_FAILED: the rank of it on this host that failed
 * @seq: OP_FAILED: the operation's sequence
 * @peer: OP_FAILED: the rank that stalled it, or NETCOLL_NONE
 * @err: positive errno: why
 * @dev: DEV_DETACHED: the device
 */
struct nck_event {
	struct net *net;
	u32 comm_id;
	u32 rank;
	u32 seq;
	u32 peer;
	int err;
	const struct net_device *dev;
};

int nck_event_listen(struct notifier_block *nb);
void nck_event_unlisten(struct notifier_block *nb);
void nck_event_op_failed(struct nck_comm *c, u32 seq, int err, u32 peer);
void nck_event_dev_detached(struct net *net, struct net_device *dev, int err);

#endif /* NCK_EVENT_H */

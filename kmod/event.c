// SPDX-License-Identifier: GPL-2.0
/*
 * Events: a blocking notifier chain between the layers that post them and
 * the generic netlink family that multicasts them (event.h).
 */
#include "comm.h"
#include "event.h"

static BLOCKING_NOTIFIER_HEAD(nc_event_chain);

int nc_event_listen(struct notifier_block *nb)
{
	return blocking_notifier_chain_register(&nc_event_chain, nb);
}

void nc_event_unlisten(struct notifier_block *nb)
{
	blocking_notifier_chain_unregister(&nc_event_chain, nb);
}

static void nc_event_post(enum nc_event_kind kind, struct nc_event *ev)
{
	might_sleep();
	blocking_notifier_call_chain(&nc_event_chain, kind, ev);
}

void nc_event_op_failed(struct nc_comm *c, u32 seq, int err, u32 peer)
{
	struct nc_event ev = {
		.net = c->nn->net, .comm_id = c->id, .seq = seq, .peer = peer,
		.err = err,
	};

	nc_event_post(NC_EVENT_OP_FAILED, &ev);
}

void nc_event_dev_detached(struct net *net, struct net_device *dev, int err)
{
	struct nc_event ev = { .net = net, .peer = NETCOLL_NONE, .err = err,
			       .dev = dev };

	nc_event_post(NC_EVENT_DEV_DETACHED, &ev);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Events: a blocking notifier chain between the layers that post them and
 * the generic netlink family that multicasts them (event.h).
 */
#include "comm.h"
#include "event.h"

static BLOCKING_NOTIFIER_HEAD(nck_event_chain);

int nck_event_listen(struct notifier_block *nb)
{
	return blocking_notifier_chain_register(&nck_event_chain, nb);
}

void nck_event_unlisten(struct notifier_block *nb)
{
	blocking_notifier_chain_unregister(&nck_event_chain, nb);
}

static void nck_event_post(enum nck_event_kind kind, struct nck_event *ev)
{
	might_sleep();
	blocking_notifier_call_chain(&nck_event_chain, kind, ev);
}

void nck_event_op_failed(struct nck_comm *c, u32 seq, int err, u32 peer)
{
	struct nck_event ev = {
		.net = c->nn->net, .comm_id = c->id, .rank = c->rank, .seq = seq,
		.peer = peer, .err = err,
	};

	nck_event_post(NCK_EVENT_OP_FAILED, &ev);
}

void nck_event_dev_detached(struct net *net, struct net_device *dev, int err)
{
	struct nck_event ev = { .net = net, .peer = NETCOLL_NONE, .err = err,
			       .dev = dev };

	nck_event_post(NCK_EVENT_DEV_DETACHED, &ev);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Receive path, shared by every medium, in softirq.  A frame is trusted
 * only after every check below, cheapest first; each failed check has its
 * own counter.  In order: the header alone (nc_wire_check), the
 * communicator and the claimed sender (cookie, ranks, the sender's
 * address), the tag and replay window of a keyed communicator, and the
 * epoch of this incarnation.  A communicator with several ranks on this
 * host is found by the frame's destination rank; its group frames go to
 * each of those ranks.
 */
#include <linux/skbuff.h>

#include "auth.h"
#include "bearer.h"
#include "frame.h"
#include "transport.h"

/* The header alone, before any communicator is looked at. */
static int nck_rcv_frame(struct sk_buff *skb, struct nc_frame *f)
{
	int reason;

	if (!pskb_may_pull(skb, NETCOLL_HDR_LEN))
		return NETCOLL_STAT_DROP_SHORT;
	reason = nc_wire_check(skb->data, skb->len, f);
	if (reason)
		return reason;
	/* Short frames arrive padded to the medium's minimum: cut that off. */
	if (pskb_trim(skb, nc_wire_frame_len(f)))
		return NETCOLL_STAT_DROP_MEMORY;
	return 0;
}

/* Is the frame c's, from the member it claims to be from? */
static int nck_rcv_check(struct nck_bearer *b, struct sk_buff *skb,
			 struct nc_frame *f, struct nck_comm *c)
{
	u64 pn = 0;
	int reason;

	if (f->cookie != c->cookie)
		return NETCOLL_STAT_DROP_COOKIE;
	if (f->src_rank >= c->size || f->src_rank == c->rank ||
	    (f->dst_rank != c->rank && f->dst_rank != NETCOLL_RANK_GROUP))
		return NETCOLL_STAT_DROP_RANK;
	if (rcu_access_pointer(c->bearer) != b ||
	    !nck_addr_equal(b->ops->frame_src(skb),
			    nck_comm_addr(c, f->src_rank), c->addr_len))
		return NETCOLL_STAT_DROP_ADDR;
	if (c->auth) {
		reason = nck_auth_open(c->auth, skb, f, &pn);
		if (reason)
			return reason;
	} else if (f->flags & NETCOLL_F_AUTH) {
		return NETCOLL_STAT_DROP_AUTH;	/* keyed on one side only */
	}
	/* Joins carry a nonce where other frames carry the epoch. */
	if (!nc_wire_is_join(f->type) &&
	    (!f->epoch || f->epoch != READ_ONCE(c->epoch)))
		return NETCOLL_STAT_DROP_EPOCH;
	/* Only now: a frame of another epoch must not move the window. */
	if (c->auth && !nck_auth_commit(c->auth, f, pn))
		return NETCOLL_STAT_DROP_REPLAY;
	return 0;
}

/* Under RCU: hand skb, checked against c, to c's engine; consumes skb. */
static void nck_rcv_comm(struct nck_bearer *b, struct nck_comm *c,
			 struct sk_buff *skb, const struct nc_frame *hdr)
{
	struct nc_frame f = *hdr;	/* each rank's checks write their own */
	int reason;

	reason = nck_rcv_check(b, skb, &f, c);
	if (reason) {
		nck_stat_inc(c->nn, reason);
		kfree_skb(skb);
		return;
	}
	nck_stat_inc(c->nn, NETCOLL_STAT_RX_FRAMES);
	nck_stat_add(c->nn, NETCOLL_STAT_RX_BYTES, skb->len);
	if (nc_wire_is_agg(f.type))
		nck_agg_rcv(c, skb, &f);
	else if (nc_wire_is_join(f.type))
		nck_join_rcv(c, skb, &f);
	else
		nck_transport_rcv(c, skb, &f);
}

/*
 * Under RCU: a group frame goes to every rank of its communicator on this
 * host but its sender, each with its own copy.  False: to none of them
 * (skb not consumed).
 */
static bool nck_rcv_group(struct nck_bearer *b, struct nck_comm *c,
			  struct sk_buff *skb, const struct nc_frame *f)
{
	struct nck_comm *to = NULL;
	struct sk_buff *copy;

	for (; c; c = rcu_dereference(c->sibling)) {
		if (c->rank == f->src_rank)
			continue;
		if (to) {
			copy = skb_clone(skb, GFP_ATOMIC);
			if (copy)
				nck_rcv_comm(b, to, copy, f);
			else
				nck_stat_inc(c->nn, NETCOLL_STAT_DROP_MEMORY);
		}
		to = c;
	}
	if (to)
		nck_rcv_comm(b, to, skb, f);
	return to;
}

void nck_rcv(struct nck_bearer *b, struct sk_buff *skb)
{
	struct nck_net *nn = nck_net(dev_net(b->dev));
	struct nck_comm *c;
	struct nc_frame f;
	bool taken;
	int reason;

	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb) {
		nck_stat_inc(nn, NETCOLL_STAT_DROP_MEMORY);
		return;
	}
	reason = nck_rcv_frame(skb, &f);
	if (reason)
		goto drop;
	rcu_read_lock();
	c = xa_load(&nn->comms, f.comm_id);
	/* a known communicator without that rank here: a wrong rank */
	reason = c ? NETCOLL_STAT_DROP_RANK : NETCOLL_STAT_DROP_COMM;
	if (f.dst_rank == NETCOLL_RANK_GROUP) {
		taken = nck_rcv_group(b, c, skb, &f);
	} else {
		while (c && c->rank != f.dst_rank)
			c = rcu_dereference(c->sibling);
		taken = c;
		if (c)
			nck_rcv_comm(b, c, skb, &f);
	}
	rcu_read_unlock();
	if (taken)
		return;
drop:
	nck_stat_inc(nn, reason);
	kfree_skb(skb);
}

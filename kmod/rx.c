// SPDX-License-Identifier: GPL-2.0
/*
 * Receive path, shared by every medium, in softirq.  A frame is trusted
 * only after every check below, cheapest first; each failed check has its
 * own counter.  In order: the header alone (nc_wire_check), the
 * communicator and the claimed sender (cookie, ranks, the sender's
 * address), the tag and replay window of a keyed communicator, and the
 * epoch of this incarnation.
 */
#include <linux/skbuff.h>

#include "auth.h"
#include "bearer.h"
#include "frame.h"
#include "transport.h"

static int nck_rcv_check(struct nck_bearer *b, struct sk_buff *skb,
			 struct nc_frame *f, struct nck_comm **cp)
{
	struct nck_net *nn = nck_net(dev_net(b->dev));
	struct nck_comm *c;
	u64 pn = 0;
	int reason;

	if (!pskb_may_pull(skb, NETCOLL_HDR_LEN))
		return NETCOLL_STAT_DROP_SHORT;
	reason = nc_wire_check(skb->data, skb->len, f);
	if (reason)
		return reason;
	/* Short frames arrive padded to the medium's minimum: cut that off. */
	if (pskb_trim(skb, nc_wire_frame_len(f)))
		return NETCOLL_STAT_DROP_MEMORY;

	c = xa_load(&nn->comms, f->comm_id);
	if (!c)
		return NETCOLL_STAT_DROP_COMM;
	if (f->cookie != c->cookie)
		return NETCOLL_STAT_DROP_COOKIE;
	if (f->src_rank >= c->size ||
	    (f->dst_rank != c->rank && f->dst_rank != NETCOLL_RANK_GROUP))
		return NETCOLL_STAT_DROP_RANK;
	if (rcu_access_pointer(c->bearer) != b ||
	    memcmp(b->ops->frame_src(skb), nck_comm_addr(c, f->src_rank),
		   c->addr_len))
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
	*cp = c;
	return 0;
}

void nck_rcv(struct nck_bearer *b, struct sk_buff *skb)
{
	struct nck_net *nn = nck_net(dev_net(b->dev));
	struct nck_comm *c = NULL;
	struct nc_frame f;
	int reason;

	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb) {
		nck_stat_inc(nn, NETCOLL_STAT_DROP_MEMORY);
		return;
	}
	rcu_read_lock();
	reason = nck_rcv_check(b, skb, &f, &c);
	if (reason) {
		rcu_read_unlock();
		nck_stat_inc(nn, reason);
		kfree_skb(skb);
		return;
	}
	nck_stat_inc(nn, NETCOLL_STAT_RX_FRAMES);
	nck_stat_add(nn, NETCOLL_STAT_RX_BYTES, skb->len);
	if (nc_wire_is_agg(f.type))
		nck_agg_rcv(c, skb, &f);
	else if (nc_wire_is_join(f.type))
		nck_join_rcv(c, skb, &f);
	else
		nck_transport_rcv(c, skb, &f);
	rcu_read_unlock();
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The epoch of a communicator: a random 64-bit number that names this
 * incarnation of it on the wire.  Every frame carries it and receivers
 * drop frames of another epoch (drop_epoch), so frames of a deleted and
 * re-created communicator with the same id and cookie, captured and
 * replayed or merely late, are never taken for the new one's.
 *
 * Rank 0 draws the epoch when it creates the communicator.  Every other
 * rank asks it (JOIN, carrying a random nonce of the asker's) until rank 0
 * answers (JOIN_ACK, the epoch and the nonce echoed); an answer with
 * another nonce is an old one and is ignored.  Operations wait for the
 * epoch within their time budget (ETIMEDOUT if rank 0 never answers).
 * Asking backs off from rto_min_ms to NC_JOIN_RTO_MAX; rank 0 answers a
 * peer at most as often as the peer may legitimately ask
 * (nc_join_may_answer), so a forged flood of JOINs is not amplified.
 *
 * A rank whose communicator is re-created alone would start its sequence
 * numbers again under the same epoch, and be served results of its
 * peers' old operations as its new ones.  Rank 0 remembers the nonce of
 * each member's first JOIN: a JOIN with another nonce comes from a new
 * incarnation of that member, so rank 0 breaks the communicator
 * (nc_comm_break) and refuses it (JOIN_ACK with epoch 0), which breaks
 * the asker too; the other members, missing both, fail and break in
 * turn.  Every rank gets an error, none another call's data.  One
 * re-created on rank 0 alone has a new epoch: its frames and its peers'
 * are dropped (drop_epoch) and their operations fail the same way.
 */
#include <linux/random.h>

#include "core.h"

#define NC_JOIN_RTO_MAX		HZ
/* Backoff steps of the answers to one peer (rto_min_ms << shift). */
#define NC_ANSWER_SHIFT_MAX	6

static void nc_join_ask(struct nc_comm *c)
{
	struct sk_buff *skb;
	struct nc_frame f;

	skb = nc_frame_alloc(0, GFP_ATOMIC);
	if (!skb)
		return;		/* the timer asks again */
	nc_frame_hdr(c, &f, NETCOLL_T_JOIN, 0, 0, 0);
	f.epoch = c->join_nonce;
	nc_wire_encode(skb_put(skb, NETCOLL_HDR_LEN), &f);
	nc_frame_xmit(c, skb, 0);
}

static void nc_join_timer(struct timer_list *t)
{
	struct nc_comm *c = from_timer(c, t, join_timer);
	bool ask;

	spin_lock(&c->lock);
	ask = !c->epoch && !c->dead;
	if (ask) {
		c->join_rto = min_t(unsigned long, 2 * c->join_rto,
				    NC_JOIN_RTO_MAX);
		mod_timer(&c->join_timer, jiffies + c->join_rto);
	}
	spin_unlock(&c->lock);
	if (ask)
		nc_join_ask(c);
}

void nc_join_init(struct nc_comm *c)
{
	timer_setup(&c->join_timer, nc_join_timer, 0);
	/* 0 means "not joined": neither may be 0 */
	if (c->rank == 0)
		c->epoch = get_random_u64() ?: 1;
	else
		c->join_nonce = get_random_u64() ?: 1;
}

/* The communicator is published: start asking rank 0. */
void nc_join_start(struct nc_comm *c)
{
	if (c->rank == 0)
		return;
	c->join_rto = msecs_to_jiffies(nc_rto_min_ms) ?: 1;
	mod_timer(&c->join_timer, jiffies + c->join_rto);
	nc_join_ask(c);
}

/* c->dead is set: the timer does not come back. */
void nc_join_stop(struct nc_comm *c)
{
	del_timer_sync(&c->join_timer);
}

/*
 * Under c->lock: may rank 0 answer peer's JOIN now?  At most once per
 * rto_min_ms << n, n growing with every answer, which is as often as a
 * peer backing off its own requests asks.
 */
static bool nc_join_may_answer(struct nc_comm *c, u32 peer)
{
	struct nc_peer *p = &c->peers[peer];
	unsigned long now = jiffies;

	lockdep_assert_held(&c->lock);
	if (p->answer_at && time_before(now, p->answer_at))
		return false;
	p->answer_at = (now + (msecs_to_jiffies(nc_rto_min_ms) << p->answer_shift)) ?: 1;
	if (p->answer_shift < NC_ANSWER_SHIFT_MAX)
		p->answer_shift++;
	return true;
}

static void nc_join_answer(struct nc_comm *c, const struct nc_frame *q)
{
	struct nc_peer *p = &c->peers[q->src_rank];
	bool ok, refuse;
	struct sk_buff *skb;
	struct nc_frame f;

	spin_lock(&c->lock);
	if (!p->nonce)
		p->nonce = q->epoch;
	refuse = p->nonce != q->epoch;	/* a new incarnation of the asker */
	if (refuse && !c->dead)
		nc_comm_break(c);
	ok = !c->dead && nc_join_may_answer(c, q->src_rank);
	spin_unlock(&c->lock);
	if (!ok) {
		nc_stat_inc(c->nn, NETCOLL_STAT_DROP_RATELIMIT);
		return;
	}
	skb = nc_frame_alloc(0, GFP_ATOMIC);
	if (!skb) {
		nc_stat_inc(c->nn, NETCOLL_STAT_DROP_MEMORY);
		return;
	}
	nc_frame_hdr(c, &f, NETCOLL_T_JOIN_ACK, 0, q->src_rank, 0);
	if (refuse)
		f.epoch = 0;
	f.seq = upper_32_bits(q->epoch);
	f.frag_off = lower_32_bits(q->epoch);
	nc_wire_encode(skb_put(skb, NETCOLL_HDR_LEN), &f);
	nc_stat_inc(c->nn, NETCOLL_STAT_JOINS);
	nc_frame_xmit(c, skb, q->src_rank);
}

/* JOIN or JOIN_ACK from the receive path (softirq, RCU held). */
void nc_join_rcv(struct nc_comm *c, struct sk_buff *skb,
		 const struct nc_frame *f)
{
	u64 nonce = (u64)f->seq << 32 | f->frag_off;
	bool joined = false;

	if (f->type == NETCOLL_T_JOIN) {
		if (c->rank == 0 && f->epoch)
			nc_join_answer(c, f);
		else
			nc_stat_inc(c->nn, NETCOLL_STAT_DROP_STATE);
		consume_skb(skb);
		return;
	}
	if (f->src_rank != 0) {
		nc_stat_inc(c->nn, NETCOLL_STAT_DROP_RANK);
		kfree_skb(skb);
		return;
	}
	spin_lock(&c->lock);
	if (!c->epoch && !c->dead && nonce == c->join_nonce) {
		/* epoch 0: rank 0 knew an earlier incarnation of ours */
		if (f->epoch)
			c->epoch = f->epoch;
		else
			nc_comm_break(c);
		joined = true;
	}
	spin_unlock(&c->lock);
	if (joined) {
		del_timer(&c->join_timer);
		wake_up_all(&c->wq);
	} else {
		nc_stat_inc(c->nn, NETCOLL_STAT_DROP_EPOCH);
	}
	consume_skb(skb);
}

/* Process context: wait until the epoch is known, at most until deadline. */
int nc_join_wait(struct nc_comm *c, unsigned long deadline)
{
	long left;

	if (READ_ONCE(c->epoch))
		return 0;
	left = (long)(deadline - jiffies);
	if (left > 0)
		left = wait_event_interruptible_timeout(c->wq,
							READ_ONCE(c->epoch) ||
							READ_ONCE(c->dead) ||
							READ_ONCE(c->broken), left);
	if (left < 0)
		return -EINTR;
	if (READ_ONCE(c->dead))
		return READ_ONCE(c->dead);
	if (READ_ONCE(c->broken))
		return -ENOTRECOVERABLE;
	if (READ_ONCE(c->epoch))
		return 0;
	nc_event_op_failed(c, 0, ETIMEDOUT, 0);
	return -ETIMEDOUT;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The epoch of a communicator: a random 64-bit number that names this
 * incarnation of it on the wire.  Every frame carries it and receivers
 * drop frames of another epoch (drop_epoch), so frames of a deleted and
 * re-created communicator with the same id and cookie, captured and
 * replayed or merely late, are never taken for the new one's.
 *
 * Rank 0 draws the epoch when it creates the communicator.  Every other
 * rank asks it, with a random nonce of its own incarnation:
 *
 *   JOIN(nonce N)              rank k to rank 0
 *   JOIN_CHALLENGE(R, echo N)  rank 0: prove this request is live
 *   JOIN(N, echo R)            rank k
 *   JOIN_ACK(epoch, echo N)    rank 0; epoch 0 refuses
 *
 * Rank 0 remembers the nonce of each member it let in.  A live request
 * (it echoes the fresh challenge R) with another nonce comes from a new
 * incarnation of that member, which would start its sequence numbers
 * again under the same epoch and be served results of its peers' old
 * operations as its new ones: rank 0 breaks the communicator
 * (nck_comm_break) and refuses it, which breaks the asker too; the others,
 * missing both, fail and break in turn.  Every rank gets an error, none
 * another call's data.  The challenge makes a replayed JOIN of an older
 * incarnation (which carries no epoch) harmless: it cannot echo R.  An
 * answer with another nonce is an old one and is ignored.
 *
 * Operations wait for the epoch within their time budget (ETIMEDOUT if
 * rank 0 never answers).  Asking backs off from rto_min_ms to
 * NCK_JOIN_RTO_MAX; challenges, the one answer that costs rank 0 state,
 * go to a peer at most as often as it may legitimately ask
 * (nck_join_may_answer), so a flood of forged JOINs is not amplified.  One
 * re-created on rank 0 alone has a new epoch: its frames and its peers'
 * are dropped (drop_epoch) and their operations fail the same way.
 */
#include <linux/random.h>

#include "comm.h"
#include "event.h"
#include "frame.h"

#define NCK_JOIN_RTO_MAX		HZ
/* Backoff steps of the challenges to one peer (rto_min_ms << shift). */
#define NCK_ANSWER_SHIFT_MAX	6
#define NCK_ANSWER_MIN_MS	10U	/* floor of the interval between answers */

/* A header-only join frame: epoch is the nonce or the epoch, echo the other. */
static void nck_join_send(struct nck_comm *c, u16 type, u32 dst, u64 epoch,
			  u64 echo)
{
	struct sk_buff *skb;

	skb = nck_ctl_frame(c, type, 0, dst, 0, upper_32_bits(echo),
			    lower_32_bits(echo), 0, 0);
	if (!skb)
		return;		/* asked again, answered again */
	((struct netcoll_hdr *)skb->data)->epoch = cpu_to_be64(epoch);
	nck_frame_xmit(c, skb, dst);
}

static void nck_join_ask(struct nck_comm *c)
{
	nck_join_send(c, NETCOLL_T_JOIN, 0, c->join_nonce,
		      READ_ONCE(c->join_challenge));
}

static void nck_join_timer(struct timer_list *t)
{
	struct nck_comm *c = from_timer(c, t, join_timer);
	bool ask;

	spin_lock(&c->lock);
	ask = !c->epoch && !c->dead && !c->broken;
	if (ask) {
		c->join_rto = min_t(unsigned long, 2 * c->join_rto,
				    NCK_JOIN_RTO_MAX);
		mod_timer(&c->join_timer, jiffies + c->join_rto);
	}
	spin_unlock(&c->lock);
	if (ask)
		nck_join_ask(c);
}

void nck_join_init(struct nck_comm *c)
{
	timer_setup(&c->join_timer, nck_join_timer, 0);
	/* 0 means "not joined": neither may be 0 */
	if (c->rank == 0)
		c->epoch = get_random_u64() ?: 1;
	else
		c->join_nonce = get_random_u64() ?: 1;
}

/* The communicator is published: start asking rank 0. */
void nck_join_start(struct nck_comm *c)
{
	if (c->rank == 0)
		return;
	c->join_rto = msecs_to_jiffies(nck_rto_min_ms) ?: 1;
	mod_timer(&c->join_timer, jiffies + c->join_rto);
	nck_join_ask(c);
}

/* c->dead is set: the timer does not come back. */
void nck_join_stop(struct nck_comm *c)
{
	del_timer_sync(&c->join_timer);
}

/*
 * Under c->lock: may rank 0 challenge peer now?  At most once per
 * max(rto_min_ms, NCK_ANSWER_MIN_MS) << n, n growing with every challenge:
 * about as often as a peer backing off its own requests asks, and never
 * more often than the floor, however small the retransmission timeout is
 * tuned.
 */
static bool nck_join_may_answer(struct nck_comm *c, u32 peer)
{
	struct nck_peer *p = &c->peers[peer];
	unsigned long now = jiffies;

	lockdep_assert_held(&c->lock);
	if (p->answer_at && time_before(now, p->answer_at))
		return false;
	p->answer_at = (now + (msecs_to_jiffies(max(nck_rto_min_ms, NCK_ANSWER_MIN_MS)) <<
				p->answer_shift)) ?: 1;
	if (p->answer_shift < NCK_ANSWER_SHIFT_MAX)
		p->answer_shift++;
	return true;
}

/* Rank 0: a JOIN from q->src_rank, nonce q->epoch, echo (seq:frag_off). */
static void nck_join_answer(struct nck_comm *c, const struct nc_frame *q)
{
	struct nck_peer *p = &c->peers[q->src_rank];
	u64 echo = (u64)q->seq << 32 | q->frag_off, epoch = 0, challenge = 0;
	u16 type = NETCOLL_T_JOIN_ACK;
	bool send = true;

	spin_lock(&c->lock);
	if (c->dead) {
		send = false;
	} else if (p->nonce == q->epoch) {
		epoch = c->epoch;		/* known: again */
	} else if (echo && echo == p->challenge) {
		p->challenge = 0;		/* live */
		if (!p->nonce) {
			p->nonce = q->epoch;
			epoch = c->epoch;
		} else {
			nck_comm_break(c);	/* a new incarnation: refuse */
		}
	} else if (nck_join_may_answer(c, q->src_rank)) {
		p->challenge = get_random_u64() ?: 1;
		challenge = p->challenge;
		type = NETCOLL_T_JOIN_CHALLENGE;
	} else {
		send = false;
		nck_stat_inc(c->nn, NETCOLL_STAT_DROP_RATELIMIT);
	}
	spin_unlock(&c->lock);
	if (!send)
		return;
	nck_stat_inc(c->nn, NETCOLL_STAT_JOINS);
	nck_join_send(c, type, q->src_rank,
		      type == NETCOLL_T_JOIN_CHALLENGE ? challenge : epoch, q->epoch);
}

/* JOIN, JOIN_CHALLENGE or JOIN_ACK from the receive path (softirq). */
void nck_join_rcv(struct nck_comm *c, struct sk_buff *skb,
		  const struct nc_frame *f)
{
	u64 echo = (u64)f->seq << 32 | f->frag_off;
	bool woken = false, ask = false;

	if (f->type == NETCOLL_T_JOIN) {
		if (c->rank == 0 && f->epoch)
			nck_join_answer(c, f);
		else
			nck_stat_inc(c->nn, NETCOLL_STAT_DROP_STATE);
		consume_skb(skb);
		return;
	}
	if (f->src_rank != 0 || (f->type == NETCOLL_T_JOIN_CHALLENGE && !f->epoch)) {
		nck_stat_inc(c->nn, NETCOLL_STAT_DROP_RANK);
		kfree_skb(skb);
		return;
	}
	spin_lock(&c->lock);
	if (c->epoch || c->dead || c->broken || echo != c->join_nonce) {
		/* an old answer, or not for this incarnation */
	} else if (f->type == NETCOLL_T_JOIN_CHALLENGE) {
		c->join_challenge = f->epoch;
		ask = true;
	} else {
		/* epoch 0: rank 0 knew an earlier incarnation of ours */
		if (f->epoch)
			c->epoch = f->epoch;
		else
			nck_comm_break(c);
		woken = true;
	}
	spin_unlock(&c->lock);
	if (ask)
		nck_join_ask(c);
	if (woken) {
		del_timer(&c->join_timer);
		wake_up_all(&c->wq);
	} else if (!ask) {
		nck_stat_inc(c->nn, NETCOLL_STAT_DROP_EPOCH);
	}
	consume_skb(skb);
}

/* Process context: wait until the epoch is known, at most until deadline. */
int nck_join_wait(struct nck_comm *c, unsigned long deadline)
{
	long left;

	if (READ_ONCE(c->epoch))
		return 0;
	left = (long)(deadline - jiffies);
	if (left > 0 &&
	    wait_event_interruptible_timeout(c->wq, READ_ONCE(c->epoch) ||
					     READ_ONCE(c->dead) ||
					     READ_ONCE(c->broken), left) < 0)
		return -EINTR;
	if (READ_ONCE(c->dead))
		return READ_ONCE(c->dead);
	if (READ_ONCE(c->broken))
		return -ENOTRECOVERABLE;
	if (READ_ONCE(c->epoch))
		return 0;
	/* rank 0 is not answering: worth telling, but not once a retry */
	if (!atomic_xchg(&c->join_told, 1))
		nck_event_op_failed(c, 0, ETIMEDOUT, 0);
	return -ETIMEDOUT;
}

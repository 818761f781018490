// SPDX-License-Identifier: GPL-2.0
/*
 * The aggregation engine, frames in: nck_agg_rcv() and everything it
 * dispatches to -- fragments from children, results from the parent or
 * the root, acks and repair requests -- and the frames of operations not
 * started here yet (early frames, a broadcast its data starts).
 *
 * nck_agg_rcv() runs in the receive path (softirq, RCU held); float frames
 * go to a worker (nck_agg_work(): no FPU in softirq).  Everything here runs
 * under c->lock, in any context (nck_agg_input() too, for the early frames
 * a starting operation takes in agg.c).
 */
#include "reduce.h"
#include "shared/nc_reduce.h"
#include "agg_op.h"

/* Position of rank among the children of piece p, or -1. */
static int nck_agg_child_index(const struct nck_agg_piece *p, u32 rank)
{
	u32 lo = 0, hi = p->nchildren;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (p->children[mid] == rank)
			return mid;
		if (p->children[mid] < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static struct nck_agg_piece *nck_agg_piece_of(struct nck_comm *c,
					      struct nck_agg_op *op,
					    const struct nc_frame *f)
{
	u32 j = NETCOLL_AGG_TAG_PIECE(f->tag);

	/* a broadcast's frames name its root: another root's are not ours */
	if (j >= op->npieces || f->tag != nck_agg_tag(op, &op->piece[j])) {
		nck_stat_inc(c->nn, NETCOLL_STAT_DROP_LENGTH);
		return NULL;
	}
	return &op->piece[j];
}

/* Data frames must match the operation: op/dtype, piece length, cut. */
static bool nck_agg_data_ok(struct nck_comm *c, struct nck_agg_op *op,
			    struct nck_agg_piece *p, const struct nc_frame *f)
{
	if (f->opcode != op->opcode) {
		nck_stat_inc(c->nn, NETCOLL_STAT_DROP_OPCODE);
		return false;
	}
	if (f->msg_len != p->len || (p->len && f->frag_size != op->fs)) {
		nck_stat_inc(c->nn, NETCOLL_STAT_DROP_LENGTH);
		return false;
	}
	return true;
}

/*
 * Would child ci's fragment k be combined on arrival (its siblings' are
 * here)?  Such a frame frees memory at once and is taken over the limit.
 */
static bool nck_agg_completes(const struct nck_agg_op *op,
			      const struct nck_agg_piece *p, u32 ci, u32 k)
{
	u32 i;

	if (!nck_agg_own_in(op, p) || test_bit(k, p->ready))
		return false;
	for (i = 0; i < p->nchildren; i++)
		if (i != ci && !p->held[i * p->nfrags + k])
			return false;
	return true;
}

static void nck_agg_in_up(struct nck_comm *c, struct nck_agg_op *op,
			  struct sk_buff *skb, const struct nc_frame *f,
			 struct sk_buff_head *txq)
{
	struct nck_agg_piece *p = nck_agg_piece_of(c, op, f);
	enum nck_rx_verdict v;
	bool asked;
	int ci;

	if (!p)
		goto drop;
	if (p->bdata) {		/* nothing goes up with a broadcast's data */
		nck_stat_inc(c->nn, NETCOLL_STAT_DROP_STATE);
		goto drop;
	}
	ci = nck_agg_child_index(p, f->src_rank);
	if (ci < 0) {
		nck_stat_inc(c->nn, NETCOLL_STAT_DROP_RANK);
		goto drop;
	}
	if (!nck_agg_data_ok(c, op, p, f))
		goto drop;
	if (nck_frags_test(&p->got[ci], f->seq)) {
		nck_stat_inc(c->nn, NETCOLL_STAT_RX_DUPLICATES);
		nck_agg_answer_child(c, op, p, ci, 0, txq);	/* its ack was lost */
		goto drop;
	}
	/*
	 * A complete piece's result covers every child's fragments, so a new
	 * one is forged (or the result was: a frame "from the root" ahead of
	 * the children's).  Reduced now, it would change a result that the
	 * process copies without the lock (nck_agg_wait): a torn result.
	 */
	if (p->complete) {
		nck_stat_inc(c->nn, NETCOLL_STAT_DROP_STATE);
		goto drop;
	}
	if (skb_linearize(skb)) {
		nck_stat_inc(c->nn, NETCOLL_STAT_DROP_MEMORY);
		goto drop;
	}
	/*
	 * A frame from the early ones was charged until a moment ago, and
	 * may have been acked (booked): charged again as it was.
	 */
	if (!nck_rx_charge(c, skb)) {
		if (!op->taking_early && !nck_agg_completes(op, p, ci, f->seq)) {
			nck_stat_inc(c->nn, NETCOLL_STAT_DROP_MEMORY);
			goto drop;
		}
		nck_rx_charge_force(c, skb);	/* combined and freed below */
	}
	v = nck_frags_receive(&p->got[ci], f->seq, f->frag_size,
			      f->flags & NETCOLL_F_ACK_NOW);
	p->held[ci * p->nfrags + f->seq] = skb;
	nck_agg_progress(c, op);
	/*
	 * A fragment that asks (a round-trip probe) is answered before the
	 * result it may complete: the result acks it too, but without a
	 * round-trip sample (nck_agg_up_acked), and a child that is always
	 * the last to post would never get one (docs/agg-design.md,
	 * "Timing").
	 */
	asked = (f->flags & NETCOLL_F_ACK_NOW) && v == NCK_RX_NEW_ACK &&
		!nck_rx_behind(c);
	if (asked)
		nck_agg_ack_child(c, op, p, ci, 0, txq);
	nck_agg_try(c, op, p, f->seq, txq);
	/*
	 * Kept for a sibling's fragment while this host is behind: the ack
	 * waits (the child's window closes); a fragment combined at once is
	 * from a child the others wait for, whose ack goes out as usual.
	 */
	if (!test_bit(f->seq, p->ready) && nck_rx_behind(c)) {
		nck_frags_hold_ack(c, &p->got[ci], &op->acks_held);
		if (f->flags & NETCOLL_F_ACK_NOW)
			nck_agg_answer_child(c, op, p, ci, 0, txq);
	} else if (!asked && (v == NCK_RX_NEW_ACK || p->got[ci].ack_held)) {
		nck_agg_ack_child(c, op, p, ci, 0, txq);
	}
	nck_agg_acks_release(c, op, txq);
	return;
drop:
	kfree_skb(skb);
}

/*
 * A broadcast its data started (nck_agg_bcast_work()) got more of it.
 * While its data comes it lives nck_agg_unposted_ms() from one fragment
 * to the next: a parent that stops sending (or a forged first frame
 * nothing follows) fails it then, not after the hour it had before.
 * Once it has all its data it waits for its process as long as a caller
 * may ask to wait: that process's budget is not known yet (it starts
 * when it takes the operation over).
 */
static void nck_agg_unposted_alive(struct nck_comm *c, struct nck_agg_op *op)
{
	op->deadline = jiffies +
		msecs_to_jiffies(op->piece[0].complete ? NETCOLL_TIMEOUT_MS_MAX :
				 nck_agg_unposted_ms(c));
}

static void nck_agg_in_down(struct nck_comm *c, struct nck_agg_op *op,
			    struct sk_buff *skb, const struct nc_frame *f,
			   struct sk_buff_head *txq)
{
	struct nck_agg_piece *p = nck_agg_piece_of(c, op, f);
	u32 k;

	if (!p)
		goto drop;
	if (f->src_rank != p->parent && f->src_rank != p->root) {
		nck_stat_inc(c->nn, NETCOLL_STAT_DROP_RANK);
		goto drop;
	}
	if (!f->msg_len) {
		/*
		 * Done: every fragment we sent up arrived (a broadcast's data
		 * piece sends none: there it is the data of an empty one).
		 * The root says so once it has combined all of every rank's,
		 * so not before we sent all ours: a forged one finished a
		 * broadcast its data started before its process posted
		 * (nothing of ours went up), and a chain of them freed it
		 * unposted (see nck_agg_install), which broke every post
		 * after (EPIPE).
		 */
		if (!p->bdata && p->up_next < p->nfrags) {
			nck_stat_inc(c->nn, NETCOLL_STAT_DROP_STATE);
			goto drop;
		}
		if (p->done_mark)
			goto dup;
		p->done_mark = true;
		for (k = 0; k < p->up_next; k++)
			nck_agg_up_acked(op, p, k);
		if (nck_agg_tree_dist(op))
			nck_agg_to_children(c, op, p, 0, true, txq);
		if (p->want_data && !p->len)
			nck_frags_set(&p->res, 0);
		nck_agg_piece_check(c, op, p);
		kfree_skb(skb);
		return;
	}
	if (!p->want_data) {
		nck_stat_inc(c->nn, NETCOLL_STAT_DROP_STATE);
		goto drop;
	}
	if (!nck_agg_data_ok(c, op, p, f))
		goto drop;
	k = f->seq;
	if (nck_frags_test(&p->res, k))
		goto dup;
	if (skb_copy_bits(skb, NETCOLL_HDR_LEN, op->buf + p->off + k * op->fs,
			  f->len)) {
		nck_stat_inc(c->nn, NETCOLL_STAT_DROP_LENGTH);
		goto drop;
	}
	if (!p->windowed)
		nck_frags_set(&p->res, k);
	else if (nck_frags_receive(&p->res, k, f->frag_size, false) ==
		 NCK_RX_NEW_ACK)
		nck_agg_ack_result(c, op, p, txq);
	nck_agg_up_acked(op, p, k);
	nck_agg_progress(c, op);
	nck_agg_push_all(c, op, txq);
	if (p->windowed)
		nck_agg_push_down(c, txq);
	else if ((op->flags & NETCOLL_RED_ALL) && nck_agg_tree_dist(op))
		nck_agg_to_children(c, op, p, k, false, txq);
	nck_agg_piece_check(c, op, p);
	if (op->unposted)
		nck_agg_unposted_alive(c, op);
	/* a window's holes are asked for by the ack that showed them */
	if (!p->complete && !p->windowed)
		nck_agg_ask_holes(c, op, p, k, txq);
	kfree_skb(skb);
	return;
dup:
	nck_stat_inc(c->nn, NETCOLL_STAT_RX_DUPLICATES);
	if (p->windowed && f->msg_len)	/* our ack may have been lost */
		nck_agg_ack_result(c, op, p, txq);
drop:
	kfree_skb(skb);
}

static void nck_agg_newly_acked(void *arg, u32 k)
{
	struct nck_agg_ack_ctx *x = arg;
	struct nck_agg_op *op = x->op;

	op->progress = true;
	if (op->probe == x->p && op->probe_k == k) {
		nck_rtt_sample(&x->c->agg.rtt,
			       div_u64(ktime_get_ns() - op->probe_ns, NSEC_PER_USEC));
		op->probe = NULL;
	}
}

/* Resend fragment k going up, asking for an ack at once. */
int nck_agg_resend_up(void *arg, u32 k)
{
	struct nck_agg_ack_ctx *x = arg;

	if (x->op->probe == x->p && x->op->probe_k == k)
		x->op->probe = NULL;	/* Karn: its ack would be ambiguous */
	/*
	 * A timeout's probe is mostly late, not lost: it turns no
	 * repetition on and is not doubled as resent.  Nor does a tail
	 * hole resent early (guessed): on two vCPUs a fragment sent from
	 * one CPU's softirq overtakes one sent from the other's, and on a
	 * network that lost nothing those guesses kept every rank
	 * repeating (issue 15's cluster: 26-58 per 30 allreduces).
	 */
	if (x->lost && !x->p->up.guessed)
		nck_agg_saw_loss(x->c, x->op, NETCOLL_STAT_AGG_LOSS_ACKED);
	x->op->again = x->lost;
	nck_agg_send_frag(x->c, x->op, x->p, k, NETCOLL_T_AGG_UP,
			  NETCOLL_F_ACK_NOW, x->p->parent, false, x->txq);
	x->op->again = false;
	nck_stat_inc(x->c->nn, NETCOLL_STAT_RETRANSMITS);
	return 0;
}

/*
 * Does the parent's ack moving piece p's cumulative point from before to
 * cum time the data's round trip?  Only if the point moved because its
 * newest fragment came: nothing in between known before (a repaired hole
 * moving it past fragments that came long ago), none of them sent twice
 * (Karn, for the whole range: a resend's duplicate is answered with an
 * ack), no more than one ack interval (held acks released at once), not
 * an answer to the parent's own request (its timer's wait, not ours), and
 * data (header-only fragments pass the queues, as control frames).
 */
static bool nck_agg_up_timed(const struct nck_agg_piece *p,
			     const struct nc_frame *f, u32 before, u32 cum)
{
	u32 k;

	if (!p->len || (f->flags & NETCOLL_F_ACK_NOW) || cum <= before ||
	    cum - before > NCK_ACK_EVERY ||
	    find_next_bit(p->up.bits, cum, before) < cum || !p->up.tx)
		return false;
	for (k = before; k < cum; k++)
		if (p->up.tx[k].resent)
			return false;
	return true;
}

/* The parent says which of our fragments going up it has. */
static void nck_agg_in_ack(struct nck_comm *c, struct nck_agg_op *op,
			   const struct nc_frame *f, struct sk_buff_head *txq)
{
	struct nck_agg_ack_ctx x = { c, op, nck_agg_piece_of(c, op, f), txq,
				     true };
	struct nck_agg_piece *p = x.p;
	u32 sacked, before, cum, us;
	bool resent = true, timed, probed;

	if (!p)
		return;
	nck_stat_inc(c->nn, NETCOLL_STAT_RX_ACKS);
	if (f->src_rank != p->parent && f->src_rank != p->src &&
	    nck_agg_child_index(p, f->src_rank) < 0) {
		nck_stat_inc(c->nn, NETCOLL_STAT_DROP_RANK);
		return;
	}
	if (f->flags & NETCOLL_F_RESULT) {	/* a child acks our result */
		nck_agg_dn_acked(c, op, p, nck_agg_child_index(p, f->src_rank),
				 f->seq, f->frag_off, true, txq);
		nck_agg_push_down(c, txq);
		return;
	}
	if (f->src_rank != p->parent || nck_agg_is_root(c, p)) {
		/*
		 * A child answers our request at once: time it while there is
		 * no estimate yet.  Not after: request and answer are
		 * header-only and pass every queued fragment (TC_PRIO_CONTROL),
		 * so they time CPUs, not the queues the fragments wait in.
		 */
		if (f->src_rank != p->parent) {
			if (op->ask_ns && !c->agg.rtt.srtt_us)
				nck_rtt_sample(&c->agg.rtt,
					       div_u64(ktime_get_ns() - op->ask_ns,
						       NSEC_PER_USEC));
			op->ask_ns = 0;
			op->ask_again = false;
			op->late = op->expired;	/* we waited for a slow child */
		}
		return;			/* an alive answer: no news */
	}
	/* our parent waits for us and asks: say we are alive */
	if (f->flags & NETCOLL_F_ACK_NOW)
		nck_ctl_defer(c, NETCOLL_T_AGG_ACK, op->seq, p->parent,
			      nck_agg_tag(op, p), 0, 0, 0, txq);
	else if (op->expired)	/* the answer to our request: not done yet */
		op->late = true;
	op->progress = false;
	/*
	 * Timed as the results going down are (nck_agg_dn_acked): the
	 * newest fragment the cumulative point passes, if it went once and
	 * the point moved because it came.  Every such ack, not one probe
	 * in NCK_AGG_PROBE_EVERY operations: a timeout learnt from probes
	 * alone fires in the middle of transfers that are moving (see
	 * docs/agg-design.md, "The protocol" and "Timing").
	 */
	before = p->up.cum;
	cum = min(f->seq, p->up_next);
	timed = nck_agg_up_timed(p, f, before, cum);
	probed = op->probe == p;
	sacked = nck_frags_ack(&p->up, f->seq, f->frag_off, p->up_next,
			       nck_agg_newly_acked, &x);
	if (timed && !(probed && !op->probe)) {	/* the probe's own is taken */
		us = nck_frags_age_us(&p->up, cum - 1, &resent);
		if (!resent && us != U32_MAX)
			nck_rtt_sample(&c->agg.rtt, us);
	}
	if (op->progress)
		nck_agg_progress(c, op);
	nck_frags_fast_retransmit(c, &p->up, sacked, &c->agg.rtt,
				  nck_agg_resend_up, &x);
	nck_agg_push_all(c, op, txq);
	nck_agg_piece_check(c, op, p);
}

/*
 * Rank x (child ci of piece p, or -1) asked and gets no fragment: it is
 * told we are alive (a child: and what we hold of its own).
 */
static void nck_agg_answer_alive(struct nck_comm *c, struct nck_agg_op *op,
				 struct nck_agg_piece *p, int ci, u32 x,
				 struct sk_buff_head *txq)
{
	if (ci >= 0)
		nck_agg_answer_child(c, op, p, ci, 0, txq);
	else
		nck_ctl_defer(c, NETCOLL_T_AGG_ACK, op->seq, x,
			      nck_agg_tag(op, p), 0, 0, 0, txq);
}

/*
 * A request from `from` on is answered up to here: what its map can tell
 * and one burst past it (the scan under the lock stays short).
 */
static u32 nck_agg_answer_end(const struct nck_agg_piece *p, u32 from)
{
	return min_t(u64, p->nfrags,
		     (u64)from + 1 + NETCOLL_NACK_MAP_MAX * 8 + NCK_AGG_BURST);
}

/*
 * Have we a fragment of piece p's result, from `from` on, that an asker
 * lacks (map: what it has after from, len bytes)?  Only then is its
 * request answered with fragments, and counted by the rate limit: one
 * for fragments still to come here is told we are alive.
 */
static bool nck_agg_have_any(const struct nck_comm *c,
			     const struct nck_agg_piece *p, u32 from,
			     const u8 *map, u32 len)
{
	u32 k, end = nck_agg_answer_end(p, from);

	for (k = from; k < end; k++)
		if (!nck_nack_has(map, len, from, k) && nck_agg_have_frag(c, p, k))
			return true;
	return false;
}

/*
 * May rank x, which asks for piece j's result and has everything below
 * cum, be answered now?  Each piece once per interval of half rto_min_ms
 * << shift, the shift growing while x makes no progress: a requester
 * backing off its own timer (at least rto_min_ms, doubling) asks less
 * often, so none of its requests is refused (docs/agg-design.md,
 * "Results going down"), and a flood gets no more than twice that.
 */
static bool nck_agg_may_repair(struct nck_agg_op *op, u32 x, u32 j, u32 cum)
{
	struct nck_agg_asker *a = &op->askers[x];
	u64 now = ktime_get_ns();

	if (cum > a->cum[j]) {		/* it got what we sent: no backoff */
		a->cum[j] = cum;
		a->shift = 0;
	}
	if (!a->at || now >= a->at) {
		a->at = now + (((u64)nck_rto_min_ms * NSEC_PER_MSEC / 2) << a->shift);
		if (a->answered && a->shift < NCK_AGG_ASK_SHIFT_MAX)
			a->shift++;
		a->answered = 0;
	}
	if (a->answered & BIT(j))
		return false;
	a->answered |= BIT(j);
	return true;
}

/*
 * The frames on txq after its first skip answer a repair request for op
 * (sent fragments, counted): they go from its repair budget, never more
 * than is left (the last fragment's second copy may go past it), and
 * those charged come back if the device refuses them (nck_agg_refund).
 */
static void nck_agg_charge_repairs(struct nck_comm *c, struct nck_agg_op *op,
				   struct sk_buff_head *txq, u32 skip,
				   u32 frames, u32 sent)
{
	u32 charged = min(frames, op->repair_budget);
	struct sk_buff *skb;

	op->repair_budget -= charged;
	nck_stat_add(c->nn, NETCOLL_STAT_AGG_REPAIRS, sent);
	skb_queue_walk(txq, skb) {
		if (skip) {
			skip--;
			continue;
		}
		if (!charged--)
			break;
		nck_skb_cb(skb)->repair = true;
		nck_skb_cb(skb)->seq = op->seq;
	}
}

/*
 * Rank x saw holes in piece p's result below fragment f->msg_len: resend
 * the ones from f->seq on it lacks and this rank has sent (the others
 * are still to come).  Each request once: one for holes at or below what
 * was answered already is a copy (or a replay) unless it carries a newer
 * round (the asker's request again, after a round trip without the
 * answer).  The operation's repair budget bounds what all of them get.
 */
static void nck_agg_repair_holes(struct nck_comm *c, struct nck_agg_op *op,
				 struct nck_agg_piece *p,
				const struct nc_frame *f, const u8 *map,
				struct sk_buff_head *txq)
{
	struct nck_agg_asker *a = &op->askers[f->src_rank];
	u32 j = p - op->piece, end = min(f->msg_len, p->nfrags), k, sent = 0;
	u32 frames = 0, burst = nck_agg_burst(c, op), queued;

	/* holes asked for before: a newer round, at the timer's rate */
	if (f->seq < a->holes_below[j] &&
	    (f->frag_off <= a->holes_round[j] ||
	     !nck_agg_may_repair(op, f->src_rank, j, f->seq))) {
		nck_stat_inc(c->nn, NETCOLL_STAT_DROP_RATELIMIT);
		return;
	}
	a->holes_below[j] = max(a->holes_below[j], end);
	a->holes_round[j] = max(a->holes_round[j], f->frag_off);
	queued = skb_queue_len(txq);
	op->again = true;
	for (k = f->seq; k < end && frames < burst &&
	     frames < op->repair_budget; k++) {
		if (nck_nack_has(map, f->len, f->seq, k) ||
		    !nck_agg_have_frag(c, p, k))
			continue;
		frames += nck_agg_send_frag(c, op, p, k, NETCOLL_T_AGG_DOWN, 0,
					    f->src_rank, false, txq);
		sent++;
	}
	op->again = false;
	if (sent)	/* what we sent went missing */
		nck_agg_saw_loss(c, op, NETCOLL_STAT_AGG_LOSS_ASKED);
	nck_agg_charge_repairs(c, op, txq, queued, frames, sent);
}

/*
 * Child ci of a windowed piece asks (its timer ran: nothing came for a
 * while).  Its request acks: the fragments below its cumulative point
 * and those its map shows (the map's bits are an ack's selective bits).
 * Then, at the rate repairs are answered, the oldest fragment it lacks
 * of those we sent goes again, and the newest its next ack can show
 * (nck_frags_probe): the holes that ack shows follow.  Returns whether
 * anything went; else the child is told we are alive.  Fragments still
 * in our queue are not sent twice on a guess.
 */
static bool nck_agg_dn_asked(struct nck_comm *c, struct nck_agg_op *op,
			     struct nck_agg_piece *p, int ci,
			     const struct nc_frame *f, const u8 *map,
			     struct sk_buff_head *txq)
{
	struct nck_agg_dn_ctx x = { c, op, p, ci, txq, false };
	const struct nck_rtt *rtt = &c->agg.dn_rtt;
	u32 sack = 0, b, first;
	bool resent;

	for (b = 0; b < NCK_SACK_BITS; b++)
		if (nck_nack_has(map, f->len, f->seq, f->seq + 1 + b))
			sack |= 1U << b;
	nck_agg_dn_acked(c, op, p, ci, f->seq, sack, false, txq);
	if (f->msg_len)		/* holes: the acks on them asked already */
		return false;
	first = find_next_zero_bit(p->dn[ci].bits, p->dn_next[ci],
				   p->dn[ci].cum);
	if (first >= p->dn_next[ci])
		return false;
	/*
	 * Sent less than a round trip ago (and its variation): in a queue,
	 * not lost.  Not the RTO: a child asks on its own timer, at least
	 * rto_min_ms after its last fragment came, and refused it doubles
	 * that; with SRTT + 4 RTTVAR (7 ms at 10 % loss) a lost last
	 * fragment was refused two or three times in a row.
	 */
	if (!rtt->srtt_us)
		rtt = &c->agg.rtt;
	if (nck_frags_age_us(&p->dn[ci], first, &resent) <
	    rtt->srtt_us + rtt->rttvar_us ||
	    !nck_agg_may_repair(op, f->src_rank, p - op->piece, f->seq))
		return false;
	return nck_frags_probe(&p->dn[ci], p->dn_next[ci], nck_agg_resend_down,
			       &x) > 0;
}

/* Somebody lacks (part of) the result of piece p: send what it misses. */
static void nck_agg_in_nack(struct nck_comm *c, struct nck_agg_op *op,
			    struct sk_buff *skb, const struct nc_frame *f,
			    struct sk_buff_head *txq)
{
	struct nck_agg_piece *p = nck_agg_piece_of(c, op, f);
	u32 x = f->src_rank, k, sent = 0, frames = 0, burst, queued, end;
	u8 map[NETCOLL_NACK_MAP_MAX];
	bool x_data, avail;
	int ci;

	if (!p)
		return;
	/* the header check bounded len; the payload is there */
	if (skb_copy_bits(skb, NETCOLL_HDR_LEN, map, f->len)) {
		nck_stat_inc(c->nn, NETCOLL_STAT_DROP_LENGTH);
		return;
	}
	ci = nck_agg_child_index(p, x);
	/* Children ask their parent, anybody may ask the root. */
	if (ci < 0 && !nck_agg_is_root(c, p)) {
		nck_stat_inc(c->nn, NETCOLL_STAT_DROP_RANK);
		return;
	}
	if (ci >= 0 && p->dn) {		/* a windowed result (all ranks') */
		if (!nck_agg_dn_asked(c, op, p, ci, f, map, txq))
			nck_agg_answer_alive(c, op, p, ci, x, txq);
		return;
	}
	x_data = ((op->flags & NETCOLL_RED_ALL) || x == op->root) && p->len;
	if (f->msg_len && x_data && op->repair_budget) {
		nck_agg_repair_holes(c, op, p, f, map, txq);
		return;
	}
	/*
	 * Nothing there yet, or an answer now would come too soon: say we
	 * are alive (and what we hold of a child's), one frame for one.  One
	 * nack makes up to NCK_AGG_BURST frames otherwise: each asker is
	 * answered at most once per interval and each operation only up to
	 * its budget, so forged or replayed nacks cannot multiply traffic.
	 * Once the budget is spent an asker still gets one fragment per
	 * interval: told only that we are alive it would wait out the
	 * operation's whole time budget for a fragment we have (requests of
	 * children whose timers ran before the result came can spend it).
	 * A partial result is answered with what there is: the asker need
	 * not wait another timeout for fragments lost while a sibling's
	 * held up the rest.
	 */
	avail = x_data ? nck_agg_have_any(c, p, f->seq, map, f->len) :
		p->done_mark || (nck_agg_is_root(c, p) && p->nready == p->nfrags);
	if (!avail || !nck_agg_may_repair(op, x, p - op->piece, f->seq)) {
		if (avail)
			nck_stat_inc(c->nn, NETCOLL_STAT_DROP_RATELIMIT);
		nck_agg_answer_alive(c, op, p, ci, x, txq);
		return;
	}
	op->again = true;
	burst = op->repair_budget ? min(nck_agg_burst(c, op), op->repair_budget) : 1;
	queued = skb_queue_len(txq);
	if (!x_data) {
		frames = nck_agg_send_frag(c, op, p, 0, NETCOLL_T_AGG_DOWN, 0, x,
					   true, txq);
		sent = 1;
	}
	end = nck_agg_answer_end(p, f->seq);
	for (k = f->seq; x_data && k < end && frames < burst; k++) {
		if (nck_nack_has(map, f->len, f->seq, k) ||
		    !nck_agg_have_frag(c, p, k))
			continue;
		frames += nck_agg_send_frag(c, op, p, k, NETCOLL_T_AGG_DOWN, 0,
					    x, false, txq);
		sent++;
	}
	op->again = false;
	/*
	 * What we sent x went missing (a repair within budget and rate) if
	 * x has fragments above its first hole (its map shows them).
	 */
	if (!nck_agg_late(p, memchr_inv(map, 0, f->len)))
		nck_agg_saw_timeout(c, op);
	nck_agg_charge_repairs(c, op, txq, queued, frames, sent);
}

/* A rank asks: a repair request, or a parent asking a child that owes. */
static bool nck_agg_is_request(const struct nc_frame *f)
{
	return f->type == NETCOLL_T_AGG_NACK ||
	       (f->type == NETCOLL_T_AGG_ACK && (f->flags & NETCOLL_F_ACK_NOW));
}

void nck_agg_input(struct nck_comm *c, struct nck_agg_op *op,
		   struct sk_buff *skb, const struct nc_frame *f,
		   struct sk_buff_head *txq)
{
	lockdep_assert_held(&c->lock);

	if (op->err) {
		nck_stat_inc(c->nn, NETCOLL_STAT_DROP_STATE);
		kfree_skb(skb);
		return;
	}
	/*
	 * Data and answers show the peers we wait for are alive; a request
	 * (a repair request, a parent's ask) only that its sender waits too,
	 * and nothing of the peers we wait for: a dead child must still end
	 * our wait after nck_max_retries timeouts, and our silence then our
	 * parent's, rather than every rank waiting out the budget.
	 */
	if (!nck_agg_is_request(f))
		nck_rtx_alive(&op->rtx);
	switch (f->type) {
	case NETCOLL_T_AGG_UP:
		nck_agg_in_up(c, op, skb, f, txq);
		return;
	case NETCOLL_T_AGG_DOWN:
		nck_agg_in_down(c, op, skb, f, txq);
		return;
	case NETCOLL_T_AGG_ACK:
		nck_agg_in_ack(c, op, f, txq);
		break;
	case NETCOLL_T_AGG_NACK:
		nck_agg_in_nack(c, op, skb, f, txq);
		nck_agg_push_down(c, txq);	/* it may have acked */
		break;
	}
	kfree_skb(skb);
}

/*
 * A broadcast's data for the next operation here, before this rank's
 * process posted it: the broadcast starts now, as if posted (the worker
 * allocates it), so that an inner rank forwards it in the receive path
 * whether its process runs or not (docs/agg-design.md, "Early frames").
 * The process takes it over when it posts (nck_agg_start); until then its
 * empty piece waits, so the root still finishes only when every rank's
 * process posted.  One start at a time is queued, charged as a posted
 * one; the OSO window bounds them.  The frame says which broadcast (root
 * in its tag, length, fragment size) and must come from our parent in its
 * tree (the worker checks).  A multicast broadcast needs no forwarding.
 */
static bool nck_agg_bcast_data(struct nck_comm *c, const struct nc_frame *f)
{
	u32 root = NETCOLL_AGG_TAG_ROOT(f->tag), fs;

	/* a vector over the memory limit, or cut otherwise, could not start */
	return f->type == NETCOLL_T_AGG_DOWN &&
	       f->opcode == NETCOLL_OPCODE_BCAST &&
	       !(f->flags & NETCOLL_F_MCAST) && !NETCOLL_AGG_TAG_PIECE(f->tag) &&
	       f->msg_len && f->msg_len <= NETCOLL_REDUCE_MAX &&
	       f->msg_len <= c->mem_max &&
	       !nck_agg_frag_size(c, &fs) && f->frag_size == fs &&
	       root < c->size && root != c->rank;
}

/* Is f broadcast data of a start the worker refused? */
static bool nck_agg_early_refused(const struct nck_comm *c,
				  const struct nc_frame *f)
{
	return c->agg.early_bcast.refused &&
	       f->op_seq == c->agg.early_bcast.refused_seq &&
	       f->src_rank == c->agg.early_bcast.refused_src &&
	       NETCOLL_AGG_TAG_ROOT(f->tag) == c->agg.early_bcast.refused_root;
}

/*
 * The worker refused to start operation seq as the broadcast from root
 * that src's data announced (src is not our parent in that tree, mostly):
 * that data is dropped, the held frames now and later ones as they come.
 * Held, two refused senders' frames made each rescan queue the other's
 * again, and the worker ran without end.  Our parent's data for the
 * broadcast is refused only if the kernel had no memory for the
 * operation (ENOMEM; the communicator's own limit is waited for): the
 * process's post then asks for the data again (repairs), as after a loss.
 */
void nck_agg_early_refuse(struct nck_comm *c, u32 seq, u32 src, u32 root)
{
	struct sk_buff *skb, *tmp;
	struct nc_frame f;

	lockdep_assert_held(&c->lock);
	c->agg.early_bcast.refused = true;
	c->agg.early_bcast.refused_seq = seq;
	c->agg.early_bcast.refused_src = src;
	c->agg.early_bcast.refused_root = root;
	skb_queue_walk_safe(&c->agg.early, skb, tmp) {
		nck_skb_hdr(skb, &f);
		if (!nck_agg_bcast_data(c, &f) || !nck_agg_early_refused(c, &f))
			continue;
		__skb_unlink(skb, &c->agg.early);
		nck_rx_uncharge(c, skb);
		nck_stat_inc(c->nn, NETCOLL_STAT_DROP_RANK);
		kfree_skb(skb);
	}
}

/*
 * f passed nck_agg_bcast_data().  A start the worker found it must wait
 * for (early_bcast.waiting) is not tried again for each fragment that
 * comes: each try allocated the operation and built its tree, and a
 * fragment is one frame on the wire.
 */
static void nck_agg_early_bcast(struct nck_comm *c, const struct nc_frame *f)
{
	lockdep_assert_held(&c->lock);
	if (c->dead || c->broken || f->op_seq != c->agg.next ||
	    c->agg.early_bcast.queued ||
	    (c->agg.early_bcast.waiting && f->op_seq == c->agg.early_bcast.seq))
		return;
	if (!refcount_inc_not_zero(&c->ref))
		return;
	c->agg.early_bcast.seq = f->op_seq;
	c->agg.early_bcast.src = f->src_rank;
	c->agg.early_bcast.root = NETCOLL_AGG_TAG_ROOT(f->tag);
	c->agg.early_bcast.len = f->msg_len;
	c->agg.early_bcast.fs = f->frag_size;
	c->agg.early_bcast.queued = true;
	if (!queue_work(nck_wq, &c->agg.bcast_work)) {
		c->agg.early_bcast.queued = false;
		nck_comm_put(c);
	}
}

/*
 * The next operation just became possible: start it if a broadcast's data
 * for it waits among the early frames.  A busy root's may hold thousands of
 * later reductions' fragments: walked only while early_bcast.held (agg.h).
 */
void nck_agg_early_walk(struct nck_comm *c)
{
	struct sk_buff *skb;
	struct nc_frame f;

	lockdep_assert_held(&c->lock);
	c->agg.early_bcast.held = false;
	skb_queue_walk(&c->agg.early, skb) {
		nck_skb_hdr(skb, &f);
		if (!nck_agg_bcast_data(c, &f))
			continue;
		c->agg.early_bcast.held = true;
		nck_agg_early_bcast(c, &f);
		if (c->agg.early_bcast.queued)
			return;
	}
}

/*
 * A frame for an operation this rank has not started: contributions and
 * a broadcast's data wait with the early frames (bounded by the receive
 * memory) until it starts.  A broadcast's data does not wait for the
 * ranks it goes to: a rank whose process posts after its data came
 * would drop it, wait a timeout and ask for a repair.
 *
 * A child's fragments are booked (nck_early_hold_booked) and acked as
 * once started: without, a child whose parent's process is late hears
 * nothing, resends its window on every timeout and then waits on it
 * closed (docs/agg-design.md, "Early frames").  While the receive memory
 * is short (nck_rx_behind()) the acks wait, as for a started operation's
 * kept fragments: the child's window closes.  A peer asking is told what
 * we keep of its fragments, or only that we are alive.
 */
static void nck_agg_early(struct nck_comm *c, struct sk_buff *skb,
			  const struct nc_frame *f, struct sk_buff_head *txq)
{
	u32 cum, sack;

	lockdep_assert_held(&c->lock);

	/* a broken communicator starts nothing more: neither held nor "alive" */
	if (c->broken || f->op_seq - c->agg.next >= c->agg.oso) {
		nck_stat_inc(c->nn, NETCOLL_STAT_DROP_STATE);
		kfree_skb(skb);
		return;
	}
	if (nck_agg_is_request(f)) {
		nck_early_book_ack(c, nck_early_book(&c->agg.books, f->op_seq,
						     f->src_rank, f->tag),
				   &cum, &sack);
		nck_ctl_defer(c, NETCOLL_T_AGG_ACK, f->op_seq, f->src_rank,
			      f->tag, cum, sack, 0, txq);
		consume_skb(skb);	/* answered: we are alive, not done */
		return;
	}
	/*
	 * Empty fragments too (a barrier's, a broadcast's second piece): a
	 * child's timer then waits on an ack rather than resending.  A
	 * broadcast's parent has mostly started from its data by then
	 * (nck_agg_early_bcast()) and takes the fragment as a started one.
	 */
	if (f->type == NETCOLL_T_AGG_UP) {
		bool copy;

		if (nck_early_hold_booked(c, &c->agg.early, &c->agg.books, skb,
					  f, &cum, &sack, &copy))
			nck_ctl_defer(c, NETCOLL_T_AGG_ACK, f->op_seq,
				      f->src_rank, f->tag, cum, sack, 0, txq);
		return;
	}
	if (f->flags & NETCOLL_F_ACK_NOW)
		nck_ctl_defer(c, NETCOLL_T_AGG_ACK, f->op_seq, f->src_rank,
			      f->tag, 0, 0, 0, txq);
	if (f->type != NETCOLL_T_AGG_UP && f->type != NETCOLL_T_AGG_DOWN) {
		nck_stat_inc(c->nn, NETCOLL_STAT_DROP_STATE);
		kfree_skb(skb);
		return;
	}
	if (nck_agg_bcast_data(c, f)) {
		if (nck_agg_early_refused(c, f)) {
			nck_stat_inc(c->nn, NETCOLL_STAT_DROP_RANK);
			kfree_skb(skb);
			return;
		}
		c->agg.early_bcast.held = true;
		nck_agg_early_bcast(c, f);
	}
	nck_early_hold(c, &c->agg.early, skb);
}

/*
 * A frame of an operation that left its slot here: a late copy
 * (retransmission, duplicate) is no error; older still is.  A windowed
 * result's fragment (agg_tx.c) of a recent one means its sender has not
 * heard that we have it all -- our last ack was lost, and it probes the
 * tail (nck_agg_dn_probe()) -- or that we need nothing more of it (it
 * left because it finished, was cancelled or failed here).  Told so,
 * at the late-ack rate (nck_peer_late_ack()), the sender frees it for
 * its next post at once, not after the children's silence (rtx.quiet_min:
 * a leaf frees each result when its process posts the next).  The ack's cumulative
 * point is the whole piece: the sender counts none it did not send.
 */
static void nck_agg_stale(struct nck_comm *c, struct sk_buff *skb,
			  const struct nc_frame *f, struct sk_buff_head *txq)
{
	u32 age = c->agg.next - f->op_seq, n = 0;

	/* (a fragment's frag_size is not 0: nc_wire_check_frag()) */
	if (f->type == NETCOLL_T_AGG_DOWN && f->msg_len)
		n = nc_wire_nfrags(f->msg_len, f->frag_size);
	if (age > 2 * nck_agg_window(c)) {
		nck_stat_inc(c->nn, NETCOLL_STAT_DROP_STATE);
	} else if (n && !(f->flags & NETCOLL_F_MCAST) &&
		   !nck_agg_end_by_result(f->msg_len, n)) {
		if (nck_peer_late_ack(c, f->src_rank)) {
			nck_stat_inc(c->nn, NETCOLL_STAT_RX_DUPLICATES);
			nck_ctl_defer(c, NETCOLL_T_AGG_ACK, f->op_seq,
				      f->src_rank, f->tag, n, 0,
				      NETCOLL_F_RESULT, txq);
		} else {
			nck_stat_inc(c->nn, NETCOLL_STAT_DROP_RATELIMIT);
		}
	} else {
		nck_stat_inc(c->nn, NETCOLL_STAT_RX_DUPLICATES);
	}
	kfree_skb(skb);
}

/* n repairs of operation seq never went out: they go back to its budget. */
void nck_agg_refund(struct nck_comm *c, u32 seq, u32 n)
{
	struct nck_agg_op *op;

	lockdep_assert_held(&c->lock);
	op = c->dead ? NULL : nck_agg_find(c, seq);
	if (op)
		op->repair_budget = min_t(u64, (u64)op->repair_budget + n,
					  U32_MAX);
}

/* A frame of this engine, where it may reduce floats (not in softirq over an FPU user). */
static void nck_agg_deliver(struct nck_comm *c, struct sk_buff *skb,
			    const struct nc_frame *f)
{
	struct sk_buff_head txq;
	struct nck_agg_op *op;

	__skb_queue_head_init(&txq);
	spin_lock(&c->lock);
	if (c->dead) {
		spin_unlock(&c->lock);
		nck_stat_inc(c->nn, NETCOLL_STAT_DROP_STATE);
		kfree_skb(skb);
		return;
	}
	op = nck_agg_find(c, f->op_seq);
	if (op)
		nck_agg_input(c, op, skb, f, &txq);
	else if (!nck_seq_before(f->op_seq, c->agg.next))
		nck_agg_early(c, skb, f, &txq);
	else
		nck_agg_stale(c, skb, f, &txq);
	nck_agg_queue_out(c, &txq);
	spin_unlock(&c->lock);
	nck_agg_push_out(c);
}

/* Receive path entry (softirq, RCU held). */
void nck_agg_rcv(struct nck_comm *c, struct sk_buff *skb,
		 const struct nc_frame *f)
{
	bool fp = f->type == NETCOLL_T_AGG_UP && nc_dt_is_float(f->opcode & 0xff);

	if (fp && !nck_reduce_float_supported()) {
		nck_stat_inc(c->nn, NETCOLL_STAT_DROP_OPCODE);
		kfree_skb(skb);
		return;
	}
	if (!fp || (nck_reduce_fpu_usable() &&
		    !(READ_ONCE(nck_fpu_defer_all) && in_serving_softirq()))) {
		nck_agg_deliver(c, skb, f);
		return;
	}
	/*
	 * softirq interrupted a kernel FPU user: reduce in a worker.  A
	 * queued worker holds a reference: the communicator may be deleted
	 * while the frame waits.
	 */
	if (READ_ONCE(c->dead) ||
	    skb_queue_len(&c->agg.deferred) >= NCK_AGG_DEFER_MAX ||
	    !nck_rx_charge(c, skb)) {
		nck_stat_inc(c->nn, NETCOLL_STAT_DROP_MEMORY);
		kfree_skb(skb);
		return;
	}
	if (!refcount_inc_not_zero(&c->ref)) {
		nck_rx_free(c, skb);
		return;
	}
	skb_queue_tail(&c->agg.deferred, skb);
	nck_stat_inc(c->nn, NETCOLL_STAT_AGG_FPU_DEFERRED);
	if (!queue_work(nck_wq, &c->agg.work))
		nck_comm_put(c);
}

/* The frames queued when the worker was: later ones wait for its next run. */
void nck_agg_work(struct work_struct *work)
{
	struct nck_comm *c = container_of(work, struct nck_comm, agg.work);
	struct sk_buff_head q;
	struct sk_buff *skb;
	struct nc_frame f;

	__skb_queue_head_init(&q);
	spin_lock_bh(&c->agg.deferred.lock);
	skb_queue_splice_init(&c->agg.deferred, &q);
	spin_unlock_bh(&c->agg.deferred.lock);
	local_bh_disable();
	rcu_read_lock();
	while ((skb = __skb_dequeue(&q))) {
		nck_rx_uncharge(c, skb);
		nck_skb_hdr(skb, &f);
		nck_agg_deliver(c, skb, &f);
	}
	rcu_read_unlock();
	local_bh_enable();
	nck_comm_put(c);		/* the reference queue_work() was given */
}

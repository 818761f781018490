// SPDX-License-Identifier: GPL-2.0
/*
 * The aggregation engine, frames out: fragments going up to the parent
 * and results going down (to the children, or multicast), acks, repair
 * requests, repetition after a loss, and the progress an operation makes
 * (combining fragments, pushing them up and down within their windows).
 * The design they follow: the top of agg.c and docs/agg-design.md.
 *
 * Everything here runs under c->lock, called from the receive path, the
 * timer or a process starting an operation; frames are built onto the
 * caller's txq (see "Locking" at the top of agg.c).
 */
#include "reduce.h"
#include "agg_op.h"

/* -- Frames out -------------------------------------------------- */

/*
 * A frame of op was lost or late (a repair): repeat small operations a
 * while.  The window only moves forward: a late repair of an old
 * operation does not cut short what a newer one started.
 */
static void nck_agg_repeat(struct nck_comm *c, struct nck_agg_op *op)
{
	u32 until = op->seq + NCK_AGG_REPEAT_OPS;

	lockdep_assert_held(&c->lock);
	if (nck_comm_congested(c)) {	/* a slow link: copies lose more */
		c->agg.repeating = false;
		return;
	}
	if (!c->agg.repeating || nck_seq_before(c->agg.repeat_until, until))
		c->agg.repeat_until = until;
	c->agg.repeating = true;
}

/*
 * What op sent went missing, or what it waits for: a loss (see above),
 * counted by what showed it (cause: a NETCOLL_STAT_AGG_LOSS_* counter).
 */
void nck_agg_saw_loss(struct nck_comm *c, struct nck_agg_op *op, int cause)
{
	nck_stat_inc(c->nn, cause);
	op->lost = true;
	nck_agg_repeat(c, op);
}

/*
 * A request on a timeout, or the repair that answers it: a loss, or a
 * rank slower than the timeout.  It starts repetition but does not
 * prolong it: while repeating the timeout is the hop's, and a slow rank
 * would keep repetition on for ever (docs/agg-design.md, "Repetition").
 */
void nck_agg_saw_timeout(struct nck_comm *c, struct nck_agg_op *op)
{
	nck_stat_inc(c->nn, NETCOLL_STAT_AGG_LOSS_TIMEOUTS);
	if (!nck_agg_repeats_op(c, op))
		nck_agg_repeat(c, op);
}

/*
 * Is fragment k the last of piece p to go out of this rank (of type)?
 * Nothing after it shows the receiver that it was lost.  Up, fragments go
 * in order; down, in the order they complete here.
 */
static bool nck_agg_last_out(const struct nck_comm *c,
			     const struct nck_agg_piece *p, u32 k, u16 type)
{
	if (type == NETCOLL_T_AGG_UP || p->windowed)	/* in order */
		return k == p->nfrags - 1;
	return (nck_agg_is_root(c, p) ? p->nready : p->res.count) == p->nfrags;
}

/* Is op inside the window of repetition a loss opened (agg-design.md)? */
static bool nck_agg_repeating(struct nck_comm *c, const struct nck_agg_op *op)
{
	lockdep_assert_held(&c->lock);
	if (!c->agg.repeating)
		return false;
	/* expired first, so the window's end is seen even by large pieces */
	if (!nck_seq_before(op->seq, c->agg.repeat_until)) {
		c->agg.repeating = false;
		return false;
	}
	return true;
}

/*
 * Copies of fragment k of piece p (type) for dst: while repeating, 2 of
 * small pieces' fragments, of a piece's last fragment to go out, of a
 * fragment dst asked for before we had it and of every fragment sent
 * again (a retransmission an ack asked for, a repair), else 1.  What a
 * nack gets is counted against the operation's repair budget frame by
 * frame (the second copy of a fragment asked for before, here), so a
 * peer's nacks cannot put more than the budget on the wire (repairs our
 * full queue refused are given back: nck_agg_refund()).
 */
static unsigned int nck_agg_copies(struct nck_comm *c, struct nck_agg_op *op,
				   const struct nck_agg_piece *p, u32 k,
				   u16 type, u32 dst)
{
	if (!nck_agg_repeating(c, op) || nck_comm_congested(c))
		return 1;
	/* dst asked for k before we had it: a repair too, and charged so */
	if (type == NETCOLL_T_AGG_DOWN && op->askers && dst < c->size &&
	    op->askers[dst].holes_below[p - op->piece] > k && !op->again &&
	    op->repair_budget) {
		op->repair_budget--;
		return 2;
	}
	return op->again || p->nfrags <= NCK_AGG_REPEAT_FRAGS ||
	       nck_agg_last_out(c, p, k, type) ? 2 : 1;
}

/*
 * Fragment k of piece p (type AGG_UP or AGG_DOWN) from op->buf, or with
 * marker set an empty AGG_DOWN: the piece is done.  Returns the frames
 * queued.
 */
unsigned int nck_agg_send_frag(struct nck_comm *c,
			       struct nck_agg_op *op,
			       struct nck_agg_piece *p, u32 k, u16 type,
			       u16 flags, u32 dst, bool marker,
			       struct sk_buff_head *txq)
{
	u32 len = marker ? 0 : nck_agg_frag_len(op, p, k);
	unsigned int n, copies = nck_agg_copies(c, op, p, k, type, dst);
	struct sk_buff *skb;
	struct nc_frame f;

	nck_frame_hdr(c, &f, type, op->seq, dst, nck_agg_tag(op, p));
	f.opcode = op->opcode;
	f.flags = flags | (dst == NETCOLL_RANK_GROUP ? NETCOLL_F_MCAST : 0);
	if (!marker && p->len) {
		f.len = len;
		f.seq = k;
		f.frag_off = k * op->fs;
		f.msg_len = p->len;
		f.frag_size = op->fs;
	}
	if (type == NETCOLL_T_AGG_UP)
		nck_frags_sent(&p->up, k);
	for (n = 0; n < copies; n++) {
		skb = nck_frame_alloc(len, GFP_ATOMIC);
		if (!skb) {
			nck_stat_inc(c->nn, NETCOLL_STAT_DROP_MEMORY);
			return n;	/* the timer sends it again */
		}
		nc_wire_encode(skb_put(skb, NETCOLL_HDR_LEN), &f);
		skb_put_data(skb, op->buf + p->off + k * op->fs, len);
		nck_frame_defer(txq, skb, dst);
		if (n)
			nck_stat_inc(c->nn, NETCOLL_STAT_AGG_REPEATS);
	}
	return n;
}

/*
 * Tell child ci which of its fragments of piece p we have (flags
 * NETCOLL_F_ACK_NOW: and ask it to answer).
 */
void nck_agg_ack_child(struct nck_comm *c, struct nck_agg_op *op,
		       struct nck_agg_piece *p, u32 ci, u16 flags,
		       struct sk_buff_head *txq)
{
	u32 cum, sack;

	if (op->taking_early) {		/* one ack when they are all in */
		nck_frags_defer_ack(&p->got[ci], &op->acks_held);
		return;
	}
	nck_frags_unhold_ack(&p->got[ci], &op->acks_held);
	nck_frags_summary(&p->got[ci], &cum, &sack);
	nck_ctl_defer(c, NETCOLL_T_AGG_ACK, op->seq, p->children[ci],
		      nck_agg_tag(op, p), cum, sack, flags, txq);
}

/* Does this rank keep fragments of child ci waiting for its siblings'? */
static bool nck_agg_child_waits(const struct nck_agg_piece *p, u32 ci)
{
	u32 k;

	if (!p->held)		/* a broadcast's data: nothing comes up */
		return false;
	for (k = find_first_zero_bit(p->ready, p->nfrags); k < p->got[ci].next; k++)
		if (p->held[ci * p->nfrags + k])
			return true;
	return false;
}

/*
 * Child ci asks (a duplicate, a probe, a nack).  While this rank is
 * behind and keeps its fragments, it is told only that we are alive (an
 * ack of nothing, which resets its retry count without opening its
 * window), and its ack waits.  A child the others wait for gets its ack.
 * While the operation takes its early frames, every answer waits for the
 * one ack at their end (nck_agg_ack_child()).
 */
void nck_agg_answer_child(struct nck_comm *c, struct nck_agg_op *op,
			  struct nck_agg_piece *p, u32 ci, u16 flags,
			  struct sk_buff_head *txq)
{
	if (nck_rx_behind(c) && nck_agg_child_waits(p, ci) &&
	    !op->taking_early) {
		nck_frags_hold_ack(c, &p->got[ci], &op->acks_held);
		nck_ctl_defer(c, NETCOLL_T_AGG_ACK, op->seq, p->children[ci],
			      nck_agg_tag(op, p), 0, 0, flags, txq);
	} else {
		nck_agg_ack_child(c, op, p, ci, flags, txq);
	}
}

void nck_agg_acks_release_held(struct nck_comm *c,
			       struct nck_agg_op *op,
			       struct sk_buff_head *txq)
{
	u32 i, j;

	if (nck_rx_behind(c))
		return;
	for (j = 0; j < op->npieces && op->acks_held; j++) {
		struct nck_agg_piece *p = &op->piece[j];

		for (i = 0; i < p->nchildren; i++)
			if (p->got[i].ack_held)
				nck_agg_ack_child(c, op, p, i, 0, txq);
	}
}

/*
 * A repair request to the sender of piece p's result (nck_nack_frame()).
 * It goes once: the sender refuses a copy as a replay and counts it as a
 * drop, and a lost request is asked again (ask_holes' next round, or the
 * timer).
 */
static void nck_agg_send_nack(struct nck_comm *c, struct nck_agg_op *op,
			      struct nck_agg_piece *p,
			      const struct nck_frags *s, u32 from, u32 below,
			      u32 round, struct sk_buff_head *txq)
{
	struct sk_buff *skb;

	skb = nck_nack_frame(c, op->seq, p->src, nck_agg_tag(op, p), s, from, below,
			     round);
	if (skb)
		nck_frame_defer(txq, skb, p->src);
}

/*
 * Hole `from` of piece p's result showed (a later fragment arrived): is it
 * younger than the path's reordering window?  Then it may be reordered,
 * not lost, and is asked for only once it is older: by the next fragment
 * that arrives, or by the timer at op->hole_at.  The window is the
 * smoothed round trip of fragments going up, RACK's largest (RFC 8985,
 * 6.2): asked at once, each result fragment a guest's vCPUs delivered
 * out of order cost a request, a repair and repetition, and a quarter of
 * it (RACK's first window) is too short for that reordering
 * (docs/agg-design.md, "Results going down").
 */
static bool nck_agg_hole_wait(struct nck_comm *c, struct nck_agg_op *op,
			      struct nck_agg_piece *p, u32 from, u64 *now)
{
	u64 wnd = (u64)c->agg.rtt.srtt_us * NSEC_PER_USEC, at;

	if (!wnd)
		return false;	/* no estimate yet */
	if (!*now)
		*now = ktime_get_ns();
	if (!p->hole_ns || p->hole_k != from) {	/* a new lowest hole */
		p->hole_k = from;
		p->hole_ns = *now;
	}
	at = p->hole_ns + wnd;
	if (*now >= at)
		return false;
	if (!op->hole_at || at < op->hole_at) {
		op->hole_at = at;
		nck_agg_arm(c, at);
	}
	return true;
}

/*
 * Result fragment k arrived past holes not asked for yet: ask the sender
 * for those (below k) once they are a round trip old
 * (nck_agg_hole_wait), not one timeout later.  Holes asked for a
 * retransmission timeout ago and still missing were lost again (the
 * request or its answer): the next fragment that arrives asks for them
 * once more, in a new round, so that under loss the result is repaired
 * in round trips rather than timeouts.  Fragments past k may still be on
 * their way: they are not asked for, so the sender does not send them
 * twice.  What is missing when the timer fires is asked for again
 * (nck_agg_ask).
 */
void nck_agg_ask_holes(struct nck_comm *c, struct nck_agg_op *op,
		       struct nck_agg_piece *p, u32 k,
		       struct sk_buff_head *txq)
{
	u32 from, below = max(k, p->res_asked), round = 0;
	u64 now = 0;	/* read when needed: most fragments show no hole */
	bool old;

	from = find_next_zero_bit(p->res.bits, p->res_asked, p->res.cum);
	old = from < p->res_asked;	/* holes asked for are outstanding */
	if (!old) {
		p->res.cum = p->res_asked;	/* the next scan starts there */
	} else {
		now = ktime_get_ns();
		if (now - p->ask_ns >=
		    (u64)nck_rtt_rto_us(&c->agg.rtt) * NSEC_PER_USEC)
			round = ++p->ask_round;		/* lost again */
	}
	if (!round) {
		if (k <= p->res_asked)
			return;
		from = find_next_zero_bit(p->res.bits, k,
					  max(p->res.cum, p->res_asked));
		if (from < k && nck_agg_hole_wait(c, op, p, from, &now))
			return;
	}
	p->hole_ns = 0;
	p->res_asked = below;
	if (from >= below)
		return;		/* no hole below k */
	/* the oldest request still outstanding: what a round waits for */
	if (round || !old)
		p->ask_ns = now ?: ktime_get_ns();
	nck_agg_saw_loss(c, op, NETCOLL_STAT_AGG_LOSS_HOLES);
	/* no further than the request's map can tell what we have */
	below = min(below, from + 1 + NETCOLL_NACK_MAP_MAX * 8);
	nck_agg_send_nack(c, op, p, &p->res, from, below, round, txq);
}

/* The timer at op->hole_at: ask for the holes old enough now. */
void nck_agg_ask_waited(struct nck_comm *c, struct nck_agg_op *op,
			struct sk_buff_head *txq)
{
	u32 j;

	op->hole_at = 0;
	for (j = 0; j < op->npieces; j++) {
		struct nck_agg_piece *p = &op->piece[j];

		/* hole_ns: set past a fragment of an unwindowed result */
		if (p->hole_ns && !p->complete)
			nck_agg_ask_holes(c, op, p, p->res.next - 1, txq);
	}
}

/*
 * A rank asked on its timeout for (the rest of) piece p's result, and
 * this rank has fragments of it the asker lacks (hole: the asker has
 * some above the first it lacks).  Its timer may have run before the
 * result came, behind a slower subtree or while this rank still waited
 * for one to make the next fragments (results go out as they are made,
 * in order): late, not lost, and no repetition (nck_agg_saw_loss) --
 * else every early ask, frequent without any loss under CPU load,
 * doubled the frames of the next operations.  A hole below a fragment
 * that came shows a loss, or a reordering.  A windowed result is late
 * even so: its acks show a loss.  A small piece cannot tell late from
 * lost (one fragment): it repeats.
 */
bool nck_agg_late(const struct nck_agg_piece *p, bool hole)
{
	return p->windowed || (!hole && p->nfrags > NCK_AGG_REPEAT_FRAGS);
}

/* Ask the sender of piece p's result for everything missing (timeout). */
void nck_agg_ask(struct nck_comm *c, struct nck_agg_op *op,
		 struct nck_agg_piece *p, struct sk_buff_head *txq)
{
	bool data = p->want_data && p->len;
	u32 from = 0;

	if (data) {
		p->res.cum = find_next_zero_bit(p->res.bits, p->res.n, p->res.cum);
		from = p->res.cum;
	}
	p->res_asked = max(p->res_asked, p->res.next);
	p->hole_ns = 0;
	p->ask_ns = ktime_get_ns();
	/*
	 * No repetition here: the answer tells a loss from a late rank --
	 * the sender resending what it had sent (nck_agg_in_nack), its ack
	 * showing what this rank sent up lost (nck_agg_resend_up), or a
	 * hole below what came (nck_agg_ask_holes).
	 */
	nck_agg_send_nack(c, op, p, data ? &p->res : NULL, from, 0, 0, txq);
}

/* -- Progress ---------------------------------------------------- */

void nck_agg_piece_check(struct nck_comm *c, struct nck_agg_op *op,
			 struct nck_agg_piece *p)
{
	bool done;

	if (p->complete)
		return;
	if (p->want_data)
		done = nck_frags_full(&p->res);
	else
		done = p->done_mark ||
		       (nck_agg_is_root(c, p) && p->nready == p->nfrags) ||
		       (p->bsync && nck_frags_full(&p->up));
	if (!done)
		return;
	p->complete = true;
	if (++op->pieces_done == op->npieces)
		nck_agg_complete(c, op, 0);
}

/*
 * Bytes of op's windowed results sent to children and not acked.  Once
 * every child has acked its whole result nothing is left to send or wait
 * for: op->dn_done, and nck_agg_push_down() passes it by from then on:
 * it runs on every frame received (docs/agg-design.md, "Cost").
 */
static u64 nck_agg_dn_inflight(struct nck_agg_op *op)
{
	bool done = true;
	u32 j, i;
	u64 n = 0;

	for (j = 0; j < op->npieces; j++) {
		const struct nck_agg_piece *p = &op->piece[j];

		for (i = 0; p->dn && i < p->nchildren; i++) {
			n += p->dn_next[i] - p->dn[i].count;
			done = done && nck_frags_full(&p->dn[i]);
		}
	}
	op->dn_done = done;
	return n * op->fs;
}

/*
 * Send op's children the fragments of windowed results they have not had,
 * in order, one child after another, while the window has room (*n bytes
 * of it are in flight).  Each child of a piece may hold at most its share
 * of the window: a slow child's fragments wait long for their acks, and
 * with one window for all it took the whole of it, its siblings then
 * getting their data at its rate; a dead child holds its share forever.
 */
static void nck_agg_push_op(struct nck_comm *c, struct nck_agg_op *op,
			    u64 *n, u64 window, struct sk_buff_head *txq)
{
	bool sent;
	u32 j, i;

	do {
		sent = false;
		for (j = 0; j < op->npieces; j++) {
			struct nck_agg_piece *p = &op->piece[j];
			u32 share = max_t(u64, div_u64(window, (u64)op->fs *
						       max(p->nchildren, 1U)),
					  NCK_AGG_DN_MIN);

			for (i = 0; p->dn && i < p->nchildren && *n < window; i++) {
				u32 k = p->dn_next[i];

				if (k >= p->nfrags || !nck_agg_have_frag(c, p, k) ||
				    k - p->dn[i].count >= share)
					continue;
				nck_agg_send_frag(c, op, p, k, NETCOLL_T_AGG_DOWN,
						  0, p->children[i], false, txq);
				nck_frags_sent(&p->dn[i], k);
				p->dn_next[i]++;
				*n += op->fs;
				sent = true;
			}
		}
	} while (sent && *n < window);
}

/*
 * Send what the window (nck_agg_dn_window()) has room for, the oldest
 * operation first: a large result sent whole, once per child, overflows
 * our device's queue (docs/agg-design.md, "Results going down").  One
 * window for every operation: broadcasts back to back are in flight
 * together.  An inner rank forwards in order: a fragment lost on its way
 * here holds its children back one repair's round trip, not a timeout.
 */
void nck_agg_push_down(struct nck_comm *c, struct sk_buff_head *txq)
{
	u32 w = nck_agg_window(c), seq = c->agg.next - w, s;
	struct nck_agg_op *op;
	u64 n = 0, window = 0;
	bool freeable = false;

	lockdep_assert_held(&c->lock);
	for (s = 0; s < w; s++) {
		op = nck_agg_find(c, seq + s);
		if (op && !op->dn_done) {
			n += nck_agg_dn_inflight(op);
			window = nck_agg_dn_window(c, op->fs);
			freeable |= op->dn_done && op->complete && op->released;
		}
	}
	for (s = 0; s < w && n < window; s++) {
		op = nck_agg_find(c, seq + s);
		if (op && !op->err && !op->dn_done)
			nck_agg_push_op(c, op, &n, window, txq);
	}
	if (freeable)	/* nck_agg_reclaim() may take it now */
		nck_agg_memory_freeable(c);
}

/* Has every child of op been sent every fragment of its result once? */
static bool nck_agg_dn_all_sent(const struct nck_agg_op *op)
{
	u32 j, i;

	for (j = 0; j < op->npieces; j++) {
		const struct nck_agg_piece *p = &op->piece[j];

		for (i = 0; p->dn && i < p->nchildren; i++)
			if (p->dn_next[i] < p->nfrags)
				return false;
	}
	return true;
}

/*
 * May nck_agg_reclaim() free op (finished and released)?  Not while its
 * result still goes down to children that have not acked all of it: a
 * root under its memory limit freed a 640 KB allreduce its children were
 * still receiving as soon as its process posted the next one, and they
 * timed out.  A failed one delivers nothing more; nor does one whose
 * repair budget is spent once all of it went out once; nor one whose
 * children acked nothing new for as long a silence as fails an
 * operation (rtx.quiet_min, from dn_heard_ns): a child whose last ack
 * was lost has it all and asks for nothing more, and a dead one never
 * will.  The timer tells a waiting start when that silence ends
 * (nck_agg_arm_quiet()).
 */
bool nck_agg_delivered(struct nck_comm *c, struct nck_agg_op *op)
{
	lockdep_assert_held(&c->lock);
	if (!op->dn_done && !op->err)
		nck_agg_dn_inflight(op);
	return op->dn_done || op->err ||
	       (!op->repair_budget && nck_agg_dn_all_sent(op)) ||
	       ktime_get_ns() - op->dn_heard_ns >= op->rtx.quiet_min;
}

/*
 * Resend result fragment k to child ci: its ack showed it lost, or its
 * timer asked.  From the operation's repair budget, like every repair.
 */
int nck_agg_resend_down(void *arg, u32 k)
{
	struct nck_agg_dn_ctx *x = arg;
	struct nck_agg_op *op = x->op;

	if (!op->repair_budget)
		return -ENOBUFS;
	op->repair_budget--;
	if (x->lost && !x->p->dn[x->ci].guessed)  /* see nck_agg_resend_up */
		nck_agg_saw_loss(x->c, op, NETCOLL_STAT_AGG_LOSS_ACKED);
	/*
	 * Twice while repeating ("repetition", agg-design.md): RACK finds a lost resend only
	 * once a later fragment is acked, and a window full of holes sends
	 * none (docs/agg-design.md, "Repetition").
	 */
	op->again = true;
	nck_agg_send_frag(x->c, op, x->p, k, NETCOLL_T_AGG_DOWN, 0,
			  x->p->children[x->ci], false, x->txq);
	op->again = false;
	nck_frags_sent(&x->p->dn[x->ci], k);
	nck_stat_inc(x->c->nn, NETCOLL_STAT_AGG_REPAIRS);
	return 0;
}

/*
 * Child ci of piece p holds the result fragments an ack (cum, sack) shows:
 * its part of the window opens, and what the ack shows lost goes again
 * at once (the core's fast retransmission and RACK, as for fragments
 * going up).  Nothing past what we sent it counts.
 */
void nck_agg_dn_acked(struct nck_comm *c, struct nck_agg_op *op,
		      struct nck_agg_piece *p, int ci, u32 cum,
		      u32 sack, bool sample, struct sk_buff_head *txq)
{
	struct nck_agg_dn_ctx x = { c, op, p, ci, txq, true };
	u32 sacked, before, us, had;
	bool resent = true, timed;

	if (ci < 0 || !p->dn) {
		nck_stat_inc(c->nn, NETCOLL_STAT_DROP_STATE);
		return;
	}
	/*
	 * The newest fragment the ack's cumulative point passes is a round
	 * trip if it went once (Karn) and the point moved because it came:
	 * when a repaired hole moves it past fragments acked before, those
	 * came long ago, and timing them grew the estimate under 10 % loss
	 * until no timeout was answered.  Nor is a request timed (!sample):
	 * a child asks on its timer, so the wait would be its timeout's; nor
	 * the answer to a tail probe, which may ack fragments sent long ago.
	 */
	before = p->dn[ci].cum;
	if (cum > p->dn_next[ci]) {	/* more than we sent: nothing to learn */
		cum = p->dn_next[ci];
		sack = 0;
	}
	timed = sample && !p->dn[ci].probed && cum > before &&
		find_next_bit(p->dn[ci].bits, cum, before) >= cum;
	had = p->dn[ci].count;
	sacked = nck_frags_ack(&p->dn[ci], cum, sack, p->dn_next[ci], NULL,
			       NULL);
	/*
	 * Only news counts (nck_agg_delivered()): a child repeating the
	 * same ack while our repairs do not reach it is not being served.
	 */
	if (p->dn[ci].count != had) {
		op->dn_heard_ns = ktime_get_ns();
		op->dn_probes = 0;	/* the tail probes' backoff too */
	}
	if (timed) {
		us = nck_frags_age_us(&p->dn[ci], cum - 1, &resent);
		if (!resent)
			nck_rtt_sample(&c->agg.dn_rtt, us);
	}
	nck_frags_fast_retransmit(c, &p->dn[ci], sacked, &c->agg.dn_rtt,
				  nck_agg_resend_down, &x);
}

/* A windowed result: tell its sender which fragments we hold. */
void nck_agg_ack_result(struct nck_comm *c, struct nck_agg_op *op,
			struct nck_agg_piece *p,
			struct sk_buff_head *txq)
{
	/* res.cum is a true cumulative point (nck_agg_ask_holes keeps it so) */
	u32 cum = find_next_zero_bit(p->res.bits, p->res.n, p->res.cum);
	u32 sack = 0, b;

	for (b = 0; b < NCK_SACK_BITS && cum + 1 + b < p->res.n; b++)
		if (test_bit(cum + 1 + b, p->res.bits))
			sack |= 1U << b;
	p->res.since_ack = 0;
	nck_ctl_defer(c, NETCOLL_T_AGG_ACK, op->seq, p->src, nck_agg_tag(op, p),
		      cum, sack, NETCOLL_F_RESULT, txq);
}

void nck_agg_to_children(struct nck_comm *c, struct nck_agg_op *op,
			 struct nck_agg_piece *p, u32 k, bool marker,
			 struct sk_buff_head *txq)
{
	u32 i;

	for (i = 0; i < p->nchildren; i++)
		nck_agg_send_frag(c, op, p, k, NETCOLL_T_AGG_DOWN, 0,
				  p->children[i], marker, txq);
}

/* Distribute result fragment k (or with marker the piece's end). */
static void nck_agg_distribute(struct nck_comm *c, struct nck_agg_op *op,
			       struct nck_agg_piece *p, u32 k, bool marker,
			      struct sk_buff_head *txq)
{
	if (nck_agg_tree_dist(op)) {
		nck_agg_to_children(c, op, p, k, marker, txq);
		return;
	}
	nck_agg_send_frag(c, op, p, k, NETCOLL_T_AGG_DOWN, 0,
			  NETCOLL_RANK_GROUP, marker, txq);
	nck_stat_inc(c->nn, NETCOLL_STAT_AGG_MCAST_TX);
}

/* At the root: fragment k of piece p is final.  Hand it out. */
static void nck_agg_root_result(struct nck_comm *c, struct nck_agg_op *op,
				struct nck_agg_piece *p, u32 k,
			       struct sk_buff_head *txq)
{
	bool all = op->flags & NETCOLL_RED_ALL;

	if (p->want_data)
		nck_frags_set(&p->res, k);
	if (all && p->len && p->windowed) {
		nck_agg_push_down(c, txq);
	} else if (all && p->len) {
		nck_agg_distribute(c, op, p, k, false, txq);
	} else {
		if (!all && op->root != c->rank && p->len)
			nck_agg_send_frag(c, op, p, k, NETCOLL_T_AGG_DOWN, 0,
					  op->root, false, txq);
		if (p->nready == p->nfrags)
			nck_agg_distribute(c, op, p, 0, true, txq);
	}
	nck_agg_piece_check(c, op, p);
}

/* Send ready fragments to the parent, in order, within the window. */
void nck_agg_push_up(struct nck_comm *c, struct nck_agg_op *op,
		     struct nck_agg_piece *p, struct sk_buff_head *txq)
{
	u32 window = op->window, inflight = 0, j;
	u16 flags;

	/* a quarter while our link's queue overflows, as going down */
	if (nck_comm_congested(c))
		window = min(window, max(window / 4, 2 * nck_ack_every(op->fs)));

	/* one window per operation, whatever the split */
	for (j = 0; j < op->npieces; j++)
		inflight += op->piece[j].up_next - op->piece[j].up.count;
	while (p->up_next < p->nfrags && test_bit(p->up_next, p->ready) &&
	       inflight++ < window) {
		/* a broadcast's rank is done once its parent has this one */
		flags = p->bsync ? NETCOLL_F_ACK_NOW : 0;
		/* now and then one fragment asks for its ack: a round trip */
		if (!op->probe && (!c->agg.rtt.srtt_us ||
				   op->seq % NCK_AGG_PROBE_EVERY == 0)) {
			op->probe = p;
			op->probe_k = p->up_next;
			op->probe_ns = ktime_get_ns();
			flags = NETCOLL_F_ACK_NOW;
		}
		nck_agg_send_frag(c, op, p, p->up_next, NETCOLL_T_AGG_UP, flags,
				  p->parent, false, txq);
		p->up_next++;
	}
}

/* Acks (explicit or implied by the result) reopen the shared window. */
void nck_agg_push_all(struct nck_comm *c, struct nck_agg_op *op,
		      struct sk_buff_head *txq)
{
	u32 j;

	for (j = 0; j < op->npieces; j++)
		if (!nck_agg_is_root(c, &op->piece[j]))
			nck_agg_push_up(c, op, &op->piece[j], txq);
}

/* Combine fragment k of piece p once our own data and every child's are in. */
void nck_agg_try(struct nck_comm *c, struct nck_agg_op *op,
		 struct nck_agg_piece *p, u32 k, struct sk_buff_head *txq)
{
	u8 *acc = op->buf + p->off + k * op->fs;
	u32 len = nck_agg_frag_len(op, p, k);
	u32 i;

	if (!nck_agg_own_in(op, p) || test_bit(k, p->ready))
		return;
	/* a broadcast's data is final at its root and only there */
	if (p->bdata) {
		if (!nck_agg_is_root(c, p))
			return;
		goto ready;
	}
	for (i = 0; i < p->nchildren; i++)
		if (!p->held[i * p->nfrags + k])
			return;
	for (i = 0; i < p->nchildren; i++) {
		struct sk_buff **slot = &p->held[i * p->nfrags + k];

		if (len)
			nck_reduce(op->op, op->dtype, acc,
				   (*slot)->data + NETCOLL_HDR_LEN, len);
		nck_rx_free(c, *slot);
		*slot = NULL;
	}
	if (p->nchildren)
		nck_stat_inc(c->nn, NETCOLL_STAT_AGG_REDUCED);
ready:
	__set_bit(k, p->ready);
	p->nready++;
	if (nck_agg_is_root(c, p))
		nck_agg_root_result(c, op, p, k, txq);
	else
		nck_agg_push_up(c, op, p, txq);
}

/*
 * The result (or the done marker) acks fragment k of piece p going up:
 * progress, but no round-trip sample (the tree's time is in it).
 */
void nck_agg_up_acked(struct nck_agg_op *op, struct nck_agg_piece *p, u32 k)
{
	if (k >= p->up_next || !nck_frags_set(&p->up, k))
		return;
	op->progress = true;
	if (op->probe == p && op->probe_k == k)
		op->probe = NULL;
}

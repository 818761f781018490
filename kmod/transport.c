// SPDX-License-Identifier: GPL-2.0
/*
 * Reliable delivery of the messages of one operation (alltoall blocks and
 * synchronisation tokens), on the reliability core (rel.h: acks, fast
 * retransmission, RACK, probes, timeouts, duplicates; each the core's).
 *
 * An operation is a list of messages to send and a list to receive, each
 * identified on the wire by (op_seq, src, dst, tag).  Messages are cut
 * into fragments of the device MTU; the sender keeps at most a window of
 * them in flight (nck_window_frags()), a peer's next ones in one skb where
 * the device takes it (nck_push_frags()).  Until the operation has seen a
 * hole, a timeout probes with each message's oldest and newest unacked
 * fragment; after, tail-loss probes do so before it is due.  After
 * nck_max_retries timeouts, or when the time budget is spent, the
 * operation fails with -ETIMEDOUT; every exit path frees the operation
 * and the frames queued for it.
 *
 * Data moves straight between user memory and skbs, in the calling
 * process.  The receive handler (softirq) accounts and acks a data frame
 * on arrival and queues it for the process's copy; everything the sender
 * does runs in the process.  Frames of an operation not started here are
 * held until it starts, and a sender asking about them is told we are
 * alive: a late peer is waited for up to the time budget, not the retry
 * budget.  Data frames of a recently finished operation are answered with
 * a whole-message ack, at a bounded rate (nck_rx_late).
 */
#include <linux/bsearch.h>
#include <linux/sort.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "bearer.h"
#include "event.h"
#include "frame.h"
#include "sched.h"
#include "transport.h"

/* Future operations whose frames we hold before they start. */
#define NCK_EARLY_OPS		4
/* A sender may cut at most this many times finer than the receiver. */
#define NCK_FRAG_RATIO_MAX	8

/*
 * A message of an operation.  Sender: fr holds the acknowledged
 * fragments, sent the first never sent.  Receiver: fr holds the received
 * ones (under c->lock, nck_rx_take), copied those copied to the user (the
 * process).
 */
struct nck_msg {
	struct nck_msg_desc d;
	u32 frag_size;
	struct nck_frags fr;
	u32 sent;
	u32 copied;
};

struct nck_key {
	u32 peer;
	u32 tag;
	u32 idx;
};

struct nck_op {
	struct nck_comm *c;
	u32 seq;
	u64 charge;		/* bytes of c->mem_used */
	struct sk_buff_head rxq;	/* filled in softirq under c->lock */

	struct nck_msg *tx, *rx;
	struct nck_key *tx_keys, *rx_keys;
	u32 ntx, nrx;
	u32 tx_first;		/* messages below are fully acknowledged */
	u32 tx_cur;		/* ordered messages below were sent completely */
	u32 nord;		/* tx[0 .. nord) ordered, the rest unordered */
	u32 unord_left;		/* unordered messages not sent completely */
	u32 tx_open, rx_open;	/* messages not finished */
	u32 acks_held;		/* rx messages with ack_held, under c->lock */
	u32 inflight;		/* fragments sent, not acknowledged */
	u32 frag_size;
	u32 window;		/* nck_window_frags(frag_size), once */
	u32 per_skb;		/* nck_frames_per_skb(frag_size), once */
	bool tx_blocked;	/* the device pushed back; retry shortly */
	bool loss_seen;		/* an ack showed a hole: frames do get lost */
	bool progress;		/* the ack being applied acked something */

	unsigned long deadline;
	struct nck_rtx rtx;

	/* One fragment in flight is timed for the round-trip estimate. */
	struct nck_msg *probe;
	u32 probe_idx;
	u64 probe_sent;		/* ns */
};

/* Fragment idx of m as a frame; an ERR_PTR if it cannot be built. */
static struct sk_buff *nck_frag_build(struct nck_op *op, struct nck_msg *m,
				      u32 idx, u16 flags)
{
	u32 off = idx * m->frag_size;
	u32 len = min(m->frag_size, m->d.len - off);
	struct sk_buff *skb;
	struct nc_frame f;

	skb = nck_frame_alloc(len, GFP_KERNEL);
	if (!skb)
		return ERR_PTR(-ENOMEM);
	nck_frame_hdr(op->c, &f, NETCOLL_T_DATA, op->seq, m->d.peer, m->d.tag);
	f.flags = flags;
	f.len = len;
	f.seq = idx;
	f.frag_off = off;
	f.msg_len = m->d.len;
	f.frag_size = m->d.len ? m->frag_size : 0;
	nc_wire_encode(skb_put(skb, NETCOLL_HDR_LEN), &f);
	if (len && copy_from_user(skb_put(skb, len), m->d.ubuf + off, len)) {
		kfree_skb(skb);
		return ERR_PTR(-EFAULT);
	}
	return skb;
}

static int nck_send_frag(struct nck_op *op, struct nck_msg *m, u32 idx, u16 flags)
{
	struct sk_buff *skb = nck_frag_build(op, m, idx, flags);
	int err;

	if (IS_ERR(skb))
		return PTR_ERR(skb);
	/*
	 * Stamped once the device took it: a try our own queue refused is
	 * not a transmission, and RACK (rel.c) reads its order and time as
	 * one -- on a slow cable whose queue refuses every second try, holes
	 * looked lost early and the newest fragment sent never arrived.
	 */
	err = nck_frame_xmit(op->c, skb, m->d.peer);
	if (!err)
		nck_frags_sent(&m->fr, idx);
	return err;
}

/* -- Operation set-up -------------------------------------------- */

static struct nck_msg *nck_msg_find(struct nck_msg *msgs, struct nck_key *keys,
				    u32 n, u32 peer, u16 tag)
{
	struct nck_key k = { .peer = peer, .tag = tag }, *hit;

	hit = bsearch(&k, keys, n, sizeof(k), nck_u32x2_cmp);
	return hit ? &msgs[hit->idx] : NULL;
}

/* Messages for d[0 .. n), cut at frag_size, their sets allocated. */
static int nck_msgs_init(struct nck_msg **msgs, struct nck_key **keys,
			 const struct nck_msg_desc *d, u32 n, u32 frag_size,
			 bool tx)
{
	u32 i, nf;
	int err;

	*msgs = kvcalloc(n, sizeof(**msgs), GFP_KERNEL_ACCOUNT);
	*keys = kvcalloc(n, sizeof(**keys), GFP_KERNEL_ACCOUNT);
	if (!*msgs || !*keys)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		struct nck_msg *m = &(*msgs)[i];

		m->d = d[i];
		m->frag_size = frag_size;
		(*keys)[i] = (struct nck_key){ d[i].peer, d[i].tag, i };
		nf = nc_wire_nfrags(d[i].len, frag_size);
		err = tx ? nck_frags_init_tx(&m->fr, nf, GFP_KERNEL_ACCOUNT) :
			   nck_frags_init(&m->fr, nf, GFP_KERNEL_ACCOUNT);
		if (err)
			return err;
	}
	sort(*keys, n, sizeof(**keys), nck_u32x2_cmp, NULL);
	return 0;
}

static void nck_msgs_free(struct nck_msg *msgs, struct nck_key *keys, u32 n)
{
	u32 i;

	for (i = 0; msgs && i < n; i++)
		nck_frags_free(&msgs[i].fr);
	kvfree(msgs);
	kvfree(keys);
}

static void nck_op_free(struct nck_op *op)
{
	nck_msgs_free(op->tx, op->tx_keys, op->ntx);
	nck_msgs_free(op->rx, op->rx_keys, op->nrx);
	nck_comm_mem_release(op->c, op->charge);
	kfree(op);
}

/*
 * What an operation's bookkeeping takes: messages, keys, fragment sets
 * (a sender's with their stamps).
 */
static u64 nck_op_bytes(const struct nck_msg_desc *d, u32 n, u32 frag_size,
			bool tx)
{
	u64 bytes = (u64)n * (sizeof(struct nck_msg) + sizeof(struct nck_key));
	u32 i, nf;

	for (i = 0; i < n; i++) {
		nf = nc_wire_nfrags(d[i].len, frag_size);
		bytes += tx ? nck_frags_tx_bytes(nf) :
			      BITS_TO_LONGS(nf) * sizeof(long);
	}
	return bytes;
}

static struct nck_op *nck_op_alloc(struct nck_comm *c,
				   const struct nck_msg_desc *tx, u32 ntx,
				 const struct nck_msg_desc *rx, u32 nrx,
				 u32 frag_size, int *err)
{
	u64 charge = sizeof(struct nck_op) +
		     nck_op_bytes(tx, ntx, frag_size, true) +
		     nck_op_bytes(rx, nrx, frag_size, false);
	struct nck_op *op;

	/* Charged before it is allocated: over the limit is ENOBUFS. */
	*err = nck_comm_mem_reserve(c, charge);
	if (*err)
		return NULL;
	*err = -ENOMEM;
	op = kzalloc(sizeof(*op), GFP_KERNEL_ACCOUNT);
	if (!op) {
		nck_comm_mem_release(c, charge);
		return NULL;
	}
	op->c = c;
	op->charge = charge;
	op->ntx = ntx;
	op->nrx = nrx;
	for (op->nord = 0; op->nord < ntx && !tx[op->nord].unordered; op->nord++)
		;
	op->unord_left = ntx - op->nord;
	op->tx_open = ntx;
	op->rx_open = nrx;
	op->frag_size = frag_size;
	op->window = nck_window_frags(frag_size);
	op->per_skb = nck_frames_per_skb(c, frag_size);
	skb_queue_head_init(&op->rxq);
	/*
	 * Receive sets for senders that cut at our fragment size (the same
	 * MTU); nck_rx_take() replaces one in the rare other case.
	 */
	if (nck_msgs_init(&op->tx, &op->tx_keys, tx, ntx, frag_size, true) ||
	    nck_msgs_init(&op->rx, &op->rx_keys, rx, nrx, frag_size, false)) {
		nck_op_free(op);
		return NULL;
	}
	return op;
}

/* -- Input, in process context ----------------------------------- */

/* Sender: what an ack is applied to. */
struct nck_tx_ctx {
	struct nck_op *op;
	struct nck_msg *m;
};

/* The ack being applied acknowledged fragment idx for the first time. */
static void nck_tx_newly(void *arg, u32 idx)
{
	struct nck_tx_ctx *x = arg;
	struct nck_op *op = x->op;

	op->inflight--;
	op->progress = true;
	if (op->probe == x->m && op->probe_idx == idx) {
		nck_rtt_sample(&op->c->rtt, div_u64(ktime_get_ns() - op->probe_sent,
						    NSEC_PER_USEC));
		op->probe = NULL;
	}
	if (nck_frags_full(&x->m->fr))
		op->tx_open--;
}

/*
 * Once the operation has seen a loss (and our own queue is not what drops
 * frames: nck_comm_congested()), a frame whose loss nothing later would
 * reveal goes twice, back to back, as the aggregation engine's repetition
 * (agg.c): a fast retransmission (the holes an ack showed: a lost resend
 * is found only by a later transmission's ack, or a timeout at the tail)
 * and a message's last fragment (nck_frag_went).  A copy costs a frame; a
 * loss of one of those costs a probe or a timeout.  Not probes and not a
 * timeout's resends: mostly late frames, and many (docs/rel-design.md,
 * "Repetition").
 */
static bool nck_op_repeats(const struct nck_op *op)
{
	return op->loss_seen && !nck_comm_congested(op->c);
}

/* A copy of fragment idx of m just sent (flags alike); 0 or an error. */
static int nck_repeat(struct nck_op *op, struct nck_msg *m, u32 idx,
		      u16 flags)
{
	int err = nck_send_frag(op, m, idx, flags);

	if (err == -ENOBUFS)
		return 0;
	if (!err) {
		op->rtx.repeats++;
		nck_stat_inc(op->c->nn, NETCOLL_STAT_TX_REPEATS);
	}
	return err;
}

static int nck_resend(struct nck_op *op, struct nck_msg *m, u32 idx,
		      bool repeat)
{
	int err;

	if (op->probe == m && op->probe_idx == idx)
		op->probe = NULL;	/* Karn: its ack would be ambiguous */
	err = nck_send_frag(op, m, idx, NETCOLL_F_ACK_NOW);
	if (err && err != -ENOBUFS)
		return err;
	nck_stat_inc(op->c->nn, NETCOLL_STAT_RETRANSMITS);
	if (err)	/* refused by our queue, it cannot come twice */
		return 0;
	op->rtx.resent++;
	return repeat && nck_op_repeats(op) ?
	       nck_repeat(op, m, idx, NETCOLL_F_ACK_NOW) : 0;
}

/*
 * An ack showed a hole: this path loses frames, and from now on a late
 * tail is more likely lost than queued, so the timer probes (rel.h).
 * Before a hole, a probe mostly resends data whose ack a queue holds
 * back, and its copies fill that queue (docs/rel-design.md, "Tail-loss
 * probes only after a hole").
 */
static int nck_tx_resend(void *arg, u32 idx)
{
	struct nck_tx_ctx *x = arg;

	x->op->loss_seen = true;
	x->op->rtx.probes = NCK_RTX_PROBES;
	return nck_resend(x->op, x->m, idx, true);
}

static int nck_input_ack(struct nck_op *op, const struct nc_frame *f)
{
	struct nck_tx_ctx x = { .op = op };
	u32 cum, sacked;
	int n;

	nck_stat_inc(op->c->nn, NETCOLL_STAT_RX_ACKS);
	x.m = nck_msg_find(op->tx, op->tx_keys, op->ntx, f->src_rank, f->tag);
	if (!x.m) {
		nck_stat_inc(op->c->nn, NETCOLL_STAT_DROP_STATE);
		return 0;
	}
	nck_rtx_alive(&op->rtx);	/* an ack of nothing says so too */
	if (f->flags & NETCOLL_F_DUP) {
		nck_stat_inc(op->c->nn, NETCOLL_STAT_RX_DUP_ACKS);
		nck_rtx_dup(&op->rtx, &op->c->rtt);
	}
	cum = (f->flags & NETCOLL_F_ACK_ALL) ? x.m->fr.n : f->seq;
	op->progress = false;
	sacked = nck_frags_ack(&x.m->fr, cum, f->frag_off, x.m->sent,
			       nck_tx_newly, &x);
	while (op->tx_first < op->ntx && nck_frags_full(&op->tx[op->tx_first].fr))
		op->tx_first++;
	if (op->progress)
		nck_rtx_progress(&op->rtx, &op->c->rtt, 0, ktime_get_ns());
	n = nck_frags_fast_retransmit(op->c, &x.m->fr, sacked, &op->c->rtt,
				      nck_tx_resend, &x);
	return n < 0 ? n : 0;
}

/* The process's half of a data frame: copy it to the user. */
static int nck_input_data(struct nck_op *op, struct sk_buff *skb,
			  const struct nc_frame *f)
{
	struct iov_iter iter;
	struct nck_msg *m;
	void __user *dst;

	/* nck_rx_take() found the message and queued each fragment once. */
	m = nck_msg_find(op->rx, op->rx_keys, op->nrx, f->src_rank, f->tag);
	if (WARN_ON_ONCE(!m))
		return -EPROTO;
	if (f->len) {
		dst = m->d.ubuf + f->frag_off;
		if (!access_ok(dst, f->len))
			return -EFAULT;
		iov_iter_ubuf(&iter, ITER_DEST, dst, f->len);
		if (skb_copy_datagram_iter(skb, NETCOLL_HDR_LEN, &iter, f->len))
			return -EFAULT;
	}
	if (++m->copied == m->fr.n)
		op->rx_open--;
	return 0;
}

/* -- Receive bookkeeping and acks, under c->lock ----------------- */

/*
 * Queue a frame of the running operation for its process.  taken: it
 * comes from the early frames, where it was charged until a moment ago
 * and may have been acked (booked): it is charged again whatever the
 * limit, as it was.
 */
static bool nck_rxq_add(struct nck_op *op, struct sk_buff *skb, bool taken)
{
	if (taken) {
		nck_rx_charge_force(op->c, skb);
	} else if (!nck_rx_charge(op->c, skb)) {
		nck_stat_inc(op->c->nn, NETCOLL_STAT_DROP_MEMORY);
		kfree_skb(skb);
		return false;
	}
	__skb_queue_tail(&op->rxq, skb);
	return true;
}

/* The ack of message m, to its sender (flags: 0 or NETCOLL_F_DUP). */
static void nck_ack_queue(struct nck_op *op, struct nck_msg *m, u16 flags,
			  struct sk_buff_head *acks)
{
	u32 cum, sack;

	nck_frags_unhold_ack(&m->fr, &op->acks_held);
	nck_frags_summary(&m->fr, &cum, &sack);
	if (cum == m->fr.n)
		flags |= NETCOLL_F_ACK_ALL;
	nck_ctl_defer(op->c, NETCOLL_T_ACK, op->seq, m->d.peer, m->d.tag, cum,
		      sack, flags, acks);
}

/*
 * The sender's fragment size is fixed by its first frame: a smaller one
 * (a smaller MTU) needs a bigger receive set, allocated here in softirq.
 * Senders cutting much finer than we do are refused: their sets would be
 * the peer's to size.  What the bigger set adds to the one the operation
 * reserved (nck_op_bytes) is charged to the communicator's posted memory
 * too, and released with the operation: a peer cannot make us hold more
 * than mem_max.
 */
static bool nck_rx_frag_size(struct nck_op *op, struct nck_msg *m,
			     const struct nc_frame *f)
{
	u64 more;
	u32 n;

	if (m->fr.count || !f->msg_len || f->frag_size == m->frag_size)
		return f->frag_size == m->frag_size || !f->msg_len;
	if (f->frag_size * NCK_FRAG_RATIO_MAX < op->frag_size)
		return false;
	n = nc_wire_nfrags(m->d.len, f->frag_size);
	more = nck_frags_room_bytes(&m->fr, n);
	if (more && !nck_comm_mem_try(op->c, more)) {
		nck_stat_inc(op->c->nn, NETCOLL_STAT_DROP_MEMORY);
		return false;
	}
	if (nck_frags_grow(&m->fr, n, GFP_ATOMIC | __GFP_NOWARN)) {
		nck_comm_mem_release(op->c, more);
		nck_stat_inc(op->c->nn, NETCOLL_STAT_DROP_MEMORY);
		return false;
	}
	op->charge += more;
	m->frag_size = f->frag_size;
	return true;
}

/*
 * The ack of m now (flags: NETCOLL_F_DUP when it answers a fragment that
 * came twice), or once the process has copied (nck_rx_take).  True:
 * held, and the process must be woken to send it eventually.
 */
static bool nck_ack_or_hold(struct nck_op *op, struct nck_msg *m, u16 flags,
			    struct sk_buff_head *acks)
{
	if (!nck_rx_behind(op->c)) {
		nck_ack_queue(op, m, flags, acks);
		return false;
	}
	nck_frags_hold_ack(op->c, &m->fr, &op->acks_held);
	/* alive, but no window: an ack of nothing */
	nck_ctl_defer(op->c, NETCOLL_T_ACK, op->seq, m->d.peer, m->d.tag, 0, 0,
		      flags, acks);
	return true;
}

/* The process copied what was queued: send the acks that waited for it. */
static void nck_acks_release(struct nck_op *op)
{
	struct nck_comm *c = op->c;
	struct sk_buff_head acks;
	u32 i;

	__skb_queue_head_init(&acks);
	spin_lock_bh(&c->lock);
	for (i = 0; op->acks_held && i < op->nrx; i++)
		if (op->rx[i].fr.ack_held)
			nck_ack_queue(op, &op->rx[i], 0, &acks);
	spin_unlock_bh(&c->lock);
	nck_frames_flush(c, &acks);
}

/*
 * A frame of the running operation.  Data frames are accounted and acked
 * here, at arrival, and only their copy to the user waits for the
 * process: a receiver slow to be scheduled neither delays the sender's
 * next phase nor makes its timer fire.  An acked fragment is on op->rxq,
 * which only the operation's end empties.  True: the process has work.
 * With half the receive memory in use, acks (those of probes and
 * duplicates too) wait for the process's copy (nck_acks_release), so the
 * senders' windows close rather than frames being dropped; each is
 * answered with an ack of nothing: we are alive.
 */
static bool nck_rx_take(struct nck_op *op, struct sk_buff *skb,
			const struct nc_frame *f, struct sk_buff_head *acks,
			bool taken)
{
	struct nck_net *nn = op->c->nn;
	struct nck_msg *m;
	bool held;

	if (f->type == NETCOLL_T_ACK)
		return nck_rxq_add(op, skb, taken);
	m = nck_msg_find(op->rx, op->rx_keys, op->nrx, f->src_rank, f->tag);
	if (!m) {
		nck_stat_inc(nn, NETCOLL_STAT_DROP_STATE);
		goto drop;
	}
	if (f->msg_len != m->d.len || !nck_rx_frag_size(op, m, f)) {
		nck_stat_inc(nn, NETCOLL_STAT_DROP_LENGTH);
		goto drop;
	}
	if (nck_frags_test(&m->fr, f->seq)) {
		nck_stat_inc(nn, NETCOLL_STAT_RX_DUPLICATES);
		held = nck_ack_or_hold(op, m, NETCOLL_F_DUP, acks);
		consume_skb(skb);
		return held;
	}
	/* charged first: a fragment we cannot keep must not be acked */
	if (!nck_rxq_add(op, skb, taken))
		return false;
	if (nck_frags_receive(&m->fr, f->seq, f->frag_size,
			      f->flags & NETCOLL_F_ACK_NOW) ==
	    NCK_RX_NEW_ACK)
		nck_ack_or_hold(op, m, 0, acks);
	return true;
drop:
	kfree_skb(skb);
	return false;
}

/* -- Output ------------------------------------------------------ */

/*
 * A token's wait is for its send and all sends before it: the pruned
 * schedule counts on a rank's sends completing in order (a token after
 * send k also stands for sends < k), and with retransmissions an earlier
 * send may be acknowledged after a later one.
 */
static bool nck_tx_may_start(const struct nck_op *op, const struct nck_msg *m)
{
	u32 i;

	/* received and copied; the size is known once a fragment was copied */
	for (i = m->d.wait_rx_lo; i < m->d.wait_rx_hi; i++)
		if (!op->rx[i].copied || op->rx[i].copied != op->rx[i].fr.n)
			return false;
	return m->d.wait_tx < 0 || op->tx_first > (u32)m->d.wait_tx;
}

/* Fragment m->sent of m went out: 0, or an error. */
static int nck_frag_went(struct nck_op *op, struct nck_msg *m)
{
	int err = 0;

	if (m->sent + 1 == m->fr.n && m->fr.n > 1 &&
	    nck_op_repeats(op))		/* the last: see nck_op_repeats */
		err = nck_repeat(op, m, m->sent, 0);
	if (err)
		return err;
	if (!op->inflight)
		nck_rtx_arm(&op->rtx, ktime_get_ns());
	/*
	 * Only data is timed: a token is a small frame, and on a slow link
	 * its round trip lacks most of a data fragment's (at 12.5 Mbit/s a
	 * 9000-byte fragment takes 6 ms to serialize, a token 0.05 ms).
	 */
	if (!op->probe && !(m->d.tag & NCK_TAG_SYNC)) {
		op->probe = m;
		op->probe_idx = m->sent;
		op->probe_sent = ktime_get_ns();
	}
	m->sent++;
	op->inflight++;
	return 0;
}

/*
 * Send the next fragments of m, up to n of them, in as few skbs as the
 * bearer takes: 1 if some went, 0 if the device pushed back, or an error.
 * Stamped once the device took them (nck_send_frag()).
 */
static int nck_push_frags(struct nck_op *op, struct nck_msg *m, u32 n)
{
	struct sk_buff_head q;
	struct sk_buff *skb;
	u32 i, sent = 0;
	int err = 0;

	n = min3(n, m->fr.n - m->sent, op->per_skb);
	__skb_queue_head_init(&q);
	for (i = 0; i < n && !err; i++) {
		skb = nck_frag_build(op, m, m->sent + i, 0);
		err = PTR_ERR_OR_ZERO(skb);
		if (!err)
			nck_frame_defer(&q, skb, m->d.peer);
	}
	if (!err)
		err = nck_frames_send(op->c, &q, &sent);
	__skb_queue_purge(&q);
	if (err == -ENOBUFS)
		op->tx_blocked = true;
	else if (err)
		return err;
	for (i = 0; i < sent; i++) {
		nck_frags_sent(&m->fr, m->sent);
		err = nck_frag_went(op, m);
		if (err)
			return err;
	}
	return sent ? 1 : 0;
}

/*
 * Send what may go: unordered messages (synchronisation tokens: tiny, and
 * others wait for them) as soon as their conditions hold, then ordered
 * ones in list order while the window allows.
 */
static int nck_op_push(struct nck_op *op)
{
	u32 window = op->window, i;
	int ret;

	op->tx_blocked = false;
	for (i = op->nord; op->unord_left && i < op->ntx && !op->tx_blocked; i++) {
		struct nck_msg *m = &op->tx[i];

		if (m->sent == m->fr.n || (!m->sent && !nck_tx_may_start(op, m)))
			continue;
		while (m->sent < m->fr.n) {
			ret = nck_push_frags(op, m, 1);
			if (ret <= 0)
				return ret;
		}
		op->unord_left--;
	}
	while (op->tx_cur < op->nord && op->inflight < window && !op->tx_blocked) {
		struct nck_msg *m = &op->tx[op->tx_cur];

		if (m->sent == m->fr.n) {
			op->tx_cur++;
			continue;
		}
		if (!m->sent && !nck_tx_may_start(op, m))
			break;
		ret = nck_push_frags(op, m, window - op->inflight);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/*
 * Retransmission timeout.  Once an ack has shown a hole, frames do get
 * lost on this path and a timeout means more of them were: resend every
 * fragment still unacknowledged.  Before that, a timeout is most likely a
 * late ack (a receiver slow to run), and a tail-loss probe (rel.h) comes
 * before the timeout is due: per message, resend only the oldest and the
 * newest unacknowledged fragment, which ask for an ack at once; its
 * selective bits let the fast retransmit fill any holes between.
 * The hole is the operation's, not the message's: a message whose tail
 * a burst dropped shows no hole before its timeout, and probing it would
 * cost contended orders a round trip per burst.
 */
static int nck_tx_probe_resend(void *arg, u32 idx)
{
	struct nck_tx_ctx *x = arg;

	return nck_resend(x->op, x->m, idx, false);
}

static int nck_msg_resend_all(struct nck_op *op, struct nck_msg *m)
{
	u32 f;
	int err;

	for (f = m->fr.cum; f < m->sent; f++) {
		if (test_bit(f, m->fr.bits))
			continue;
		err = nck_resend(op, m, f, false);
		if (err)
			return err;
	}
	return 0;
}

static int nck_op_retransmit(struct nck_op *op, u32 *stalled)
{
	int err, kind = nck_rtx_expired(&op->rtx);
	u32 i;

	if (kind < 0) {
		*stalled = op->tx[op->tx_first].d.peer;
		return kind;
	}
	if (kind == NCK_RTX_RTO)
		nck_stat_inc(op->c->nn, NETCOLL_STAT_RTO_EXPIRED);
	for (i = op->tx_first; i < op->ntx; i++) {
		struct nck_tx_ctx x = { .op = op, .m = &op->tx[i] };

		err = op->loss_seen && kind == NCK_RTX_RTO ?
		      nck_msg_resend_all(op, x.m) :
		      nck_frags_probe(&x.m->fr, x.m->sent, nck_tx_probe_resend, &x);
		if (err)
			return err;
	}
	return 0;
}

/* -- The operation loop ------------------------------------------ */

static bool nck_op_wake(struct nck_op *op)
{
	return !skb_queue_empty_lockless(&op->rxq) || READ_ONCE(op->acks_held) ||
	       READ_ONCE(op->c->dead);
}

/* Publish op as the running operation and take its early frames. */
static int nck_op_start(struct nck_comm *c, struct nck_op *op)
{
	struct sk_buff_head acks, early;
	struct sk_buff *skb;
	struct nc_frame f;
	int err = 0;

	__skb_queue_head_init(&acks);
	__skb_queue_head_init(&early);
	spin_lock_bh(&c->lock);
	err = nck_comm_usable(c);
	if (err)
		goto out;
	/* One at a time: the only bound endpoint's mutex serialises them. */
	if (WARN_ON_ONCE(c->op)) {
		err = -EBUSY;
		goto out;
	}
	op->seq = c->next_seq;
	c->op = op;
	nck_early_take(c, &c->early, op->seq, &early);
	nck_early_books_drop(c, &c->early_books, op->seq);
	while ((skb = __skb_dequeue(&early))) {
		nck_skb_hdr(skb, &f);
		nck_rx_take(op, skb, &f, &acks, true);
	}
out:
	spin_unlock_bh(&c->lock);
	nck_frames_flush(c, &acks);
	return err;
}

/*
 * The running operation ends.  One that failed may have finished on some
 * ranks and not on others, which then disagree on what the next sequence
 * number means: the communicator is broken (nck_comm_break).
 */
static void nck_op_finish(struct nck_comm *c, struct nck_op *op, int err)
{
	struct sk_buff_head q;

	__skb_queue_head_init(&q);
	spin_lock_bh(&c->lock);
	c->op = NULL;
	c->next_seq++;
	if (err) {
		c->a2a_failed = true;
		nck_comm_break(c);
	}
	skb_queue_splice_init(&op->rxq, &q);
	spin_unlock_bh(&c->lock);
	nck_rx_purge(c, &q);
}

/*
 * Sleep until a frame or held ack wakes us, the retransmission timer is
 * due or the time budget is spent; on an hrtimer (rel.h, struct nck_rtx).
 */
static int nck_op_sleep(struct nck_op *op)
{
	long left = op->deadline - jiffies;
	u64 ns = jiffies_to_nsecs(max(left, 1L)), now;
	long ret;

	if (op->tx_blocked) {
		ns = NSEC_PER_SEC / HZ;
	} else if (op->inflight) {
		now = ktime_get_ns();
		ns = min(ns, op->rtx.at > now ? op->rtx.at - now : 0);
	}
	if (!ns)
		return 0;
	ret = wait_event_interruptible_hrtimeout(op->c->wq, nck_op_wake(op),
						 ns_to_ktime(ns));
	return ret == -ERESTARTSYS ? -EINTR : 0;
}

static int nck_op_loop(struct nck_op *op, u32 *stalled)
{
	struct nck_comm *c = op->c;
	struct sk_buff_head q;
	struct sk_buff *skb;
	int err;

	__skb_queue_head_init(&q);
	for (;;) {
		spin_lock_bh(&c->lock);
		err = c->dead;
		skb_queue_splice_init(&op->rxq, &q);
		spin_unlock_bh(&c->lock);
		if (err)
			break;

		while (!err && (skb = __skb_dequeue(&q))) {
			struct nc_frame f;

			nck_rx_uncharge(c, skb);
			nck_skb_hdr(skb, &f);
			if (f.type == NETCOLL_T_ACK)
				err = nck_input_ack(op, &f);
			else
				err = nck_input_data(op, skb, &f);
			consume_skb(skb);
		}
		if (err)
			break;
		if (READ_ONCE(op->acks_held))
			nck_acks_release(op);
		if (!op->tx_open && !op->rx_open)
			break;

		if (time_after_eq(jiffies, op->deadline)) {
			err = -ETIMEDOUT;
			if (op->tx_first < op->ntx)
				*stalled = op->tx[op->tx_first].d.peer;
			break;
		}
		if (op->inflight && ktime_get_ns() >= op->rtx.at) {
			err = nck_op_retransmit(op, stalled);
			if (err)
				break;
		}
		err = nck_op_push(op);
		if (err)
			break;

		err = nck_op_sleep(op);
		if (err)
			break;
	}
	nck_rx_purge(c, &q);
	return err;
}

int nck_op_run(struct nck_comm *c, const struct nck_msg_desc *tx, u32 ntx,
	       const struct nck_msg_desc *rx, u32 nrx, u32 timeout_ms)
{
	struct nck_net *nn = c->nn;
	u32 stalled = U32_MAX;
	unsigned int room = nck_comm_payload_max(c);
	unsigned long deadline;
	struct nck_op *op;
	u32 frag_size;
	int err;

	if (!nck_comm_mtu(c))
		return c->dead ?: -ENETDOWN;
	if (!room)
		return -EMSGSIZE;
	frag_size = min_t(u32, room, U16_MAX);
	deadline = jiffies + msecs_to_jiffies(timeout_ms ?: c->timeout_ms);
	err = nck_join_wait(c, deadline);
	if (err)
		return err;

	op = nck_op_alloc(c, tx, ntx, rx, nrx, frag_size, &err);
	if (!op)
		return err;
	op->deadline = deadline;
	nck_rtx_progress(&op->rtx, &op->c->rtt, 0, ktime_get_ns());

	err = nck_op_start(c, op);
	if (err) {
		nck_op_free(op);
		return err;	/* never started: nothing to report */
	}
	err = nck_op_loop(op, &stalled);
	nck_op_finish(c, op, err);
	nck_op_free(op);

	if (!err) {
		nck_stat_inc(nn, NETCOLL_STAT_OPS_DONE);
		return 0;
	}
	nck_stat_inc(nn, NETCOLL_STAT_OPS_FAILED);
	if (err == -ETIMEDOUT)
		nck_stat_inc(nn, NETCOLL_STAT_OPS_TIMEDOUT);
	if (err == -ETIMEDOUT || err == -ENETDOWN || err == -ESHUTDOWN)
		nck_event_op_failed(c, c->next_seq - 1, -err, stalled);
	return err;
}

/* -- Receive side, softirq --------------------------------------- */

/*
 * A frame of an alltoall not started here: held, and its data booked
 * (rel.h) so that its sender hears which fragments we keep -- as once
 * started, or while our receive memory is short only that we are alive
 * -- rather than resending them on its timeouts until our process posts.
 */
static void nck_rx_early(struct nck_comm *c, struct sk_buff *skb,
			 const struct nc_frame *f, struct sk_buff_head *acks)
{
	u32 cum, sack;
	bool copy;

	lockdep_assert_held(&c->lock);
	if (f->type != NETCOLL_T_DATA) {
		nck_early_hold(c, &c->early, skb);
		return;
	}
	if (nck_early_hold_booked(c, &c->early, &c->early_books, skb, f,
				  &cum, &sack, &copy))
		nck_ctl_defer(c, NETCOLL_T_ACK, f->op_seq, f->src_rank, f->tag,
			      cum, sack, copy ? NETCOLL_F_DUP : 0, acks);
}

/*
 * A data frame of an alltoall that finished here: its sender missed our
 * last ack, and gets a whole-message ack (returns 0).  Only for the last
 * NCK_EARLY_OPS operations: a sender still in operation n has not sent
 * the data of n + 1 we need to finish n + 1, so it lags one at most, and
 * an older frame is a copy or a forgery (drop_state; each got an ack).
 * Each ack acks a whole message, at a bounded rate (nck_peer_late_ack()).
 */
static int nck_rx_late(struct nck_comm *c, const struct nc_frame *f)
{
	lockdep_assert_held(&c->lock);
	if (c->next_seq - f->op_seq > NCK_EARLY_OPS)
		return NETCOLL_STAT_DROP_STATE;
	return nck_peer_late_ack(c, f->src_rank) ? 0 : NETCOLL_STAT_DROP_RATELIMIT;
}

void nck_transport_rcv(struct nck_comm *c, struct sk_buff *skb,
		       const struct nc_frame *f)
{
	struct nck_net *nn = c->nn;
	struct sk_buff_head acks;
	struct sk_buff *ack;
	struct nck_op *op;
	int drop = 0;
	bool wake = false;

	__skb_queue_head_init(&acks);

	spin_lock(&c->lock);
	op = c->op;
	if (c->dead) {
		drop = NETCOLL_STAT_DROP_STATE;
	} else if (op && f->op_seq == op->seq) {
		wake = nck_rx_take(op, skb, f, &acks, false);
	} else if (c->a2a_failed && f->op_seq == c->next_seq - 1) {
		/*
		 * It failed here, so what it received never reached the
		 * process: its peers must not hear that it arrived (and
		 * succeed), but fail as it did, by their timeouts.
		 */
		drop = NETCOLL_STAT_DROP_STATE;
	} else if (nck_seq_before(f->op_seq, c->next_seq) &&
		   f->type == NETCOLL_T_ACK) {
		/* a peer's ack that came after our operation ended */
		spin_unlock(&c->lock);
		nck_stat_inc(nn, NETCOLL_STAT_RX_ACKS);
		consume_skb(skb);
		return;
	} else if (nck_seq_before(f->op_seq, c->next_seq)) {
		drop = nck_rx_late(c, f);
		if (!drop) {
			spin_unlock(&c->lock);
			/* A finished operation received everything: say so again. */
			nck_stat_inc(nn, NETCOLL_STAT_RX_DUPLICATES);
			ack = nck_ctl_frame(c, NETCOLL_T_ACK, f->op_seq, f->src_rank,
					    f->tag, 0, 0,
					    NETCOLL_F_ACK_ALL | NETCOLL_F_DUP, 0);
			if (ack)
				nck_frame_xmit(c, ack, f->src_rank);
			consume_skb(skb);
			return;
		}
	} else if (f->op_seq - c->next_seq < NCK_EARLY_OPS) {
		nck_rx_early(c, skb, f, &acks);
	} else {
		drop = NETCOLL_STAT_DROP_STATE;
	}
	spin_unlock(&c->lock);

	nck_frames_flush(c, &acks);
	if (drop) {
		nck_stat_inc(nn, drop);
		kfree_skb(skb);
	} else if (wake) {
		wake_up(&c->wq);
	}
}

// SPDX-License-Identifier: GPL-2.0
/*
 * The aggregation engine: reduce, allreduce and barrier on trees, run by
 * the receive path.
 *
 * A rank's process only posts its contribution (nc_agg_start) and later
 * collects the result (nc_agg_wait).  Everything in between happens in
 * softirq, in the receive handler and a timer: a node holds its children's
 * fragments until it has all of them, combines its own data with theirs
 * in ascending child rank order, sends the partial result to its parent,
 * and at the root the result goes out again, down the tree or to the
 * communicator's multicast group.  A process that is descheduled after
 * posting therefore does not stall the tree (Yu et al., SC'03, 3.1), and
 * the result is bit-identical on every rank and every run whatever the
 * arrival order (as SHARP's fixed order).
 *
 * Vectors are cut into pieces (vector split: piece j runs on tree j) and
 * pieces into fragments of the device MTU, so a large vector is pipelined
 * through the tree fragment by fragment.
 *
 * Reliability, which Ethernet does not give:
 *  - up: a child keeps its partial result until the parent has it.  The
 *    parent acks every NC_AGG_ACK_EVERY fragments (the child's send
 *    window moves on) and at once when asked; the result arriving later
 *    acks everything implicitly, so a one-fragment allreduce costs one
 *    frame per tree edge and no acks.
 *  - down: a rank that still lacks its result when its retransmission
 *    timer fires asks the sender of the result again (AGG_NACK, saying
 *    what it has) and gets the missing fragments by unicast.  With
 *    multicast distribution that is the repair path: the fast path stays
 *    one frame per result fragment, and a lost multicast costs a timeout,
 *    never a result.  SHARP sends every result twice (UD multicast and
 *    RC); on a software switch that doubles the per-host frame cost for a
 *    loss that is rare, so we repair on demand instead.
 *  - liveness: a rank asked about an operation it has not finished
 *    answers with an ack, so slow but alive peers reset the retry count;
 *    only the operation's time budget then ends the wait (-ETIMEDOUT).
 *
 * Outstanding operations: a rank starts operation s only when its
 * operation s - OSO is finished (callers sleep, they do not fail).  Hence
 * when any rank starts s, every rank finished s - 2 * OSO (it started
 * s - OSO), which makes a ring of 2 * OSO slots enough: a finished
 * operation stays in its slot, answering repair requests, until its
 * sequence comes round again; then, if its process has not collected it,
 * it waits on a list.
 *
 * Lifetime of an operation (struct nc_agg_op): two references.
 *  - its slot (the engine's): taken when it starts, dropped when it leaves
 *    the slot.  A finished operation stays to answer repair requests of
 *    slower peers.  It leaves when its sequence comes round again, when
 *    memory is needed (nc_agg_reclaim), when its endpoint closed and its
 *    deadline passed (the peers' time budget is spent too: nobody asks
 *    any more), when it is cancelled, or when the communicator is freed;
 *  - its poster's (the endpoint's table, endpoint.c): dropped by
 *    nc_agg_release() once the result was collected, or when the endpoint
 *    closes (which cancels it if it has not finished).
 * The last nc_agg_op_put() frees it, in whatever context.  Frames it holds
 * are charged to the communicator's receive memory, its buffers to the
 * communicator's posted memory; both are given back by that free.
 *
 * Locking: everything here is under comm->lock.  Frames are built under
 * it and sent after it is released.
 */
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/uaccess.h>

#include "bearer.h"
#include "shared/nc_reduce.h"

#define NC_AGG_ACK_EVERY	8
#define NC_AGG_BURST		64	/* fragments resent per timeout or nack */
#define NC_AGG_DEFER_MAX	1024	/* float frames waiting for the worker */
/* Ranks a piece remembers answering repair requests of (+1: the rest). */
#define NC_AGG_ASKERS		16
#define NC_AGG_ASK_SHIFT_MAX	6

/* When a rank that asked for a piece's result may be answered again. */
struct nc_agg_asker {
	u32 rank;
	u32 cum;		/* what it said it had, last time */
	unsigned long at;	/* jiffies; 0: not answered yet */
	u8 shift;		/* backoff, reset when it makes progress */
};

struct nc_agg_piece {
	u32 off, len;		/* bytes of the vector */
	u32 nfrags;		/* an empty piece is one empty fragment */
	bool want_data;		/* this rank receives the result */
	u32 root, parent, src;	/* src: sends us the result (or marker) */
	u32 nchildren;
	u32 *children;		/* ascending: the reduction order */
	u32 *since_ack;		/* per child: fragments since our last ack */
	u32 *child_cum;		/* per child: all its fragments below are in */
	struct sk_buff **held;	/* [child * nfrags + k] until reduced */
	unsigned long *ready;	/* combined here (own and children's) */
	unsigned long *up_acked;	/* the parent has it */
	unsigned long *res;	/* result fragment here */
	u32 nready, nup_acked, nres, up_next;
	u32 up_cum;		/* all fragments below were acked */
	u32 res_cum;		/* all result fragments below are here */
	bool done_mark;		/* the root says the piece is done */
	bool complete;
	u8 naskers;
	struct nc_agg_asker asker[NC_AGG_ASKERS + 1];	/* last: any other */
};

struct nc_agg_op {
	refcount_t ref;		/* slot and poster, see the top */
	u32 seq;
	bool started, complete;
	bool released;		/* the poster let go (collected or closed) */
	unsigned long linger_until;	/* its endpoint closed: leave then */
	u64 charge;		/* bytes of c->mem_used */
	u32 repair_budget;	/* fragments this op may still resend on nacks */
	int err;
	u16 opcode;
	u32 op, dtype, flags, root, fs;
	u64 bytes;
	u8 *buf;		/* contribution, partial result, result */
	void __user *ubuf;	/* where the result goes */
	u32 npieces, pieces_done;
	struct nc_agg_piece piece[NETCOLL_TREES_MAX];
	struct sk_buff_head early;	/* frames that came before the start */
	unsigned long deadline, rto_at, rto;
	u32 retries;
	u64 t0_ns;
};

static u32 nc_agg_window(const struct nc_comm *c)
{
	return 2 * c->oso;
}

static struct nc_agg_op *nc_agg_find(struct nc_comm *c, u32 seq)
{
	struct nc_agg_op *op = c->agg_slot[seq % nc_agg_window(c)];

	return op && op->seq == seq ? op : NULL;
}

static bool nc_agg_is_root(const struct nc_comm *c,
			   const struct nc_agg_piece *p)
{
	return p->parent == c->rank;
}

static u32 nc_agg_frag_len(const struct nc_agg_op *op,
			   const struct nc_agg_piece *p, u32 k)
{
	u32 off = k * op->fs;

	return p->len ? min(op->fs, p->len - off) : 0;
}

/* ---------------------------------------------------------------- */
/* Memory held for frames                                            */
/* ---------------------------------------------------------------- */

/* Frames a node holds count against the communicator's receive memory. */
static bool nc_agg_hold(struct nc_comm *c, struct sk_buff *skb)
{
	if (!nc_rx_charge(c, skb)) {
		nc_stat_inc(c->nn, NETCOLL_STAT_DROP_MEMORY);
		return false;
	}
	return true;
}

static void nc_agg_op_free(struct nc_comm *c, struct nc_agg_op *op)
{
	u32 j, i;

	for (j = 0; j < op->npieces; j++) {
		struct nc_agg_piece *p = &op->piece[j];

		if (p->held)
			for (i = 0; i < p->nchildren * p->nfrags; i++)
				if (p->held[i])
					nc_rx_free(c, p->held[i]);
		kvfree(p->held);
		kvfree(p->ready);
		kfree(p->children);
	}
	nc_rx_purge(c, &op->early);
	kvfree(op->buf);
	nc_comm_mem_release(c, op->charge);
	kfree(op);
}

static void nc_agg_op_put(struct nc_comm *c, struct nc_agg_op *op)
{
	if (refcount_dec_and_test(&op->ref))
		nc_agg_op_free(c, op);
}

/* op leaves its slot: the engine's reference goes. */
static void nc_agg_unslot(struct nc_comm *c, struct nc_agg_op *op)
{
	struct nc_agg_op **slot = &c->agg_slot[op->seq % nc_agg_window(c)];

	lockdep_assert_held(&c->lock);
	if (*slot == op) {
		*slot = NULL;
		nc_agg_op_put(c, op);
	}
}

/* ---------------------------------------------------------------- */
/* Frames out                                                        */
/* ---------------------------------------------------------------- */

static void nc_agg_hdr(struct nc_comm *c, struct nc_frame *f, u32 seq,
		       u16 type, u32 dst, u16 piece, u16 opcode)
{
	nc_frame_hdr(c, f, type, seq, dst, piece);
	f->opcode = opcode;
	if (dst == NETCOLL_RANK_GROUP)
		f->flags |= NETCOLL_F_MCAST;
}

static void nc_agg_queue(struct sk_buff_head *txq, struct sk_buff *skb,
			 const struct nc_frame *f, u32 dst)
{
	nc_wire_encode((struct netcoll_hdr *)skb->data, f);
	nc_frame_defer(txq, skb, dst);
}

/*
 * Fragment k of piece p (type AGG_UP or AGG_DOWN) from op->buf, or with
 * marker set an empty AGG_DOWN: the piece is done.
 */
static void nc_agg_send_frag(struct nc_comm *c, struct nc_agg_op *op,
			     struct nc_agg_piece *p, u32 k, u16 type,
			     u16 flags, u32 dst, bool marker,
			     struct sk_buff_head *txq)
{
	u32 len = marker ? 0 : nc_agg_frag_len(op, p, k);
	struct sk_buff *skb;
	struct nc_frame f;

	skb = nc_frame_alloc(len, GFP_ATOMIC);
	if (!skb) {
		nc_stat_inc(c->nn, NETCOLL_STAT_DROP_MEMORY);
		return;		/* the timer sends it again */
	}
	nc_agg_hdr(c, &f, op->seq, type, dst, p - op->piece, op->opcode);
	f.flags |= flags;
	if (!marker && p->len) {
		f.len = len;
		f.seq = k;
		f.frag_off = k * op->fs;
		f.msg_len = p->len;
		f.frag_size = op->fs;
	}
	skb_put(skb, NETCOLL_HDR_LEN);
	skb_put_data(skb, op->buf + p->off + k * op->fs, len);
	nc_agg_queue(txq, skb, &f, dst);
}

/* AGG_ACK or AGG_NACK: cum and the bitmap of the 32 fragments after it. */
static void nc_agg_send_ctl(struct nc_comm *c, u32 seq, u16 type, u32 dst,
			    u16 piece, u32 cum, u32 bits,
			    struct sk_buff_head *txq)
{
	struct sk_buff *skb;
	struct nc_frame f;

	skb = nc_frame_alloc(0, GFP_ATOMIC);
	if (!skb) {
		nc_stat_inc(c->nn, NETCOLL_STAT_DROP_MEMORY);
		return;
	}
	nc_agg_hdr(c, &f, seq, type, dst, piece, 0);
	f.seq = cum;
	f.frag_off = bits;
	skb_put(skb, NETCOLL_HDR_LEN);
	nc_agg_queue(txq, skb, &f, dst);
	if (type == NETCOLL_T_AGG_ACK)
		nc_stat_inc(c->nn, NETCOLL_STAT_TX_ACKS);
}

/* Send what was queued; called without comm->lock. */
/*
 * cum/bitmap form (see struct netcoll_hdr, ACK) of the set have(p, ci, k).
 * The set only grows, so *cump remembers where the last scan stopped and
 * a vector's acks cost linear time, not quadratic.
 */
static void nc_agg_summary(const struct nc_agg_piece *p, u32 ci,
			   bool (*have)(const struct nc_agg_piece *, u32, u32),
			   u32 *cump, u32 *bitsp)
{
	u32 cum, bits = 0, k;

	for (cum = *cump; cum < p->nfrags && have(p, ci, cum); cum++)
		;
	for (k = cum + 1; k < p->nfrags && k <= cum + 32; k++)
		if (have(p, ci, k))
			bits |= 1U << (k - cum - 1);
	*cump = cum;
	*bitsp = bits;
}

static bool nc_agg_have_up(const struct nc_agg_piece *p, u32 ci, u32 k)
{
	return test_bit(k, p->ready) || p->held[ci * p->nfrags + k];
}

static bool nc_agg_have_res(const struct nc_agg_piece *p, u32 ci, u32 k)
{
	return test_bit(k, p->res);
}

/* Tell child ci which of its fragments of piece p we have. */
static void nc_agg_ack_child(struct nc_comm *c, struct nc_agg_op *op,
			     struct nc_agg_piece *p, u32 ci,
			     struct sk_buff_head *txq)
{
	u32 bits;

	nc_agg_summary(p, ci, nc_agg_have_up, &p->child_cum[ci], &bits);
	p->since_ack[ci] = 0;
	nc_agg_send_ctl(c, op->seq, NETCOLL_T_AGG_ACK, p->children[ci],
			p - op->piece, p->child_cum[ci], bits, txq);
}

/* ---------------------------------------------------------------- */
/* Progress                                                          */
/* ---------------------------------------------------------------- */

/* Large operations take longer: their timeouts learn apart (by fragments). */
static u32 nc_agg_class(const struct nc_agg_op *op)
{
	u32 j, frags = 0;

	for (j = 0; j < op->npieces; j++)
		frags += op->piece[j].nfrags;
	return min_t(u32, fls(frags), NC_AGG_CLASSES - 1);
}

static void nc_agg_arm(struct nc_comm *c, unsigned long when);

/*
 * A finished operation whose endpoint closed answers repair requests of
 * slower peers until its deadline, as long as theirs, and then leaves:
 * a closed endpoint's memory comes back without waiting for the slot to
 * be reused.
 */
static void nc_agg_linger(struct nc_comm *c, struct nc_agg_op *op)
{
	op->linger_until = op->deadline ?: 1;
	nc_agg_arm(c, op->linger_until);
}

static void nc_agg_complete(struct nc_comm *c, struct nc_agg_op *op, int err)
{
	if (op->complete)
		return;
	op->complete = true;
	op->err = err;
	/*
	 * A started operation that failed may have run on some ranks and not
	 * on others: the ranks' sequences of operations can disagree from
	 * here on, so none may run again (see nc_comm_break).
	 */
	if (err)
		nc_comm_break(c);
	if (!err) {
		u32 us = min_t(u64, div_u64(ktime_get_ns() - op->t0_ns,
					     NSEC_PER_USEC), U32_MAX / 8);
		u32 *srtt = &c->agg_srtt_us[nc_agg_class(op)];

		*srtt = *srtt ? (7 * *srtt + us) / 8 : us;
		nc_stat_inc(c->nn, NETCOLL_STAT_AGG_OPS);
	}
	wake_up_all(&c->agg_wq);
}

static void nc_agg_piece_check(struct nc_comm *c, struct nc_agg_op *op,
			       struct nc_agg_piece *p)
{
	bool done;

	if (p->complete)
		return;
	if (p->want_data)
		done = p->nres == p->nfrags;
	else
		done = p->done_mark ||
		       (nc_agg_is_root(c, p) && p->nready == p->nfrags);
	if (!done)
		return;
	p->complete = true;
	if (++op->pieces_done == op->npieces)
		nc_agg_complete(c, op, 0);
}

static bool nc_agg_tree_dist(const struct nc_agg_op *op)
{
	return !(op->flags & NETCOLL_RED_MCAST);
}

static void nc_agg_to_children(struct nc_comm *c, struct nc_agg_op *op,
			       struct nc_agg_piece *p, u32 k, bool marker,
			       struct sk_buff_head *txq)
{
	u32 i;

	for (i = 0; i < p->nchildren; i++)
		nc_agg_send_frag(c, op, p, k, NETCOLL_T_AGG_DOWN, 0,
				 p->children[i], marker, txq);
}

static void nc_agg_set_res(struct nc_agg_piece *p, u32 k)
{
	if (!__test_and_set_bit(k, p->res))
		p->nres++;
}

/* At the root: fragment k of piece p is final.  Hand it out. */
static void nc_agg_root_result(struct nc_comm *c, struct nc_agg_op *op,
			       struct nc_agg_piece *p, u32 k,
			       struct sk_buff_head *txq)
{
	bool all = op->flags & NETCOLL_RED_ALL;
	bool piece_done = p->nready == p->nfrags;

	if (p->want_data)
		nc_agg_set_res(p, k);
	if (all && p->len) {
		if (nc_agg_tree_dist(op)) {
			nc_agg_to_children(c, op, p, k, false, txq);
		} else {
			nc_agg_send_frag(c, op, p, k, NETCOLL_T_AGG_DOWN, 0,
					 NETCOLL_RANK_GROUP, false, txq);
			nc_stat_inc(c->nn, NETCOLL_STAT_AGG_MCAST_TX);
		}
	} else {
		if (!all && op->root != c->rank && p->len)
			nc_agg_send_frag(c, op, p, k, NETCOLL_T_AGG_DOWN, 0,
					 op->root, false, txq);
		if (piece_done) {
			if (nc_agg_tree_dist(op)) {
				nc_agg_to_children(c, op, p, 0, true, txq);
			} else {
				nc_agg_send_frag(c, op, p, 0, NETCOLL_T_AGG_DOWN,
						 0, NETCOLL_RANK_GROUP, true, txq);
				nc_stat_inc(c->nn, NETCOLL_STAT_AGG_MCAST_TX);
			}
		}
	}
	nc_agg_piece_check(c, op, p);
}

/* Send ready fragments to the parent, in order, within the window. */
static void nc_agg_push_up(struct nc_comm *c, struct nc_agg_op *op,
			   struct nc_agg_piece *p, struct sk_buff_head *txq)
{
	u32 window = max(nc_tx_window, 1U), inflight = 0, j;

	/* one window per operation, whatever the split */
	for (j = 0; j < op->npieces; j++)
		inflight += op->piece[j].up_next - op->piece[j].nup_acked;
	while (p->up_next < p->nfrags && test_bit(p->up_next, p->ready) &&
	       inflight++ < window) {
		nc_agg_send_frag(c, op, p, p->up_next, NETCOLL_T_AGG_UP, 0,
				 p->parent, false, txq);
		p->up_next++;
	}
}

/* Acks (explicit or implied by the result) reopen the shared window. */
static void nc_agg_push_all(struct nc_comm *c, struct nc_agg_op *op,
			    struct sk_buff_head *txq)
{
	u32 j;

	for (j = 0; j < op->npieces; j++)
		if (!nc_agg_is_root(c, &op->piece[j]))
			nc_agg_push_up(c, op, &op->piece[j], txq);
}

/* Combine fragment k of piece p once our own data and every child's are in. */
static void nc_agg_try(struct nc_comm *c, struct nc_agg_op *op,
		       struct nc_agg_piece *p, u32 k, struct sk_buff_head *txq)
{
	u8 *acc = op->buf + p->off + k * op->fs;
	u32 len = nc_agg_frag_len(op, p, k);
	u32 i;

	if (!op->started || test_bit(k, p->ready))
		return;
	for (i = 0; i < p->nchildren; i++)
		if (!p->held[i * p->nfrags + k])
			return;
	for (i = 0; i < p->nchildren; i++) {
		struct sk_buff **slot = &p->held[i * p->nfrags + k];

		if (len)
			nc_reduce(op->op, op->dtype, acc,
				  (*slot)->data + NETCOLL_HDR_LEN, len);
		nc_rx_free(c, *slot);
		*slot = NULL;
	}
	if (p->nchildren)
		nc_stat_inc(c->nn, NETCOLL_STAT_AGG_REDUCED);
	__set_bit(k, p->ready);
	p->nready++;
	if (nc_agg_is_root(c, p))
		nc_agg_root_result(c, op, p, k, txq);
	else
		nc_agg_push_up(c, op, p, txq);
}

static void nc_agg_mark_up_acked(struct nc_agg_piece *p, u32 k)
{
	if (k < p->up_next && !__test_and_set_bit(k, p->up_acked))
		p->nup_acked++;
}

/* ---------------------------------------------------------------- */
/* Frames in                                                         */
/* ---------------------------------------------------------------- */

/* Position of rank among the children of piece p, or -1. */
static int nc_agg_child_index(const struct nc_agg_piece *p, u32 rank)
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

static struct nc_agg_piece *nc_agg_piece_of(struct nc_comm *c,
					    struct nc_agg_op *op,
					    const struct nc_frame *f)
{
	if (f->tag >= op->npieces) {
		nc_stat_inc(c->nn, NETCOLL_STAT_DROP_LENGTH);
		return NULL;
	}
	return &op->piece[f->tag];
}

/* Data frames must match the operation: op/dtype, piece length, cut. */
static bool nc_agg_data_ok(struct nc_comm *c, struct nc_agg_op *op,
			   struct nc_agg_piece *p, const struct nc_frame *f)
{
	if (f->opcode != op->opcode) {
		nc_stat_inc(c->nn, NETCOLL_STAT_DROP_OPCODE);
		return false;
	}
	if (f->msg_len != p->len || (p->len && f->frag_size != op->fs)) {
		nc_stat_inc(c->nn, NETCOLL_STAT_DROP_LENGTH);
		return false;
	}
	return true;
}

static void nc_agg_in_up(struct nc_comm *c, struct nc_agg_op *op,
			 struct sk_buff *skb, const struct nc_frame *f,
			 struct sk_buff_head *txq)
{
	struct nc_agg_piece *p = nc_agg_piece_of(c, op, f);
	struct sk_buff **slot;
	int ci;

	if (!p)
		goto drop;
	ci = nc_agg_child_index(p, f->src_rank);
	if (ci < 0) {
		nc_stat_inc(c->nn, NETCOLL_STAT_DROP_RANK);
		goto drop;
	}
	if (!nc_agg_data_ok(c, op, p, f))
		goto drop;
	slot = &p->held[ci * p->nfrags + f->seq];
	if (test_bit(f->seq, p->ready) || *slot) {
		nc_stat_inc(c->nn, NETCOLL_STAT_RX_DUPLICATES);
		if (f->flags & NETCOLL_F_ACK_NOW)
			nc_agg_ack_child(c, op, p, ci, txq);
		kfree_skb(skb);
		return;
	}
	if (skb_linearize(skb)) {
		nc_stat_inc(c->nn, NETCOLL_STAT_DROP_MEMORY);
		goto drop;
	}
	if (!nc_agg_hold(c, skb))
		goto drop;
	*slot = skb;
	p->since_ack[ci]++;
	nc_agg_try(c, op, p, f->seq, txq);
	if ((f->flags & NETCOLL_F_ACK_NOW) ||
	    p->since_ack[ci] >= NC_AGG_ACK_EVERY)
		nc_agg_ack_child(c, op, p, ci, txq);
	return;
drop:
	kfree_skb(skb);
}

static void nc_agg_in_down(struct nc_comm *c, struct nc_agg_op *op,
			   struct sk_buff *skb, const struct nc_frame *f,
			   struct sk_buff_head *txq)
{
	struct nc_agg_piece *p = nc_agg_piece_of(c, op, f);
	u32 k, i;

	if (!p)
		goto drop;
	if (f->src_rank != p->parent && f->src_rank != p->root) {
		nc_stat_inc(c->nn, NETCOLL_STAT_DROP_RANK);
		goto drop;
	}
	if (!f->msg_len) {
		/* Done: every fragment we sent up arrived. */
		if (p->done_mark)
			goto dup;
		p->done_mark = true;
		for (k = 0; k < p->up_next; k++)
			nc_agg_mark_up_acked(p, k);
		if (nc_agg_tree_dist(op))
			nc_agg_to_children(c, op, p, 0, true, txq);
		if (p->want_data && !p->len)
			nc_agg_set_res(p, 0);
		nc_agg_piece_check(c, op, p);
		kfree_skb(skb);
		return;
	}
	if (!p->want_data) {
		nc_stat_inc(c->nn, NETCOLL_STAT_DROP_STATE);
		goto drop;
	}
	if (!nc_agg_data_ok(c, op, p, f))
		goto drop;
	k = f->seq;
	if (test_bit(k, p->res))
		goto dup;
	if (skb_copy_bits(skb, NETCOLL_HDR_LEN, op->buf + p->off + k * op->fs,
			  f->len)) {
		nc_stat_inc(c->nn, NETCOLL_STAT_DROP_LENGTH);
		goto drop;
	}
	nc_agg_set_res(p, k);
	nc_agg_mark_up_acked(p, k);
	nc_agg_push_all(c, op, txq);
	if ((op->flags & NETCOLL_RED_ALL) && nc_agg_tree_dist(op))
		for (i = 0; i < p->nchildren; i++)
			nc_agg_send_frag(c, op, p, k, NETCOLL_T_AGG_DOWN, 0,
					 p->children[i], false, txq);
	nc_agg_piece_check(c, op, p);
	kfree_skb(skb);
	return;
dup:
	nc_stat_inc(c->nn, NETCOLL_STAT_RX_DUPLICATES);
drop:
	kfree_skb(skb);
}

static void nc_agg_in_ack(struct nc_comm *c, struct nc_agg_op *op,
			  const struct nc_frame *f, struct sk_buff_head *txq)
{
	struct nc_agg_piece *p = nc_agg_piece_of(c, op, f);
	u32 k;

	if (!p)
		return;
	nc_stat_inc(c->nn, NETCOLL_STAT_RX_ACKS);
	if (f->src_rank != p->parent && f->src_rank != p->src) {
		nc_stat_inc(c->nn, NETCOLL_STAT_DROP_RANK);
		return;
	}
	if (f->src_rank == p->parent) {
		for (k = p->up_cum; k < min(f->seq, p->up_next); k++)
			nc_agg_mark_up_acked(p, k);
		for (k = 0; k < 32; k++)
			if (f->frag_off & (1U << k))
				nc_agg_mark_up_acked(p, f->seq + 1 + k);
		while (p->up_cum < p->up_next && test_bit(p->up_cum, p->up_acked))
			p->up_cum++;
		nc_agg_push_all(c, op, txq);
	}
}

/* Somebody lacks (part of) the result of piece p: send what they miss. */
/* The whole result of piece p is here (at its root: combined here). */
static bool nc_agg_have_result(const struct nc_comm *c,
			       const struct nc_agg_piece *p)
{
	return nc_agg_is_root(c, p) ? p->nready == p->nfrags :
				      p->nres == p->nfrags;
}

/*
 * May rank x, which asks for piece p's result and has everything below
 * cum, be answered now?  Once per rto_min_ms << shift, the shift growing
 * with each answer that brought no progress: as often as a requester
 * backing off its own timer asks, and far less than a flood.
 */
static bool nc_agg_may_repair(struct nc_agg_piece *p, u32 x, u32 cum)
{
	struct nc_agg_asker *a = NULL;
	unsigned long now = jiffies;
	u32 i;

	for (i = 0; i < p->naskers && !a; i++)
		if (p->asker[i].rank == x)
			a = &p->asker[i];
	if (!a) {
		a = &p->asker[p->naskers < NC_AGG_ASKERS ? p->naskers++ :
			      NC_AGG_ASKERS];
		if (a != &p->asker[NC_AGG_ASKERS])
			a->rank = x;
	}
	if (cum > a->cum) {		/* it got what we sent: no backoff */
		a->cum = cum;
		a->shift = 0;
	} else if (a->at && time_before(now, a->at)) {
		return false;
	}
	a->at = (now + (msecs_to_jiffies(nc_rto_min_ms) << a->shift)) ?: 1;
	if (a->shift < NC_AGG_ASK_SHIFT_MAX)
		a->shift++;
	return true;
}

static void nc_agg_in_nack(struct nc_comm *c, struct nc_agg_op *op,
			   const struct nc_frame *f, struct sk_buff_head *txq)
{
	struct nc_agg_piece *p = nc_agg_piece_of(c, op, f);
	u32 x = f->src_rank, k, sent = 0;
	bool x_data;
	int ci;

	if (!p)
		return;
	ci = nc_agg_child_index(p, x);
	/* Children ask their parent, anybody may ask the root. */
	if (ci < 0 && !nc_agg_is_root(c, p)) {
		nc_stat_inc(c->nn, NETCOLL_STAT_DROP_RANK);
		return;
	}
	x_data = ((op->flags & NETCOLL_RED_ALL) || x == op->root) && p->len;
	if (x_data ? !nc_agg_have_result(c, p) :
	    !(p->done_mark || (nc_agg_is_root(c, p) && p->nready == p->nfrags))) {
		/* Not there yet: say we are alive (and what we hold of a child's). */
		if (ci >= 0)
			nc_agg_ack_child(c, op, p, ci, txq);
		else
			nc_agg_send_ctl(c, op->seq, NETCOLL_T_AGG_ACK, x, f->tag,
					0, 0, txq);
		return;
	}
	/*
	 * One nack makes up to NC_AGG_BURST frames: answer each peer at
	 * most once per backoff interval, and each operation only up to its
	 * budget, so forged or replayed nacks cannot multiply traffic.
	 */
	if (!op->repair_budget || !nc_agg_may_repair(p, x, f->seq)) {
		nc_stat_inc(c->nn, NETCOLL_STAT_DROP_RATELIMIT);
		return;
	}
	if (!x_data) {
		nc_agg_send_frag(c, op, p, 0, NETCOLL_T_AGG_DOWN, 0, x, true,
				 txq);
		sent = 1;
	}
	for (k = f->seq; x_data && k < p->nfrags && sent < NC_AGG_BURST &&
	     sent < op->repair_budget; k++) {
		if (k > f->seq && k <= f->seq + 32 &&
		    (f->frag_off & (1U << (k - f->seq - 1))))
			continue;
		nc_agg_send_frag(c, op, p, k, NETCOLL_T_AGG_DOWN, 0, x, false,
				 txq);
		sent++;
	}
	op->repair_budget -= min(sent, op->repair_budget);
	nc_stat_add(c->nn, NETCOLL_STAT_AGG_REPAIRS, sent);
}

static void nc_agg_input(struct nc_comm *c, struct nc_agg_op *op,
			 struct sk_buff *skb, const struct nc_frame *f,
			 struct sk_buff_head *txq)
{
	if (op->err) {
		nc_stat_inc(c->nn, NETCOLL_STAT_DROP_STATE);
		kfree_skb(skb);
		return;
	}
	/* Any frame of the operation shows its peers are alive. */
	op->retries = 0;
	switch (f->type) {
	case NETCOLL_T_AGG_UP:
		nc_agg_in_up(c, op, skb, f, txq);
		return;
	case NETCOLL_T_AGG_DOWN:
		nc_agg_in_down(c, op, skb, f, txq);
		return;
	case NETCOLL_T_AGG_ACK:
		nc_agg_in_ack(c, op, f, txq);
		break;
	case NETCOLL_T_AGG_NACK:
		nc_agg_in_nack(c, op, f, txq);
		break;
	}
	kfree_skb(skb);
}

/*
 * A frame for an operation this rank has not started: contributions are
 * held (bounded) until it starts; a peer asking is told we are alive.
 */
static void nc_agg_early(struct nc_comm *c, struct sk_buff *skb,
			 const struct nc_frame *f, struct sk_buff_head *txq)
{
	u32 d = f->op_seq - c->agg_next;
	struct nc_agg_op *op, **slot;

	if (d >= c->oso) {
		nc_stat_inc(c->nn, NETCOLL_STAT_DROP_STATE);
		goto drop;
	}
	if (f->type == NETCOLL_T_AGG_NACK ||
	    (f->flags & NETCOLL_F_ACK_NOW))
		nc_agg_send_ctl(c, f->op_seq, NETCOLL_T_AGG_ACK, f->src_rank,
				f->tag, 0, 0, txq);
	if (f->type == NETCOLL_T_AGG_NACK) {
		consume_skb(skb);	/* answered: we are alive, not done */
		return;
	}
	if (f->type != NETCOLL_T_AGG_UP) {
		nc_stat_inc(c->nn, NETCOLL_STAT_DROP_STATE);
		goto drop;
	}
	slot = &c->agg_slot[f->op_seq % nc_agg_window(c)];
	op = *slot;
	if (op && op->seq != f->op_seq) {
		/* 2 * OSO back: finished everywhere (see the top) */
		if (!op->complete) {
			nc_stat_inc(c->nn, NETCOLL_STAT_DROP_STATE);
			goto drop;
		}
		nc_agg_unslot(c, op);
		op = NULL;
	}
	if (!op) {
		/* A placeholder: only its slot refers to it. */
		op = kzalloc(sizeof(*op), GFP_ATOMIC | __GFP_NOWARN);
		if (!op) {
			nc_stat_inc(c->nn, NETCOLL_STAT_DROP_MEMORY);
			goto drop;
		}
		refcount_set(&op->ref, 1);
		op->seq = f->op_seq;
		__skb_queue_head_init(&op->early);
		*slot = op;
	}
	if (skb_queue_len(&op->early) >= NC_AGG_SLOTS * 256 ||
	    !nc_agg_hold(c, skb))
		goto drop;
	__skb_queue_tail(&op->early, skb);
	nc_stat_inc(c->nn, NETCOLL_STAT_RX_EARLY);
	return;
drop:
	kfree_skb(skb);
}

/*
 * A frame of an operation whose slot went to a newer one: a late copy
 * (retransmission, duplicate) is no error; older still is.
 */
static void nc_agg_stale(struct nc_comm *c, struct sk_buff *skb,
			 const struct nc_frame *f)
{
	u32 age = c->agg_next - f->op_seq;

	nc_stat_inc(c->nn, age <= 2 * nc_agg_window(c) ?
		    NETCOLL_STAT_RX_DUPLICATES : NETCOLL_STAT_DROP_STATE);
	kfree_skb(skb);
}

static void nc_agg_arm(struct nc_comm *c, unsigned long when)
{
	if (!c->dead && (!timer_pending(&c->agg_timer) ||
			 time_before(when, c->agg_timer.expires)))
		mod_timer(&c->agg_timer, when);
}

/* Receive path entry (softirq, RCU held), and the float worker's. */
void nc_agg_rcv(struct nc_comm *c, struct sk_buff *skb,
		const struct nc_frame *f)
{
	struct sk_buff_head txq;
	struct nc_agg_op *op;

	if (f->type == NETCOLL_T_AGG_UP && nc_dt_is_float(f->opcode & 0xff) &&
	    (!nc_reduce_fpu_usable() || (READ_ONCE(nc_fpu_defer_all) &&
					  in_serving_softirq()))) {
		/*
		 * softirq interrupted a kernel FPU user: reduce in a worker.
		 * A queued worker holds a reference: the communicator may be
		 * deleted while the frame waits.
		 */
		if (skb_queue_len(&c->agg_deferred) >= NC_AGG_DEFER_MAX ||
		    !nc_rx_charge(c, skb)) {
			nc_stat_inc(c->nn, NETCOLL_STAT_DROP_MEMORY);
			kfree_skb(skb);
			return;
		}
		if (!refcount_inc_not_zero(&c->ref)) {
			nc_rx_free(c, skb);
			return;
		}
		skb_queue_tail(&c->agg_deferred, skb);
		nc_stat_inc(c->nn, NETCOLL_STAT_AGG_FPU_DEFERRED);
		if (!queue_work(nc_wq, &c->agg_work))
			nc_comm_put(c);
		return;
	}

	__skb_queue_head_init(&txq);
	spin_lock(&c->lock);
	if (c->dead) {
		spin_unlock(&c->lock);
		nc_stat_inc(c->nn, NETCOLL_STAT_DROP_STATE);
		kfree_skb(skb);
		return;
	}
	op = nc_agg_find(c, f->op_seq);
	if (op && op->started)
		nc_agg_input(c, op, skb, f, &txq);
	else if (op || (s32)(f->op_seq - c->agg_next) >= 0)
		nc_agg_early(c, skb, f, &txq);
	else
		nc_agg_stale(c, skb, f);
	spin_unlock(&c->lock);
	nc_frames_flush(c, &txq);
}

static void nc_agg_work(struct work_struct *work)
{
	struct nc_comm *c = container_of(work, struct nc_comm, agg_work);
	struct sk_buff *skb;
	struct nc_frame f;

	local_bh_disable();
	rcu_read_lock();
	while ((skb = skb_dequeue(&c->agg_deferred))) {
		nc_rx_uncharge(c, skb);
		nc_skb_hdr(skb, &f);
		nc_agg_rcv(c, skb, &f);
	}
	rcu_read_unlock();
	local_bh_enable();
	nc_comm_put(c);		/* the reference queue_work() was given */
}

/* ---------------------------------------------------------------- */
/* Timer: retransmission, repair requests, time budget               */
/* ---------------------------------------------------------------- */

static void nc_agg_retransmit(struct nc_comm *c, struct nc_agg_op *op,
			      struct sk_buff_head *txq)
{
	u32 j, k;

	for (j = 0; j < op->npieces; j++) {
		struct nc_agg_piece *p = &op->piece[j];
		u32 sent = 0, cum, bits;

		if (p->complete || nc_agg_is_root(c, p))
			continue;	/* a root waits for its children */
		if (p->nup_acked < p->up_next) {
			for (k = p->up_cum; k < p->up_next && sent < NC_AGG_BURST; k++) {
				if (test_bit(k, p->up_acked))
					continue;
				nc_agg_send_frag(c, op, p, k, NETCOLL_T_AGG_UP,
						 NETCOLL_F_ACK_NOW, p->parent,
						 false, txq);
				sent++;
			}
			nc_stat_add(c->nn, NETCOLL_STAT_RETRANSMITS, sent);
			/*
			 * Everything went up, and only the result acks the
			 * last fragments: if the result was what got lost,
			 * ask for it now rather than one timeout later.
			 */
			if (p->up_next < p->nfrags)
				continue;
		} else if (p->up_next < p->nfrags) {
			nc_agg_push_up(c, op, p, txq);	/* window */
			continue;	/* or our children are late */
		}
		if (!p->want_data || !p->len) {
			cum = 0;
			bits = 0;
		} else {
			nc_agg_summary(p, 0, nc_agg_have_res, &p->res_cum,
				       &bits);
			cum = p->res_cum;
		}
		nc_agg_send_ctl(c, op->seq, NETCOLL_T_AGG_NACK, p->src, j, cum,
				bits, txq);
	}
}

/* Where a timed-out operation stood (dynamic debug: netcoll +p). */
static void nc_agg_debug_dump(struct nc_comm *c, struct nc_agg_op *op)
{
	u32 j, i, k, missing;

	for (j = 0; j < op->npieces; j++) {
		struct nc_agg_piece *p = &op->piece[j];

		pr_debug("comm %u rank %u op %u piece %u: %u/%u combined, %u sent, %u acked, %u result, done %d\n",
			 c->id, c->rank, op->seq, j, p->nready, p->nfrags,
			 p->up_next, p->nup_acked, p->nres, p->done_mark);
		for (i = 0; i < p->nchildren; i++) {
			for (k = 0, missing = 0; k < p->nfrags; k++)
				missing += !p->held[i * p->nfrags + k] &&
					   !test_bit(k, p->ready);
			pr_debug("  child %u: %u fragments missing\n",
				 p->children[i], missing);
		}
	}
}

static void nc_agg_timer(struct timer_list *t)
{
	struct nc_comm *c = from_timer(c, t, agg_timer);
	unsigned long now = jiffies, next = now + HZ;
	unsigned long rto_max = msecs_to_jiffies(nc_rto_max_ms);
	struct sk_buff_head txq;
	u32 i;

	__skb_queue_head_init(&txq);
	spin_lock(&c->lock);
	if (c->dead) {
		spin_unlock(&c->lock);
		return;
	}
	for (i = 0; i < nc_agg_window(c); i++) {
		struct nc_agg_op *op = c->agg_slot[i];

		if (!op || !op->started)
			continue;
		if (op->complete) {
			if (!op->linger_until)
				continue;
			if (time_after_eq(now, op->linger_until))
				nc_agg_unslot(c, op);
			else if (time_before(op->linger_until, next))
				next = op->linger_until;
			continue;
		}
		if (time_after_eq(now, op->deadline)) {
			nc_agg_debug_dump(c, op);
			nc_agg_complete(c, op, -ETIMEDOUT);
			continue;
		}
		if (time_after_eq(now, op->rto_at)) {
			if (++op->retries > nc_max_retries) {
				nc_agg_complete(c, op, -ETIMEDOUT);
				continue;
			}
			nc_agg_retransmit(c, op, &txq);
			op->rto = min(op->rto * 2, rto_max);
			op->rto_at = now + op->rto;
		}
		if (time_before(op->rto_at, next))
			next = op->rto_at;
		if (time_before(op->deadline, next))
			next = op->deadline;
	}
	for (i = 0; i < nc_agg_window(c); i++) {
		struct nc_agg_op *op = c->agg_slot[i];

		if (op && op->started && (!op->complete || op->linger_until)) {
			mod_timer(&c->agg_timer, next);
			break;
		}
	}
	spin_unlock(&c->lock);
	nc_frames_flush(c, &txq);
}

/* ---------------------------------------------------------------- */
/* Starting and finishing an operation (process context)             */
/* ---------------------------------------------------------------- */

/* Bytes a piece's bookkeeping takes for a tree with nchildren children. */
static u64 nc_agg_piece_bytes(u32 nchildren, u32 nfrags)
{
	return (3 * (u64)nchildren + 1) * sizeof(u32) +
	       3 * BITS_TO_LONGS(nfrags) * sizeof(long) +
	       (u64)nchildren * nfrags * sizeof(struct sk_buff *);
}

static int nc_agg_piece_init(struct nc_comm *c, struct nc_agg_op *op,
			     struct nc_agg_piece *p, const struct nc_tree *t)
{
	size_t words = BITS_TO_LONGS(p->nfrags);

	p->root = t->root;
	p->parent = t->parent;
	p->nchildren = t->nchildren;
	p->children = kcalloc(3 * t->nchildren + 1, sizeof(u32),
			      GFP_KERNEL_ACCOUNT);
	p->ready = kvcalloc(3 * words, sizeof(long), GFP_KERNEL_ACCOUNT);
	p->held = kvcalloc((size_t)t->nchildren * p->nfrags,
			   sizeof(struct sk_buff *), GFP_KERNEL_ACCOUNT);
	if (!p->children || !p->ready || !p->held)
		return -ENOMEM;
	memcpy(p->children, t->children, t->nchildren * sizeof(u32));
	p->since_ack = p->children + t->nchildren;
	p->child_cum = p->since_ack + t->nchildren;
	p->up_acked = p->ready + words;
	p->res = p->up_acked + words;
	p->want_data = (op->flags & NETCOLL_RED_ALL) || op->root == c->rank;
	/* Multicast results, and a reduce's data, come from the root. */
	if (!nc_agg_tree_dist(op) ||
	    (!(op->flags & NETCOLL_RED_ALL) && op->root == c->rank))
		p->src = p->root;
	else
		p->src = p->parent;
	return 0;
}

static int nc_agg_check_args(struct nc_comm *c, const struct nc_agg_args *a,
			     u32 *esize)
{
	int err;

	if (a->flags & ~NETCOLL_RED_KNOWN || a->split > NETCOLL_TREES_MAX)
		return -EINVAL;
	err = nc_red_check(a->op, a->dtype);
	if (err)
		return err;
	if (nc_dt_is_float(a->dtype) && !nc_reduce_float_supported())
		return -EOPNOTSUPP;
	if (!(a->flags & NETCOLL_RED_ALL) && a->root >= c->size)
		return -EINVAL;
	*esize = nc_red_elem_size(a->op, a->dtype);
	if (a->count > NETCOLL_REDUCE_MAX / *esize)
		return -EINVAL;
	return 0;
}

/* Fragments of whole elements that fit a frame (every element size divides 16). */
static int nc_agg_frag_size(struct nc_comm *c, u32 *fs)
{
	u32 room = nc_comm_payload_max(c);

	if (!room)
		return -ENETDOWN;
	if (room < 16)
		return -EMSGSIZE;
	*fs = rounddown(min_t(u32, room, 0xfff0), 16);
	return 0;
}

/*
 * Pieces and their bookkeeping, under the trees' lock: the memory they and
 * the vector take is charged to the communicator before it is allocated.
 */
static int nc_agg_pieces(struct nc_comm *c, struct nc_agg_op *op,
			 const struct nc_agg_args *a, u32 esize)
{
	u64 total = 0, charge = sizeof(*op) + max_t(u64, op->bytes, 1);
	int err = 0;
	u32 j;

	mutex_lock(&c->tree_lock);
	for (j = 0; j < op->npieces; j++) {
		struct nc_agg_piece *p = &op->piece[j];
		u64 lo = div_u64(a->count * j, op->npieces);
		u64 hi = div_u64(a->count * (j + 1), op->npieces);

		p->off = lo * esize;
		p->len = (hi - lo) * esize;
		p->nfrags = nc_wire_nfrags(p->len, op->fs);
		charge += nc_agg_piece_bytes(c->trees[j]->nchildren, p->nfrags);
		total += p->nfrags;
	}
	err = nc_comm_mem_reserve(c, charge);
	if (!err) {
		op->charge = charge;
		for (j = 0; j < op->npieces && !err; j++)
			err = nc_agg_piece_init(c, op, &op->piece[j],
						c->trees[j]);
	} else {
		j = 0;
	}
	mutex_unlock(&c->tree_lock);
	if (err)
		op->npieces = j;	/* free what was set up */
	/* Repairs this operation may send: a few rounds to every peer. */
	op->repair_budget = min_t(u64, 4 * total * max(c->size - 1, 1U) +
				  NC_AGG_BURST, U32_MAX);
	return err;
}

static struct nc_agg_op *nc_agg_prepare(struct nc_comm *c,
					const struct nc_agg_args *a)
{
	struct nc_agg_op *op;
	u32 esize;
	int err;

	err = nc_agg_check_args(c, a, &esize);
	if (err)
		return ERR_PTR(err);
	op = kzalloc(sizeof(*op), GFP_KERNEL_ACCOUNT);
	if (!op)
		return ERR_PTR(-ENOMEM);
	refcount_set(&op->ref, 1);
	__skb_queue_head_init(&op->early);
	op->op = a->op;
	op->dtype = a->dtype;
	op->opcode = a->op << 8 | a->dtype;
	op->flags = a->flags;
	op->root = (a->flags & NETCOLL_RED_ALL) ? NETCOLL_NONE : a->root;
	op->bytes = a->count * esize;
	op->ubuf = a->recvbuf;
	op->npieces = clamp_t(u64, a->split, 1, max_t(u64, a->count, 1));
	err = nc_agg_frag_size(c, &op->fs);
	if (!err)
		err = nc_agg_pieces(c, op, a, esize);
	if (err)
		goto free;
	err = -ENOMEM;
	op->buf = kvmalloc(max_t(u64, op->bytes, 1), GFP_KERNEL_ACCOUNT);
	if (!op->buf)
		goto free;
	err = -EFAULT;
	if (copy_from_user(op->buf, a->sendbuf, op->bytes))
		goto free;
	op->deadline = jiffies +
		msecs_to_jiffies(a->timeout_ms ?: c->timeout_ms);
	return op;
free:
	nc_agg_op_free(c, op);
	return ERR_PTR(err);
}

/* Under c->lock: may operation seq start?  0, -EAGAIN (wait) or error. */
static int nc_agg_may_start(struct nc_comm *c, u32 seq)
{
	struct nc_agg_op *prev = nc_agg_find(c, seq - c->oso);
	int err = nc_comm_usable(c);

	if (err)
		return err;
	if (prev && prev->started && !prev->complete)
		return -EAGAIN;
	return 0;
}

static bool nc_agg_can_start(struct nc_comm *c)
{
	bool ok;

	spin_lock_bh(&c->lock);
	ok = nc_agg_may_start(c, c->agg_next) != -EAGAIN;
	spin_unlock_bh(&c->lock);
	return ok;
}

/*
 * Twice the smoothed time operations of this size took from start to
 * result; before any did, the slowest class seen (a cautious guess).
 */
static unsigned long nc_agg_rto_init(struct nc_comm *c, struct nc_agg_op *op)
{
	u32 srtt = c->agg_srtt_us[nc_agg_class(op)], i;
	unsigned long rto;

	if (!srtt)
		for (i = 0; i < NC_AGG_CLASSES; i++)
			srtt = max(srtt, c->agg_srtt_us[i]);
	rto = usecs_to_jiffies(2 * srtt);

	return clamp(rto, msecs_to_jiffies(nc_rto_min_ms),
		     msecs_to_jiffies(nc_rto_max_ms));
}

/* Sleep until operation c->agg_next may start (OSO limit); c->lock held. */
static int nc_agg_wait_turn(struct nc_comm *c, struct nc_agg_op *op)
	__must_hold(&c->lock)
{
	bool queued = false;
	long left;
	int err;

	for (;;) {
		err = nc_agg_may_start(c, c->agg_next);
		if (err != -EAGAIN)
			return err;
		/* OSO limit: queue behind the operation OSO places back */
		spin_unlock_bh(&c->lock);
		if (!queued)
			nc_stat_inc(c->nn, NETCOLL_STAT_AGG_QUEUED);
		queued = true;
		if (time_after_eq(jiffies, op->deadline)) {
			err = -ETIMEDOUT;
		} else {
			left = wait_event_interruptible_timeout(c->agg_wq,
								nc_agg_can_start(c),
								op->deadline - jiffies);
			err = left < 0 ? -EINTR : 0;
		}
		spin_lock_bh(&c->lock);
		if (err)
			return err;
	}
}

/*
 * Post a contribution.  Returns the operation with two references, its
 * slot's and the caller's (give it back with nc_agg_release), or an
 * ERR_PTR; an operation that never started consumed no sequence number.
 */
struct nc_agg_op *nc_agg_start(struct nc_comm *c, const struct nc_agg_args *a)
{
	struct nc_agg_op *op, **slot, *old;
	struct sk_buff_head txq;
	struct sk_buff *skb;
	struct nc_frame f;
	u32 seq, j, k;
	int err;

	op = nc_agg_prepare(c, a);
	if (IS_ERR(op))
		return op;
	err = nc_join_wait(c, op->deadline);
	if (err) {
		nc_agg_op_free(c, op);
		return ERR_PTR(err);
	}

	__skb_queue_head_init(&txq);
	spin_lock_bh(&c->lock);
	err = nc_agg_wait_turn(c, op);
	if (err) {
		spin_unlock_bh(&c->lock);
		nc_agg_op_free(c, op);
		return ERR_PTR(err);
	}

	seq = c->agg_next;
	slot = &c->agg_slot[seq % nc_agg_window(c)];
	old = *slot;
	/* frames came first: take them over from the placeholder */
	if (old && old->seq == seq)
		skb_queue_splice_init(&old->early, &op->early);
	refcount_inc(&op->ref);		/* the slot's */
	*slot = op;
	if (old)
		nc_agg_op_put(c, old);
	op->seq = seq;
	op->started = true;
	op->t0_ns = ktime_get_ns();
	op->rto = nc_agg_rto_init(c, op);
	op->rto_at = jiffies + op->rto;
	c->agg_next++;

	for (j = 0; j < op->npieces; j++)
		for (k = 0; k < op->piece[j].nfrags; k++)
			nc_agg_try(c, op, &op->piece[j], k, &txq);
	while ((skb = __skb_dequeue(&op->early))) {
		nc_rx_uncharge(c, skb);
		nc_skb_hdr(skb, &f);
		nc_agg_input(c, op, skb, &f, &txq);
	}
	if (!op->complete)
		nc_agg_arm(c, min(op->rto_at, op->deadline));
	spin_unlock_bh(&c->lock);
	nc_frames_flush(c, &txq);
	return op;
}

bool nc_agg_done(const struct nc_agg_op *op)
{
	return READ_ONCE(op->complete);
}

/*
 * Wait for op (the caller holds a reference and is its only waiter) and
 * copy its result out.  The operation stays in its slot for repairs.
 */
int nc_agg_wait(struct nc_comm *c, struct nc_agg_op *op)
{
	bool want;
	int err;

	if (wait_event_interruptible(c->agg_wq,
				     READ_ONCE(op->complete) || READ_ONCE(c->dead)))
		return -EINTR;

	spin_lock_bh(&c->lock);
	if (!op->complete)
		nc_agg_complete(c, op, c->dead);
	err = op->err;
	want = (op->flags & NETCOLL_RED_ALL) || op->root == c->rank;
	spin_unlock_bh(&c->lock);

	/* A finished result no longer changes: copy it without the lock. */
	if (!err && want && op->bytes &&
	    copy_to_user(op->ubuf, op->buf, op->bytes))
		err = -EFAULT;

	if (op->err) {
		nc_stat_inc(c->nn, NETCOLL_STAT_OPS_FAILED);
		if (op->err == -ETIMEDOUT)
			nc_stat_inc(c->nn, NETCOLL_STAT_OPS_TIMEDOUT);
		nc_event_op_failed(c, op->seq, -op->err, NETCOLL_NONE);
	}
	return err;
}

/*
 * The poster lets go of op: it collected the result, or will never wait
 * for it.  With cancel (its endpoint closes) an unfinished operation is
 * cancelled now, and a finished one stays only for repairs;
 * without, an unfinished one runs on (the others need this rank's part)
 * and a finished one stays in its slot.
 */
void nc_agg_release(struct nc_comm *c, struct nc_agg_op *op, bool cancel)
{
	spin_lock_bh(&c->lock);
	op->released = true;
	if (!op->complete && cancel) {
		nc_agg_complete(c, op, -ECANCELED);
		nc_stat_inc(c->nn, NETCOLL_STAT_OPS_CANCELLED);
		nc_agg_unslot(c, op);
	} else if (op->complete && cancel) {
		nc_agg_linger(c, op);
	}
	spin_unlock_bh(&c->lock);
	wake_up_all(&c->agg_wq);	/* callers queued behind it (OSO) */
	nc_agg_op_put(c, op);
}

/* Memory is short: finished operations nobody waits for leave their slots. */
bool nc_agg_reclaim(struct nc_comm *c)
{
	bool freed = false;
	u32 i;

	spin_lock_bh(&c->lock);
	for (i = 0; i < NC_AGG_SLOTS; i++) {
		struct nc_agg_op *op = c->agg_slot[i];

		if (op && op->started && op->complete && op->released) {
			nc_agg_unslot(c, op);
			freed = true;
		}
	}
	spin_unlock_bh(&c->lock);
	return freed;
}

/* The bound endpoint closed: what it finished stays only for repairs. */
void nc_agg_close(struct nc_comm *c)
{
	u32 i;

	spin_lock_bh(&c->lock);
	for (i = 0; i < NC_AGG_SLOTS; i++) {
		struct nc_agg_op *op = c->agg_slot[i];

		if (op && op->started && op->complete && op->released)
			nc_agg_linger(c, op);
	}
	spin_unlock_bh(&c->lock);
}

/* ---------------------------------------------------------------- */
/* Communicator life                                                 */
/* ---------------------------------------------------------------- */

int nc_agg_set_tree(struct nc_comm *c, u32 index, struct nc_tree *t)
{
	struct nc_tree *old;

	if (!t) {
		t = nc_tree_fnomial(c->rank, c->size, c->tree_degree, index);
		if (!t)
			return -ENOMEM;
	}
	mutex_lock(&c->tree_lock);
	old = c->trees[index];
	c->trees[index] = t;
	mutex_unlock(&c->tree_lock);
	kfree(old);
	return 0;
}

int nc_agg_init(struct nc_comm *c)
{
	u32 i;

	mutex_init(&c->tree_lock);
	timer_setup(&c->agg_timer, nc_agg_timer, 0);
	INIT_WORK(&c->agg_work, nc_agg_work);
	skb_queue_head_init(&c->agg_deferred);
	init_waitqueue_head(&c->agg_wq);
	for (i = 0; i < NETCOLL_TREES_MAX; i++)
		if (nc_agg_set_tree(c, i, NULL))
			return -ENOMEM;
	return 0;
}

static void nc_agg_purge_deferred(struct nc_comm *c)
{
	struct sk_buff *skb;

	while ((skb = skb_dequeue(&c->agg_deferred)))
		nc_rx_free(c, skb);
}

/* No more operations: fail the running ones, stop timer and worker. */
void nc_agg_stop(struct nc_comm *c, int err)
{
	u32 i;

	spin_lock_bh(&c->lock);
	for (i = 0; i < NC_AGG_SLOTS; i++) {
		struct nc_agg_op *op = c->agg_slot[i];

		if (op && op->started)
			nc_agg_complete(c, op, err);
	}
	spin_unlock_bh(&c->lock);
	wake_up_all(&c->agg_wq);
	del_timer_sync(&c->agg_timer);
	/* A pending worker's reference is ours to drop (c->dead: no new one). */
	if (cancel_work_sync(&c->agg_work))
		nc_comm_put(c);
	nc_agg_purge_deferred(c);
}

/* Last reference gone (stopped before, no endpoint left): free everything. */
void nc_agg_free(struct nc_comm *c)
{
	u32 i;

	for (i = 0; i < NC_AGG_SLOTS; i++)
		if (c->agg_slot[i])
			nc_agg_op_put(c, c->agg_slot[i]);
	nc_agg_purge_deferred(c);
	for (i = 0; i < NETCOLL_TREES_MAX; i++)
		kfree(c->trees[i]);
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The aggregation engine's private header, for its own files only (agg.c,
 * agg_tx.c, agg_rx.c, agg_timer.c): nothing else includes it, the engine's
 * interface is agg.h.  It holds an operation (struct nck_agg_op) and its
 * pieces, the engine's constants, the small helpers every file uses and
 * the functions one of the files calls in another.  How the engine works,
 * an operation's lifetime and the locking: the top of agg.c.
 */
#ifndef NCK_AGG_OP_H
#define NCK_AGG_OP_H

#include "comm.h"
#include "frame.h"

#define NCK_AGG_BURST		64	/* fragments resent per nack */
#define NCK_AGG_BURST_CONGESTED	8	/* ... while our link's queue overflows */
#define NCK_AGG_DEFER_MAX	1024	/* float frames waiting for the worker */
#define NCK_AGG_ASK_SHIFT_MAX	6	/* repair backoff: rto_min_ms << 6 */
#define NCK_AGG_PROBE_EVERY	16	/* ops between round-trip probes */
#define NCK_AGG_REPEAT_OPS	64	/* operations sent twice after a loss */
#define NCK_AGG_REPEAT_FRAGS	2	/* ... if their pieces are that small */
#define NCK_AGG_OP_RTO_MIN_MS	10	/* an unwindowed operation's timeout */
#define NCK_AGG_DN_FRAGS	16	/* larger results go down in a window */
#define NCK_AGG_RECLAIM_POLL_MS	100	/* a poster short of memory looks again */
#define NCK_AGG_DN_ONCE_BYTES	(24 * 1024)	/* ... and results of more bytes */
#define NCK_AGG_DN_BYTES	(128 * 1024)	/* ... of this many bytes */
#define NCK_AGG_DN_MIN		4	/* ... and at least these fragments */
/* Vectors this small live in the operation's allocation (nck_agg_prepare). */
#define NCK_AGG_BUF_SMALL	256

/*
 * A rank that may ask this one for a piece's result: when it may be
 * answered again.  Each piece at most once per interval; the interval
 * doubles while the asker makes no progress.
 */
struct nck_agg_asker {
	u64 at;				/* this interval ends (ns); 0: none */
	u32 cum[NETCOLL_TREES_MAX];	/* what it said it had, per piece */
	u32 holes_below[NETCOLL_TREES_MAX]; /* its holes below were answered */
	u32 holes_round[NETCOLL_TREES_MAX]; /* its latest round answered */
	u8 shift;
	u8 answered;			/* pieces answered this interval */
};

struct nck_agg_piece {
	u32 off, len;		/* bytes of the vector */
	u32 nfrags;		/* an empty piece is one empty fragment */
	bool want_data;		/* this rank receives the result */
	u32 root, parent, src;	/* src: sends us the result (or marker) */
	u32 nchildren;
	u32 *children;		/* ascending: the reduction order */
	struct nck_frags *got;	/* per child: its fragments here */
	struct sk_buff **held;	/* [child * nfrags + k] until reduced */
	unsigned long *ready;	/* combined here (own and children's) */
	u32 nready, up_next;
	struct nck_frags up;	/* what the parent acked */
	struct nck_frags res;	/* result fragments here */
	u32 res_asked;		/* holes below this were asked for already */
	u32 ask_round;		/* requests for holes asked before */
	u64 ask_ns;		/* the latest request for the result */
	u32 hole_k;		/* the lowest hole not asked for yet ... */
	u64 hole_ns;		/* ... seen then (0: none): nck_agg_hole_wait */
	bool done_mark;		/* the root says the piece is done */
	bool complete;
	bool bdata;		/* a broadcast's data: nothing goes up */
	bool bsync;		/* a broadcast's empty piece: done when acked */
	/*
	 * A large result going down the tree (nck_agg_windowed()) is a
	 * windowed message to each child: the child acks it (AGG_ACK with
	 * NETCOLL_F_RESULT) and the sender sends it fragment dn_next[i]
	 * only while the window has room.  dn[i]: what child i
	 * acked (its acks, its requests' cumulative points); NULL where
	 * this rank has no children or the piece is not windowed.
	 */
	bool windowed;
	struct nck_frags *dn;
	u32 *dn_next;
};

struct nck_agg_op {
	refcount_t ref;		/* slot and poster, see agg.c */
	u32 seq;
	bool started, complete;
	bool released;		/* the poster let go (collected or closed) */
	bool unposted;		/* a broadcast its data started: no poster yet */
	bool taking_early;	/* nck_agg_install() hands it its early frames */
	bool progress;		/* an ack being applied acked something */
	unsigned long linger_until;	/* its endpoint closed: leave then */
	u64 charge;		/* bytes of c->mem_used */
	u32 repair_budget;	/* fragments this op may still resend on nacks */
	bool again;		/* frames going out are sent again */
	bool dn_done;		/* every child has its whole result: push_down */
	u64 dn_heard_ns;	/* it finished, or a child acked more of its result */
	bool freeable_told;	/* the timer told it reclaimable: nck_agg_arm_quiet */
	u8 dn_probes;		/* tail probes since dn_heard_ns: nck_agg_dn_probe */
	u32 acks_held;		/* children's acks held (rel.h flow control) */
	int err;
	u16 opcode;
	u32 op, dtype, flags, root, fs;
	u32 window;		/* fragments in flight up: nck_window_frags(fs) */
	u64 bytes;
	u8 *buf;		/* contribution, partial result, result */
	bool buf_inline;	/* buf is after piece[] (nck_agg_prepare) */
	void __user *ubuf;	/* where the result goes ... */
	/*
	 * ... in whose memory: the thread group that posted it (referenced)
	 * and its address space then.  Only they may WAIT (handles live in
	 * the file, which fork() and SCM_RIGHTS share; a waiter elsewhere
	 * would have the result copied to an address another process chose).
	 * NULL while a broadcast its data started has no poster.  The mm is
	 * compared, never dereferenced, so it is not referenced: the pid
	 * alone keeps another process out, and an exec() replaces the mm.
	 */
	struct pid *poster;
	const struct mm_struct *poster_mm;
	u32 npieces, pieces_done;
	struct nck_agg_asker *askers;	/* [c->size]; NULL: nobody asks us */
	unsigned long deadline;
	struct nck_rtx rtx;
	/*
	 * How long it ran here (from t0_ns) is timed into
	 * c->agg.op_rtt[op_class] (-1: not timed: a broadcast, a windowed
	 * result) unless it timed out (expired) and nothing told the wait
	 * apart from a loss: a peer we asked answered that it is alive but
	 * not done (late) and nothing of it was lost here (lost); see
	 * nck_agg_time_op().
	 */
	u64 t0_ns;
	s8 op_class;
	bool expired, late, lost;
	/* One fragment going up is timed for the round-trip estimate. */
	struct nck_agg_piece *probe;
	u32 probe_k;
	u64 probe_ns;
	/*
	 * Our request to children that owe fragments, until one answers: a
	 * round trip for ranks that send nothing up (the root).  Karn: once
	 * a request went again before an answer, that answer is not timed
	 * (ask_again) and the next request is.
	 */
	u64 ask_ns;
	bool ask_again;
	/* The earliest a result's hole is old enough to ask for (0: none). */
	u64 hole_at;
	struct nck_agg_piece piece[];	/* [npieces], then a small buf */
};

/* What a resend to child ci of piece p needs. */
struct nck_agg_dn_ctx {
	struct nck_comm *c;
	struct nck_agg_op *op;
	struct nck_agg_piece *p;
	u32 ci;
	struct sk_buff_head *txq;
	bool lost;	/* its ack showed it lost (not its timer's ask) */
};

/* What an ack from the parent is applied to. */
struct nck_agg_ack_ctx {
	struct nck_comm *c;
	struct nck_agg_op *op;
	struct nck_agg_piece *p;
	struct sk_buff_head *txq;
	bool lost;	/* an ack showed them lost (not a timeout's guess) */
};

/* agg.c: an operation's life */
void nck_agg_unslot(struct nck_comm *c, struct nck_agg_op *op);
void nck_agg_arm(struct nck_comm *c, u64 when);
u64 nck_agg_when(unsigned long when);
void nck_agg_complete(struct nck_comm *c, struct nck_agg_op *op, int err);
bool nck_agg_repeats_op(const struct nck_comm *c,
			const struct nck_agg_op *op);
void nck_agg_progress(struct nck_comm *c, struct nck_agg_op *op);

/* agg_tx.c: frames out, progress */
void nck_agg_saw_loss(struct nck_comm *c, struct nck_agg_op *op, int cause);
void nck_agg_saw_timeout(struct nck_comm *c, struct nck_agg_op *op);
unsigned int nck_agg_send_frag(struct nck_comm *c,
			       struct nck_agg_op *op,
			       struct nck_agg_piece *p, u32 k, u16 type,
			       u16 flags, u32 dst, bool marker,
			       struct sk_buff_head *txq);
void nck_agg_ack_child(struct nck_comm *c, struct nck_agg_op *op,
		       struct nck_agg_piece *p, u32 ci, u16 flags,
		       struct sk_buff_head *txq);
void nck_agg_answer_child(struct nck_comm *c, struct nck_agg_op *op,
			  struct nck_agg_piece *p, u32 ci, u16 flags,
			  struct sk_buff_head *txq);
void nck_agg_acks_release_held(struct nck_comm *c,
			       struct nck_agg_op *op,
			       struct sk_buff_head *txq);
void nck_agg_ask_holes(struct nck_comm *c, struct nck_agg_op *op,
		       struct nck_agg_piece *p, u32 k,
		       struct sk_buff_head *txq);
void nck_agg_ask_waited(struct nck_comm *c, struct nck_agg_op *op,
			struct sk_buff_head *txq);
bool nck_agg_late(const struct nck_agg_piece *p, bool hole);
void nck_agg_ask(struct nck_comm *c, struct nck_agg_op *op,
		 struct nck_agg_piece *p, struct sk_buff_head *txq);
void nck_agg_piece_check(struct nck_comm *c, struct nck_agg_op *op,
			 struct nck_agg_piece *p);
void nck_agg_push_down(struct nck_comm *c, struct sk_buff_head *txq);
bool nck_agg_delivered(struct nck_comm *c, struct nck_agg_op *op);
void nck_agg_arm_quiet(struct nck_comm *c, struct nck_agg_op *op);
void nck_agg_memory_freeable(struct nck_comm *c);
int nck_agg_resend_down(void *arg, u32 k);
void nck_agg_dn_acked(struct nck_comm *c, struct nck_agg_op *op,
		      struct nck_agg_piece *p, int ci, u32 cum,
		      u32 sack, bool sample, struct sk_buff_head *txq);
void nck_agg_ack_result(struct nck_comm *c, struct nck_agg_op *op,
			struct nck_agg_piece *p,
			struct sk_buff_head *txq);
void nck_agg_to_children(struct nck_comm *c, struct nck_agg_op *op,
			 struct nck_agg_piece *p, u32 k, bool marker,
			 struct sk_buff_head *txq);
void nck_agg_push_up(struct nck_comm *c, struct nck_agg_op *op,
		     struct nck_agg_piece *p, struct sk_buff_head *txq);
void nck_agg_push_all(struct nck_comm *c, struct nck_agg_op *op,
		      struct sk_buff_head *txq);
void nck_agg_try(struct nck_comm *c, struct nck_agg_op *op,
		 struct nck_agg_piece *p, u32 k, struct sk_buff_head *txq);
void nck_agg_up_acked(struct nck_agg_op *op, struct nck_agg_piece *p, u32 k);

/* agg_rx.c: frames in */
int nck_agg_resend_up(void *arg, u32 k);
void nck_agg_input(struct nck_comm *c, struct nck_agg_op *op,
		   struct sk_buff *skb, const struct nc_frame *f,
		   struct sk_buff_head *txq);
void nck_agg_early_walk(struct nck_comm *c);
void nck_agg_early_refuse(struct nck_comm *c, u32 seq, u32 src, u32 root);
void nck_agg_refund(struct nck_comm *c, u32 seq, u32 n);
int nck_agg_frag_size(struct nck_comm *c, u32 *fs);
void nck_agg_work(struct work_struct *work);

/* agg_timer.c */
enum hrtimer_restart nck_agg_timer(struct hrtimer *t);

/* On every completion: inline while no broadcast data is held (the walk). */
static inline void nck_agg_early_rescan(struct nck_comm *c)
{
	c->agg.early_bcast.rescans++;
	c->agg.early_bcast.waiting = false;
	if (c->agg.early_bcast.held && !c->agg.early_bcast.queued)
		nck_agg_early_walk(c);
}

/* Mostly nobody waits; the barrier pairs with prepare_to_wait_event()'s. */
static inline void nck_agg_wake(struct nck_comm *c)
{
	if (wq_has_sleeper(&c->agg.wq))
		wake_up_all(&c->agg.wq);
}

static inline u32 nck_agg_window(const struct nck_comm *c)
{
	return 2 * c->agg.oso;
}

static inline struct nck_agg_op *nck_agg_find(struct nck_comm *c, u32 seq)
{
	struct nck_agg_op *op = c->agg.slot[seq % nck_agg_window(c)];

	lockdep_assert_held(&c->lock);
	return op && op->seq == seq ? op : NULL;
}

static inline bool nck_agg_is_root(const struct nck_comm *c,
				   const struct nck_agg_piece *p)
{
	return p->parent == c->rank;
}

static inline u32 nck_agg_frag_len(const struct nck_agg_op *op,
				   const struct nck_agg_piece *p, u32 k)
{
	u32 off = k * op->fs;

	return p->len ? min(op->fs, p->len - off) : 0;
}

static inline bool nck_agg_tree_dist(const struct nck_agg_op *op)
{
	return !(op->flags & NETCOLL_RED_MCAST);
}

static inline bool nck_agg_bcast(const struct nck_agg_op *op)
{
	return op->flags & NETCOLL_RED_BCAST;
}

/*
 * Is a child's part of a piece of len bytes in nfrags fragments acked at
 * its end by the result alone ("up" in docs/agg-design.md)?  Yes if its
 * result goes down at once, not in a window: at most NCK_AGG_DN_FRAGS
 * fragments and NCK_AGG_DN_ONCE_BYTES (at MTU 1500 the fragments decide,
 * at MTU 9000 the bytes: docs/agg-design.md, "Results going down").  A
 * broadcast's empty piece is finished by its parent's ack, but its
 * fragment asks for it (ACK_NOW).
 */
static inline bool nck_agg_end_by_result(u32 len, u32 nfrags)
{
	return nfrags <= NCK_AGG_DN_FRAGS && len <= NCK_AGG_DN_ONCE_BYTES;
}

/* The same for an early frame's message (the books' policy, rel.h). */
static inline bool nck_agg_end_by_reply(const struct nc_frame *f)
{
	return nck_agg_end_by_result(f->msg_len,
				     nc_wire_nfrags(f->msg_len, f->frag_size));
}

/* The tag of op's frames of piece p: a broadcast's name its root too. */
static inline u16 nck_agg_tag(const struct nck_agg_op *op,
			      const struct nck_agg_piece *p)
{
	BUILD_BUG_ON(NETCOLL_AGG_TAG(NETCOLL_TREES_MAX - 1,
				     NETCOLL_COMM_SIZE_MAX - 1) > U16_MAX);
	return NETCOLL_AGG_TAG(p - op->piece,
			       nck_agg_bcast(op) ? op->piece[0].root : 0);
}

/*
 * How long a broadcast its data started waits for more of it: the
 * communicator's budget, or the one this rank's process last posted with
 * if longer -- a process that waits a minute for its operations may well
 * be a minute behind its peers, and the parent's data with it.
 */
static inline u32 nck_agg_unposted_ms(const struct nck_comm *c)
{
	return max(c->timeout_ms, c->agg.budget_ms);
}

/*
 * Is our own part of piece p in?  Not yet for the empty piece of a
 * broadcast whose data started it: that fragment says our process posted.
 */
static inline bool nck_agg_own_in(const struct nck_agg_op *op,
				  const struct nck_agg_piece *p)
{
	return op->started && !(p->bsync && op->unposted);
}

/*
 * Does a piece of len bytes in nfrags fragments go down in a window
 * ("down" in docs/agg-design.md)?  Every rank decides alike: the sender windows, the receiver
 * acks.  Small results go at once: one round trip, nothing to pace.
 */
static inline bool nck_agg_windowed(const struct nck_agg_op *op, u32 len,
				    u32 nfrags)
{
	return nck_agg_tree_dist(op) && (op->flags & NETCOLL_RED_ALL) && len &&
	       !nck_agg_end_by_result(len, nfrags);
}

/*
 * Bytes of results a rank may have in flight to its children, every
 * operation, piece and child together (they share our link):
 * NCK_AGG_DN_BYTES, a quarter of it while our link's queue overflows
 * (nck_comm_congested()); at least NCK_AGG_DN_MIN fragments of fs bytes.
 */
static inline u64 nck_agg_dn_window(const struct nck_comm *c, u32 fs)
{
	u32 bytes = NCK_AGG_DN_BYTES;

	if (nck_comm_congested(c))
		bytes /= 4;
	return max(bytes, NCK_AGG_DN_MIN * fs);
}

/*
 * Fragments one timeout or one request may resend.  While our own link's
 * queue overflows (nck_comm_congested()), a few: a burst of 64 into a
 * queue that takes a dozen is mostly refused, and the answers the device
 * refused crowd out the next asker's (docs/agg-design.md, "Repetition").
 * 8 per asker and round trip still fill such a link.  No more than a
 * window (nck_window_frags()): 64 jumbo fragments are 570 KB.
 */
static inline u32 nck_agg_burst(const struct nck_comm *c,
				const struct nck_agg_op *op)
{
	return nck_comm_congested(c) ? NCK_AGG_BURST_CONGESTED :
	       min(NCK_AGG_BURST, op->window);
}

/*
 * The communicator's transmit queue (frame.h), under c->lock and after it:
 * the calls are skipped when there is nothing to queue or send (most
 * fragments a leaf receives make no frame).
 */
static inline void nck_agg_queue_out(struct nck_comm *c,
				     struct sk_buff_head *txq)
{
	if (!skb_queue_empty(txq))
		nck_frames_queue(c, txq);
}

static inline void nck_agg_push_out(struct nck_comm *c)
{
	if (!skb_queue_empty_lockless(&c->txq))
		nck_frames_push(c);
}

/* Fragment k of piece p's result is here (to pass on). */
static inline bool nck_agg_have_frag(const struct nck_comm *c,
				     const struct nck_agg_piece *p, u32 k)
{
	return nck_agg_is_root(c, p) ? test_bit(k, p->ready) :
				       nck_frags_test(&p->res, k);
}

/*
 * No longer behind: send the acks held for op's children.  Called for
 * every frame, and mostly none is held: the test is inline.
 */
static inline void nck_agg_acks_release(struct nck_comm *c,
					struct nck_agg_op *op,
					struct sk_buff_head *txq)
{
	if (op->acks_held)
		nck_agg_acks_release_held(c, op, txq);
}

#endif /* NCK_AGG_OP_H */

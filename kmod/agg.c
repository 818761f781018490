// SPDX-License-Identifier: GPL-2.0
/*
 * The aggregation engine: reduce, allreduce and barrier on trees, run by
 * the receive path.
 *
 * A rank's process only posts its contribution (nck_agg_start) and later
 * collects the result (nck_agg_wait).  Everything in between happens in
 * softirq, in the receive handler and a timer: a node holds its children's
 * fragments until it has all of them, combines its own data with theirs
 * in ascending child rank order, sends the partial result to its parent,
 * and at the root the result goes out again, down the tree or to the
 * communicator's multicast group.  A process that is descheduled after
 * posting therefore does not stall the tree (Yu et al., SC'03, 3.1), and
 * the result is bit-identical on every rank and every run whatever the
 * arrival order (as SHARP's fixed order).
 *
 * A broadcast (NETCOLL_RED_BCAST) is the second half alone: the root's
 * data is the result from the start, on a tree rooted at it that the
 * operation builds for itself; its data piece sends nothing up, and the
 * inner ranks forward in the receive path as for a result.  The data may
 * reach a rank before its process posts: its first frame starts the
 * broadcast there (nck_agg_early_bcast()), which forwards at once, and the
 * process takes the operation over when it posts (its frames name the
 * root in their tag: NETCOLL_AGG_TAG).
 * A second, empty piece runs as a barrier's contribution (each rank's
 * fragment asks its parent for an ack at once): a rank is done when it
 * has the data and its parent has its empty fragment, so the root is done
 * only when every rank has started the broadcast.  That keeps the window
 * of outstanding operations true for broadcasts too: a root cannot run
 * ahead of ranks that may still ask it for repairs.
 *
 * Vectors are cut into pieces (vector split: piece j runs on tree j) and
 * pieces into fragments of the device MTU, so a large vector is pipelined
 * through the tree fragment by fragment.
 *
 * Reliability is the core's (rel.h), in both directions:
 *  - up: a piece's partial result is a message from child to parent.  The
 *    parent keeps a fragment set per child and acks as the core says (every
 *    NCK_ACK_EVERY fragments, on holes, duplicates and request), before
 *    its process posted too (the core's early books); the child resends
 *    holes its selective acks show lost (the path's reordering threshold,
 *    rel.c), again when a later transmission arrived first (RACK), and
 *    on its retransmission timeout
 *    probes: the first fragment missing and the newest an ack can show
 *    (nck_frags_probe, as the transport's tail-loss probe), whose ack
 *    shows the rest.  It resent up to NCK_AGG_BURST fragments there
 *    before: a timeout here is mostly a parent busy elsewhere (5 hosts
 *    on 2 CPUs, 5 allreduces of 128 KiB: the children's timeouts resent
 *    513-932 of their 1840 fragments), and an ack shows what is lost.
 *    The result arriving later acks everything implicitly, so a
 *    one-fragment allreduce costs one frame per tree edge and no acks:
 *    a child's part of a piece of at most NCK_AGG_DN_FRAGS fragments (a
 *    result that goes down at once) is not acked when it is whole (the
 *    core's end_by_reply), only every NCK_ACK_EVERY fragments, when it
 *    asks (a round-trip probe, a timeout's probe, a broadcast's empty
 *    piece, which its parent's ack finishes) or shows a hole.  With an
 *    ack for each, 8 hosts on 2 CPUs sent 46 frames per allreduce of 8 B
 *    and its barrier instead of 29, and took 1.5x as long; at 16 KiB
 *    (4 pieces of 3 fragments) 232-246 instead of 186, 43 of them acks.
 *    A larger piece's end is acked: its result is far behind it.
 *  - down: the result is a message from the root (multicast) or the
 *    parent (down the tree).  A rank whose result shows a hole sends the
 *    sender its set's ack (AGG_NACK) for the holes below the fragment
 *    that showed them, once they are a round trip old (reordered
 *    fragments come sooner: nck_agg_hole_wait); holes still missing a
 *    retransmission timeout later are asked for again, in a new round, by
 *    the next fragment that arrives; a result still missing when the timer
 *    fires is asked for whole.  The missing fragments come by unicast.
 *    With multicast distribution that is the repair path: the fast path
 *    stays one frame per result fragment.  SHARP sends every result twice
 *    (UD multicast and RC); on a software switch that doubles the per-host
 *    frame cost for a loss that is rare, so we repair on demand instead.
 *    A result of more than NCK_AGG_DN_FRAGS fragments going down the tree
 *    is also a windowed message: each child acks it as the parent does
 *    fragments going up (AGG_ACK with NETCOLL_F_RESULT; its requests
 *    ack too), and a sender has at most NCK_AGG_DN_BYTES of results
 *    unacked at its children (nck_agg_push_down).  What an ack shows
 *    lost goes again at once (the core's fast retransmission and RACK,
 *    with the down direction's own reordering threshold);
 *    a child's timeout gets the oldest fragment it lacks, if that went
 *    longer ago than the down direction's own round trip (queues
 *    included) allows, else only "alive".  Sent all at once, a 1 MiB
 *    broadcast on 100 Mbit/s cables overflowed the senders' queues: 4600
 *    frames refused there, 9000 repairs.
 *  - timing: the round trip of fragments going up gives the
 *    retransmission timeout, as for the alltoall transport, but without
 *    its tail-loss probes.  Timed are the parent's acks of data whose
 *    cumulative point moved because the newest fragment it passes came
 *    (sent once: Karn; at most one ack interval: not a held ack; not the
 *    answer to a request), and a probe now and then that asks for an ack
 *    at once.  Timed from probes and header-only answers alone (control
 *    frames pass the queued fragments), the timeout was 2-7 ms while a
 *    fragment queued behind its siblings on a shared 100 Mbit/s link was
 *    acked 10-80 ms after it went.  Timing the data's acks cut the
 *    timeouts of 16-host allreduces 2-5x, and on 6.12-rt the resent share
 *    of a clean network's 128 KiB allreduces from 6-8 % to 2 %.  (Their
 *    15-16 % duplicates stayed: repairs send most.)  A child's answer to the
 *    root's request is timed only while there is no estimate.  The root sends
 *    nothing up: it times its requests to children that owe fragments,
 *    not one that went again before an answer (Karn); without, its timer
 *    ran at rto_min_ms and asked its children every tick.  Tried:
 *    probing the fragments going up at 2 SRTT made 128 KiB allreduces
 *    under 10 % loss slower (median of four runs 5.1 s against 3.1 s),
 *    asking for the result as well made them 10x slower under CPU noise:
 *    at 2 SRTT a rank here mostly waits for a slower subtree, not for a
 *    lost frame.  A rank asked about an operation it has not
 *    finished answers with an ack, so slow but alive peers reset the
 *    retry count; only the operation's time budget then ends the wait.
 *    A rank whose children owe fragments asks them on its timeout (its
 *    ack with ACK_NOW), so a late subtree is told apart from a dead one
 *    too.  Requests do not count as life (a child asking for the
 *    result, a parent asking us say nothing of the peers we wait for),
 *    so a dead child's silence climbs the tree and reaches every rank
 *    after a few retry periods, not the whole budget.
 *  - repetition: a frame whose loss nothing later would reveal costs a
 *    timeout, many times a round trip: the fragments of a small operation
 *    (pieces of one or two fragments: the operation is one round trip),
 *    the last fragment of a piece to leave a rank, and every frame sent
 *    to make up for a loss (retransmissions an ack showed needed, repairs,
 *    fragments a peer asked for before this rank had them; not a
 *    timeout's probe, which is mostly late frames).  So once a rank has
 *    had to repair (it resent what an ack showed lost, or asked, or was
 *    asked: a loss, or a peer slower than the timeout -- one fragment
 *    cannot tell them apart; a large result asked for by a rank that has
 *    none of it, or a windowed one, whose acks show its losses, is late,
 *    not lost: nck_agg_late()) it sends those frames twice, back to back,
 *    for the next NCK_AGG_REPEAT_OPS operations; the first-time fragments of larger
 *    pieces still go once, their losses show as holes.  A request on a
 *    timeout and the repair answering it start repetition but do not
 *    prolong it (nck_agg_saw_timeout), and while nothing is repeated an
 *    operation waits out how long its kind takes before it times out
 *    (nck_agg_rtx_restart).  Where no
 *    operation ever times out nothing is repeated; a copy that arrives
 *    second is an ordinary duplicate (a parent answers it with an ack, a
 *    result copy is dropped).  A frame more is cheap next to a timeout:
 *    with lost requests asked again, 128 KiB allreduces under 5
 *    and 10 % loss per cable took 1.6x less time.  Not while our own
 *    link's queue overflows (nck_comm_congested()): those losses come
 *    from sending faster than a slow cable takes, and copies lost more --
 *    64 KiB allreduces over a tree with 10 Mbit/s cables among 100 Mbit/s
 *    ones timed out after a few operations.
 *
 * Outstanding operations: a rank starts operation s only when its
 * operation s - OSO is finished (callers sleep, they do not fail).  Hence
 * when any rank starts s, every rank finished s - 2 * OSO (it started
 * s - OSO), which makes a ring of 2 * OSO slots enough.  Frames of
 * operations not started yet wait in c->agg.early (the core's early
 * frames).
 *
 * Lifetime of an operation (struct nck_agg_op): two references.
 *  - its slot (the engine's): taken when it starts, dropped when it leaves
 *    the slot.  A finished operation stays to answer repair requests of
 *    slower peers.  It leaves when its sequence comes round again, when
 *    memory is needed (nck_agg_reclaim), when its endpoint closed and its
 *    deadline passed (the peers' time budget is spent too: nobody asks
 *    any more), when it is cancelled, or when the communicator is freed;
 *  - its poster's (the endpoint's table, endpoint.c): dropped by
 *    nck_agg_release() once the result was collected, or when the endpoint
 *    closes (which cancels it if it has not finished).
 * The last nck_agg_op_put() frees it, in whatever context.  Frames it holds
 * are charged to the communicator's receive memory, its buffers to the
 * communicator's posted memory; both are given back by that free.
 *
 * Locking: everything here is under comm->lock.  Frames are built under
 * it, moved to the communicator's transmit queue before it is released
 * and sent after (nck_frames_queue/push, frame.h): the process, the
 * receive path and the timer build frames at once on different CPUs, and
 * they must leave in the order they were built.
 */
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/uaccess.h>

#include "bearer.h"
#include "event.h"
#include "frame.h"
#include "reduce.h"
#include "rel.h"
#include "tree.h"
#include "shared/nc_reduce.h"

#define NCK_AGG_BURST		64	/* fragments resent per nack */
#define NCK_AGG_BURST_CONGESTED	8	/* ... while our link's queue overflows */
#define NCK_AGG_DEFER_MAX	1024	/* float frames waiting for the worker */
#define NCK_AGG_ASK_SHIFT_MAX	6	/* repair backoff: rto_min_ms << 6 */
#define NCK_AGG_PROBE_EVERY	16	/* ops between round-trip probes */
#define NCK_AGG_REPEAT_OPS	64	/* operations sent twice after a loss */
#define NCK_AGG_REPEAT_FRAGS	2	/* ... if their pieces are that small */
#define NCK_AGG_OP_RTO_MIN_MS	10	/* an unwindowed operation's timeout */
#define NCK_AGG_DN_FRAGS	16	/* larger results go down in a window */
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
	refcount_t ref;		/* slot and poster, see the top */
	u32 seq;
	bool started, complete;
	bool released;		/* the poster let go (collected or closed) */
	bool unposted;		/* a broadcast its data started: no poster yet */
	bool progress;		/* an ack being applied acked something */
	unsigned long linger_until;	/* its endpoint closed: leave then */
	u64 charge;		/* bytes of c->mem_used */
	u32 repair_budget;	/* fragments this op may still resend on nacks */
	bool again;		/* frames going out are sent again */
	bool dn_done;		/* every child has its whole result: push_down */
	u32 acks_held;		/* children's acks held (rel.h flow control) */
	int err;
	u16 opcode;
	u32 op, dtype, flags, root, fs;
	u64 bytes;
	u8 *buf;		/* contribution, partial result, result */
	bool buf_inline;	/* buf is after piece[] (nck_agg_prepare) */
	void __user *ubuf;	/* where the result goes */
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

static void nck_agg_early_rescan(struct nck_comm *c);

static u32 nck_agg_window(const struct nck_comm *c)
{
	return 2 * c->agg.oso;
}

static struct nck_agg_op *nck_agg_find(struct nck_comm *c, u32 seq)
{
	struct nck_agg_op *op = c->agg.slot[seq % nck_agg_window(c)];

	lockdep_assert_held(&c->lock);
	return op && op->seq == seq ? op : NULL;
}

static bool nck_agg_is_root(const struct nck_comm *c,
			    const struct nck_agg_piece *p)
{
	return p->parent == c->rank;
}

static u32 nck_agg_frag_len(const struct nck_agg_op *op,
			    const struct nck_agg_piece *p, u32 k)
{
	u32 off = k * op->fs;

	return p->len ? min(op->fs, p->len - off) : 0;
}

static bool nck_agg_tree_dist(const struct nck_agg_op *op)
{
	return !(op->flags & NETCOLL_RED_MCAST);
}

static bool nck_agg_bcast(const struct nck_agg_op *op)
{
	return op->flags & NETCOLL_RED_BCAST;
}

/*
 * Is a child's part of a piece of nfrags fragments acked at its end by the
 * result alone (see "up" at the top)?  Yes if its result goes down at
 * once, not in a window.  A broadcast's empty piece is finished by its
 * parent's ack, but its fragment asks for it (ACK_NOW).
 */
static bool nck_agg_end_by_result(u32 nfrags)
{
	return nfrags <= NCK_AGG_DN_FRAGS;
}

/* The same for an early frame's message (the books' policy, rel.h). */
static bool nck_agg_end_by_reply(const struct nc_frame *f)
{
	return nck_agg_end_by_result(nc_wire_nfrags(f->msg_len, f->frag_size));
}

/* The tag of op's frames of piece p: a broadcast's name its root too. */
static u16 nck_agg_tag(const struct nck_agg_op *op,
		       const struct nck_agg_piece *p)
{
	BUILD_BUG_ON(NETCOLL_AGG_TAG(NETCOLL_TREES_MAX - 1,
				     NETCOLL_COMM_SIZE_MAX - 1) > U16_MAX);
	return NETCOLL_AGG_TAG(p - op->piece,
			       nck_agg_bcast(op) ? op->piece[0].root : 0);
}

/*
 * Is our own part of piece p in?  Not yet for the empty piece of a
 * broadcast whose data started it: that fragment says our process posted.
 */
static bool nck_agg_own_in(const struct nck_agg_op *op,
			   const struct nck_agg_piece *p)
{
	return op->started && !(p->bsync && op->unposted);
}

/*
 * Does a piece of len bytes in nfrags fragments go down in a window (see
 * the top)?  Every rank decides alike: the sender windows, the receiver
 * acks.  Small results go at once: one round trip, nothing to pace.
 */
static bool nck_agg_windowed(const struct nck_agg_op *op, u32 len, u32 nfrags)
{
	return nck_agg_tree_dist(op) && (op->flags & NETCOLL_RED_ALL) && len &&
	       nfrags > NCK_AGG_DN_FRAGS;
}

/*
 * Bytes of results a rank may have in flight to its children, every
 * operation, piece and child together (they share our link):
 * NCK_AGG_DN_BYTES, a quarter of it while our link's queue overflows
 * (nck_comm_congested()); at least NCK_AGG_DN_MIN fragments of fs bytes.
 */
static u64 nck_agg_dn_window(const struct nck_comm *c, u32 fs)
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
 * refused crowd out the next asker's.  On a 10 Mbit/s inner node with
 * three children, 64 KiB allreduces then took so many rounds that about
 * one run of 20 in 8 spent the repair budget and timed out; with bursts
 * of 8 the node's device refused 2.5x fewer frames and no run of 16 timed
 * out.  8 per asker and round trip still fill such a link.
 */
static u32 nck_agg_burst(const struct nck_comm *c)
{
	return nck_comm_congested(c) ? NCK_AGG_BURST_CONGESTED : NCK_AGG_BURST;
}

/* ---------------------------------------------------------------- */
/* Life of an operation                                              */
/* ---------------------------------------------------------------- */

static void nck_agg_op_free(struct nck_comm *c, struct nck_agg_op *op)
{
	u32 j, i;

	for (j = 0; j < op->npieces; j++) {
		struct nck_agg_piece *p = &op->piece[j];

		if (p->held)
			for (i = 0; i < p->nchildren * p->nfrags; i++)
				if (p->held[i])
					nck_rx_free(c, p->held[i]);
		for (i = 0; p->got && i < p->nchildren; i++)
			nck_frags_free(&p->got[i]);
		for (i = 0; p->dn && i < p->nchildren; i++)
			nck_frags_free(&p->dn[i]);
		kvfree(p->dn);
		kfree(p->dn_next);
		nck_frags_free(&p->up);
		nck_frags_free(&p->res);
		kvfree(p->got);	/* held, ready and children too */
	}
	kvfree(op->askers);
	if (!op->buf_inline)
		kvfree(op->buf);
	nck_comm_mem_release(c, op->charge);
	kfree(op);
}

static void nck_agg_op_put(struct nck_comm *c, struct nck_agg_op *op)
{
	if (refcount_dec_and_test(&op->ref))
		nck_agg_op_free(c, op);
}

/* op leaves its slot: the engine's reference goes. */
static void nck_agg_unslot(struct nck_comm *c, struct nck_agg_op *op)
{
	struct nck_agg_op **slot = &c->agg.slot[op->seq % nck_agg_window(c)];

	lockdep_assert_held(&c->lock);
	if (*slot == op) {
		*slot = NULL;
		nck_agg_op_put(c, op);
	}
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

/* The timer fires at when (ns, CLOCK_MONOTONIC) at the latest. */
static void nck_agg_arm(struct nck_comm *c, u64 when)
{
	if (!c->dead && (!hrtimer_is_queued(&c->agg.timer) ||
			 when < ktime_to_ns(hrtimer_get_expires(&c->agg.timer))))
		hrtimer_start(&c->agg.timer, ns_to_ktime(when), HRTIMER_MODE_ABS_SOFT);
}

/* A time in jiffies (a deadline) as the timer's clock says it. */
static u64 nck_agg_when(unsigned long when)
{
	long left = when - jiffies;

	return ktime_get_ns() + (left > 0 ? jiffies_to_nsecs(left) : 0);
}

/*
 * A finished operation whose endpoint closed answers repair requests of
 * slower peers until its deadline, as long as theirs, and then leaves:
 * a closed endpoint's memory comes back without waiting for the slot to
 * be reused.
 */
static void nck_agg_linger(struct nck_comm *c, struct nck_agg_op *op)
{
	op->linger_until = op->deadline ?: 1;
	nck_agg_arm(c, nck_agg_when(op->linger_until));
}

/*
 * Operation timing.  The up direction's round trip times a hop, but a
 * rank that sent its part waits for the whole tree: the slowest rank's
 * posting and every level up and down.  On a slow guest an 8 B allreduce
 * on 8 hosts took 1.6-2.7 ms at the median against a 2 ms timeout: 1.7
 * timeouts per operation, each asking for the result and so repeating
 * the next NCK_AGG_REPEAT_OPS operations (76 frames per allreduce
 * instead of 28, 1.3-1.6x the time).  So an operation's timeout is at
 * least what operations of its size took here (SRTT + 4 RTTVAR), and at
 * least NCK_AGG_OP_RTO_MIN_MS, the reductions' smallest timeout before
 * the core: every rank's process must run, and on a busy guest (HZ=250)
 * a woken one waits a tick or more.  With the estimate alone 46 of 100
 * such allreduces still timed out somewhere and kept repeating (64
 * frames); with the floor 5 (32 frames, the time before the core).  A
 * lost frame of a small operation waits longer, but repetition covers
 * most.  Windowed results have acks in both directions and broadcasts
 * their own pace: not timed, their losses keep the short timeout.
 */
static s8 nck_agg_op_class(const struct nck_agg_op *op)
{
	u32 j, frags = 0;

	if (nck_agg_bcast(op))
		return -1;
	for (j = 0; j < op->npieces; j++) {
		if (op->piece[j].windowed)
			return -1;
		frags += op->piece[j].nfrags;
	}
	return min_t(u32, fls(frags), NCK_AGG_OP_CLASSES - 1);
}

/*
 * Karn's rule, where it applies: an operation that timed out is not timed
 * if what ended it may have been the answer to our request (a repair), as
 * a retransmitted segment is not.  It is timed when the wait was for a
 * slower rank: a peer we asked answered that it is alive but not done
 * (late), and we neither resent nor asked again for anything lost
 * (lost).  Without that, the operations that waited for a descheduled
 * process -- all that time out under CPU load -- were never timed, the
 * estimate kept the quick ones' time and the timeout its 10 ms floor:
 * on 8 hosts sharing one vCPU with 2 spinners each (6.12), 200 16 KiB
 * allreduces, each after a barrier, timed out 8000 times (3200
 * operation-ranks), every timeout a request that turned on repetition:
 * 86366 frames, p50 24.7 ms.  Timed so: 971 timeouts, 44522 frames, p50
 * 10.0 ms.  The first sample is taken whatever it is: else none might
 * ever be.
 */
static void nck_agg_time_op(struct nck_comm *c, struct nck_agg_op *op)
{
	struct nck_rtt *r;

	if (op->op_class < 0)
		return;
	r = &c->agg.op_rtt[op->op_class];
	if (r->srtt_us && (op->lost || (op->expired && !op->late)))
		return;
	nck_rtt_sample(r, min_t(u64, div_u64(ktime_get_ns() - op->t0_ns,
					     NSEC_PER_USEC), U32_MAX / 8));
}

static void nck_agg_complete(struct nck_comm *c, struct nck_agg_op *op, int err)
{
	lockdep_assert_held(&c->lock);

	if (op->complete)
		return;
	op->complete = true;
	op->err = err;
	/*
	 * A started operation that failed may have run on some ranks and not
	 * on others: the ranks' sequences of operations can disagree from
	 * here on, so none may run again (see nck_comm_break).
	 */
	if (err) {
		nck_comm_break(c);
	} else {
		nck_stat_inc(c->nn, NETCOLL_STAT_AGG_OPS);
		nck_agg_time_op(c, op);
		nck_agg_early_rescan(c);	/* the OSO window moved */
	}
	/*
	 * The timer stays armed: its callback re-arms only for unfinished
	 * and lingering operations, so it runs at most once more.  Stopped
	 * here and started again by the next operation it cost every rank a
	 * start and a cancel per operation: 3000 8 B allreduces and their
	 * barriers on 8 hosts (one vCPU) started it 48134 times and ran
	 * 1.6 % more instructions (p50 2.6 % longer); left armed it ran 3641
	 * times (an operation's timeout is NCK_AGG_OP_RTO_MIN_MS or more).
	 */
	wake_up_all(&c->agg.wq);
}

/* Is op among the operations repetition covers (see the top)? */
static bool nck_agg_repeats_op(const struct nck_comm *c,
			       const struct nck_agg_op *op)
{
	return c->agg.repeating && nck_seq_before(op->seq, c->agg.repeat_until);
}

/*
 * The timeout's floor: while nothing is repeated, the operation's own
 * estimate.  While repetition is on a loss was seen lately, and a
 * timeout is mostly one more (both copies lost): the hop's estimate
 * alone (no floor), else 100 allreduces of 1 KiB under 10 % loss took
 * 2.6 s instead of 1.3.
 */
static u64 nck_agg_rto_floor(const struct nck_comm *c,
			     const struct nck_agg_op *op)
{
	const struct nck_rtt *r;
	u64 floor;

	if (op->op_class < 0 || nck_agg_repeats_op(c, op))
		return 0;
	r = &c->agg.op_rtt[op->op_class];
	floor = (u64)min(NCK_AGG_OP_RTO_MIN_MS, nck_rto_max_ms) * NSEC_PER_MSEC;
	return r->srtt_us ? max(floor, nck_rtt_rto(r)) : floor;
}

/* The timer restarts from the hop's estimate, at least the floor. */
static void nck_agg_rtx_restart(struct nck_comm *c, struct nck_agg_op *op)
{
	nck_rtx_progress(&op->rtx, &c->agg.rtt, nck_agg_rto_floor(c, op));
}

/* Something new arrived or was acked: the timer restarts from the estimate. */
static void nck_agg_progress(struct nck_comm *c, struct nck_agg_op *op)
{
	nck_agg_rtx_restart(c, op);
	nck_agg_arm(c, op->rtx.at);
}

/* ---------------------------------------------------------------- */
/* Frames out                                                        */
/* ---------------------------------------------------------------- */

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

/* What op sent went missing, or what it waits for: a loss (see above). */
static void nck_agg_saw_loss(struct nck_comm *c, struct nck_agg_op *op)
{
	op->lost = true;
	nck_agg_repeat(c, op);
}

/*
 * A request on a timeout, or the repair that answers it: a loss, or a
 * rank slower than the timeout.  It starts repetition but does not
 * prolong it: while repeating the timeout is the hop's, and a slow rank
 * would keep repetition on for ever (on 8 hosts of a slow guest: 43-57
 * frames per small allreduce instead of 31).
 */
static void nck_agg_saw_timeout(struct nck_comm *c, struct nck_agg_op *op)
{
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

/* Is op inside the window of repetition a loss opened (see the top)? */
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
 * full queue refused are given back: nck_agg_flush_rcv()).
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
static unsigned int nck_agg_send_frag(struct nck_comm *c,
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

/* AGG_ACK or AGG_NACK of a piece (tag: nck_agg_tag()): a fragment set's ack. */
static void nck_agg_send_ctl(struct nck_comm *c, u32 seq, u16 type, u32 dst,
			     u16 tag, u32 cum, u32 sack, u16 flags,
			    struct sk_buff_head *txq)
{
	struct sk_buff *skb;

	skb = nck_ctl_frame(c, type, seq, dst, tag, cum, sack, flags, 0);
	if (skb)
		nck_frame_defer(txq, skb, dst);
}

/*
 * Tell child ci which of its fragments of piece p we have (flags
 * NETCOLL_F_ACK_NOW: and ask it to answer).
 */
static void nck_agg_ack_child(struct nck_comm *c, struct nck_agg_op *op,
			      struct nck_agg_piece *p, u32 ci, u16 flags,
			     struct sk_buff_head *txq)
{
	u32 cum, sack;

	nck_frags_unhold_ack(&p->got[ci], &op->acks_held);
	nck_frags_summary(&p->got[ci], &cum, &sack);
	nck_agg_send_ctl(c, op->seq, NETCOLL_T_AGG_ACK, p->children[ci],
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
 */
static void nck_agg_answer_child(struct nck_comm *c, struct nck_agg_op *op,
				 struct nck_agg_piece *p, u32 ci, u16 flags,
				struct sk_buff_head *txq)
{
	if (nck_rx_behind(c) && nck_agg_child_waits(p, ci)) {
		nck_frags_hold_ack(c, &p->got[ci], &op->acks_held);
		nck_agg_send_ctl(c, op->seq, NETCOLL_T_AGG_ACK, p->children[ci],
				 nck_agg_tag(op, p), 0, 0, flags, txq);
	} else {
		nck_agg_ack_child(c, op, p, ci, flags, txq);
	}
}

static void nck_agg_acks_release_held(struct nck_comm *c,
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
 * 6.2).  Asked at once, each result fragment the two vCPUs of a guest
 * delivered out of order cost a request, a repair and 64 operations of
 * repetition: on 8 hosts, 450 allreduces of 16 KiB (4 pieces of 3
 * fragments) asked for holes 16-55 times and sent 216-229 frames each
 * (186 before the core, which asked on its timeout alone); waiting one
 * round trip, 6-7 times and 210-214 frames.  A quarter of it (RACK's
 * first window) was too short for this reordering.  Under 5 % and 10 %
 * loss small allreduces took as long as before.
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
static void nck_agg_ask_holes(struct nck_comm *c, struct nck_agg_op *op,
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
	nck_agg_saw_loss(c, op);
	/* no further than the request's map can tell what we have */
	below = min(below, from + 1 + NETCOLL_NACK_MAP_MAX * 8);
	nck_agg_send_nack(c, op, p, &p->res, from, below, round, txq);
}

/* The timer at op->hole_at: ask for the holes old enough now. */
static void nck_agg_ask_waited(struct nck_comm *c, struct nck_agg_op *op,
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
 * A rank asks on its timeout for a large result it has none of (had: it
 * has some): its timer ran before the result came, behind a slower
 * subtree, so that is late, not lost, and neither side starts repeating
 * (nck_agg_saw_loss) for it -- else every early ask, frequent without
 * any loss under CPU load, doubled the frames of the next operations.
 * A windowed one is late even with some of it: its acks show a loss.
 * A small piece cannot tell late from lost (one fragment): it repeats.
 */
static bool nck_agg_late(const struct nck_agg_piece *p, bool had)
{
	/* windowed: acks and fast retransmit find its losses */
	return p->windowed || (!had && p->nfrags > NCK_AGG_REPEAT_FRAGS);
}

/* Ask the sender of piece p's result for everything missing (timeout). */
static void nck_agg_ask(struct nck_comm *c, struct nck_agg_op *op,
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
	if (!nck_agg_late(p, p->res.count))
		nck_agg_saw_timeout(c, op);
	nck_agg_send_nack(c, op, p, data ? &p->res : NULL, from, 0, 0, txq);
}

/* ---------------------------------------------------------------- */
/* Progress                                                          */
/* ---------------------------------------------------------------- */

static void nck_agg_piece_check(struct nck_comm *c, struct nck_agg_op *op,
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

/* Fragment k of piece p's result is here (to pass on). */
static bool nck_agg_have_frag(const struct nck_comm *c,
			      const struct nck_agg_piece *p, u32 k)
{
	return nck_agg_is_root(c, p) ? test_bit(k, p->ready) :
				       nck_frags_test(&p->res, k);
}

/*
 * Bytes of op's windowed results sent to children and not acked.  Once
 * every child has acked its whole result nothing is left to send or wait
 * for: op->dn_done, and nck_agg_push_down() passes it by from then on.
 * It ran over every operation of the window on every frame received, the
 * finished ones too, and was the module's costliest function (7 % of the
 * guest's time in 4 MiB allreduces on 16 hosts).
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
 * operation first.  A large result went into our device's queue whole
 * before, once per child: 1 MiB broadcasts on 100 Mbit/s cables lost
 * about 4600 frames each there and needed 9000 repairs.  One window for
 * every operation: broadcasts back to back are in flight together.  An
 * inner rank forwards in order: a fragment lost on its way here holds
 * its children back one repair's round trip, not a timeout.
 */
static void nck_agg_push_down(struct nck_comm *c, struct sk_buff_head *txq)
{
	u32 w = nck_agg_window(c), seq = c->agg.next - w, s;
	struct nck_agg_op *op;
	u64 n = 0, window = 0;

	lockdep_assert_held(&c->lock);
	for (s = 0; s < w; s++) {
		op = nck_agg_find(c, seq + s);
		if (op && !op->dn_done) {
			n += nck_agg_dn_inflight(op);
			window = nck_agg_dn_window(c, op->fs);
		}
	}
	for (s = 0; s < w && n < window; s++) {
		op = nck_agg_find(c, seq + s);
		if (op && !op->err && !op->dn_done)
			nck_agg_push_op(c, op, &n, window, txq);
	}
}

/* What a resend to child ci of piece p needs. */
struct nck_agg_dn_ctx {
	struct nck_comm *c;
	struct nck_agg_op *op;
	struct nck_agg_piece *p;
	u32 ci;
	struct sk_buff_head *txq;
	bool lost;	/* its ack showed it lost (not its timer's ask) */
};

/*
 * Resend result fragment k to child ci: its ack showed it lost, or its
 * timer asked.  From the operation's repair budget, like every repair.
 */
static int nck_agg_resend_down(void *arg, u32 k)
{
	struct nck_agg_dn_ctx *x = arg;
	struct nck_agg_op *op = x->op;

	if (!op->repair_budget)
		return -ENOBUFS;
	op->repair_budget--;
	if (x->lost)
		nck_agg_saw_loss(x->c, op);
	/*
	 * Twice while repeating (see the top): RACK finds a lost resend only
	 * once a later fragment is acked, and a window full of holes sends
	 * none -- 1 MiB allreduces under 10 % loss per cable took 2.6x as
	 * long with resends sent once.
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
static void nck_agg_dn_acked(struct nck_comm *c, struct nck_agg_op *op,
			     struct nck_agg_piece *p, int ci, u32 cum,
			     u32 sack, bool sample, struct sk_buff_head *txq)
{
	struct nck_agg_dn_ctx x = { c, op, p, ci, txq, true };
	u32 sacked, before, us;
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
	 * a child asks on its timer, so the wait would be its timeout's.
	 */
	before = p->dn[ci].cum;
	if (cum > p->dn_next[ci]) {	/* more than we sent: nothing to learn */
		cum = p->dn_next[ci];
		sack = 0;
	}
	timed = sample && cum > before &&
		find_next_bit(p->dn[ci].bits, cum, before) >= cum;
	sacked = nck_frags_ack(&p->dn[ci], cum, sack, p->dn_next[ci], NULL,
			       NULL);
	if (timed) {
		us = nck_frags_age_us(&p->dn[ci], cum - 1, &resent);
		if (!resent)
			nck_rtt_sample(&c->agg.dn_rtt, us);
	}
	nck_frags_fast_retransmit(c, &p->dn[ci], sacked, &c->agg.dn_rtt,
				  nck_agg_resend_down, &x);
}

/* A windowed result: tell its sender which fragments we hold. */
static void nck_agg_ack_result(struct nck_comm *c, struct nck_agg_op *op,
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
	nck_agg_send_ctl(c, op->seq, NETCOLL_T_AGG_ACK, p->src, nck_agg_tag(op, p),
			 cum, sack, NETCOLL_F_RESULT, txq);
}

static void nck_agg_to_children(struct nck_comm *c, struct nck_agg_op *op,
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
static void nck_agg_push_up(struct nck_comm *c, struct nck_agg_op *op,
			    struct nck_agg_piece *p, struct sk_buff_head *txq)
{
	u32 window = max(nck_tx_window, 1U), inflight = 0, j;
	u16 flags;

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
static void nck_agg_push_all(struct nck_comm *c, struct nck_agg_op *op,
			     struct sk_buff_head *txq)
{
	u32 j;

	for (j = 0; j < op->npieces; j++)
		if (!nck_agg_is_root(c, &op->piece[j]))
			nck_agg_push_up(c, op, &op->piece[j], txq);
}

/* Combine fragment k of piece p once our own data and every child's are in. */
static void nck_agg_try(struct nck_comm *c, struct nck_agg_op *op,
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
static void nck_agg_up_acked(struct nck_comm *c, struct nck_agg_op *op,
			     struct nck_agg_piece *p, u32 k)
{
	if (k >= p->up_next || !nck_frags_set(&p->up, k))
		return;
	op->progress = true;
	if (op->probe == p && op->probe_k == k)
		op->probe = NULL;
}

/* ---------------------------------------------------------------- */
/* Frames in                                                         */
/* ---------------------------------------------------------------- */

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
	if (skb_linearize(skb)) {
		nck_stat_inc(c->nn, NETCOLL_STAT_DROP_MEMORY);
		goto drop;
	}
	if (!nck_rx_charge(c, skb)) {
		if (!nck_agg_completes(op, p, ci, f->seq)) {
			nck_stat_inc(c->nn, NETCOLL_STAT_DROP_MEMORY);
			goto drop;
		}
		nck_rx_charge_force(c, skb);	/* combined and freed below */
	}
	v = nck_frags_receive(&p->got[ci], f->seq, f->flags & NETCOLL_F_ACK_NOW);
	p->held[ci * p->nfrags + f->seq] = skb;
	nck_agg_progress(c, op);
	/*
	 * A fragment that asks (a round-trip probe) is answered before the
	 * result it may complete: the result acks it too, but without a
	 * round-trip sample (nck_agg_up_acked), and a child that is always
	 * the last to post (ranks of one vCPU post in turn) never got one
	 * and asked on every operation: 8 B allreduces on 8 hosts sent
	 * 8478 acks in 3000 operations instead of 2838, 2.5 % slower.
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
		/* Done: every fragment we sent up arrived. */
		if (p->done_mark)
			goto dup;
		p->done_mark = true;
		for (k = 0; k < p->up_next; k++)
			nck_agg_up_acked(c, op, p, k);
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
	else if (nck_frags_receive(&p->res, k, false) == NCK_RX_NEW_ACK)
		nck_agg_ack_result(c, op, p, txq);
	nck_agg_up_acked(c, op, p, k);
	nck_agg_progress(c, op);
	nck_agg_push_all(c, op, txq);
	if (p->windowed)
		nck_agg_push_down(c, txq);
	else if ((op->flags & NETCOLL_RED_ALL) && nck_agg_tree_dist(op))
		nck_agg_to_children(c, op, p, k, false, txq);
	nck_agg_piece_check(c, op, p);
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

/* What an ack from the parent is applied to. */
struct nck_agg_ack_ctx {
	struct nck_comm *c;
	struct nck_agg_op *op;
	struct nck_agg_piece *p;
	struct sk_buff_head *txq;
	bool lost;	/* an ack showed them lost (not a timeout's guess) */
};

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
static int nck_agg_resend_up(void *arg, u32 k)
{
	struct nck_agg_ack_ctx *x = arg;

	if (x->op->probe == x->p && x->op->probe_k == k)
		x->op->probe = NULL;	/* Karn: its ack would be ambiguous */
	/*
	 * A timeout's probe is mostly late, not lost: it turns no
	 * repetition on and is not doubled as resent.
	 */
	if (x->lost)
		nck_agg_saw_loss(x->c, x->op);
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
		nck_agg_send_ctl(c, op->seq, NETCOLL_T_AGG_ACK, p->parent,
				 nck_agg_tag(op, p), 0, 0, 0, txq);
	else if (op->expired)	/* the answer to our request: not done yet */
		op->late = true;
	op->progress = false;
	/*
	 * Timed as the results going down are (nck_agg_dn_acked): the
	 * newest fragment the cumulative point passes, if it went once and
	 * the point moved because it came.  Every such ack, not one probe
	 * in NCK_AGG_PROBE_EVERY operations: a fragment queued behind its
	 * siblings on a shared 100 Mbit/s link is acked 10-80 ms after it
	 * went, and a timeout learnt from probes alone (2-7 ms) fired in
	 * the middle of transfers that were moving (see timing at the top).
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
		nck_agg_send_ctl(c, op->seq, NETCOLL_T_AGG_ACK, x, nck_agg_tag(op, p),
				 0, 0, 0, txq);
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
 * often, so none of its requests is refused (an interval as long as its
 * timer, in ticks, refused every other one: the asker doubled its timer
 * again, and a lost tail fragment cost 20-50 ms at 10 % loss), and a
 * flood gets no more than twice that.
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
 * The frames on txq after its first skip answer a repair request for op,
 * and the first charged of them went from its repair budget: those come
 * back if the device refuses them (nck_agg_flush_rcv).  Never more than
 * was charged (the last fragment's second copy may go past the budget).
 */
static void nck_agg_mark_repairs(const struct nck_agg_op *op,
				 struct sk_buff_head *txq, u32 skip,
				 u32 charged)
{
	struct sk_buff *skb;

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
	u32 frames = 0, burst = nck_agg_burst(c), queued;

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
	if (sent)
		nck_agg_saw_loss(c, op);	/* what we sent went missing */
	frames = min(frames, op->repair_budget);
	nck_agg_mark_repairs(op, txq, queued, frames);
	op->repair_budget -= frames;
	nck_stat_add(c->nn, NETCOLL_STAT_AGG_REPAIRS, sent);
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
	burst = op->repair_budget ? min(nck_agg_burst(c), op->repair_budget) : 1;
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
	/* what we sent x went missing (a repair within budget and rate) */
	if (!nck_agg_late(p, f->seq || memchr_inv(map, 0, f->len)))
		nck_agg_saw_timeout(c, op);
	frames = min(frames, op->repair_budget);
	nck_agg_mark_repairs(op, txq, queued, frames);
	op->repair_budget -= frames;
	nck_stat_add(c->nn, NETCOLL_STAT_AGG_REPAIRS, sent);
}

/* A rank asks: a repair request, or a parent asking a child that owes. */
static bool nck_agg_is_request(const struct nc_frame *f)
{
	return f->type == NETCOLL_T_AGG_NACK ||
	       (f->type == NETCOLL_T_AGG_ACK && (f->flags & NETCOLL_F_ACK_NOW));
}

static void nck_agg_input(struct nck_comm *c, struct nck_agg_op *op,
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
 * A frame for an operation this rank has not started: contributions and
 * a broadcast's data wait with the early frames (bounded by the receive
 * memory) until it starts.  A broadcast's data does not wait for the
 * ranks it goes to: a rank whose process posts after its data came used
 * to drop it, wait a timeout and ask for a repair -- the tail of small
 * broadcasts on busy hosts (with 8 hosts on 2 CPUs, 1 KiB broadcasts:
 * 50-300 per 200 dropped per host).
 *
 * A child's fragments are booked (nck_early_hold_booked) and acked as
 * once started: without, a child whose parent's process was late heard
 * nothing, resent its window on every timeout and then waited on it
 * closed (on 16 hosts on 2 CPUs, 128 KiB allreduces: leaves resent
 * 7600-28000 fragments per 34 operations).  While the receive memory is
 * short (nck_rx_behind()) the acks wait, as for a started operation's
 * kept fragments: the child's window closes.  A peer asking is told what
 * we keep of its fragments, or only that we are alive.
 */
static void nck_agg_early_ack(struct nck_comm *c, const struct nc_frame *f,
			      u32 cum, u32 sack, struct sk_buff_head *txq)
{
	nck_agg_send_ctl(c, f->op_seq, NETCOLL_T_AGG_ACK, f->src_rank, f->tag,
			 cum, sack, 0, txq);
}

/*
 * A broadcast's data for the next operation here, before this rank's
 * process posted it: the broadcast starts now, as if posted (the worker
 * allocates it: not in softirq), so that an inner rank forwards to its
 * subtree in the receive path whether its process runs or not.  Before,
 * the data waited with the early frames until the process posted: the
 * whole subtree waited for a process that was descheduled (16 hosts on 2
 * CPUs with 2 spinners each: broadcasts up to 4 KiB 0.26-1.00x the speed
 * of a tree over UDP sockets).  The process takes the operation over when
 * it posts (nck_agg_start); until then its empty piece (the "started"
 * barrier) waits, so the root still finishes only when every rank's
 * process posted.  One broadcast at a time is queued (the next can
 * start once this one did); it is charged to the communicator's memory as
 * a posted one, and the OSO window bounds how many there are.  The frame
 * says which broadcast (root in its tag, length, fragment size), and must
 * come from our parent in that broadcast's tree (the worker checks before
 * it allocates).  Frames of a multicast broadcast need no forwarding.
 */
static bool nck_agg_bcast_data(struct nck_comm *c, const struct nc_frame *f)
{
	u32 root = NETCOLL_AGG_TAG_ROOT(f->tag);

	return f->type == NETCOLL_T_AGG_DOWN &&
	       f->opcode == NETCOLL_OPCODE_BCAST &&
	       !(f->flags & NETCOLL_F_MCAST) && !NETCOLL_AGG_TAG_PIECE(f->tag) &&
	       f->msg_len && f->msg_len <= NETCOLL_REDUCE_MAX &&
	       root < c->size && root != c->rank;
}

/* f passed nck_agg_bcast_data(). */
static void nck_agg_early_bcast(struct nck_comm *c, const struct nc_frame *f)
{
	lockdep_assert_held(&c->lock);
	if (c->dead || c->broken || f->op_seq != c->agg.next ||
	    c->agg.early_bcast.queued)
		return;
	/* a frame the worker refused: its sender is not our parent */
	if (c->agg.early_bcast.refused && f->op_seq == c->agg.early_bcast.refused_seq &&
	    f->src_rank == c->agg.early_bcast.refused_src)
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
 * Does a broadcast's data wait among the early frames for the next
 * operation here?  Then start it (the next operation just became
 * possible: one started or finished, or a start queued for another
 * gave up).  This runs on every completion, often in softirq, and the
 * early queue of a busy root can hold thousands of fragments of later
 * reductions: it walks the queue only while early_bcast.held says
 * broadcast data may be there (set when such data is held, cleared by a
 * walk that finds none).
 */
static void nck_agg_early_rescan(struct nck_comm *c)
{
	struct sk_buff *skb;
	struct nc_frame f;

	lockdep_assert_held(&c->lock);
	if (!c->agg.early_bcast.held || c->agg.early_bcast.queued)
		return;
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
		nck_agg_early_ack(c, f, cum, sack, txq);
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
			nck_agg_early_ack(c, f, cum, sack, txq);
		return;
	}
	if (f->flags & NETCOLL_F_ACK_NOW)
		nck_agg_send_ctl(c, f->op_seq, NETCOLL_T_AGG_ACK, f->src_rank,
				 f->tag, 0, 0, 0, txq);
	if (f->type != NETCOLL_T_AGG_UP && f->type != NETCOLL_T_AGG_DOWN) {
		nck_stat_inc(c->nn, NETCOLL_STAT_DROP_STATE);
		kfree_skb(skb);
		return;
	}
	if (nck_agg_bcast_data(c, f)) {
		c->agg.early_bcast.held = true;
		nck_agg_early_bcast(c, f);
	}
	nck_early_hold(c, &c->agg.early, skb);
}

/*
 * A frame of an operation whose slot went to a newer one: a late copy
 * (retransmission, duplicate) is no error; older still is.
 */
static void nck_agg_stale(struct nck_comm *c, struct sk_buff *skb,
			  const struct nc_frame *f)
{
	u32 age = c->agg.next - f->op_seq;

	nck_stat_inc(c->nn, age <= 2 * nck_agg_window(c) ?
		    NETCOLL_STAT_RX_DUPLICATES : NETCOLL_STAT_DROP_STATE);
	kfree_skb(skb);
}

/* The device refused n repairs of operation seq: they go back to its budget. */
static void nck_agg_refund(struct nck_comm *c, u32 seq, u32 n)
{
	struct nck_agg_op *op;

	spin_lock_bh(&c->lock);		/* any context: nck_frames_push() */
	op = c->dead ? NULL : nck_agg_find(c, seq);
	if (op)
		op->repair_budget = min_t(u64, (u64)op->repair_budget + n,
					  U32_MAX);
	spin_unlock_bh(&c->lock);
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
		nck_agg_stale(c, skb, f);
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
static void nck_agg_work(struct work_struct *work)
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

/* ---------------------------------------------------------------- */
/* Timer: retransmission, repair requests, time budget               */
/* ---------------------------------------------------------------- */

/*
 * A timeout while children's fragments are missing: each child that owes
 * some gets our ack of its fragments, asking for an answer.  A child that
 * has not started the operation, or waits for its own children, answers
 * that it is alive; one whose frames were lost learns which from the ack.
 * Without it a rank waiting for a late subtree heard nothing and failed
 * after nck_max_retries timeouts (hpcc's latency section: a reduce whose
 * children were still in their ping-pongs).  Only a dead child stays
 * silent, which the retry count is for.
 */
static bool nck_agg_ask_children(struct nck_comm *c, struct nck_agg_op *op,
				 struct nck_agg_piece *p,
				struct sk_buff_head *txq)
{
	bool asked = false;
	u32 i;

	if (p->bdata)		/* a broadcast's data: nothing comes up */
		return false;
	for (i = 0; i < p->nchildren; i++)
		if (p->got[i].count < p->nfrags) {
			nck_agg_answer_child(c, op, p, i, NETCOLL_F_ACK_NOW, txq);
			asked = true;
		}
	return asked;
}

/*
 * This timeout asked children (for any piece): time the request, unless
 * one is outstanding -- then an answer could be to either (Karn).
 */
static void nck_agg_time_request(struct nck_agg_op *op)
{
	if (op->ask_ns) {
		op->ask_ns = 0;
		op->ask_again = true;
	} else if (!op->ask_again) {
		op->ask_ns = ktime_get_ns();
	}
}

static void nck_agg_retransmit(struct nck_comm *c, struct nck_agg_op *op,
			       struct sk_buff_head *txq)
{
	bool asked = false;
	u32 j;

	lockdep_assert_held(&c->lock);
	for (j = 0; j < op->npieces; j++) {
		struct nck_agg_ack_ctx x = { c, op, &op->piece[j], txq, false };
		struct nck_agg_piece *p = x.p;

		if (p->complete)
			continue;
		if (nck_agg_is_root(c, p)) {
			asked |= nck_agg_ask_children(c, op, p, txq);
			continue;
		}
		if (p->bdata) {	/* nothing went up: ask */
			nck_agg_ask(c, op, p, txq);
			continue;
		}
		if (p->up.count < p->up_next) {
			nck_frags_probe(&p->up, p->up_next, nck_agg_resend_up, &x);
			/*
			 * Everything went up, and only the result acks the
			 * last fragments: if the result was what got lost,
			 * ask for it now rather than one timeout later.
			 */
			if (p->up_next < p->nfrags)
				continue;
		} else if (p->up_next < p->nfrags) {
			nck_agg_push_up(c, op, p, txq);	/* window */
			/* or they are late */
			asked |= nck_agg_ask_children(c, op, p, txq);
			continue;
		}
		nck_agg_ask(c, op, p, txq);
	}
	if (asked)
		nck_agg_time_request(op);
}

/* Where a timed-out operation stood (dynamic debug: netcoll +p). */
static void nck_agg_debug_dump(struct nck_comm *c, struct nck_agg_op *op,
			       const char *why)
{
	u32 j, i;

	pr_debug("comm %u rank %u op %u root %u flags %#x: %s (next %u, %u retries, repair budget %u)\n",
		 c->id, c->rank, op->seq, op->root, op->flags, why,
		 c->agg.next, op->rtx.retries, op->repair_budget);
	for (j = 0; j < op->npieces; j++) {
		struct nck_agg_piece *p = &op->piece[j];

		pr_debug("comm %u rank %u op %u piece %u: %u/%u combined, %u sent, %u acked, %u result, done %d\n",
			 c->id, c->rank, op->seq, j, p->nready, p->nfrags,
			 p->up_next, p->up.count, p->res.count, p->done_mark);
		for (i = 0; i < p->nchildren; i++)
			pr_debug("  child %u: %u of %u fragments in\n",
				 p->children[i], p->got[i].count, p->nfrags);
	}
}

/*
 * What c's reductions wait for, for /proc/net/netcoll_ops (procfs.c): an
 * operation without a time budget (MPI's) never reaches
 * nck_agg_debug_dump(), so a hang is read here while it lasts.
 */
void nck_agg_show(struct seq_file *m, struct nck_comm *c)
{
	u64 now_ns = ktime_get_ns();
	u32 i, j, k;

	spin_lock_bh(&c->lock);
	seq_printf(m, "comm %u rank %u/%u: next %u posted %u oso %u queued %u early %u%s%s\n",
		   c->id, c->rank, c->size, c->agg.next, c->agg.posted,
		   c->agg.oso, skb_queue_len(&c->txq),
		   skb_queue_len(&c->agg.early), c->dead ? " dead" : "",
		   c->broken ? " broken" : "");
	for (i = 0; !c->dead && i < nck_agg_window(c); i++) {
		struct nck_agg_op *op = c->agg.slot[i];

		if (!op || (op->complete && op->released))
			continue;
		seq_printf(m, "  op %u root %u flags %#x: %s err %d retries %u timer %lld us budget %ld ms\n",
			   op->seq, op->root, op->flags,
			   op->complete ? "done, not collected" :
			   op->unposted ? "started by its data" : "running",
			   op->err, op->rtx.retries,
			   div_s64((s64)(op->rtx.at - now_ns), NSEC_PER_USEC),
			   op->deadline ? (long)(op->deadline - jiffies) * MSEC_PER_SEC / HZ : -1L);
		for (j = 0; j < op->npieces; j++) {
			struct nck_agg_piece *p = &op->piece[j];

			seq_printf(m, "    piece %u parent %u: %u/%u combined, %u sent, %u acked, %u result%s%s\n",
				   j, p->parent, p->nready, p->nfrags, p->up_next,
				   p->up.count, p->res.count,
				   p->done_mark ? ", done" : "",
				   p->complete ? ", complete" : "");
			for (k = 0; k < p->nchildren; k++) {
				seq_printf(m, "      child %u: %u in", p->children[k],
					   p->got[k].count);
				if (p->dn)	/* a windowed result going down */
					seq_printf(m, ", %u of the result acked",
						   p->dn[k].count);
				seq_putc(m, '\n');
			}
		}
	}
	spin_unlock_bh(&c->lock);
}

static enum hrtimer_restart nck_agg_timer(struct hrtimer *t)
{
	struct nck_comm *c = container_of(t, struct nck_comm, agg.timer);
	unsigned long now = jiffies;
	u64 now_ns = ktime_get_ns(), next = now_ns + NSEC_PER_SEC;
	struct sk_buff_head txq;
	bool again = false;
	u32 i;

	__skb_queue_head_init(&txq);
	spin_lock(&c->lock);
	if (c->dead) {
		spin_unlock(&c->lock);
		return HRTIMER_NORESTART;
	}
	for (i = 0; i < nck_agg_window(c); i++) {
		struct nck_agg_op *op = c->agg.slot[i];

		if (!op)
			continue;
		if (op->complete) {
			if (!op->linger_until)
				continue;
			if (time_after_eq(now, op->linger_until)) {
				nck_agg_unslot(c, op);
				continue;
			}
			next = min(next, nck_agg_when(op->linger_until));
			again = true;
			continue;
		}
		if (time_after_eq(now, op->deadline)) {
			nck_agg_debug_dump(c, op, "budget spent");
			nck_agg_complete(c, op, -ETIMEDOUT);
			continue;
		}
		/*
		 * A broadcast its data started, waiting for our process
		 * alone: nobody to ask, no retry counted; its time budget
		 * still runs.
		 */
		if (op->unposted && op->piece[0].complete) {
			nck_rtx_progress(&op->rtx, &c->agg.rtt, 0);
			nck_agg_acks_release(c, op, &txq);
			next = min(next, nck_agg_when(op->deadline));
			again = true;
			continue;
		}
		if (now_ns >= op->rtx.at) {
			/*
			 * No tail-loss probes, and no kept backoff: the round
			 * trip includes the queues (acks of data are timed),
			 * and a timeout here mostly waits for a slower subtree
			 * (see timing at the top), not for a queue.
			 */
			int err = nck_rtx_expired(&op->rtx);

			if (err < 0) {
				nck_agg_debug_dump(c, op, "no answer");
				nck_agg_complete(c, op, err);
				continue;
			}
			nck_stat_inc(c->nn, NETCOLL_STAT_RTO_EXPIRED);
			op->expired = true;
			nck_agg_retransmit(c, op, &txq);
		}
		if (op->hole_at && now_ns >= op->hole_at)
			nck_agg_ask_waited(c, op, &txq);
		nck_agg_acks_release(c, op, &txq);
		next = min3(next, op->rtx.at, nck_agg_when(op->deadline));
		if (op->hole_at)
			next = min(next, op->hole_at);
		again = true;
	}
	if (again)
		hrtimer_start(&c->agg.timer, ns_to_ktime(next), HRTIMER_MODE_ABS_SOFT);
	nck_agg_queue_out(c, &txq);
	spin_unlock(&c->lock);
	nck_agg_push_out(c);
	return HRTIMER_NORESTART;
}

/* ---------------------------------------------------------------- */
/* Starting and finishing an operation (process context)             */
/* ---------------------------------------------------------------- */

/*
 * Bytes a piece's bookkeeping takes for a tree with nchildren children
 * (windowed: and what each child acked of the result).
 */
static u64 nck_agg_piece_bytes(u32 nchildren, u32 nfrags, bool windowed)
{
	u64 set = BITS_TO_LONGS(nfrags) * sizeof(long);
	u64 per_child = sizeof(struct nck_frags) + set;

	if (windowed)
		per_child += sizeof(struct nck_frags) +
			     nck_frags_tx_bytes(nfrags) + sizeof(u32);
	return (u64)nchildren * sizeof(u32) + set +
	       (u64)nchildren * per_child + set +
	       nck_frags_tx_bytes(nfrags) +
	       (u64)nchildren * nfrags * sizeof(struct sk_buff *);
}

static int nck_agg_piece_init(struct nck_comm *c, struct nck_agg_op *op,
			      struct nck_agg_piece *p, const struct nck_tree *t)
{
	size_t held = (size_t)t->nchildren * p->nfrags * sizeof(*p->held);
	size_t got = t->nchildren * sizeof(*p->got);
	size_t ready = BITS_TO_LONGS(p->nfrags) * sizeof(long);
	gfp_t gfp = GFP_KERNEL_ACCOUNT;
	u8 *mem;
	u32 i;

	p->root = t->root;
	p->parent = t->parent;
	p->nchildren = t->nchildren;
	/* a broadcast: piece 0 its data, piece 1 its empty barrier piece */
	p->bdata = nck_agg_bcast(op) && p == &op->piece[0];
	p->bsync = nck_agg_bcast(op) && p == &op->piece[1];
	/* children's partial results: not for a broadcast's data */
	if (p->bdata)
		held = 0;
	/*
	 * One block, freed through p->got: what each child sent, their
	 * partial results, what is combined here and the children, largest
	 * alignment first.  An allocation each cost every rank four
	 * allocations and frees per small operation.
	 */
	mem = kvzalloc(got + held + ready + t->nchildren * sizeof(u32), gfp);
	if (!mem)
		return -ENOMEM;
	p->got = (struct nck_frags *)mem;
	p->held = p->bdata ? NULL : (struct sk_buff **)(mem + got);
	p->ready = (unsigned long *)(mem + got + held);
	p->children = (u32 *)(mem + got + held + ready);
	if (nck_frags_init_tx(&p->up, p->nfrags, gfp) ||
	    nck_frags_init(&p->res, p->nfrags, gfp))
		return -ENOMEM;
	memcpy(p->children, t->children, t->nchildren * sizeof(u32));
	for (i = 0; i < t->nchildren; i++) {
		if (nck_frags_init(&p->got[i], p->nfrags, gfp))
			return -ENOMEM;
		p->got[i].end_by_reply = nck_agg_end_by_result(p->nfrags);
	}
	p->windowed = nck_agg_windowed(op, p->len, p->nfrags);
	if (p->windowed && t->nchildren) {
		p->dn = kvcalloc(t->nchildren, sizeof(*p->dn), gfp);
		p->dn_next = kcalloc(t->nchildren, sizeof(u32), gfp);
		if (!p->dn || !p->dn_next)
			return -ENOMEM;
		for (i = 0; i < t->nchildren; i++)
			if (nck_frags_init_tx(&p->dn[i], p->nfrags, gfp))
				return -ENOMEM;
	}
	p->want_data = ((op->flags & NETCOLL_RED_ALL) || op->root == c->rank) &&
		       !p->bsync;
	/* Multicast results, and a reduce's data, come from the root. */
	if (!nck_agg_tree_dist(op) ||
	    (!(op->flags & NETCOLL_RED_ALL) && op->root == c->rank))
		p->src = p->root;
	else
		p->src = p->parent;
	return 0;
}

static int nck_agg_check_args(struct nck_comm *c, const struct nck_agg_args *a,
			      u32 *esize)
{
	int err;

	if (a->flags & ~NETCOLL_RED_KNOWN || a->split > NETCOLL_TREES_MAX)
		return -EINVAL;
	if (a->flags & NETCOLL_RED_BCAST) {
		if (a->op || a->dtype || a->root >= c->size ||
		    a->count > NETCOLL_REDUCE_MAX)
			return -EINVAL;
		*esize = 1;
		return 0;
	}
	err = nc_red_check(a->op, a->dtype);
	if (err)
		return err;
	if (nc_dt_is_float(a->dtype) && !nck_reduce_float_supported())
		return -EOPNOTSUPP;
	if (!(a->flags & NETCOLL_RED_ALL) && a->root >= c->size)
		return -EINVAL;
	*esize = nc_red_elem_size(a->op, a->dtype);
	if (a->count > NETCOLL_REDUCE_MAX / *esize)
		return -EINVAL;
	return 0;
}

/* Fragments of whole elements that fit a frame (every element size divides 16). */
static int nck_agg_frag_size(struct nck_comm *c, u32 *fs)
{
	u32 room = nck_comm_payload_max(c);

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
 * A rank that may be asked for results (a root, or a node with children)
 * keeps when it last answered each rank.  A broadcast its data started
 * (sender not NETCOLL_NONE) must have come from our parent in its tree:
 * -EPROTO before anything is charged.
 */
static int nck_agg_pieces(struct nck_comm *c, struct nck_agg_op *op,
			  const struct nck_agg_args *a, u32 esize, u32 sender)
{
	u64 total = 0, charge = struct_size(op, piece, op->npieces) + op->bytes;
	struct nck_tree *own = NULL;
	bool asked = false;
	int err = 0;
	u32 j;

	mutex_lock(&c->agg.tree_lock);
	/* a broadcast runs on a tree rooted at its root, every piece */
	if (nck_agg_bcast(op)) {
		own = nck_tree_fnomial_ordered(c->rank, c->size,
					       c->agg.tree_degree, a->root,
					       c->agg.bcast_order, c->hosts);
		err = !own ? -ENOMEM :
		      sender != NETCOLL_NONE && own->parent != sender ? -EPROTO : 0;
		if (err) {
			mutex_unlock(&c->agg.tree_lock);
			kfree(own);
			return err;
		}
	}
	for (j = 0; j < op->npieces; j++) {
		struct nck_agg_piece *p = &op->piece[j];
		const struct nck_tree *t = own ?: c->agg.trees[j];
		u64 lo = div_u64(a->count * j, op->npieces);
		u64 hi = div_u64(a->count * (j + 1), op->npieces);

		if (own) {		/* the data, then the empty piece */
			lo = 0;
			hi = j ? 0 : a->count;
		}

		p->off = lo * esize;
		p->len = (hi - lo) * esize;
		p->nfrags = nc_wire_nfrags(p->len, op->fs);
		charge += nck_agg_piece_bytes(t->nchildren, p->nfrags,
					      nck_agg_windowed(op, p->len,
							       p->nfrags));
		total += p->nfrags;
		asked |= t->nchildren || t->parent == c->rank;
	}
	if (asked)
		charge += (u64)c->size * sizeof(*op->askers);
	err = nck_comm_mem_reserve(c, charge);
	if (!err) {
		op->charge = charge;
		for (j = 0; j < op->npieces && !err; j++)
			err = nck_agg_piece_init(c, op, &op->piece[j],
						 own ?: c->agg.trees[j]);
	} else {
		j = 0;
	}
	mutex_unlock(&c->agg.tree_lock);
	kfree(own);
	if (err) {
		op->npieces = j;	/* free what was set up */
		return err;
	}
	if (asked) {
		op->askers = kvcalloc(c->size, sizeof(*op->askers),
				      GFP_KERNEL_ACCOUNT);
		if (!op->askers)
			return -ENOMEM;
	}
	/* Repairs this operation may send: a few rounds to every peer. */
	op->repair_budget = min_t(u64, 4 * total * max(c->size - 1, 1U) +
				  NCK_AGG_BURST, U32_MAX);
	return 0;
}

/*
 * The operation a (checked: elements of esize bytes) describes, allocated
 * and charged; sender: see nck_agg_pieces().
 */
static struct nck_agg_op *nck_agg_prepare(struct nck_comm *c,
					  const struct nck_agg_args *a,
					  u32 esize, u32 sender)
{
	u32 npieces = clamp_t(u64, a->split, 1, max_t(u64, a->count, 1));
	u64 bytes = a->count * esize;
	bool small = bytes <= NCK_AGG_BUF_SMALL;
	struct nck_agg_op *op;
	int err;

	if (a->flags & NETCOLL_RED_BCAST)	/* its data, its empty piece */
		npieces = 2;
	/*
	 * Only the pieces it has, and a small vector after them: every rank
	 * allocated, zeroed and freed all NETCOLL_TREES_MAX pieces and a
	 * buffer of its own for every allreduce of 8 bytes.
	 */
	op = kzalloc(struct_size(op, piece, npieces) + (small ? bytes : 0),
		     GFP_KERNEL_ACCOUNT);
	if (!op)
		return ERR_PTR(-ENOMEM);
	refcount_set(&op->ref, 1);
	op->op_class = -1;	/* timed from its start (nck_agg_op_class) */
	op->op = a->op;
	op->dtype = a->dtype;
	op->opcode = a->op << 8 | a->dtype;
	op->flags = a->flags;
	if (nck_agg_bcast(op)) {	/* every rank gets the root's data */
		op->opcode = NETCOLL_OPCODE_BCAST;
		op->flags |= NETCOLL_RED_ALL;
	}
	op->root = (op->flags & NETCOLL_RED_ALL) ? NETCOLL_NONE : a->root;
	op->bytes = bytes;
	op->ubuf = a->recvbuf;
	op->npieces = npieces;
	err = nck_agg_frag_size(c, &op->fs);
	if (!err)
		err = nck_agg_pieces(c, op, a, esize, sender);
	if (err)
		goto free;
	err = -ENOMEM;
	op->buf_inline = small;
	op->buf = small ? (u8 *)&op->piece[npieces] :
		  kvmalloc(op->bytes, GFP_KERNEL_ACCOUNT);
	if (!op->buf)
		goto free;
	err = -EFAULT;
	/* a broadcast reads the root's buffer only */
	if ((!nck_agg_bcast(op) || a->root == c->rank) &&
	    copy_from_user(op->buf, a->sendbuf, op->bytes))
		goto free;
	op->deadline = jiffies +
		msecs_to_jiffies(a->timeout_ms ?: c->timeout_ms);
	/*
	 * No answer fails the operation after nck_max_retries timeouts and
	 * as long a silence as they take at the longest RTO, not sooner: a
	 * peer whose answers a full queue dropped for 2 s is alive (rel.h).
	 */
	op->rtx.quiet_min = (u64)nck_max_retries * nck_rto_max_ms * NSEC_PER_MSEC;
	return op;
free:
	nck_agg_op_free(c, op);
	return ERR_PTR(err);
}

/* Under c->lock: may operation seq start?  0, -EAGAIN (wait) or error. */
static int nck_agg_may_start(struct nck_comm *c, u32 seq)
{
	struct nck_agg_op *prev = nck_agg_find(c, seq - c->agg.oso);
	int err = nck_comm_usable(c);

	if (err)
		return err;
	if (prev && !prev->complete)
		return -EAGAIN;
	return 0;
}

static bool nck_agg_can_start(struct nck_comm *c)
{
	bool ok;

	spin_lock_bh(&c->lock);
	ok = c->agg.posted != c->agg.next ||
	     nck_agg_may_start(c, c->agg.next) != -EAGAIN;
	spin_unlock_bh(&c->lock);
	return ok;
}

/*
 * Sleep until operation c->agg.next may start (OSO limit), or until its
 * data started the operation this rank posts next (then it runs already);
 * c->lock held.
 */
static int nck_agg_wait_turn(struct nck_comm *c, struct nck_agg_op *op)
	__must_hold(&c->lock)
{
	bool queued = false;
	long left;
	int err;

	for (;;) {
		if (c->agg.posted != c->agg.next)
			return 0;
		err = nck_agg_may_start(c, c->agg.next);
		if (err != -EAGAIN)
			return err;
		/* OSO limit: queue behind the operation OSO places back */
		spin_unlock_bh(&c->lock);
		if (!queued)
			nck_stat_inc(c->nn, NETCOLL_STAT_AGG_QUEUED);
		queued = true;
		if (time_after_eq(jiffies, op->deadline)) {
			err = -ETIMEDOUT;
		} else {
			left = wait_event_interruptible_timeout(c->agg.wq,
								nck_agg_can_start(c),
								op->deadline - jiffies);
			err = left < 0 ? -EINTR : 0;
		}
		spin_lock_bh(&c->lock);
		if (err)
			return err;
	}
}

/* Arm the timer for op: its retransmission or its deadline, whichever is first. */
static void nck_agg_arm_op(struct nck_comm *c, struct nck_agg_op *op)
{
	if (!op->complete)	/* wrap-safe */
		nck_agg_arm(c, min(nck_agg_when(op->deadline), op->rtx.at));
}

/*
 * op (holding the slot's reference) starts as operation c->agg.next: the
 * frames that came early for it are its first input.
 */
static void nck_agg_install(struct nck_comm *c, struct nck_agg_op *op,
			    struct sk_buff_head *txq)
	__must_hold(&c->lock)
{
	struct nck_agg_op **slot;
	struct sk_buff_head early;
	struct sk_buff *skb;
	struct nc_frame f;
	u32 seq, j, k;

	lockdep_assert_held(&c->lock);
	__skb_queue_head_init(&early);
	seq = c->agg.next;
	slot = &c->agg.slot[seq % nck_agg_window(c)];
	if (*slot)
		nck_agg_op_put(c, *slot);	/* 2 * OSO back: done everywhere */
	*slot = op;
	op->seq = seq;
	op->started = true;
	op->op_class = nck_agg_op_class(op);
	op->t0_ns = ktime_get_ns();
	nck_agg_rtx_restart(c, op);
	c->agg.next++;

	for (j = 0; j < op->npieces; j++)
		for (k = 0; k < op->piece[j].nfrags; k++)
			nck_agg_try(c, op, &op->piece[j], k, txq);
	nck_early_take(c, &c->agg.early, seq, &early);
	nck_early_books_drop(c, &c->agg.books, seq);
	while ((skb = __skb_dequeue(&early))) {
		nck_skb_hdr(skb, &f);
		nck_agg_input(c, op, skb, &f, txq);
	}
	nck_agg_arm_op(c, op);
	nck_agg_early_rescan(c);	/* the next one's data may be here */
}

/*
 * The worker nck_agg_early_bcast() queued: start the broadcast its data
 * announced, unless this rank's process started operation seq meanwhile
 * (then the next one's data may be waiting: looked for again), the OSO
 * window is full (looked for again when an operation finishes), the
 * frame did not come from our parent in that broadcast's tree (a forged
 * or stray frame must not start anything its parent would not), or the
 * communicator stopped.  One start at a time: early_bcast.queued stays
 * set until here.  The operation's one reference is its slot's; the
 * process takes its own when it posts.  Its time budget is the longest
 * a caller may ask for: it waits for a process whose budget is not known
 * yet (the process's starts when it takes the operation over).
 */
static void nck_agg_bcast_work(struct work_struct *work)
{
	struct nck_comm *c = container_of(work, struct nck_comm,
					  agg.bcast_work);
	struct nck_agg_args a = { .flags = NETCOLL_RED_BCAST };
	struct sk_buff_head txq;
	struct nck_agg_op *op;
	bool started = false;
	u32 seq, fs, src, esize;
	int err;

	__skb_queue_head_init(&txq);
	spin_lock_bh(&c->lock);
	seq = c->agg.early_bcast.seq;
	src = c->agg.early_bcast.src;
	a.root = c->agg.early_bcast.root;
	a.count = c->agg.early_bcast.len;
	fs = c->agg.early_bcast.fs;
	spin_unlock_bh(&c->lock);

	/*
	 * A stray frame is refused before its vector is charged or allocated
	 * (nck_agg_pieces()).  The root is not our rank (checked on arrival):
	 * prepare reads no user memory.
	 */
	err = nck_agg_check_args(c, &a, &esize);
	op = err ? ERR_PTR(err) : nck_agg_prepare(c, &a, esize, src);
	spin_lock_bh(&c->lock);
	c->agg.early_bcast.queued = false;
	if (PTR_ERR_OR_ZERO(op) == -EPROTO) {
		c->agg.early_bcast.refused = true;
		c->agg.early_bcast.refused_seq = seq;
		c->agg.early_bcast.refused_src = src;
	}
	if (!IS_ERR(op) && op->fs == fs &&
	    seq == c->agg.next && !nck_agg_may_start(c, seq)) {
		op->unposted = true;
		op->deadline = jiffies + msecs_to_jiffies(NETCOLL_TIMEOUT_MS_MAX);
		nck_agg_install(c, op, &txq);
		started = true;
	} else if (seq != c->agg.next || PTR_ERR_OR_ZERO(op) == -EPROTO) {
		/* the parent's own data may have come meanwhile */
		nck_agg_early_rescan(c);
	}
	nck_agg_queue_out(c, &txq);
	spin_unlock_bh(&c->lock);
	nck_agg_push_out(c);
	if (started) {
		nck_stat_inc(c->nn, NETCOLL_STAT_AGG_BCAST_EARLY);
		wake_up_all(&c->agg.wq);	/* a poster waiting for its turn */
	} else if (!IS_ERR(op)) {
		nck_agg_op_free(c, op);
	}
	nck_comm_put(c);
}

/*
 * The process posts the broadcast its data started (c->agg.posted behind
 * c->agg.next): it must be the same broadcast (root, length,
 * distribution), or the ranks disagree on their sequence of operations
 * and the communicator breaks (EPROTO).  Its empty piece goes up now, and
 * its time budget starts again.
 */
static struct nck_agg_op *nck_agg_take_over(struct nck_comm *c,
					    const struct nck_agg_args *a,
					    struct sk_buff_head *txq)
	__must_hold(&c->lock)
{
	struct nck_agg_op *op = nck_agg_find(c, c->agg.posted);
	struct nck_agg_piece *p;
	u32 k;

	lockdep_assert_held(&c->lock);
	if (!op || !op->unposted)	/* freed by a stop: it failed */
		return ERR_PTR(nck_comm_usable(c) ?: -EPIPE);
	c->agg.posted++;
	op->unposted = false;
	op->ubuf = a->recvbuf;
	refcount_inc(&op->ref);		/* the poster's */
	if (((a->flags | NETCOLL_RED_ALL) & NETCOLL_RED_KNOWN) !=
	    (op->flags & NETCOLL_RED_KNOWN) ||
	    a->root != op->piece[0].root || a->count != op->bytes) {
		nck_agg_complete(c, op, -EPROTO);
		return op;
	}
	if (op->complete)
		return op;
	op->deadline = jiffies + msecs_to_jiffies(a->timeout_ms ?: c->timeout_ms);
	nck_rtx_progress(&op->rtx, &c->agg.rtt, 0); /* none overdue */
	p = &op->piece[1];
	for (k = 0; k < p->nfrags; k++)
		nck_agg_try(c, op, p, k, txq);
	nck_agg_arm_op(c, op);
	return op;
}

/*
 * Post a contribution.  Returns the operation with two references, its
 * slot's and the caller's (give it back with nck_agg_release), or an
 * ERR_PTR; an operation that never started consumed no sequence number.
 * One its data started is taken over before anything is allocated: a
 * second buffer of a large broadcast might not fit the communicator's
 * memory next to the first.
 */
struct nck_agg_op *nck_agg_start(struct nck_comm *c, const struct nck_agg_args *a)
{
	struct nck_agg_op *op, *ours;
	struct sk_buff_head txq;
	u32 esize;
	int err;

	err = nck_agg_check_args(c, a, &esize);
	if (err)
		return ERR_PTR(err);
	__skb_queue_head_init(&txq);
	spin_lock_bh(&c->lock);
	if (c->agg.posted != c->agg.next) {
		op = nck_agg_take_over(c, a, &txq);
		nck_agg_queue_out(c, &txq);
		spin_unlock_bh(&c->lock);
		nck_agg_push_out(c);
		return op;
	}
	spin_unlock_bh(&c->lock);

	op = nck_agg_prepare(c, a, esize, NETCOLL_NONE);
	if (IS_ERR(op))
		return op;
	err = nck_join_wait(c, op->deadline);
	if (err) {
		nck_agg_op_free(c, op);
		return ERR_PTR(err);
	}

	spin_lock_bh(&c->lock);
	err = nck_agg_wait_turn(c, op);
	if (err) {
		spin_unlock_bh(&c->lock);
		nck_agg_op_free(c, op);
		return ERR_PTR(err);
	}
	if (c->agg.posted != c->agg.next) {	/* its data started it */
		ours = op;
		op = nck_agg_take_over(c, a, &txq);
		nck_agg_queue_out(c, &txq);
		spin_unlock_bh(&c->lock);
		nck_agg_op_free(c, ours);
		nck_agg_push_out(c);
		return op;
	}
	refcount_inc(&op->ref);		/* the slot's */
	c->agg.posted++;
	nck_agg_install(c, op, &txq);
	nck_agg_queue_out(c, &txq);
	spin_unlock_bh(&c->lock);
	nck_agg_push_out(c);
	return op;
}

bool nck_agg_done(const struct nck_agg_op *op)
{
	return READ_ONCE(op->complete);
}

/*
 * Wait for op (the caller holds a reference and is its only waiter) and
 * copy its result out.  The operation stays in its slot for repairs.
 */
int nck_agg_wait(struct nck_comm *c, struct nck_agg_op *op)
{
	bool want;
	int err;

	if (wait_event_interruptible(c->agg.wq,
				     READ_ONCE(op->complete) || READ_ONCE(c->dead)))
		return -EINTR;

	spin_lock_bh(&c->lock);
	if (!op->complete)
		nck_agg_complete(c, op, c->dead);
	err = op->err;
	want = (op->flags & NETCOLL_RED_ALL) || op->root == c->rank;
	spin_unlock_bh(&c->lock);

	/* A finished result no longer changes: copy it without the lock. */
	if (!err && want && op->bytes &&
	    copy_to_user(op->ubuf, op->buf, op->bytes))
		err = -EFAULT;

	if (op->err) {
		nck_stat_inc(c->nn, NETCOLL_STAT_OPS_FAILED);
		if (op->err == -ETIMEDOUT)
			nck_stat_inc(c->nn, NETCOLL_STAT_OPS_TIMEDOUT);
		nck_event_op_failed(c, op->seq, -op->err, NETCOLL_NONE);
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
void nck_agg_release(struct nck_comm *c, struct nck_agg_op *op, bool cancel)
{
	spin_lock_bh(&c->lock);
	op->released = true;
	if (!op->complete && cancel) {
		nck_agg_complete(c, op, -ECANCELED);
		nck_stat_inc(c->nn, NETCOLL_STAT_OPS_CANCELLED);
		nck_agg_unslot(c, op);
	} else if (op->complete && cancel) {
		nck_agg_linger(c, op);
	}
	spin_unlock_bh(&c->lock);
	wake_up_all(&c->agg.wq);	/* callers queued behind it (OSO) */
	nck_agg_op_put(c, op);
}

/* Memory is short: finished operations nobody waits for leave their slots. */
bool nck_agg_reclaim(struct nck_comm *c)
{
	bool freed = false;
	u32 i;

	spin_lock_bh(&c->lock);
	for (i = 0; i < NCK_AGG_SLOTS; i++) {
		struct nck_agg_op *op = c->agg.slot[i];

		if (op && op->complete && op->released) {
			nck_agg_unslot(c, op);
			freed = true;
		}
	}
	spin_unlock_bh(&c->lock);
	return freed;
}

/* The bound endpoint closed: what it finished stays only for repairs. */
void nck_agg_close(struct nck_comm *c)
{
	u32 i;

	spin_lock_bh(&c->lock);
	for (i = 0; i < NCK_AGG_SLOTS; i++) {
		struct nck_agg_op *op = c->agg.slot[i];

		if (op && op->complete && op->released)
			nck_agg_linger(c, op);
	}
	spin_unlock_bh(&c->lock);
}

/* ---------------------------------------------------------------- */
/* Communicator life                                                 */
/* ---------------------------------------------------------------- */

int nck_agg_set_tree(struct nck_comm *c, u32 index, struct nck_tree *t)
{
	struct nck_tree *old;

	if (!t) {
		t = nck_tree_fnomial(c->rank, c->size, c->agg.tree_degree, index,
				     c->hosts);
		if (!t)
			return -ENOMEM;
	}
	mutex_lock(&c->agg.tree_lock);
	old = c->agg.trees[index];
	c->agg.trees[index] = t;
	mutex_unlock(&c->agg.tree_lock);
	kfree(old);
	return 0;
}

void nck_agg_set_bcast_order(struct nck_comm *c, u32 *order)
{
	u32 *old;

	mutex_lock(&c->agg.tree_lock);
	old = c->agg.bcast_order;
	c->agg.bcast_order = order;
	mutex_unlock(&c->agg.tree_lock);
	kvfree(old);
	/* other parents now: what was refused may be right */
	spin_lock_bh(&c->lock);
	c->agg.early_bcast.refused = false;
	nck_agg_early_rescan(c);
	spin_unlock_bh(&c->lock);
}

int nck_agg_init(struct nck_comm *c)
{
	u32 i;

	mutex_init(&c->agg.tree_lock);
	c->repairs_refused = nck_agg_refund;
	hrtimer_init(&c->agg.timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_SOFT);
	c->agg.timer.function = nck_agg_timer;
	INIT_WORK(&c->agg.work, nck_agg_work);
	INIT_WORK(&c->agg.bcast_work, nck_agg_bcast_work);
	skb_queue_head_init(&c->agg.deferred);
	__skb_queue_head_init(&c->agg.early);
	nck_early_books_init(&c->agg.books, nck_agg_end_by_reply);
	init_waitqueue_head(&c->agg.wq);
	for (i = 0; i < NETCOLL_TREES_MAX; i++)
		if (nck_agg_set_tree(c, i, NULL))
			return -ENOMEM;
	return 0;
}

static void nck_agg_purge_deferred(struct nck_comm *c)
{
	struct sk_buff *skb;

	while ((skb = skb_dequeue(&c->agg.deferred)))
		nck_rx_free(c, skb);
}

/* No more operations: fail the running ones, stop timer and worker. */
void nck_agg_stop(struct nck_comm *c, int err)
{
	struct sk_buff_head early;
	u32 i;

	__skb_queue_head_init(&early);
	spin_lock_bh(&c->lock);
	for (i = 0; i < NCK_AGG_SLOTS; i++) {
		struct nck_agg_op *op = c->agg.slot[i];

		if (op)
			nck_agg_complete(c, op, err);
	}
	skb_queue_splice_init(&c->agg.early, &early);
	nck_early_books_purge(c, &c->agg.books);
	spin_unlock_bh(&c->lock);
	nck_rx_purge(c, &early);
	wake_up_all(&c->agg.wq);
	hrtimer_cancel(&c->agg.timer);
	/* A pending worker's reference is ours to drop (c->dead: no new one). */
	if (cancel_work_sync(&c->agg.work))
		nck_comm_put(c);
	if (cancel_work_sync(&c->agg.bcast_work))
		nck_comm_put(c);
	nck_agg_purge_deferred(c);
}

/* Last reference gone (stopped before, no endpoint left): free everything. */
void nck_agg_free(struct nck_comm *c)
{
	u32 i;

	for (i = 0; i < NCK_AGG_SLOTS; i++)
		if (c->agg.slot[i])
			nck_agg_op_put(c, c->agg.slot[i]);
	nck_agg_purge_deferred(c);
	nck_rx_purge(c, &c->agg.early);
	nck_early_books_purge(c, &c->agg.books);
	for (i = 0; i < NETCOLL_TREES_MAX; i++)
		kfree(c->agg.trees[i]);
	kvfree(c->agg.bcast_order);
}

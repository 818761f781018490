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
 * A broadcast (NETCOLL_RED_BCAST) is the second half alone, on a tree
 * rooted at its root; its data may reach a rank before its process posts
 * and then starts it there (nck_agg_early_bcast()).  Vectors are cut into
 * pieces (piece j runs on tree j) and pieces into fragments of the device
 * MTU, pipelined through the tree fragment by fragment.
 *
 * Reliability is the core's (rel.h), in both directions: how each uses
 * it (acks and implicit acks going up, repairs and windows coming down,
 * what is timed, which frames go twice) is docs/agg-design.md, "The
 * protocol", with the measurements behind each choice.
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
 *    memory is needed and our children have its result (nck_agg_reclaim;
 *    a poster waits for them: nck_agg_prepare_wait), when its endpoint
 *    closed and its deadline passed (the peers' time budget is spent too:
 *    nobody asks any more), when it is cancelled, or when the
 *    communicator is freed;
 *  - its poster's (the endpoint's table, endpoint.c): dropped by
 *    nck_agg_release() once the result was collected, or when the endpoint
 *    closes (which cancels it if it has not finished).
 * The last nck_agg_op_put() frees it, under c->lock, in whatever context
 * (a waiting start is told then: nck_agg_memory_freeable()); or
 * nck_agg_free() with the communicator.  Frames it holds
 * are charged to the communicator's receive memory, its buffers to the
 * communicator's posted memory; both are given back by that free.
 *
 * Locking: everything here is under comm->lock.  Frames are built under
 * it, moved to the communicator's transmit queue before it is released
 * and sent after (nck_frames_queue/push, frame.h): the process, the
 * receive path and the timer build frames at once on different CPUs, and
 * they must leave in the order they were built.
 *
 * Files: agg.c (this one) holds an operation's life, its start and finish
 * (process context) and the communicator's set-up and tear-down; agg_tx.c
 * (frames out), agg_rx.c (in), agg_timer.c and agg_op.h say what they hold.
 */
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "bearer.h"
#include "event.h"
#include "reduce.h"
#include "tree.h"
#include "shared/nc_reduce.h"
#include "agg_op.h"

/* -- Life of an operation ---------------------------------------- */

/* The children's fragments op holds go back to the receive memory. */
static void nck_agg_drop_held(struct nck_comm *c, struct nck_agg_op *op)
{
	u32 j, i;

	for (j = 0; j < op->npieces; j++) {
		struct nck_agg_piece *p = &op->piece[j];

		for (i = 0; p->held && i < p->nchildren * p->nfrags; i++)
			if (p->held[i]) {
				nck_rx_free(c, p->held[i]);
				p->held[i] = NULL;
			}
	}
}

static void nck_agg_op_free(struct nck_comm *c, struct nck_agg_op *op)
{
	u32 j, i;

	nck_agg_drop_held(c, op);
	for (j = 0; j < op->npieces; j++) {
		struct nck_agg_piece *p = &op->piece[j];

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
	put_pid(op->poster);
	if (!op->buf_inline)
		kvfree(op->buf);
	nck_comm_mem_release(c, op->charge);
	kfree(op);
}

/*
 * op never started (nobody else knows it): a poster waiting for memory
 * (nck_agg_prepare_wait()) looks again.
 */
static void nck_agg_op_discard(struct nck_comm *c, struct nck_agg_op *op)
{
	nck_agg_op_free(c, op);
	spin_lock_bh(&c->lock);
	c->agg.frees++;
	spin_unlock_bh(&c->lock);
	nck_agg_wake(c);
}

/* The calling process posts op, its result to go to ubuf (agg_op.h). */
static void nck_agg_set_poster(struct nck_agg_op *op, void __user *ubuf)
{
	put_pid(op->poster);
	op->poster = get_pid(task_tgid(current));
	op->poster_mm = current->mm;
	op->ubuf = ubuf;
}

bool nck_agg_posted_by_current(const struct nck_agg_op *op)
{
	return op->poster == task_tgid(current) && op->poster_mm == current->mm;
}

/*
 * Under c->lock: the free is when the memory is given back, so a start
 * that waits for it is told then (nck_agg_memory_freeable()).  Told
 * before, when the poster let go but the slot still held it, the worker
 * could take the slot's reference in between, find the memory still
 * used and wait with nobody left to tell it.
 */
static void nck_agg_op_put(struct nck_comm *c, struct nck_agg_op *op)
{
	lockdep_assert_held(&c->lock);
	if (refcount_dec_and_test(&op->ref)) {
		nck_agg_op_free(c, op);
		nck_agg_memory_freeable(c);
	}
}

/* op leaves its slot: the engine's reference goes. */
void nck_agg_unslot(struct nck_comm *c, struct nck_agg_op *op)
{
	struct nck_agg_op **slot = &c->agg.slot[op->seq % nck_agg_window(c)];

	lockdep_assert_held(&c->lock);
	if (*slot == op) {
		*slot = NULL;
		nck_agg_op_put(c, op);
	}
}

/* The timer fires at when (ns, CLOCK_MONOTONIC) at the latest. */
void nck_agg_arm(struct nck_comm *c, u64 when)
{
	if (!c->dead && (!hrtimer_is_queued(&c->agg.timer) ||
			 when < ktime_to_ns(hrtimer_get_expires(&c->agg.timer))))
		hrtimer_start(&c->agg.timer, ns_to_ktime(when), HRTIMER_MODE_ABS_SOFT);
}

/* A time in jiffies (a deadline) as the timer's clock says it. */
u64 nck_agg_when(unsigned long when)
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
 * posting and every level up and down; a timeout shorter than that asks
 * for the result and turns repetition on for nothing.  So an operation's
 * timeout is at least what operations of its size took here (SRTT + 4
 * RTTVAR), and at least NCK_AGG_OP_RTO_MIN_MS: every rank's process must
 * run, and on a busy guest a woken one waits a tick or more
 * (docs/agg-design.md, "Operation timing").  Windowed results have acks
 * in both directions and broadcasts their own pace: not timed.
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
 * (lost).  Otherwise the operations that waited for a descheduled
 * process -- all that time out under CPU load -- are never timed and the
 * timeout stays at the quick ones' (docs/agg-design.md).  The first
 * sample is taken whatever it is: else none might ever be.
 */
static void nck_agg_time_op(struct nck_comm *c, struct nck_agg_op *op, u64 now)
{
	struct nck_rtt *r;

	if (op->op_class < 0)
		return;
	r = &c->agg.op_rtt[op->op_class];
	if (r->srtt_us && (op->lost || (op->expired && !op->late)))
		return;
	nck_rtt_sample(r, min_t(u64, div_u64(now - op->t0_ns, NSEC_PER_USEC),
				U32_MAX / 8));
}

void nck_agg_complete(struct nck_comm *c, struct nck_agg_op *op, int err)
{
	lockdep_assert_held(&c->lock);

	if (op->complete)
		return;
	op->complete = true;
	op->err = err;
	op->dn_heard_ns = ktime_get_ns();	/* nck_agg_delivered() */
	/*
	 * A started operation that failed may have run on some ranks and not
	 * on others: the ranks' sequences of operations can disagree from
	 * here on, so none may run again (see nck_comm_break).
	 */
	if (err) {
		nck_comm_break(c);
	} else {
		nck_stat_inc(c->nn, NETCOLL_STAT_AGG_OPS);
		nck_agg_time_op(c, op, op->dn_heard_ns);
		nck_agg_early_rescan(c);	/* the OSO window moved */
	}
	/*
	 * The timer stays armed: its callback re-arms only for unfinished
	 * and lingering operations, so it runs at most once more: cheaper
	 * than a start and a cancel per operation on every rank
	 * (docs/agg-design.md, "Timing").
	 */
	nck_agg_wake(c);
}

/* Is op among the operations repetition covers (see the top)? */
bool nck_agg_repeats_op(const struct nck_comm *c,
			const struct nck_agg_op *op)
{
	return c->agg.repeating && nck_seq_before(op->seq, c->agg.repeat_until);
}

/*
 * The timeout's floor: while nothing is repeated, the operation's own
 * estimate.  While repetition is on a loss was seen lately, and a
 * timeout is mostly one more (both copies lost): the hop's estimate
 * alone, no floor (docs/agg-design.md).
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

/*
 * Something new arrived or was acked: the timer restarts from the hop's
 * estimate, at least the floor.
 */
void nck_agg_progress(struct nck_comm *c, struct nck_agg_op *op)
{
	nck_rtx_progress(&op->rtx, &c->agg.rtt, nck_agg_rto_floor(c, op),
			 ktime_get_ns());
	nck_agg_arm(c, op->rtx.at);
}

/* -- Starting and finishing an operation (process context) ------- */

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
		p->got[i].end_by_reply = nck_agg_end_by_result(p->len, p->nfrags);
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

	if (a->flags & ~NETCOLL_RED_KNOWN || a->split > NETCOLL_TREES_MAX ||
	    a->timeout_ms > NETCOLL_TIMEOUT_MS_MAX)
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
int nck_agg_frag_size(struct nck_comm *c, u32 *fs)
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
	/* never fits: E2BIG, so that nobody waits for memory to free up */
	err = charge > c->mem_max ? -E2BIG : nck_comm_mem_reserve(c, charge);
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
	if (sender == NETCOLL_NONE)	/* not a broadcast its data started */
		nck_agg_set_poster(op, a->recvbuf);
	op->npieces = npieces;
	err = nck_agg_frag_size(c, &op->fs);
	if (!err)
		err = nck_agg_pieces(c, op, a, esize, sender);
	if (err)
		goto free;
	/* once: asked for on every fragment going up (softirq) */
	op->window = nck_window_frags(op->fs);
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
	nck_rtx_progress(&op->rtx, &c->agg.rtt, nck_agg_rto_floor(c, op),
			 op->t0_ns);
	c->agg.next++;

	for (j = 0; j < op->npieces; j++)
		for (k = 0; k < op->piece[j].nfrags; k++)
			nck_agg_try(c, op, &op->piece[j], k, txq);
	nck_early_take(c, &c->agg.early, seq, &early);
	nck_early_books_drop(c, &c->agg.books, seq);
	/*
	 * Acks to the children wait for the end (nck_agg_ack_child()): one
	 * each: acked as the frames went in, a late inner rank's batch of
	 * acks overflowed its send queue and marked the communicator
	 * congested (docs/agg-design.md, "Early frames").  The children were
	 * acked as the frames came (the early books).
	 */
	op->taking_early = true;
	while ((skb = __skb_dequeue(&early))) {
		nck_skb_hdr(skb, &f);
		nck_agg_input(c, op, skb, &f, txq);
	}
	op->taking_early = false;
	nck_agg_acks_release(c, op, txq);
	nck_agg_arm_op(c, op);
	nck_agg_early_rescan(c);	/* the next one's data may be here */
}

/*
 * The worker nck_agg_early_bcast() queued: start the broadcast its data
 * announced, unless this rank's process started operation seq meanwhile
 * (then the next one's data may be waiting: looked for again), the OSO
 * window or the communicator's memory is full (tried again when an
 * operation finishes or is released), the frame did not come from our
 * parent in that broadcast's tree, or the communicator stopped.  One
 * start at a time: early_bcast.queued stays set until here.  The
 * operation's one reference is its slot's; the process takes its own
 * when it posts.  Why each bound: docs/agg-design.md, "Early frames".
 */
static void nck_agg_bcast_work(struct work_struct *work)
{
	struct nck_comm *c = container_of(work, struct nck_comm,
					  agg.bcast_work);
	struct nck_agg_args a = { .flags = NETCOLL_RED_BCAST };
	struct sk_buff_head txq;
	struct nck_agg_op *op;
	bool started = false;
	u32 seq, fs, src, esize, rescans;
	int err;

	__skb_queue_head_init(&txq);
	spin_lock_bh(&c->lock);
	rescans = c->agg.early_bcast.rescans;
	seq = c->agg.early_bcast.seq;
	src = c->agg.early_bcast.src;
	a.root = c->agg.early_bcast.root;
	a.count = c->agg.early_bcast.len;
	fs = c->agg.early_bcast.fs;
	a.timeout_ms = nck_agg_unposted_ms(c);
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
	/*
	 * A refusal drops the sender's data of that operation, held and to
	 * come (nck_agg_early_refuse()), but not a lack of memory, charged
	 * before anything is allocated and gone once running operations
	 * finish (the rescan then starts it).  Another fragment size was not:
	 * copies of such a frame made the worker allocate and free the whole
	 * vector each (arrival now refuses it too, and a vector over mem_max).
	 */
	err = PTR_ERR_OR_ZERO(op);
	if (!err && op->fs != fs)
		err = -EPROTO;
	if (err && err != -ENOBUFS)
		nck_agg_early_refuse(c, seq, src, a.root);
	if (!err && seq == c->agg.next) {
		err = seq - c->agg.posted < c->agg.oso ?
		      nck_agg_may_start(c, seq) : -EAGAIN;
		if (!err) {
			op->unposted = true;
			nck_agg_install(c, op, &txq);
			started = true;
		}
	}
	if (seq != c->agg.next || err == -EPROTO ||
	    ((err == -EAGAIN || err == -ENOBUFS) &&
	     rescans != c->agg.early_bcast.rescans)) {
		/*
		 * The parent's own data may have come meanwhile, or the
		 * window or memory we lacked freed up while we tried (that
		 * rescan found us queued): look again.
		 */
		nck_agg_early_rescan(c);
	} else if (err == -EAGAIN || err == -ENOBUFS) {
		/* until an operation finishes or is released */
		c->agg.early_bcast.waiting = true;
	}
	nck_agg_queue_out(c, &txq);
	spin_unlock_bh(&c->lock);
	nck_agg_push_out(c);
	if (started) {
		nck_stat_inc(c->nn, NETCOLL_STAT_AGG_BCAST_EARLY);
		nck_agg_wake(c);	/* a poster waiting for its turn */
	} else if (!IS_ERR(op)) {
		nck_agg_op_discard(c, op);
	}
	nck_comm_put(c);
}

/*
 * The process posts the broadcast its data started (c->agg.posted behind
 * c->agg.next): it must be the same broadcast (root, length,
 * distribution), or the ranks disagree on their sequence of operations
 * and the communicator breaks (EPROTO).  Its empty piece goes up now, and
 * its time budget becomes the post's, which ends at end (a wait for
 * memory spent part of it).
 */
static struct nck_agg_op *nck_agg_take_over(struct nck_comm *c,
					    const struct nck_agg_args *a,
					    unsigned long end,
					    struct sk_buff_head *txq)
	__must_hold(&c->lock)
{
	struct nck_agg_op *op = nck_agg_find(c, c->agg.posted);
	struct nck_agg_piece *p;
	u32 k;

	lockdep_assert_held(&c->lock);
	if (!op || !op->unposted)	/* it failed: freed by a stop or the timer */
		return ERR_PTR(nck_comm_usable(c) ?: -EPIPE);
	c->agg.posted++;
	nck_agg_early_rescan(c);	/* the OSO window moved (bcast_work) */
	op->unposted = false;
	nck_agg_set_poster(op, a->recvbuf);
	refcount_inc(&op->ref);		/* the poster's */
	if (((a->flags | NETCOLL_RED_ALL) & NETCOLL_RED_KNOWN) !=
	    (op->flags & NETCOLL_RED_KNOWN) ||
	    a->root != op->piece[0].root || a->count != op->bytes) {
		/*
		 * Its data may have finished it already: the poster must still
		 * get the error, not a result of another length copied into
		 * its buffer (nck_agg_wait copies op->bytes).
		 */
		if (op->complete && !op->err) {
			op->err = -EPROTO;
			nck_comm_break(c);
		}
		nck_agg_complete(c, op, -EPROTO);
		return op;
	}
	if (op->complete)
		return op;
	op->deadline = end;
	nck_rtx_progress(&op->rtx, &c->agg.rtt, 0, ktime_get_ns()); /* none overdue */
	p = &op->piece[1];
	for (k = 0; k < p->nfrags; k++)
		nck_agg_try(c, op, p, k, txq);
	nck_agg_arm_op(c, op);
	return op;
}

/*
 * Memory is short: finished operations nobody waits for leave their
 * slots, once their results reached our children (nck_agg_delivered()).
 * Returns whether any did; *pending (if given) says whether another will
 * once its children have it all.
 */
bool nck_agg_reclaim(struct nck_comm *c, bool *pending)
{
	bool freed = false;
	u32 i;

	spin_lock_bh(&c->lock);
	for (i = 0; i < NCK_AGG_SLOTS; i++) {
		struct nck_agg_op *op = c->agg.slot[i];

		if (!op || !op->complete || !op->released)
			continue;
		if (nck_agg_delivered(c, op)) {
			nck_agg_unslot(c, op);
			freed = true;
		} else if (pending) {
			*pending = true;
		}
	}
	spin_unlock_bh(&c->lock);
	return freed;
}

/*
 * Can a poster waiting for memory stop waiting (nck_agg_prepare_wait)?
 * An operation was freed since it looked (frees), a finished operation's
 * children have its result, nothing is left to wait for, or the
 * broadcast it posts started from its data.
 */
static bool nck_agg_reclaim_ready(struct nck_comm *c, u32 frees)
{
	bool ready = READ_ONCE(c->dead), pending = false;
	u32 i;

	spin_lock_bh(&c->lock);
	ready |= c->agg.posted != c->agg.next || c->agg.frees != frees;
	for (i = 0; i < NCK_AGG_SLOTS && !ready; i++) {
		struct nck_agg_op *op = c->agg.slot[i];

		if (op && op->complete && op->released) {
			ready = nck_agg_delivered(c, op);
			pending = true;
		}
	}
	spin_unlock_bh(&c->lock);
	return ready || !pending;
}

/*
 * The communicator's memory is short (nck_agg_prepare() failed with
 * ENOBUFS), but finished operations hold some only until our children
 * have their results: wait for that, until the post's deadline end,
 * rather than fail at once.  Freeing them earlier made the children time
 * out.  Each pass tries again (memory may have been freed by others);
 * NULL: the broadcast this rank posts started from its data meanwhile
 * (take it over).  ENOBUFS if nothing will be freed, or not in time; the
 * communicator's error if it stopped.
 */
static struct nck_agg_op *nck_agg_prepare_wait(struct nck_comm *c,
					       const struct nck_agg_args *a,
					       u32 esize, unsigned long end)
{
	struct nck_agg_op *op;
	bool pending;
	u32 frees;
	long left;
	int err;

	for (;;) {
		pending = false;
		frees = READ_ONCE(c->agg.frees);	/* before we try */
		nck_agg_reclaim(c, &pending);
		op = nck_agg_prepare(c, a, esize, NETCOLL_NONE);
		if (PTR_ERR_OR_ZERO(op) != -ENOBUFS)
			return op;
		spin_lock_bh(&c->lock);
		err = nck_comm_usable(c);
		if (!err && c->agg.posted != c->agg.next) {
			spin_unlock_bh(&c->lock);
			return NULL;
		}
		spin_unlock_bh(&c->lock);
		left = end - jiffies;
		if (err || !pending || left <= 0)
			return ERR_PTR(err ?: -ENOBUFS);
		/*
		 * Woken when the last child acks, or when the timer finds
		 * them quiet (nck_agg_delivered()); looked at every
		 * NCK_AGG_RECLAIM_POLL_MS too.
		 */
		left = min_t(long, left,
			     msecs_to_jiffies(NCK_AGG_RECLAIM_POLL_MS));
		if (wait_event_interruptible_timeout(c->agg.wq,
						     nck_agg_reclaim_ready(c, frees),
						     left) < 0)
			return ERR_PTR(-EINTR);
	}
}

/* The process posts the broadcast its data started; c->lock released. */
static struct nck_agg_op *nck_agg_take_over_out(struct nck_comm *c,
						const struct nck_agg_args *a,
						unsigned long end)
	__releases(&c->lock)
{
	struct sk_buff_head txq;
	struct nck_agg_op *op;

	__skb_queue_head_init(&txq);
	op = nck_agg_take_over(c, a, end, &txq);
	nck_agg_queue_out(c, &txq);
	spin_unlock_bh(&c->lock);
	nck_agg_push_out(c);
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
	unsigned long end = jiffies +
		msecs_to_jiffies(a->timeout_ms ?: c->timeout_ms);
	struct nck_agg_op *op;
	struct sk_buff_head txq;
	u32 esize;
	int err;

	err = nck_agg_check_args(c, a, &esize);
	if (err)
		return ERR_PTR(err);
	spin_lock_bh(&c->lock);
	c->agg.budget_ms = a->timeout_ms ?: c->timeout_ms;
	if (c->agg.posted != c->agg.next)
		return nck_agg_take_over_out(c, a, end);
	spin_unlock_bh(&c->lock);

	op = nck_agg_prepare(c, a, esize, NETCOLL_NONE);
	if (PTR_ERR_OR_ZERO(op) == -ENOBUFS)
		op = nck_agg_prepare_wait(c, a, esize, end);
	if (!op) {
		spin_lock_bh(&c->lock);
		return nck_agg_take_over_out(c, a, end);
	}
	if (IS_ERR(op))		/* E2BIG: over the limit, as any other */
		return PTR_ERR(op) == -E2BIG ? ERR_PTR(-ENOBUFS) : op;
	op->deadline = end;	/* its wait for memory included */
	err = nck_join_wait(c, op->deadline);
	if (err) {
		nck_agg_op_discard(c, op);
		return ERR_PTR(err);
	}

	spin_lock_bh(&c->lock);
	err = nck_agg_wait_turn(c, op);
	if (err) {
		spin_unlock_bh(&c->lock);
		nck_agg_op_discard(c, op);
		return ERR_PTR(err);
	}
	if (c->agg.posted != c->agg.next) {	/* its data started it */
		struct nck_agg_op *ours = op;

		op = nck_agg_take_over_out(c, a, end);
		nck_agg_op_discard(c, ours);
		return op;
	}
	__skb_queue_head_init(&txq);
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

	/*
	 * A finished result no longer changes (a complete piece takes no
	 * fragment: nck_agg_in_up): copy it without the lock.
	 */
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
	/* stopped: no repairs to answer, nor a timer to end the linger */
	if (op->complete && c->dead)
		nck_agg_unslot(c, op);
	if (op->complete && nck_agg_delivered(c, op))	/* reclaimable now */
		nck_agg_early_rescan(c);
	else if (op->complete)	/* once the children have it, or are quiet */
		nck_agg_arm_quiet(c, op);
	nck_agg_op_put(c, op);
	spin_unlock_bh(&c->lock);
	nck_agg_wake(c);	/* callers queued behind it (OSO) */
}

/*
 * An operation's result reached all our children, and it is finished
 * and released: its memory may be reclaimed now.  A start its data
 * announced may fit (nck_agg_early_rescan()), and so may a poster's
 * (nck_agg_start()).
 */
void nck_agg_memory_freeable(struct nck_comm *c)
{
	lockdep_assert_held(&c->lock);
	c->agg.frees++;
	nck_agg_early_rescan(c);
	nck_agg_wake(c);
}

/*
 * The bound endpoint closed (its posted operations released first): what
 * it finished stays only for repairs, and the broadcasts their data
 * started for it (c->agg.posted behind c->agg.next) end as its posted
 * ones did, cancelled.  Left, each would hold its vector, charged, for
 * the hour-long budget an unposted broadcast waits for its process.  Its
 * sequence number counts as posted: the ranks' sequences may now
 * disagree, and the cancellation breaks the communicator
 * (nck_agg_complete), as a cancelled posted operation does.  A start the
 * worker is making is waited for, so that it is among them; data that
 * comes later starts a broadcast for a process that binds later, as on a
 * communicator nobody bound yet.
 */
void nck_agg_close(struct nck_comm *c)
{
	struct nck_agg_op *op;
	u32 i;

	flush_work(&c->agg.bcast_work);
	spin_lock_bh(&c->lock);
	for (; c->agg.posted != c->agg.next; c->agg.posted++) {
		op = nck_agg_find(c, c->agg.posted);
		if (!op || !op->unposted)	/* freed by a stop */
			continue;
		op->unposted = false;
		op->released = true;
		if (!op->complete) {
			nck_agg_complete(c, op, -ECANCELED);
			nck_stat_inc(c->nn, NETCOLL_STAT_OPS_CANCELLED);
		}
		nck_agg_unslot(c, op);
	}
	for (i = 0; i < NCK_AGG_SLOTS; i++) {
		op = c->agg.slot[i];
		if (op && op->complete && op->released)
			nck_agg_linger(c, op);
	}
	spin_unlock_bh(&c->lock);
	nck_agg_wake(c);	/* callers queued behind them (OSO) */
}

/* -- Communicator life ------------------------------------------- */

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

		if (!op)
			continue;
		nck_agg_complete(c, op, err);
		/*
		 * Nobody asks a stopped communicator for repairs: an operation
		 * its poster let go of (or a broadcast its data started, which
		 * has none) leaves now, not when the last endpoint closes; one
		 * a poster still holds keeps its buffer for the WAIT, not the
		 * frames it held.
		 */
		if (op->released || op->unposted)
			nck_agg_unslot(c, op);
		else
			nck_agg_drop_held(c, op);
	}
	skb_queue_splice_init(&c->agg.early, &early);
	nck_early_books_purge(c, &c->agg.books);
	spin_unlock_bh(&c->lock);
	nck_rx_purge(c, &early);
	nck_agg_wake(c);
	hrtimer_cancel(&c->agg.timer);
	/* A pending worker's reference is ours to drop (c->dead: no new one). */
	if (cancel_work_sync(&c->agg.work))
		nck_comm_put(c);
	if (cancel_work_sync(&c->agg.bcast_work))
		nck_comm_put(c);
	if (cancel_work_sync(&c->tx_work))	/* the engine's frames (frame.h) */
		nck_comm_put(c);
	nck_agg_purge_deferred(c);
}

/* Last reference gone (stopped before, no endpoint left): free everything. */
void nck_agg_free(struct nck_comm *c)
{
	u32 i;

	for (i = 0; i < NCK_AGG_SLOTS; i++)
		if (c->agg.slot[i] && refcount_dec_and_test(&c->agg.slot[i]->ref))
			nck_agg_op_free(c, c->agg.slot[i]);	/* nobody waits */
	nck_agg_purge_deferred(c);
	nck_rx_purge(c, &c->agg.early);
	nck_early_books_purge(c, &c->agg.books);
	for (i = 0; i < NETCOLL_TREES_MAX; i++)
		kfree(c->agg.trees[i]);
	kvfree(c->agg.bcast_order);
}

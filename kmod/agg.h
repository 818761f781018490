/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The aggregation engine (agg.c, agg_tx.c, agg_rx.c, agg_timer.c): reduce,
 * allreduce and barrier on trees, run by the receive path.  Its state
 * lives in struct nck_agg, one per communicator (embedded in it as c->agg);
 * its operations (struct nck_agg_op, private to the engine: agg_op.h) are
 * reference counted: the engine's slot and the endpoint that posted one
 * hold a reference each (see agg.c).
 */
#ifndef NCK_AGG_H
#define NCK_AGG_H

#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/skbuff.h>
#include <linux/hrtimer.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/netcoll.h>

#include "rel.h"

struct nck_comm;
struct nck_agg_op;
struct nc_frame;
struct nck_tree;

/* Ops in flight at most per communicator: slots for 2 * OSO sequences. */
#define NCK_AGG_SLOTS		(2 * NETCOLL_OSO_MAX)
/* Operation sizes timed apart: by log2 of their fragments, 1 .. 64+. */
#define NCK_AGG_OP_CLASSES	8

/**
 * struct nck_agg - a communicator's aggregation state
 * @oso: outstanding operations per rank (fixed at creation)
 * @tree_degree: degree of the built-in f-nomial trees (fixed)
 * @tree_lock: protects @trees (a mutex: installs allocate and sleep);
 *	writers of @trees and @bcast_order hold RTNL too (tree.c), so RTNL
 *	holders may read them without it
 * @trees: the trees pieces run on (built-in ones made at creation)
 * @bcast_order: [size], the order broadcasts place the ranks in
 *	(nck_tree_fnomial_ordered()); NULL: rank order; @tree_lock
 * @slot: operations by sequence % (2 * @oso); c->lock
 * @next: sequence of the next operation to start here; c->lock (read
 *	racily for dumps)
 * @posted: sequence of the next operation this rank's process posts;
 *	behind @next by the broadcasts their data started (nck_agg_start
 *	takes those over); c->lock
 * @early_bcast: a broadcast's data frame came for @next before its
 *	process posted: its sender, root, length and fragment size for
 *	@bcast_work, @early_bcast.queued until the worker is done;
 *	@early_bcast.held: @early may hold broadcast data (a hint: it
 *	spares nck_agg_early_rescan() its walk); @early_bcast.refused,
 *	refused_seq, refused_src, refused_root: the worker refused to start
 *	that sequence from that sender's data naming that root (not our
 *	parent in its tree): it is dropped, held and arriving
 *	(nck_agg_early_refuse()); @early_bcast.waiting: the worker could
 *	not start @early_bcast.seq for now (the OSO window or the memory
 *	limit): its data queues the worker again only after an operation
 *	finished or was released (nck_agg_early_rescan(), which counts
 *	itself in @early_bcast.rescans: one during the worker's try means
 *	it tries again); c->lock
 * @bcast_work: starts that broadcast (it allocates: not in softirq)
 * @budget_ms: the time budget this rank's process last posted with (0:
 *	none yet); a broadcast its data starts waits for its data at least
 *	as long (nck_agg_unposted_ms()); c->lock
 * @rtt: round trip of fragments going up; c->lock
 * @dn_rtt: from sending a windowed result's fragment to a child to its
 *	ack, queues included; c->lock
 * @op_rtt: per size class, from a reduction's start here to its result,
 *	the slowest rank's posting included; not windowed ones, not ones
 *	that timed out (Karn); its timeout is a floor under the
 *	operation's (nck_agg_progress); c->lock
 * @repeating: small operations are sent twice (a loss was seen); c->lock
 * @repeat_until: ... until this operation; c->lock
 * @early: frames of operations not started here yet; c->lock
 * @books: which fragments going up @early holds, to ack them; c->lock
 * @timer: retransmission and deadlines of every operation (an hrtimer
 *	in softirq: a round trip is well under a tick); runs under c->lock
 * @work: float frames softirq could not reduce (no FPU there)
 * @deferred: those frames; the queue's own lock
 * @wq: callers waiting for a result, for an OSO slot or for memory
 * @frees: operations freed so far, for a poster waiting for memory
 *	(nck_agg_prepare_wait()); c->lock
 */
struct nck_agg {
	u32 oso;
	u32 tree_degree;
	struct mutex tree_lock;	/* protects trees[] */
	struct nck_tree *trees[NETCOLL_TREES_MAX];
	u32 *bcast_order;
	struct nck_agg_op *slot[NCK_AGG_SLOTS];
	u32 next;
	u32 posted;
	struct {
		u32 seq, src, root, len, fs;
		u32 refused_seq, refused_src, refused_root;
		u32 rescans;
		bool queued, held, refused, waiting;
	} early_bcast;
	struct work_struct bcast_work;
	u32 budget_ms;
	struct nck_rtt rtt;
	struct nck_rtt dn_rtt;
	struct nck_rtt op_rtt[NCK_AGG_OP_CLASSES];
	bool repeating;
	u32 repeat_until;
	struct sk_buff_head early;
	struct nck_early_books books;
	struct hrtimer timer;
	struct work_struct work;
	struct sk_buff_head deferred;
	wait_queue_head_t wq;
	u32 frees;
};

/* One reduction as the caller describes it (checked by coll_reduce.c). */
struct nck_agg_args {
	const void __user *sendbuf;
	void __user *recvbuf;
	u64 count;
	u32 op, dtype, root, flags, split;
	u32 timeout_ms;
};

int nck_agg_init(struct nck_comm *c);
void nck_agg_stop(struct nck_comm *c, int err);
void nck_agg_free(struct nck_comm *c);
struct nck_agg_op *nck_agg_start(struct nck_comm *c, const struct nck_agg_args *a);
int nck_agg_wait(struct nck_comm *c, struct nck_agg_op *op);
bool nck_agg_done(const struct nck_agg_op *op);
/* May the calling process WAIT for op: did it post it (agg_op.h)? */
bool nck_agg_posted_by_current(const struct nck_agg_op *op);
void nck_agg_release(struct nck_comm *c, struct nck_agg_op *op, bool cancel);
void nck_agg_rcv(struct nck_comm *c, struct sk_buff *skb,
		 const struct nc_frame *f);
int nck_agg_set_tree(struct nck_comm *c, u32 index, struct nck_tree *t);
/* Installs order (kvmalloc'ed, checked; NULL: none) and frees the old one. */
void nck_agg_set_bcast_order(struct nck_comm *c, u32 *order);
bool nck_agg_reclaim(struct nck_comm *c, bool *pending);
/* The bound endpoint closed: cancels the broadcasts its data started. */
void nck_agg_close(struct nck_comm *c);
/* c's reductions in flight, for /proc/net/netcoll_ops (procfs.c). */
void nck_agg_show(struct seq_file *m, struct nck_comm *c);

#endif /* NCK_AGG_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * The aggregation engine's timer: retransmission of fragments going up,
 * requests for a result or for children's fragments on a timeout, holes
 * old enough to ask for, operations' time budgets and lingering finished
 * ones; and what an operation waits for, in the kernel log when it fails
 * (dynamic debug) and in /proc/net/netcoll_ops while it runs.
 *
 * One hrtimer per communicator (c->agg.timer) for all its operations, in
 * softirq (HRTIMER_MODE_ABS_SOFT: a round trip is well under a tick); it
 * runs under c->lock.  nck_agg_show() runs in process context (procfs.c)
 * and takes c->lock itself.
 */
#include <linux/seq_file.h>

#include "agg_op.h"

/*
 * A timeout while children's fragments are missing: each child that owes
 * some gets our ack of its fragments, asking for an answer.  A child that
 * has not started the operation, or waits for its own children, answers
 * that it is alive (else a late subtree failed us: docs/agg-design.md);
 * one whose frames were lost learns which from the ack.  Only a dead
 * child stays silent, which the retry count is for.
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
	/*
	 * This timeout asked children (for any piece): time the request,
	 * unless one is outstanding -- then an answer could be to either (Karn).
	 */
	if (asked && op->ask_ns) {
		op->ask_ns = 0;
		op->ask_again = true;
	} else if (asked && !op->ask_again) {
		op->ask_ns = ktime_get_ns();
	}
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
	seq_printf(m, "comm %u rank %u/%u: next %u posted %u oso %u queued %u early %u mem %lld/%u%s%s\n",
		   c->id, c->rank, c->size, c->agg.next, c->agg.posted,
		   c->agg.oso, skb_queue_len(&c->txq),
		   skb_queue_len(&c->agg.early),
		   (long long)atomic64_read(&c->mem_used), c->mem_max,
		   c->dead ? " dead" : "",
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

/*
 * op failed here.  A broadcast its data started leaves at once: no
 * process holds it, and left in its slot it held its vector, charged,
 * until a post, a close or a delete.  The failure broke the communicator,
 * so that post is told ENOTRECOVERABLE (nck_agg_take_over()).
 */
static void nck_agg_fail(struct nck_comm *c, struct nck_agg_op *op, int err)
{
	nck_agg_complete(c, op, err);
	if (op->unposted)
		nck_agg_unslot(c, op);
}

/*
 * A tail probe (a finished operation does not retransmit its result on
 * timeouts: children ask for what they lack): a child that got all of it
 * asks for nothing, and if its last ack was lost the memory stayed held
 * for the whole quiet period -- 5 s per lost ack under a tight memory
 * limit.  So after an RTO of the results' round trip without news (then
 * twice that, and four times), each child that has not acked it all is
 * sent again the oldest fragment it did not ack and the newest its ack
 * can show (nck_frags_probe()); its copy of a fragment it holds makes it
 * ack again (a duplicate).  From the repair budget, as every resend.
 */
#define NCK_AGG_DN_PROBES	3

static u64 nck_agg_dn_probe_at(struct nck_comm *c, struct nck_agg_op *op)
{
	if (op->dn_probes >= NCK_AGG_DN_PROBES)
		return U64_MAX;
	return op->dn_heard_ns + (nck_rtt_rto(&c->agg.dn_rtt) << op->dn_probes);
}

/*
 * op finished and was released, but its children still owe acks of its
 * result: nothing may come to say it became reclaimable when they turn
 * out quiet (nck_agg_delivered()), so the timer looks then and tells a
 * start waiting for memory.  Under c->lock.
 */
void nck_agg_arm_quiet(struct nck_comm *c, struct nck_agg_op *op)
{
	lockdep_assert_held(&c->lock);
	nck_agg_arm(c, min(op->dn_heard_ns + op->rtx.quiet_min,
			   nck_agg_dn_probe_at(c, op)));
}

static void nck_agg_dn_probe(struct nck_comm *c, struct nck_agg_op *op,
			     struct sk_buff_head *txq)
{
	u32 j, i;

	op->dn_probes++;
	for (j = 0; j < op->npieces; j++) {
		struct nck_agg_piece *p = &op->piece[j];

		for (i = 0; p->dn && i < p->nchildren; i++) {
			struct nck_agg_dn_ctx x = { c, op, p, i, txq, false };

			if (p->dn_next[i] == p->nfrags &&
			    !nck_frags_full(&p->dn[i]))
				nck_frags_probe(&p->dn[i], p->dn_next[i],
						nck_agg_resend_down, &x);
		}
	}
}

/* The timer's part of nck_agg_arm_quiet(): true while op is to be watched. */
static bool nck_agg_watch_quiet(struct nck_comm *c, struct nck_agg_op *op,
				u64 now_ns, u64 *next,
				struct sk_buff_head *txq)
{
	if (!op->released || op->freeable_told)
		return false;
	if (nck_agg_delivered(c, op)) {
		op->freeable_told = true;
		nck_agg_memory_freeable(c);
		return false;
	}
	if (now_ns >= nck_agg_dn_probe_at(c, op))
		nck_agg_dn_probe(c, op, txq);
	*next = min3(*next, op->dn_heard_ns + op->rtx.quiet_min,
		     nck_agg_dn_probe_at(c, op));
	return true;
}

enum hrtimer_restart nck_agg_timer(struct hrtimer *t)
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
			again |= nck_agg_watch_quiet(c, op, now_ns, &next, &txq);
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
			nck_agg_fail(c, op, -ETIMEDOUT);
			continue;
		}
		/*
		 * A broadcast its data started, waiting for our process
		 * alone: nobody to ask, no retry counted; its time budget
		 * still runs.
		 */
		if (op->unposted && op->piece[0].complete) {
			nck_rtx_progress(&op->rtx, &c->agg.rtt, 0, now_ns);
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
			 * (docs/agg-design.md, "The protocol"), not for a queue.
			 */
			int err = nck_rtx_expired(&op->rtx);

			if (err < 0) {
				nck_agg_debug_dump(c, op, "no answer");
				nck_agg_fail(c, op, err);
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

// SPDX-License-Identifier: GPL-2.0
/*
 * Frames: building the header every frame of a communicator carries, and
 * sending, for every engine.  Every frame leaves through
 * nck_frame_xmit_to(): there it gets its priority (control frames first)
 * and, on a keyed communicator, its tag, and a frame for another rank of
 * this host is turned back into the host's own receive path.
 */
#include "auth.h"
#include "bearer.h"
#include "frame.h"

/* Room for a link header in front and an auth trailer behind. */
struct sk_buff *nck_frame_alloc(unsigned int payload, gfp_t gfp)
{
	struct sk_buff *skb;

	skb = alloc_skb(LL_MAX_HEADER + NETCOLL_HDR_LEN + payload +
			NETCOLL_AUTH_LEN, gfp);
	if (skb)
		skb_reserve(skb, LL_MAX_HEADER);
	return skb;
}

/* Payload bytes a frame of c may carry: the device MTU less our headers. */
unsigned int nck_comm_payload_max(struct nck_comm *c)
{
	unsigned int mtu = nck_comm_mtu(c);
	unsigned int hdr = NETCOLL_HDR_LEN + (c->auth ? NETCOLL_AUTH_LEN : 0);

	return mtu > hdr ? mtu - hdr : 0;
}

/* Header fields every frame of c carries. */
void nck_frame_hdr(struct nck_comm *c, struct nc_frame *f, u16 type, u32 seq,
		   u32 dst, u16 tag)
{
	memset(f, 0, sizeof(*f));
	f->type = type;
	f->comm_id = c->id;
	f->cookie = c->cookie;
	f->epoch = READ_ONCE(c->epoch);
	f->op_seq = seq;
	f->src_rank = c->rank;
	f->dst_rank = dst;
	f->tag = tag;
}

/*
 * c has other ranks on this host: what is for them stays on the host (a
 * frame for one of them never reaches the wire; the group's frames go to
 * both).  Consumes skb.
 */
static int nck_frame_xmit_host(struct nck_comm *c, struct nck_bearer *b,
			       struct sk_buff *skb, const u8 *dst)
{
	struct sk_buff *copy;

	if (nck_addr_equal(dst, nck_comm_addr(c, c->rank), c->addr_len))
		return b->ops->xmit_local(b, skb, dst);
	if (nck_addr_equal(dst, c->mcast_addr, c->addr_len)) {
		copy = skb_clone(skb, GFP_ATOMIC);
		/* lost on one side only: repaired like any lost frame */
		if (!copy || b->ops->xmit_local(b, copy, dst))
			nck_stat_inc(c->nn, NETCOLL_STAT_DROP_TX);
	}
	return b->ops->xmit(b, skb, dst);
}

/* A frame's priority and, on a keyed communicator, its tag; consumes skb on error. */
static int nck_frame_seal(struct nck_comm *c, struct sk_buff *skb)
{
	/*
	 * Frames without payload (acks, synchronisation tokens, repair
	 * requests, joins) are control traffic: in a priority-aware qdisc
	 * (pfifo_fast band 0, or a switch's strict-priority class) they do
	 * not queue behind this host's own data, which would hold back
	 * every pairwise synchronisation by a full queue's delay.
	 */
	skb->priority = skb->len > NETCOLL_HDR_LEN ? TC_PRIO_INTERACTIVE_BULK :
						     TC_PRIO_CONTROL;
	if (c->auth && nck_auth_seal(c->auth, skb)) {
		kfree_skb(skb);
		nck_stat_inc(c->nn, NETCOLL_STAT_DROP_TX);
		return -ENOBUFS;
	}
	return 0;
}

/*
 * Hand skb, n sealed frames (header and payload, encoded; several only
 * from nck_frames_gso()), to the communicator's bearer, for dst; consumes
 * skb.
 */
static int nck_frame_out(struct nck_comm *c, struct sk_buff *skb,
			 const u8 *dst, u32 n)
{
	unsigned int len = skb->len;
	struct nck_bearer *b;
	int err;

	rcu_read_lock();
	b = rcu_dereference(c->bearer);
	if (!b) {
		rcu_read_unlock();
		kfree_skb(skb);
		return -ENETDOWN;
	}
	if (c->host_shared)
		err = nck_frame_xmit_host(c, b, skb, dst);
	else
		err = b->ops->xmit(b, skb, dst);
	rcu_read_unlock();
	if (err) {
		if (err == -ENOBUFS)	/* the device's queue is full */
			WRITE_ONCE(c->tx_full_at, jiffies | 1);
		nck_stat_add(c->nn, NETCOLL_STAT_DROP_TX, n);
		return -ENOBUFS;
	}
	nck_stat_add(c->nn, NETCOLL_STAT_TX_FRAMES, n);
	nck_stat_add(c->nn, NETCOLL_STAT_TX_BYTES, len);
	if (n > 1)
		nck_stat_inc(c->nn, NETCOLL_STAT_TX_GSO);
	return 0;
}

static int nck_frame_xmit_to(struct nck_comm *c, struct sk_buff *skb, const u8 *dst)
{
	return nck_frame_seal(c, skb) ?: nck_frame_out(c, skb, dst, 1);
}

int nck_frame_xmit(struct nck_comm *c, struct sk_buff *skb, u32 peer)
{
	return nck_frame_xmit_to(c, skb, nck_comm_addr(c, peer));
}

/* Onto a builder's list (frame.h); dst: a rank or NETCOLL_RANK_GROUP. */
void nck_frame_defer(struct sk_buff_head *q, struct sk_buff *skb, u32 dst)
{
	nck_skb_cb(skb)->dst = dst;
	nck_skb_cb(skb)->repair = false;
	__skb_queue_tail(q, skb);
}

/* Send a frame nck_frame_defer() queued; consumes skb. */
static int nck_frame_send_deferred(struct nck_comm *c, struct sk_buff *skb)
{
	u32 dst = nck_skb_cb(skb)->dst;

	return nck_frame_xmit_to(c, skb, dst == NETCOLL_RANK_GROUP ?
				 c->mcast_addr : nck_comm_addr(c, dst));
}

void nck_frames_flush(struct nck_comm *c, struct sk_buff_head *q)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(q)))
		nck_frame_send_deferred(c, skb);
}

/*
 * Repairs in q (struct nck_skb_cb) never went out: each run of one
 * operation's goes back to its budget (c->lock held).
 */
static void nck_frames_refund(struct nck_comm *c, struct sk_buff_head *q)
{
	u32 seq = 0, n = 0;
	struct sk_buff *skb;

	lockdep_assert_held(&c->lock);
	if (!c->repairs_refused)
		return;
	skb_queue_walk(q, skb) {
		const struct nck_skb_cb *cb = nck_skb_cb(skb);

		if (!cb->repair)
			continue;
		if (n && cb->seq != seq) {
			c->repairs_refused(c, seq, n);
			n = 0;
		}
		seq = cb->seq;
		n++;
	}
	if (n)
		c->repairs_refused(c, seq, n);
}

/* Bytes of buffers c's send queue may hold (frame.h). */
static u32 nck_txq_limit(const struct nck_comm *c)
{
	return min(NCK_TXQ_MEM, c->mem_max);
}

/*
 * Under c->lock: q's frames go after those queued before, as far as the
 * queue has room (frame.h); the rest are dropped, and the repairs among
 * them given back as the device's refusals are (nck_frames_push()): the
 * full queue is our own congestion, not the work a peer's requests cost.
 */
void nck_frames_queue(struct nck_comm *c, struct sk_buff_head *q)
{
	struct sk_buff_head over;
	struct sk_buff *skb;
	unsigned long flags;
	u32 kept = 0, dropped, limit = nck_txq_limit(c);

	lockdep_assert_held(&c->lock);
	if (skb_queue_empty(q))
		return;
	__skb_queue_head_init(&over);
	spin_lock_irqsave(&c->txq.lock, flags);
	skb_queue_walk(q, skb) {
		if (c->txq_mem + skb->truesize > limit)
			break;
		c->txq_mem += skb->truesize;
		kept++;
	}
	/* the first that did not fit and all after it: the order is kept */
	while (skb_queue_len(q) > kept)
		__skb_queue_head(&over, __skb_dequeue_tail(q));
	skb_queue_splice_tail_init(q, &c->txq);
	spin_unlock_irqrestore(&c->txq.lock, flags);
	dropped = skb_queue_len(&over);
	if (!dropped)
		return;
	WRITE_ONCE(c->tx_full_at, jiffies | 1);
	nck_stat_add(c->nn, NETCOLL_STAT_DROP_TX, dropped);
	nck_frames_refund(c, &over);
	__skb_queue_purge(&over);
}

/*
 * The next frame to send, refilling batch with all of c's queue when
 * empty, *rounds times at most.
 */
static struct sk_buff *nck_frames_next(struct nck_comm *c,
				       struct sk_buff_head *batch, u32 *rounds)
{
	unsigned long flags;

	if (skb_queue_empty(batch) && *rounds &&
	    !skb_queue_empty_lockless(&c->txq)) {
		(*rounds)--;
		spin_lock_irqsave(&c->txq.lock, flags);
		skb_queue_splice_init(&c->txq, batch);
		c->txq_mem = 0;
		spin_unlock_irqrestore(&c->txq.lock, flags);
	}
	return __skb_dequeue(batch);
}

/* May c's frames leave several an skb, and how many bytes and frames? */
static bool nck_gso_limits(struct nck_comm *c, u32 *bytes, u32 *segs)
{
	struct nck_bearer *b;
	bool ok;

	rcu_read_lock();
	b = rcu_dereference(c->bearer);
	ok = b && b->ops->gso_limits && b->ops->gso_limits(b, bytes, segs);
	rcu_read_unlock();
	return ok;
}

/* Can frame skb join an skb of frames for dst (nck_frames_gso())? */
static bool nck_frame_joins(struct sk_buff *skb, u32 dst)
{
	const struct nck_skb_cb *cb = nck_skb_cb(skb);

	return cb->dst == dst && !cb->repair && skb->len > NETCOLL_HDR_LEN;
}

/*
 * skb and the frames after it in batch for its destination leave as one
 * skb as far as the bearer takes it (bearer_eth.c).  Not control frames,
 * repairs (refunded frame by frame) or a copy of the frame before (same
 * header after the flags): one loss must not take both.  False: alone.
 */
static bool nck_frames_gso(struct nck_comm *c, struct sk_buff *skb,
			   struct sk_buff_head *batch, int *err)
{
	u32 dst = nck_skb_cb(skb)->dst, tag = c->auth ? NETCOLL_AUTH_LEN : 0;
	struct sk_buff *next = skb_peek(batch), *tail = skb;
	u32 bytes, segs, mss, n = 1, from = offsetof(struct netcoll_hdr, comm_id);

	if (!next || !nck_frame_joins(skb, dst) || !nck_frame_joins(next, dst) ||
	    !nck_gso_limits(c, &bytes, &segs) || skb->len + tag > bytes)
		return false;
	*err = nck_frame_seal(c, skb);
	if (*err)
		return true;	/* dropped, counted */
	mss = skb->len;
	bytes -= skb->len;
	while (n < segs && (next = skb_peek(batch)) &&
	       nck_frame_joins(next, dst) && next->len + tag <= bytes &&
	       memcmp(tail->data + from, next->data + from, NETCOLL_HDR_LEN - from)) {
		__skb_unlink(next, batch);
		if (nck_frame_seal(c, next))
			continue;
		/* skb_segment_list() finds each frame at its network header */
		skb_reset_network_header(next);
		skb_reset_transport_header(next);
		if (tail == skb)
			skb_shinfo(skb)->frag_list = next;
		else
			tail->next = next;
		tail = next;
		skb->len += next->len;
		skb->data_len += next->len;
		skb->truesize += next->truesize;
		bytes -= next->len;
		mss = max(mss, next->len);
		n++;
	}
	if (n > 1) {
		skb_shinfo(skb)->gso_type = SKB_GSO_FRAGLIST;
		skb_shinfo(skb)->gso_size = mss;
		skb_shinfo(skb)->gso_segs = n;
		/* as for NONE, nothing to checksum; NONE would be cut at once */
		skb->ip_summed = CHECKSUM_UNNECESSARY;
		skb_reset_transport_header(skb);
	}
	*err = nck_frame_out(c, skb, dst == NETCOLL_RANK_GROUP ? c->mcast_addr :
				     nck_comm_addr(c, dst), n);
	return true;
}

u32 nck_frames_per_skb(struct nck_comm *c, u32 payload)
{
	u32 bytes, segs, len = NETCOLL_HDR_LEN + payload +
			       (c->auth ? NETCOLL_AUTH_LEN : 0);

	return nck_gso_limits(c, &bytes, &segs) ? clamp(bytes / len, 1U, segs) : 1;
}

int nck_frames_send(struct nck_comm *c, struct sk_buff_head *q, u32 *sent)
{
	struct sk_buff *skb;
	u32 left;
	int err = 0;

	*sent = 0;
	while (!err && (skb = __skb_dequeue(q))) {
		left = skb_queue_len(q);
		if (!nck_frames_gso(c, skb, q, &err))
			err = nck_frame_send_deferred(c, skb);
		if (!err)
			*sent += 1 + left - skb_queue_len(q);
	}
	__skb_queue_purge(q);
	return err;
}

/* The device refused n repairs of operation seq (c->lock not held). */
static void nck_frames_refused(struct nck_comm *c, u32 seq, u32 n)
{
	spin_lock_bh(&c->lock);
	c->repairs_refused(c, seq, n);
	spin_unlock_bh(&c->lock);
}

/*
 * Send c's queue unless another context is: that one sends ours too (it
 * looks again after it stops, so nothing queued meanwhile stays).  Bottom
 * halves stay on.  A repair our full device queue refused is given back
 * to the engine's repair budget; other refusals stay charged (why each:
 * docs/rel-design.md, "The transmit queue").
 */
void nck_frames_push(struct nck_comm *c)
{
	u32 seq = 0, refused = 0, rounds = NCK_TXQ_ROUNDS;
	struct sk_buff_head batch;
	struct sk_buff *skb;

	__skb_queue_head_init(&batch);
	while (!skb_queue_empty_lockless(&c->txq)) {
		if (!rounds) {		/* the rest is the worker's */
			if (refcount_inc_not_zero(&c->ref) &&
			    !queue_work(nck_wq, &c->tx_work))
				nck_comm_put(c);	/* queued already */
			break;
		}
		/*
		 * Our frames are queued: against the sender's clear and look
		 * again below this must be ordered even when it fails, which
		 * test_and_set_bit() is (a fully ordered RMW; the _lock variant
		 * may fail on a plain read), at no extra cost on x86
		 */
		if (test_and_set_bit(0, &c->tx_pushing))
			break;
		/* the whole queue at once: one lock round trip, not one a frame */
		while ((skb = nck_frames_next(c, &batch, &rounds))) {
			struct nck_skb_cb cb = *nck_skb_cb(skb);
			int err;

			if (nck_frames_gso(c, skb, &batch, &err))
				continue;
			if (!nck_frame_send_deferred(c, skb) || !cb.repair ||
			    !nck_comm_congested(c) || !c->repairs_refused)
				continue;
			if (refused && cb.seq != seq) {
				nck_frames_refused(c, seq, refused);
				refused = 0;
			}
			seq = cb.seq;
			refused++;
		}
		clear_bit_unlock(0, &c->tx_pushing);
		/* see what was queued while the bit still said "sending" */
		smp_mb__after_atomic();
	}
	if (refused)
		nck_frames_refused(c, seq, refused);
}

/* What a push left after its rounds (frame.h); the reference is ours. */
void nck_frames_tx_work(struct work_struct *work)
{
	struct nck_comm *c = container_of(work, struct nck_comm, tx_work);

	nck_frames_push(c);
	nck_comm_put(c);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Reliable delivery of the messages of one operation.
 *
 * An operation (barrier, alltoall, ...) is a list of messages to send and
 * a list to receive, each identified on the wire by (op_seq, src, dst, tag).
 * Messages are cut into fragments of the device MTU.  The receiver keeps a
 * bitmap per message (duplicates are recognised and re-acknowledged) and
 * answers with cumulative + selective acknowledgements; the sender keeps at
 * most nc_tx_window fragments in flight; a hole that selective acks
 * reveal is resent at once.  A retransmission timeout, which doubles on
 * every timeout without progress, resends what is unacknowledged; until
 * the operation has seen a hole, only each message's oldest and newest
 * such fragment, as a probe.  The timeout follows the measured round trip
 * (RFC 6298 smoothing, Karn's rule: no samples from retransmitted
 * fragments), so a receiver that is slow to run rarely causes spurious
 * retransmissions, and one that does costs two frames per message.
 * After nc_max_retries such timeouts, or when the operation's time budget
 * is spent, the operation fails with -ETIMEDOUT.  Nothing is left behind:
 * every exit path frees the operation and the frames queued for it.
 *
 * Data moves straight between user memory and skbs, so the copies run in
 * the calling process.  The receive handler (softirq) accounts and acks a
 * data frame on arrival and queues it for the process's copy; incoming
 * acks and everything else the sender does run in the process.  Frames
 * for an operation this host has not started yet are held (bounded)
 * until it starts; data frames of a finished operation are answered with
 * a whole-message ack, since a finished operation received everything.
 */
#include <linux/bsearch.h>
#include <linux/sort.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "auth.h"
#include "bearer.h"

/* Future operations whose frames we hold before they start. */
#define NC_EARLY_OPS		4

/*
 * Delayed acks: a receiver acks every NC_ACK_EVERY new fragments of a
 * message, when the message completes, and at once for retransmissions,
 * duplicates and fragments past a hole.  No sender can stall on this: its
 * window spans at most the tail of one message, which completes, and the
 * head of the next; NC_ACK_EVERY is well below nc_tx_window.
 */
#define NC_ACK_EVERY		8

/* An ack's selective bits: the fragments just past its cumulative point. */
#define NC_SACK_BITS		32

struct nc_msg {
	struct nc_msg_desc d;
	u32 nfrags;
	u32 frag_size;
	u32 done_cnt;		/* fragments received (rx) / acknowledged (tx) */
	unsigned long *done;	/* bitmap of those fragments */
	u32 next;		/* tx: first fragment never sent;
				 * rx: one past the highest fragment seen
				 */
	u32 cum;		/* fragments below cum are all done */
	u32 resent_below;	/* tx: holes below this were resent already */
	u32 since_ack;		/* rx: new fragments since our last ack */
	u32 copied;		/* rx: fragments copied to the user */
	/* rx fields but copied: c->lock (nc_rx_take) */
};

struct nc_key {
	u32 peer;
	u32 tag;
	u32 idx;
};

struct nc_op {
	struct nc_comm *c;
	u32 seq;
	u64 charge;		/* bytes of c->mem_used */
	struct sk_buff_head rxq;	/* filled in softirq under c->lock */

	struct nc_msg *tx, *rx;
	struct nc_key *tx_keys, *rx_keys;
	u32 ntx, nrx;
	u32 tx_first;		/* messages below are fully acknowledged */
	u32 tx_cur;		/* ordered messages below were sent completely */
	u32 nord;		/* tx[0 .. nord) ordered, the rest unordered */
	u32 unord_left;		/* unordered messages not sent completely */
	u32 tx_open, rx_open;	/* messages not finished */
	u32 inflight;		/* fragments sent, not acknowledged */
	u32 frag_size;
	bool tx_blocked;	/* the device pushed back; retry shortly */
	bool loss_seen;		/* an ack showed a hole: frames do get lost */

	unsigned long deadline;
	unsigned long rto_at;
	unsigned long rto;
	unsigned int retries;

	/* One fragment in flight is timed for the round-trip estimate. */
	struct nc_msg *probe;
	u32 probe_idx;
	u64 probe_sent;		/* ns */
};

static inline bool nc_seq_before(u32 a, u32 b)
{
	return (s32)(a - b) < 0;
}

/* ---------------------------------------------------------------- */
/* Frames                                                            */
/* ---------------------------------------------------------------- */

/* Room for a link header in front and an auth trailer behind. */
struct sk_buff *nc_frame_alloc(unsigned int payload, gfp_t gfp)
{
	struct sk_buff *skb;

	skb = alloc_skb(LL_MAX_HEADER + NETCOLL_HDR_LEN + payload +
			NETCOLL_AUTH_LEN, gfp);
	if (skb)
		skb_reserve(skb, LL_MAX_HEADER);
	return skb;
}

/* Payload bytes a frame of c may carry: the device MTU less our headers. */
unsigned int nc_comm_payload_max(struct nc_comm *c)
{
	unsigned int mtu = nc_comm_mtu(c);
	unsigned int hdr = NETCOLL_HDR_LEN + (c->auth ? NETCOLL_AUTH_LEN : 0);

	return mtu > hdr ? mtu - hdr : 0;
}

/* Header fields every frame of c carries. */
void nc_frame_hdr(struct nc_comm *c, struct nc_frame *f, u16 type, u32 seq,
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
 * Hand a frame (header and payload, encoded) to the communicator's
 * bearer, for dst; consumes skb.  Every frame of a keyed communicator
 * leaves here with its tag.
 */
int nc_frame_xmit_to(struct nc_comm *c, struct sk_buff *skb, const u8 *dst)
{
	unsigned int len;
	struct nc_bearer *b;
	int err;

	/*
	 * Frames without payload (acks, synchronisation tokens, repair
	 * requests, joins) are control traffic: in a priority-aware qdisc
	 * (pfifo_fast band 0, or a switch's strict-priority class) they do
	 * not queue behind this host's own data, which would hold back
	 * every pairwise synchronisation by a full queue's delay.
	 */
	skb->priority = skb->len > NETCOLL_HDR_LEN ? TC_PRIO_INTERACTIVE_BULK :
						     TC_PRIO_CONTROL;
	if (c->auth && nc_auth_seal(c->auth, skb)) {
		kfree_skb(skb);
		nc_stat_inc(c->nn, NETCOLL_STAT_DROP_TX);
		return -ENOBUFS;
	}
	len = skb->len;
	rcu_read_lock();
	b = rcu_dereference(c->bearer);
	if (!b) {
		rcu_read_unlock();
		kfree_skb(skb);
		return -ENETDOWN;
	}
	err = b->ops->xmit(b, skb, dst);
	rcu_read_unlock();
	if (err) {
		nc_stat_inc(c->nn, NETCOLL_STAT_DROP_TX);
		return -ENOBUFS;
	}
	nc_stat_inc(c->nn, NETCOLL_STAT_TX_FRAMES);
	nc_stat_add(c->nn, NETCOLL_STAT_TX_BYTES, len);
	return 0;
}

int nc_frame_xmit(struct nc_comm *c, struct sk_buff *skb, u32 peer)
{
	return nc_frame_xmit_to(c, skb, nc_comm_addr(c, peer));
}

/*
 * Frames built under c->lock wait on a list and leave once it is
 * released; cb holds each one's destination: a rank or NETCOLL_RANK_GROUP.
 */
void nc_frame_defer(struct sk_buff_head *q, struct sk_buff *skb, u32 dst)
{
	nc_skb_cb(skb)->dst = dst;
	__skb_queue_tail(q, skb);
}

void nc_frames_flush(struct nc_comm *c, struct sk_buff_head *q)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(q))) {
		u32 dst = nc_skb_cb(skb)->dst;

		nc_frame_xmit_to(c, skb, dst == NETCOLL_RANK_GROUP ?
				 c->mcast_addr : nc_comm_addr(c, dst));
	}
}

static struct sk_buff *nc_ack_build(struct nc_comm *c, u32 seq, u32 peer,
				    u16 tag, u32 cum, u32 bits, u16 flags)
{
	struct sk_buff *skb;
	struct nc_frame f;

	skb = nc_frame_alloc(0, GFP_ATOMIC);
	if (!skb) {
		nc_stat_inc(c->nn, NETCOLL_STAT_DROP_TX);
		return NULL;
	}
	nc_frame_hdr(c, &f, NETCOLL_T_ACK, seq, peer, tag);
	f.flags = flags;
	f.seq = cum;
	f.frag_off = bits;
	nc_wire_encode(skb_put(skb, NETCOLL_HDR_LEN), &f);
	nc_stat_inc(c->nn, NETCOLL_STAT_TX_ACKS);
	return skb;
}

static int nc_send_frag(struct nc_op *op, struct nc_msg *m, u32 idx, u16 flags)
{
	u32 off = idx * m->frag_size;
	u32 len = min(m->frag_size, m->d.len - off);
	struct sk_buff *skb;
	struct nc_frame f;

	skb = nc_frame_alloc(len, GFP_KERNEL);
	if (!skb)
		return -ENOMEM;
	nc_frame_hdr(op->c, &f, NETCOLL_T_DATA, op->seq, m->d.peer, m->d.tag);
	f.flags = flags;
	f.len = len;
	f.seq = idx;
	f.frag_off = off;
	f.msg_len = m->d.len;
	f.frag_size = m->d.len ? m->frag_size : 0;
	nc_wire_encode(skb_put(skb, NETCOLL_HDR_LEN), &f);
	if (len && copy_from_user(skb_put(skb, len), m->d.ubuf + off, len)) {
		kfree_skb(skb);
		return -EFAULT;
	}
	return nc_frame_xmit(op->c, skb, m->d.peer);
}

/* ---------------------------------------------------------------- */
/* Operation set-up                                                  */
/* ---------------------------------------------------------------- */

static int nc_key_cmp(const void *a, const void *b)
{
	const struct nc_key *x = a, *y = b;

	if (x->peer != y->peer)
		return x->peer < y->peer ? -1 : 1;
	if (x->tag != y->tag)
		return x->tag < y->tag ? -1 : 1;
	return 0;
}

static struct nc_msg *nc_msg_find(struct nc_msg *msgs, struct nc_key *keys,
				  u32 n, u32 peer, u16 tag)
{
	struct nc_key k = { .peer = peer, .tag = tag }, *hit;

	hit = bsearch(&k, keys, n, sizeof(k), nc_key_cmp);
	return hit ? &msgs[hit->idx] : NULL;
}

static int nc_msgs_init(struct nc_msg **msgs, struct nc_key **keys,
			const struct nc_msg_desc *d, u32 n)
{
	u32 i;

	*msgs = kvcalloc(n, sizeof(**msgs), GFP_KERNEL_ACCOUNT);
	*keys = kvcalloc(n, sizeof(**keys), GFP_KERNEL_ACCOUNT);
	if (!*msgs || !*keys)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		(*msgs)[i].d = d[i];
		(*keys)[i] = (struct nc_key){ d[i].peer, d[i].tag, i };
	}
	sort(*keys, n, sizeof(**keys), nc_key_cmp, NULL);
	return 0;
}

static void nc_msgs_free(struct nc_msg *msgs, struct nc_key *keys, u32 n)
{
	u32 i;

	for (i = 0; msgs && i < n; i++)
		bitmap_free(msgs[i].done);
	kvfree(msgs);
	kvfree(keys);
}

static void nc_op_free(struct nc_op *op)
{
	nc_msgs_free(op->tx, op->tx_keys, op->ntx);
	nc_msgs_free(op->rx, op->rx_keys, op->nrx);
	nc_comm_mem_release(op->c, op->charge);
	kfree(op);
}

/* What an operation's bookkeeping takes: messages, keys, bitmaps. */
static u64 nc_op_bytes(const struct nc_msg_desc *d, u32 n, u32 frag_size)
{
	u64 bytes = (u64)n * (sizeof(struct nc_msg) + sizeof(struct nc_key));
	u32 i;

	for (i = 0; i < n; i++)
		bytes += BITS_TO_LONGS(nc_wire_nfrags(d[i].len, frag_size)) *
			 sizeof(long);
	return bytes;
}

static struct nc_op *nc_op_alloc(struct nc_comm *c,
				 const struct nc_msg_desc *tx, u32 ntx,
				 const struct nc_msg_desc *rx, u32 nrx,
				 u32 frag_size, int *err)
{
	u64 charge = sizeof(struct nc_op) + nc_op_bytes(tx, ntx, frag_size) +
		     nc_op_bytes(rx, nrx, frag_size);
	struct nc_op *op;
	u32 i;

	/* Charged before it is allocated: over the limit is ENOBUFS. */
	*err = nc_comm_mem_reserve(c, charge);
	if (*err)
		return NULL;
	*err = -ENOMEM;
	op = kzalloc(sizeof(*op), GFP_KERNEL_ACCOUNT);
	if (!op) {
		nc_comm_mem_release(c, charge);
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
	skb_queue_head_init(&op->rxq);
	if (nc_msgs_init(&op->tx, &op->tx_keys, tx, ntx) ||
	    nc_msgs_init(&op->rx, &op->rx_keys, rx, nrx))
		goto fail;
	for (i = 0; i < ntx; i++) {
		struct nc_msg *m = &op->tx[i];

		m->frag_size = frag_size;
		m->nfrags = nc_wire_nfrags(m->d.len, frag_size);
		m->done = bitmap_zalloc(m->nfrags, GFP_KERNEL_ACCOUNT);
		if (!m->done)
			goto fail;
	}
	/*
	 * Receive bitmaps for senders that cut at our fragment size (the
	 * same MTU); nc_rx_take() replaces one in the rare other case.
	 */
	for (i = 0; i < nrx; i++) {
		struct nc_msg *m = &op->rx[i];

		m->done = bitmap_zalloc(nc_wire_nfrags(m->d.len, frag_size),
					GFP_KERNEL_ACCOUNT);
		if (!m->done)
			goto fail;
	}
	return op;
fail:
	nc_op_free(op);
	return NULL;
}

/* ---------------------------------------------------------------- */
/* Input, in process context                                         */
/* ---------------------------------------------------------------- */

/* RFC 6298: RTO = SRTT + 4 * RTTVAR, within [rto_min_ms, rto_max_ms]. */
static unsigned long nc_rto_base(const struct nc_comm *c)
{
	u32 us = c->srtt_us + 4 * c->rttvar_us;

	us = clamp(us, nc_rto_min_ms * USEC_PER_MSEC, nc_rto_max_ms * USEC_PER_MSEC);
	return usecs_to_jiffies(us) ?: 1;
}

static void nc_rtt_sample(struct nc_comm *c, u32 rtt_us)
{
	if (!c->srtt_us) {
		c->srtt_us = rtt_us;
		c->rttvar_us = rtt_us / 2;
		return;
	}
	c->rttvar_us = (3 * c->rttvar_us + abs((s32)(c->srtt_us - rtt_us))) / 4;
	c->srtt_us = (7 * c->srtt_us + rtt_us) / 8;
}

static void nc_op_progress(struct nc_op *op)
{
	op->retries = 0;
	op->rto = nc_rto_base(op->c);
	op->rto_at = jiffies + op->rto;
}

static void nc_tx_mark(struct nc_op *op, struct nc_msg *m, u32 idx,
		       bool *progress)
{
	if (test_and_set_bit(idx, m->done))
		return;
	m->done_cnt++;
	op->inflight--;
	*progress = true;
	if (op->probe == m && op->probe_idx == idx) {
		nc_rtt_sample(op->c, div_u64(ktime_get_ns() - op->probe_sent,
					     NSEC_PER_USEC));
		op->probe = NULL;
	}
	if (m->done_cnt == m->nfrags)
		op->tx_open--;
}

static int nc_resend(struct nc_op *op, struct nc_msg *m, u32 idx)
{
	int err;

	if (op->probe == m && op->probe_idx == idx)
		op->probe = NULL;	/* Karn: its ack would be ambiguous */
	err = nc_send_frag(op, m, idx, NETCOLL_F_ACK_NOW);
	if (err && err != -ENOBUFS)
		return err;
	nc_stat_inc(op->c->nn, NETCOLL_STAT_RETRANSMITS);
	return 0;
}

/* Fragments behind one the receiver selectively acked are lost: resend once. */
static int nc_fast_retransmit(struct nc_op *op, struct nc_msg *m, u32 sacked)
{
	u32 i;
	int err;

	for (i = max(m->cum, m->resent_below); i < sacked; i++) {
		if (test_bit(i, m->done))
			continue;
		err = nc_resend(op, m, i);
		if (err)
			return err;
		op->loss_seen = true;
	}
	m->resent_below = max(m->resent_below, sacked);
	return 0;
}

static int nc_input_ack(struct nc_op *op, const struct nc_frame *f)
{
	struct nc_msg *m;
	bool progress = false;
	u32 cum, i, sacked = 0;

	nc_stat_inc(op->c->nn, NETCOLL_STAT_RX_ACKS);
	m = nc_msg_find(op->tx, op->tx_keys, op->ntx, f->src_rank, f->tag);
	if (!m) {
		nc_stat_inc(op->c->nn, NETCOLL_STAT_DROP_STATE);
		return 0;
	}
	/* Nobody acknowledges what we never sent. */
	cum = (f->flags & NETCOLL_F_ACK_ALL) ? m->nfrags : f->seq;
	cum = min(cum, m->next);
	for (i = m->cum; i < cum; i++)
		nc_tx_mark(op, m, i, &progress);
	m->cum = max(m->cum, cum);
	for (i = 0; i < NC_SACK_BITS; i++) {
		u32 idx = cum + 1 + i;

		if (idx >= m->next)
			break;
		if (f->frag_off & (1U << i)) {
			nc_tx_mark(op, m, idx, &progress);
			sacked = idx;
		}
	}
	while (op->tx_first < op->ntx &&
	       op->tx[op->tx_first].done_cnt == op->tx[op->tx_first].nfrags)
		op->tx_first++;
	if (progress)
		nc_op_progress(op);
	return sacked ? nc_fast_retransmit(op, m, sacked) : 0;
}

/* The process's half of a data frame: copy it to the user. */
static int nc_input_data(struct nc_op *op, struct sk_buff *skb,
			 const struct nc_frame *f)
{
	struct iov_iter iter;
	struct nc_msg *m;
	struct iovec iov;
	int err;

	/* nc_rx_take() found the message and queued each fragment once. */
	m = nc_msg_find(op->rx, op->rx_keys, op->nrx, f->src_rank, f->tag);
	if (f->len) {
		err = import_single_range(ITER_DEST, m->d.ubuf + f->frag_off,
					  f->len, &iov, &iter);
		if (err)
			return err;
		if (skb_copy_datagram_iter(skb, NETCOLL_HDR_LEN, &iter, f->len))
			return -EFAULT;
	}
	if (++m->copied == m->nfrags)
		op->rx_open--;
	return 0;
}

/* ---------------------------------------------------------------- */
/* Receive bookkeeping and acks, under c->lock                        */
/* ---------------------------------------------------------------- */

/* Queue a frame of the running operation for its process. */
static bool nc_rxq_add(struct nc_op *op, struct sk_buff *skb)
{
	if (!nc_rx_charge(op->c, skb)) {
		nc_stat_inc(op->c->nn, NETCOLL_STAT_DROP_MEMORY);
		kfree_skb(skb);
		return false;
	}
	__skb_queue_tail(&op->rxq, skb);
	return true;
}

/* Cumulative point and the selective bits after it, for the sender. */
static void nc_ack_queue(struct nc_op *op, struct nc_msg *m,
			 struct sk_buff_head *acks)
{
	struct sk_buff *skb;
	u32 bits = 0, b;
	u16 flags = 0;

	m->since_ack = 0;
	m->cum = find_next_zero_bit(m->done, m->nfrags, m->cum);
	if (m->cum == m->nfrags)
		flags = NETCOLL_F_ACK_ALL;
	for (b = 0; b < NC_SACK_BITS && m->cum + 1 + b < m->nfrags; b++)
		if (test_bit(m->cum + 1 + b, m->done))
			bits |= 1U << b;
	skb = nc_ack_build(op->c, op->seq, m->d.peer, m->d.tag, m->cum, bits,
			   flags);
	if (skb)
		nc_frame_defer(acks, skb, m->d.peer);
}

/*
 * A frame of the running operation.  Data frames are accounted and acked
 * here, at arrival, and only their copy to the user waits for the
 * process: a receiver that is slow to be scheduled (or shares its CPU
 * with its peers) neither delays the sender's next phase nor makes its
 * retransmission timer fire.  An acked fragment is on op->rxq, which
 * only the operation's end (success or error) empties.  True: queued.
 */
static bool nc_rx_take(struct nc_op *op, struct sk_buff *skb,
		       const struct nc_frame *f, struct sk_buff_head *acks)
{
	struct nc_net *nn = op->c->nn;
	u32 idx = f->seq;
	bool ack_now;
	struct nc_msg *m;

	if (f->type == NETCOLL_T_ACK)
		return nc_rxq_add(op, skb);
	m = nc_msg_find(op->rx, op->rx_keys, op->nrx, f->src_rank, f->tag);
	if (!m) {
		nc_stat_inc(nn, NETCOLL_STAT_DROP_STATE);
		goto drop;
	}
	if (f->msg_len != m->d.len ||
	    (m->nfrags && f->msg_len && f->frag_size != m->frag_size)) {
		nc_stat_inc(nn, NETCOLL_STAT_DROP_LENGTH);
		goto drop;
	}
	if (!m->nfrags) {
		/* The sender's fragment size is fixed by its first frame. */
		u32 n = nc_wire_nfrags(m->d.len, f->frag_size);

		if (n > nc_wire_nfrags(m->d.len, op->frag_size)) {
			unsigned long *done;

			done = bitmap_zalloc(n, GFP_ATOMIC | __GFP_NOWARN);
			if (!done) {
				nc_stat_inc(nn, NETCOLL_STAT_DROP_MEMORY);
				goto drop;
			}
			bitmap_free(m->done);
			m->done = done;
		}
		m->frag_size = f->frag_size;
		m->nfrags = n;
	}
	if (test_bit(idx, m->done)) {
		nc_stat_inc(nn, NETCOLL_STAT_RX_DUPLICATES);
		nc_ack_queue(op, m, acks);
		consume_skb(skb);
		return false;
	}
	/* m->next is one past the highest fragment seen; other = a hole */
	ack_now = (f->flags & NETCOLL_F_ACK_NOW) || idx != m->next;
	if (!nc_rxq_add(op, skb))
		return false;
	__set_bit(idx, m->done);
	m->done_cnt++;
	m->next = max(m->next, idx + 1);
	if (ack_now || m->done_cnt == m->nfrags ||
	    ++m->since_ack >= NC_ACK_EVERY)
		nc_ack_queue(op, m, acks);
	return true;
drop:
	kfree_skb(skb);
	return false;
}

/* ---------------------------------------------------------------- */
/* Output                                                            */
/* ---------------------------------------------------------------- */

/* Received and copied; nfrags is known once a fragment was copied. */
static bool nc_rx_complete(const struct nc_msg *m)
{
	return m->copied && m->copied == m->nfrags;
}

/*
 * A token's wait is for its send and all sends before it: the pruned
 * schedule counts on a rank's sends completing in order (a token after
 * send k also stands for sends < k), and with retransmissions an earlier
 * send may be acknowledged after a later one.
 */
static bool nc_tx_may_start(const struct nc_op *op, const struct nc_msg *m)
{
	u32 i;

	for (i = m->d.wait_rx_lo; i < m->d.wait_rx_hi; i++)
		if (!nc_rx_complete(&op->rx[i]))
			return false;
	return m->d.wait_tx < 0 || op->tx_first > (u32)m->d.wait_tx;
}

/* Send the next fragment of m: 1 if sent, 0 if the device pushed back. */
static int nc_push_frag(struct nc_op *op, struct nc_msg *m)
{
	int err;

	err = nc_send_frag(op, m, m->next, 0);
	if (err == -ENOBUFS) {
		op->tx_blocked = true;
		return 0;
	}
	if (err)
		return err;
	if (!op->inflight)
		op->rto_at = jiffies + op->rto;
	if (!op->probe) {
		op->probe = m;
		op->probe_idx = m->next;
		op->probe_sent = ktime_get_ns();
	}
	m->next++;
	op->inflight++;
	return 1;
}

/*
 * Send what may go: unordered messages (synchronisation tokens: tiny, and
 * others wait for them) as soon as their conditions hold, then ordered
 * ones in list order while the window allows.
 */
static int nc_op_push(struct nc_op *op)
{
	u32 window = max(nc_tx_window, 1U), i;
	int ret;

	op->tx_blocked = false;
	for (i = op->nord; op->unord_left && i < op->ntx && !op->tx_blocked; i++) {
		struct nc_msg *m = &op->tx[i];

		if (m->next == m->nfrags || (!m->next && !nc_tx_may_start(op, m)))
			continue;
		while (m->next < m->nfrags) {
			ret = nc_push_frag(op, m);
			if (ret <= 0)
				return ret;
		}
		op->unord_left--;
	}
	while (op->tx_cur < op->nord && op->inflight < window && !op->tx_blocked) {
		struct nc_msg *m = &op->tx[op->tx_cur];

		if (m->next == m->nfrags) {
			op->tx_cur++;
			continue;
		}
		if (!m->next && !nc_tx_may_start(op, m))
			break;
		ret = nc_push_frag(op, m);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/*
 * Retransmission timeout.  Once an ack has shown a hole, frames do get
 * lost on this path and a timeout means more of them were: resend every
 * fragment still unacknowledged.  Before that, a timeout is most likely a
 * late ack (a receiver slow to run): per message, resend only the oldest
 * and the newest unacknowledged fragment, which ask for an ack at once;
 * its selective bits let nc_fast_retransmit() fill any holes between.
 * The hole is the operation's, not the message's: a message whose tail
 * a burst dropped shows no hole before its timeout, and probing it would
 * cost contended orders a round trip per burst.
 */
static int nc_msg_probe(struct nc_op *op, struct nc_msg *m)
{
	u32 f, last;
	int err;

	f = find_next_zero_bit(m->done, m->next, m->cum);
	if (f >= m->next)
		return 0;
	err = nc_resend(op, m, f);
	if (err)
		return err;
	/* Holes the coming ack shows go again, even if resent before. */
	m->resent_below = m->cum;
	/* The newest one the ack's selective bits can still show. */
	last = min(m->next, f + 1 + NC_SACK_BITS) - 1;
	while (last > f && test_bit(last, m->done))
		last--;
	return last > f ? nc_resend(op, m, last) : 0;
}

static int nc_msg_resend_all(struct nc_op *op, struct nc_msg *m)
{
	u32 f;
	int err;

	for (f = m->cum; f < m->next; f++) {
		if (test_bit(f, m->done))
			continue;
		err = nc_resend(op, m, f);
		if (err)
			return err;
	}
	return 0;
}

static int nc_op_retransmit(struct nc_op *op, u32 *stalled)
{
	u32 i;
	int err;

	if (++op->retries > nc_max_retries) {
		*stalled = op->tx[op->tx_first].d.peer;
		return -ETIMEDOUT;
	}
	nc_stat_inc(op->c->nn, NETCOLL_STAT_RTO_EXPIRED);
	for (i = op->tx_first; i < op->ntx; i++) {
		err = op->loss_seen ? nc_msg_resend_all(op, &op->tx[i]) :
				      nc_msg_probe(op, &op->tx[i]);
		if (err)
			return err;
	}
	op->rto = min(op->rto * 2, msecs_to_jiffies(nc_rto_max_ms) ?: 1);
	op->rto_at = jiffies + op->rto;
	return 0;
}

/* ---------------------------------------------------------------- */
/* The operation loop                                                */
/* ---------------------------------------------------------------- */

static bool nc_op_wake(struct nc_op *op)
{
	return !skb_queue_empty_lockless(&op->rxq) || READ_ONCE(op->c->dead);
}

/* Publish op as the running operation and take its early frames. */
static int nc_op_start(struct nc_comm *c, struct nc_op *op)
{
	struct sk_buff_head acks;
	struct sk_buff *skb, *tmp;
	int err = 0;

	__skb_queue_head_init(&acks);
	spin_lock_bh(&c->lock);
	err = nc_comm_usable(c);
	if (err)
		goto out;
	op->seq = c->next_seq;
	c->op = op;
	skb_queue_walk_safe(&c->early, skb, tmp) {
		struct nc_frame f;

		nc_skb_hdr(skb, &f);
		if (nc_seq_before(op->seq, f.op_seq))
			continue;
		__skb_unlink(skb, &c->early);
		nc_rx_uncharge(c, skb);
		if (f.op_seq == op->seq)
			nc_rx_take(op, skb, &f, &acks);
		else
			kfree_skb(skb);
	}
out:
	spin_unlock_bh(&c->lock);
	nc_frames_flush(c, &acks);
	return err;
}

/*
 * The running operation ends.  One that failed may have finished on some
 * ranks and not on others, which then disagree on what the next sequence
 * number means: the communicator is broken (nc_comm_break).
 */
static void nc_op_finish(struct nc_comm *c, struct nc_op *op, int err)
{
	struct sk_buff_head q;

	__skb_queue_head_init(&q);
	spin_lock_bh(&c->lock);
	c->op = NULL;
	c->next_seq++;
	if (err)
		nc_comm_break(c);
	skb_queue_splice_init(&op->rxq, &q);
	spin_unlock_bh(&c->lock);
	nc_rx_purge(c, &q);
}

static int nc_op_loop(struct nc_op *op, u32 *stalled)
{
	struct nc_comm *c = op->c;
	struct sk_buff_head q;
	struct sk_buff *skb;
	long left;
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

			nc_rx_uncharge(c, skb);
			nc_skb_hdr(skb, &f);
			if (f.type == NETCOLL_T_ACK)
				err = nc_input_ack(op, &f);
			else
				err = nc_input_data(op, skb, &f);
			consume_skb(skb);
		}
		if (err)
			break;
		if (!op->tx_open && !op->rx_open)
			break;

		if (time_after_eq(jiffies, op->deadline)) {
			err = -ETIMEDOUT;
			if (op->tx_first < op->ntx)
				*stalled = op->tx[op->tx_first].d.peer;
			break;
		}
		if (op->inflight && time_after_eq(jiffies, op->rto_at)) {
			err = nc_op_retransmit(op, stalled);
			if (err)
				break;
		}
		err = nc_op_push(op);
		if (err)
			break;

		left = op->deadline - jiffies;
		if (op->inflight && time_before(op->rto_at, op->deadline))
			left = op->rto_at - jiffies;
		if (op->tx_blocked)
			left = 1;
		left = wait_event_interruptible_timeout(c->wq, nc_op_wake(op),
							max(left, 1L));
		if (left < 0) {
			err = -EINTR;
			break;
		}
	}
	nc_rx_purge(c, &q);
	return err;
}

int nc_op_run(struct nc_comm *c, const struct nc_msg_desc *tx, u32 ntx,
	      const struct nc_msg_desc *rx, u32 nrx, u32 timeout_ms)
{
	struct nc_net *nn = c->nn;
	u32 stalled = U32_MAX;
	unsigned int room = nc_comm_payload_max(c);
	unsigned long deadline;
	struct nc_op *op;
	u32 frag_size;
	int err;

	if (!nc_comm_mtu(c))
		return c->dead ?: -ENETDOWN;
	if (!room)
		return -EMSGSIZE;
	frag_size = min_t(u32, room, U16_MAX);
	deadline = jiffies + msecs_to_jiffies(timeout_ms ?: c->timeout_ms);
	err = nc_join_wait(c, deadline);
	if (err)
		return err;

	op = nc_op_alloc(c, tx, ntx, rx, nrx, frag_size, &err);
	if (!op)
		return err;
	op->deadline = deadline;
	nc_op_progress(op);

	err = nc_op_start(c, op);
	if (!err) {
		err = nc_op_loop(op, &stalled);
		nc_op_finish(c, op, err);
	} else {
		nc_op_free(op);
		return err;	/* never started: nothing to report */
	}
	nc_op_free(op);

	if (!err) {
		nc_stat_inc(nn, NETCOLL_STAT_OPS_DONE);
		return 0;
	}
	nc_stat_inc(nn, NETCOLL_STAT_OPS_FAILED);
	if (err == -ETIMEDOUT)
		nc_stat_inc(nn, NETCOLL_STAT_OPS_TIMEDOUT);
	if (err == -ETIMEDOUT || err == -ENETDOWN || err == -ESHUTDOWN)
		nc_event_op_failed(c, c->next_seq - 1, -err, stalled);
	return err;
}

/* ---------------------------------------------------------------- */
/* Receive side, softirq                                             */
/* ---------------------------------------------------------------- */

void nc_transport_rcv(struct nc_comm *c, struct sk_buff *skb,
		      const struct nc_frame *f)
{
	struct nc_net *nn = c->nn;
	struct sk_buff_head acks;
	struct sk_buff *ack;
	struct nc_op *op;
	int drop = 0;
	bool wake = false;

	__skb_queue_head_init(&acks);

	spin_lock(&c->lock);
	op = c->op;
	if (c->dead) {
		drop = NETCOLL_STAT_DROP_STATE;
	} else if (op && f->op_seq == op->seq) {
		wake = nc_rx_take(op, skb, f, &acks);
	} else if (nc_seq_before(f->op_seq, c->next_seq)) {
		spin_unlock(&c->lock);
		/* A finished operation received everything: say so again. */
		if (f->type == NETCOLL_T_DATA) {
			nc_stat_inc(nn, NETCOLL_STAT_RX_DUPLICATES);
			ack = nc_ack_build(c, f->op_seq, f->src_rank, f->tag,
					   0, 0, NETCOLL_F_ACK_ALL);
			if (ack)
				nc_frame_xmit(c, ack, f->src_rank);
		}
		consume_skb(skb);
		return;
	} else if (f->op_seq - c->next_seq < NC_EARLY_OPS) {
		if (!nc_rx_charge(c, skb)) {
			drop = NETCOLL_STAT_DROP_MEMORY;
		} else {
			__skb_queue_tail(&c->early, skb);
			nc_stat_inc(nn, NETCOLL_STAT_RX_EARLY);
		}
	} else {
		drop = NETCOLL_STAT_DROP_STATE;
	}
	spin_unlock(&c->lock);

	nc_frames_flush(c, &acks);
	if (drop) {
		nc_stat_inc(nn, drop);
		kfree_skb(skb);
	} else if (wake) {
		wake_up(&c->wq);
	}
}

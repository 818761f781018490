// SPDX-License-Identifier: GPL-2.0
/*
 * The reliability core (rel.h): fragment sets and their acks, fast
 * retransmission, the round-trip estimate and retransmission timer, early
 * frames and control frames.  Every engine uses these; none has its own.
 */
#include <linux/slab.h>

#include "comm.h"
#include "frame.h"

/* -- Fragment sets ----------------------------------------------- */

/*
 * A zeroed bitmap for n fragments: s's own word if it fits.  *cap: the
 * fragments it has room for.
 */
static unsigned long *nck_frags_bits_alloc(struct nck_frags *s, u32 n,
					   u32 *cap, gfp_t gfp)
{
	if (n <= NCK_FRAGS_INLINE_BITS) {
		s->word = 0;
		*cap = NCK_FRAGS_INLINE_BITS;
		return &s->word;
	}
	*cap = BITS_TO_LONGS(n) * BITS_PER_LONG;
	return bitmap_zalloc(n, gfp);
}

static void nck_frags_bits_free(struct nck_frags *s, unsigned long *bits)
{
	if (bits != &s->word)
		bitmap_free(bits);
}

int nck_frags_init(struct nck_frags *s, u32 n, gfp_t gfp)
{
	*s = (struct nck_frags){ .n = n };
	s->bits = nck_frags_bits_alloc(s, n, &s->cap, gfp);
	return s->bits ? 0 : -ENOMEM;
}

int nck_frags_grow(struct nck_frags *s, u32 n, gfp_t gfp)
{
	unsigned long *bits;
	u32 cap;

	if (n > s->cap) {
		bits = nck_frags_bits_alloc(s, n, &cap, gfp);
		if (!bits)
			return -ENOMEM;
		nck_frags_bits_free(s, s->bits);
		s->bits = bits;
		s->cap = cap;
	} else {
		bitmap_zero(s->bits, n);
	}
	s->n = n;
	return 0;
}

int nck_frags_init_tx(struct nck_frags *s, u32 n, gfp_t gfp)
{
	int err = nck_frags_init(s, n, gfp);

	if (err)
		return err;
	s->min_rtt_us = U32_MAX;
	if (n <= NCK_FRAGS_INLINE_TX) {
		s->tx = s->tx_inline;
		return 0;
	}
	s->tx = kvcalloc(n, sizeof(*s->tx), gfp);
	return s->tx ? 0 : -ENOMEM;
}

void nck_frags_free(struct nck_frags *s)
{
	nck_frags_bits_free(s, s->bits);
	s->bits = NULL;
	if (s->tx && s->tx != s->tx_inline)	/* most sets receive: none */
		kvfree(s->tx);
	s->tx = NULL;
}

/*
 * Fragments of fs bytes one sender may have in flight to one receiver:
 * the tx_window module parameter, and no more than NCK_WINDOW_BYTES: a
 * window of jumbo fragments and a reduction's results going down
 * (NCK_AGG_DN_BYTES) must fit a slow link's queue together.  At MTU 1500
 * the byte bound is above 64 fragments, so nothing changes there.  At
 * least two ack intervals (nck_ack_every()): a smaller window waits for
 * each ack.  Found once per operation (its fragment size is fixed) and
 * kept in it, not on every fragment going up (docs/rel-design.md, "The
 * window in bytes").  The tx_window an operation started with holds to
 * its end.
 */
u32 nck_window_frags(u32 fs)
{
	u32 window = max(READ_ONCE(nck_tx_window), 1U);

	if ((u64)window * fs <= NCK_WINDOW_BYTES)
		return window;
	return min(window, max(NCK_WINDOW_BYTES / max(fs, 1U),
			       2 * nck_ack_every(fs)));
}

/* Microseconds, the low 30 bits a stamp keeps (17 minutes). */
#define NCK_US_MASK	(BIT(30) - 1)

static u32 nck_now_us(void)
{
	return (u32)div_u64(ktime_get_ns(), NSEC_PER_USEC) & NCK_US_MASK;
}

void nck_frags_sent(struct nck_frags *s, u32 k)
{
	struct nck_tx_stamp *t;

	if (!s->tx || k >= s->n)
		return;
	t = &s->tx[k];
	t->resent = t->order != 0;
	t->fast = false;
	t->order = ++s->tx_count;
	t->us = nck_now_us();
	s->tx_next = max(s->tx_next, k + 1);
}

u32 nck_frags_age_us(const struct nck_frags *s, u32 k, bool *resent)
{
	const struct nck_tx_stamp *t;

	if (!s->tx || k >= s->n || !s->tx[k].order)
		return U32_MAX;
	t = &s->tx[k];
	*resent = t->resent;
	return (nck_now_us() - t->us) & NCK_US_MASK;
}

/*
 * A receiver acks every NCK_ACK_EVERY new fragments of fs bytes (fewer
 * if they are large: every NCK_ACK_BYTES; a window of jumbo fragments
 * shared by a few children is 4 fragments each, which an ack every 8
 * left waiting for the sender's probe), when a fragment
 * arrives past a hole and for the next NCK_DUPTHRESH - 1 above it (the
 * sender resends a hole once that many are acked above it, and the tail
 * of a message has no NCK_ACK_EVERY-th fragment to come), when the sender
 * asks (NETCOLL_F_ACK_NOW: a retransmission or a probe), when the message
 * is complete, and for every duplicate (its ack was lost).  s->cum is the
 * lowest hole as of the last ack.
 */
enum nck_rx_verdict nck_frags_receive(struct nck_frags *s, u32 k, u32 fs,
				      bool asked)
{
	u32 every = nck_ack_every(fs);
	bool hole = k != s->next;

	if (!nck_frags_set(s, k))
		return NCK_RX_DUP;
	if (asked || hole || (nck_frags_full(s) && !s->end_by_reply) ||
	    (s->count < s->next && s->next - s->cum <= NCK_DUPTHRESH + 1) ||
	    ++s->since_ack >= every)
		return NCK_RX_NEW_ACK;
	return NCK_RX_NEW;
}

void nck_frags_summary(struct nck_frags *s, u32 *cum, u32 *sack)
{
	u32 bits = 0, b;

	s->since_ack = 0;
	s->cum = find_next_zero_bit(s->bits, s->n, s->cum);
	for (b = 0; b < NCK_SACK_BITS && s->cum + 1 + b < s->n; b++)
		if (test_bit(s->cum + 1 + b, s->bits))
			bits |= 1U << b;
	*cum = s->cum;
	*sack = bits;
}

bool nck_rx_behind(const struct nck_comm *c)
{
	return atomic_long_read(&c->rx_mem) > c->rx_mem_max / 2;
}

void nck_frags_hold_ack(struct nck_comm *c, struct nck_frags *s, u32 *held)
{
	if (s->ack_held)
		return;
	nck_frags_defer_ack(s, held);
	nck_stat_inc(c->nn, NETCOLL_STAT_ACKS_HELD);
}

/*
 * Fragment k was acked for the first time: the transmission that arrived
 * moves the RACK point.  A resent fragment's ack may be its first copy's,
 * late: it moves the point only when it came at least the smallest round
 * trip after the resend (RFC 8985, 6.2), which fragments sent once tell.
 *
 * How far it was overtaken (*late: fragments acked above it) is told in
 * two cases.  It went once and an earlier ack (once: the latest such
 * transmission acked before this ack) showed one that went once after it:
 * the path reordered (RFC 8985's RACK.reord), returns true.  Or fast
 * retransmission resent it and this ack came sooner than a round trip
 * after that: its first copy's, probably; returns false.  Only the first
 * is proof: on a path that does not reorder, a resend's own quick answer
 * comes that soon too (docs/rel-design.md, "Reordering").
 */
static bool nck_frags_stamp_acked(struct nck_frags *s, u32 k, u32 now,
				  u32 once, u32 *late)
{
	const struct nck_tx_stamp *t = &s->tx[k];
	u32 us = (now - t->us) & NCK_US_MASK;
	u32 above = s->next > k + 1 ? s->next - k - 1 : 0;

	*late = 0;
	if (!t->order)
		return false;
	if (t->resent) {
		if (s->min_rtt_us == U32_MAX)
			return false;
		if (us < s->min_rtt_us) {
			*late = t->fast ? above : 0;
			return false;
		}
	} else {
		s->min_rtt_us = min(s->min_rtt_us, us);
		s->once_order = max(s->once_order, t->order);
	}
	s->rack_order = max(s->rack_order, t->order);
	if (t->resent || t->order >= once || !above)
		return false;
	*late = above;
	return true;
}

/* An ack shows fragment k: the first time, stamp and tell newly(). */
static void nck_frags_acked(struct nck_frags *s, u32 k, u32 now, u32 once,
			    void (*newly)(void *arg, u32 k), void *arg)
{
	u32 late;

	if (!nck_frags_set(s, k))
		return;
	if (s->tx && nck_frags_stamp_acked(s, k, now, once, &late)) {
		s->reordered = max(s->reordered, late);
		s->late++;
	} else if (s->tx) {
		s->reordered_rtx = max(s->reordered_rtx, late);
	}
	if (newly)
		newly(arg, k);
}

u32 nck_frags_ack(struct nck_frags *s, u32 cum, u32 sack, u32 sent,
		  void (*newly)(void *arg, u32 k), void *arg)
{
	u32 k, b, sacked = 0, now = s->tx ? nck_now_us() : 0;
	/* what the last ack could show: only there can a fragment be late */
	u32 once = s->once_order, seen = s->cum + 1 + NCK_SACK_BITS;

	/* nobody acknowledges what was never sent */
	cum = min(cum, sent);
	for (k = s->cum; k < cum; k++)
		nck_frags_acked(s, k, now, k < seen ? once : 0, newly, arg);
	s->cum = max(s->cum, cum);
	for (b = 0; b < NCK_SACK_BITS; b++) {
		k = cum + 1 + b;
		if (k >= sent)
			break;
		if (!(sack & (1U << b)))
			continue;
		sacked = k;
		nck_frags_acked(s, k, now, k < seen ? once : 0, newly, arg);
	}
	return sacked;
}

/*
 * Sent before a transmission that arrived, and not acknowledged: lost,
 * once `thresh` transmissions after it went out before the one that
 * arrived (one, for a resend), or (tail) the one that arrived is the
 * newest.
 */
static bool nck_frags_rack_lost(const struct nck_frags *s, u32 k, u32 thresh,
				bool tail)
{
	u32 order = s->tx ? s->tx[k].order : 0;

	/*
	 * A resend went after the reordering was waited out: one sent after
	 * it that came says it is lost (docs/rel-design.md, "Reordering").
	 */
	if (order && s->tx[k].resent)
		thresh = 1;
	return order && order < s->rack_order &&
	       (s->rack_order - order >= thresh ||
		(tail && s->rack_order == s->tx_count));
}

/*
 * The path's reordering (r->reordering) is the DupThresh of RFC 6675 and
 * Linux's tp->reordering: a hole is lost once that many fragments above it
 * are acked.  It starts at NCK_DUPTHRESH and grows to how far a fragment
 * sent once was seen overtaken (nck_frags_stamp_acked), NCK_REORDER_MAX at
 * most (what an ack shows must leave room for losses): veth on two
 * CPUs delivers a stream in batches out of order.
 *
 * A tail hole (the newest fragment sent is acked: nothing more will come
 * to tell) is lost at once (RFC 5827's early retransmit), whatever the
 * path's reordering: waiting it out there means waiting for the timer
 * (docs/rel-design.md has the measurements).
 */
int nck_frags_fast_retransmit(struct nck_comm *c, struct nck_frags *s,
			      u32 sacked, struct nck_rtt *r,
			      int (*resend)(void *arg, u32 k), void *arg)
{
	u32 k, end = sacked, above = 0, resent_to = 0, thresh, early = 0;
	bool tail, above_k, by_tail, probed = s->probed;
	int n = 0, err = 0;

	if (s->late) {
		nck_stat_add(c->nn, NETCOLL_STAT_TX_REORDERED, s->late);
		s->late = 0;
	}
	/* a resend's early ack counts once the path is known to reorder */
	if (r->reordering)
		s->reordered = max(s->reordered, s->reordered_rtx);
	s->reordered = min_t(u32, s->reordered, NCK_REORDER_MAX);
	if (s->reordered > r->reordering)
		WRITE_ONCE(r->reordering, s->reordered);
	s->reordered = 0;
	s->reordered_rtx = 0;
	thresh = max_t(u32, r->reordering, NCK_DUPTHRESH);
	tail = s->tx_next && test_bit(s->tx_next - 1, s->bits);
	if (probed) {	/* every hole older than a timeout */
		s->probed = false;
		thresh = 1;
		tail = true;
	}
	/* what an ack can show: its cumulative point and selective bits */
	if (s->tx)
		end = max(end, min(s->tx_next, s->cum + 1 + NCK_SACK_BITS));
	for (k = s->cum; k < end; k++)
		above += test_bit(k, s->bits);
	for (k = s->cum; k < end; k++) {
		if (test_bit(k, s->bits)) {
			above--;
			continue;
		}
		above_k = above && k >= s->resent_below;
		by_tail = false;
		if (!(above_k && above >= thresh) &&
		    !nck_frags_rack_lost(s, k, thresh, false)) {
			by_tail = tail && (above_k ||
				  nck_frags_rack_lost(s, k, thresh, true));
			if (!by_tail)
				continue;
		}
		s->guessed = by_tail && !probed;
		err = resend(arg, k);
		s->guessed = false;
		if (err)
			break;
		if (s->tx)	/* see nck_frags_stamp_acked */
			s->tx[k].fast = !probed;
		n++;
		early += by_tail && !probed;
		resent_to = k + 1;
	}
	if (early)
		nck_stat_add(c->nn, NETCOLL_STAT_TX_EARLY_RETRANSMITS, early);
	if (err)
		return err;
	/* the holes above resent_to are not lost yet: later acks tell */
	s->resent_below = max(s->resent_below, resent_to);
	return n;
}

int nck_frags_probe(struct nck_frags *s, u32 sent,
		    int (*resend)(void *arg, u32 k), void *arg)
{
	u32 first, last;
	int err;

	first = find_next_zero_bit(s->bits, sent, s->cum);
	if (first >= sent)
		return 0;
	err = resend(arg, first);
	if (err)
		return err;
	/* Holes the coming ack shows go again, even if resent before. */
	s->resent_below = s->cum;
	s->probed = true;
	/* The newest one the ack's selective bits can still show. */
	last = min(sent, first + 1 + NCK_SACK_BITS) - 1;
	while (last > first && test_bit(last, s->bits))
		last--;
	return last > first ? resend(arg, last) : 0;
}

/* -- Round trip and retransmission timer ------------------------- */

/* Written once per field: `comm show` reads them without the owner's lock. */
void nck_rtt_sample(struct nck_rtt *r, u32 us)
{
	WRITE_ONCE(r->backoff_ns, 0);
	if (!r->srtt_us) {
		WRITE_ONCE(r->srtt_us, us ?: 1);
		WRITE_ONCE(r->rttvar_us, us / 2);
		return;
	}
	WRITE_ONCE(r->rttvar_us,
		   (3 * r->rttvar_us + abs((s32)(r->srtt_us - us))) / 4);
	WRITE_ONCE(r->srtt_us, ((7 * r->srtt_us + us) / 8) ?: 1);
}

u32 nck_rtt_rto_us(const struct nck_rtt *r)
{
	u32 us = r->srtt_us + 4 * r->rttvar_us;

	return clamp(us, nck_rto_min_ms * USEC_PER_MSEC, nck_rto_max_ms * USEC_PER_MSEC);
}

u64 nck_rtt_rto(const struct nck_rtt *r)
{
	return max((u64)nck_rtt_rto_us(r) * NSEC_PER_USEC, r->backoff_ns);
}

/* The next expiry: a probe PTO from now if one is left and comes first. */
static void nck_rtx_next(struct nck_rtx *t, u64 now)
{
	u64 probe = now + t->pto;

	if (!t->pto || probe >= t->due)
		t->tail = 0;
	t->at = t->tail ? probe : t->due;
}

void nck_rtx_arm(struct nck_rtx *t, u64 now)
{
	t->due = now + t->rto;
	t->tail = t->probes;
	nck_rtx_next(t, now);
}

void nck_rtx_progress(struct nck_rtx *t, const struct nck_rtt *r, u64 floor,
		      u64 now)
{
	t->retries = 0;
	t->rto = max(nck_rtt_rto(r), floor);
	t->pto = (u64)r->srtt_us * 2 * NSEC_PER_USEC;	/* 0: no estimate yet */
	nck_rtx_arm(t, now);
}

int nck_rtx_expired(struct nck_rtx *t)
{
	u64 now = ktime_get_ns();

	/* a probe that fires late, when the RTO is due, is the RTO */
	if (t->tail && now < t->due) {
		t->tail--;
		nck_rtx_next(t, now);
		return NCK_RTX_PROBE;
	}
	t->tail = 0;
	if (!t->retries++)
		t->quiet_from = now;
	if (t->retries > nck_max_retries && now - t->quiet_from >= t->quiet_min)
		return -ETIMEDOUT;
	t->rto = min_t(u64, t->rto * 2, (u64)nck_rto_max_ms * NSEC_PER_MSEC);
	t->backed = max(t->backed, t->rto);
	t->at = now + t->rto;
	t->due = t->at;
	return NCK_RTX_RTO;
}

void nck_rtx_dup(struct nck_rtx *t, struct nck_rtt *r)
{
	t->dups++;
	if (t->dups > t->repeats && 2 * (t->dups - t->repeats) >= t->resent &&
	    t->backed > r->backoff_ns)
		WRITE_ONCE(r->backoff_ns, t->backed);
}

/* -- Early frames ------------------------------------------------ */

static bool __nck_early_hold(struct nck_comm *c, struct sk_buff_head *q,
			     struct sk_buff *skb, u32 limit)
{
	lockdep_assert_held(&c->lock);
	if (!nck_rx_charge_upto(c, skb, limit)) {
		nck_stat_inc(c->nn, NETCOLL_STAT_DROP_MEMORY);
		kfree_skb(skb);
		return false;
	}
	__skb_queue_tail(q, skb);
	nck_stat_inc(c->nn, NETCOLL_STAT_RX_EARLY);
	return true;
}

bool nck_early_hold(struct nck_comm *c, struct sk_buff_head *q,
		    struct sk_buff *skb)
{
	return __nck_early_hold(c, q, skb, c->rx_mem_max / 2);
}

void nck_early_take(struct nck_comm *c, struct sk_buff_head *q, u32 seq,
		    struct sk_buff_head *out)
{
	struct sk_buff *skb, *tmp;
	struct nc_frame f;

	lockdep_assert_held(&c->lock);
	skb_queue_walk_safe(q, skb, tmp) {
		nck_skb_hdr(skb, &f);
		if (nck_seq_before(seq, f.op_seq))
			continue;		/* later still */
		__skb_unlink(skb, q);
		nck_rx_uncharge(c, skb);
		if (f.op_seq == seq)
			__skb_queue_tail(out, skb);
		else
			kfree_skb(skb);		/* its operation is gone */
	}
}

/* -- Early books ------------------------------------------------- */

void nck_early_books_init(struct nck_early_books *b,
			  bool (*end_by_reply)(const struct nc_frame *f))
{
	INIT_LIST_HEAD(&b->list);
	b->n = 0;
	b->end_by_reply = end_by_reply;
}

struct nck_frags *nck_early_book(struct nck_early_books *b, u32 seq, u32 src,
				 u16 tag)
{
	struct nck_early_book *e, *found = NULL;

	list_for_each_entry(e, &b->list, node) {
		if (e->seq != seq || e->src != src || e->tag != tag)
			continue;
		if (found)
			return NULL;	/* two shapes: not ours to tell */
		found = e;
	}
	return found ? &found->got : NULL;
}

/* The book of f's message in f's shape, or NULL. */
static struct nck_frags *nck_early_book_of(struct nck_early_books *b,
					   const struct nc_frame *f)
{
	struct nck_early_book *e;

	list_for_each_entry(e, &b->list, node)
		if (e->seq == f->op_seq && e->src == f->src_rank &&
		    e->tag == f->tag && e->msg_len == f->msg_len &&
		    e->frag_size == f->frag_size && e->opcode == f->opcode)
			return &e->got;
	return NULL;
}

static void nck_early_book_free(struct nck_comm *c, struct nck_early_books *b,
				struct nck_early_book *e)
{
	list_del(&e->node);
	b->n--;
	nck_rx_uncharge_bytes(c, e->charge);
	nck_frags_free(&e->got);
	kfree(e);
}

/*
 * A book for f's message, charged up to the running operation's reserve
 * (as the frames it books); NULL when there is no room or memory.
 */
static struct nck_frags *nck_early_book_new(struct nck_comm *c,
					    struct nck_early_books *b,
					    const struct nc_frame *f)
{
	u32 n = min_t(u32, nc_wire_nfrags(f->msg_len, f->frag_size),
		      NCK_EARLY_BOOK_FRAGS);
	u32 charge = sizeof(struct nck_early_book) +
		     BITS_TO_LONGS(n) * sizeof(long);
	struct nck_early_book *e;

	if (b->n >= NCK_EARLY_BOOKS ||
	    !nck_rx_charge_bytes(c, charge,
				 c->rx_mem_max - NCK_EARLY_RESERVE(c)))
		return NULL;
	e = kzalloc(sizeof(*e), GFP_ATOMIC);
	if (!e || nck_frags_init(&e->got, n, GFP_ATOMIC)) {
		kfree(e);
		nck_rx_uncharge_bytes(c, charge);
		return NULL;
	}
	e->got.end_by_reply = b->end_by_reply && b->end_by_reply(f);
	e->seq = f->op_seq;
	e->src = f->src_rank;
	e->tag = f->tag;
	e->msg_len = f->msg_len;
	e->frag_size = f->frag_size;
	e->opcode = f->opcode;
	e->charge = charge;
	list_add(&e->node, &b->list);
	b->n++;
	return &e->got;
}

void nck_early_book_ack(const struct nck_comm *c, struct nck_frags *got,
			u32 *cum, u32 *sack)
{
	*cum = 0;
	*sack = 0;
	if (got && !nck_rx_behind(c))
		nck_frags_summary(got, cum, sack);
}

bool nck_early_hold_booked(struct nck_comm *c, struct sk_buff_head *q,
			   struct nck_early_books *b, struct sk_buff *skb,
			   const struct nc_frame *f, u32 *cum, u32 *sack,
			   bool *copy)
{
	bool asked = f->flags & NETCOLL_F_ACK_NOW;
	struct nck_early_book *made = NULL;
	struct nck_frags *s;

	lockdep_assert_held(&c->lock);
	s = nck_early_book_of(b, f);
	*copy = s && nck_frags_test(s, f->seq);
	if (*copy) {
		nck_stat_inc(c->nn, NETCOLL_STAT_RX_DUPLICATES);
		kfree_skb(skb);
		nck_early_book_ack(c, s, cum, sack);	/* ours was lost */
		return true;
	}
	/*
	 * Charged before it is acked: a booked fragment must be kept.  One
	 * its message's book (made first) takes may use all the receive
	 * memory but the running operation's reserve, any other only half.
	 */
	if (!s) {
		s = nck_early_book_new(c, b, f);
		if (s)
			made = container_of(s, struct nck_early_book, got);
	}
	if (!__nck_early_hold(c, q, skb, s && f->seq < s->n ?
			      c->rx_mem_max - NCK_EARLY_RESERVE(c) :
			      c->rx_mem_max / 2)) {
		if (made)	/* nothing in it */
			nck_early_book_free(c, b, made);
		s = NULL;
	}
	if (!s || f->seq >= s->n) {	/* not booked: only "alive", if asked */
		nck_early_book_ack(c, NULL, cum, sack);
		return asked;
	}
	if (nck_frags_receive(s, f->seq, f->frag_size, asked) == NCK_RX_NEW)
		return false;	/* (a summary restarts the ack count) */
	nck_early_book_ack(c, s, cum, sack);
	return true;
}

void nck_early_books_drop(struct nck_comm *c, struct nck_early_books *b,
			  u32 seq)
{
	struct nck_early_book *e, *tmp;

	lockdep_assert_held(&c->lock);
	list_for_each_entry_safe(e, tmp, &b->list, node)
		if (!nck_seq_before(seq, e->seq))
			nck_early_book_free(c, b, e);
}

void nck_early_books_purge(struct nck_comm *c, struct nck_early_books *b)
{
	struct nck_early_book *e, *tmp;

	list_for_each_entry_safe(e, tmp, &b->list, node)
		nck_early_book_free(c, b, e);
}

/* -- Control frames ---------------------------------------------- */

/*
 * A header with len payload bytes to follow, f filled in by the caller
 * past nck_frame_hdr(); the send is counted as a drop when there is no
 * memory.
 */
static struct sk_buff *nck_ctl_alloc(struct nck_comm *c, struct nc_frame *f,
				     u32 len)
{
	struct sk_buff *skb;

	skb = nck_frame_alloc(len, GFP_ATOMIC);
	if (!skb) {
		nck_stat_inc(c->nn, NETCOLL_STAT_DROP_TX);
		return NULL;
	}
	f->len = len;
	nc_wire_encode(skb_put(skb, NETCOLL_HDR_LEN), f);
	return skb;
}

struct sk_buff *nck_ctl_frame(struct nck_comm *c, u16 type, u32 seq, u32 dst,
			      u16 tag, u32 cum, u32 sack, u16 flags,
			     u16 opcode)
{
	struct sk_buff *skb;
	struct nc_frame f;

	nck_frame_hdr(c, &f, type, seq, dst, tag);
	f.flags = flags;
	f.opcode = opcode;
	f.seq = cum;
	f.frag_off = sack;
	skb = nck_ctl_alloc(c, &f, 0);
	if (skb && (type == NETCOLL_T_ACK || type == NETCOLL_T_AGG_ACK))
		nck_stat_inc(c->nn, NETCOLL_STAT_TX_ACKS);
	return skb;
}

void nck_ctl_defer(struct nck_comm *c, u16 type, u32 seq, u32 dst, u16 tag,
		   u32 cum, u32 sack, u16 flags, struct sk_buff_head *q)
{
	struct sk_buff *skb = nck_ctl_frame(c, type, seq, dst, tag, cum, sack,
					    flags, 0);

	if (skb)
		nck_frame_defer(q, skb, dst);
}

struct sk_buff *nck_nack_frame(struct nck_comm *c, u32 seq, u32 dst, u16 tag,
			       const struct nck_frags *s, u32 from, u32 below,
			       u32 round)
{
	u32 nbits = 0, i, len;
	struct sk_buff *skb;
	struct nc_frame f;
	u8 *map;

	if (s && from + 1 < s->n)
		nbits = min(s->n - from - 1, NETCOLL_NACK_MAP_MAX * 8U);
	if (below)			/* asks nothing at or past below */
		nbits = min(nbits, below - from - 1);
	len = DIV_ROUND_UP(nbits, 8);
	nck_frame_hdr(c, &f, NETCOLL_T_AGG_NACK, seq, dst, tag);
	f.seq = from;
	f.msg_len = below;
	f.frag_off = below ? round : 0;
	skb = nck_ctl_alloc(c, &f, len);
	if (!skb)
		return NULL;
	map = skb_put_zero(skb, len);
	for (i = 0; i < nbits; i++)
		if (test_bit(from + 1 + i, s->bits))
			map[i / 8] |= 1U << (i % 8);
	return skb;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The reliability core: how the fragments of a message get through a
 * lossy medium, for every engine (transport.c: alltoall messages and
 * tokens; agg.c: reduction pieces up the tree and results down it; the
 * next ones plug in the same way).  One implementation of each mechanism:
 *
 *   fragment sets     which fragments of a message a receiver has, or a
 *                     sender knows acknowledged; their cumulative point
 *   acks              cumulative + NCK_SACK_BITS selective bits; a receiver
 *                     acks every NCK_ACK_EVERY new fragments, on a hole, on
 *                     a duplicate, when asked and when complete (unless the
 *                     reply to the message acks its end: end_by_reply)
 *   fast retransmit   a hole with NCK_DUPTHRESH fragments acked above it
 *                     (more once the path was seen to reorder: a fragment
 *                     sent once acked after later ones tells by how much)
 *                     is resent at once; a sender stamps every
 *                     transmission, and a fragment still unacknowledged
 *                     when one sent that long after it (after a resend:
 *                     any) was acked is lost (RACK, RFC 8985, by
 *                     transmission order), so a lost retransmission goes
 *                     again after a round trip, not a timeout; a timeout
 *                     probes with the oldest and newest unacknowledged
 *                     fragment, and the holes their ack shows go again
 *   round trip, RTO   RFC 6298 estimate (Karn's rule is the callers': they
 *                     sample only fragments sent once; they time one
 *                     fragment at a time, not every ack: a window's later
 *                     fragments wait behind the others at the receiver, and
 *                     a timeout grown by that wait is what the tail of a
 *                     lossy message then waits for); tail-loss probes at 2
 *                     SRTT come first (struct nck_rtx), then the
 *                     retransmission timer doubles up to rto_max_ms, and
 *                     nck_max_retries expiries without an answer end the
 *                     operation; a receiver asked about an operation it has
 *                     not started, or whose acks it holds, answers that it
 *                     is alive
 *   early frames      frames of an operation not started yet are held,
 *                     charged to the communicator's receive memory (in its
 *                     first half only, unless booked: the other half stays
 *                     for the running operation); a receiver that books a
 *                     message's early fragments acks them like any others
 *                     (struct nck_early_books), and takes them over when
 *                     their operation starts, charged as they were (an
 *                     acked fragment is never dropped)
 *   flow control      past half its receive memory, a receiver holds the
 *                     acks of frames it keeps until their consumer (the
 *                     process, a reduction) has taken them; a frame that is
 *                     consumed on arrival is acked and always taken
 *   control frames    acks, repair requests and tokens are built in one
 *                     place
 *
 * Nothing here locks: the caller's object (an operation, under c->lock or
 * owned by one process) holds these structures.  Early frames wait on a
 * queue of the communicator, under c->lock (asserted).
 */
#ifndef NCK_REL_H
#define NCK_REL_H

#include <linux/list.h>
#include <linux/skbuff.h>

struct nck_comm;
struct nc_frame;
struct nck_rtt;

/*
 * A receiver acks every NCK_ACK_EVERY new fragments of a message, and
 * every NCK_ACK_BYTES of them if that comes first (nck_frags_receive()).
 */
#define NCK_ACK_EVERY		8
#define NCK_ACK_BYTES		(32 * 1024)

/* The ack interval of fragments of fs bytes (no division up to 4 KiB). */
static inline u32 nck_ack_every(u32 fs)
{
	if (fs <= NCK_ACK_BYTES / NCK_ACK_EVERY)
		return NCK_ACK_EVERY;
	return max(NCK_ACK_BYTES / fs, 1U);
}

/* An ack's selective bits: the fragments just past its cumulative point. */
#define NCK_SACK_BITS		32
/* Fragments acked above a hole before it counts as lost, at least. */
#define NCK_DUPTHRESH		3
/*
 * ... and at most: an ack shows only NCK_SACK_BITS fragments past its
 * cumulative point, so a threshold near that many is never met under loss
 * (at 10 % per cable all 32 arrive 3 times in 100) and every hole waits
 * for the timer (docs/rel-design.md).
 */
#define NCK_REORDER_MAX		(NCK_SACK_BITS / 2)
/* A sender's window in bytes: see nck_window_frags(). */
#define NCK_WINDOW_BYTES	(96 * 1024)

u32 nck_window_frags(u32 fs);

/**
 * struct nck_tx_stamp - a sender's last transmission of one fragment
 * @order: the set's transmission count then (0: never sent)
 * @us: the time then, low 30 bits of microseconds
 * @resent: sent more than once: its ack may be the first copy's
 * @fast: resent by fast retransmission, as lost (not by a timeout)
 */
struct nck_tx_stamp {
	u32 order;
	u32 us : 30;
	u32 resent : 1;
	u32 fast : 1;
};

/* Sets of at most these many fragments keep their state inside. */
#define NCK_FRAGS_INLINE_BITS	BITS_PER_LONG
#define NCK_FRAGS_INLINE_TX	2

/**
 * struct nck_frags - the fragments of one message one side has
 * @bits: fragment k received (receiver) or acknowledged (sender)
 * @n: fragments of the message
 * @cap: fragments @bits has room for (a whole number of longs); a set
 *	nck_frags_grow() shrank keeps its room, so growing it back neither
 *	allocates nor costs a charge again
 * @count: bits set
 * @cum: every fragment below is set
 * @next: one past the highest fragment set
 * @since_ack: receiver: fragments set since its last ack
 * @resent_below: sender: holes below were resent already
 * @ack_held: receiver: an ack waits for the consumer (nck_frags_hold_ack)
 * @end_by_reply: receiver: the reply to the message (a reduction's result)
 *	acks its end, so a full set asks for no ack of its own
 * @tx: sender: each fragment's last transmission (nck_frags_init_tx)
 * @tx_count: sender: transmissions so far
 * @tx_next: sender: one past the highest fragment sent
 * @rack_order: sender: the latest transmission known to have arrived;
 *	an unacknowledged fragment sent before it is lost
 * @probed: sender: a timeout probed (nck_frags_probe); the next ack's
 *	holes are older than a timeout, so lost whatever the reordering
 * @guessed: sender: the resend under way is an early retransmission of
 *	a tail hole (nck_frags_fast_retransmit), which ignores the path's
 *	reordering: a guess, no proof of a loss
 * @once_order: sender: the latest transmission of a fragment sent once
 *	known to have arrived
 * @reordered: sender: the most fragments acked above a fragment sent once
 *	before its own ack came, since the last nck_frags_fast_retransmit()
 * @reordered_rtx: sender: the same for fast resends whose ack came sooner
 *	than a round trip (their first copy's, probably)
 * @late: sender: fragments sent once acked late, since then (counted
 *	there, per netns)
 * @min_rtt_us: sender: smallest round trip seen (U32_MAX: none yet)
 * @word: @bits of a set of at most NCK_FRAGS_INLINE_BITS fragments
 * @tx_inline: @tx of a sender's set of at most NCK_FRAGS_INLINE_TX
 *
 * A small set (every reduction of a few KiB, every barrier) allocates
 * nothing: 8 hosts on 2 CPUs made 65 allocations and frees per allreduce
 * for these.  So a set may point into itself and is never copied by value;
 * nck_frags_grow() resizes one.
 */
struct nck_frags {
	unsigned long *bits;
	u32 n, cap, count, cum, next;
	u32 since_ack;
	u32 resent_below;
	bool ack_held;
	bool end_by_reply;
	bool probed;
	bool guessed;
	struct nck_tx_stamp *tx;
	u32 tx_count, tx_next, rack_order, min_rtt_us;
	u32 once_order, reordered, reordered_rtx, late;
	unsigned long word;
	struct nck_tx_stamp tx_inline[NCK_FRAGS_INLINE_TX];
};

int nck_frags_init(struct nck_frags *s, u32 n, gfp_t gfp);
/*
 * Receiver: an empty set (nothing received) for n fragments now, keeping
 * its other state; -ENOMEM leaves it as it was.  Allocates only beyond
 * s->cap: nck_frags_room_bytes() is what that adds.
 */
int nck_frags_grow(struct nck_frags *s, u32 n, gfp_t gfp);

/* Bytes of bitmap nck_frags_grow(s, n) adds to s's (for charges). */
static inline size_t nck_frags_room_bytes(const struct nck_frags *s, u32 n)
{
	return n > s->cap ? (BITS_TO_LONGS(n) - BITS_TO_LONGS(s->cap)) *
			    sizeof(long) : 0;
}

/* A sender's set: nck_frags_init() and a stamp per fragment. */
int nck_frags_init_tx(struct nck_frags *s, u32 n, gfp_t gfp);
/* Bytes nck_frags_init_tx() allocates for n fragments (for charges). */
static inline size_t nck_frags_tx_bytes(u32 n)
{
	return BITS_TO_LONGS(n ?: 1) * sizeof(long) +
	       (size_t)n * sizeof(struct nck_tx_stamp);
}

/* Sender: fragment k goes out (first time or again) now. */
void nck_frags_sent(struct nck_frags *s, u32 k);
/*
 * Sender: microseconds since fragment k last went out (U32_MAX: never,
 * or a set without stamps); *resent: it went more than once.
 */
u32 nck_frags_age_us(const struct nck_frags *s, u32 k, bool *resent);
void nck_frags_free(struct nck_frags *s);
/* Fragment k is here; true if it was not before.  Inline: once a frame. */
static inline bool nck_frags_set(struct nck_frags *s, u32 k)
{
	if (k >= s->n || __test_and_set_bit(k, s->bits))
		return false;
	s->count++;
	s->next = max(s->next, k + 1);
	return true;
}

static inline bool nck_frags_test(const struct nck_frags *s, u32 k)
{
	return k < s->n && test_bit(k, s->bits);
}

static inline bool nck_frags_full(const struct nck_frags *s)
{
	return s->count == s->n;
}

/* Receiving fragment k: what the receiver does next. */
enum nck_rx_verdict {
	NCK_RX_DUP,	/* had it: drop the copy, ack (the sender asks) */
	NCK_RX_NEW,	/* keep it */
	NCK_RX_NEW_ACK,	/* keep it and ack now */
};

enum nck_rx_verdict nck_frags_receive(struct nck_frags *s, u32 k, u32 fs,
				      bool asked);
/* The ack of s: cumulative point and selective bits; restarts since_ack. */
void nck_frags_summary(struct nck_frags *s, u32 *cum, u32 *sack);

/*
 * Flow control.  A communicator's receiver is behind when more than half
 * its receive memory holds frames no consumer has taken yet.  Then the
 * acks of messages whose frames wait are held, so their senders' windows
 * close instead of sending frames this host would have to drop; the other
 * half stays for the frames that let the consumers go on.  *held counts
 * the owner's held acks; the owner sends them once it is no longer behind.
 * A held sender that asks is answered (alive, or with its ack) by the
 * owner's rules: transport.c holds those answers too, agg_rx.c says alive.
 */
bool nck_rx_behind(const struct nck_comm *c);
/* Hold the ack of s (counted once in *held and in the acks_held counter). */
void nck_frags_hold_ack(struct nck_comm *c, struct nck_frags *s, u32 *held);
/*
 * The ack of s goes out later, with the owner's other held acks (not
 * flow control: no counter).
 */
static inline void nck_frags_defer_ack(struct nck_frags *s, u32 *held)
{
	if (!s->ack_held) {
		s->ack_held = true;
		(*held)++;
	}
}

/* The ack of s goes out now: it is held no more. */
static inline void nck_frags_unhold_ack(struct nck_frags *s, u32 *held)
{
	if (s->ack_held) {
		s->ack_held = false;
		(*held)--;
	}
}

/*
 * Sender: apply an ack (cum, sack) of a message of which fragments below
 * sent went out.  newly(arg, k) runs for each fragment acked for the first
 * time.  Returns the highest selectively acked fragment, 0 if none.
 */
u32 nck_frags_ack(struct nck_frags *s, u32 cum, u32 sack, u32 sent,
		  void (*newly)(void *arg, u32 k), void *arg);
/*
 * Sender, after each ack: resend(arg, k) each hole not resent before with
 * r's reordering (at least NCK_DUPTHRESH) fragments acked above it, and
 * (with stamps) each fragment the ack's view shows missing that went that
 * many transmissions before one that arrived.  Learns r's reordering from
 * fragments sent once that were acked after later ones.  Stops at the
 * first error.  Returns the number resent or that error; counts those
 * late fragments in c's netns.
 */
int nck_frags_fast_retransmit(struct nck_comm *c, struct nck_frags *s,
			      u32 sacked, struct nck_rtt *r,
			      int (*resend)(void *arg, u32 k), void *arg);
/*
 * Sender, on a timeout: resend(arg, k) the oldest unacknowledged fragment
 * below sent and the newest one an ack's selective bits can still show
 * (both ask for an ack at once), and let the holes that ack shows be fast
 * retransmitted again.  A late ack costs two frames instead of a window;
 * a lost one is found in one round trip.
 */
int nck_frags_probe(struct nck_frags *s, u32 sent,
		    int (*resend)(void *arg, u32 k), void *arg);

/**
 * struct nck_rtt - smoothed round trip (RFC 6298)
 * @srtt_us: smoothed round trip, 0 before the first sample
 * @rttvar_us: its variation
 * @backoff_ns: a timeout expired, backed off to this, and was spurious
 *	(nck_rtx_dup); the timeout stays at least this until the next
 *	sample (RFC 6298, 5.7; RFC 4015's response to a spurious timeout;
 *	why: docs/rel-design.md, "Timers").
 * @reordering: fragments a frame was seen overtaken by on this path (0:
 *	none yet); fast retransmission waits for that many acked above a
 *	hole (nck_frags_fast_retransmit).  It only grows, as Linux's
 *	tp->reordering, to NCK_REORDER_MAX at most.
 */
struct nck_rtt {
	u32 srtt_us, rttvar_us;
	u64 backoff_ns;
	u32 reordering;
};

void nck_rtt_sample(struct nck_rtt *r, u32 us);
/* SRTT + 4 RTTVAR within [rto_min_ms, rto_max_ms], in microseconds. */
u32 nck_rtt_rto_us(const struct nck_rtt *r);
/* The same in nanoseconds. */
u64 nck_rtt_rto(const struct nck_rtt *r);

/**
 * struct nck_rtx - an operation's retransmission timer
 * @rto: current timeout, ns
 * @pto: tail-loss probe timeout (2 SRTT), ns
 * @at: when it expires next (a probe's time or @due), ktime_get_ns()
 * @due: when the retransmission timeout expires, ktime_get_ns()
 * @retries: expiries since the last progress
 * @probes: tail-loss probes per arming (0: none; the caller sets it)
 * @tail: probes still to come before @due
 * @backed: the longest timeout this operation backed off to (0: none)
 * @resent: fragments the operation resent, for any reason (the caller
 *	counts them)
 * @dups: acks that said a fragment had come twice (NETCOLL_F_DUP)
 * @repeats: copies the operation sent on purpose (the caller counts
 *	them): each may bring one of @dups that says nothing of a timeout
 *
 * The timer first fires at the probe timeout (RFC 8985, 7.2): the caller
 * probes (frames asking for an ack at once), and the ack shows the holes.
 * Up to NCK_RTX_PROBES of them, one PTO apart, before the RTO is due; the
 * RTO stays where it was.  Probes neither back off nor count as retries;
 * arming sets them again.  The transport probes once an operation has
 * seen a loss (nck_tx_resend); the aggregation engine does not.  Times are
 * nanoseconds on hrtimers.  Why: docs/rel-design.md, "Timers".
 */
struct nck_rtx {
	u64 rto, pto, at, due, backed;
	/* silence since the first expiry the peers left unanswered */
	u64 quiet_from, quiet_min;
	u32 resent, dups, repeats;
	unsigned int retries;
	u8 probes, tail;
};

/*
 * Progress: the timeouts go back to the estimate (the RTO at least floor
 * ns, 0 for none), armed from now (the caller's ktime_get_ns(), shared).
 */
void nck_rtx_progress(struct nck_rtx *t, const struct nck_rtt *r, u64 floor,
		      u64 now);
/* Frames go out after none were outstanding: armed from now. */
void nck_rtx_arm(struct nck_rtx *t, u64 now);
/*
 * It expired: NCK_RTX_PROBE (probe), NCK_RTX_RTO (back off and
 * retransmit), or -ETIMEDOUT after nck_max_retries RTOs in a row and at
 * least quiet_min ns of silence since the first of them: the count alone
 * is shorter than a full backlog may drop a live peer's answers
 * (docs/rel-design.md, "Timers").
 */
enum { NCK_RTX_RTO, NCK_RTX_PROBE };
#define NCK_RTX_PROBES		2
int nck_rtx_expired(struct nck_rtx *t);
/*
 * A receiver said a fragment came twice (NETCOLL_F_DUP): it was resent
 * while the original was queued, not lost.  Once at least half of what
 * the operation resent came twice (not counting as many as it sent copies
 * of on purpose: @repeats), its timeouts were mostly spurious (a
 * queue longer than the estimate), and r, the estimate t's timeouts come
 * from, keeps t's backed-off timeout.  Under incast most of what a
 * timeout resends was lost, but some was queued: one duplicate alone
 * does not say the timeout was too short (docs/rel-design.md).
 */
void nck_rtx_dup(struct nck_rtx *t, struct nck_rtt *r);

/*
 * A peer answered: it is alive, though maybe not done (it has not started
 * the operation, or holds its acks).  The retry count restarts, the
 * backoff stays: only the operation's time budget ends that wait.
 */
static inline void nck_rtx_alive(struct nck_rtx *t)
{
	t->retries = 0;
}

/*
 * Frames of operations not started yet (charged; false: dropped).  Those
 * not booked (below) may fill half the receive memory only, booked ones
 * more, up to NCK_EARLY_RESERVE short of it: the rest is the running
 * operation's (why: docs/rel-design.md, "Early frames").
 */
#define NCK_EARLY_RESERVE(c)	((c)->rx_mem_max / 4)
bool nck_early_hold(struct nck_comm *c, struct sk_buff_head *q,
		    struct sk_buff *skb);
/* Operation seq starts: its frames move to out, older ones are freed. */
void nck_early_take(struct nck_comm *c, struct sk_buff_head *q, u32 seq,
		    struct sk_buff_head *out);

/*
 * Early books.  A book says which fragments of one message are held early,
 * so the receiver acks them as it would once started (as TCP acks what
 * waits in a socket for its reader) and drops copies of them; unacked, the
 * sender's window stays closed and it resends them again and again.  A
 * booked fragment must not be dropped before its operation starts (its
 * sender will not send it again): charged when held, only the start (or
 * the communicator's end) lets it go.  A book is a message of one shape
 * (length, fragment size, opcode): a forged frame of another shape books
 * apart and cannot make the true one a copy.  Bounded: NCK_EARLY_BOOKS per
 * queue, the first NCK_EARLY_BOOK_FRAGS fragments of a message (beyond,
 * held without an ack), charged to the receive memory.
 */
#define NCK_EARLY_BOOKS		64
#define NCK_EARLY_BOOK_FRAGS	4096

/**
 * struct nck_early_book - the fragments of one message held early
 * @node: in &nck_early_books.list
 * @seq: the message's operation
 * @src: its sender's rank
 * @tag: the message within the operation
 * @msg_len: its length; @frag_size, @opcode: the rest of its shape, as its
 *	first frame said
 * @got: the fragments held
 * @charge: bytes charged to the receive memory for this book
 */
struct nck_early_book {
	struct list_head node;
	u32 seq, src, msg_len;
	u16 tag, frag_size, opcode;
	struct nck_frags got;
	u32 charge;
};

/**
 * struct nck_early_books - the books of one early queue
 * @list: struct nck_early_book, newest first
 * @n: entries in @list
 *
 * Under the lock of the queue's communicator (c->lock, asserted); freed
 * by nck_early_books_drop() when their operation starts and by
 * nck_early_books_purge() when the communicator goes.
 */
struct nck_early_books {
	struct list_head list;
	u32 n;
	/* the owner's: does the reply to f's message ack its end? */
	bool (*end_by_reply)(const struct nc_frame *f);
};

/* end_by_reply: NULL if every message's end is acked (see nck_frags) */
void nck_early_books_init(struct nck_early_books *b,
			  bool (*end_by_reply)(const struct nc_frame *f));
/*
 * Hold the data frame skb (header f) on q, booked (a copy of a booked
 * fragment is freed).  Returns whether to ack now -- a copy, or as
 * nck_frags_receive() says, or a frame that asks for an ack and was held
 * without a book (no room) or dropped (no memory) -- and in *cum, *sack
 * the ack (nck_early_book_ack()), in *copy whether skb was a copy (the
 * ack says so: NETCOLL_F_DUP).  The alltoall transport and the
 * aggregation engine hold early data alike through it.
 */
bool nck_early_hold_booked(struct nck_comm *c, struct sk_buff_head *q,
			   struct nck_early_books *b, struct sk_buff *skb,
			   const struct nc_frame *f, u32 *cum, u32 *sack,
			   bool *copy);
/*
 * What book got acks now (NULL: nothing): nothing either while the
 * receive memory is short (nck_rx_behind()), only that we are alive.
 */
void nck_early_book_ack(const struct nck_comm *c, struct nck_frags *got,
			u32 *cum, u32 *sack);
/* The book of message (seq, src, tag), or NULL (none, or two shapes). */
struct nck_frags *nck_early_book(struct nck_early_books *b, u32 seq, u32 src,
				 u16 tag);
/* Operation seq starts: the books of it and older ones are freed. */
void nck_early_books_drop(struct nck_comm *c, struct nck_early_books *b,
			  u32 seq);
void nck_early_books_purge(struct nck_comm *c, struct nck_early_books *b);

/* An ack, repair request or token: a header-only frame (GFP_ATOMIC). */
struct sk_buff *nck_ctl_frame(struct nck_comm *c, u16 type, u32 seq, u32 dst,
			      u16 tag, u32 cum, u32 sack, u16 flags,
			     u16 opcode);
/* The same (opcode 0) onto a builder's list q (frame.h); none if no memory. */
void nck_ctl_defer(struct nck_comm *c, u16 type, u32 seq, u32 dst, u16 tag,
		   u32 cum, u32 sack, u16 flags, struct sk_buff_head *q);
/*
 * A repair request (AGG_NACK) for the fragments from `from` on that the
 * asker lacks: its payload maps which of the next NETCOLL_NACK_MAP_MAX * 8
 * are in s (NULL: none asked about but from); below bounds it (holes
 * seen), 0 asks for all (a timeout).  round 0 asks for new holes only;
 * the asker's n-th request for holes asked before carries round n.
 */
struct sk_buff *nck_nack_frame(struct nck_comm *c, u32 seq, u32 dst, u16 tag,
			       const struct nck_frags *s, u32 from, u32 below,
			       u32 round);

/* Does the bitmap of a repair request (len bytes, after from) have k? */
static inline bool nck_nack_has(const u8 *map, u32 len, u32 from, u32 k)
{
	u32 i = k - from - 1;

	return k > from && i < len * 8 && (map[i / 8] & (1U << (i % 8)));
}

static inline bool nck_seq_before(u32 a, u32 b)
{
	return (s32)(a - b) < 0;
}

#endif /* NCK_REL_H */

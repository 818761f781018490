// SPDX-License-Identifier: BSD-2-Clause
/*
 * ncbench --transport udp: the kernel's reductions redone by the user
 * processes over UDP, the host-based baseline.  Same tree (parents[rank],
 * f-nomial by default), same fixed order (own vector, then each child's in
 * ascending rank order, with the operators of nc_reduce.h), so the result
 * is the kernel's bit for bit; allreduce is the reduction up the tree and
 * the result back down the same tree.  No module is needed.
 *
 * One socket per rank.  A message (one per tree edge and operation) is cut
 * into datagrams of `frag` payload bytes, each with a header naming the
 * operation (a sequence number every rank counts the same way), the
 * fragment and the message length.  Reliability is deliberately simple:
 *   - the receiver acknowledges a message once it has every fragment, and
 *     whenever a fragment asks for it (the last one of each burst), with a
 *     bitmap of what it holds when something is missing;
 *   - the sender keeps each message until it is acknowledged, resends the
 *     missing fragments when a bitmap says so, sends the last missing one
 *     again (asking for a bitmap) when its timer (rto, doubling up to
 *     rto_max) runs out, and gives up after timeout_ms with an error;
 *   - data from a peer for a later operation acknowledges implicitly:
 *     the peer could not have got there without our earlier messages;
 *   - at most UDP_WINDOW messages per destination are unacknowledged
 *     (reductions without a barrier in between cannot run away).
 * Messages that arrive for a later operation are kept until it starts.
 * Headers are in host order: like the kernel's payloads, this assumes
 * little-endian peers.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#define NC_RED_FLOAT
#include "nc_reduce.h"
#include "ncbench.h"

#define UDP_MAGIC	0x3142434eU	/* "NCB1" */
#define UDP_WINDOW	8		/* unacked messages per destination */
#define UDP_STARTUP	6		/* the first operation waits this many
					 * timeouts for ranks that start late
					 */
#define UDP_RX_MAX	4096		/* messages held for later ops */
#define UDP_PKT_MAX	65536
#define UDP_SOCKBUF	(8 << 20)

enum { U_UP = 1, U_DOWN, U_RES, U_ACK };

#define UF_ACK_REQ	0x01		/* answer with an ACK */
#define UF_FULL		0x02		/* ACK: every fragment is held */

struct uhdr {
	uint32_t magic;
	uint8_t type, flags;
	uint16_t reserved;
	uint32_t src, dst, seq;
	uint32_t len;		/* message bytes; ACK: bitmap bytes that follow */
	uint32_t idx;		/* fragment; ACK: type of the message acked */
	uint32_t nfrags;
	uint32_t fsize;		/* payload bytes per fragment (the sender's) */
};

/* A message buffer shared by the outbox entries that send it. */
struct ubuf {
	unsigned int refs;
	size_t len;
	uint8_t data[];
};

struct txmsg {
	uint32_t dst, seq, nfrags;
	uint8_t type;
	struct ubuf *buf;
	uint8_t *acked;		/* bitmap of fragments the peer holds */
	double next, rto;	/* us */
	double give_up;
	uint32_t limit_ms;
};

struct rxmsg {
	uint32_t src, seq, len, nfrags, fsize, got;
	uint8_t type;
	int complete;
	struct ubuf *buf;
	uint8_t *have;
};

struct udp_tree {
	int fd;
	uint32_t rank, size;
	struct sockaddr_in *addrs;
	uint32_t frag;
	double rto, rto_max;		/* us */
	uint32_t timeout_ms;
	int busy_poll;
	uint32_t loss;			/* injected: per million datagrams */
	uint64_t rng;

	uint32_t *parents, *children;
	uint32_t root, parent, nchildren;

	uint32_t seq;			/* current operation */
	int started;			/* an operation completed */
	int lingering;			/* closing: give up quietly */
	uint32_t *last_done;		/* per source: last consumed seq */
	double last_rx;

	struct txmsg *tx;
	size_t ntx, txcap;
	struct rxmsg *rx;
	size_t nrx, rxcap;
	uint8_t *pkt;

	uint64_t sent, retx, dups, dropped;
};

static struct ubuf *ubuf_new(size_t len)
{
	struct ubuf *b = malloc(sizeof(*b) + (len ? len : 1));

	if (b) {
		b->refs = 1;
		b->len = len;
	}
	return b;
}

static struct ubuf *ubuf_get(struct ubuf *b)
{
	b->refs++;
	return b;
}

static void ubuf_put(struct ubuf *b)
{
	if (b && !--b->refs)
		free(b);
}

static uint32_t nfrags_of(uint32_t len, uint32_t fsize)
{
	/* an empty message (a barrier) is one empty fragment */
	return len ? (len + fsize - 1) / fsize : 1;
}

static int bit(const uint8_t *map, uint32_t i)
{
	return map[i / 8] >> (i % 8) & 1;
}

static void set_bit(uint8_t *map, uint32_t i)
{
	map[i / 8] |= 1 << (i % 8);
}

static const char *type_name(uint8_t type)
{
	switch (type) {
	case U_UP:
		return "partial result";
	case U_DOWN:
		return "result (down the tree)";
	case U_RES:
		return "result (root to reduce target)";
	default:
		return "acknowledgement";
	}
}

static void udp_xmit(struct udp_tree *u, uint32_t dst, struct uhdr *h,
		     const void *payload, size_t len)
{
	struct iovec iov[2] = {
		{ .iov_base = h, .iov_len = sizeof(*h) },
		{ .iov_base = (void *)payload, .iov_len = len },
	};
	struct msghdr mh = {
		.msg_name = &u->addrs[dst],
		.msg_namelen = sizeof(u->addrs[dst]),
		.msg_iov = iov,
		.msg_iovlen = len ? 2 : 1,
	};

	h->magic = UDP_MAGIC;
	h->src = u->rank;
	h->dst = dst;
	u->sent++;
	if (u->loss) {
		/* xorshift64: the same losses on every run of this rank */
		u->rng ^= u->rng << 13;
		u->rng ^= u->rng >> 7;
		u->rng ^= u->rng << 17;
		if (u->rng % 1000000 < u->loss) {
			u->dropped++;
			return;
		}
	}
	/* A failed send is a lost datagram: the timer resends it. */
	while (sendmsg(u->fd, &mh, 0) < 0 && errno == EINTR)
		;
}

static void send_ack(struct udp_tree *u, uint32_t dst, uint32_t seq,
		     uint8_t type, uint32_t nfrags, const uint8_t *have)
{
	struct uhdr h = {
		.type = U_ACK, .seq = seq, .idx = type, .nfrags = nfrags,
	};

	if (have) {
		h.len = (nfrags + 7) / 8;
		udp_xmit(u, dst, &h, have, h.len);
	} else {
		h.flags = UF_FULL;
		udp_xmit(u, dst, &h, NULL, 0);
	}
}

/*
 * Send the fragments of t the peer lacks; the last one asks for an ACK.
 * A probe is that last one alone: the answer (a bitmap) says what to
 * resend, which costs a round trip but not a whole message per lost ACK.
 */
static void tx_send(struct udp_tree *u, struct txmsg *t, int probe)
{
	uint32_t i, last = t->nfrags;
	uint32_t fs = u->frag;

	for (i = t->nfrags; i-- > 0;)
		if (!bit(t->acked, i)) {
			last = i;
			break;
		}
	for (i = probe ? last : 0; i < t->nfrags && last < t->nfrags; i++) {
		struct uhdr h = {
			.type = t->type, .seq = t->seq, .len = (uint32_t)t->buf->len,
			.idx = i, .nfrags = t->nfrags, .fsize = fs,
			.flags = i == last ? UF_ACK_REQ : 0,
		};
		size_t off = (size_t)i * fs;
		size_t n = t->buf->len - off < fs ? t->buf->len - off : fs;

		if (bit(t->acked, i))
			continue;
		udp_xmit(u, t->dst, &h, t->buf->data + off, t->buf->len ? n : 0);
	}
}

static void tx_remove(struct udp_tree *u, size_t i)
{
	ubuf_put(u->tx[i].buf);
	free(u->tx[i].acked);
	u->tx[i] = u->tx[--u->ntx];
}

static void rx_remove(struct udp_tree *u, size_t i, int keep_buf)
{
	if (!keep_buf)
		ubuf_put(u->rx[i].buf);
	free(u->rx[i].have);
	u->rx[i] = u->rx[--u->nrx];
}

static long rx_find(const struct udp_tree *u, uint32_t src, uint32_t seq)
{
	size_t i;

	for (i = 0; i < u->nrx; i++)
		if (u->rx[i].src == src && u->rx[i].seq == seq)
			return (long)i;
	return -1;
}

/*
 * Data from src for operation seq: src has finished every earlier
 * operation, which needed all we sent it then; a result (DOWN, RES) also
 * means it reduced what we sent it in this one.
 */
static void implicit_ack(struct udp_tree *u, uint32_t src, uint32_t seq,
			 uint8_t type)
{
	size_t i = 0;

	while (i < u->ntx) {
		struct txmsg *t = &u->tx[i];

		if (t->dst == src && (t->seq < seq || (t->seq == seq && type != U_UP)))
			tx_remove(u, i);
		else
			i++;
	}
}

static void on_ack(struct udp_tree *u, const struct uhdr *h,
		   const uint8_t *map, size_t maplen)
{
	struct txmsg *t = NULL;
	uint32_t i, missing = 0;
	size_t k;

	for (k = 0; k < u->ntx; k++)
		if (u->tx[k].dst == h->src && u->tx[k].seq == h->seq &&
		    u->tx[k].type == h->idx) {
			t = &u->tx[k];
			break;
		}
	if (!t)
		return;			/* acked before, or implicitly */
	if (h->flags & UF_FULL) {
		tx_remove(u, k);
		return;
	}
	if (h->nfrags != t->nfrags || maplen < (t->nfrags + 7) / 8)
		return;
	for (i = 0; i < t->nfrags; i++) {
		if (bit(map, i))
			set_bit(t->acked, i);
		missing += !bit(t->acked, i);
	}
	if (!missing) {
		tx_remove(u, k);
		return;
	}
	/* The peer saw the end of a burst and lacks some: resend them now. */
	tx_send(u, t, 0);
	u->retx++;
	t->next = now_us() + t->rto;
}

static void on_data(struct udp_tree *u, const struct uhdr *h,
		    const uint8_t *payload, size_t n)
{
	uint32_t src = h->src;
	struct rxmsg *m;
	size_t off, want;
	long i;

	if (h->seq <= u->last_done[src]) {
		/* consumed already: our ACK was lost */
		u->dups++;
		if (h->flags & UF_ACK_REQ)
			send_ack(u, src, h->seq, h->type, h->nfrags, NULL);
		return;
	}
	implicit_ack(u, src, h->seq, h->type);
	if (!h->fsize || h->len > NETCOLL_REDUCE_MAX ||
	    h->nfrags != nfrags_of(h->len, h->fsize) || h->idx >= h->nfrags)
		return;
	off = (size_t)h->idx * h->fsize;
	want = h->len ? (h->len - off < h->fsize ? h->len - off : h->fsize) : 0;
	if (n != want)
		return;
	i = rx_find(u, src, h->seq);
	if (i < 0) {
		/* Full: drop it, the sender's timer brings it back later. */
		if (u->nrx == UDP_RX_MAX)
			return;
		if (u->nrx == u->rxcap) {
			size_t cap = u->rxcap ? 2 * u->rxcap : 16;
			struct rxmsg *rx = realloc(u->rx, cap * sizeof(*rx));

			if (!rx)
				return;
			u->rx = rx;
			u->rxcap = cap;
		}
		m = &u->rx[u->nrx];
		*m = (struct rxmsg){
			.src = src, .seq = h->seq, .len = h->len, .type = h->type,
			.nfrags = h->nfrags, .fsize = h->fsize,
			.buf = ubuf_new(h->len),
			.have = calloc((h->nfrags + 7) / 8, 1),
		};
		if (!m->buf || !m->have) {
			ubuf_put(m->buf);
			free(m->have);
			return;
		}
		u->nrx++;
	} else {
		m = &u->rx[i];
		if (m->type != h->type || m->len != h->len ||
		    m->fsize != h->fsize)
			return;
	}
	if (!bit(m->have, h->idx)) {
		memcpy(m->buf->data + off, payload, n);
		set_bit(m->have, h->idx);
		if (++m->got == m->nfrags) {
			m->complete = 1;
			send_ack(u, src, m->seq, m->type, m->nfrags, NULL);
			return;
		}
	} else {
		u->dups++;
	}
	if (h->flags & UF_ACK_REQ)
		send_ack(u, src, m->seq, m->type, m->nfrags,
			 m->complete ? NULL : m->have);
}

static void udp_input(struct udp_tree *u, size_t n)
{
	struct uhdr h;

	if (n < sizeof(h))
		return;
	memcpy(&h, u->pkt, sizeof(h));
	if (h.magic != UDP_MAGIC || h.dst != u->rank || h.src >= u->size ||
	    h.src == u->rank)
		return;
	u->last_rx = now_us();
	if (h.type == U_ACK)
		on_ack(u, &h, u->pkt + sizeof(h), n - sizeof(h));
	else if (h.type >= U_UP && h.type <= U_RES)
		on_data(u, &h, u->pkt + sizeof(h), n - sizeof(h));
}

static int udp_drain(struct udp_tree *u)
{
	int got = 0;
	ssize_t n;

	for (;;) {
		n = recv(u->fd, u->pkt, UDP_PKT_MAX, MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			/* EAGAIN; ECONNREFUSED etc. are stale ICMP: ignore */
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return got;
			continue;
		}
		udp_input(u, (size_t)n);
		got = 1;
	}
}

/*
 * Resend what is due, then wait for datagrams until one arrives, a timer
 * is due or `deadline` (us) passes.  Returns 1 after an error message.
 */
static int udp_step(struct udp_tree *u, double deadline)
{
	double now = now_us(), next = deadline;
	size_t i = 0;

	while (i < u->ntx) {
		struct txmsg *t = &u->tx[i];

		if (t->give_up <= now) {
			if (u->lingering) {
				tx_remove(u, i);
				continue;
			}
			return fail("udp: rank %" PRIu32 " got no acknowledgement from rank %"
				    PRIu32 " for its %s of operation %" PRIu32
				    " in %" PRIu32 " ms (is ncbench running there, with the same --peers?)",
				    u->rank, t->dst, type_name(t->type), t->seq,
				    t->limit_ms);
		}
		if (t->next <= now) {
			tx_send(u, t, 1);
			u->retx++;
			t->rto = t->rto * 2 < u->rto_max ? t->rto * 2 : u->rto_max;
			t->next = now + t->rto;
		}
		if (t->next < next)
			next = t->next;
		if (t->give_up < next)
			next = t->give_up;
		i++;
	}
	if (u->busy_poll) {
		while (!udp_drain(u) && now_us() < next)
			;
		return 0;
	}
	if (next > now) {
		struct pollfd pfd = { .fd = u->fd, .events = POLLIN };
		double ms = (next - now) / 1e3;

		/* round up: waking early would spin */
		if (poll(&pfd, 1, ms > 1e6 ? 1000000 : (int)ms + 1) < 0 &&
		    errno != EINTR)
			return fail("udp: poll: %s", strerror(errno));
	}
	udp_drain(u);
	return 0;
}

/* How long the current operation may wait, in ms. */
static uint32_t op_limit(const struct udp_tree *u)
{
	return u->started ? u->timeout_ms : UDP_STARTUP * u->timeout_ms;
}

static double op_deadline(const struct udp_tree *u)
{
	return now_us() + op_limit(u) * 1e3;
}

/* Queue buf for dst in the current operation and send it. */
static int udp_send(struct udp_tree *u, uint32_t dst, uint8_t type,
		    struct ubuf *buf)
{
	double deadline = op_deadline(u);
	struct txmsg *t;
	size_t i, busy;

	for (;;) {
		for (i = 0, busy = 0; i < u->ntx; i++)
			busy += u->tx[i].dst == dst;
		if (busy < UDP_WINDOW)
			break;
		if (now_us() >= deadline)
			return fail("udp: rank %" PRIu32 ": rank %" PRIu32
				    " acknowledges nothing (window full)", u->rank, dst);
		if (udp_step(u, deadline))
			return 1;
	}
	if (u->ntx == u->txcap) {
		size_t cap = u->txcap ? 2 * u->txcap : 16;
		struct txmsg *tx = realloc(u->tx, cap * sizeof(*tx));

		if (!tx)
			return fail("udp: no memory");
		u->tx = tx;
		u->txcap = cap;
	}
	t = &u->tx[u->ntx];
	*t = (struct txmsg){
		.dst = dst, .seq = u->seq, .type = type,
		.nfrags = nfrags_of((uint32_t)buf->len, u->frag),
		.rto = u->rto,
	};
	t->acked = calloc((t->nfrags + 7) / 8, 1);
	if (!t->acked)
		return fail("udp: no memory");
	t->buf = ubuf_get(buf);
	t->next = now_us() + t->rto;
	t->give_up = deadline;
	t->limit_ms = op_limit(u);
	u->ntx++;
	tx_send(u, t, 0);
	return 0;
}

/* Wait for the message of the current operation from src. */
static int udp_recv(struct udp_tree *u, uint32_t src, uint8_t type,
		    size_t bytes, struct ubuf **buf)
{
	double deadline = op_deadline(u);
	uint32_t limit = op_limit(u);
	long i;

	for (;;) {
		i = rx_find(u, src, u->seq);
		if (i >= 0 && u->rx[i].complete)
			break;
		if (now_us() >= deadline)
			return fail("udp: rank %" PRIu32 " waited %" PRIu32
				    " ms for the %s of operation %" PRIu32 " from rank %"
				    PRIu32 " (is ncbench running there, with the same --peers?)",
				    u->rank, limit, type_name(type), u->seq, src);
		if (udp_step(u, deadline))
			return 1;
	}
	if (u->rx[i].type != type || u->rx[i].len != bytes)
		return fail("udp: rank %" PRIu32 " got a %s of %" PRIu32
			    " bytes from rank %" PRIu32 " for operation %" PRIu32
			    ", expected a %s of %zu bytes: do all ranks run the same"
			    " command line?", u->rank, type_name(u->rx[i].type),
			    u->rx[i].len, src, u->seq, type_name(type), bytes);
	*buf = u->rx[i].buf;
	rx_remove(u, (size_t)i, 1);
	u->last_done[src] = u->seq;
	return 0;
}

static void red_apply_any(enum nc_op op, enum nc_dtype dtype, void *acc,
			  const void *in, size_t bytes)
{
	if (!nc_red_apply_int(op, dtype, acc, in, (__u32)bytes))
		nc_red_apply_float(op, dtype, acc, in, (__u32)bytes);
}

/* A new operation: the next sequence number, earlier leftovers dropped. */
static void op_begin(struct udp_tree *u)
{
	size_t i;

	u->seq++;
	/* Leftovers of earlier operations can only be a peer's confusion. */
	for (i = 0; i < u->nrx;) {
		if (u->rx[i].seq < u->seq)
			rx_remove(u, i, 0);
		else
			i++;
	}
}

/*
 * The user-space broadcast the kernel's is measured against: on the tree
 * udp_set_tree() set (rooted at the broadcast's root) every rank but the
 * root waits for the whole message from its parent, then sends it on to
 * its children, store and forward by the process.
 */
int udp_bcast(struct udp_tree *u, void *buf, size_t bytes)
{
	struct ubuf *msg = NULL;
	uint32_t k;
	int ret = 1;

	if (bytes > NETCOLL_REDUCE_MAX)
		return fail("udp: invalid broadcast size");
	op_begin(u);
	if (u->rank == u->root) {
		msg = ubuf_new(bytes);
		if (!msg)
			return fail("udp: no memory");
		memcpy(msg->data, buf, bytes);
	} else if (udp_recv(u, u->parent, U_DOWN, bytes, &msg)) {
		return 1;
	}
	for (k = 0; k < u->nchildren; k++)
		if (udp_send(u, u->children[k], U_DOWN, msg))
			goto out;
	if (u->rank != u->root)
		memcpy(buf, msg->data, bytes);
	u->started = 1;
	ret = 0;
out:
	ubuf_put(msg);
	return ret;
}

int udp_reduce(struct udp_tree *u, const struct nc_red_args *a)
{
	size_t esize = a->count ? nc_elem_size(a->op, a->dtype) : 0;
	size_t bytes = a->count * esize;
	struct ubuf *acc, *in, *res = NULL;
	uint32_t k;
	int ret = 1;

	if (a->count && (!esize || nc_red_check(a->op, a->dtype)))
		return fail("udp: invalid operator and type");
	if (bytes > NETCOLL_REDUCE_MAX || (!a->all && a->root >= u->size))
		return fail("udp: invalid reduction arguments");
	op_begin(u);
	acc = ubuf_new(bytes);
	if (!acc)
		return fail("udp: no memory");
	memcpy(acc->data, a->sendbuf, bytes);
	/* the fixed order: own vector, then the children ascending */
	for (k = 0; k < u->nchildren; k++) {
		if (udp_recv(u, u->children[k], U_UP, bytes, &in))
			goto out;
		red_apply_any(a->op, a->dtype, acc->data, in->data, bytes);
		ubuf_put(in);
	}
	if (u->rank != u->root && udp_send(u, u->parent, U_UP, acc))
		goto out;
	if (a->all) {
		if (u->rank == u->root)
			res = ubuf_get(acc);
		else if (udp_recv(u, u->parent, U_DOWN, bytes, &res))
			goto out;
		for (k = 0; k < u->nchildren; k++)
			if (udp_send(u, u->children[k], U_DOWN, res))
				goto out;
	} else if (u->rank == u->root) {
		if (a->root == u->root)
			res = ubuf_get(acc);
		else if (udp_send(u, a->root, U_RES, acc))
			goto out;
	} else if (u->rank == a->root) {
		if (udp_recv(u, u->root, U_RES, bytes, &res))
			goto out;
	}
	if (res && a->recvbuf)
		memcpy(a->recvbuf, res->data, bytes);
	u->started = 1;
	ret = 0;
out:
	ubuf_put(res);
	ubuf_put(acc);
	return ret;
}

int udp_set_tree(struct udp_tree *u, const uint32_t *parents)
{
	uint32_t r, v, hops, root = UINT32_MAX, n = 0;

	for (r = 0; r < u->size; r++) {
		if (parents[r] >= u->size)
			return fail("udp: tree: parent of rank %" PRIu32 " out of range", r);
		if (parents[r] == r) {
			if (root != UINT32_MAX)
				return fail("udp: tree has two roots");
			root = r;
		}
	}
	for (r = 0; r < u->size; r++)
		for (v = r, hops = 0; parents[v] != v; v = parents[v])
			if (++hops > u->size)
				return fail("udp: tree has a cycle");
	memcpy(u->parents, parents, u->size * sizeof(*parents));
	u->root = root;
	u->parent = parents[u->rank];
	for (r = 0; r < u->size; r++)
		if (r != u->rank && parents[r] == u->rank)
			u->children[n++] = r;	/* ascending: the fixed order */
	u->nchildren = n;
	return 0;
}

int udp_open(struct udp_tree **up, const struct udp_cfg *cfg)
{
	struct udp_tree *u;
	int one = UDP_SOCKBUF;
	char ip[INET_ADDRSTRLEN];

	*up = NULL;
	u = calloc(1, sizeof(*u));
	if (!u)
		return fail("udp: no memory");
	u->fd = -1;
	u->rank = cfg->rank;
	u->size = cfg->size;
	u->frag = cfg->frag;
	u->rto = cfg->rto_ms * 1e3;
	u->rto_max = u->rto * 10 > 200e3 ? u->rto * 10 : 200e3;
	u->timeout_ms = cfg->timeout_ms;
	u->busy_poll = cfg->busy_poll;
	u->loss = cfg->loss_ppm;
	u->rng = 0x9e3779b97f4a7c15ULL * (cfg->rank + 1);
	u->addrs = calloc(u->size, sizeof(*u->addrs));
	u->parents = calloc(u->size, sizeof(*u->parents));
	u->children = calloc(u->size, sizeof(*u->children));
	u->last_done = calloc(u->size, sizeof(*u->last_done));
	u->pkt = malloc(UDP_PKT_MAX);
	if (!u->addrs || !u->parents || !u->children || !u->last_done || !u->pkt) {
		udp_close(u, 0);
		return fail("udp: no memory");
	}
	memcpy(u->addrs, cfg->addrs, u->size * sizeof(*u->addrs));
	u->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (u->fd < 0) {
		udp_close(u, 0);
		return fail("udp: socket: %s", strerror(errno));
	}
	/* Room for the bursts of several children; FORCE works as root. */
	if (setsockopt(u->fd, SOL_SOCKET, SO_RCVBUFFORCE, &one, sizeof(one)))
		setsockopt(u->fd, SOL_SOCKET, SO_RCVBUF, &one, sizeof(one));
	if (setsockopt(u->fd, SOL_SOCKET, SO_SNDBUFFORCE, &one, sizeof(one)))
		setsockopt(u->fd, SOL_SOCKET, SO_SNDBUF, &one, sizeof(one));
	if (bind(u->fd, (struct sockaddr *)&u->addrs[u->rank],
		 sizeof(u->addrs[u->rank]))) {
		int err = errno;

		inet_ntop(AF_INET, &u->addrs[u->rank].sin_addr, ip, sizeof(ip));
		udp_close(u, 0);
		return fail("udp: rank %" PRIu32 " cannot bind %s:%u: %s%s",
			    cfg->rank, ip, ntohs(cfg->addrs[cfg->rank].sin_port),
			    strerror(err), err == EADDRNOTAVAIL ?
			    " (not an address of this host: check --rank and --peers)" : "");
	}
	*up = u;
	return 0;
}

/*
 * Stay a little: a peer may still resend something whose ACK was lost
 * (the last result down the tree, typically), and must not wait for us
 * in vain.  What is still unacknowledged here after timeout_ms is given up.
 */
static void udp_linger(struct udp_tree *u)
{
	double start = now_us(), end = start + u->timeout_ms * 1e3;
	double quiet = u->rto_max + 100e3;

	u->lingering = 1;
	u->last_rx = start;
	while (now_us() < end) {
		double until = u->last_rx + quiet;

		if (!u->ntx && now_us() >= until)
			return;
		if (udp_step(u, u->ntx ? end : until))
			return;
	}
	if (u->ntx)
		fprintf(stderr, "ncbench: udp: rank %" PRIu32 ": %zu message(s) never acknowledged\n",
			u->rank, u->ntx);
}

void udp_close(struct udp_tree *u, int linger)
{
	if (!u)
		return;
	if (u->fd >= 0) {
		if (linger && u->started)
			udp_linger(u);
		close(u->fd);
	}
	while (u->ntx)
		tx_remove(u, 0);
	while (u->nrx)
		rx_remove(u, 0, 0);
	free(u->tx);
	free(u->rx);
	free(u->addrs);
	free(u->parents);
	free(u->children);
	free(u->last_done);
	free(u->pkt);
	free(u);
}

void udp_counters(const struct udp_tree *u, uint64_t *sent, uint64_t *retx,
		  uint64_t *dups, uint64_t *dropped)
{
	*sent = u->sent;
	*retx = u->retx;
	*dups = u->dups;
	*dropped = u->dropped;
}

/* "a.b.c.d" or "a.b.c.d:port" */
static int parse_ipport(const char *text, struct sockaddr_in *sa,
			uint32_t dflt_port)
{
	char buf[64], *colon, *end;
	unsigned long port = dflt_port;

	if (strlen(text) >= sizeof(buf))
		return -1;
	strcpy(buf, text);
	colon = strchr(buf, ':');
	if (colon) {
		*colon = 0;
		errno = 0;
		port = strtoul(colon + 1, &end, 10);
		if (errno || *end || !colon[1] || !port || port > 65535)
			return -1;
	}
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_port = htons((uint16_t)port);
	return inet_pton(AF_INET, buf, &sa->sin_addr) == 1 ? 0 : -1;
}

static uint32_t port_of(uint32_t rank, uint32_t port, int base_set,
			uint32_t base)
{
	return base_set ? base + rank : port;
}

/*
 * Peers from a file of "rank ip[:port]" lines ('#' comments) or a comma
 * list "ip[:port],..." in rank order.  Without a port: --port, or
 * --port-base + rank (all ranks on one address).
 */
int udp_peers(const char *file, const char *list, uint32_t port,
	      int port_base_set, uint32_t port_base,
	      struct sockaddr_in **addrs, uint32_t *np)
{
	struct sockaddr_in *a = NULL;
	uint8_t *seen = NULL;
	uint32_t n = 0, i, j;
	char *text = NULL, *line, *save = NULL, *tok;
	FILE *f;
	int ret = 1;

	if (list) {
		text = strdup(list);
		if (!text)
			return fail("no memory");
		for (tok = strtok_r(text, ",", &save); tok;
		     tok = strtok_r(NULL, ",", &save)) {
			struct sockaddr_in *na = realloc(a, (n + 1) * sizeof(*a));

			if (!na) {
				fail("no memory");
				goto out;
			}
			a = na;
			if (n >= NETCOLL_COMM_SIZE_MAX ||
			    parse_ipport(tok, &a[n], port_of(n, port, port_base_set, port_base))) {
				fail("--peers-list: bad address \"%s\"", tok);
				goto out;
			}
			n++;
		}
	} else {
		char buf[256];
		unsigned long r;
		char *end;
		unsigned int lno = 0;

		f = fopen(file, "r");
		if (!f)
			return fail("%s: %s", file, strerror(errno));
		a = calloc(NETCOLL_COMM_SIZE_MAX, sizeof(*a));
		seen = calloc(NETCOLL_COMM_SIZE_MAX, 1);
		if (!a || !seen) {
			fclose(f);
			fail("no memory");
			goto out;
		}
		while (fgets(buf, sizeof(buf), f)) {
			char *rank_tok, *ip_tok;

			lno++;
			line = buf;
			line[strcspn(line, "#\r\n")] = 0;
			rank_tok = strtok_r(line, " \t", &save);
			if (!rank_tok)
				continue;
			ip_tok = strtok_r(NULL, " \t", &save);
			errno = 0;
			r = strtoul(rank_tok, &end, 10);
			if (!ip_tok || strtok_r(NULL, " \t", &save) || errno || *end ||
			    r >= NETCOLL_COMM_SIZE_MAX || seen[r] ||
			    parse_ipport(ip_tok, &a[r], port_of((uint32_t)r, port,
								port_base_set, port_base))) {
				fclose(f);
				fail("%s:%u: want \"rank ip[:port]\", each rank once", file, lno);
				goto out;
			}
			seen[r] = 1;
			if (r + 1 > n)
				n = (uint32_t)r + 1;
		}
		fclose(f);
		for (i = 0; i < n; i++)
			if (!seen[i]) {
				fail("%s: no address for rank %" PRIu32, file, i);
				goto out;
			}
	}
	if (!n) {
		fail("no peers");
		goto out;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++)
			if (a[i].sin_addr.s_addr == a[j].sin_addr.s_addr &&
			    a[i].sin_port == a[j].sin_port) {
				fail("ranks %" PRIu32 " and %" PRIu32 " have the same address and"
				     " port (use --port-base or ip:port)", j, i);
				goto out;
			}
	*addrs = a;
	*np = n;
	a = NULL;
	ret = 0;
out:
	free(a);
	free(seen);
	free(text);
	return ret;
}

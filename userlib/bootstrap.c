// SPDX-License-Identifier: BSD-2-Clause
/*
 * The rendezvous of nc_comm_bootstrap(): ranks meet over ordinary TCP at a
 * "store" that rank 0 listens on (the model of Gloo's and PyTorch's
 * TCPStore, reduced to the one exchange netcoll needs).
 *
 *   rank r > 0                         rank 0
 *                               <---   CHALLENGE (fresh random bytes)
 *   HELLO rank, size, address,  --->   waits until every rank arrived
 *         the challenge
 *                               <---   WELCOME round, id, cookie, key,
 *                                      members
 *   creates its side
 *   RESULT errno                --->   creates its own, collects the rest
 *                               <---   FINAL errno (EAGAIN: the id was
 *                                      taken somewhere, a new WELCOME
 *                                      of the next round follows)
 *
 * Every message is a fixed header in network byte order and a payload of a
 * bounded, exactly checked length; an error carries its reason as text.
 * Rank 0 answers a bad HELLO (wrong size, a rank or an address taken) with
 * an error and goes on waiting, so a duplicate launch cannot spoil a job,
 * and drops a connection that is not the protocol.  A rank that never
 * arrives ends the wait with ETIMEDOUT for everybody, naming it.
 *
 * Without a job token the store is not authenticated and the key travels
 * in clear: like a TCPStore, it is meant for the job's own network.  A job
 * token (NETCOLL_STORE_TOKEN, the same string on every rank, e.g. drawn by
 * the launcher) is a shared secret that never crosses the network: a HELLO
 * carries a fresh nonce and an HMAC-SHA256 under the token; rank 0 checks
 * it first, so connections that do not know the token learn nothing of the
 * job, not even its size, and cannot take a rank.  Rank 0's WELCOME
 * carries an HMAC over that nonce and itself, so a member takes a member
 * table only from a rank 0 that knows the token, and its key masked by a
 * stream drawn from the token and the nonce, so an eavesdropper does not
 * read it.  The HELLO echoes the CHALLENGE rank 0 sent first on its
 * connection, so a HELLO seen on the wire and replayed on another
 * connection is refused (before, the replayer took the rank, and could
 * answer its RESULT: the job "met" without it).  With a token, a RESULT
 * and a FINAL of success carry an HMAC too, over the nonce, the
 * challenge and the WELCOME's round, so neither is forged nor taken from
 * an earlier round; errors are not (whoever can forge one could as well
 * cut the connection).  A member whose connection breaks before its
 * WELCOME connects again with a fresh HELLO, so a flood of connections
 * that pushes it out of rank 0's pending ones only delays it.
 * Still, nothing a
 * connection sends may stop the job: rank 0 reads every connection that
 * has not said HELLO side by side (root_gather), drops one that is not
 * the protocol at its first header, and sends nothing for longer than
 * SEND_WAIT_MS; a peer's text is made printable before it is shown.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/netcoll.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "bootstrap.h"
#include "bootstrap_wire.h"

#define TEXT_MAX	256	/* an error's reason */
#define PAYLOAD_MAX	(sizeof(struct boot_welcome) + NETCOLL_COMM_SIZE_MAX * NC_ADDR_MAX)
/* A connection that does not say HELLO within this is dropped. */
#define HELLO_WAIT_MS	2000
/* A message not sent within this is given up (the peer does not read). */
#define SEND_WAIT_MS	5000
/* Connections that have not said HELLO yet, read side by side (the oldest
 * is dropped for a new one beyond).
 */
#define PENDING_MAX	64
/* One connection attempt to one of the store's addresses lasts at most this. */
#define CONNECT_TRY_MS	3000
/* Rank 0's answers come at most this long after its own deadline. */
#define SLACK_MS	5000
/* Taken ids tried before giving up. */
#define ID_TRIES	4

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* fd ready for events before deadline: 0, or -ETIMEDOUT / -errno. */
static int wait_fd(int fd, short events, uint64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	uint64_t now;
	int n;

	for (;;) {
		now = now_ms();
		if (now >= deadline)
			return -ETIMEDOUT;
		n = poll(&p, 1, (int)(deadline - now < 1000000 ? deadline - now : 1000000));
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

static int read_full(int fd, void *buf, size_t len, uint64_t deadline)
{
	uint8_t *p = buf;
	ssize_t n;
	int err;

	while (len) {
		err = wait_fd(fd, POLLIN, deadline);
		if (err)
			return err;
		n = read(fd, p, len);
		if (n == 0)
			return -ECONNRESET;
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * A message goes out within SEND_WAIT_MS or not at all: a peer that
 * connects and never reads (a zero window) must not hold rank 0 up.
 */
static int write_full(int fd, const void *buf, size_t len)
{
	uint64_t deadline = now_ms() + SEND_WAIT_MS;
	const uint8_t *p = buf;
	ssize_t n;
	int err;

	while (len) {
		err = wait_fd(fd, POLLOUT, deadline);
		if (err)
			return err;
		/* MSG_NOSIGNAL: a peer gone is an error, not a SIGPIPE */
		n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int send_msg(int fd, enum boot_type type, int err, const void *payload,
		    size_t len)
{
	struct boot_hdr h = {
		.magic = htonl(BOOT_MAGIC), .version = htons(BOOT_VERSION),
		.type = htons(type), .err = htonl((uint32_t)err),
		.len = htonl((uint32_t)len),
	};
	int ret = write_full(fd, &h, sizeof(h));

	return ret ? ret : write_full(fd, payload, len);
}

/* An error answer: its reason as the payload. */
static int send_err(int fd, enum boot_type type, int err, const char *why)
{
	return send_msg(fd, type, err, why, strnlen(why, TEXT_MAX - 1));
}

/* One message of at most max payload bytes into buf (TEXT_MAX at least). */
static int recv_msg(int fd, struct boot_hdr *h, void *buf, size_t max,
		    uint64_t deadline)
{
	int ret = read_full(fd, h, sizeof(*h), deadline);

	if (ret)
		return ret;
	h->magic = ntohl(h->magic);
	h->version = ntohs(h->version);
	h->type = ntohs(h->type);
	h->err = ntohl(h->err);
	h->len = ntohl(h->len);
	if (h->magic != BOOT_MAGIC || h->version != BOOT_VERSION ||
	    h->len > max || h->err > 4095)
		return -EPROTO;
	return read_full(fd, buf, h->len, deadline);
}

/* The reason an error message carries, NUL-terminated in msg. */
static void take_text(char *msg, size_t msg_size, const void *buf, uint32_t len)
{
	const unsigned char *t = buf;
	size_t i;

	if (len >= TEXT_MAX)
		len = TEXT_MAX - 1;
	/* a peer's words: no terminal escapes into the user's messages */
	for (i = 0; i + 1 < msg_size && i < len && t[i]; i++)
		msg[i] = t[i] >= 0x20 && t[i] < 0x7f ? (char)t[i] : '?';
	if (msg_size)
		msg[i] = '\0';
}

/* "HOST:PORT" (HOST may be [v6]) into its parts. */
static int split_store(const char *store, char *host, size_t host_size,
		       const char **port)
{
	const char *colon = store ? strrchr(store, ':') : NULL;
	size_t n;

	if (!colon || !colon[1] || colon == store)
		return -EINVAL;
	n = (size_t)(colon - store);
	if (store[0] == '[' && n >= 2 && store[n - 1] == ']') {
		store++;
		n -= 2;
	}
	if (n >= host_size)
		return -ENAMETOOLONG;
	memcpy(host, store, n);
	host[n] = '\0';
	*port = colon + 1;
	return 0;
}

/*
 * Rank 0's listening socket on host:port, every address host resolves to
 * tried in turn; host NULL: every address of this host, IPv6 and IPv4
 * where it can.  -EADDRNOTAVAIL: host does not resolve, or to no address
 * of this host.
 */
static int listen_on(const char *host, const char *port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE };
	struct addrinfo *res, *ai;
	int one = 1, zero = 0, fd, err = -EADDRNOTAVAIL, gai;

	/* NULL: the IPv6 wildcard first, which takes IPv4 too (V6ONLY off) */
	if (!host)
		hints.ai_family = AF_INET6;
	gai = getaddrinfo(host, port, &hints, &res);
	if (gai && !host) {
		hints.ai_family = AF_INET;	/* no IPv6 here */
		gai = getaddrinfo(host, port, &hints, &res);
	}
	if (gai == EAI_MEMORY || (gai == EAI_SYSTEM && errno == ENOMEM))
		return -ENOMEM;
	if (gai)
		return -EADDRNOTAVAIL;
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			err = -errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (ai->ai_family == AF_INET6)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
		if (!bind(fd, ai->ai_addr, ai->ai_addrlen) &&
		    !listen(fd, NETCOLL_COMM_SIZE_MAX)) {
			freeaddrinfo(res);
			return fd;
		}
		err = -errno;
		close(fd);
		/* the port is taken: another address would find it taken too */
		if (err == -EADDRINUSE || err == -EACCES)
			break;
	}
	freeaddrinfo(res);
	return err;
}

/*
 * Connect fd to addr by deadline: 0 or -errno.  Non-blocking, so a store
 * whose address drops SYNs (a firewall, a full listen queue, a host that
 * is gone) costs the job's wait and not the kernel's SYN retries (about
 * 127 s); the socket is blocking again on return, as the rest expects.
 */
static int connect_by(int fd, const struct sockaddr *addr, socklen_t len,
		      uint64_t deadline)
{
	int flags = fcntl(fd, F_GETFL), err = 0;
	socklen_t elen = sizeof(err);

	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK))
		return -errno;
	if (connect(fd, addr, len)) {
		if (errno != EINPROGRESS)
			return -errno;
		err = -wait_fd(fd, POLLOUT, deadline);
		if (!err && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen))
			err = errno;
		if (err)
			return -err;
	}
	return fcntl(fd, F_SETFL, flags) ? -errno : 0;
}

/*
 * One attempt to reach the store by deadline: a connected socket or
 * -errno.  -EADDRNOTAVAIL: the name does not resolve (final);
 * -EAGAIN: the resolver failed for now (worth another try).  Each address
 * gets at most CONNECT_TRY_MS, so one that drops SYNs does not hide the
 * next (localhost as ::1 and 127.0.0.1, say).
 */
static int connect_once(const char *host, const char *port, uint64_t deadline)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai, *p;
	uint64_t until = now_ms() + CONNECT_TRY_MS;
	int fd = -1, err = ECONNREFUSED, gai;

	gai = getaddrinfo(host, port, &hints, &ai);
	if (gai == EAI_AGAIN)
		return -EAGAIN;
	if (gai == EAI_MEMORY || (gai == EAI_SYSTEM && errno == ENOMEM))
		return -ENOMEM;
	if (gai)
		return -EADDRNOTAVAIL;
	if (until > deadline)
		until = deadline;
	for (p = ai; p; p = p->ai_next) {
		fd = socket(p->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			err = errno;
			continue;
		}
		err = -connect_by(fd, p->ai_addr, p->ai_addrlen, until);
		if (!err)
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	return fd >= 0 ? fd : -err;
}

static void random_bytes(void *buf, size_t len)
{
	uint8_t *p = buf;
	ssize_t n;

	while (len) {
		n = getrandom(p, len, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			abort();	/* since Linux 3.17; never on a sane system */
		}
		p += n;
		len -= (size_t)n;
	}
}

/* "rank R could not create communicator ID: error (the kernel's why)" */
static void create_failed(const struct nc_boot_ops *ops, uint32_t rank, uint32_t id,
			  int err, char *out, size_t size)
{
	const char *why = ops->why ? ops->why(ops->arg) : NULL;

	snprintf(out, size, "rank %u could not create communicator %u: %s%s%s%s",
		 rank, id, nc_strerror(err), why ? " (" : "", why ? why : "",
		 why ? ")" : "");
}

/* ---------------------------------------------------------------- */
/* Rank 0                                                            */
/* ---------------------------------------------------------------- */

struct boot_root {
	const struct nc_boot_self *s;
	struct nc_boot_plan *plan;
	int *fds;			/* per rank; -1: not arrived */
	char (*hosts)[HOST_LEN];
	uint8_t (*nonces)[BOOT_NONCE_LEN];	/* of each rank's HELLO */
	uint8_t (*challenges)[BOOT_NONCE_LEN];	/* sent on its connection */
	uint32_t arrived;
	uint32_t dropped;		/* connections that were not HELLO */
};

/*
 * A connection that has not said HELLO yet.  Rank 0 reads all of them
 * side by side as their bytes come, each with its own HELLO_WAIT_MS:
 * read one at a time, 30 connections that said nothing spent the whole
 * wait of a job (2 s each) while its ranks queued behind them.
 */
struct boot_pending {
	int fd;
	uint64_t until;			/* dropped then */
	uint8_t challenge[BOOT_NONCE_LEN];	/* sent on it */
	size_t got;
	uint8_t buf[sizeof(struct boot_hdr) + sizeof(struct boot_hello)];
};

/* Still reading c's HELLO: 1; it is whole (in p->buf): 0; drop it: -1. */
static int pending_read(struct boot_pending *p)
{
	struct boot_hdr h;
	ssize_t n;

	for (;;) {
		n = read(p->fd, p->buf + p->got, sizeof(p->buf) - p->got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 1;
		if (n <= 0)
			return -1;
		p->got += (size_t)n;
		if (p->got >= sizeof(h)) {
			/* not the protocol: dropped before the rest comes */
			memcpy(&h, p->buf, sizeof(h));
			if (ntohl(h.magic) != BOOT_MAGIC ||
			    ntohs(h.version) != BOOT_VERSION ||
			    ntohs(h.type) != BOOT_HELLO || h.err ||
			    ntohl(h.len) != sizeof(struct boot_hello))
				return -1;
		}
		if (p->got == sizeof(p->buf))
			return 0;
	}
}

/*
 * Has the peer of an arrived rank's connection hung up?  It sent its
 * HELLO and waits for the WELCOME, saying nothing more.
 */
static int conn_gone(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLRDHUP };
	char c;

	if (poll(&p, 1, 0) <= 0)
		return 0;
	if (p.revents & (POLLHUP | POLLERR | POLLRDHUP))
		return 1;
	return recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

/* Does this rank have a job token?  NULL or "": none. */
static int has_token(const char *token)
{
	return token && token[0];
}

/*
 * HMAC-SHA256 under the job token of label (each use its own, so no MAC
 * stands for another), nonce and data: 0 or -ENOMEM.
 */
static int token_mac(const char *token, const char *label,
		     const uint8_t nonce[BOOT_NONCE_LEN], const void *data,
		     size_t len, uint8_t out[BOOT_MAC_LEN])
{
	EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
	EVP_MAC_CTX *ctx = mac ? EVP_MAC_CTX_new(mac) : NULL;
	OSSL_PARAM params[] = {
		OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST,
						 (char *)"SHA256", 0),
		OSSL_PARAM_construct_end(),
	};
	size_t n = 0;
	int ok;

	ok = ctx && EVP_MAC_init(ctx, (const unsigned char *)token,
				 strlen(token), params) &&
	     EVP_MAC_update(ctx, (const unsigned char *)label, strlen(label) + 1) &&
	     EVP_MAC_update(ctx, nonce, BOOT_NONCE_LEN) &&
	     EVP_MAC_update(ctx, data, len) &&
	     EVP_MAC_final(ctx, out, &n, BOOT_MAC_LEN) && n == BOOT_MAC_LEN;
	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(mac);
	return ok ? 0 : -ENOMEM;
}

/* h's MAC under token (h->mac taken as zero): 0 or -ENOMEM. */
static int hello_mac(const char *token, const struct boot_hello *h,
		     uint8_t out[BOOT_MAC_LEN])
{
	struct boot_hello c = *h;

	memset(c.mac, 0, sizeof(c.mac));
	return token_mac(token, "netcoll bootstrap hello", c.nonce, &c, sizeof(c), out);
}

/*
 * A WELCOME of len bytes (w, then the addresses) for the HELLO that had
 * nonce, under token: its MAC (w->mac taken as zero).  0 or -ENOMEM.
 */
static int welcome_mac(const char *token, const uint8_t nonce[BOOT_NONCE_LEN],
		       struct boot_welcome *w, size_t len, uint8_t out[BOOT_MAC_LEN])
{
	uint8_t was[BOOT_MAC_LEN], mac[BOOT_MAC_LEN];
	int err;

	memcpy(was, w->mac, sizeof(was));
	memset(w->mac, 0, sizeof(w->mac));
	err = token_mac(token, "netcoll bootstrap welcome", nonce, w, len, mac);
	memcpy(w->mac, was, sizeof(was));
	memcpy(out, mac, sizeof(mac));	/* out may be w->mac */
	return err;
}

/*
 * Mask (or unmask: the same) a WELCOME's key for the HELLO that had nonce:
 * XOR with HMAC(token, nonce, cookie, block number), block by block.  The
 * cookie is fresh in every round (a taken id makes another), so no two
 * keys are masked alike.  0 or -ENOMEM.
 */
static int key_mask(const char *token, const uint8_t nonce[BOOT_NONCE_LEN],
		    uint64_t cookie, uint8_t *key, size_t len)
{
	uint8_t pad[BOOT_MAC_LEN];
	uint32_t block;
	size_t i, at;
	int err = 0;

	for (block = 0, at = 0; at < len && !err; block++, at += sizeof(pad)) {
		uint32_t in[3] = { htonl((uint32_t)(cookie >> 32)),
				   htonl((uint32_t)cookie), htonl(block) };

		err = token_mac(token, "netcoll bootstrap key", nonce, in,
				sizeof(in), pad);
		for (i = 0; !err && i < sizeof(pad) && at + i < len; i++)
			key[at + i] ^= pad[i];
	}
	explicit_bzero(pad, sizeof(pad));
	return err;
}

/*
 * What a RESULT or FINAL of success carries under a token: an HMAC with
 * label over the member's nonce, rank 0's challenge on its connection and
 * the round.  0 or -ENOMEM.
 */
static int step_mac(const char *token, const char *label,
		    const uint8_t nonce[BOOT_NONCE_LEN],
		    const uint8_t challenge[BOOT_NONCE_LEN], uint32_t round,
		    uint8_t out[BOOT_MAC_LEN])
{
	uint8_t in[BOOT_NONCE_LEN + sizeof(uint32_t)];
	uint32_t r = htonl(round);

	memcpy(in, challenge, BOOT_NONCE_LEN);
	memcpy(in + BOOT_NONCE_LEN, &r, sizeof(r));
	return token_mac(token, label, nonce, in, sizeof(in), out);
}

/* Does a success's payload (len bytes) carry step_mac()?  0 or -EACCES. */
static int step_ok(const char *token, const char *label,
		   const uint8_t nonce[BOOT_NONCE_LEN],
		   const uint8_t challenge[BOOT_NONCE_LEN], uint32_t round,
		   const void *payload, uint32_t len)
{
	uint8_t want[BOOT_MAC_LEN];

	if (!has_token(token))
		return len ? -EPROTO : 0;
	if (len != BOOT_MAC_LEN ||
	    step_mac(token, label, nonce, challenge, round, want))
		return -EACCES;
	return CRYPTO_memcmp(want, payload, sizeof(want)) ? -EACCES : 0;
}

#define RESULT_LABEL	"netcoll bootstrap result"
#define FINAL_LABEL	"netcoll bootstrap final"

/*
 * Does a HELLO prove rank 0's token?  0, -EACCES (another token, or one
 * where rank 0 has none, or none where it has one) or -ENOMEM.
 */
static int hello_token_ok(const char *token, const struct boot_hello *h)
{
	static const uint8_t none[BOOT_MAC_LEN];
	uint8_t want[BOOT_MAC_LEN];
	int err;

	if (!has_token(token))
		return memcmp(h->mac, none, sizeof(none)) ? -EACCES : 0;
	err = hello_mac(token, h, want);
	if (!err && CRYPTO_memcmp(want, h->mac, sizeof(want)))
		err = -EACCES;
	return err;
}

/*
 * A whole HELLO (pending_read) on a connection that was sent challenge,
 * taken in or refused with a reason.
 */
static void root_hello(struct boot_root *b, int c, const uint8_t *msg,
		       const uint8_t challenge[BOOT_NONCE_LEN])
{
	const struct nc_boot_self *s = b->s;
	union {
		struct boot_hello h;
		char text[TEXT_MAX];
	} u;
	char why[TEXT_MAX];
	size_t i;
	int err;

	memcpy(&u.h, msg + sizeof(struct boot_hdr), sizeof(u.h));
	/* first: who does not know the token learns nothing of the job */
	err = hello_token_ok(s->token, &u.h);
	if (err) {
		send_err(c, BOOT_WELCOME, -err, err == -EACCES ?
			 "this rank's job token (NETCOLL_STORE_TOKEN) is not rank 0's" :
			 "rank 0 is out of memory");
		close(c);
		return;
	}
	/* a HELLO from another connection: seen on the wire and replayed */
	if (CRYPTO_memcmp(u.h.challenge, challenge, BOOT_NONCE_LEN)) {
		send_err(c, BOOT_WELCOME, EACCES,
			 "this HELLO answers another connection's challenge");
		close(c);
		return;
	}
	u.h.rank = ntohl(u.h.rank);
	u.h.size = ntohl(u.h.size);
	u.h.addr_len = ntohl(u.h.addr_len);
	u.h.host[HOST_LEN - 1] = '\0';
	for (i = 0; u.h.host[i]; i++)	/* it goes into messages */
		if (u.h.host[i] < 0x20 || u.h.host[i] > 0x7e)
			u.h.host[i] = '?';
	why[0] = '\0';
	if (u.h.size != s->size)
		snprintf(why, sizeof(why), "rank %u (%s) counts %u ranks, rank 0 counts %u",
			 u.h.rank, u.h.host, u.h.size, s->size);
	else if (u.h.rank == 0 || u.h.rank >= s->size)
		snprintf(why, sizeof(why), "rank %u (%s) is not 1..%u",
			 u.h.rank, u.h.host, s->size - 1);
	else if (u.h.addr_len != s->addr_len)
		snprintf(why, sizeof(why), "rank %u (%s) has a %u-byte address, rank 0 a %u-byte one",
			 u.h.rank, u.h.host, u.h.addr_len, s->addr_len);
	if (why[0]) {
		send_err(c, BOOT_WELCOME, EINVAL, why);
		close(c);
		return;
	}
	/*
	 * Ranks may share an address: several ranks on one host.  An address
	 * that is not the rank's device's fails when that rank creates its
	 * side, so it needs no check here.
	 */
	if (b->fds[u.h.rank] >= 0 && conn_gone(b->fds[u.h.rank])) {
		/* it arrived and went (restarted): this one takes its place */
		close(b->fds[u.h.rank]);
		b->fds[u.h.rank] = -1;
		b->arrived--;
	}
	if (b->fds[u.h.rank] >= 0)
		snprintf(why, sizeof(why), "rank %u has arrived already (from %s)",
			 u.h.rank, b->hosts[u.h.rank]);
	if (why[0]) {
		send_err(c, BOOT_WELCOME, EADDRINUSE, why);
		close(c);
		return;
	}
	b->fds[u.h.rank] = c;
	memcpy(b->hosts[u.h.rank], u.h.host, HOST_LEN);
	memcpy(b->nonces[u.h.rank], u.h.nonce, BOOT_NONCE_LEN);
	memcpy(b->challenges[u.h.rank], challenge, BOOT_NONCE_LEN);
	memcpy(b->plan->members[u.h.rank].addr, u.h.addr, s->addr_len);
	b->plan->members[u.h.rank].addr_len = s->addr_len;
	b->arrived++;
}

/*
 * Tell every rank that arrived: FINAL err with why, or success (err 0)
 * of round, proven under the token if there is one.
 */
static void root_final(struct boot_root *b, int err, const char *why,
		       uint32_t round)
{
	const char *token = b->s->token;
	uint8_t mac[BOOT_MAC_LEN];
	uint32_t r;
	int ret;

	for (r = 1; r < b->s->size; r++) {
		if (b->fds[r] < 0)
			continue;
		if (err || !has_token(token)) {
			ret = send_err(b->fds[r], BOOT_FINAL, err, why ? why : "");
		} else {
			ret = step_mac(token, FINAL_LABEL, b->nonces[r],
				       b->challenges[r], round, mac);
			if (!ret)
				ret = send_msg(b->fds[r], BOOT_FINAL, 0, mac, sizeof(mac));
		}
		if (ret) {
			close(b->fds[r]);
			b->fds[r] = -1;
		}
	}
}

/* "ranks 3, 5 and 2 more" that have not arrived. */
static void missing_ranks(const struct boot_root *b, char *out, size_t size)
{
	uint32_t r, n = 0, missing = b->s->size - b->arrived;
	size_t len;

	len = (size_t)snprintf(out, size, "rank%s", missing > 1 ? "s" : "");
	for (r = 1; r < b->s->size && len < size; r++) {
		if (b->fds[r] >= 0)
			continue;
		if (n == 8) {
			snprintf(out + len, size - len, " and %u more", missing - n);
			return;
		}
		len += (size_t)snprintf(out + len, size - len, "%s %u", n ? "," : "", r);
		n++;
	}
}

/*
 * Every rank arrived: drop those whose connection is gone since (a rank
 * killed before its WELCOME, perhaps started again): how many.  Else the
 * WELCOME went to a dead rank and the job failed on it, while its
 * restarted process was turned away.
 */
static uint32_t root_drop_gone(struct boot_root *b)
{
	uint32_t r, n = 0;

	for (r = 1; r < b->s->size; r++)
		if (b->fds[r] >= 0 && conn_gone(b->fds[r])) {
			close(b->fds[r]);
			b->fds[r] = -1;
			b->arrived--;
			n++;
		}
	return n;
}

/* Drop pending connection i (the array stays in arrival order). */
static void pending_drop(struct boot_root *b, struct boot_pending *p, uint32_t *n,
			 uint32_t i)
{
	close(p[i].fd);
	b->dropped++;
	memmove(&p[i], &p[i + 1], (*n - i - 1) * sizeof(*p));
	(*n)--;
}

/* A CHALLENGE on a new connection, at once or not at all: 0 or -errno. */
static int send_challenge(int fd, const uint8_t challenge[BOOT_NONCE_LEN])
{
	struct {
		struct boot_hdr h;
		uint8_t challenge[BOOT_NONCE_LEN];
	} __attribute__((packed)) m = {
		.h = { .magic = htonl(BOOT_MAGIC), .version = htons(BOOT_VERSION),
		       .type = htons(BOOT_CHALLENGE), .len = htonl(BOOT_NONCE_LEN) },
	};
	ssize_t n;

	memcpy(m.challenge, challenge, BOOT_NONCE_LEN);
	n = send(fd, &m, sizeof(m), MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n < 0)
		return -errno;
	return n == (ssize_t)sizeof(m) ? 0 : -EAGAIN;
}

/*
 * Accept and read HELLOs until every rank arrived (0) or the deadline
 * (-ETIMEDOUT, every rank that came told so, naming those that did not).
 */
static int root_gather(struct boot_root *b, int lfd, uint64_t deadline,
		       char *msg, size_t msg_size)
{
	const struct nc_boot_self *s = b->s;
	struct boot_pending p[PENDING_MAX];
	struct pollfd pfd[PENDING_MAX + 1];
	uint32_t n = 0, i;
	uint64_t now, next;
	char why[TEXT_MAX];
	int c, err = 0;

	for (;;) {
		if (b->arrived == s->size && !root_drop_gone(b))
			break;
		now = now_ms();
		if (now >= deadline) {
			err = -ETIMEDOUT;
			missing_ranks(b, why, sizeof(why));
			snprintf(msg, msg_size, "%s never arrived at %s within %u ms",
				 why, s->store, s->wait_ms);
			break;
		}
		next = deadline;
		pfd[0] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		for (i = 0; i < n; i++) {
			pfd[i + 1] = (struct pollfd){ .fd = p[i].fd, .events = POLLIN };
			if (p[i].until < next)
				next = p[i].until;
		}
		c = poll(pfd, n + 1, next > now ? (int)(next - now < 1000000 ? next - now : 1000000) : 0);
		if (c < 0 && errno != EINTR) {
			err = -errno;
			snprintf(msg, msg_size, "rank 0 waiting at %s: %s", s->store,
				 nc_strerror(err));
			break;
		}
		now = now_ms();
		/* back to front: a drop moves only the ones looked at */
		for (i = n; c > 0 && i-- > 0;) {
			int r = pfd[i + 1].revents ? pending_read(&p[i]) : 1;

			if (r == 0) {
				root_hello(b, p[i].fd, p[i].buf, p[i].challenge);
				memmove(&p[i], &p[i + 1], (n - i - 1) * sizeof(*p));
				n--;
			} else if (r < 0 || now >= p[i].until) {
				pending_drop(b, p, &n, i);
			}
		}
		for (i = n; c == 0 && i-- > 0;)
			if (now >= p[i].until)
				pending_drop(b, p, &n, i);
		if (c <= 0 || !(pfd[0].revents & POLLIN))
			continue;
		c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (c < 0 && (errno == EMFILE || errno == ENFILE)) {
			if (n) {	/* the oldest unknown one makes room */
				pending_drop(b, p, &n, 0);
				continue;
			}
			err = -errno;
			snprintf(msg, msg_size,
				 "rank 0 has no file descriptor left for rank %u of %u (ulimit -n)",
				 b->arrived, s->size);
			break;
		}
		if (c < 0)
			continue;
		if (n == PENDING_MAX)
			pending_drop(b, p, &n, 0);	/* the oldest */
		p[n].fd = c;
		p[n].until = now + HELLO_WAIT_MS;
		p[n].got = 0;
		random_bytes(p[n].challenge, BOOT_NONCE_LEN);
		/* a fresh socket has room for it: never waited for */
		if (send_challenge(c, p[n].challenge)) {
			close(c);
			b->dropped++;
			continue;
		}
		n++;
	}
	for (i = 0; i < n; i++)
		close(p[i].fd);
	if (err)
		root_final(b, -err, msg, 0);
	return err;
}

/* Hand the plan out, create rank 0's side, collect the others': the
 * first failure (rank in *who, reason in why), or 0.
 */
static int root_round(struct boot_root *b, const struct nc_boot_ops *ops,
		      uint32_t round, int *created0, uint32_t *who, char *why,
		      size_t why_size)
{
	const struct nc_boot_self *s = b->s;
	const struct nc_boot_plan *p = b->plan;
	size_t len = sizeof(struct boot_welcome) + (size_t)s->size * s->addr_len;
	struct boot_welcome *w = calloc(1, len);
	char text[TEXT_MAX], reason[TEXT_MAX];
	struct boot_hdr h;
	int err, first = 0;
	uint64_t deadline;
	uint32_t r;

	*created0 = 0;
	if (!w) {
		*who = 0;
		snprintf(why, why_size, "rank 0 is out of memory");
		return -ENOMEM;
	}
	w->id = htonl(p->id);
	w->size = htonl(s->size);
	w->round = htonl(round);
	w->cookie_hi = htonl((uint32_t)(p->cookie >> 32));
	w->cookie_lo = htonl((uint32_t)p->cookie);
	w->timeout_ms = htonl(p->timeout_ms);
	w->oso = htonl(p->oso);
	w->tree_degree = htonl(p->tree_degree);
	w->key_len = htonl(p->key_len);
	w->addr_len = htonl(s->addr_len);
	for (r = 0; r < s->size; r++)
		memcpy((uint8_t *)(w + 1) + (size_t)r * s->addr_len,
		       p->members[r].addr, s->addr_len);
	/* with a token, each rank's WELCOME is its own: bound to its nonce */
	for (r = 1; r < s->size; r++) {
		if (b->fds[r] < 0)
			continue;
		memcpy(w->key, p->key, p->key_len);
		err = 0;
		if (has_token(s->token))
			err = key_mask(s->token, b->nonces[r], p->cookie,
				       w->key, p->key_len);
		if (!err && has_token(s->token))
			err = welcome_mac(s->token, b->nonces[r], w, len, w->mac);
		if (err || send_msg(b->fds[r], BOOT_WELCOME, 0, w, len)) {
			close(b->fds[r]);
			b->fds[r] = -1;
		}
	}
	explicit_bzero(w, len);		/* the key */
	free(w);

	err = ops->create(ops->arg, p);
	*created0 = !err;
	if (err) {
		first = err;
		*who = 0;
		create_failed(ops, 0, p->id, err, why, why_size);
	}
	/* creating a communicator is one netlink request: seconds at most */
	deadline = now_ms() + s->wait_ms + SLACK_MS;
	for (r = 1; r < s->size; r++) {
		err = b->fds[r] < 0 ? -ECONNRESET :
		      recv_msg(b->fds[r], &h, reason, sizeof(reason), deadline);
		if (!err && h.type != BOOT_RESULT)
			err = -EPROTO;
		if (!err && h.err) {
			err = -(int)h.err;
			take_text(text, sizeof(text), reason, h.len);
		} else if (!err) {
			err = step_ok(s->token, RESULT_LABEL, b->nonces[r],
				      b->challenges[r], round, reason, h.len);
			if (err)
				snprintf(text, sizeof(text),
					 "rank %u's answer does not prove the job token", r);
		} else {
			snprintf(text, sizeof(text), "rank %u went away: %s", r,
				 nc_strerror(err));
		}
		if (err && !first) {
			first = err;
			*who = r;
			snprintf(why, why_size, "%s", text);
		}
	}
	return first;
}

static int boot_root(const struct nc_boot_self *s, const struct nc_boot_ops *ops,
		     struct nc_boot_plan *plan, uint32_t *id, char *msg, size_t msg_size)
{
	struct boot_root b = { .s = s, .plan = plan, .arrived = 1 };
	char host[256], why[TEXT_MAX], again[TEXT_MAX];
	uint64_t deadline = now_ms() + s->wait_ms;
	int lfd, err, created0 = 0, tries;
	const char *port, *lhost;
	uint32_t r, who = 0;

	err = split_store(s->store, host, sizeof(host), &port);
	if (err) {
		snprintf(msg, msg_size, "store \"%s\" is not HOST:PORT", s->store);
		return err;
	}
	/*
	 * On the store's address, not on every one of this host: whoever
	 * reaches the store learns the job's members (and without a token
	 * its key), and the job's network need not be every network rank 0
	 * is on.  s->listen names another, "*" every one: where the store's
	 * name resolves to no address of this host (behind a NAT), or to
	 * another than the other ranks reach it at (Debian's /etc/hosts maps
	 * the host's own name to 127.0.1.1).
	 */
	lhost = s->listen && *s->listen ? s->listen : host;
	lfd = listen_on(strcmp(lhost, "*") ? lhost : NULL, port);
	if (lfd < 0) {
		snprintf(msg, msg_size, "rank 0 cannot listen on %s port %s: %s%s",
			 lhost, port, nc_strerror(lfd),
			 lfd == -EADDRNOTAVAIL ?
			 " (not an address of this host? NETCOLL_STORE_LISTEN names another, * every one)" : "");
		return lfd;
	}
	b.fds = malloc(s->size * sizeof(*b.fds));
	b.hosts = calloc(s->size, sizeof(*b.hosts));
	b.nonces = calloc(s->size, sizeof(*b.nonces));
	b.challenges = calloc(s->size, sizeof(*b.challenges));
	if (!b.fds || !b.hosts || !b.nonces || !b.challenges) {
		err = -ENOMEM;
		goto out;
	}
	for (r = 0; r < s->size; r++)
		b.fds[r] = -1;
	memcpy(plan->members[0].addr, s->addr, s->addr_len);
	plan->members[0].addr_len = s->addr_len;

	err = root_gather(&b, lfd, deadline, msg, msg_size);
	if (err)
		goto out;
	close(lfd);
	lfd = -1;

	plan->size = s->size;
	plan->rank = 0;
	plan->timeout_ms = s->timeout_ms;
	plan->oso = s->oso;
	plan->tree_degree = s->tree_degree;
	for (tries = 1;; tries++) {
		plan->id = s->id;
		if (!plan->id) {	/* from the users' range: anybody may take it */
			random_bytes(&plan->id, sizeof(plan->id));
			plan->id = NETCOLL_COMM_ID_USER_MIN + plan->id %
				   (NETCOLL_COMM_ID_MAX - NETCOLL_COMM_ID_USER_MIN + 1);
		}
		random_bytes(&plan->cookie, sizeof(plan->cookie));
		plan->cookie |= 1;	/* 0 would mean "none" */
		plan->key_len = s->auth ? 32 : 0;
		random_bytes(plan->key, plan->key_len);
		err = root_round(&b, ops, (uint32_t)tries, &created0, &who, why,
				 sizeof(why));
		if (!err) {
			root_final(&b, 0, NULL, (uint32_t)tries);
			*id = plan->id;
			goto out;
		}
		if (created0)
			ops->destroy(ops->arg, plan);
		if (err != -EEXIST || s->id || tries == ID_TRIES)
			break;
		/* a random id that one host already uses: another id */
		snprintf(again, sizeof(again), "id %u is taken on rank %u, trying another",
			 plan->id, who);
		root_final(&b, EAGAIN, again, 0);
	}
	snprintf(msg, msg_size, "%s", why);
	root_final(&b, -err, why, 0);
out:
	if (lfd >= 0)
		close(lfd);
	if (b.fds)
		for (r = 1; r < s->size; r++)
			if (b.fds[r] >= 0)
				close(b.fds[r]);
	free(b.fds);
	free(b.hosts);
	free(b.nonces);
	free(b.challenges);
	return err;
}

/* ---------------------------------------------------------------- */
/* Ranks 1 ..                                                        */
/* ---------------------------------------------------------------- */

/*
 * A WELCOME's payload (answering the HELLO that had nonce, in round) into
 * plan (members allocated by the caller): 0, -EPROTO, or -EACCES (with a
 * token: the sender does not know it, not this job's rank 0).
 */
static int parse_welcome(const struct nc_boot_self *s, const uint8_t *nonce,
			 uint32_t round, void *buf, uint32_t len,
			 struct nc_boot_plan *p)
{
	uint8_t want[BOOT_MAC_LEN];
	struct boot_welcome w;
	uint32_t r;
	int err;

	if (len < sizeof(w))
		return -EPROTO;
	if (has_token(s->token)) {
		/* before anything in it is believed */
		err = welcome_mac(s->token, nonce, buf, len, want);
		if (err)
			return err;
		if (CRYPTO_memcmp(want, ((struct boot_welcome *)buf)->mac, sizeof(want)))
			return -EACCES;
	}
	memcpy(&w, buf, sizeof(w));
	p->id = ntohl(w.id);
	p->size = ntohl(w.size);
	p->cookie = (uint64_t)ntohl(w.cookie_hi) << 32 | ntohl(w.cookie_lo);
	p->timeout_ms = ntohl(w.timeout_ms);
	p->oso = ntohl(w.oso);
	p->tree_degree = ntohl(w.tree_degree);
	p->key_len = ntohl(w.key_len);
	p->addr_len = ntohl(w.addr_len);
	/* an earlier round's (its id was taken somewhere): replayed */
	if (p->size != s->size || p->addr_len != s->addr_len ||
	    ntohl(w.round) != round ||
	    p->key_len > NC_KEY_MAX || nc_check_comm_id(p->id) ||
	    len != sizeof(w) + (size_t)p->size * p->addr_len) {
		explicit_bzero(&w, sizeof(w));
		return -EPROTO;
	}
	memcpy(p->key, w.key, p->key_len);
	explicit_bzero(&w, sizeof(w));	/* the key: p holds it now */
	if (has_token(s->token)) {
		err = key_mask(s->token, nonce, p->cookie, p->key, p->key_len);
		if (err)
			return err;
	}
	for (r = 0; r < p->size; r++) {
		memcpy(p->members[r].addr, (const uint8_t *)buf + sizeof(w) +
		       (size_t)r * p->addr_len, p->addr_len);
		p->members[r].addr_len = p->addr_len;
	}
	/* the table must hold this rank as it said it is */
	if (memcmp(p->members[s->rank].addr, s->addr, s->addr_len))
		return -EPROTO;
	p->rank = s->rank;
	return 0;
}

/*
 * Connect to the store (rank 0 may start later than this rank: tried
 * until the deadline), take rank 0's CHALLENGE and say HELLO, with a
 * fresh nonce, answering it.  The connected socket, or -errno with why
 * in msg.
 */
static int member_hello(const struct nc_boot_self *s, const char *host,
			const char *port, struct boot_hello *hello, uint8_t *buf,
			uint64_t deadline, char *msg, size_t msg_size)
{
	struct boot_hdr h;
	int fd, err;

	for (;;) {
		fd = connect_once(host, port, deadline);
		if (fd >= 0)
			break;
		if (fd == -EADDRNOTAVAIL || fd == -ENOMEM) {
			snprintf(msg, msg_size, "cannot resolve the store host \"%s\"%s", host,
				 fd == -ENOMEM ? " (out of memory)" : "");
			return fd;
		}
		if (now_ms() + 100 >= deadline) {
			snprintf(msg, msg_size, "no rank 0 at %s within %u ms (%s)",
				 s->store, s->wait_ms, fd == -EAGAIN ?
				 "its name does not resolve now" : nc_strerror(fd));
			return -ETIMEDOUT;
		}
		usleep(100 * 1000);
	}
	err = recv_msg(fd, &h, buf, PAYLOAD_MAX, deadline);
	if (!err && (h.type != BOOT_CHALLENGE || h.err || h.len != BOOT_NONCE_LEN))
		err = -EPROTO;
	if (!err) {
		memcpy(hello->challenge, buf, BOOT_NONCE_LEN);
		random_bytes(hello->nonce, sizeof(hello->nonce));
		memset(hello->mac, 0, sizeof(hello->mac));
		if (has_token(s->token))
			err = hello_mac(s->token, hello, hello->mac);
	}
	if (!err)
		err = send_msg(fd, BOOT_HELLO, 0, hello, sizeof(*hello));
	if (err) {
		close(fd);
		snprintf(msg, msg_size, "rendezvous with rank 0 at %s failed: %s",
			 s->store, err == -EPROTO ?
			 "not the netcoll bootstrap protocol" : nc_strerror(err));
		return err;
	}
	return fd;
}

/* A connection that broke before rank 0 answered: worth another HELLO. */
static int broke(int err)
{
	return err == -ECONNRESET || err == -EPIPE;
}

static int boot_member(const struct nc_boot_self *s, const struct nc_boot_ops *ops,
		       struct nc_boot_plan *plan, uint32_t *id, char *msg, size_t msg_size)
{
	uint64_t until = now_ms() + s->wait_ms, deadline = until;
	struct boot_hello hello = { 0 };
	uint32_t round = 1, resets = 0;
	struct boot_hdr h;
	char host[256], text[TEXT_MAX];
	uint8_t mac[BOOT_MAC_LEN];
	const char *port;
	uint8_t *buf;
	int fd = -1, err, created = 0;

	err = split_store(s->store, host, sizeof(host), &port);
	if (err) {
		snprintf(msg, msg_size, "store \"%s\" is not HOST:PORT", s->store);
		return err;
	}
	buf = malloc(PAYLOAD_MAX);
	if (!buf)
		return -ENOMEM;
	hello.rank = htonl(s->rank);
	hello.size = htonl(s->size);
	hello.addr_len = htonl(s->addr_len);
	memcpy(hello.addr, s->addr, s->addr_len);
	gethostname(hello.host, sizeof(hello.host) - 1);
	/*
	 * Until rank 0 answers: a connection it dropped (a flood of others
	 * pushed it out of the pending ones, or it was not listening yet)
	 * is made again, with a fresh HELLO.
	 */
	for (;;) {
		fd = member_hello(s, host, port, &hello, buf, until, msg, msg_size);
		if (fd < 0 && !(broke(fd) && now_ms() + 100 < until)) {
			err = fd;
			goto out;
		}
		if (fd >= 0) {
			/* rank 0 answers by its own deadline; it may have started later */
			deadline = now_ms() + s->wait_ms + SLACK_MS;
			err = recv_msg(fd, &h, buf, PAYLOAD_MAX, deadline);
			if (!broke(err) || now_ms() + 100 >= until)
				break;
			close(fd);
			fd = -1;
		}
		resets++;
		usleep(100 * 1000);
	}
	while (!err) {
		if (h.type != BOOT_WELCOME && h.type != BOOT_FINAL) {
			err = -EPROTO;
			break;
		}
		if (h.err) {
			take_text(msg, msg_size, buf, h.len);
			err = -(int)h.err;
			goto out;
		}
		err = h.type == BOOT_WELCOME ?
		      parse_welcome(s, hello.nonce, round, buf, h.len, plan) : -EPROTO;
		if (err == -EACCES) {
			snprintf(msg, msg_size,
				 "the rank 0 at %s does not know this job's token (NETCOLL_STORE_TOKEN): not this job's",
				 s->store);
			goto out;
		}
		if (err)
			break;
		err = ops->create(ops->arg, plan);
		created = !err;
		if (err) {
			create_failed(ops, s->rank, plan->id, err, text, sizeof(text));
			err = send_err(fd, BOOT_RESULT, -err, text);
		} else if (has_token(s->token)) {
			err = step_mac(s->token, RESULT_LABEL, hello.nonce,
				       hello.challenge, round, mac);
			if (!err)
				err = send_msg(fd, BOOT_RESULT, 0, mac, sizeof(mac));
		} else {
			err = send_msg(fd, BOOT_RESULT, 0, NULL, 0);
		}
		if (!err)
			err = recv_msg(fd, &h, buf, TEXT_MAX, deadline);
		if (!err && h.type != BOOT_FINAL)
			err = -EPROTO;
		if (!err && !h.err) {
			err = step_ok(s->token, FINAL_LABEL, hello.nonce,
				      hello.challenge, round, buf, h.len);
			if (!err) {
				*id = plan->id;
				goto out;
			}
			if (created)
				ops->destroy(ops->arg, plan);
			snprintf(msg, msg_size,
				 "rank 0's final answer at %s does not prove the job token",
				 s->store);
			goto out;
		}
		if (created)
			ops->destroy(ops->arg, plan);
		created = 0;
		if (err)
			break;
		if (h.err != EAGAIN) {
			take_text(msg, msg_size, buf, h.len);
			err = -(int)h.err;
			goto out;
		}
		round++;		/* a new WELCOME follows */
		err = recv_msg(fd, &h, buf, PAYLOAD_MAX, deadline);
	}
	if (broke(err) && !plan->id)
		snprintf(msg, msg_size,
			 "rank 0 at %s hung up before answering%s: it stopped, or its job was complete without rank %u",
			 s->store, resets ? ", each time" : "", s->rank);
	else
		snprintf(msg, msg_size, "rendezvous with rank 0 at %s failed: %s",
			 s->store, err == -EPROTO ? "not the netcoll bootstrap protocol" :
			 nc_strerror(err));
out:
	explicit_bzero(buf, PAYLOAD_MAX);	/* a WELCOME held the key */
	free(buf);
	if (fd >= 0)
		close(fd);
	return err;
}

int nc_boot_run(const struct nc_boot_self *s, const struct nc_boot_ops *ops,
		uint32_t *id, char *msg, size_t msg_size)
{
	struct nc_boot_plan plan = { 0 };
	char dummy[1];
	int err;

	if (!msg || !msg_size) {
		msg = dummy;
		msg_size = sizeof(dummy);
	}
	msg[0] = '\0';
	if (!s || !ops || !id || !s->store || !s->addr || s->size == 0 ||
	    s->size > NETCOLL_COMM_SIZE_MAX || s->rank >= s->size ||
	    s->addr_len == 0 || s->addr_len > NC_ADDR_MAX || s->wait_ms == 0 ||
	    (s->id && nc_check_comm_id(s->id)) ||
	    (has_token(s->token) &&
	     (strnlen(s->token, NC_BOOT_TOKEN_MAX + 1) > NC_BOOT_TOKEN_MAX ||
	      strlen(s->token) < NC_BOOT_TOKEN_MIN)))
		return -EINVAL;
	plan.addr_len = s->addr_len;
	plan.members = calloc(s->size, sizeof(*plan.members));
	if (!plan.members)
		return -ENOMEM;
	if (s->rank == 0)
		err = boot_root(s, ops, &plan, id, msg, msg_size);
	else
		err = boot_member(s, ops, &plan, id, msg, msg_size);
	/* the key does not outlive the call in this process's heap */
	explicit_bzero(plan.key, sizeof(plan.key));
	free(plan.members);
	return err;
}

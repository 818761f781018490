// SPDX-License-Identifier: BSD-2-Clause
/*
 * nc_check: run a collective on one rank and check it, for the VM tests.
 * Every rank runs it at once with the same arguments but its own --rank.
 *
 * alltoall: block d of the send buffer holds bytes that depend on the
 * source rank, the destination rank, the iteration, the message size and
 * the byte offset, so a block that lands in the wrong place, is shifted,
 * is left over from an earlier iteration or size, or is not written at
 * all is caught.  The receive buffer is verified byte for byte.
 *
 * --expect-error NAME turns it around: success iff the operation fails
 * with exactly that errno (ANY: with some errno), and every iteration
 * before it was verified.  --interrupt-after MS sends this process a
 * SIGALRM (handler without SA_RESTART) MS ms after it bound, just before
 * the first operation, to check that a signal cancels a blocked
 * collective (EINTR).
 *
 * Output: one line per size, "ok - ..." or "not ok - ..."; exit 0 iff all ok.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <linux/netcoll.h>

#include "netcoll.h"
#include "start_gate.h"

#define MAX_SIZES	64

struct opts {
	uint32_t comm, rank, nranks;
	int alltoall;
	uint64_t sizes[MAX_SIZES];
	unsigned int nsizes;
	uint64_t iters;
	enum nc_a2a_algo algo;
	uint32_t timeout_ms;
	uint32_t interrupt_ms;		/* 0: no signal */
	int expect;			/* errno expected, 0: success expected */
	int bootstrap;			/* nc_open_bootstrap from the environment */
	uint32_t late_ms;		/* late_rank starts each iteration late */
	uint32_t late_rank;
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: nc_check { --comm ID --rank R --size P | --bootstrap }\n"
		"                --op alltoall|barrier\n"
		"                [--bytes N | --bytes-list N,N,...] [--iters K]\n"
		"                [--algo default|linear|pairwise|ring|sched] [--timeout MS]\n"
		"                [--interrupt-after MS] [--expect-error ERRNO_NAME|ANY]\n"
		"                [--late-ms MS --late-rank R]\n"
		"--bootstrap: nc_open_bootstrap(), rank and size from NETCOLL_RANK and\n"
		"NETCOLL_SIZE, the store from NETCOLL_STORE (the communicator is gone\n"
		"when the program ends)\n");
}

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A setup error: the check could not even run. */
static int fail(const char *fmt, ...)
{
	va_list ap;

	fputs("nc_check: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

static int parse_num(const char *text, const char *what, uint64_t max,
		     uint64_t *v)
{
	unsigned long long x;
	char *end;

	errno = 0;
	x = strtoull(text, &end, 0);
	if (text[0] < '0' || text[0] > '9' || errno || *end || x > max)
		return fail("invalid %s \"%s\"", what, text);
	*v = x;
	return 0;
}

/* An errno by name; "ANY" (-1): whatever error. */
static int parse_errno(const char *name, int *e)
{
	int i;

	if (strcmp(name, "ANY") == 0) {
		*e = -1;
		return 0;
	}
	for (i = 1; i < 4096; i++) {
		const char *n = strerrorname_np(i);

		if (n && strcmp(n, name) == 0) {
			*e = i;
			return 0;
		}
	}
	return fail("unknown errno name \"%s\"", name);
}

static const char *errname(int e)
{
	const char *n = e < 0 ? "an error" : strerrorname_np(e);

	return n ? n : "unknown errno";
}

static int parse_list(char *list, struct opts *o)
{
	char *tok, *save = NULL;

	o->nsizes = 0;
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (o->nsizes == MAX_SIZES)
			return fail("more than %d sizes", MAX_SIZES);
		if (parse_num(tok, "size", NETCOLL_MSG_MAX, &o->sizes[o->nsizes++]))
			return 1;
	}
	return o->nsizes ? 0 : fail("empty --bytes-list");
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "comm",	  required_argument, NULL, 'c' },
		{ "rank",	  required_argument, NULL, 'r' },
		{ "size",	  required_argument, NULL, 'P' },
		{ "op",		  required_argument, NULL, 'o' },
		{ "bytes",	  required_argument, NULL, 'b' },
		{ "bytes-list",	  required_argument, NULL, 'l' },
		{ "iters",	  required_argument, NULL, 'i' },
		{ "algo",	  required_argument, NULL, 'a' },
		{ "timeout",	  required_argument, NULL, 't' },
		{ "expect-error", required_argument, NULL, 'e' },
		{ "interrupt-after", required_argument, NULL, 'I' },
		{ "bootstrap",	  no_argument,	     NULL, 'B' },
		{ "late-ms",	  required_argument, NULL, 'L' },
		{ "late-rank",	  required_argument, NULL, 'K' },
		{ "help",	  no_argument,	     NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c, have = 0;
	uint64_t v;
	int algo;

	*o = (struct opts){ .iters = 1, .algo = NC_A2A_DEFAULT, .alltoall = -1 };
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (parse_num(optarg, "communicator id", NETCOLL_COMM_ID_MAX, &v))
				return 1;
			o->comm = (uint32_t)v;
			have |= 1;
			break;
		case 'r':
			if (parse_num(optarg, "rank", NETCOLL_COMM_SIZE_MAX - 1, &v))
				return 1;
			o->rank = (uint32_t)v;
			have |= 2;
			break;
		case 'P':
			if (parse_num(optarg, "size", NETCOLL_COMM_SIZE_MAX, &v))
				return 1;
			o->nranks = (uint32_t)v;
			have |= 4;
			break;
		case 'o':
			if (strcmp(optarg, "alltoall") && strcmp(optarg, "barrier"))
				return fail("unknown operation \"%s\"", optarg);
			o->alltoall = strcmp(optarg, "alltoall") == 0;
			break;
		case 'b':
			o->nsizes = 1;
			if (parse_num(optarg, "byte count", NETCOLL_MSG_MAX, &o->sizes[0]))
				return 1;
			break;
		case 'l':
			if (parse_list(optarg, o))
				return 1;
			break;
		case 'i':
			if (parse_num(optarg, "iteration count", UINT32_MAX, &o->iters))
				return 1;
			break;
		case 'a':
			algo = nc_a2a_algo_parse(optarg);
			if (algo < 0)
				return fail("unknown algorithm \"%s\"", optarg);
			o->algo = (enum nc_a2a_algo)algo;
			break;
		case 't':
			if (parse_num(optarg, "timeout", NETCOLL_TIMEOUT_MS_MAX, &v))
				return 1;
			o->timeout_ms = (uint32_t)v;
			break;
		case 'e':
			if (parse_errno(optarg, &o->expect))
				return 1;
			break;
		case 'I':
			if (parse_num(optarg, "interrupt delay", UINT32_MAX, &v))
				return 1;
			o->interrupt_ms = (uint32_t)v;
			break;
		case 'B':
			o->bootstrap = 1;
			break;
		case 'L':
			if (parse_num(optarg, "lateness", UINT32_MAX / 1000, &v))
				return 1;
			o->late_ms = (uint32_t)v;
			break;
		case 'K':
			if (parse_num(optarg, "late rank", UINT32_MAX, &v))
				return 1;
			o->late_rank = (uint32_t)v;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return 1;
		}
	}
	if (optind < argc)
		return fail("unexpected argument \"%s\"", argv[optind]);
	if (o->bootstrap) {
		const char *r = getenv("NETCOLL_RANK"), *n = getenv("NETCOLL_SIZE");

		if (have & 7)
			return fail("--bootstrap takes rank and size from the environment");
		if (!r || !n || parse_num(r, "NETCOLL_RANK", NETCOLL_COMM_SIZE_MAX - 1, &v) ||
		    (o->rank = (uint32_t)v, parse_num(n, "NETCOLL_SIZE", NETCOLL_COMM_SIZE_MAX, &v)))
			return fail("--bootstrap needs NETCOLL_RANK and NETCOLL_SIZE");
		o->nranks = (uint32_t)v;
		o->comm = NETCOLL_COMM_ID_MAX;	/* some id: messages only */
		have |= 7;
	}
	if (have != 7 || o->alltoall < 0)
		return fail("--comm, --rank, --size and --op are required");
	if (o->comm == 0 || o->nranks == 0 || o->rank >= o->nranks)
		return fail("need --comm >= 1 and --rank < --size");
	if (o->alltoall && o->nsizes == 0)
		return fail("alltoall needs --bytes or --bytes-list");
	if (!o->alltoall) {
		o->nsizes = 1;		/* a barrier has no size */
		o->sizes[0] = 0;
	}
	if (o->iters == 0)
		return fail("--iters must be at least 1");
	if (o->expect && o->nsizes > 1)
		return fail("--expect-error takes a single size");
	if (o->timeout_ms && o->timeout_ms < NETCOLL_TIMEOUT_MS_MIN)
		return fail("--timeout must be 0 (default) or at least %u ms",
			    NETCOLL_TIMEOUT_MS_MIN);
	return 0;
}

/* ---------------------------------------------------------------- */
/* Data pattern                                                      */
/* ---------------------------------------------------------------- */

static uint32_t mix32(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

/* The block src sends to dst in iteration iter of an n-byte alltoall. */
static uint32_t block_seed(uint32_t src, uint32_t dst, uint64_t iter, uint64_t n)
{
	uint32_t h = mix32((uint32_t)n ^ mix32((uint32_t)(n >> 32) + 0x9e3779b9U));

	h = mix32(h ^ (uint32_t)iter);
	h = mix32(h ^ dst * 0x85ebca6bU);
	return mix32(h ^ src * 0xc2b2ae35U);
}

/* Bytes 4w..4w+3 of a block: a fresh hash every 4 bytes, so shifts show. */
static uint32_t block_word(uint32_t seed, uint64_t w)
{
	return mix32(seed + (uint32_t)w * 0x9e3779b9U);
}

static uint8_t block_byte(uint32_t seed, uint64_t i)
{
	return (uint8_t)(block_word(seed, i >> 2) >> (i & 3) * 8);
}

static void fill_block(uint8_t *p, uint64_t n, uint32_t seed, uint8_t invert)
{
	uint32_t w = 0;
	uint64_t i;

	for (i = 0; i < n; i++) {
		if ((i & 3) == 0)
			w = block_word(seed, i >> 2);
		p[i] = (uint8_t)(w >> (i & 3) * 8) ^ invert;
	}
}

/* Offset of the first byte that is not the pattern, or n. */
static uint64_t first_mismatch(const uint8_t *p, uint64_t n, uint32_t seed,
			       uint8_t invert)
{
	uint32_t w = 0;
	uint64_t i;

	for (i = 0; i < n; i++) {
		if ((i & 3) == 0)
			w = block_word(seed, i >> 2);
		if (p[i] != ((uint8_t)(w >> (i & 3) * 8) ^ invert))
			break;
	}
	return i;
}

static int block_is(const uint8_t *p, uint64_t n, uint32_t seed, uint8_t invert)
{
	return first_mismatch(p, n, seed, invert) == n;
}

/* Name what a wrong block holds instead, if it is something we know. */
static void diagnose(const struct opts *o, const uint8_t *blk, uint32_t src,
		     uint64_t iter, uint64_t n, char *buf, size_t size)
{
	uint32_t s, d;

	if (block_is(blk, n, block_seed(src, o->rank, iter, n), 0xff)) {
		snprintf(buf, size, "; the block was not written");
		return;
	}
	if (iter && block_is(blk, n, block_seed(src, o->rank, iter - 1, n), 0)) {
		snprintf(buf, size, "; the block holds the previous iteration's data");
		return;
	}
	for (s = 0; s < o->nranks; s++)
		for (d = 0; d < o->nranks; d++)
			if ((s != src || d != o->rank) &&
			    block_is(blk, n, block_seed(s, d, iter, n), 0)) {
				snprintf(buf, size, "; the block is rank %" PRIu32
					 "'s block for rank %" PRIu32, s, d);
				return;
			}
	buf[0] = '\0';
}

/* ---------------------------------------------------------------- */
/* Runs                                                              */
/* ---------------------------------------------------------------- */

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void describe(const struct opts *o, uint64_t n, char *buf, size_t size)
{
	if (o->alltoall)
		snprintf(buf, size, "alltoall comm %" PRIu32 " rank %" PRIu32 "/%" PRIu32
			 " bytes %" PRIu64 " algo %s", o->comm, o->rank, o->nranks,
			 n, nc_a2a_algo_name(o->algo));
	else
		snprintf(buf, size, "barrier comm %" PRIu32 " rank %" PRIu32 "/%" PRIu32,
			 o->comm, o->rank, o->nranks);
}

/* First wrong byte of recv after iteration iter; 0 if all are right. */
static int verify(const struct opts *o, const uint8_t *recv, uint64_t iter,
		  uint64_t n, const char *what)
{
	uint32_t src;
	uint64_t i;
	char why[96];

	for (src = 0; src < o->nranks; src++) {
		const uint8_t *blk = recv + src * n;
		uint32_t seed = block_seed(src, o->rank, iter, n);

		i = first_mismatch(blk, n, seed, 0);
		if (i == n)
			continue;
		diagnose(o, blk, src, iter, n, why, sizeof(why));
		printf("not ok - %s: iteration %" PRIu64 ": block from rank %" PRIu32
		       " byte %" PRIu64 " (recvbuf offset %" PRIu64 "): expected 0x%02x, got 0x%02x%s\n",
		       what, iter, src, i, src * n + i, block_byte(seed, i), blk[i], why);
		return 1;
	}
	return 0;
}

/* One size: K iterations.  Returns the exit status contribution. */
static int check_size(const struct opts *o, nc_endpoint *ep, uint64_t n,
		      uint8_t *send, uint8_t *recv)
{
	double start = now_ms(), t0 = start;
	uint64_t k;
	uint32_t d;
	char what[160];
	int err = 0;

	describe(o, n, what, sizeof(what));
	for (k = 0; k < o->iters; k++) {
		if (o->alltoall) {
			for (d = 0; d < o->nranks; d++) {
				fill_block(send + d * n, n,
					   block_seed(o->rank, d, k, n), 0);
				/* The inverse of what must arrive. */
				fill_block(recv + d * n, n,
					   block_seed(d, o->rank, k, n), 0xff);
			}
		}
		if (o->late_ms && o->rank == o->late_rank)
			usleep(o->late_ms * 1000);
		t0 = now_ms();
		err = o->alltoall ? nc_alltoall_algo(ep, send, recv, n, o->algo)
				  : nc_barrier(ep);
		if (err)
			break;
		if (o->alltoall && verify(o, recv, k, n, what))
			return 1;
	}
	if (o->expect) {
		if (!err) {
			printf("not ok - %s: %" PRIu64 " iterations succeeded, expected %s\n",
			       what, o->iters, errname(o->expect));
			return 1;
		}
		if (o->expect > 0 && -err != o->expect) {
			printf("not ok - %s: iteration %" PRIu64 " failed with %s (%s) after %.1f ms, expected %s\n",
			       what, k, errname(-err), nc_strerror(err),
			       now_ms() - t0, errname(o->expect));
			return 1;
		}
		printf("ok - %s: iteration %" PRIu64 " failed with %s as expected after %.1f ms\n",
		       what, k, errname(-err), now_ms() - t0);
		return 0;
	}
	if (err) {
		printf("not ok - %s: iteration %" PRIu64 " failed with %s (%s) after %.1f ms\n",
		       what, k, errname(-err), nc_strerror(err), now_ms() - t0);
		return 1;
	}
	printf("ok - %s: %" PRIu64 " iteration%s%s in %.1f ms\n", what, o->iters,
	       o->iters == 1 ? "" : "s", o->alltoall ? " verified" : "",
	       now_ms() - start);
	return 0;
}

static void on_alarm(int sig)
{
}

/* One SIGALRM after ms; without SA_RESTART a blocked ioctl gets EINTR. */
static int arm_interrupt(uint32_t ms)
{
	struct sigaction sa = { .sa_handler = on_alarm };
	struct itimerval it = {
		.it_value = { .tv_sec = ms / 1000, .tv_usec = ms % 1000 * 1000 },
	};

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, NULL) || setitimer(ITIMER_REAL, &it, NULL))
		return fail("cannot arm the interrupt timer: %s", strerror(errno));
	return 0;
}

/* --size and --rank must describe the communicator of this namespace. */
static int check_comm(const struct opts *o)
{
	struct nc_comm_info ci;
	nc_ctl *ctl;
	int err;

	err = nc_ctl_open(&ctl);
	if (err)
		return fail("cannot talk to the netcoll module: %s", nc_strerror(err));
	nc_ctl_set_rank(ctl, o->rank);	/* the host may have several */
	err = nc_comm_get(ctl, o->comm, &ci);
	if (err) {
		const char *why = nc_ctl_last_error(ctl);

		fail("communicator %" PRIu32 ": %s%s%s", o->comm, nc_strerror(err),
		     why ? ": " : "", why ? why : "");
		nc_ctl_close(ctl);
		return 1;
	}
	nc_ctl_close(ctl);
	nc_comm_info_free(&ci);
	if (ci.size != o->nranks || ci.rank != o->rank)
		return fail("communicator %" PRIu32 " has rank %" PRIu32 " of %" PRIu32
			    " here, not %" PRIu32 " of %" PRIu32, o->comm,
			    ci.rank, ci.size, o->rank, o->nranks);
	return 0;
}

int main(int argc, char **argv)
{
	uint8_t *send = NULL, *recv = NULL;
	nc_endpoint *ep = NULL;
	uint64_t max = 0;
	struct opts o;
	unsigned int i;
	size_t bytes;
	int err, ret = 1;

	start_gate_init();
	if (parse_opts(argc, argv, &o) || (!o.bootstrap && check_comm(&o)))
		return 1;
	for (i = 0; i < o.nsizes; i++)
		if (o.sizes[i] > max)
			max = o.sizes[i];
	bytes = (size_t)o.nranks * max;
	send = malloc(bytes ? bytes : 1);
	recv = malloc(bytes ? bytes : 1);
	if (!send || !recv) {
		fail("cannot allocate 2 x %zu bytes", bytes);
		goto out;
	}
	if (o.bootstrap) {
		err = nc_open_bootstrap(&ep, NULL);
		if (err) {
			fail("bootstrap: %s", nc_strerror(err));
			goto out;
		}
		if (nc_comm_size(ep) != (int)o.nranks) {
			fail("bootstrap made a communicator of %d ranks", nc_comm_size(ep));
			goto out;
		}
		err = nc_set_timeout(ep, o.timeout_ms);
		goto bound;
	}
	err = nc_open(&ep, NULL);
	if (err) {
		fail("cannot open /dev/netcoll: %s", nc_strerror(err));
		goto out;
	}
	err = nc_bind(ep, o.comm, o.rank);
bound:
	if (!err)
		err = nc_set_timeout(ep, o.timeout_ms);
	if (err) {
		fail("cannot bind to communicator %" PRIu32 " as rank %" PRIu32 ": %s",
		     o.comm, o.rank, nc_strerror(err));
		goto out;
	}
	start_gate_wait();
	if (o.interrupt_ms && arm_interrupt(o.interrupt_ms)) {
		ret = 1;
		goto out;
	}
	/* Later sizes would pair with the peers' next collective: stop. */
	for (ret = 0, i = 0; i < o.nsizes && !ret; i++)
		ret = check_size(&o, ep, o.sizes[i], send, recv);
out:
	nc_close(ep);
	free(send);
	free(recv);
	return ret;
}

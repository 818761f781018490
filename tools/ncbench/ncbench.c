// SPDX-License-Identifier: BSD-2-Clause
/*
 * ncbench: OSU-style latency benchmark of netcoll collectives.
 *
 * Run it on every rank at once, each bound to the same communicator with
 * its own rank.  For each size every rank runs the same number of
 * iterations: the counts depend only on the command line and the
 * communicator size, never on timing, so the collectives always pair up.
 * Each size starts with a barrier; the first iteration of each size is
 * checked byte for byte.  Rank 0 prints the table.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/netcoll.h>

#include "netcoll.h"

struct opts {
	uint32_t comm, rank;
	int barrier, alltoall;
	uint64_t min, max;
	uint64_t iters, warmup;
	uint64_t budget;		/* bytes one rank sends per size, at most */
	enum nc_a2a_algo algo;
	uint32_t timeout_ms;
	int all_ranks, json;
};

struct result {
	uint64_t iters;
	double min, p50, p99, max;	/* microseconds */
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: ncbench --comm ID --rank R [--op barrier|alltoall|all]\n"
		"               [--min BYTES] [--max BYTES] [--iters N] [--warmup N]\n"
		"               [--budget BYTES] [--algo default|linear|pairwise|ring|sched] [--timeout MS]\n"
		"               [--all-ranks] [-j]\n"
		"\n"
		"Runs on every rank of communicator ID at once.  Sizes are bytes per\n"
		"peer, powers of two from --min (8) to --max (1048576).  --iters\n"
		"(1000) shrinks for large sizes so that a rank sends at most --budget\n"
		"bytes (64 MiB) per size, but not below 10 (or --iters).  Latencies\n"
		"are in microseconds; alltoall throughput is P*(P-1)*size*8 bits\n"
		"over the median latency.\n");
}

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int fail(const char *fmt, ...)
{
	va_list ap;

	fputs("ncbench: ", stderr);
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

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "comm",	required_argument, NULL, 'c' },
		{ "rank",	required_argument, NULL, 'r' },
		{ "op",		required_argument, NULL, 'o' },
		{ "min",	required_argument, NULL, 'm' },
		{ "max",	required_argument, NULL, 'M' },
		{ "iters",	required_argument, NULL, 'i' },
		{ "warmup",	required_argument, NULL, 'w' },
		{ "budget",	required_argument, NULL, 'b' },
		{ "algo",	required_argument, NULL, 'a' },
		{ "timeout",	required_argument, NULL, 't' },
		{ "all-ranks",	no_argument,	   NULL, 'A' },
		{ "json",	no_argument,	   NULL, 'j' },
		{ "help",	no_argument,	   NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c, have_comm = 0, have_rank = 0;
	uint64_t v;
	int algo;

	*o = (struct opts){
		.barrier = 1, .alltoall = 1, .min = 8, .max = 1 << 20,
		.iters = 1000, .warmup = 10, .budget = 64 << 20,
		.algo = NC_A2A_DEFAULT,
	};
	while ((c = getopt_long(argc, argv, "jh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (parse_num(optarg, "communicator id", NETCOLL_COMM_ID_MAX, &v))
				return 1;
			o->comm = (uint32_t)v;
			have_comm = 1;
			break;
		case 'r':
			if (parse_num(optarg, "rank", NETCOLL_COMM_SIZE_MAX - 1, &v))
				return 1;
			o->rank = (uint32_t)v;
			have_rank = 1;
			break;
		case 'o':
			o->barrier = !strcmp(optarg, "barrier") || !strcmp(optarg, "all");
			o->alltoall = !strcmp(optarg, "alltoall") || !strcmp(optarg, "all");
			if (!o->barrier && !o->alltoall)
				return fail("unknown operation \"%s\"", optarg);
			break;
		case 'm':
			if (parse_num(optarg, "minimum size", NETCOLL_MSG_MAX, &o->min))
				return 1;
			break;
		case 'M':
			if (parse_num(optarg, "maximum size", NETCOLL_MSG_MAX, &o->max))
				return 1;
			break;
		case 'i':
			if (parse_num(optarg, "iteration count", UINT32_MAX, &o->iters))
				return 1;
			break;
		case 'w':
			if (parse_num(optarg, "warm-up count", UINT32_MAX, &o->warmup))
				return 1;
			break;
		case 'b':
			if (parse_num(optarg, "budget", UINT64_MAX, &o->budget))
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
		case 'A':
			o->all_ranks = 1;
			break;
		case 'j':
			o->json = 1;
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
	if (!have_comm || !have_rank)
		return fail("--comm and --rank are required");
	if (o->comm == 0)
		return fail("communicator id 0 is not valid");
	if (o->min == 0 || o->min > o->max)
		return fail("sizes must satisfy 1 <= --min <= --max");
	if (o->iters == 0)
		return fail("--iters must be at least 1");
	if (o->timeout_ms && o->timeout_ms < NETCOLL_TIMEOUT_MS_MIN)
		return fail("--timeout must be 0 (default) or at least %u ms",
			    NETCOLL_TIMEOUT_MS_MIN);
	return 0;
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted samples. */
static double percentile(const double *v, uint64_t n, double p)
{
	uint64_t k = (uint64_t)(p * (double)n + 0.999999);

	return v[k ? k - 1 : 0];
}

static void summarize(double *lat, uint64_t n, struct result *r)
{
	qsort(lat, n, sizeof(*lat), cmp_double);
	r->iters = n;
	r->min = lat[0];
	r->p50 = percentile(lat, n, 0.50);
	r->p99 = percentile(lat, n, 0.99);
	r->max = lat[n - 1];
}

/* Byte k of the block src sends to dst at this size: misplacing blocks,
 * shifting bytes or leaving data of an earlier size all show. */
static uint8_t pattern(uint32_t src, uint32_t dst, uint64_t size, uint64_t k)
{
	return (uint8_t)((src * 131u + dst * 31u + size * 7u + k) ^ (k >> 8));
}

static int verify(const uint8_t *recv, uint32_t me, uint32_t nranks,
		  uint64_t size)
{
	uint32_t src;
	uint64_t k;

	for (src = 0; src < nranks; src++)
		for (k = 0; k < size; k++) {
			uint8_t want = pattern(src, me, size, k);
			uint8_t got = recv[src * size + k];

			if (got != want)
				return fail("alltoall of %" PRIu64 " bytes: data from rank %"
					    PRIu32 " wrong at byte %" PRIu64
					    ": expected 0x%02x, got 0x%02x",
					    size, src, k, want, got);
		}
	return 0;
}

struct bench {
	struct opts o;
	nc_endpoint *ep;
	uint32_t nranks;
	uint8_t *send, *recv;
	double *lat;
	int print, rows;		/* this rank prints; rows printed */
};

static int run_one(struct bench *b, int is_a2a, uint64_t size, uint64_t iters,
		   uint64_t warmup, struct result *r)
{
	uint64_t i;
	double t0;
	int err;

	err = nc_barrier(b->ep);
	if (err)
		return fail("barrier before size %" PRIu64 ": %s", size,
			    nc_strerror(err));
	if (is_a2a) {
		uint32_t d;
		uint64_t k;

		for (d = 0; d < b->nranks; d++)
			for (k = 0; k < size; k++)
				b->send[d * size + k] = pattern(b->o.rank, d, size, k);
		/* Bytes the collective fails to write cannot pass for data. */
		for (d = 0; d < b->nranks; d++)
			for (k = 0; k < size; k++)
				b->recv[d * size + k] = ~pattern(d, b->o.rank, size, k);
	}
	for (i = 0; i < warmup + iters; i++) {
		t0 = now_us();
		err = is_a2a ? nc_alltoall_algo(b->ep, b->send, b->recv, size, b->o.algo)
			     : nc_barrier(b->ep);
		if (i >= warmup)
			b->lat[i - warmup] = now_us() - t0;
		if (err && is_a2a)
			return fail("alltoall of %" PRIu64 " bytes, iteration %" PRIu64
				    ": %s", size, i, nc_strerror(err));
		if (err)
			return fail("barrier, iteration %" PRIu64 ": %s", i,
				    nc_strerror(err));
		if (i == 0 && is_a2a && verify(b->recv, b->o.rank, b->nranks, size))
			return 1;
	}
	summarize(b->lat, iters, r);
	return 0;
}

static void print_header(struct bench *b, const char *op)
{
	if (b->o.json || !b->print)
		return;
	printf("# ncbench %s: comm %" PRIu32 ", %" PRIu32 " ranks, rank %" PRIu32,
	       op, b->o.comm, b->nranks, b->o.rank);
	if (!strcmp(op, "alltoall"))
		printf(", algo %s", nc_a2a_algo_name(b->o.algo));
	if (b->o.timeout_ms)
		printf(", timeout %" PRIu32 " ms\n", b->o.timeout_ms);
	else
		printf(", communicator's timeout\n");
	printf("# %10s %8s %10s %10s %10s %10s%s\n", "size", "iters",
	       "min(us)", "p50(us)", "p99(us)", "max(us)",
	       strcmp(op, "alltoall") ? "" : "     Mbit/s");
}

static void print_row(struct bench *b, const char *op, uint64_t size,
		      const struct result *r)
{
	int a2a = !strcmp(op, "alltoall");
	double mbit = 0;

	if (!b->print)
		return;
	/* Every rank sends P-1 blocks; bits per microsecond are Mbit/s. */
	if (a2a && r->p50 > 0)
		mbit = (double)b->nranks * (b->nranks - 1) * size * 8 / r->p50;
	if (b->o.json) {
		printf("%s{\"op\":\"%s\",\"size\":%" PRIu64 ",\"iters\":%" PRIu64
		       ",\"min_us\":%.3f,\"p50_us\":%.3f,\"p99_us\":%.3f,\"max_us\":%.3f",
		       b->rows ? "," : "", op, size, r->iters, r->min, r->p50,
		       r->p99, r->max);
		if (a2a)
			printf(",\"mbit_s\":%.3f", mbit);
		putchar('}');
	} else {
		printf("  %10" PRIu64 " %8" PRIu64 " %10.2f %10.2f %10.2f %10.2f",
		       size, r->iters, r->min, r->p50, r->p99, r->max);
		if (a2a)
			printf(" %10.1f", mbit);
		putchar('\n');
	}
	b->rows++;
	fflush(stdout);
}

static int run(struct bench *b)
{
	const struct opts *o = &b->o;
	struct result r;
	uint64_t size, iters, warmup;

	if (o->barrier) {
		print_header(b, "barrier");
		if (run_one(b, 0, 0, o->iters, o->warmup, &r))
			return 1;
		print_row(b, "barrier", 0, &r);
	}
	if (!o->alltoall)
		return 0;
	print_header(b, "alltoall");
	for (size = o->min; size <= o->max; size *= 2) {
		uint64_t per_iter = (uint64_t)b->nranks * size;

		/* At least 10 timed iterations, even past the budget. */
		iters = o->budget / per_iter;
		if (iters < 10)
			iters = 10;
		if (iters > o->iters)
			iters = o->iters;
		warmup = o->warmup < iters / 10 + 1 ? o->warmup : iters / 10 + 1;
		if (run_one(b, 1, size, iters, warmup, &r))
			return 1;
		print_row(b, "alltoall", size, &r);
		if (size > o->max / 2)
			break;
	}
	return 0;
}

/* The communicator's size, and a check that --rank is this host's. */
static int comm_size(const struct opts *o, uint32_t *nranks)
{
	struct nc_comm_info ci;
	nc_ctl *ctl;
	int err;

	err = nc_ctl_open(&ctl);
	if (err)
		return fail("cannot talk to the netcoll module: %s", nc_strerror(err));
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
	*nranks = ci.size;
	if (ci.rank != o->rank)
		return fail("communicator %" PRIu32 " has rank %" PRIu32
			    " on this host, not %" PRIu32, o->comm, ci.rank, o->rank);
	return 0;
}

int main(int argc, char **argv)
{
	struct bench b = { 0 };
	size_t bytes;
	int err, ret = 1;

	if (parse_opts(argc, argv, &b.o) || comm_size(&b.o, &b.nranks))
		return 1;
	b.print = b.o.rank == 0 || b.o.all_ranks;
	bytes = b.o.alltoall ? (size_t)b.nranks * b.o.max : 0;
	b.lat = calloc(b.o.iters, sizeof(*b.lat));
	if (!b.lat || (bytes && (posix_memalign((void **)&b.send, 4096, bytes) ||
				 posix_memalign((void **)&b.recv, 4096, bytes)))) {
		fail("cannot allocate buffers for %" PRIu32 " ranks of %" PRIu64
		     " bytes", b.nranks, b.o.max);
		goto out;
	}
	err = nc_open(&b.ep, NULL);
	if (err) {
		fail("cannot open /dev/netcoll: %s", nc_strerror(err));
		goto out;
	}
	err = nc_bind(b.ep, b.o.comm, b.o.rank);
	if (!err)
		err = nc_set_timeout(b.ep, b.o.timeout_ms);
	if (err) {
		fail("cannot bind to communicator %" PRIu32 " as rank %" PRIu32 ": %s",
		     b.o.comm, b.o.rank, nc_strerror(err));
		goto out;
	}
	if (b.print && b.o.json)
		printf("{\"comm\":%" PRIu32 ",\"ranks\":%" PRIu32 ",\"rank\":%" PRIu32
		       ",\"algo\":\"%s\",\"timeout_ms\":%" PRIu32 ",\"results\":[",
		       b.o.comm, b.nranks, b.o.rank,
		       nc_a2a_algo_name(b.o.algo),
		       b.o.timeout_ms);
	ret = run(&b);
	if (b.print && b.o.json)
		puts("]}");
out:
	nc_close(b.ep);
	free(b.send);
	free(b.recv);
	free(b.lat);
	return ret;
}

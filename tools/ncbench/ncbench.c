// SPDX-License-Identifier: BSD-2-Clause
/*
 * ncbench: OSU-style latency benchmark of netcoll collectives.
 *
 * Run it on every rank at once, each bound to the same communicator with
 * its own rank.  For each size every rank runs the same number of
 * iterations: the counts depend only on the command line and the
 * communicator size, never on timing, so the collectives always pair up.
 * Each size, and each alltoall iteration, starts with a barrier (OSU);
 * the first iteration of each size is checked byte for byte.  Rank 0 prints the table.
 *
 * Reductions (red.c) run on the kernel's trees or, with --transport udp,
 * on the same trees run by the processes themselves (udp_tree.c);
 * --calibrate (calib.c) measures the tree latency model; --noise
 * (noise.c) adds CPU hogs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netcoll.h>

#include "ncbench.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: ncbench --comm ID --rank R [--op OP[,OP...]]\n"
		"               [--min BYTES] [--max BYTES] [--iters N] [--warmup N]\n"
		"               [--budget BYTES] [--algo default|linear|pairwise|ring|sched] [--timeout MS]\n"
		"               [--all-ranks] [--no-sync] [-j]\n"
		"  reductions:  [--root R] [--dtype TYPE] [--red-op OP] [--dist tree|mcast|auto]\n"
		"               [--split N] [--per-rank] [--check-all] [--noise N]\n"
		"  UDP baseline: --transport udp --rank R (--peers FILE | --peers-list IP,...)\n"
		"               [--port P | --port-base B] [--degree F] [--udp-frag BYTES]\n"
		"               [--udp-rto MS] [--busy-poll] [--udp-loss PERCENT]\n"
		"  model:       --calibrate [--calib-size BYTES] [--calib-comms ID,...]\n"
		"  broadcast:   --tune-bcast [--root R] [--min BYTES] [--max BYTES] [--iters N]\n"
		"\n"
		"Runs on every rank of communicator ID at once.  OP: barrier, alltoall,\n"
		"all (both: the default), reduce (to --root, 0), allreduce, tbarrier\n"
		"(a reduction of nothing up and down the tree), bcast (from --root,\n"
		"size in bytes).  Alltoall sizes are\n"
		"bytes per peer, powers of two from --min (8) to --max (1048576);\n"
		"reduction sizes are vector bytes from --min (4) to --max (65536),\n"
		"rounded down to whole elements (at least one).  --iters (1000)\n"
		"shrinks for large sizes so that a rank sends at most --budget bytes\n"
		"(64 MiB) per size, but not below 10 (or --iters).  Latencies are in\n"
		"microseconds; alltoall throughput is P*(P-1)*size*8 bits over the\n"
		"median latency.  An untimed barrier precedes every alltoall (OSU)\n"
		"and an iteration's time is the slowest rank's, unless --no-sync\n"
		"(back to back, this rank's own times).\n"
		"\n"
		"Reductions: TYPE int32|int64|uint32|uint64|float|double (double), OP\n"
		"sum|prod|min|max|band|bor|bxor|minloc|maxloc (sum); --split pieces on\n"
		"parallel trees (0: the library's choice); a barrier precedes every\n"
		"iteration (OSU) unless --no-sync.  The first iteration of each size\n"
		"is checked bit for bit (--check-all: every one, the check untimed).\n"
		"--per-rank: every rank's mean latency, and their spread across\n"
		"ranks.  --noise N: N processes spinning on this host for the whole\n"
		"run.\n"
		"\n"
		"--transport udp: no module needed; the f-nomial tree of --degree (4)\n"
		"run by the processes over UDP, rank r at the address of line \"r ip\"\n"
		"of --peers (or the r-th of --peers-list), port --port (7700) or\n"
		"--port-base + r; \"ip:port\" overrides.  Lost datagrams are resent\n"
		"after --udp-rto ms (20, doubling); an operation fails after --timeout\n"
		"ms (5000; the first one waits 6 times as long for late starters).\n"
		"--udp-loss drops that share of the datagrams sent (a test of the\n"
		"retransmissions; decimals allowed).\n"
		"\n"
		"--calibrate: L, r+c and C of the f-nomial latency model (Yu et al.,\n"
		"SC'03), the model's T(P,f) for f = 2..8 and the measured reduce and\n"
		"allreduce on each f-nomial tree.  Installs trees (CAP_NET_ADMIN).\n"
		"--calib-comms: fit over flat trees on these communicators (of other\n"
		"sizes, main rank 0 their rank 0) instead of in-communicator trees.\n"
		"\n"
		"--dist auto: broadcasts multicast in the library's range of sizes\n"
		"(NETCOLL_BCAST_MCAST_MIN/MAX), allreduce results in theirs\n"
		"(NETCOLL_ALLREDUCE_MCAST_MIN/MAX), rooted reductions go down the tree.\n"
		"--tune-bcast: tree against multicast per size (powers of 4 from\n"
		"--min to --max, else 1 KiB..1 MiB), and the sizes where\n"
		"multicast was faster (nc_bcast_tune).\n");
}

int fail(const char *fmt, ...)
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

static int parse_ops(const char *text, unsigned int *ops)
{
	static const struct { const char *name; unsigned int ops; } names[] = {
		{ "barrier", OP_BARRIER }, { "alltoall", OP_ALLTOALL },
		{ "all", OP_BARRIER | OP_ALLTOALL }, { "reduce", OP_REDUCE },
		{ "allreduce", OP_ALLREDUCE }, { "tbarrier", OP_TBARRIER },
		{ "bcast", OP_BCAST },
	};
	char *copy = strdup(text), *tok, *save = NULL;
	size_t i;

	if (!copy)
		return fail("no memory");
	*ops = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(tok, names[i].name))
				break;
		if (i == sizeof(names) / sizeof(names[0])) {
			fail("unknown operation \"%s\"", tok);
			free(copy);
			return 1;
		}
		*ops |= names[i].ops;
	}
	free(copy);
	return *ops ? 0 : fail("unknown operation \"%s\"", text);
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	enum {
		O_ROOT = 256, O_DTYPE, O_REDOP, O_DIST, O_SPLIT, O_PERRANK,
		O_NOSYNC, O_XPORT, O_PEERS, O_PEERLIST, O_PORT, O_PORTBASE,
		O_DEGREE, O_FRAG, O_RTO, O_BUSY, O_NOISE, O_CALIB, O_CALSIZE,
		O_CALCOMMS, O_LOSS, O_CHECKALL, O_TUNEBCAST,
	};
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
		{ "root",	required_argument, NULL, O_ROOT },
		{ "dtype",	required_argument, NULL, O_DTYPE },
		{ "red-op",	required_argument, NULL, O_REDOP },
		{ "dist",	required_argument, NULL, O_DIST },
		{ "split",	required_argument, NULL, O_SPLIT },
		{ "per-rank",	no_argument,	   NULL, O_PERRANK },
		{ "no-sync",	no_argument,	   NULL, O_NOSYNC },
		{ "check-all",	no_argument,	   NULL, O_CHECKALL },
		{ "transport",	required_argument, NULL, O_XPORT },
		{ "peers",	required_argument, NULL, O_PEERS },
		{ "peers-list",	required_argument, NULL, O_PEERLIST },
		{ "port",	required_argument, NULL, O_PORT },
		{ "port-base",	required_argument, NULL, O_PORTBASE },
		{ "degree",	required_argument, NULL, O_DEGREE },
		{ "udp-frag",	required_argument, NULL, O_FRAG },
		{ "udp-rto",	required_argument, NULL, O_RTO },
		{ "busy-poll",	no_argument,	   NULL, O_BUSY },
		{ "udp-loss",	required_argument, NULL, O_LOSS },
		{ "noise",	required_argument, NULL, O_NOISE },
		{ "calibrate",	no_argument,	   NULL, O_CALIB },
		{ "calib-size",	required_argument, NULL, O_CALSIZE },
		{ "calib-comms", required_argument, NULL, O_CALCOMMS },
		{ "tune-bcast",	no_argument,	   NULL, O_TUNEBCAST },
		{ NULL, 0, NULL, 0 }
	};
	int c, have_comm = 0, have_rank = 0, ops_set = 0, v_int;
	uint64_t v;
	int algo;

	*o = (struct opts){
		.ops = OP_BARRIER | OP_ALLTOALL, .min = 8, .max = 1 << 20,
		.iters = 1000, .warmup = 10, .budget = 64 << 20,
		.algo = NC_A2A_DEFAULT,
		.dtype = NC_DT_DOUBLE, .red_op = NC_OP_SUM, .dist = NC_DIST_TREE,
		.xp = XP_KERNEL, .port = 7700, .degree = NETCOLL_TREE_DEGREE_DEFAULT,
		.udp_frag = 1400, .udp_rto_ms = 20, .calib_size = 8,
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
			if (parse_ops(optarg, &o->ops))
				return 1;
			ops_set = 1;
			break;
		case 'm':
			if (parse_num(optarg, "minimum size", NETCOLL_MSG_MAX, &o->min))
				return 1;
			o->min_set = 1;
			break;
		case 'M':
			if (parse_num(optarg, "maximum size", NETCOLL_MSG_MAX, &o->max))
				return 1;
			o->max_set = 1;
			break;
		case 'i':
			if (parse_num(optarg, "iteration count", UINT32_MAX, &o->iters))
				return 1;
			o->iters_set = 1;
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
		case O_ROOT:
			if (parse_num(optarg, "root", NETCOLL_COMM_SIZE_MAX - 1, &v))
				return 1;
			o->root = (uint32_t)v;
			break;
		case O_DTYPE:
			v_int = nc_dtype_parse(optarg);
			if (v_int < 0)
				return fail("unknown type \"%s\"", optarg);
			o->dtype = (enum nc_dtype)v_int;
			break;
		case O_REDOP:
			v_int = nc_op_parse(optarg);
			if (v_int < 0)
				return fail("unknown reduction operator \"%s\"", optarg);
			o->red_op = (enum nc_op)v_int;
			break;
		case O_DIST:
			if (!strcmp(optarg, "tree"))
				o->dist = NC_DIST_TREE;
			else if (!strcmp(optarg, "mcast"))
				o->dist = NC_DIST_MCAST;
			else if (!strcmp(optarg, "auto"))
				o->dist = NC_DIST_AUTO;
			else
				return fail("unknown distribution \"%s\" (tree, mcast or auto)", optarg);
			break;
		case O_SPLIT:
			if (parse_num(optarg, "split", NC_TREES_MAX, &v))
				return 1;
			o->split = (uint32_t)v;
			break;
		case O_PERRANK:
			o->per_rank = 1;
			break;
		case O_NOSYNC:
			o->no_sync = 1;
			break;
		case O_CHECKALL:
			o->check_all = 1;
			break;
		case O_XPORT:
			if (!strcmp(optarg, "kernel"))
				o->xp = XP_KERNEL;
			else if (!strcmp(optarg, "udp"))
				o->xp = XP_UDP;
			else
				return fail("unknown transport \"%s\" (kernel or udp)", optarg);
			break;
		case O_PEERS:
			o->peers_file = optarg;
			break;
		case O_PEERLIST:
			o->peers_list = optarg;
			break;
		case O_PORT:
			if (parse_num(optarg, "port", 65535, &v) || !v)
				return v ? 1 : fail("invalid port 0");
			o->port = (uint32_t)v;
			break;
		case O_PORTBASE:
			if (parse_num(optarg, "port base", 65535, &v) || !v)
				return v ? 1 : fail("invalid port base 0");
			o->port_base = (uint32_t)v;
			o->port_base_set = 1;
			break;
		case O_DEGREE:
			if (parse_num(optarg, "degree", NETCOLL_TREE_DEGREE_MAX, &v) || v < 2)
				return v < 2 ? fail("--degree must be 2 .. %u",
						    NETCOLL_TREE_DEGREE_MAX) : 1;
			o->degree = (uint32_t)v;
			break;
		case O_FRAG:
			if (parse_num(optarg, "fragment size", 65000, &v) || v < 64)
				return v < 64 ? fail("--udp-frag must be 64 .. 65000") : 1;
			o->udp_frag = (uint32_t)v;
			break;
		case O_RTO:
			if (parse_num(optarg, "retransmission timeout", 10000, &v) || !v)
				return v ? 1 : fail("--udp-rto must be at least 1 ms");
			o->udp_rto_ms = (uint32_t)v;
			break;
		case O_BUSY:
			o->busy_poll = 1;
			break;
		case O_LOSS: {
			char *end;
			double pct;

			errno = 0;
			pct = strtod(optarg, &end);
			if (errno || *end || end == optarg || !(pct >= 0 && pct <= 50))
				return fail("--udp-loss must be a percentage 0 .. 50");
			o->udp_loss_ppm = (uint32_t)(pct * 1e4 + 0.5);
			break;
		}
		case O_NOISE:
			if (parse_num(optarg, "noise process count", 1024, &v))
				return 1;
			o->noise = (uint32_t)v;
			break;
		case O_CALIB:
			o->calibrate = 1;
			break;
		case O_CALSIZE:
			if (parse_num(optarg, "calibration size", NETCOLL_REDUCE_MAX, &o->calib_size))
				return 1;
			break;
		case O_CALCOMMS:
			o->calib_comms = optarg;
			break;
		case O_TUNEBCAST:
			o->tune_bcast = 1;
			break;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (optind < argc)
		return fail("unexpected argument \"%s\"", argv[optind]);
	if (o->xp == XP_UDP) {
		if (!ops_set)
			o->ops = OP_ALLREDUCE;
		if (o->ops & ~OP_RED_MASK)
			return fail("--transport udp runs reduce, allreduce, tbarrier and bcast only");
		if (!o->peers_file == !o->peers_list)
			return fail("--transport udp needs --peers FILE or --peers-list LIST");
		if (o->dist != NC_DIST_TREE)
			return fail("--transport udp distributes down the tree only");
		if (o->split > 1)
			return fail("--transport udp runs one tree: --split 0 or 1");
		if (o->calib_comms)
			return fail("--calib-comms needs the kernel transport");
		if (!have_rank)
			return fail("--rank is required");
	} else {
		if (o->peers_file || o->peers_list)
			return fail("--peers is for --transport udp");
		if (!have_comm || !have_rank)
			return fail("--comm and --rank are required");
		if (o->comm == 0)
			return fail("communicator id 0 is not valid");
	}
	if (o->tune_bcast && (o->calibrate || ops_set || o->xp == XP_UDP))
		return fail("--tune-bcast runs on its own, on the kernel transport");
	if (o->tune_bcast) {
		if (o->min_set && o->max_set && o->min > o->max)
			return fail("sizes must satisfy 1 <= --min <= --max");
		if ((o->min_set && !o->min) || (o->iters_set && o->iters > 1000))
			return fail("--tune-bcast: sizes from 1 byte, at most 1000 iterations");
		o->ops = 0;
	}
	if (o->calibrate) {
		if (ops_set)
			return fail("--calibrate runs on its own: no --op");
		o->ops = 0;
	} else if (o->calib_comms) {
		return fail("--calib-comms goes with --calibrate");
	}
	if (((o->ops & OP_RED_MASK) || o->calibrate) &&
	    !nc_elem_size(o->red_op, o->dtype))
		return fail("%s is not defined on %s", nc_op_name(o->red_op),
			    nc_dtype_name(o->dtype));
	if (o->ops & (OP_BARRIER | OP_ALLTOALL)) {
		if (o->min == 0 || o->min > o->max)
			return fail("sizes must satisfy 1 <= --min <= --max");
	} else if ((o->min_set && o->min == 0) ||
		   (o->min_set && o->max_set && o->min > o->max)) {
		return fail("sizes must satisfy 1 <= --min <= --max");
	}
	if (o->iters == 0)
		return fail("--iters must be at least 1");
	if (o->timeout_ms && o->timeout_ms < NETCOLL_TIMEOUT_MS_MIN)
		return fail("--timeout must be 0 (default) or at least %u ms",
			    NETCOLL_TIMEOUT_MS_MIN);
	return 0;
}

/* Byte k of the block src sends to dst at this size: misplacing blocks,
 * shifting bytes or leaving data of an earlier size all show. */
static uint8_t pattern(uint32_t src, uint32_t dst, uint64_t size, uint64_t k)
{
	return (uint8_t)((src * 131u + dst * 31u + size * 7u + k) ^ (k >> 8));
}

static int verify_a2a(const uint8_t *recv, uint32_t me, uint32_t nranks,
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

/*
 * An alltoall is complete when its last rank is: with every iteration
 * started by a barrier, an iteration's time is the largest of the ranks'
 * times (an allreduce MAX over the latency vector after the size).
 */
static int slowest_rank(struct bench *b, uint64_t iters, struct result *r)
{
	double *all = calloc(iters, sizeof(*all));
	int err;

	if (!all)
		return fail("out of memory");
	err = nc_allreduce(b->ep, b->lat, all, iters, NC_DT_DOUBLE, NC_OP_MAX);
	if (err) {
		free(all);
		return fail("allreduce of the latencies: %s", nc_strerror(err));
	}
	summarize(all, iters, r);
	free(all);
	return 0;
}

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
		/*
		 * OSU: a barrier (untimed) before every alltoall, so no rank
		 * starts the next one while others still finish this one
		 * (their messages would contend across the two schedules).
		 */
		if (is_a2a && !b->o.no_sync && i) {
			err = nc_barrier(b->ep);
			if (err)
				return fail("barrier before iteration %" PRIu64 ": %s",
					    i, nc_strerror(err));
		}
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
		if (i == 0 && is_a2a && verify_a2a(b->recv, b->o.rank, b->nranks, size))
			return 1;
	}
	if (is_a2a && !b->o.no_sync)
		return slowest_rank(b, iters, r);
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

	if (o->ops & OP_BARRIER) {
		print_header(b, "barrier");
		if (run_one(b, 0, 0, o->iters, o->warmup, &r))
			return 1;
		print_row(b, "barrier", 0, &r);
	}
	if (o->ops & OP_ALLTOALL) {
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
	}
	return red_run(b);
}

/*
 * The communicator's size and tree degree, and a check that --rank is
 * this host's.  The netlink handle stays open for the tree requests.
 */
static int comm_size(struct bench *b)
{
	const struct opts *o = &b->o;
	struct nc_comm_info ci;
	int err;

	err = nc_ctl_open(&b->ctl);
	if (err)
		return fail("cannot talk to the netcoll module: %s", nc_strerror(err));
	nc_ctl_set_rank(b->ctl, o->rank);	/* the host may have several */
	err = nc_comm_get(b->ctl, o->comm, &ci);
	if (err) {
		const char *why = nc_ctl_last_error(b->ctl);

		return fail("communicator %" PRIu32 ": %s%s%s", o->comm, nc_strerror(err),
			    why ? ": " : "", why ? why : "");
	}
	nc_comm_info_free(&ci);
	b->nranks = ci.size;
	b->degree = ci.tree_degree ? ci.tree_degree : NETCOLL_TREE_DEGREE_DEFAULT;
	if (ci.rank != o->rank)
		return fail("communicator %" PRIu32 " has rank %" PRIu32
			    " on this host, not %" PRIu32, o->comm, ci.rank, o->rank);
	return 0;
}

static int udp_setup(struct bench *b)
{
	const struct opts *o = &b->o;
	struct sockaddr_in *addrs;
	struct udp_cfg cfg;
	int ret;

	if (udp_peers(o->peers_file, o->peers_list, o->port, o->port_base_set,
		      o->port_base, &addrs, &b->nranks))
		return 1;
	b->degree = o->degree;
	if (o->rank >= b->nranks) {
		free(addrs);
		return fail("rank %" PRIu32 " but only %" PRIu32 " peers", o->rank,
			    b->nranks);
	}
	cfg = (struct udp_cfg){
		.rank = o->rank, .size = b->nranks, .addrs = addrs,
		.frag = o->udp_frag, .rto_ms = o->udp_rto_ms,
		.timeout_ms = o->timeout_ms ? o->timeout_ms : 5000,
		.busy_poll = o->busy_poll, .loss_ppm = o->udp_loss_ppm,
	};
	ret = udp_open(&b->udp, &cfg);
	free(addrs);
	return ret;
}

static int kernel_setup(struct bench *b)
{
	int err;

	err = nc_open(&b->ep, NULL);
	if (err)
		return fail("cannot open /dev/netcoll: %s", nc_strerror(err));
	err = nc_bind(b->ep, b->o.comm, b->o.rank);
	if (!err)
		err = nc_set_timeout(b->ep, b->o.timeout_ms);
	if (err)
		return fail("cannot bind to communicator %" PRIu32 " as rank %" PRIu32 ": %s",
			    b->o.comm, b->o.rank, nc_strerror(err));
	return 0;
}

static void json_head(struct bench *b)
{
	const struct opts *o = &b->o;

	printf("{\"comm\":%" PRIu32 ",\"ranks\":%" PRIu32 ",\"rank\":%" PRIu32
	       ",\"algo\":\"%s\",\"timeout_ms\":%" PRIu32, o->comm, b->nranks,
	       o->rank, nc_a2a_algo_name(o->algo), o->timeout_ms);
	/* only where there is something new: alltoall output stays as it was */
	if ((o->ops & OP_RED_MASK) || o->calibrate || o->xp == XP_UDP)
		printf(",\"transport\":\"%s\",\"dtype\":\"%s\",\"red_op\":\"%s\""
		       ",\"dist\":\"%s\",\"split\":%" PRIu32 ",\"degree\":%" PRIu32
		       ",\"root\":%" PRIu32 ",\"sync\":%s,\"noise\":%" PRIu32,
		       o->xp == XP_UDP ? "udp" : "kernel", nc_dtype_name(o->dtype),
		       nc_op_name(o->red_op), dist_name(o->dist),
		       o->split, b->degree, o->root, o->no_sync ? "false" : "true",
		       o->noise);
	putchar(',');
}

static void udp_summary(struct bench *b)
{
	uint64_t sent, retx, dups, dropped;

	if (!b->udp || !b->print)
		return;
	udp_counters(b->udp, &sent, &retx, &dups, &dropped);
	if (b->o.json)
		printf(",\"udp\":{\"datagrams\":%" PRIu64 ",\"retransmissions\":%" PRIu64
		       ",\"duplicates\":%" PRIu64 ",\"dropped\":%" PRIu64 "}",
		       sent, retx, dups, dropped);
	else
		printf("# udp rank %" PRIu32 ": %" PRIu64 " datagrams sent (%" PRIu64
		       " dropped on purpose), %" PRIu64 " retransmission bursts, %"
		       PRIu64 " duplicates received\n",
		       b->o.rank, sent, dropped, retx, dups);
}

int main(int argc, char **argv)
{
	struct bench b = { 0 };
	size_t bytes;
	int ret = 1;

	if (parse_opts(argc, argv, &b.o))
		return 1;
	/* before any socket or endpoint exists: the hogs inherit nothing */
	if (noise_start(b.o.noise))
		return 1;
	if (b.o.xp == XP_UDP ? udp_setup(&b) : comm_size(&b))
		goto out;
	if ((b.o.ops & OP_REDUCE) && b.o.root >= b.nranks) {
		fail("--root %" PRIu32 " but only %" PRIu32 " ranks", b.o.root, b.nranks);
		goto out;
	}
	b.print = b.o.rank == 0 || b.o.all_ranks;
	bytes = (b.o.ops & OP_ALLTOALL) ? (size_t)b.nranks * b.o.max : 0;
	b.lat = calloc(b.o.iters, sizeof(*b.lat));
	if (!b.lat || (bytes && (posix_memalign((void **)&b.send, 4096, bytes) ||
				 posix_memalign((void **)&b.recv, 4096, bytes)))) {
		fail("cannot allocate buffers for %" PRIu32 " ranks of %" PRIu64
		     " bytes", b.nranks, b.o.max);
		goto out;
	}
	if (b.o.xp == XP_KERNEL && kernel_setup(&b))
		goto out;
	if (((b.o.ops & OP_RED_MASK) || b.o.calibrate) && red_setup(&b))
		goto out;
	if (b.print && b.o.json)
		json_head(&b);
	if (b.o.calibrate) {
		ret = calib_run(&b);
	} else if (b.o.tune_bcast) {
		ret = tune_bcast_run(&b);
	} else {
		if (b.print && b.o.json)
			printf("\"results\":[");
		ret = run(&b);
		if (b.print && b.o.json)
			putchar(']');
	}
	if (!ret)
		udp_summary(&b);
	if (b.print && b.o.json)
		puts("}");
out:
	nc_close(b.ep);
	nc_ctl_close(b.ctl);
	udp_close(b.udp, ret == 0);
	red_cleanup(&b);
	free(b.send);
	free(b.recv);
	free(b.lat);
	noise_stop();
	return ret;
}

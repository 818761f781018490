// SPDX-License-Identifier: BSD-2-Clause
/*
 * nc_red_check: run reductions on one rank and check every result bit
 * for bit, for the VM tests.  Every rank runs it at once with the same
 * arguments but its own --rank.
 *
 * Each rank's input is a function of (seed, rank, element), so every rank
 * can compute every other rank's input, and with it the expected result:
 * the same trees the kernel uses (built-in f-nomial trees of --degree,
 * tree j over ranks mixed by j (rank_of_split), rooted at j * P / 8 over
 * hosts where the member table has ranks
 * that share one, or those `nctl tree install ... topology` installed;
 * --check-trees compares them with the kernel's) combined in the same
 * fixed order, own data first, then the children in ascending rank order.  Floats include NaN, infinities,
 * -0.0 and values of wildly different magnitude, so a different order
 * would give different bits; minloc/maxloc inputs have many ties.
 *
 * Output: one "ok - ..." or "not ok - ..." line per case; exit 0 iff all ok.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <unistd.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netcoll.h>

#include "netcoll.h"
#include "netcoll_plan.h"
#define NC_RED_FLOAT
#include "nc_reduce.h"
#include "check_out.h"
#include "start_gate.h"

#define MAX_LIST	32

struct opts {
	uint32_t comm, rank, size, degree, root, split, iters, concurrent;
	const char *topology;		/* trees 0 .. ntrees-1 installed from it */
	uint32_t ntrees, tree_degree;
	uint64_t counts[MAX_LIST];
	unsigned int ncounts;
	int ops[NC_OP_COUNT], nops;
	int dtypes[NC_DT_COUNT], ndtypes;
	int all, installed;
	enum nc_dist dist;
	uint32_t timeout_ms, seed;
	uint32_t late_ms;		/* late_rank starts each iteration late */
	int64_t late_rank;		/* -1: the last rank */
	int expect;
	uint32_t *host;			/* [size] host labels where ranks share
					 * hosts (the module's trees are then
					 * over hosts); NULL: a rank per host */
};

static double fval(uint64_t h)
{
	static const double special[] = {
		0.0, -0.0, INFINITY, -INFINITY, NAN, 1e-310, -1e-310, 1e308,
	};

	if (h % 97 == 0)
		return special[(h >> 8) % 8];
	/* mantissa and exponent both random: sums depend on the order */
	return ldexp((double)(int64_t)(h >> 11) / (double)(1ULL << 52),
		     (int)((h >> 3) % 80) - 40);
}

/* Element i of rank r's input for (op, dtype). */
static void fill_elem(const struct opts *o, uint32_t r, uint64_t i, int op,
		      int dt, uint8_t *out)
{
	uint64_t h = mix(((uint64_t)o->seed << 40) ^ ((uint64_t)r << 28) ^ i ^
			 ((uint64_t)op << 20) ^ ((uint64_t)dt << 24));
	size_t esize = nc_elem_size(op, dt);
	int loc = op == NC_OP_MINLOC || op == NC_OP_MAXLOC;

	memset(out, 0, esize);
	if (loc)
		h %= 5;		/* few values: ties on the index rule */
	switch (dt) {
	case NC_DT_INT32: { int32_t v = (int32_t)h; memcpy(out, &v, 4); break; }
	case NC_DT_UINT32: { uint32_t v = (uint32_t)h; memcpy(out, &v, 4); break; }
	case NC_DT_INT64: { int64_t v = (int64_t)h; memcpy(out, &v, 8); break; }
	case NC_DT_UINT64: memcpy(out, &h, 8); break;
	case NC_DT_FLOAT: {
		float v = loc ? (float)h : (float)fval(h);

		if (op == NC_OP_PROD && !loc)
			v = (float)(1.0 + (double)(h % 1000) / 997.0);
		memcpy(out, &v, 4);
		break;
	}
	case NC_DT_DOUBLE: {
		double v = loc ? (double)h : fval(h);

		if (op == NC_OP_PROD && !loc)
			v = 1.0 + (double)(h % 1000) / 997.0;
		memcpy(out, &v, 8);
		break;
	}
	}
	if (loc) {
		int32_t idx = (int32_t)(mix(h ^ r ^ (i << 3)) % 7);

		memcpy(out + esize / 2, &idx, 4);
	}
}

static void fill(const struct opts *o, uint32_t r, uint64_t count, int op,
		 int dt, uint8_t *buf)
{
	size_t esize = nc_elem_size(op, dt);
	uint64_t i;

	for (i = 0; i < count; i++)
		fill_elem(o, r, i, op, dt, buf + i * esize);
}

static void apply(int op, int dt, void *acc, const void *in, size_t bytes)
{
	if (!nc_red_apply_int(op, dt, acc, in, bytes))
		nc_red_apply_float(op, dt, acc, in, bytes);
}

/*
 * The kernel's built-in tree j of a split vector (kmod/tree.c,
 * nck_split_rank), written again from its rule: position v holds rank
 * v XOR j in each whole block of 8 positions, the last, partial block
 * rotated by j.
 */
static uint32_t rank_of_split(uint32_t v, uint32_t size, uint32_t j)
{
	uint32_t whole = size & ~7U, part = size - whole;

	return v < whole ? v ^ j : whole + (v - whole + j % part) % part;
}

/*
 * parents[] of tree j: installed from --topology (nctl tree install ...
 * trees N topology FILE: tree j rotated by j * P / N positions), or the
 * kernel's built-in rule (above; over hosts rooted at j * P / 8; the
 * communicator's degree).
 */
static int tree_parents(const struct opts *o, uint32_t j, uint32_t *parents)
{
	uint32_t root = (uint32_t)((uint64_t)j * o->size / NC_TREES_MAX);
	uint32_t *order = calloc(o->size, sizeof(*order));
	uint32_t v, degree = o->degree;
	int err = 0;

	if (!order)
		return -ENOMEM;
	if (o->host && !(o->topology && j < o->ntrees)) {
		free(order);
		return nc_tree_fnomial_hosts(o->size, degree, root, o->host, parents);
	}
	if (o->topology && j < o->ntrees) {
		degree = o->tree_degree;
		err = nc_tree_order_aware(o->topology, o->size,
					  (uint32_t)((uint64_t)j * o->size / o->ntrees),
					  degree, order);
	} else {
		for (v = 0; v < o->size; v++)
			order[v] = rank_of_split(v, o->size, j);
	}
	if (!err)
		err = nc_tree_fnomial(o->size, degree, order, parents);
	free(order);
	return err;
}

/* val = x's own piece, then each child's subtree value, ascending. */
static void subtree(const struct opts *o, const uint32_t *parents, uint32_t x,
		    int op, int dt, uint64_t lo, uint64_t hi, uint8_t *val)
{
	size_t esize = nc_elem_size(op, dt), bytes = (hi - lo) * esize;
	uint8_t *tmp = malloc(bytes ? bytes : 1);
	uint64_t i;
	uint32_t c;

	for (i = lo; i < hi; i++)
		fill_elem(o, x, i, op, dt, val + (i - lo) * esize);
	for (c = 0; c < o->size; c++) {
		if (c == x || parents[c] != x)
			continue;
		subtree(o, parents, c, op, dt, lo, hi, tmp);
		apply(op, dt, val, tmp, bytes);
	}
	free(tmp);
}

static int expected(const struct opts *o, uint64_t count, uint32_t split,
		    int op, int dt, uint8_t *out)
{
	size_t esize = nc_elem_size(op, dt);
	uint32_t *parents = calloc(o->size, sizeof(*parents));
	uint32_t j, root = 0;

	if (!parents)
		return -ENOMEM;
	for (j = 0; j < split; j++) {
		uint64_t lo = count * j / split, hi = count * (j + 1) / split;

		if (tree_parents(o, j, parents)) {
			free(parents);
			return -EINVAL;
		}
		for (root = 0; parents[root] != root; root++)
			;
		subtree(o, parents, root, op, dt, lo, hi, out + lo * esize);
	}
	free(parents);
	return 0;
}

/*
 * Which ranks share a host, from the communicator's member table: o->host
 * labels each rank with the first rank at its address, or stays NULL when
 * every rank has its own.  0 or -errno.
 */
static int load_hosts(struct opts *o)
{
	struct nc_comm_info ci;
	uint32_t r, q, shared = 0;
	nc_ctl *ctl;
	int err;

	err = nc_ctl_open(&ctl);
	if (err)
		return err;
	nc_ctl_set_rank(ctl, o->rank);
	err = nc_comm_get(ctl, o->comm, &ci);
	nc_ctl_close(ctl);
	if (err)
		return err;
	o->host = calloc(o->size, sizeof(*o->host));
	if (!o->host || ci.size != o->size) {
		nc_comm_info_free(&ci);
		return o->host ? -EINVAL : -ENOMEM;
	}
	for (r = 0; r < o->size; r++) {
		for (q = 0; q < r && memcmp(ci.members[q].addr, ci.members[r].addr,
					    ci.members[r].addr_len); q++)
			;
		o->host[r] = q;
		shared |= q != r;
	}
	nc_comm_info_free(&ci);
	if (!shared) {
		free(o->host);
		o->host = NULL;
	}
	return 0;
}

/* The kernel's view of this rank's place in tree j must match ours. */
static void check_trees(const struct opts *o)
{
	uint32_t *parents = calloc(o->size, sizeof(*parents));
	struct nc_tree_info ti;
	nc_ctl *ctl;
	uint32_t j, c, n;
	int ok = 1;

	if (!parents || nc_ctl_open(&ctl)) {
		result(0, "tree: netlink");
		free(parents);
		return;
	}
	nc_ctl_set_rank(ctl, o->rank);	/* the host may have several */
	for (j = 0; j < NC_TREES_MAX && ok; j++) {
		if (tree_parents(o, j, parents) ||
		    nc_tree_get(ctl, o->comm, j, &ti)) {
			ok = 0;
			break;
		}
		ok = ti.parent == parents[o->rank] &&
		     ti.installed == (o->topology && j < o->ntrees);
		for (c = 0, n = 0; c < o->size && ok; c++) {
			if (c == o->rank || parents[c] != o->rank)
				continue;
			ok = n < ti.nchildren && ti.children[n] == c;
			n++;
		}
		ok = ok && n == ti.nchildren;
		nc_tree_info_free(&ti);
	}
	result(ok, "rank %u: kernel trees 0..7 are the expected ones (%s)", o->rank,
	       o->topology ? "installed from the topology, then built-in" :
	       "built-in f-nomial");
	nc_ctl_close(ctl);
	free(parents);
}

static uint32_t split_of(const struct opts *o, uint64_t count)
{
	uint32_t s = o->split ? o->split : 1;

	if (count && s > count)
		s = (uint32_t)count;
	return s;
}

/* One case: every iteration checked; --concurrent posts several at once. */
static void run_case(const struct opts *o, nc_endpoint *ep, uint64_t count,
		     int op, int dt)
{
	size_t esize = nc_elem_size(op, dt), bytes = count * esize;
	uint32_t split = split_of(o, count), k, it, n = o->concurrent;
	int want = o->all || o->rank == o->root;
	uint8_t *send = malloc(bytes + 1), *exp = malloc(bytes + 1);
	uint8_t *recv = malloc((size_t)n * bytes + 1);
	nc_request *req = calloc(n, sizeof(*req));
	int err = 0, bad = 0;

	if (!send || !exp || !recv || !req) {
		result(0, "out of memory");
		goto out;
	}
	fill(o, o->rank, count, op, dt, send);
	if (want && expected(o, count, split, op, dt, exp)) {
		result(0, "reference");
		goto out;
	}
	for (it = 0; it < o->iters && !err; it++) {
		struct nc_red_args a = {
			.sendbuf = send, .count = count, .dtype = dt, .op = op,
			.root = o->root, .all = o->all, .dist = o->dist,
			.split = split,
		};

		memset(recv, 0xa5, (size_t)n * bytes + 1);
		if (o->late_ms && o->rank == (o->late_rank < 0 ? o->size - 1 :
					      (uint32_t)o->late_rank))
			usleep(o->late_ms * 1000);
		for (k = 0; k < n && !err; k++) {
			a.recvbuf = recv + (size_t)k * bytes;
			err = n > 1 ? nc_ireduce_ex(ep, &a, &req[k]) :
				      nc_reduce_ex(ep, &a);
		}
		for (k = 0; k < n && n > 1 && !err; k++)
			err = nc_wait(ep, req[k]);
		for (k = 0; k < n && want && !err; k++)
			bad |= memcmp(recv + (size_t)k * bytes, exp, bytes) != 0;
	}
	if (o->expect) {
		/* every result before the error was still checked */
		result(err && (o->expect < 0 || err == -o->expect) && !bad,
		       "%s %s %s x%" PRIu64 ": expected %s, got %s (iteration %u), results before it %s",
		       o->all ? "allreduce" : "reduce", nc_op_name(op),
		       nc_dtype_name(dt), count,
		       o->expect < 0 ? "an error" : strerror(o->expect),
		       err ? strerror(-err) : "success", it - 1,
		       bad ? "WRONG" : "bit-exact");
		goto out;
	}
	if (err) {
		result(0, "%s %s %s x%" PRIu64 ": %s", o->all ? "allreduce" : "reduce",
		       nc_op_name(op), nc_dtype_name(dt), count, nc_strerror(err));
		goto out;
	}
	result(!bad, "%s %s %s x%" PRIu64 " split %u %s%s, %u iter x %u concurrent: %s",
	       o->all ? "allreduce" : "reduce", nc_op_name(op), nc_dtype_name(dt),
	       count, split, o->dist == NC_DIST_MCAST ? "mcast" :
	       o->dist == NC_DIST_AUTO ? "auto" : "tree",
	       o->all ? "" : " to root", o->iters, n,
	       !want ? "contributed" : bad ? "result differs" : "bit-exact");
out:
	free(send);
	free(exp);
	free(recv);
	free(req);
}

static int parse_list(char *text, const char *what, int (*parse)(const char *),
		      int *out, int max)
{
	char *tok, *save = NULL;
	int n = 0, v;

	for (tok = strtok_r(text, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		v = parse(tok);
		if (v < 0 || n == max) {
			fprintf(stderr, "nc_red_check: bad %s '%s'\n", what, tok);
			return -1;
		}
		out[n++] = v;
	}
	return n;
}

/* "ETIMEDOUT" -> ETIMEDOUT, "ANY" -> -1 (any error); 0 for an unknown name. */
static void usage(void)
{
	fprintf(stderr,
		"Usage: nc_red_check --comm ID --rank R --size P [--count-list N,...]\n"
		"        [--ops all|sum,min,...] [--dtypes all|int32,double,...]\n"
		"        [--all | --root R] [--dist tree|mcast|auto] [--split N] [--degree F]\n"
		"        [--iters K] [--concurrent N] [--timeout MS] [--seed S]\n"
		"        [--check-trees] [--expect-error ERRNO_NAME|ANY]\n"
		"        [--topology FILE --trees N --tree-degree F]\n"
		"        [--late-ms MS [--late-rank R (default: the last)]]\n");
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "comm", 1, 0, 'c' }, { "rank", 1, 0, 'r' }, { "size", 1, 0, 'P' },
		{ "count-list", 1, 0, 'n' }, { "ops", 1, 0, 'o' },
		{ "dtypes", 1, 0, 'd' }, { "all", 0, 0, 'a' }, { "root", 1, 0, 'R' },
		{ "dist", 1, 0, 'D' }, { "split", 1, 0, 's' }, { "degree", 1, 0, 'f' },
		{ "iters", 1, 0, 'i' }, { "concurrent", 1, 0, 'C' },
		{ "timeout", 1, 0, 't' }, { "seed", 1, 0, 'S' },
		{ "check-trees", 0, 0, 'T' }, { "expect-error", 1, 0, 'E' },
		{ "topology", 1, 0, 'G' }, { "trees", 1, 0, 'N' },
		{ "tree-degree", 1, 0, 'F' }, { "late-ms", 1, 0, 'L' },
		{ "late-rank", 1, 0, 'K' },
		{ 0 },
	};
	struct opts o = {
		.degree = NETCOLL_TREE_DEGREE_DEFAULT, .iters = 1, .concurrent = 1,
		.seed = 1, .late_rank = -1,
	};
	int i, c, check_trees_too = 0;
	nc_endpoint *ep;
	char *tok, *save;
	int err;

	for (i = 0; i < NC_OP_COUNT; i++)
		o.ops[o.nops++] = i;
	for (i = 0; i < NC_DT_COUNT; i++)
		o.dtypes[o.ndtypes++] = i;
	o.counts[o.ncounts++] = 1000;
	start_gate_init();
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'c': o.comm = strtoul(optarg, NULL, 0); break;
		case 'r': o.rank = strtoul(optarg, NULL, 0); break;
		case 'P': o.size = strtoul(optarg, NULL, 0); break;
		case 'n':
			o.ncounts = 0;
			for (tok = strtok_r(optarg, ",", &save); tok && o.ncounts < MAX_LIST;
			     tok = strtok_r(NULL, ",", &save))
				o.counts[o.ncounts++] = strtoull(tok, NULL, 0);
			break;
		case 'o':
			if (strcmp(optarg, "all"))
				o.nops = parse_list(optarg, "op", nc_op_parse, o.ops, NC_OP_COUNT);
			break;
		case 'd':
			if (strcmp(optarg, "all"))
				o.ndtypes = parse_list(optarg, "dtype", nc_dtype_parse,
						       o.dtypes, NC_DT_COUNT);
			break;
		case 'a': o.all = 1; break;
		case 'R': o.root = strtoul(optarg, NULL, 0); break;
		case 'D':
			o.dist = !strcmp(optarg, "mcast") ? NC_DIST_MCAST :
				 !strcmp(optarg, "auto") ? NC_DIST_AUTO : NC_DIST_TREE;
			break;
		case 's': o.split = strtoul(optarg, NULL, 0); break;
		case 'f': o.degree = strtoul(optarg, NULL, 0); break;
		case 'i': o.iters = strtoul(optarg, NULL, 0); break;
		case 'C': o.concurrent = strtoul(optarg, NULL, 0); break;
		case 't': o.timeout_ms = strtoul(optarg, NULL, 0); break;
		case 'S': o.seed = strtoul(optarg, NULL, 0); break;
		case 'T': check_trees_too = 1; break;
		case 'G': o.topology = optarg; break;
		case 'N': o.ntrees = strtoul(optarg, NULL, 0); break;
		case 'F': o.tree_degree = strtoul(optarg, NULL, 0); break;
		case 'L': o.late_ms = strtoul(optarg, NULL, 0); break;
		case 'K': o.late_rank = strtoul(optarg, NULL, 0); break;
		case 'E':
			o.expect = errno_of(optarg);
			if (!o.expect) {
				usage();
				return 2;
			}
			break;
		default: usage(); return 2;
		}
	}
	if (!o.comm || !o.size || o.rank >= o.size || o.nops < 0 || o.ndtypes < 0 ||
	    !o.concurrent || o.root >= o.size) {
		usage();
		return 2;
	}
	err = nc_open(&ep, NULL);
	if (!err)
		err = nc_bind(ep, o.comm, o.rank);
	if (!err && o.timeout_ms)
		err = nc_set_timeout(ep, o.timeout_ms);
	if (!err)
		err = load_hosts(&o);
	if (err) {
		fprintf(stderr, "nc_red_check: %s\n", nc_strerror(err));
		return 1;
	}
	if (check_trees_too)
		check_trees(&o);
	start_gate_wait();
	for (unsigned int n = 0; n < o.ncounts; n++)
		for (i = 0; i < o.nops; i++)
			for (c = 0; c < o.ndtypes; c++)
				if (nc_elem_size(o.ops[i], o.dtypes[c]))
					run_case(&o, ep, o.counts[n], o.ops[i],
						 o.dtypes[c]);
	nc_close(ep);
	free(o.host);
	return failures ? 1 : 0;
}

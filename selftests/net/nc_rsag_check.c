// SPDX-License-Identifier: BSD-2-Clause
/*
 * nc_rsag_check: the library's bandwidth-optimal collectives on one rank,
 * every result checked bit for bit (every rank runs it at once with the
 * same arguments but its own --rank):
 *
 *   nc_reduce_scatter  this rank's block, reduced in rank order 0 .. P-1;
 *   nc_allgather       every rank's block, in rank order;
 *   nc_allreduce       above the reduce-scatter threshold (forced with
 *                      nc_set_rsag_min(ep, 1)): every element reduced in
 *                      rank order, whatever the padding to P blocks.
 *
 * Each rank's input is a function of (seed, rank, element), so each rank
 * computes the expected result itself.  Floats span 60 binary orders of
 * magnitude with both signs, so another reduction order would show in the
 * bits; integer products stay small; minloc/maxloc values tie often.
 *
 * Output: one "ok - ..." or "not ok - ..." line per (call, dtype, op,
 * count); exit 0 iff all are ok.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netcoll.h>

#include "netcoll.h"
#define NC_RED_FLOAT
#include "nc_reduce.h"
#include "check_out.h"
#include "start_gate.h"

#define MAX_COUNTS	16

static uint32_t rank, size, seed = 1;

/* Element g of rank r's input for (dtype, op), written at p (zeroed). */
static void value(void *p, uint32_t r, uint64_t g, enum nc_dtype dt,
		  enum nc_op op)
{
	uint64_t h = mix(((uint64_t)seed << 48) ^ ((uint64_t)r << 36) ^ g);
	int loc = op == NC_OP_MINLOC || op == NC_OP_MAXLOC;
	int64_t v = op == NC_OP_PROD ? (int64_t)(h % 7) - 3 :
		    loc ? (int64_t)(h % 5) : (int64_t)(h >> 8);
	double f = ((double)(int64_t)(h % 2001) - 1000.0) *
		   (double)(1ULL << (h >> 58)) / (double)(1ULL << 20);
	int32_t idx = (int32_t)r;
	size_t at = nc_dt_size(dt);

	if (op == NC_OP_PROD || loc)
		f = (double)v;
	switch (dt) {
	case NC_DT_INT32: *(int32_t *)p = (int32_t)v; break;
	case NC_DT_UINT32: *(uint32_t *)p = (uint32_t)v; break;
	case NC_DT_INT64: *(int64_t *)p = v; break;
	case NC_DT_UINT64: *(uint64_t *)p = (uint64_t)v; break;
	case NC_DT_FLOAT: *(float *)p = (float)f; break;
	case NC_DT_DOUBLE: *(double *)p = f; break;
	default: break;
	}
	if (loc)
		memcpy((char *)p + at, &idx, sizeof(idx));
}

/* n elements of rank r's input from element first on. */
static void fill(char *buf, uint32_t r, uint64_t first, size_t n,
		 enum nc_dtype dt, enum nc_op op)
{
	size_t elem = nc_elem_size(op, dt), i;

	memset(buf, 0, n * elem);
	for (i = 0; i < n; i++)
		value(buf + i * elem, r, first + i, dt, op);
}

/* Elements first .. first+n-1 reduced over the ranks in rank order. */
static void expect(char *acc, char *tmp, uint64_t first, size_t n,
		   enum nc_dtype dt, enum nc_op op)
{
	size_t bytes = n * nc_elem_size(op, dt);
	uint32_t r;

	fill(acc, 0, first, n, dt, op);
	for (r = 1; r < size; r++) {
		fill(tmp, r, first, n, dt, op);
		if (!nc_red_apply_int(op, dt, acc, tmp, (__u32)bytes))
			nc_red_apply_float(op, dt, acc, tmp, (__u32)bytes);
	}
}

static void one(nc_endpoint *ep, enum nc_dtype dt, enum nc_op op, size_t n)
{
	size_t elem = nc_elem_size(op, dt), total = n * size * elem;
	char *in = malloc(total + 1), *out = malloc(total + 1);
	char *want = malloc(total + 1), *tmp = malloc(total + 1);
	const char *dn = nc_dtype_name(dt), *on = nc_op_name(op);
	uint32_t r;
	int err;

	if (!in || !out || !want || !tmp) {
		result(0, "out of memory");
		goto out;
	}
	/* reduce-scatter: P blocks of n; this rank's block is rank .. */
	fill(in, rank, 0, n * size, dt, op);
	err = nc_reduce_scatter(ep, in, out, n, dt, op);
	expect(want, tmp, (uint64_t)n * rank, n, dt, op);
	result(!err && !memcmp(out, want, n * elem),
	       "nc_reduce_scatter %s %s x%zu per rank%s%s", dn, on, n,
	       err ? ": " : "", err ? nc_strerror(err) : "");

	/* allreduce above the threshold, n elements (any n, padded) */
	fill(in, rank, 0, n, dt, op);
	err = nc_allreduce(ep, in, out, n, dt, op);
	expect(want, tmp, 0, n, dt, op);
	result(!err && !memcmp(out, want, n * elem),
	       "nc_allreduce (reduce-scatter + allgather) %s %s x%zu%s%s", dn, on,
	       n, err ? ": " : "", err ? nc_strerror(err) : "");

	/* allgather of this rank's n elements (once per dtype) */
	if (op != NC_OP_SUM)
		goto out;
	fill(in, rank, 0, n, dt, op);
	err = nc_allgather(ep, in, out, n * elem);
	for (r = 0; r < size; r++)
		fill(want + (size_t)r * n * elem, r, 0, n, dt, op);
	result(!err && !memcmp(out, want, total),
	       "nc_allgather %s x%zu per rank%s%s", dn, n,
	       err ? ": " : "", err ? nc_strerror(err) : "");
out:
	free(in), free(out), free(want), free(tmp);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "comm", 1, NULL, 'c' }, { "rank", 1, NULL, 'r' },
		{ "size", 1, NULL, 'P' }, { "count-list", 1, NULL, 'n' },
		{ "iters", 1, NULL, 'i' }, { "timeout", 1, NULL, 't' },
		{ "seed", 1, NULL, 'S' }, { "ops", 1, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	size_t counts[MAX_COUNTS];
	unsigned int ncounts = 0, ci, i, iters = 1, all_ops = 1;
	uint32_t comm = 0, timeout = 0;
	nc_endpoint *ep;
	char *tok, *save;
	int c, dt, op, err;

	start_gate_init();
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'c': comm = strtoul(optarg, NULL, 0); break;
		case 'r': rank = strtoul(optarg, NULL, 0); break;
		case 'P': size = strtoul(optarg, NULL, 0); break;
		case 'i': iters = strtoul(optarg, NULL, 0); break;
		case 't': timeout = strtoul(optarg, NULL, 0); break;
		case 'S': seed = strtoul(optarg, NULL, 0); break;
		case 'o': all_ops = strcmp(optarg, "sum"); break;
		case 'n':
			for (tok = strtok_r(optarg, ",", &save);
			     tok && ncounts < MAX_COUNTS;
			     tok = strtok_r(NULL, ",", &save))
				counts[ncounts++] = strtoull(tok, NULL, 0);
			break;
		default:
			fprintf(stderr, "usage: nc_rsag_check --comm ID --rank R --size P --count-list N,... [--iters N] [--timeout MS] [--seed S] [--ops all|sum]\n");
			return 2;
		}
	}
	if (!comm || !size || rank >= size || !ncounts) {
		fprintf(stderr, "nc_rsag_check: --comm, --rank, --size and --count-list\n");
		return 2;
	}
	err = nc_open(&ep, NULL);
	if (!err)
		err = nc_bind(ep, comm, rank);
	if (!err && timeout)
		err = nc_set_timeout(ep, timeout);
	if (!err)
		err = nc_set_rsag_min(ep, 1);	/* every size goes this way */
	if (err) {
		result(0, "open/bind: %s", nc_strerror(err));
		return 1;
	}
	start_gate_wait();
	for (i = 0; i < iters; i++, seed++)
		for (ci = 0; ci < ncounts; ci++)
			for (dt = 0; dt < NC_DT_COUNT; dt++)
				for (op = 0; op < NC_OP_COUNT; op++)
					if (nc_elem_size(op, dt) &&
					    (all_ops || op == NC_OP_SUM))
						one(ep, dt, op, counts[ci]);
	nc_close(ep);
	return failures ? 1 : 0;
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * ncbench --calibrate: the parameters of the reduction latency model of
 * Yu, Buntinas, Graham and Panda (SC'03, section 5.1) measured on the
 * running system, the model's T(P, f) for f = 2 .. 8 and its best degree,
 * then the measured reduce and allreduce latency on each f-nomial tree
 * next to the prediction (the paper's Figure 8 comparison).
 *
 * The paper fits serial reductions (all ranks send to the root) of P
 * nodes, T_serial(P) = (C + L) + (P - 1)(r + c), over several P.  Two ways:
 *
 *   --calib-comms ID,...   flat trees on communicators of several sizes
 *                          (each created beforehand on some of the hosts,
 *                          main rank 0 among its members as rank 0): the
 *                          paper's method.  L is half the allreduce time
 *                          of a 2-member one when given, else C = 0.
 *
 *   otherwise              one communicator cannot hold a serial reduction
 *                          of fewer than all its ranks, so trees S_k,
 *                          k = 1 .. P-1, stand in: the root has children
 *                          1 .. k, ranks k+1 .. P-1 hang below those round
 *                          robin.  S_{P-1} is the flat tree; for k < P-1
 *                          the root finishes after two latencies and
 *                          x_k = k + (children of rank 1) receptions:
 *                              T(S_k) = (C + 2L) + x_k (r + c).
 *                          The fit over those gives r + c and C + 2L, the
 *                          flat tree C + L; L is the difference.
 *
 * All ranks run the same operations in the same order; counts depend on
 * the command line and P only.  Trees are installed as tree 0 (split 1)
 * between barriers; the built-in tree is back at the end.  Installing
 * needs CAP_NET_ADMIN.  r and c are not told apart: the model gets r + c
 * as r, c = 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ncbench.h"

#define CAL_FMAX	8
#define CAL_WAIT_MS	600000	/* non-members wait while others measure */

struct cal_point {
	uint32_t k, depth, x;		/* tree method */
	uint32_t comm, size;		/* communicator method */
	double p50;
};

struct cal_degree {
	uint32_t f;
	double model, reduce, allreduce, all_model;
};

static uint32_t ceil_log(uint32_t P, uint32_t f)
{
	uint64_t pw = 1;
	uint32_t k = 0;

	while (pw < P) {
		pw *= f;
		k++;
	}
	return k;
}

/* S_k: the root (0) has children 1 .. k, the others hang below them. */
static void tree_sk(uint32_t P, uint32_t k, uint32_t *parents)
{
	uint32_t j;

	for (j = 0; j < P; j++)
		parents[j] = j <= k ? 0 : 1 + (j - k - 1) % k;
}

static int serial_trees(struct bench *b, uint64_t count, struct cal_point *pt,
			uint32_t *npt, struct nc_model *m, double *slope,
			double *icpt)
{
	uint32_t P = b->nranks, k, n2 = 0, *parents, *xs;
	double *ts, flat = 0, i1;
	struct result r;
	int ret = 1;

	parents = calloc(P, sizeof(*parents));
	xs = calloc(P, sizeof(*xs));
	ts = calloc(P, sizeof(*ts));
	if (!parents || !xs || !ts) {
		fail("no memory");
		goto out;
	}
	for (k = 1; k < P; k++) {
		tree_sk(P, k, parents);
		if (xp_tree_set(b, parents) ||
		    red_measure(b, OP_REDUCE, count, 1, b->o.iters, b->o.warmup, &r))
			goto out;
		pt[*npt] = (struct cal_point){
			.k = k, .depth = k == P - 1 ? 1 : 2, .p50 = r.p50,
			.x = k == P - 1 ? k : k + (P - 1 - k + k - 1) / k,
		};
		if (k == P - 1) {
			flat = r.p50;
		} else {
			/* nc_model_fit_serial takes sizes: x + 1 */
			xs[n2] = pt[*npt].x + 1;
			ts[n2++] = r.p50;
		}
		(*npt)++;
	}
	if (b->o.rank != 0) {
		ret = 0;
		goto out;
	}
	if (nc_model_fit_serial(xs, ts, n2, slope, icpt)) {
		fail("calibration on one communicator needs at least 5 ranks (has %"
		     PRIu32 "): give communicators of several sizes with --calib-comms", P);
		goto out;
	}
	i1 = flat - (P - 1) * *slope;		/* C + L */
	m->r = *slope;
	m->L = *icpt - i1;
	m->C = i1 - m->L;
	ret = 0;
out:
	free(parents);
	free(xs);
	free(ts);
	return ret;
}

static int parse_ids(const char *text, uint32_t **ids, uint32_t *n)
{
	char *copy = strdup(text), *tok, *save = NULL, *end;
	unsigned long v;

	*ids = NULL;
	*n = 0;
	if (!copy)
		return fail("no memory");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint32_t *p = realloc(*ids, (*n + 1) * sizeof(**ids));

		errno = 0;
		v = strtoul(tok, &end, 0);
		if (!p || errno || *end || !v || v > NETCOLL_COMM_ID_MAX) {
			free(p ? p : *ids);
			*ids = NULL;
			free(copy);
			return fail("--calib-comms: bad communicator id \"%s\"", tok);
		}
		*ids = p;
		(*ids)[(*n)++] = (uint32_t)v;
	}
	free(copy);
	return *n ? 0 : fail("--calib-comms: no ids");
}

/* warmup + iters reductions on ep (a barrier before each); rank's p50. */
static int comm_loop(struct bench *b, nc_endpoint *ep, uint64_t count, int all,
		     double *p50)
{
	struct nc_red_args a = {
		.sendbuf = b->rsend, .recvbuf = b->rrecv, .count = count,
		.dtype = b->o.dtype, .op = b->o.red_op, .all = all, .split = 1,
		.dist = b->o.dist,
	};
	uint64_t i, n = b->o.warmup + b->o.iters;
	struct result r;
	double t0;
	int err;

	for (i = 0; i < n; i++) {
		err = nc_barrier(ep);
		if (!err) {
			t0 = now_us();
			err = nc_reduce_ex(ep, &a);
			if (i >= b->o.warmup)
				b->lat[i - b->o.warmup] = now_us() - t0;
		}
		if (err)
			return fail("%s on a calibration communicator: %s",
				    all ? "allreduce" : "reduce", nc_strerror(err));
	}
	summarize(b->lat, b->o.iters, &r);
	*p50 = r.p50;
	return 0;
}

/* One calibration communicator: flat tree, measured by its members. */
static int serial_comm(struct bench *b, uint32_t id, uint64_t count,
		       double val[3])
{
	struct nc_comm_info ci;
	nc_endpoint *ep = NULL;
	uint32_t *flat = NULL;
	double t = 0, t2 = 0;
	uint32_t size, rank;
	int err, ret = 1;

	err = nc_comm_get(b->ctl, id, &ci);
	if (err == -ENOENT)
		return 0;		/* not a member: wait in the gather */
	if (err)
		return fail("communicator %" PRIu32 ": %s", id, nc_strerror(err));
	size = ci.size;
	rank = ci.rank;
	nc_comm_info_free(&ci);
	flat = calloc(size, sizeof(*flat));
	if (!flat)
		return fail("no memory");
	err = nc_open(&ep, NULL);
	if (!err)
		err = nc_bind(ep, id, rank);
	if (!err)
		err = nc_set_timeout(ep, b->o.timeout_ms);
	if (!err)
		err = nc_barrier(ep);
	if (!err)
		err = nc_tree_install(b->ctl, id, 0, flat, size);
	if (!err)
		err = nc_barrier(ep);
	if (err) {
		fail("communicator %" PRIu32 ": cannot set up a flat tree: %s%s", id,
		     nc_strerror(err), err == -EPERM ? " (needs CAP_NET_ADMIN)" : "");
		goto out;
	}
	if (comm_loop(b, ep, count, 0, &t) ||
	    (size == 2 && comm_loop(b, ep, count, 1, &t2)))
		goto out;
	err = nc_barrier(ep);
	if (!err)
		err = nc_tree_remove(b->ctl, id, 0);
	if (!err)
		err = nc_barrier(ep);
	if (err) {
		fail("communicator %" PRIu32 ": cannot remove the flat tree: %s", id,
		     nc_strerror(err));
		goto out;
	}
	if (rank == 0) {
		val[0] = t;
		val[1] = t2;
		val[2] = size;
	}
	ret = 0;
out:
	nc_close(ep);
	free(flat);
	return ret;
}

static int serial_comms(struct bench *b, uint64_t count, struct cal_point *pt,
			uint32_t *npt, struct nc_model *m, double *slope,
			double *icpt, double *all2)
{
	uint32_t *ids, nids, i, n = 0, *sizes = NULL, *flat = NULL;
	double *ts = NULL, val[3], out[3];
	struct result r;
	int err, ret = 1;

	if (parse_ids(b->o.calib_comms, &ids, &nids))
		return 1;
	sizes = calloc(nids + 1, sizeof(*sizes));
	ts = calloc(nids + 1, sizeof(*ts));
	flat = calloc(b->nranks, sizeof(*flat));
	if (!sizes || !ts || !flat) {
		fail("no memory");
		goto out;
	}
	*all2 = 0;
	for (i = 0; i < nids; i++) {
		memset(val, 0, sizeof(val));
		if (serial_comm(b, ids[i], count, val))
			goto out;
		/* The members' rank 0 tells everybody; the others wait here. */
		err = nc_set_timeout(b->ep, CAL_WAIT_MS);
		if (!err)
			err = nc_allreduce(b->ep, val, out, 3, NC_DT_DOUBLE, NC_OP_SUM);
		if (!err)
			err = nc_set_timeout(b->ep, b->o.timeout_ms);
		if (err) {
			fail("after communicator %" PRIu32 ": %s", ids[i], nc_strerror(err));
			goto out;
		}
		if (out[2] < 1) {
			fail("communicator %" PRIu32 " has no rank 0 among these hosts", ids[i]);
			goto out;
		}
		pt[*npt] = (struct cal_point){
			.comm = ids[i], .size = (uint32_t)out[2], .p50 = out[0],
		};
		(*npt)++;
		sizes[n] = (uint32_t)out[2];
		ts[n++] = out[0];
		if (out[2] == 2 && out[1] > 0)
			*all2 = out[1];
	}
	/* and the whole communicator */
	if (xp_tree_set(b, flat) ||
	    red_measure(b, OP_REDUCE, count, 1, b->o.iters, b->o.warmup, &r))
		goto out;
	pt[*npt] = (struct cal_point){ .comm = b->o.comm, .size = b->nranks, .p50 = r.p50 };
	(*npt)++;
	sizes[n] = b->nranks;
	ts[n++] = r.p50;
	if (b->o.rank != 0) {
		ret = 0;
		goto out;
	}
	if (nc_model_fit_serial(sizes, ts, n, slope, icpt)) {
		fail("--calib-comms: need communicators of at least two sizes");
		goto out;
	}
	m->r = *slope;
	/* half a 2-rank round trip, or no start-up cost at all */
	m->L = *all2 > 0 ? *all2 / 2 : *icpt;
	m->C = *icpt - m->L;
	ret = 0;
out:
	free(ids);
	free(sizes);
	free(ts);
	free(flat);
	return ret;
}

static void print_text(struct bench *b, uint64_t count, const struct cal_point *pt,
		       uint32_t npt, const struct nc_model *m, double slope,
		       double icpt, double all2, uint32_t best,
		       const struct cal_degree *dg, uint32_t ndg)
{
	const struct opts *o = &b->o;
	size_t esize = nc_elem_size(o->red_op, o->dtype);
	uint32_t i;

	printf("# ncbench calibrate: %s, %" PRIu32 " ranks, %" PRIu64 " bytes (%" PRIu64
	       " %s, %s), %" PRIu64 " iterations after %" PRIu64 " warm-up, p50 at rank 0\n",
	       o->xp == XP_UDP ? "udp" : "kernel", b->nranks, count * esize, count,
	       nc_dtype_name(o->dtype), nc_op_name(o->red_op), o->iters, o->warmup);
	if (o->calib_comms) {
		printf("# serial reductions (flat trees) on communicators of several sizes\n");
		printf("# %8s %6s %10s\n", "comm", "P", "p50(us)");
		for (i = 0; i < npt; i++)
			printf("  %8" PRIu32 " %6" PRIu32 " %10.2f\n", pt[i].comm,
			       pt[i].size, pt[i].p50);
		printf("# fit T_serial(P) = %.3f + (P-1) * %.3f us; %s\n", icpt, slope,
		       all2 > 0 ? "L = half the 2-rank allreduce" : "C = 0");
		if (all2 > 0)
			printf("# 2-rank allreduce p50 %.2f us\n", all2);
	} else {
		printf("# serial stand-ins: the root has k children, the other ranks hang\n"
		       "# below them; x = receptions on the root's critical path\n");
		printf("# %4s %6s %4s %10s\n", "k", "depth", "x", "p50(us)");
		for (i = 0; i < npt; i++)
			printf("  %4" PRIu32 " %6" PRIu32 " %4" PRIu32 " %10.2f\n", pt[i].k,
			       pt[i].depth, pt[i].x, pt[i].p50);
		printf("# fit over depth 2: T = %.3f + x * %.3f us (C + 2L, r + c);"
		       " flat tree gives C + L = %.3f us\n", icpt, slope, m->C + m->L);
	}
	printf("# model: L %.3f us, r+c %.3f us, C %.3f us%s\n", m->L, m->r, m->C,
	       m->C < 0 ? " (negative: measurement noise)" : "");
	printf("# best degree for P = %" PRIu32 ": %" PRIu32 "\n", b->nranks, best);
	printf("# %4s %10s %12s %14s %14s\n", "f", "model(us)", "reduce(us)",
	       "model+down(us)", "allreduce(us)");
	for (i = 0; i < ndg; i++)
		printf("  %4" PRIu32 " %10.2f %12.2f %14.2f %14.2f%s\n", dg[i].f,
		       dg[i].model, dg[i].reduce, dg[i].all_model, dg[i].allreduce,
		       dg[i].f == best ? "   <- best (model)" : "");
	printf("# reduce/allreduce: measured p50; model+down = model + L * ceil(log_f P)\n");
	fflush(stdout);
}

static void print_json(struct bench *b, uint64_t count, const struct cal_point *pt,
		       uint32_t npt, const struct nc_model *m, double slope,
		       double icpt, double all2, uint32_t best,
		       const struct cal_degree *dg, uint32_t ndg)
{
	size_t esize = nc_elem_size(b->o.red_op, b->o.dtype);
	uint32_t i;

	printf("\"calibrate\":{\"size\":%" PRIu64 ",\"count\":%" PRIu64
	       ",\"method\":\"%s\",\"points\":[", count * esize, count,
	       b->o.calib_comms ? "comms" : "trees");
	for (i = 0; i < npt; i++) {
		if (b->o.calib_comms)
			printf("%s{\"comm\":%" PRIu32 ",\"P\":%" PRIu32 ",\"p50_us\":%.3f}",
			       i ? "," : "", pt[i].comm, pt[i].size, pt[i].p50);
		else
			printf("%s{\"k\":%" PRIu32 ",\"depth\":%" PRIu32 ",\"x\":%" PRIu32
			       ",\"p50_us\":%.3f}", i ? "," : "", pt[i].k, pt[i].depth,
			       pt[i].x, pt[i].p50);
	}
	printf("],\"slope_us\":%.4f,\"intercept_us\":%.4f,\"allreduce2_us\":%.4f"
	       ",\"L_us\":%.4f,\"rc_us\":%.4f,\"C_us\":%.4f,\"best_degree\":%" PRIu32
	       ",\"degrees\":[", slope, icpt, all2, m->L, m->r, m->C, best);
	for (i = 0; i < ndg; i++)
		printf("%s{\"f\":%" PRIu32 ",\"model_us\":%.3f,\"reduce_p50_us\":%.3f"
		       ",\"allreduce_model_us\":%.3f,\"allreduce_p50_us\":%.3f}",
		       i ? "," : "", dg[i].f, dg[i].model, dg[i].reduce,
		       dg[i].all_model, dg[i].allreduce);
	printf("]}");
}

int calib_run(struct bench *b)
{
	struct opts *o = &b->o;
	size_t esize = nc_elem_size(o->red_op, o->dtype);
	uint64_t count = o->calib_size / esize ? o->calib_size / esize : 1;
	uint32_t P = b->nranks, npt = 0, ndg = 0, f, best = 2, *parents;
	struct cal_point *pt;
	struct cal_degree dg[CAL_FMAX];
	struct nc_model m = { 0 };
	double slope = 0, icpt = 0, all2 = 0;
	struct result r;
	int ret = 1;

	if (P < 2)
		return fail("--calibrate needs at least 2 ranks");
	/* the model times reductions to the tree's root */
	o->root = 0;
	pt = calloc(P + 64, sizeof(*pt));
	parents = calloc(P, sizeof(*parents));
	if (!pt || !parents) {
		fail("no memory");
		goto out;
	}
	if (o->calib_comms ?
	    serial_comms(b, count, pt, &npt, &m, &slope, &icpt, &all2) :
	    serial_trees(b, count, pt, &npt, &m, &slope, &icpt))
		goto out;
	if (o->rank == 0)
		best = nc_model_best_degree(&m, P, CAL_FMAX);
	for (f = 2; f <= CAL_FMAX; f++) {
		struct cal_degree *d = &dg[ndg++];
		int err = nc_tree_fnomial(P, f, NULL, parents);

		if (err) {
			fail("f-nomial tree of degree %" PRIu32 ": %s", f, nc_strerror(err));
			goto out;
		}
		d->f = f;
		d->model = nc_model_fnomial(&m, P, f);
		d->all_model = d->model + m.L * ceil_log(P, f);
		if (xp_tree_set(b, parents) ||
		    red_measure(b, OP_REDUCE, count, 1, o->iters, o->warmup, &r))
			goto out;
		d->reduce = r.p50;
		if (red_measure(b, OP_ALLREDUCE, count, 1, o->iters, o->warmup, &r))
			goto out;
		d->allreduce = r.p50;
	}
	if (xp_tree_set(b, NULL))
		goto out;
	if (b->print && o->rank == 0) {
		if (o->json)
			print_json(b, count, pt, npt, &m, slope, icpt, all2, best, dg, ndg);
		else
			print_text(b, count, pt, npt, &m, slope, icpt, all2, best, dg, ndg);
	}
	ret = 0;
out:
	/* after a failure, at least this namespace gets its tree back */
	if (ret && o->xp == XP_KERNEL)
		nc_tree_remove(b->ctl, o->comm, 0);
	free(pt);
	free(parents);
	return ret;
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * ncbench: reductions (reduce, allreduce, the tree barrier) on either
 * transport, OSU-style: per size a barrier, warm-up, timed iterations
 * (each after a barrier unless --no-sync, as osu_reduce does), the
 * latency distribution, and with --per-rank the spread of the ranks' mean
 * latencies (SHARP's Table 1), gathered by a reduction of a vector indexed
 * by rank: no side channel.
 *
 * The first iteration of each size is checked bit for bit.  Every rank's
 * vector is a function of (rank, element, size), so any rank can compute
 * the expected result: on each piece's tree, value(x) = x's own piece,
 * then value(c) of each child c in ascending rank order, with the same
 * operators (nc_reduce.h) as the kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NC_RED_FLOAT
#include "nc_reduce.h"
#include "ncbench.h"

const char *op_name(unsigned int op)
{
	switch (op) {
	case OP_BARRIER:
		return "barrier";
	case OP_ALLTOALL:
		return "alltoall";
	case OP_REDUCE:
		return "reduce";
	case OP_ALLREDUCE:
		return "allreduce";
	case OP_BCAST:
		return "bcast";
	default:
		return "tbarrier";
	}
}

static void red_apply(enum nc_op op, enum nc_dtype dtype, void *acc,
		      const void *in, size_t bytes)
{
	if (!nc_red_apply_int(op, dtype, acc, in, (__u32)bytes))
		nc_red_apply_float(op, dtype, acc, in, (__u32)bytes);
}

static int is_loc(enum nc_op op)
{
	return op == NC_OP_MINLOC || op == NC_OP_MAXLOC;
}

static int is_float(enum nc_dtype dt)
{
	return dt == NC_DT_FLOAT || dt == NC_DT_DOUBLE;
}

/* Does the result depend on the order the contributions are combined in? */
static int order_matters(enum nc_op op, enum nc_dtype dt)
{
	return is_float(dt) && (op == NC_OP_SUM || op == NC_OP_PROD);
}

static uint64_t mix64(uint64_t x)
{
	/* splitmix64 */
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static void put_value(uint8_t *dst, enum nc_dtype dt, uint64_t bits, double d)
{
	float f = (float)d;

	switch (dt) {
	case NC_DT_INT32:
	case NC_DT_UINT32:
		memcpy(dst, &bits, 4);		/* little-endian: the low half */
		break;
	case NC_DT_FLOAT:
		memcpy(dst, &f, 4);
		break;
	case NC_DT_DOUBLE:
		memcpy(dst, &d, 8);
		break;
	default:
		memcpy(dst, &bits, 8);
		break;
	}
}

/*
 * Element i of rank's vector at this size (salt).  Chosen so that a wrong
 * order or a missing contribution shows: floats of many magnitudes (sums
 * round differently in another order), products near 1 (no overflow to
 * inf), odd integer factors (products do not collapse to 0), few distinct
 * loc values (ties, won by the smaller index = rank).  No zeros or NaNs,
 * so min/max do not depend on the order.
 */
static void fill_elem(uint8_t *dst, uint32_t rank, uint64_t i, uint64_t salt,
		      enum nc_op op, enum nc_dtype dt, size_t esize)
{
	uint64_t h = mix64(mix64(salt * 0x100000001ULL + rank) ^ i);
	uint64_t h2 = mix64(h);
	int64_t small = (int64_t)(h % 8) - 4;
	double d;

	memset(dst, 0, esize);		/* loc padding: zero everywhere */
	if (is_loc(op)) {
		int32_t idx = (int32_t)rank;

		put_value(dst, dt, (uint64_t)small, (double)small);
		memcpy(dst + nc_dt_size(dt), &idx, sizeof(idx));
		return;
	}
	if (op == NC_OP_PROD) {
		d = 1 + ((double)(h >> 11) * 0x1p-53 - 0.5) * 0.5;
		put_value(dst, dt, h | 1, d);
		return;
	}
	d = ldexp((double)((h >> 11) | 1) * 0x1p-53, (int)(h2 % 41) - 20);
	if (h2 >> 63)
		d = -d;
	put_value(dst, dt, h, d);
}

static void fill_range(uint8_t *dst, uint32_t rank, uint64_t lo, uint64_t n,
		       uint64_t salt, enum nc_op op, enum nc_dtype dt, size_t esize)
{
	uint64_t i;

	for (i = 0; i < n; i++)
		fill_elem(dst + i * esize, rank, lo + i, salt, op, dt, esize);
}

/* ---------------------------------------------------------------- */
/* Reference result                                                  */
/* ---------------------------------------------------------------- */

struct refctx {
	enum nc_op op;
	enum nc_dtype dt;
	size_t esize;
	uint64_t salt, lo, n;		/* the piece: elements lo .. lo+n-1 */
	uint32_t *off, *kids;		/* children of x: kids[off[x] .. off[x+1]) */
	uint8_t **tmp;			/* one buffer per tree depth */
};

static int ref_value(struct refctx *c, uint32_t x, uint32_t depth, uint8_t *out)
{
	uint32_t k;

	fill_range(out, x, c->lo, c->n, c->salt, c->op, c->dt, c->esize);
	for (k = c->off[x]; k < c->off[x + 1]; k++) {
		if (!c->tmp[depth + 1]) {
			c->tmp[depth + 1] = malloc(c->n * c->esize + 1);
			if (!c->tmp[depth + 1])
				return -ENOMEM;
		}
		if (ref_value(c, c->kids[k], depth + 1, c->tmp[depth + 1]))
			return -ENOMEM;
		red_apply(c->op, c->dt, out, c->tmp[depth + 1], c->n * c->esize);
	}
	return 0;
}

/* The result of one piece reduced on tree parents[P], into out. */
static int ref_piece(const uint32_t *parents, uint32_t P, struct refctx *c,
		     uint8_t *out)
{
	uint32_t r, root = 0;
	int err = -ENOMEM;

	c->off = calloc(P + 2, sizeof(*c->off));
	c->kids = calloc(P, sizeof(*c->kids));
	c->tmp = calloc(P + 1, sizeof(*c->tmp));
	if (c->off && c->kids && c->tmp) {
		for (r = 0; r < P; r++)
			if (parents[r] != r)
				c->off[parents[r] + 2]++;
			else
				root = r;
		for (r = 0; r < P; r++)
			c->off[r + 2] += c->off[r + 1];
		/* ascending r: each rank's children in reduction order */
		for (r = 0; r < P; r++)
			if (parents[r] != r)
				c->kids[c->off[parents[r] + 1]++] = r;
		err = ref_value(c, root, 0, out);
	}
	if (c->tmp)
		for (r = 0; r <= P; r++)
			free(c->tmp[r]);
	free(c->tmp);
	free(c->kids);
	free(c->off);
	return err;
}

/* Pieces of a split vector, cut as the kernel does (agg.c). */
static uint32_t npieces(const struct bench *b, uint64_t count, uint32_t split,
			size_t bytes)
{
	uint64_t n = split ? split : nc_comm_split(b->ep, bytes);

	if (b->o.xp == XP_UDP)
		return 1;		/* one tree, whatever the size */
	if (n < 1)
		n = 1;
	if (n > NC_TREES_MAX)
		n = NC_TREES_MAX;
	return (uint32_t)(n > count && count ? count : n);
}

static int expected(struct bench *b, uint64_t count, uint32_t split,
		    uint8_t *out, int *checkable)
{
	const struct opts *o = &b->o;
	size_t esize = nc_elem_size(o->red_op, o->dtype);
	uint32_t n = npieces(b, count, split, count * esize), j;
	static int warned;

	*checkable = 1;
	for (j = 0; j < n; j++) {
		uint64_t lo = count * j / n, hi = count * (j + 1) / n;
		const uint32_t *tree = b->tree_known[j] ? b->trees[j] : NULL;
		struct refctx c = {
			.op = o->red_op, .dt = o->dtype, .esize = esize,
			.salt = count, .lo = lo, .n = hi - lo,
		};

		/* Without the piece's tree only an order-free result is known. */
		if (!tree && !order_matters(o->red_op, o->dtype) && b->tree_known[0])
			tree = b->trees[0];
		if (!tree) {
			if (!warned++)
				fprintf(stderr, "ncbench: tree %" PRIu32 " unknown: results of %s %s"
					" are not checked\n", j, nc_dtype_name(o->dtype),
					nc_op_name(o->red_op));
			*checkable = 0;
			return 0;
		}
		if (ref_piece(tree, b->nranks, &c, out + lo * esize))
			return fail("no memory for the reference result");
	}
	return 0;
}

static void format_elem(char *buf, size_t len, const uint8_t *p,
			enum nc_op op, enum nc_dtype dt)
{
	int64_t s64;
	uint64_t u64 = 0;
	int32_t s32, idx = 0;
	double d;
	float f;
	int n;

	switch (dt) {
	case NC_DT_INT32:
		memcpy(&s32, p, 4);
		n = snprintf(buf, len, "%" PRId32, s32);
		break;
	case NC_DT_UINT32:
		memcpy(&u64, p, 4);
		n = snprintf(buf, len, "%" PRIu64, u64);
		break;
	case NC_DT_INT64:
		memcpy(&s64, p, 8);
		n = snprintf(buf, len, "%" PRId64, s64);
		break;
	case NC_DT_UINT64:
		memcpy(&u64, p, 8);
		n = snprintf(buf, len, "%" PRIu64, u64);
		break;
	case NC_DT_FLOAT:
		memcpy(&f, p, 4);
		n = snprintf(buf, len, "%.9g (%a)", f, f);
		break;
	default:
		memcpy(&d, p, 8);
		n = snprintf(buf, len, "%.17g (%a)", d, d);
		break;
	}
	if (is_loc(op) && n > 0 && (size_t)n < len) {
		memcpy(&idx, p + nc_dt_size(dt), 4);
		snprintf(buf + n, len - n, " index %" PRId32, idx);
	}
}

/* Values (and loc indices) must match bit for bit; padding is not data. */
static int verify(struct bench *b, const char *what, uint64_t count,
		  const uint8_t *want, const uint8_t *got)
{
	const struct opts *o = &b->o;
	size_t esize = nc_elem_size(o->red_op, o->dtype);
	size_t vsize = nc_dt_size(o->dtype);
	uint64_t i, bad = 0, first = 0;
	char w[96], g[96];

	for (i = 0; i < count; i++) {
		const uint8_t *x = want + i * esize, *y = got + i * esize;
		int diff = memcmp(x, y, vsize) ||
			   (is_loc(o->red_op) && memcmp(x + vsize, y + vsize, 4));

		if (diff && !bad++)
			first = i;
	}
	if (!bad)
		return 0;
	format_elem(w, sizeof(w), want + first * esize, o->red_op, o->dtype);
	format_elem(g, sizeof(g), got + first * esize, o->red_op, o->dtype);
	return fail("%s of %" PRIu64 " %s (%s): %" PRIu64 " element(s) wrong, first %"
		    PRIu64 ": expected %s, got %s", what, count,
		    nc_dtype_name(o->dtype), nc_op_name(o->red_op), bad, first, w, g);
}

/* ---------------------------------------------------------------- */
/* Transport                                                         */
/* ---------------------------------------------------------------- */

/* Tree 0 as it was before --calibrate changed it. */
static uint32_t *builtin0;
static int builtin0_known;

int xp_reduce(struct bench *b, const struct nc_red_args *a)
{
	int err;

	if (b->o.xp == XP_UDP)
		return udp_reduce(b->udp, a);
	err = nc_reduce_ex(b->ep, a);
	if (err)
		return fail("%s: %s", a->count ? (a->all ? "allreduce" : "reduce") :
			    "tree barrier", nc_strerror(err));
	return 0;
}

/* A broadcast of bytes from --root, in place in buf. */
static int xp_bcast(struct bench *b, void *buf, size_t bytes)
{
	struct nc_bcast_args a = {
		.buf = buf, .len = bytes, .root = b->o.root, .dist = b->o.dist,
	};
	int err;

	if (b->o.xp == XP_UDP)
		return udp_bcast(b->udp, buf, bytes);
	err = nc_bcast_ex(b->ep, &a);
	if (err)
		return fail("bcast: %s", nc_strerror(err));
	return 0;
}

/*
 * The UDP transport's tree for broadcasts from --root: the f-nomial tree
 * of --degree over ranks taken relative to the root, as the kernel builds
 * it; NULL puts tree 0 back.  Set between barriers, as xp_tree_set().
 */
static int udp_bcast_tree(struct bench *b, int on)
{
	uint32_t P = b->nranks, v, *order, *parents;
	int err = 0;

	if (xp_sync(b))
		return 1;
	order = malloc(P * sizeof(*order));
	parents = malloc(P * sizeof(*parents));
	if (!order || !parents) {
		free(order);
		free(parents);
		return fail("no memory");
	}
	for (v = 0; v < P; v++)
		order[v] = (b->o.root + v) % P;
	if (on)
		err = nc_tree_fnomial(P, b->degree, order, parents);
	if (err)
		fail("f-nomial tree rooted at %" PRIu32 ": %s", b->o.root, nc_strerror(err));
	else
		err = udp_set_tree(b->udp, on ? parents : b->trees[0]);
	free(order);
	free(parents);
	return err || xp_sync(b);
}

/* The untimed barrier between iterations and around tree changes. */
int xp_sync(struct bench *b)
{
	struct nc_red_args a = { .all = 1, .dtype = NC_DT_INT32 };
	int err;

	if (b->o.xp == XP_UDP)
		return udp_reduce(b->udp, &a);
	err = nc_barrier(b->ep);
	if (err)
		return fail("barrier: %s", nc_strerror(err));
	return 0;
}

/*
 * Tree 0 := parents, or the built-in one again (NULL).  Every rank does it
 * in its own namespace, between a barrier that lets the last operation on
 * the old tree finish everywhere and one that lets no rank start on the
 * new tree before all have it.
 */
int xp_tree_set(struct bench *b, const uint32_t *parents)
{
	const uint32_t *t = parents ? parents : builtin0;
	int err;

	if (xp_sync(b))
		return 1;
	if (b->o.xp == XP_KERNEL) {
		err = parents ? nc_tree_install(b->ctl, b->o.comm, 0, parents, b->nranks) :
				nc_tree_remove(b->ctl, b->o.comm, 0);
		if (err) {
			const char *why = nc_ctl_last_error(b->ctl);

			return fail("cannot %s tree 0 of communicator %" PRIu32 ": %s%s%s%s",
				    parents ? "install" : "remove", b->o.comm,
				    nc_strerror(err), why ? ": " : "", why ? why : "",
				    err == -EPERM ? " (needs CAP_NET_ADMIN)" : "");
		}
	} else if (udp_set_tree(b->udp, t)) {
		return 1;
	}
	memcpy(b->trees[0], t, b->nranks * sizeof(*t));
	b->tree_known[0] = parents ? 1 : builtin0_known;
	return xp_sync(b);
}

/*
 * Every rank's parent on each of the kernel's trees, the built-in or
 * installed ones: nc_tree_get tells each rank its own, a sum over a
 * vector indexed by (tree, rank) tells everybody all of them.
 */
static int kernel_trees(struct bench *b)
{
	uint32_t P = b->nranks, j, r, *vec, *all;
	struct nc_tree_info ti;
	int err, ret = 1;

	vec = calloc((size_t)NC_TREES_MAX * P, sizeof(*vec));
	all = calloc((size_t)NC_TREES_MAX * P, sizeof(*all));
	if (!vec || !all) {
		fail("no memory");
		goto out;
	}
	for (j = 0; j < NC_TREES_MAX; j++) {
		if (nc_tree_get(b->ctl, b->o.comm, j, &ti))
			continue;	/* unknown here: unknown everywhere */
		vec[j * P + b->o.rank] = ti.parent + 1;
		nc_tree_info_free(&ti);
	}
	err = nc_allreduce(b->ep, vec, all, (size_t)NC_TREES_MAX * P,
			   NC_DT_UINT32, NC_OP_SUM);
	if (err) {
		fail("cannot gather the trees of communicator %" PRIu32 ": %s",
		     b->o.comm, nc_strerror(err));
		goto out;
	}
	for (j = 0; j < NC_TREES_MAX; j++) {
		b->tree_known[j] = 1;
		for (r = 0; r < P; r++) {
			if (!all[j * P + r] || all[j * P + r] > P)
				b->tree_known[j] = 0;
			else
				b->trees[j][r] = all[j * P + r] - 1;
		}
	}
	ret = 0;
out:
	free(vec);
	free(all);
	return ret;
}

/* ---------------------------------------------------------------- */
/* Measurement                                                       */
/* ---------------------------------------------------------------- */

static uint8_t *expect_buf;
static double *rank_vec, *rank_out;

/*
 * Reduction sizes: 4 B .. 64 KiB unless given; one bound given alone
 * moves the other default out of its way.
 */
void red_sizes(const struct opts *o, uint64_t *min, uint64_t *max)
{
	*min = o->min_set ? o->min : 4;
	*max = o->max_set ? o->max : 65536;
	if (*min > *max) {
		if (o->max_set)
			*min = *max;
		else
			*max = *min;
	}
}

int red_setup(struct bench *b)
{
	const struct opts *o = &b->o;
	size_t esize = nc_elem_size(o->red_op, o->dtype);
	uint64_t min, max;
	size_t bytes;
	uint32_t j;

	red_sizes(o, &min, &max);

	if (!esize || nc_red_check(o->red_op, o->dtype))
		return fail("%s is not defined on %s", nc_op_name(o->red_op),
			    nc_dtype_name(o->dtype));
	if (o->calibrate && o->calib_size > max)
		max = o->calib_size;
	/* whole elements, at least one; a broadcast's sizes are bytes */
	bytes = max / esize ? max / esize * esize : esize;
	if ((o->ops & OP_BCAST) && bytes < max)
		bytes = max;
	if (bytes > NETCOLL_REDUCE_MAX)
		return fail("reductions are limited to %u bytes", NETCOLL_REDUCE_MAX);
	if (bytes < (size_t)b->nranks * sizeof(double))
		bytes = (size_t)b->nranks * sizeof(double);
	b->red_bytes = bytes;
	if (posix_memalign((void **)&b->rsend, 4096, bytes) ||
	    posix_memalign((void **)&b->rrecv, 4096, bytes) ||
	    !(expect_buf = malloc(bytes)) ||
	    !(rank_vec = calloc(b->nranks, sizeof(double))) ||
	    !(rank_out = calloc(b->nranks, sizeof(double))))
		return fail("cannot allocate %zu bytes for reductions", bytes);
	for (j = 0; j < NC_TREES_MAX; j++) {
		b->trees[j] = calloc(b->nranks, sizeof(uint32_t));
		if (!b->trees[j])
			return fail("no memory");
	}
	builtin0 = calloc(b->nranks, sizeof(uint32_t));
	if (!builtin0)
		return fail("no memory");
	if (o->xp == XP_UDP) {
		/* one tree: f-nomial of --degree, like the kernel's built-in */
		int err = nc_tree_fnomial(b->nranks, b->degree, NULL, b->trees[0]);

		if (err)
			return fail("f-nomial tree of degree %" PRIu32 ": %s", b->degree,
				    nc_strerror(err));
		b->tree_known[0] = 1;
		if (udp_set_tree(b->udp, b->trees[0]))
			return 1;
	} else if (kernel_trees(b)) {
		return 1;
	}
	memcpy(builtin0, b->trees[0], b->nranks * sizeof(uint32_t));
	builtin0_known = b->tree_known[0];
	return 0;
}

void red_cleanup(struct bench *b)
{
	uint32_t j;

	for (j = 0; j < NC_TREES_MAX; j++)
		free(b->trees[j]);
	free(b->rsend);
	free(b->rrecv);
	free(builtin0);
	free(expect_buf);
	free(rank_vec);
	free(rank_out);
}

/*
 * Broadcasts of bytes from --root: the root's bytes are a function of
 * (root, size, index) every rank can compute; the others' buffer is
 * overwritten with their complement before every checked iteration, and
 * checked after.
 */
static int bcast_measure(struct bench *b, size_t bytes, uint64_t iters,
			 uint64_t warmup, struct result *r)
{
	const struct opts *o = &b->o;
	uint64_t i;
	size_t k;
	double t0;

	for (k = 0; k < bytes; k++)	/* the root's bytes: (root, size, index) */
		expect_buf[k] = (uint8_t)(mix64(mix64(bytes * 0x100000001ULL + o->root) ^
					       (k / 8)) >> (8 * (k % 8)));
	for (i = 0; i < warmup + iters; i++) {
		if (i == 0 || o->check_all)
			for (k = 0; k < bytes; k++)
				b->rrecv[k] = o->rank == o->root ? expect_buf[k] :
					      (uint8_t)~expect_buf[k];
		if ((i == 0 || !o->no_sync) && xp_sync(b))
			return 1;
		t0 = now_us();
		if (xp_bcast(b, b->rrecv, bytes))
			return fail("bcast of %zu bytes failed in iteration %" PRIu64, bytes, i);
		if (i >= warmup)
			b->lat[i - warmup] = now_us() - t0;
		if ((i == 0 || o->check_all) && memcmp(b->rrecv, expect_buf, bytes))
			return fail("bcast of %zu bytes from %" PRIu32 ": data differs"
				    " (iteration %" PRIu64 ")", bytes, o->root, i);
	}
	summarize(b->lat, iters, r);
	return 0;
}

/*
 * warmup + iters operations of one kind and size (count elements; split
 * as nc_red_args.split).  Latencies of the timed ones go to r.  The first
 * operation is checked where this rank gets the result.
 */
int red_measure(struct bench *b, unsigned int op, uint64_t count,
		uint32_t split, uint64_t iters, uint64_t warmup,
		struct result *r)
{
	const struct opts *o = &b->o;
	size_t esize = nc_elem_size(o->red_op, o->dtype);
	struct nc_red_args a = {
		.sendbuf = b->rsend, .recvbuf = b->rrecv,
		.count = op == OP_TBARRIER ? 0 : count,
		.dtype = o->dtype, .op = o->red_op, .root = o->root,
		.all = op != OP_REDUCE, .dist = o->dist, .split = split,
	};
	size_t bytes = a.count * esize, k;
	int check = a.count && (a.all || o->rank == o->root);
	uint64_t i;
	double t0;

	if (op == OP_BCAST)		/* count is bytes */
		return bcast_measure(b, count, iters, warmup, r);
	if (a.count)
		fill_range(b->rsend, o->rank, 0, a.count, a.count, o->red_op,
			   o->dtype, esize);
	if (check && expected(b, a.count, split, expect_buf, &check))
		return 1;
	for (i = 0; i < warmup + iters; i++) {
		/* Bytes the reduction fails to write cannot pass for the result. */
		if (i == 0 || (check && o->check_all))
			for (k = 0; k < bytes; k++)
				b->rrecv[k] = check ? (uint8_t)~expect_buf[k] : 0x5a;
		if ((i == 0 || !o->no_sync) && xp_sync(b))
			return 1;
		t0 = now_us();
		if (xp_reduce(b, &a))
			return fail("%s of %zu bytes failed in iteration %" PRIu64,
				    op_name(op), bytes, i);
		if (i >= warmup)
			b->lat[i - warmup] = now_us() - t0;
		if ((i == 0 || o->check_all) && check &&
		    verify(b, op_name(op), a.count, expect_buf, b->rrecv))
			return fail("(iteration %" PRIu64 ")", i);
	}
	summarize(b->lat, iters, r);
	return 0;
}

/* ---------------------------------------------------------------- */
/* Per-rank spread and output                                        */
/* ---------------------------------------------------------------- */

struct spread {
	uint64_t size;
	double min, p25, p50, p75, max;
};

/* Rank 0 gets every rank's mean: a sum where rank r only fills slot r. */
static int gather_means(struct bench *b, double mean, struct spread *s)
{
	uint32_t P = b->nranks;
	struct result r;
	double *sorted;
	int err;

	memset(rank_vec, 0, P * sizeof(double));
	rank_vec[b->o.rank] = mean;
	if (b->o.xp == XP_UDP) {
		struct nc_red_args a = {
			.sendbuf = rank_vec, .recvbuf = rank_out, .count = P,
			.dtype = NC_DT_DOUBLE, .op = NC_OP_SUM, .root = 0,
		};

		if (udp_reduce(b->udp, &a))
			return 1;
	} else {
		err = nc_reduce(b->ep, rank_vec, rank_out, P, NC_DT_DOUBLE,
				NC_OP_SUM, 0);
		if (err)
			return fail("gathering the ranks' means: %s", nc_strerror(err));
	}
	if (b->o.rank != 0)
		return 0;
	sorted = malloc(P * sizeof(double));
	if (!sorted)
		return fail("no memory");
	memcpy(sorted, rank_out, P * sizeof(double));
	summarize(sorted, P, &r);
	free(sorted);
	s->min = r.min;
	s->p25 = r.p25;
	s->p50 = r.p50;
	s->p75 = r.p75;
	s->max = r.max;
	return 0;
}

const char *dist_name(enum nc_dist d)
{
	return d == NC_DIST_MCAST ? "mcast" : d == NC_DIST_AUTO ? "auto" : "tree";
}

static void red_header(struct bench *b, unsigned int op)
{
	const struct opts *o = &b->o;

	if (o->json || !b->print)
		return;
	if (o->xp == XP_UDP)
		printf("# ncbench %s: udp, %" PRIu32 " ranks, rank %" PRIu32, op_name(op),
		       b->nranks, o->rank);
	else
		printf("# ncbench %s: kernel, comm %" PRIu32 ", %" PRIu32 " ranks, rank %"
		       PRIu32, op_name(op), o->comm, b->nranks, o->rank);
	if (op != OP_TBARRIER && op != OP_BCAST)
		printf(", %s %s", nc_dtype_name(o->dtype), nc_op_name(o->red_op));
	if (op == OP_REDUCE || op == OP_BCAST)
		printf(", root %" PRIu32, o->root);
	if (op != OP_REDUCE && o->xp == XP_KERNEL)
		printf(", dist %s", dist_name(o->dist));
	if (o->xp == XP_KERNEL && op != OP_TBARRIER && op != OP_BCAST) {
		if (o->split)
			printf(", split %" PRIu32, o->split);
		else
			printf(", split auto");
	}
	printf(", degree %" PRIu32 "%s", b->degree,
	       o->no_sync ? ", no barrier between iterations" : "");
	if (o->noise)
		printf(", noise %" PRIu32, o->noise);
	if (o->timeout_ms)
		printf(", timeout %" PRIu32 " ms\n", o->timeout_ms);
	else
		printf(o->xp == XP_UDP ? ", timeout 5000 ms\n" : ", communicator's timeout\n");
	printf("# %10s %8s %8s %10s %10s %10s %10s %10s %10s %10s\n", "size", "count",
	       "iters", "min(us)", "p25(us)", "p50(us)", "p75(us)", "p99(us)",
	       "max(us)", "mean(us)");
}

static void red_row(struct bench *b, unsigned int op, uint64_t size,
		    uint64_t count, const struct result *r,
		    const struct spread *s)
{
	uint32_t i;

	if (!b->print)
		return;
	if (!b->o.json) {
		printf("  %10" PRIu64 " %8" PRIu64 " %8" PRIu64
		       " %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f %10.2f\n",
		       size, count, r->iters, r->min, r->p25, r->p50, r->p75,
		       r->p99, r->max, r->mean);
		fflush(stdout);
		return;
	}
	printf("%s{\"op\":\"%s\",\"size\":%" PRIu64 ",\"count\":%" PRIu64
	       ",\"iters\":%" PRIu64 ",\"min_us\":%.3f,\"p25_us\":%.3f"
	       ",\"p50_us\":%.3f,\"p75_us\":%.3f,\"p99_us\":%.3f,\"max_us\":%.3f"
	       ",\"mean_us\":%.3f", b->rows ? "," : "", op_name(op), size, count,
	       r->iters, r->min, r->p25, r->p50, r->p75, r->p99, r->max, r->mean);
	/* the ranks' means are rank 0's alone */
	if (s && b->o.rank == 0) {
		printf(",\"rank_mean_us\":{\"min\":%.3f,\"p25\":%.3f,\"p50\":%.3f"
		       ",\"p75\":%.3f,\"max\":%.3f,\"ranks\":[", s->min, s->p25,
		       s->p50, s->p75, s->max);
		for (i = 0; i < b->nranks; i++)
			printf("%s%.3f", i ? "," : "", rank_out[i]);
		printf("]}");
	}
	putchar('}');
	b->rows++;
	fflush(stdout);
}

static void spread_table(struct bench *b, const struct spread *s, size_t n)
{
	size_t i;

	if (!b->print || b->o.json || b->o.rank != 0 || !n)
		return;
	printf("# per-rank mean latency across %" PRIu32 " ranks (us)\n", b->nranks);
	printf("# %10s %10s %10s %10s %10s %10s\n", "size", "min", "p25", "p50",
	       "p75", "max");
	for (i = 0; i < n; i++)
		printf("  %10" PRIu64 " %10.2f %10.2f %10.2f %10.2f %10.2f\n",
		       s[i].size, s[i].min, s[i].p25, s[i].p50, s[i].p75, s[i].max);
	fflush(stdout);
}

static int run_op(struct bench *b, unsigned int op)
{
	const struct opts *o = &b->o;
	size_t esize = nc_elem_size(o->red_op, o->dtype);
	uint64_t min, max, size, count, prev = 0, iters, warmup;
	struct spread spreads[64];
	size_t nspread = 0;
	struct result r;
	int ret = 0;

	red_sizes(o, &min, &max);
	red_header(b, op);
	if (op == OP_BCAST) {
		esize = 1;	/* bytes */
		if (o->xp == XP_UDP && udp_bcast_tree(b, 1))
			return 1;
	}
	for (size = min; ret == 0; size *= 2) {
		count = op == OP_TBARRIER ? 0 : size / esize ? size / esize : 1;
		/* sizes that round to the same element count run once */
		if (op != OP_TBARRIER && count == prev)
			goto next;
		prev = count;
		iters = count ? o->budget / (count * esize) : o->iters;
		if (iters < 10)
			iters = 10;
		if (iters > o->iters)
			iters = o->iters;
		warmup = o->warmup < iters / 10 + 1 ? o->warmup : iters / 10 + 1;
		if (op == OP_TBARRIER)
			warmup = o->warmup;
		if (red_measure(b, op, count, o->split, iters, warmup, &r))
			return 1;
		if (o->per_rank) {
			struct spread *s = &spreads[nspread < 64 ? nspread : 63];

			s->size = count * esize;
			if (gather_means(b, r.mean, s))
				return 1;
			red_row(b, op, count * esize, count, &r, s);
			if (nspread < 64)
				nspread++;
		} else {
			red_row(b, op, count * esize, count, &r, NULL);
		}
next:
		if (op == OP_TBARRIER || size > max / 2)
			break;
	}
	spread_table(b, spreads, nspread);
	if (op == OP_BCAST && o->xp == XP_UDP && udp_bcast_tree(b, 0))
		return 1;
	return ret;
}

int red_run(struct bench *b)
{
	static const unsigned int order[] = { OP_REDUCE, OP_ALLREDUCE, OP_TBARRIER,
					      OP_BCAST };
	size_t i;

	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if ((b->o.ops & order[i]) && run_op(b, order[i]))
			return 1;
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * mpi_check: every collective libnetcoll-mpi intercepts, checked against
 * the MPI library's own (PMPI_) result on the same input: every supported
 * type and op, MPI_IN_PLACE, every root, a communicator congruent to
 * MPI_COMM_WORLD, split ones and their duplicates (netcoll), and
 * non-contiguous or user-op calls (MPI).  Values are small integers, so floating-point sums are
 * exact in any order and results must be bit-identical.
 *
 * Run with and without LD_PRELOAD=libnetcoll-mpi.so: the same checks
 * pass.  Prints "not ok" lines (every line with MPI_CHECK_VERBOSE set) and
 * a summary; exits 1 if any check failed.  "mpi_check quick": the
 * alltoall-shaped calls only; "mpi_check reductions": the reductions on
 * MPI_COMM_WORLD, a duplicate, the world in reverse order (its shape),
 * halves (another shape: NETCOLL_MPI_ALLREDUCE_TUNE measures them), and
 * halves again (their shape's results kept) only.  "mpi_check late MS": an MPI_Allreduce and
 * an MPI_Alltoall that one rank enters MS milliseconds after the others
 * (load imbalance: MPI waits for it however long it takes).
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank, size, failed, checks;

static void check(int good, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#include <stdarg.h>
static void check(int good, const char *fmt, ...)
{
	int all;
	va_list ap;

	PMPI_Allreduce(&good, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
	checks++;
	if (!all)
		failed++;
	if (rank == 0 && (!all || getenv("MPI_CHECK_VERBOSE"))) {
		va_start(ap, fmt);
		printf("%s - ", all ? "ok" : "not ok");
		vprintf(fmt, ap);
		printf("\n");
		va_end(ap);
	}
}

struct type {
	MPI_Datatype t;
	const char *name;
	int kind;	/* 0 signed, 1 unsigned, 2 float, 3 double */
	size_t size;
};

#define T(t, k, s) { t, #t, k, s }
static struct type types[] = {
	T(MPI_INT, 0, 4), T(MPI_INT32_T, 0, 4), T(MPI_UNSIGNED, 1, 4),
	T(MPI_UINT32_T, 1, 4), T(MPI_LONG, 0, sizeof(long)),
	T(MPI_LONG_LONG, 0, 8), T(MPI_INT64_T, 0, 8),
	T(MPI_UNSIGNED_LONG, 1, sizeof(long)), T(MPI_UNSIGNED_LONG_LONG, 1, 8),
	T(MPI_UINT64_T, 1, 8), T(MPI_FLOAT, 2, 4), T(MPI_DOUBLE, 3, 8),
};
#define NTYPES	(sizeof(types) / sizeof(types[0]))

static void put(const struct type *t, void *buf, size_t i, long long v)
{
	char *p = (char *)buf + i * t->size;

	switch (t->kind) {
	case 2: { float f = v; memcpy(p, &f, 4); break; }
	case 3: { double d = v; memcpy(p, &d, 8); break; }
	default:
		if (t->size == 4) { int32_t x = v; memcpy(p, &x, 4); }
		else { int64_t x = v; memcpy(p, &x, 8); }
	}
}

/* Small values (products over 16 ranks stay exact in a float). */
static long long value(const struct type *t, MPI_Op op, int r, size_t i)
{
	/* logical ops: 0 everywhere (i % 3 == 0), at some ranks, or nowhere */
	if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR) {
		if (i % 3 == 0 || (i % 3 == 1 && (i + r) % 5 == 0))
			return 0;
		if (t->size == 8 && i % 2)	/* the low 32 bits zero */
			return (long long)(r + 1) << (32 + i % 24);
		return t->kind == 1 ? (long long)(r + 1) << (i % 31) :
				      -(long long)(r + i);
	}
	if (op == MPI_PROD)
		return (r + i) % 3 ? 1 : (t->kind == 1 ? 2 : -2);
	if (t->kind == 1)
		return (r * 31 + i * 7) % 1000;
	return (long long)((r * 31 + i * 7) % 1000) - 500;
}

static void fill(const struct type *t, MPI_Op op, void *buf, size_t n, int r)
{
	size_t i;

	for (i = 0; i < n; i++)
		put(t, buf, i, value(t, op, r, i));
}

static const struct { MPI_Op op; const char *name; int ints; } ops[] = {
	{ MPI_SUM, "SUM", 0 }, { MPI_PROD, "PROD", 0 }, { MPI_MIN, "MIN", 0 },
	{ MPI_MAX, "MAX", 0 }, { MPI_BAND, "BAND", 1 }, { MPI_BOR, "BOR", 1 },
	{ MPI_BXOR, "BXOR", 1 }, { MPI_LAND, "LAND", 1 }, { MPI_LOR, "LOR", 1 },
	{ MPI_LXOR, "LXOR", 1 },
};
#define NOPS	(sizeof(ops) / sizeof(ops[0]))

static const size_t counts[] = { 1, 7, 1000, 20000, 140000 };	/* 140000 doubles: past 1 MiB, reduce-scatter + allgather */
#define NCOUNTS	(sizeof(counts) / sizeof(counts[0]))

/*
 * Allreduce and reduce (in place too, every count, the root moving with
 * the count) of each type and op against PMPI_Allreduce; one check per
 * (type, op) naming the first variant that differed.  all: every type and
 * op, else two.
 */
static void reductions(MPI_Comm comm, const char *cname, int all)
{
	size_t ti, oi, ci, n, bytes;
	const char *bad;
	void *in, *a, *b;
	int root, r = 0, csize = 1;

	MPI_Comm_rank(comm, &r);
	MPI_Comm_size(comm, &csize);
	for (ti = 0; ti < NTYPES; ti++)
	for (oi = 0; oi < NOPS; oi++) {
		const struct type *t = &types[ti];

		if (ops[oi].ints && t->kind >= 2)
			continue;
		if (!all && !(t->t == MPI_DOUBLE && ops[oi].op == MPI_SUM) &&
		    !(t->t == MPI_INT && ops[oi].op == MPI_MAX))
			continue;
		bad = NULL;
		for (ci = 0; ci < NCOUNTS; ci++) {
			n = counts[ci];
			bytes = n * t->size;
			in = malloc(bytes);
			a = calloc(1, bytes);
			b = calloc(1, bytes);
			fill(t, ops[oi].op, in, n, r);
			PMPI_Allreduce(in, b, n, t->t, ops[oi].op, comm);
			MPI_Allreduce(in, a, n, t->t, ops[oi].op, comm);
			if (!bad && memcmp(a, b, bytes))
				bad = "MPI_Allreduce";
			memcpy(a, in, bytes);
			MPI_Allreduce(MPI_IN_PLACE, a, n, t->t, ops[oi].op, comm);
			if (!bad && memcmp(a, b, bytes))
				bad = "MPI_Allreduce in place";
			root = (int)ci % csize;
			memset(a, 0, bytes);
			MPI_Reduce(in, r == root ? a : NULL, n, t->t, ops[oi].op, root, comm);
			if (!bad && r == root && memcmp(a, b, bytes))
				bad = "MPI_Reduce";
			memcpy(a, in, bytes);
			MPI_Reduce(r == root ? MPI_IN_PLACE : in, r == root ? a : NULL,
				   n, t->t, ops[oi].op, root, comm);
			if (!bad && r == root && memcmp(a, b, bytes))
				bad = "MPI_Reduce in place";
			fill(t, ops[oi].op, b, n, r);	/* sendbuf is input only */
			if (!bad && memcmp(in, b, bytes))
				bad = "a send buffer (written)";
			free(in), free(a), free(b);
		}
		check(!bad, "%s: MPI_Allreduce, MPI_Reduce (in place too) %s %s x1..%zu%s%s",
		      cname, t->name, ops[oi].name, counts[NCOUNTS - 1],
		      bad ? ": differs in " : "", bad ? bad : "");
	}
}

/* MINLOC/MAXLOC on the (value, int) pairs. */
struct di { double v; int i; };
struct fi { float v; int i; };
struct li { long v; int i; };
struct ii { int v; int i; };

#define LOC_CHECK(ST, MT, N) do {					\
	ST in[N], a[N], b[N];						\
	int k, good = 1;						\
	for (k = 0; k < N; k++) {					\
		in[k].v = (rank * 7 + k * 3) % 5;			\
		in[k].i = rank;						\
	}								\
	for (int o = 0; o < 2; o++) {					\
		MPI_Op op = o ? MPI_MAXLOC : MPI_MINLOC;		\
		memset(a, 0, sizeof(a)); memset(b, 0, sizeof(b));	\
		MPI_Allreduce(in, a, N, MT, op, MPI_COMM_WORLD);	\
		PMPI_Allreduce(in, b, N, MT, op, MPI_COMM_WORLD);	\
		for (k = 0, good = 1; k < N; k++)			\
			good &= a[k].v == b[k].v && a[k].i == b[k].i;	\
		check(good, "MPI_Allreduce %s %s x%d", #MT,		\
		      o ? "MAXLOC" : "MINLOC", N);			\
	}								\
} while (0)

static void locs(void)
{
	LOC_CHECK(struct ii, MPI_2INT, 100);
	LOC_CHECK(struct fi, MPI_FLOAT_INT, 100);
	LOC_CHECK(struct di, MPI_DOUBLE_INT, 100);
	LOC_CHECK(struct li, MPI_LONG_INT, 100);
}

static void bcasts(MPI_Comm comm, const char *cname)
{
	static const size_t sizes[] = { 1, 1000, 100000, 1 << 20 };
	size_t si, i;
	int root, r, n, good;
	char *buf;

	MPI_Comm_rank(comm, &r);
	MPI_Comm_size(comm, &n);
	/* one check per size: communicators of different sizes call alike */
	for (si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
		buf = malloc(sizes[si]);
		for (root = 0, good = 1; root < n; root++) {
			for (i = 0; i < sizes[si]; i++)
				buf[i] = r == root ? (char)(i * 13 + root) : 0;
			MPI_Bcast(buf, sizes[si], MPI_BYTE, root, comm);
			for (i = 0; i < sizes[si]; i++)
				good &= buf[i] == (char)(i * 13 + root);
		}
		check(good, "%s: MPI_Bcast %zu B from every root", cname, sizes[si]);
		free(buf);
	}
}

static void alltoalls(MPI_Comm comm, const char *cname)
{
	static const int counts2[] = { 1, 100, 3000 };
	size_t ci, bytes;
	int *s, *a, *b, i, rank, size;

	MPI_Comm_rank(comm, &rank);
	MPI_Comm_size(comm, &size);

	for (ci = 0; ci < sizeof(counts2) / sizeof(counts2[0]); ci++) {
		int c = counts2[ci];

		bytes = (size_t)c * size * sizeof(int);
		s = malloc(bytes), a = malloc(bytes), b = malloc(bytes);
		for (i = 0; i < c * size; i++)
			s[i] = rank * 100000 + i;
		MPI_Alltoall(s, c, MPI_INT, a, c, MPI_INT, comm);
		PMPI_Alltoall(s, c, MPI_INT, b, c, MPI_INT, comm);
		check(!memcmp(a, b, bytes), "%s: MPI_Alltoall MPI_INT x%d", cname, c);
		memcpy(a, s, bytes);
		MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, c, MPI_INT, comm);
		check(!memcmp(a, b, bytes), "%s: MPI_Alltoall in place MPI_INT x%d", cname, c);

		MPI_Allgather(s, c, MPI_INT, a, c, MPI_INT, comm);
		PMPI_Allgather(s, c, MPI_INT, b, c, MPI_INT, comm);
		check(!memcmp(a, b, bytes), "%s: MPI_Allgather MPI_INT x%d", cname, c);
		memset(a, 0, bytes);
		memcpy(a + (size_t)c * rank, s, c * sizeof(int));
		MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, c, MPI_INT, comm);
		check(!memcmp(a, b, bytes), "%s: MPI_Allgather in place MPI_INT x%d", cname, c);

		MPI_Reduce_scatter_block(s, a, c, MPI_INT, MPI_SUM, comm);
		PMPI_Reduce_scatter_block(s, b, c, MPI_INT, MPI_SUM, comm);
		check(!memcmp(a, b, c * sizeof(int)), "%s: MPI_Reduce_scatter_block MPI_INT SUM x%d", cname, c);
		memcpy(a, s, bytes);
		MPI_Reduce_scatter_block(MPI_IN_PLACE, a, c, MPI_INT, MPI_SUM, comm);
		check(!memcmp(a, b, c * sizeof(int)),
		      "%s: MPI_Reduce_scatter_block in place MPI_INT SUM x%d", cname, c);
		free(s), free(a), free(b);
	}
}

/* A user op: sum plus one per combination (P - 1 of them). */
static void sum_plus_one(void *in, void *inout, int *len, MPI_Datatype *t)
{
	int *x = in, *y = inout, i;

	for (i = 0; i < *len; i++)
		y[i] += x[i] + 1;
}

/*
 * Communicators other than MPI_COMM_WORLD's congruent ones: a split in two
 * halves, its duplicate, the world in reverse order (the same group,
 * another rank order), more split-and-free cycles than the interposer
 * keeps netcoll communicators for at once (each must be let go), and more
 * at once than it keeps.
 */
static void subcomms(void)
{
	MPI_Comm half, hdup, rev, tmp, live[17];
	int i, want, got, good = 1;

	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	reductions(half, "split", 0);
	bcasts(half, "split");
	alltoalls(half, "split");
	MPI_Comm_dup(half, &hdup);
	reductions(hdup, "split's dup", 0);
	MPI_Comm_free(&hdup);
	bcasts(half, "split after its dup's free");
	MPI_Comm_free(&half);

	MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
	reductions(rev, "reversed", 0);
	bcasts(rev, "reversed");
	alltoalls(rev, "reversed");
	MPI_Comm_free(&rev);

	for (i = 0; i < 40; i++) {
		MPI_Comm_split(MPI_COMM_WORLD, (rank + i) % 2, rank, &tmp);
		got = want = rank + i;
		MPI_Allreduce(MPI_IN_PLACE, &got, 1, MPI_INT, MPI_SUM, tmp);
		PMPI_Allreduce(MPI_IN_PLACE, &want, 1, MPI_INT, MPI_SUM, tmp);
		good &= got == want;
		MPI_Comm_free(&tmp);
	}
	check(good, "40 split, allreduce, free cycles");

	/* 17 halves at once: the interposer keeps 15, the last two go to MPI */
	for (i = 0, good = 1; i < 17; i++) {
		MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &live[i]);
		got = want = rank * i;
		MPI_Allreduce(MPI_IN_PLACE, &got, 1, MPI_INT, MPI_SUM, live[i]);
		PMPI_Allreduce(MPI_IN_PLACE, &want, 1, MPI_INT, MPI_SUM, live[i]);
		good &= got == want;
	}
	for (i = 0; i < 17; i++)
		MPI_Comm_free(&live[i]);
	check(good, "17 split communicators at once");
}

/*
 * The communicators "mpi_check reductions" adds to the world and its
 * duplicate: each shape of communicator goes by its own measurements.
 */
static void tuned_shapes(void)
{
	MPI_Comm rev, half;

	MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
	reductions(rev, "reversed", 0);
	MPI_Comm_free(&rev);
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	reductions(half, "split", 0);
	MPI_Comm_free(&half);
	MPI_Comm_split(MPI_COMM_WORLD, (rank + 1) % 2, rank, &half);
	reductions(half, "split again", 0);
	MPI_Comm_free(&half);
}

/* What netcoll does not take: MPI must, and right. */
static void fallbacks(void)
{
	MPI_Datatype vec;
	MPI_Op uop;
	int buf[20], a[4], i, good;

	MPI_Type_vector(10, 1, 2, MPI_INT, &vec);
	MPI_Type_commit(&vec);
	for (i = 0; i < 20; i++)
		buf[i] = rank == 1 ? i : -1;
	MPI_Bcast(buf, 1, vec, 1, MPI_COMM_WORLD);
	for (i = 0, good = 1; i < 20; i++)
		good &= buf[i] == (i % 2 ? (rank == 1 ? i : -1) : i);
	check(good, "MPI_Bcast of a vector type (MPI's)");
	MPI_Type_free(&vec);

	MPI_Op_create(sum_plus_one, 1, &uop);
	for (i = 0; i < 4; i++)
		a[i] = rank - i;
	MPI_Allreduce(MPI_IN_PLACE, a, 4, MPI_INT, uop, MPI_COMM_WORLD);
	for (i = 0, good = 1; i < 4; i++) {
		int want = size - 1, r;

		for (r = 0; r < size; r++)
			want += r - i;
		good &= a[i] == want;
	}
	check(good, "MPI_Allreduce with a user op (MPI's)");
	MPI_Op_free(&uop);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

/* The last rank, then rank 0, enters ms after the others. */
static void late(long ms)
{
	int sum = 0, good, i, *out, *in;
	double t0;

	in = malloc(2 * size * sizeof(int));
	out = in + size;
	t0 = MPI_Wtime();
	if (rank == size - 1)
		sleep_ms(ms);
	MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	check(sum == size * (size - 1) / 2, "MPI_Allreduce, rank %d %ld ms late (%.1f s at rank %d)",
	      size - 1, ms, MPI_Wtime() - t0, rank);
	for (i = 0; i < size; i++)
		in[i] = rank * size + i;
	t0 = MPI_Wtime();
	if (rank == 0)
		sleep_ms(ms);
	MPI_Alltoall(in, 1, MPI_INT, out, 1, MPI_INT, MPI_COMM_WORLD);
	for (i = 0, good = 1; i < size; i++)
		good &= out[i] == i * size + rank;
	check(good, "MPI_Alltoall, rank 0 %ld ms late (%.1f s at rank %d)",
	      ms, MPI_Wtime() - t0, rank);
	free(in);
}

int main(int argc, char **argv)
{
	MPI_Comm dup;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	MPI_Barrier(MPI_COMM_WORLD);
	check(1, "MPI_Barrier");
	if (argc > 1 && !strcmp(argv[1], "quick")) {
		alltoalls(MPI_COMM_WORLD, "world");	/* the alltoall-shaped calls only */
		goto out;
	}
	if (argc > 1 && !strcmp(argv[1], "reductions")) {
		reductions(MPI_COMM_WORLD, "world", 1);
		MPI_Comm_dup(MPI_COMM_WORLD, &dup);
		reductions(dup, "dup", 0);
		MPI_Comm_free(&dup);
		tuned_shapes();
		goto out;
	}
	if (argc > 2 && !strcmp(argv[1], "late")) {
		late(atol(argv[2]));
		goto out;
	}
	reductions(MPI_COMM_WORLD, "world", 1);
	locs();
	bcasts(MPI_COMM_WORLD, "world");
	alltoalls(MPI_COMM_WORLD, "world");
	MPI_Comm_dup(MPI_COMM_WORLD, &dup);
	reductions(dup, "dup", 0);
	bcasts(dup, "dup");
	MPI_Barrier(dup);
	MPI_Comm_free(&dup);
	subcomms();
	fallbacks();
out:
	if (rank == 0)
		printf("mpi_check: %d ranks, %d checks, %d failed\n", size, checks, failed);
	MPI_Finalize();
	return failed ? 1 : 0;
}

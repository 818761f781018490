// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * NETCOLL_MPI_ALLREDUCE_TUNE=1: measure, on each communicator netcoll
 * takes, which path runs MPI_Allreduce of each size soonest -- the MPI
 * library's own, netcoll's aggregation trees, or netcoll's reduce-scatter
 * + allgather -- and send every later MPI_Allreduce on it the way its size
 * measured fastest.  NETCOLL_MPI_BCAST_TUNE=1: measure broadcasts down the
 * tree against multicast (nc_bcast_tune) the same way.
 *
 * Per shape of communicator, not once for the job: which way wins depends
 * on how many ranks and hosts take part (a half of the job's hosts has
 * shallower trees, and MPI's own algorithms change with the size).
 * MPI_COMM_WORLD is measured at MPI_Init; a communicator of its shape
 * (ranks and hosts) gets its results, and one of another shape is
 * measured at its first collective call.  Each process keeps the last
 * NCMPI_SHAPES shapes' results, so a program that splits the world into
 * rows again and again pays once: when every rank of a new communicator
 * has its shape's results, all take its rank 0's.
 *
 * Why measured and not fixed: which wins depends on the cluster (its
 * links, how many ranks share a host's CPUs), on the MPI library's own
 * transport and on how its waiting ranks wait.  On the emulated two-switch
 * cluster netcoll's trees win small vectors by far, and lose 32-128 KiB
 * to Open MPI when its ranks yield the CPU (docs/apps-bench.md): a
 * program should get whichever is faster where it runs.  Open MPI ships
 * such decisions as rules tuned offline (coll/tuned), Intel MPI measures
 * them at run time (its autotuner); nc_bcast_tune() does the same for
 * broadcasts.
 *
 * Every rank runs the same calls in the same order (the sizes are a fixed
 * list, the iteration counts derive from agreed times), so the collective
 * calls stay in step; each set is timed on each rank from a barrier to
 * its last call, and one PMPI_Allreduce (MPI_MAX) gives every rank the
 * slowest rank's times, so every rank derives the same table from the
 * same bits -- which every call's decision needs (collectives.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <linux/netcoll.h>

#include "netcoll_mpi.h"

/* A set of calls lasts about this long, within these iteration counts. */
#define TUNE_SET_US	100000.0
#define TUNE_ITERS_MIN	2
#define TUNE_ITERS_MAX	50
/* Each path's set runs this often, in turn: in order, then reversed. */
#define TUNE_ROUNDS	2

/* 8 B to 2 MiB by fours (NCMPI_TUNE_SIZES of them). */
static size_t tune_size(int i)
{
	return (size_t)8 << (2 * i);
}

static const char *const tune_path_names[] = {
	[NCMPI_PATH_MPI]	= "MPI",
	[NCMPI_PATH_TREES]	= "trees",
	[NCMPI_PATH_RSAG]	= "RS+AG",
};

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* One call of count doubles (MPI_SUM) on comm (c) by path: 0 or -errno. */
static int tune_call(MPI_Comm comm, struct ncmpi_comm *c, enum ncmpi_path path,
		     const double *s, double *r, int count)
{
	int err;

	if (path == NCMPI_PATH_MPI)
		return PMPI_Allreduce(s, r, count, MPI_DOUBLE, MPI_SUM,
				      comm) == MPI_SUCCESS ? 0 : -EIO;
	err = ncmpi_allreduce_on(c, s, r, count, MPI_DOUBLE, MPI_SUM, path);
	return err > 0 ? -EIO : err;	/* an MPI error of the host's step */
}

/*
 * A call failed while measuring: the job ends.  The ranks cannot agree to
 * go on without netcoll (ncmpi_bcast_tune() does, after a library call
 * that fails on every rank alike): the others may be inside a call that
 * waits for this rank, or past it, in the next set's collectives, which
 * whatever this rank called next would be matched with.  So even under an
 * error handler that returns (MPI-4's initial one may), PMPI_Abort.
 */
static void tune_abort(int err)
{
	fprintf(stderr, "netcoll-mpi: rank %d: measuring (NETCOLL_MPI_ALLREDUCE_TUNE): %s\n",
		ncmpi.rank, nc_strerror(err));
	PMPI_Abort(MPI_COMM_WORLD, 1);
	abort();	/* PMPI_Abort does not return */
}

/* iters calls after a barrier: this rank's time (us). */
static double tune_set(MPI_Comm comm, struct ncmpi_comm *c,
		       enum ncmpi_path path, const double *s, double *r,
		       int count, int iters)
{
	double t0;
	int i, err;

	if (PMPI_Barrier(comm) != MPI_SUCCESS)
		tune_abort(-EIO);
	t0 = now_us();
	for (i = 0; i < iters; i++) {
		err = tune_call(comm, c, path, s, r, count);
		if (err)
			tune_abort(err);
	}
	return now_us() - t0;
}

/* The slowest rank's times: the same n values on every rank. */
static void tune_max(MPI_Comm comm, double *t, int n)
{
	if (PMPI_Allreduce(MPI_IN_PLACE, t, n, MPI_DOUBLE, MPI_MAX,
			   comm) != MPI_SUCCESS)
		tune_abort(-EIO);
}

/*
 * One size: a call of each path (the slowest sets the iteration count),
 * then TUNE_ROUNDS sets of each, in turn; us[path]: its time per call, the
 * slowest rank's.
 */
static void tune_one(MPI_Comm comm, struct ncmpi_comm *c, const double *s,
		     double *r, int count, double us[NCMPI_PATHS])
{
	double t[NCMPI_PATHS], first = 0, n;
	int p, q, round, iters;

	for (p = NCMPI_PATH_MPI; p < NCMPI_PATHS; p++) {
		t[p] = tune_set(comm, c, p, s, r, count, 1);
		us[p] = 0;
	}
	tune_max(comm, t, NCMPI_PATHS);
	for (p = NCMPI_PATH_MPI; p < NCMPI_PATHS; p++)
		first = t[p] > first ? t[p] : first;
	n = first > 0 ? TUNE_SET_US / first : TUNE_ITERS_MAX;
	iters = n < TUNE_ITERS_MIN ? TUNE_ITERS_MIN :
		n > TUNE_ITERS_MAX ? TUNE_ITERS_MAX : (int)n;
	for (round = 0; round < TUNE_ROUNDS; round++) {
		for (q = 0; q < NCMPI_PATHS; q++) {
			double u;

			p = round % 2 ? NCMPI_PATHS - 1 - q : q;
			u = tune_set(comm, c, p, s, r, count, iters);
			us[p] += u / (iters * TUNE_ROUNDS);
		}
	}
	tune_max(comm, us, NCMPI_PATHS);
}

/* What rank 0 says of a measurement: "" for the world, else which communicator. */
static const char *tune_whose(const struct ncmpi_comm *c)
{
	static char whose[64];

	if (c == &ncmpi.world)
		return "";
	snprintf(whose, sizeof(whose), "a communicator of %d ranks on %d hosts: ",
		 c->size, c->hosts);
	return whose;
}

static void tune_say(const struct ncmpi_comm *c, const double us[NCMPI_PATHS],
		     size_t bytes, enum ncmpi_path best)
{
	fprintf(stderr, "netcoll-mpi: %sMPI_Allreduce of %zu bytes (ms per call, MPI / trees / RS+AG): %.3f / %.3f / %.3f: %s\n",
		tune_whose(c), bytes, us[NCMPI_PATH_MPI] / 1e3,
		us[NCMPI_PATH_TREES] / 1e3, us[NCMPI_PATH_RSAG] / 1e3,
		tune_path_names[best]);
}

/*
 * Measure c->tune.path[] on comm: 0, or an error every rank returns (no
 * memory); a failed call aborts.
 */
static int tune_allreduce(MPI_Comm comm, struct ncmpi_comm *c)
{
	size_t max = tune_size(NCMPI_TUNE_SIZES - 1), j;
	double *s, *r, us[NCMPI_PATHS];
	int i, p, err;

	s = malloc(max);
	r = malloc(max);
	err = ncmpi_agree(comm, s && r ? 0 : -ENOMEM);
	for (j = 0; !err && j < max / sizeof(*s); j++)
		s[j] = (double)(c->rank + 1) / (j % 7 + 1);
	for (i = 0; !err && i < NCMPI_TUNE_SIZES; i++) {
		enum ncmpi_path best = NCMPI_PATH_MPI;

		tune_one(comm, c, s, r, tune_size(i) / sizeof(*s), us);
		for (p = NCMPI_PATH_MPI + 1; p < NCMPI_PATHS; p++)
			if (us[p] < us[best])
				best = p;
		c->tune.path[i] = best;
		if (c->rank == 0 && ncmpi.verbose)
			tune_say(c, us, tune_size(i), best);
	}
	free(s);
	free(r);
	if (!err)
		c->tune.allreduce = 1;
	return err;
}

/*
 * Measure c->tune.mcast[] on comm: its netcoll members (the hosts'
 * leaders) time broadcasts down the tree against multicast
 * (nc_bcast_tune), and every rank learns the sizes where multicast won
 * from comm's rank 0 (it leads its host).  0 on every rank, or an error
 * on every rank.
 */
static int tune_bcast(MPI_Comm comm, struct ncmpi_comm *c)
{
	struct nc_bcast_tune t = { .mcast_min = SIZE_MAX, .mcast_max = SIZE_MAX };
	unsigned long long range[2];
	size_t *m = c->tune.mcast;
	int err = 0, i;

	if (c->ep)
		err = nc_bcast_tune(c->ep, &t);
	err = ncmpi_agree(comm, err);
	if (err)
		return err;
	range[0] = t.mcast_min;
	range[1] = t.mcast_max;
	if (PMPI_Bcast(range, 2, MPI_UNSIGNED_LONG_LONG, 0, comm) != MPI_SUCCESS)
		return -EIO;
	for (i = 0; i < 2; i++)
		m[i] = range[i] > SIZE_MAX ? SIZE_MAX : (size_t)range[i];
	c->tune.bcast = 1;
	if (c->rank != 0 || !ncmpi.verbose)
		return 0;
	if (m[0] >= m[1])
		fprintf(stderr, "netcoll-mpi: %sbroadcasts multicast: never (measured)\n",
			tune_whose(c));
	else if (m[1] == SIZE_MAX)
		fprintf(stderr, "netcoll-mpi: %sbroadcasts multicast: from %zu bytes (measured)\n",
			tune_whose(c), m[0]);
	else
		fprintf(stderr, "netcoll-mpi: %sbroadcasts multicast: %zu to %zu bytes (measured)\n",
			tune_whose(c), m[0], m[1] - 1);
	return 0;
}

/* The kept results of c's shape, or NULL. */
static struct ncmpi_shape *tune_shape(const struct ncmpi_comm *c)
{
	int i;

	for (i = 0; i < NCMPI_SHAPES; i++)
		if (ncmpi.shapes[i].size == c->size &&
		    ncmpi.shapes[i].hosts == c->hosts)
			return &ncmpi.shapes[i];
	return NULL;
}

/* Keep c's results for its shape, in place of the oldest kept. */
static void tune_keep(const struct ncmpi_comm *c)
{
	static unsigned int next;
	struct ncmpi_shape *sh = tune_shape(c);

	if (!sh)
		sh = &ncmpi.shapes[next++ % NCMPI_SHAPES];
	sh->size = c->size;
	sh->hosts = c->hosts;
	sh->tune = c->tune;
}

/*
 * Every rank of comm kept results for c's shape: all take rank 0's (the
 * ranks may have measured them on different communicators) and return 1;
 * else 0, alike on every rank.  The ranks run one build of this library,
 * so the struct goes as bytes.
 */
static int tune_known(MPI_Comm comm, struct ncmpi_comm *c)
{
	struct ncmpi_shape *sh = tune_shape(c);
	int have = sh != NULL, all = 0;

	if (PMPI_Allreduce(&have, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
		tune_abort(-EIO);
	if (!all)
		return 0;
	if (c->rank == 0)
		c->tune = sh->tune;
	if (PMPI_Bcast(&c->tune, sizeof(c->tune), MPI_BYTE, 0, comm) != MPI_SUCCESS)
		tune_abort(-EIO);
	return 1;
}

/* NETCOLL_MPI_ALLREDUCE_TUNE and NETCOLL_MPI_BCAST_TUNE: "", "0" or unset: off. */
void ncmpi_tune_env(void)
{
	const char *a = getenv("NETCOLL_MPI_ALLREDUCE_TUNE");
	const char *b = getenv("NETCOLL_MPI_BCAST_TUNE");

	ncmpi.tune_allreduce = a && *a && strcmp(a, "0");
	ncmpi.tune_bcast = b && *b && strcmp(b, "0");
}

/*
 * c, just made for comm (every rank of comm is here): its measured
 * results, from the world (same shape), from an earlier communicator of
 * its shape, or measured now.  0 on every rank, or an error on every rank
 * (c is then unusable).
 */
int ncmpi_tune(MPI_Comm comm, struct ncmpi_comm *c)
{
	const struct ncmpi_comm *w = &ncmpi.world;
	int err = 0;

	if (!ncmpi.tune_allreduce && !ncmpi.tune_bcast)
		return 0;	/* the same environment on every rank */
	if (c != w && c->size == w->size && c->hosts == w->hosts) {
		c->tune = w->tune;	/* every rank has the world's */
	} else if (c == w || !tune_known(comm, c)) {
		if (ncmpi.tune_bcast)
			err = tune_bcast(comm, c);
		if (!err && ncmpi.tune_allreduce)
			err = tune_allreduce(comm, c);
		if (!err && c != w)
			tune_keep(c);
	}
	if (!err && c->ep && c->tune.bcast)
		err = nc_set_bcast_mcast(c->ep, c->tune.mcast[0], c->tune.mcast[1]);
	return ncmpi_agree(comm, err);
}

enum ncmpi_path ncmpi_allreduce_path(const struct ncmpi_comm *c, size_t bytes)
{
	int i = 0;

	if (!c->tune.allreduce)
		return NCMPI_PATH_LIB;
	/* the measured size nearest in ratio: they are four times apart */
	while (i < NCMPI_TUNE_SIZES - 1 && bytes >= 2 * tune_size(i))
		i++;
	return c->tune.path[i];
}

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * NETCOLL_MPI_ALLREDUCE_TUNE=1: at MPI_Init, on MPI_COMM_WORLD, measure
 * which path runs MPI_Allreduce of each size soonest -- the MPI library's
 * own, netcoll's aggregation trees, or netcoll's reduce-scatter +
 * allgather -- and send every later MPI_Allreduce (on any communicator)
 * the way its size measured fastest.
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

/* One call of count doubles (MPI_SUM) on MPI_COMM_WORLD by path: 0 or -errno. */
static int tune_call(enum ncmpi_path path, const double *s, double *r, int count)
{
	int err;

	if (path == NCMPI_PATH_MPI)
		return PMPI_Allreduce(s, r, count, MPI_DOUBLE, MPI_SUM,
				      MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -EIO;
	err = ncmpi_allreduce_on(&ncmpi.world, s, r, count, MPI_DOUBLE,
				 MPI_SUM, path);
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
	fprintf(stderr, "netcoll-mpi: rank %d: MPI_Init (NETCOLL_MPI_ALLREDUCE_TUNE): %s\n",
		ncmpi.rank, nc_strerror(err));
	PMPI_Abort(MPI_COMM_WORLD, 1);
	abort();	/* PMPI_Abort does not return */
}

/* iters calls after a barrier: this rank's time (us). */
static double tune_set(enum ncmpi_path path, const double *s, double *r,
		       int count, int iters)
{
	double t0;
	int i, err;

	if (PMPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS)
		tune_abort(-EIO);
	t0 = now_us();
	for (i = 0; i < iters; i++) {
		err = tune_call(path, s, r, count);
		if (err)
			tune_abort(err);
	}
	return now_us() - t0;
}

/* The slowest rank's times: the same n values on every rank. */
static void tune_max(double *t, int n)
{
	if (PMPI_Allreduce(MPI_IN_PLACE, t, n, MPI_DOUBLE, MPI_MAX,
			   MPI_COMM_WORLD) != MPI_SUCCESS)
		tune_abort(-EIO);
}

/*
 * One size: a call of each path (the slowest sets the iteration count),
 * then TUNE_ROUNDS sets of each, in turn; us[path]: its time per call, the
 * slowest rank's.
 */
static void tune_one(const double *s, double *r, int count,
		     double us[NCMPI_PATHS])
{
	double t[NCMPI_PATHS], first = 0, n;
	int p, q, round, iters;

	for (p = NCMPI_PATH_MPI; p < NCMPI_PATHS; p++) {
		t[p] = tune_set(p, s, r, count, 1);
		us[p] = 0;
	}
	tune_max(t, NCMPI_PATHS);
	for (p = NCMPI_PATH_MPI; p < NCMPI_PATHS; p++)
		first = t[p] > first ? t[p] : first;
	n = first > 0 ? TUNE_SET_US / first : TUNE_ITERS_MAX;
	iters = n < TUNE_ITERS_MIN ? TUNE_ITERS_MIN :
		n > TUNE_ITERS_MAX ? TUNE_ITERS_MAX : (int)n;
	for (round = 0; round < TUNE_ROUNDS; round++) {
		for (q = 0; q < NCMPI_PATHS; q++) {
			double u;

			p = round % 2 ? NCMPI_PATHS - 1 - q : q;
			u = tune_set(p, s, r, count, iters);
			us[p] += u / (iters * TUNE_ROUNDS);
		}
	}
	tune_max(us, NCMPI_PATHS);
}

static void tune_say(const double us[NCMPI_PATHS], size_t bytes,
		     enum ncmpi_path best)
{
	fprintf(stderr, "netcoll-mpi: MPI_Allreduce of %zu bytes (ms per call, MPI / trees / RS+AG): %.3f / %.3f / %.3f: %s\n",
		bytes, us[NCMPI_PATH_MPI] / 1e3, us[NCMPI_PATH_TREES] / 1e3,
		us[NCMPI_PATH_RSAG] / 1e3, tune_path_names[best]);
}

/*
 * Measure and fill ncmpi.allreduce_path[] (NETCOLL_MPI_ALLREDUCE_TUNE set):
 * 0, or an error every rank returns (no memory); a failed call aborts.
 */
int ncmpi_allreduce_tune(void)
{
	const char *env = getenv("NETCOLL_MPI_ALLREDUCE_TUNE");
	size_t max = tune_size(NCMPI_TUNE_SIZES - 1), j;
	double *s, *r, us[NCMPI_PATHS];
	int i, p, err;

	if (!env || !*env || !strcmp(env, "0"))
		return 0;	/* the same environment on every rank */
	s = malloc(max);
	r = malloc(max);
	err = ncmpi_agree(MPI_COMM_WORLD, s && r ? 0 : -ENOMEM);
	for (j = 0; !err && j < max / sizeof(*s); j++)
		s[j] = (double)(ncmpi.rank + 1) / (j % 7 + 1);
	for (i = 0; !err && i < NCMPI_TUNE_SIZES; i++) {
		enum ncmpi_path best = NCMPI_PATH_MPI;

		tune_one(s, r, tune_size(i) / sizeof(*s), us);
		for (p = NCMPI_PATH_MPI + 1; p < NCMPI_PATHS; p++)
			if (us[p] < us[best])
				best = p;
		ncmpi.allreduce_path[i] = best;
		if (ncmpi.rank == 0 && ncmpi.verbose)
			tune_say(us, tune_size(i), best);
	}
	free(s);
	free(r);
	if (!err)
		ncmpi.allreduce_tuned = 1;
	return err;
}

enum ncmpi_path ncmpi_allreduce_path(size_t bytes)
{
	int i = 0;

	if (!ncmpi.allreduce_tuned)
		return NCMPI_PATH_LIB;
	/* the measured size nearest in ratio: they are four times apart */
	while (i < NCMPI_TUNE_SIZES - 1 && bytes >= 2 * tune_size(i))
		i++;
	return ncmpi.allreduce_path[i];
}

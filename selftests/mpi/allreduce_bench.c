// SPDX-License-Identifier: GPL-2.0
/*
 * allreduce_bench: MPI_Allreduce latency by size, OSU-style, for running
 * the same binary with and without libnetcoll-mpi.so side by side.
 *
 *   allreduce_bench [SIZE ...]     (bytes; default 8 B to 4 MiB by 4x)
 *
 * Each iteration starts from the MPI library's own barrier (PMPI_, so
 * the barrier is the same in every mode) and is as long as its slowest
 * rank; rank 0 prints per size "allreduce BYTES p50_us max_us ITERS" and
 * checks the result (sums of small integers, exact in any order).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Not MPI_Wtime(): Open MPI counts that from each process's own start. */
static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(double), cmp);
	return v[n / 2];
}

int main(int argc, char **argv)
{
	static const long def[] = { 8, 32, 128, 512, 2048, 8192, 32768, 131072,
				    524288, 1048576, 4194304 };
	long sizes[32];
	int nsizes = 0, rank, size, s, i, it, iters, bad = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (i = 1; i < argc && nsizes < 32; i++)
		sizes[nsizes++] = atol(argv[i]);
	if (!nsizes)
		for (; nsizes < (int)(sizeof(def) / sizeof(def[0])); nsizes++)
			sizes[nsizes] = def[nsizes];
	for (s = 0; s < nsizes; s++) {
		long n = sizes[s] / 8 > 0 ? sizes[s] / 8 : 1;
		double *in = malloc(n * sizeof(double)), *out = malloc(n * sizeof(double));
		double *t, *tmax, *t0s, *ends, *lo0, *hi0, *lo1, *hi1;

		iters = sizes[s] <= 65536 ? 40 : sizes[s] <= 1048576 ? 15 : 8;
		t = calloc(iters, sizeof(double));
		tmax = calloc(iters, sizeof(double));
		t0s = calloc(iters, sizeof(double));
		ends = calloc(iters, sizeof(double));
		lo0 = calloc(iters, sizeof(double));
		hi0 = calloc(iters, sizeof(double));
		lo1 = calloc(iters, sizeof(double));
		hi1 = calloc(iters, sizeof(double));
		for (i = 0; i < n; i++)
			in[i] = (double)((rank + i) % 13);
		for (it = -2; it < iters; it++) {	/* two untimed */
			double t0, m0;

			PMPI_Barrier(MPI_COMM_WORLD);
			m0 = mono();
			t0 = MPI_Wtime();
			MPI_Allreduce(in, out, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
			if (it >= 0) {
				t[it] = MPI_Wtime() - t0;
				ends[it] = mono();
				t0s[it] = m0;
			}
		}
		for (i = 0; i < n; i++) {
			long want = 0, r;

			for (r = 0; r < size; r++)
				want += (r + i) % 13;
			bad += out[i] != (double)want;
		}
		PMPI_Reduce(t, tmax, iters, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
		PMPI_Reduce(t0s, lo0, iters, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
		PMPI_Reduce(t0s, hi0, iters, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
		PMPI_Reduce(ends, lo1, iters, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
		PMPI_Reduce(ends, hi1, iters, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
		if (rank == 0) {
			qsort(tmax, iters, sizeof(double), cmp);
			printf("allreduce %ld %.1f %.1f %d\n", n * 8,
			       tmax[iters / 2] * 1e6, tmax[iters - 1] * 1e6, iters);
			/* t0s and ends: each phase's length, in place */
			for (it = iters - 1; it >= 0; it--) {
				if (it)	/* the barrier after operation it - 1 */
					t0s[it - 1] = hi0[it] - hi1[it - 1];
				ends[it] = hi1[it] - lo1[it];	/* the ends' spread */
				hi1[it] -= hi0[it];	/* after the last start */
				hi0[it] -= lo0[it];	/* the starts' spread */
			}
			printf("phases %ld %.1f %.1f %.1f %.1f\n", n * 8,
			       median(hi0, iters) * 1e6, median(hi1, iters) * 1e6,
			       median(ends, iters) * 1e6,
			       iters > 1 ? median(t0s, iters - 1) * 1e6 : 0.0);
			fflush(stdout);
		}
		free(in), free(out), free(t), free(tmax);
		free(t0s), free(ends), free(lo0), free(hi0), free(lo1), free(hi1);
	}
	PMPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("allreduce_bench: %s\n", bad ? "WRONG RESULTS" : "results right");
	MPI_Finalize();
	return bad ? 1 : 0;
}

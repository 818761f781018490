// SPDX-License-Identifier: GPL-2.0
/*
 * fft_check: a 3-D complex FFT through FFTW's MPI interface (its
 * transposes are MPI collectives), checked against a serial FFTW
 * transform of the whole array on every rank.  Prints the maximum error
 * and a checksum of the distributed result's bits (the same with and
 * without libnetcoll-mpi.so: alltoall moves bytes unchanged) and the wall
 * time of the transforms; exits 1 if the error is too large.
 *
 *   fft_check [N [ITERS]]     (N^3 points, default 32, 10 iterations)
 */
#include <fftw3-mpi.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double input(ptrdiff_t i, ptrdiff_t j, ptrdiff_t k, int part)
{
	return part ? cos(0.3 * i + 0.1 * j * k) : sin(0.7 * i * j + 0.2 * k) + 0.01 * k;
}

int main(int argc, char **argv)
{
	ptrdiff_t n = argc > 1 ? atol(argv[1]) : 32, alloc, n0, s0, i, j, k;
	int iters = argc > 2 ? atoi(argv[2]) : 10, rank, size, it, bad;
	fftw_complex *data, *full;
	fftw_plan plan, serial;
	double err = 0, mag = 0, t0, t1, all_err;
	uint64_t sum = 0, all_sum;

	MPI_Init(&argc, &argv);
	fftw_mpi_init();
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	alloc = fftw_mpi_local_size_3d(n, n, n, MPI_COMM_WORLD, &n0, &s0);
	data = fftw_alloc_complex(alloc);
	full = fftw_alloc_complex(n * n * n);
	plan = fftw_mpi_plan_dft_3d(n, n, n, data, data, MPI_COMM_WORLD,
				    FFTW_FORWARD, FFTW_ESTIMATE);
	serial = fftw_plan_dft_3d(n, n, n, full, full, FFTW_FORWARD, FFTW_ESTIMATE);

	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	for (it = 0; it < iters; it++) {
		for (i = 0; i < n0; i++)
			for (j = 0; j < n; j++)
				for (k = 0; k < n; k++) {
					ptrdiff_t x = (i * n + j) * n + k;

					data[x][0] = input(s0 + i, j, k, 0);
					data[x][1] = input(s0 + i, j, k, 1);
				}
		fftw_execute(plan);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	t1 = MPI_Wtime();

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			for (k = 0; k < n; k++) {
				ptrdiff_t x = (i * n + j) * n + k;

				full[x][0] = input(i, j, k, 0);
				full[x][1] = input(i, j, k, 1);
			}
	fftw_execute(serial);
	for (i = 0; i < n0; i++)
		for (j = 0; j < n; j++)
			for (k = 0; k < n; k++) {
				ptrdiff_t x = (i * n + j) * n + k;
				ptrdiff_t y = ((s0 + i) * n + j) * n + k;
				uint64_t b[2];

				err = fmax(err, hypot(data[x][0] - full[y][0],
						      data[x][1] - full[y][1]));
				mag = fmax(mag, hypot(full[y][0], full[y][1]));
				memcpy(b, data[x], sizeof(b));
				sum = sum * 1099511628211ULL ^ b[0] ^ (b[1] << 1);
			}
	err = mag > 0 ? err / mag : err;
	MPI_Allreduce(&err, &all_err, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	MPI_Allreduce(&sum, &all_sum, 1, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);
	bad = !(all_err < 1e-10);
	if (rank == 0)
		printf("fft_check: %td^3 on %d ranks, %d transforms in %.3f s, "
		       "max relative error %.3g, checksum %016llx: %s\n",
		       n, size, iters, t1 - t0, all_err,
		       (unsigned long long)all_sum, bad ? "FAILED" : "ok");
	fftw_destroy_plan(plan);
	fftw_destroy_plan(serial);
	fftw_free(data);
	fftw_free(full);
	fftw_mpi_cleanup();
	MPI_Finalize();
	return bad;
}

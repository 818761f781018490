// SPDX-License-Identifier: BSD-2-Clause
/*
 * ncbench: the clock and the latency distribution of a set of samples.
 */
#include <stdlib.h>
#include <time.h>

#include "ncbench.h"

double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted samples. */
double percentile(const double *v, uint64_t n, double p)
{
	uint64_t k = (uint64_t)(p * (double)n + 0.999999);

	return v[k ? k - 1 : 0];
}

/* Sorts lat in place. */
void summarize(double *lat, uint64_t n, struct result *r)
{
	double sum = 0;
	uint64_t i;

	for (i = 0; i < n; i++)
		sum += lat[i];
	qsort(lat, n, sizeof(*lat), cmp_double);
	r->iters = n;
	r->min = lat[0];
	r->p25 = percentile(lat, n, 0.25);
	r->p50 = percentile(lat, n, 0.50);
	r->p75 = percentile(lat, n, 0.75);
	r->p99 = percentile(lat, n, 0.99);
	r->max = lat[n - 1];
	r->mean = sum / (double)n;
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * The reduction latency model of Yu, Buntinas, Graham and Panda (SC'03,
 * section 5.2): the time of an f-nomial reduction is that of its root,
 * which waits ceil(log_f P) message latencies and processes
 * (f - 1) floor(log_f P) children of full phases plus those of a last,
 * partial phase.  Also the least-squares fit of the serial reduction
 * (section 5.1) that gives r + c and C + L from measurements.
 */
#include <errno.h>
#include <math.h>

#include "netcoll.h"
#include "netcoll_plan.h"

/*
 * floor(log_f P) and f^floor(log_f P), in integers: a floating log can
 * land just below k for P = f^k and lose a whole phase.
 */
static uint32_t floor_log(uint32_t P, uint32_t f, uint64_t *power)
{
	uint64_t pw = 1;
	uint32_t k = 0;

	while (pw * f <= P) {
		pw *= f;
		k++;
	}
	*power = pw;
	return k;
}

double nc_model_fnomial(const struct nc_model *m, uint32_t P, uint32_t f)
{
	uint32_t full, phases;
	uint64_t pw, last;

	if (!m || P == 0 || f < 2)
		return NAN;
	full = floor_log(P, f, &pw);
	phases = full + (pw != P);		/* ceil(log_f P) */
	/* ceil(P / f^full - 1): children of the last, partial phase */
	last = (P + pw - 1) / pw - 1;
	return m->C + m->L * phases +
	       (m->r + m->c) * ((double)(f - 1) * full + (double)last);
}

uint32_t nc_model_best_degree(const struct nc_model *m, uint32_t P,
			      uint32_t fmax)
{
	uint32_t f, best = 2;
	double t, tbest;

	if (!m || P == 0)
		return 2;
	/* f >= P is one flat phase, the same T as f = P: stop there */
	if (fmax > P)
		fmax = P;
	tbest = nc_model_fnomial(m, P, 2);
	for (f = 3; f <= fmax; f++) {
		t = nc_model_fnomial(m, P, f);
		/* a tie within rounding goes to the smaller degree */
		if (t < tbest - 1e-12 * (tbest < 0 ? -tbest : tbest)) {
			tbest = t;
			best = f;
		}
	}
	return best;
}

/* T_serial(P) = (C + L) + (P - 1)(r + c): a line in x = P - 1. */
int nc_model_fit_serial(const uint32_t *P, const double *t, size_t n,
			double *slope, double *intercept)
{
	double mx = 0, mt = 0, sxx = 0, sxt = 0, dx;
	size_t i;

	if (!P || !t || !slope || !intercept || n < 2)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		mx += (double)P[i] - 1;
		mt += t[i];
	}
	mx /= (double)n;
	mt /= (double)n;
	/* centred sums: no cancellation for large P */
	for (i = 0; i < n; i++) {
		dx = (double)P[i] - 1 - mx;
		sxx += dx * dx;
		sxt += dx * (t[i] - mt);
	}
	if (sxx == 0)
		return -EINVAL;		/* one size only: no slope */
	*slope = sxt / sxx;
	*intercept = mt - *slope * mx;
	return 0;
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * Prisacari, Minkenberg, Rodriguez, Hoefler, "Bandwidth-optimal all-to-all
 * exchanges in fat tree networks": N phases in which every task sends one
 * message (to itself in one of them: that rank is idle, NC_TOPO_NONE).
 * Hosts are numbered in the variable base (M_1, ..., M_L), M_1 the least
 * significant digit, as the generators number them.
 */
#include <errno.h>

#include "sched.h"

/* N = M_1 * ... * M_L for a generated fat tree, 0 if t is not one. */
static uint32_t ft_size(const struct nc_topo *t)
{
	uint64_t n = 1;
	uint32_t l;

	if (!t->ft_levels || t->ft_levels > 8)
		return 0;
	for (l = 0; l < t->ft_levels; l++) {
		n *= t->ft_m[l];
		if (!n || n > UINT32_MAX)
			return 0;
	}
	return n == t->nhosts ? (uint32_t)n : 0;
}

/* Equation 1: B_min(l) = Pi_l - floor(Pi_l / (M_{l+1} ... M_L)). */
uint32_t nc_ft_bmin(const struct nc_topo *t, uint32_t level)
{
	uint32_t N, pi = 1, l;

	if (!t || !(N = ft_size(t)) || level > t->ft_levels)
		return 0;
	for (l = 0; l < level; l++)
		pi *= t->ft_m[l];
	return pi - pi / (N / pi);
}

/*
 * Equation 4 with sigma = (L, L-1, ..., 1): the phase and the source are
 * written in the base Theta = (M_L, ..., M_1) (Theta_1 least significant,
 * equation 2), added digit by digit modulo Theta_k, and digit k of the sum
 * is digit alpha_{L+1-k} of the destination in the base (M_1, ..., M_L).
 */
static uint32_t opt_dst(const struct nc_topo *t, uint32_t s, uint32_t ph)
{
	uint32_t L = t->ft_levels, k, d = 0;
	uint32_t weight[8];		/* weight[l - 1] = M_1 ... M_{l-1} */

	weight[0] = 1;
	for (k = 1; k < L; k++)
		weight[k] = weight[k - 1] * t->ft_m[k - 1];
	for (k = 1; k <= L; k++) {
		uint32_t theta = t->ft_m[L - k];	/* Theta_k = M_{L+1-k} */
		uint32_t a = (s % theta + ph % theta) % theta;

		s /= theta;
		ph /= theta;
		d += a * weight[L - k];			/* alpha_{L+1-k} */
	}
	return d;
}

int nc_sched_fattree(const struct nc_topo *t, enum nc_ft_pattern pat,
		     struct nc_a2a_plan *p)
{
	uint32_t N, ph, s, d;
	int err;

	if (!t || !p)
		return -EINVAL;
	N = ft_size(t);
	if (!N || (pat == NC_FT_XOR && (N & (N - 1))) ||
	    (pat != NC_FT_XOR && pat != NC_FT_LIN && pat != NC_FT_OPT))
		return -EINVAL;
	err = nc_a2a_plan_alloc(p, N, N);
	if (err)
		return err;
	for (ph = 0; ph < N; ph++) {
		for (s = 0; s < N; s++) {
			if (pat == NC_FT_XOR)
				d = s ^ ph;			/* section 2 */
			else if (pat == NC_FT_LIN)
				d = (uint32_t)(((uint64_t)s + ph) % N);	/* shift 0 */
			else
				d = opt_dst(t, s, ph);
			if (d != s && (err = nc_plan_put(p, ph, s, d)))
				return err;
		}
	}
	return nc_plan_seal(p);
}

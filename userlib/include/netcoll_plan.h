/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libnetcoll's planner: what every member computes the same way from the
 * same input, without the module: aggregation trees over a topology and
 * the reduction latency model that picks their degree.  netcoll.h installs
 * what these compute (nc_tree_install, nc_tree_install_fnomial,
 * nc_sched_install).
 *
 * Everything here is reentrant and keeps no state between calls.
 */
#ifndef NETCOLL_PLAN_H
#define NETCOLL_PLAN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

/*
 * f-nomial tree of degree f >= 2 (Yu, Buntinas, Graham, Panda, SC'03,
 * appendix A) over positions 0 .. size-1, position 0 the root;
 * order[v] is the rank placed at position v (NULL: rank v).  Writes
 * parents[rank].  Returns 0 or -EINVAL.
 */
int nc_tree_fnomial(uint32_t size, uint32_t degree, const uint32_t *order,
		    uint32_t *parents);

/*
 * Positions for a topology (cluster file or generator spec, rank r = its
 * r-th host): hosts are ordered switch by switch, depth first, so that
 * the f-nomial subtrees, which cover consecutive positions, stay under
 * one switch and partial results cross as few links as possible.
 * `rotate` shifts the root by that many positions (parallel trees).
 * topology NULL: rank order.  Returns 0 or -errno (-EINVAL when the
 * topology's host count is not size).
 */
int nc_tree_order_topo(const char *topology, uint32_t size, uint32_t rotate,
		       uint32_t *order);

/*
 * The reduction latency model of the same paper (section 5.2), in
 * microseconds: L message latency, r reception cost, c reduction cost
 * (for the message size and op at hand), C start-up overhead.
 *   T(P, f) = C + L ceil(log_f P) + (r + c)(f - 1) floor(log_f P)
 *             + (r + c) ceil(P / f^floor(log_f P) - 1)
 */
struct nc_model {
	double L, r, c, C;
};
double nc_model_fnomial(const struct nc_model *m, uint32_t P, uint32_t f);
/* The f in [2, fmax] with the least T(P, f); ties to the smaller f. */
uint32_t nc_model_best_degree(const struct nc_model *m, uint32_t P,
			      uint32_t fmax);
/*
 * Fit from serial reductions (flat trees, f = P) of n sizes P[i] taking
 * t[i] us: T_serial(P) = C + L + (P - 1)(r + c).  Gives the slope (r + c)
 * and the intercept (C + L); returns 0 or -EINVAL (fewer than 2 points).
 */
int nc_model_fit_serial(const uint32_t *P, const double *t, size_t n,
			double *slope, double *intercept);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif /* NETCOLL_PLAN_H */

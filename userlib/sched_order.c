// SPDX-License-Identifier: BSD-2-Clause
/*
 * Orders that ignore the topology, the baselines of Faraj & Yuan's
 * section 6 (and the kernel's own orders): LAM's linear order, MPICH's
 * ring and MPICH's pairwise exchange.
 */
#include <errno.h>

#include "sched.h"

/* LAM: in phase p every rank sends to rank p; rank p itself is idle. */
int nc_sched_linear(uint32_t nranks, struct nc_a2a_plan *p)
{
	uint32_t ph, r;
	int err;

	if (!p)
		return -EINVAL;
	err = nc_a2a_plan_alloc(p, nranks, nranks);
	if (err)
		return err;
	for (ph = 0; ph < nranks; ph++)
		for (r = 0; r < nranks; r++)
			if (r != ph && (err = nc_plan_put(p, ph, r, ph)))
				return err;
	return nc_plan_seal(p);
}

/* MPICH ring: step j = 1 .. N-1 (phase j - 1), rank r sends to r + j. */
int nc_sched_ring(uint32_t nranks, struct nc_a2a_plan *p)
{
	uint32_t ph, r;
	int err;

	if (!p)
		return -EINVAL;
	err = nc_a2a_plan_alloc(p, nranks, nranks ? nranks - 1 : 0);
	if (err)
		return err;
	for (ph = 0; ph + 1 < nranks; ph++)
		for (r = 0; r < nranks; r++)
			if ((err = nc_plan_put(p, ph, r,
					       (uint32_t)(((uint64_t)r + ph + 1) % nranks))))
				return err;
	return nc_plan_seal(p);
}

/*
 * MPICH pairwise: step j = 1 .. N-1 (phase j - 1), rank r exchanges with
 * r XOR j when N is a power of two; the ring otherwise.
 */
int nc_sched_pairwise(uint32_t nranks, struct nc_a2a_plan *p)
{
	uint32_t ph, r;
	int err;

	if (!p)
		return -EINVAL;
	if (nranks & (nranks - 1))
		return nc_sched_ring(nranks, p);
	err = nc_a2a_plan_alloc(p, nranks, nranks ? nranks - 1 : 0);
	if (err)
		return err;
	for (ph = 0; ph + 1 < nranks; ph++)
		for (r = 0; r < nranks; r++)
			if ((err = nc_plan_put(p, ph, r, r ^ (ph + 1))))
				return err;
	return nc_plan_seal(p);
}

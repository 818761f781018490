/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Alltoall schedules.  A plan is the global view every rank computes the
 * same way from (topology, member count): its messages, one per (src,
 * dst) pair, each in a phase; a rank sends at most once per phase.  They
 * are kept sparse, sorted by (phase, src): an unbalanced tree of 1024
 * hosts has 250 000 phases, most ranks idle in most of them, and a dense
 * phases x ranks table would take a gigabyte.  The pairwise
 * synchronisations say which sender must hear from which earlier sender
 * before it starts.  Each rank installs only its slice.
 */
#ifndef NC_SCHED_H
#define NC_SCHED_H

#include <stdint.h>

#include "netcoll.h"
#include "netcoll_plan.h"
#include "topo.h"

/*
 * Rank `from` sends a token to rank `to` once its message of phase
 * from_phase is acknowledged; `to` starts its message of phase to_phase
 * only after the token arrived (from_phase < to_phase).
 */
struct nc_sync {
	uint32_t from, from_phase;
	uint32_t to, to_phase;
};

struct nc_a2a_plan {
	uint32_t nranks, nphases;
	uint32_t nmsgs;
	uint32_t *src, *dst;		/* message i: src[i] -> dst[i] */
	uint32_t *first;		/* sealed: phase ph's messages are
					 * [first[ph], first[ph + 1]), by src
					 */
	uint32_t *mphase;		/* building: the phase of message i */
	uint32_t cap;			/* building: room for this many */
	uint32_t nsyncs;
	struct nc_sync *syncs;
	uint32_t nsyncs_unpruned;	/* before redundant syncs were removed
					 * (saturates at UINT32_MAX) */
};

void nc_a2a_plan_free(struct nc_a2a_plan *p);
/*
 * Building a plan (sched_verify.c): alloc sizes it with every rank idle in
 * every phase, put adds messages in any order, seal sorts them and checks
 * that no rank sends twice in a phase (-EPROTO).  Readers need a sealed
 * plan.
 */
int nc_a2a_plan_alloc(struct nc_a2a_plan *p, uint32_t nranks, uint32_t nphases);
int nc_plan_put(struct nc_a2a_plan *p, uint32_t phase, uint32_t src,
		uint32_t dst);
int nc_plan_seal(struct nc_a2a_plan *p);
/* Change the destination of rank's message in phase (tests); -ENOENT. */
int nc_plan_set_dst(struct nc_a2a_plan *p, uint32_t phase, uint32_t rank,
		    uint32_t dst);

/* Index of rank's message in phase, or UINT32_MAX if it is idle. */
static inline uint32_t nc_plan_find(const struct nc_a2a_plan *p,
				    uint32_t phase, uint32_t rank)
{
	uint32_t lo = p->first[phase], hi = p->first[phase + 1];

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (p->src[mid] == rank)
			return mid;
		if (p->src[mid] < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	return UINT32_MAX;
}

/* Where rank sends in phase (NC_TOPO_NONE: idle). */
static inline uint32_t nc_plan_dst(const struct nc_a2a_plan *p, uint32_t phase,
				   uint32_t rank)
{
	uint32_t i = nc_plan_find(p, phase, rank);

	return i == UINT32_MAX ? NC_TOPO_NONE : p->dst[i];
}

/* Faraj & Yuan, any tree (sched_aapc.c).  Ranks are the tree's hosts. */
int nc_sched_aapc(const struct nc_topo *t, struct nc_a2a_plan *p);

/*
 * Pairwise synchronisation (sched_sync.c): for every two messages of
 * different phases that share a directed edge, a sync from the earlier
 * sender to the later one; then the redundant ones (implied transitively,
 * including by each rank's own phase order) are removed.
 */
int nc_sched_sync(const struct nc_topo *t, struct nc_a2a_plan *p);

/*
 * The plan of a kind for a topology, with its syncs (sched_install.c):
 * fat-tree exchanges are synchronised like Faraj & Yuan's phases, on the
 * lanes of the fat links, when the fat tree is a tree (an XGFT with
 * parallel uplinks has no unique paths, and runs unsynchronised).
 */
int nc_sched_compute(const struct nc_topo *t, enum nc_sched_kind kind,
		     struct nc_a2a_plan *p);

/* Fat-tree exchanges (sched_fattree.c), ranks = hosts of an FT/XGFT. */
enum nc_ft_pattern {
	NC_FT_XOR,			/* d = s XOR p (power-of-two sizes) */
	NC_FT_LIN,			/* d = (s + p) mod N (shift 0) */
	NC_FT_OPT,			/* Prisacari eq. 4, sigma = (L..1) */
};
int nc_sched_fattree(const struct nc_topo *t, enum nc_ft_pattern pat,
		     struct nc_a2a_plan *p);
/* B_min(l), equation 1, for levels l = 1..L-1 (index l). */
uint32_t nc_ft_bmin(const struct nc_topo *t, uint32_t level);

/* Orders without topology, for comparison (same as the kernel's). */
int nc_sched_linear(uint32_t nranks, struct nc_a2a_plan *p);
int nc_sched_ring(uint32_t nranks, struct nc_a2a_plan *p);
int nc_sched_pairwise(uint32_t nranks, struct nc_a2a_plan *p);

/*
 * The verifier (sched_verify.c), nc_sched_why() (sched_install.c) and
 * slices are public: netcoll_plan.h.
 */

#endif /* NC_SCHED_H */

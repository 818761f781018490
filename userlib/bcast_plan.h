/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Network-topology- and speed-aware broadcast trees (seed 003, Subramoni
 * et al., Cluster 2011, section IV-B): the logical tree stays an f-nomial
 * tree, and the hosts are placed on its positions so that the critical
 * part of the broadcast -- the positions with the largest subtrees, which
 * are reached first -- gets the shortest and fastest paths.
 *
 * The delay matrix says how far two hosts are apart: hops times the
 * per-hop latency plus the message's time on the slowest link of the
 * path.  DFT and BFT walk the logical tree depth or breadth first from
 * its root (fixed: the broadcast's root) and give each child the free
 * host closest to its parent's host; children are visited largest
 * subtree first, the order a parent sends in.  Everything here is
 * deterministic (of equally close hosts, the one rank order would put
 * there, else the lowest rank), so every member computes the same tree,
 * and on a homogeneous network the aware trees are the unaware one.
 */
#ifndef NC_BCAST_PLAN_H
#define NC_BCAST_PLAN_H

#include <stdint.h>

#include "topo.h"

enum nc_bcast_order {
	NC_BCAST_UNAWARE,	/* rank order, rotated to the root (as MPI) */
	NC_BCAST_DFT,		/* depth first, closest free host per child */
	NC_BCAST_BFT,		/* breadth first, the same */
	/*
	 * The one of the three the model (nc_bcast_predict) says is fastest;
	 * ties to the earlier.  The seed's greedy placements are heuristics:
	 * on some networks (ranks spread round robin over a chain of
	 * switches, binomial trees) rank order beats both, so the planner
	 * asks the model instead of trusting either.
	 */
	NC_BCAST_BEST,
};

/*
 * delay[a * P + b] in microseconds for the topology's P hosts:
 * hops(a, b) * hop_us + bytes * 8 / slowest rate on the path (Mbit/s);
 * the second term is left out where a rate is unknown.  Paths are the
 * routed ones on a routed fabric, the tree's on a tree, else shortest
 * (then the slowest of the two hosts' links counts, the seed's
 * speed-aware matrix).  0 or -errno.
 */
int nc_bcast_delays(const struct nc_topo *t, double hop_us, uint64_t bytes,
		    double *delay);

/*
 * Children of every position of an f-nomial tree over P positions
 * (position 0 the root), largest subtree first: child_off[P + 1] and
 * child[P - 1] as in CSR.  0 or -EINVAL/-ENOMEM.
 */
int nc_bcast_children(uint32_t P, uint32_t degree, uint32_t *child_off,
		      uint32_t *child);

/*
 * order[pos] = the rank placed at position pos (order[0] = root) for the
 * f-nomial broadcast tree of the given degree, by how.  delay may be NULL
 * for NC_BCAST_UNAWARE.  0 or -errno.  nc_bcast_best_order() is
 * NC_BCAST_BEST and says which order it took.
 */
int nc_bcast_order(const double *delay, uint32_t P, uint32_t root,
		   uint32_t degree, enum nc_bcast_order how, uint32_t *order);
int nc_bcast_best_order(const double *delay, uint32_t P, uint32_t root,
			uint32_t degree, uint32_t *order,
			enum nc_bcast_order *chosen);

/*
 * Predicted broadcast time in microseconds: a host forwards to its
 * children one after another, largest subtree first, each send taking
 * delay[parent][child]; the broadcast ends when the last host has it.
 * Negative errno on bad arguments.
 */
double nc_bcast_predict(const double *delay, uint32_t P, uint32_t degree,
			const uint32_t *order);

#endif /* NC_BCAST_PLAN_H */

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

#include "netcoll_plan.h"
#include "topo.h"

/* enum nc_bcast_order, nc_bcast_delays, nc_bcast_order, nc_bcast_best_order
 * and nc_bcast_predict are public: netcoll_plan.h. */

/*
 * Children of every position of an f-nomial tree over P positions
 * (position 0 the root), largest subtree first: child_off[P + 1] and
 * child[P - 1] as in CSR.  0 or -EINVAL/-ENOMEM.
 */
int nc_bcast_children(uint32_t P, uint32_t degree, uint32_t *child_off,
		      uint32_t *child);

/*
 * One entry of the delay matrix: the path's latency -- the delays of its
 * links that have one (known of its hops, summing known_us) and hop_us for
 * each other hop -- plus the message's time on the slowest link (left out
 * when its rate is unknown, 0).  Shared by nc_bcast_delays() and
 * nc_bcast_delays_query(), so both give the same.
 */
static inline double nc_bcast_delay_of(uint32_t hops, uint32_t known,
				       double known_us, double slowest_mbit,
				       double hop_us, uint64_t bytes)
{
	return known_us + (hops > known ? hops - known : 0) * hop_us +
	       (slowest_mbit > 0 ? (double)bytes * 8 / slowest_mbit : 0);
}

#endif /* NC_BCAST_PLAN_H */

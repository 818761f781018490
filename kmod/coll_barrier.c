// SPDX-License-Identifier: GPL-2.0
/*
 * Barrier: dissemination algorithm (Hensgen, Finkel, Manber).  In round k
 * every rank sends an empty message to rank + 2^k and waits for the one
 * from rank - 2^k; round k+1 sends only after round k arrived, so after
 * ceil(log2 P) rounds everybody has (transitively) heard from everybody.
 */
#include "core.h"

#define NC_BARRIER_ROUNDS	ilog2(NETCOLL_COMM_SIZE_MAX)

int nc_coll_barrier(struct nc_comm *c, u32 timeout_ms)
{
	struct nc_msg_desc tx[NC_BARRIER_ROUNDS], rx[NC_BARRIER_ROUNDS];
	u32 p = c->size, n = 0, dist;

	BUILD_BUG_ON(!is_power_of_2(NETCOLL_COMM_SIZE_MAX));
	for (dist = 1; dist < p; dist <<= 1, n++) {
		tx[n] = (struct nc_msg_desc){
			.peer = (c->rank + dist) % p,
			.tag = n,
			.wait_rx_lo = n ? n - 1 : 0,	/* the previous round */
			.wait_rx_hi = n,
			.wait_tx = -1,
		};
		rx[n] = (struct nc_msg_desc){
			.peer = (c->rank + p - dist) % p,
			.tag = n,
		};
	}
	return nc_op_run(c, tx, n, rx, n, timeout_ms);
}

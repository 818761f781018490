// SPDX-License-Identifier: BSD-2-Clause
/*
 * ncbench --tune-bcast: nc_bcast_tune() on the communicator -- tree
 * against multicast per size -- and the sizes the library's NC_DIST_AUTO
 * then multicasts (on this run's endpoint; other programs get them
 * through NETCOLL_BCAST_MCAST_MIN and NETCOLL_BCAST_MCAST_MAX).
 *
 * Sizes: powers of 4 from --min to --max when either is given (at most
 * NC_BCAST_TUNE_SIZES_MAX of them), else the library's; --iters
 * broadcasts per size and distribution when given, else the library's.
 */
#include <inttypes.h>
#include <stdio.h>

#include "ncbench.h"

int tune_bcast_run(struct bench *b)
{
	struct nc_bcast_tune t = { .root = b->o.root };
	uint64_t s, lo = b->o.min_set ? b->o.min : 1024,
		 hi = b->o.max_set ? b->o.max : 1 << 20;
	uint32_t i;
	int err;

	if (b->o.min_set || b->o.max_set)
		for (s = lo; s <= hi && t.nsizes < NC_BCAST_TUNE_SIZES_MAX; s *= 4)
			t.sizes[t.nsizes++] = s;
	if (b->o.iters_set)
		t.iters = (uint32_t)b->o.iters;
	err = nc_bcast_tune(b->ep, &t);
	if (err)
		return fail("tuning the broadcast failed: %s", nc_strerror(err));
	if (!b->print)
		return 0;
	if (b->o.json) {
		printf("\"tune_bcast\":{\"iters\":%" PRIu32 ",\"sizes\":[", t.iters);
		for (i = 0; i < t.nsizes; i++)
			printf("%s{\"bytes\":%zu,\"tree_us\":%.1f,\"mcast_us\":%.1f}",
			       i ? "," : "", t.sizes[i], t.tree_us[i], t.mcast_us[i]);
		if (t.mcast_min >= t.mcast_max)
			printf("],\"mcast_min\":null,\"mcast_max\":null}");
		else if (t.mcast_max == SIZE_MAX)
			printf("],\"mcast_min\":%zu,\"mcast_max\":null}", t.mcast_min);
		else
			printf("],\"mcast_min\":%zu,\"mcast_max\":%zu}",
			       t.mcast_min, t.mcast_max);
		return 0;
	}
	printf("# broadcast from rank %" PRIu32 ", %" PRIu32 " ranks: tree against multicast,\n"
	       "# microseconds per broadcast (the slowest rank's, better of 2 rounds of %" PRIu32 ")\n"
	       "%12s %12s %12s\n", t.root, b->nranks, t.iters, "bytes", "tree", "mcast");
	for (i = 0; i < t.nsizes; i++)
		printf("%12zu %12.1f %12.1f\n", t.sizes[i], t.tree_us[i], t.mcast_us[i]);
	if (t.mcast_min >= t.mcast_max)
		printf("multicast: never\n");
	else if (t.mcast_max == SIZE_MAX)
		printf("multicast: from %zu bytes\n", t.mcast_min);
	else
		printf("multicast: from %zu to %zu bytes (NETCOLL_BCAST_MCAST_MIN=%zu NETCOLL_BCAST_MCAST_MAX=%zu)\n",
		       t.mcast_min, t.mcast_max - 1, t.mcast_min, t.mcast_max);
	return 0;
}

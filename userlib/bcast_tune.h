/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nc_bcast_tune's decision, private to the library and its unit tests:
 * from the measured times per size, the range of sizes multicast gets.
 */
#ifndef NC_BCAST_TUNE_H
#define NC_BCAST_TUNE_H

#include "netcoll.h"
#include "args.h"

/* t->sizes, tree_us, mcast_us (nsizes of each) -> t->mcast_min, mcast_max */
NC_INTERNAL void nc_bcast_tune_range(struct nc_bcast_tune *t);

#endif

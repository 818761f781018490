/* SPDX-License-Identifier: BSD-2-Clause */
/* The large-vector allreduce of reduce_scatter.c, for nc_allreduce. */
#ifndef NC_REDUCE_SCATTER_H
#define NC_REDUCE_SCATTER_H

#include <stddef.h>

#include "args.h"
#include "netcoll.h"

/* nc_allreduce as a reduce-scatter and an allgather; arguments checked. */
NC_INTERNAL int nc_allreduce_rsag(nc_endpoint *ep, const void *sendbuf,
				  void *recvbuf, size_t count,
				  enum nc_dtype dtype, enum nc_op op);

#endif

// SPDX-License-Identifier: BSD-2-Clause
/*
 * Bandwidth-optimal reductions for large vectors, built on the kernel's
 * alltoall (its reliable transport and, where a schedule is installed, its
 * contention-free order):
 *
 *   reduce-scatter  an alltoall of the P blocks, then each rank reduces
 *                   the P blocks it received, in rank order 0 .. P-1;
 *   allgather       an alltoall of P copies of the rank's block;
 *   allreduce       the vector padded to P equal blocks, a reduce-scatter,
 *                   an allgather of the reduced blocks.
 *
 * Each rank sends (P - 1)/P of the vector per step, 2(P - 1)/P for an
 * allreduce, where a tree's inner ranks each take in k whole vectors; the
 * price is P - 1 alltoall phases and two passes in user space, and across
 * a switch-to-switch link P/4 vectors each way per alltoall: on the
 * emulated clusters the trees were faster from 512 KiB (at 128 KiB the
 * two took turns), so nc_allreduce takes this path only from
 * nc_set_rsag_min() bytes, off by default.  Every block is
 * reduced once, by one rank, in one fixed order: the result is the same
 * on every rank and in every run, bit for bit.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netcoll.h>

#include "netcoll.h"
#include "reduce_scatter.h"
#define NC_RED_FLOAT
#include "nc_reduce.h"

/* acc = acc op in, elementwise over bytes. */
static void nc_red_local(enum nc_op op, enum nc_dtype dtype, void *acc,
			 const void *in, size_t bytes)
{
	if (!nc_red_apply_int(op, dtype, acc, in, (__u32)bytes))
		nc_red_apply_float(op, dtype, acc, in, (__u32)bytes);
}

/* P, or an error for an unbound endpoint. */
static int nc_rs_size(nc_endpoint *ep, uint32_t *size)
{
	int p = nc_comm_size(ep);

	if (p < 0)
		return p;
	*size = (uint32_t)p;
	return 0;
}

/* Reduce the P received blocks of tmp into out, in rank order. */
static void nc_rs_fold(const char *tmp, void *out, uint32_t size,
		       size_t block, enum nc_dtype dtype, enum nc_op op)
{
	uint32_t i;

	memmove(out, tmp, block);
	for (i = 1; i < size; i++)
		nc_red_local(op, dtype, out, tmp + block * i, block);
}

int nc_reduce_scatter(nc_endpoint *ep, const void *sendbuf, void *recvbuf,
		      size_t count, enum nc_dtype dtype, enum nc_op op)
{
	size_t elem = nc_elem_size(op, dtype), block;
	uint32_t size;
	char *tmp;
	int err;

	if (!ep || !elem || (count && (!sendbuf || !recvbuf)) ||
	    count > NETCOLL_REDUCE_MAX / elem)
		return -EINVAL;
	err = nc_rs_size(ep, &size);
	if (err)
		return err;
	block = count * elem;
	tmp = malloc(block ? block * size : 1);
	if (!tmp)
		return -ENOMEM;
	err = nc_alltoall(ep, sendbuf, tmp, block);
	if (!err && block)
		nc_rs_fold(tmp, recvbuf, size, block, dtype, op);
	free(tmp);
	return err;
}

int nc_allgather(nc_endpoint *ep, const void *sendbuf, void *recvbuf,
		 size_t bytes)
{
	uint32_t size, i;
	char *rep;
	int err;

	if (!ep || (bytes && (!sendbuf || !recvbuf)) ||
	    bytes > NETCOLL_MSG_MAX)
		return -EINVAL;
	err = nc_rs_size(ep, &size);
	if (err)
		return err;
	if (bytes > SIZE_MAX / size)
		return -EINVAL;
	rep = malloc(bytes ? bytes * size : 1);
	if (!rep)
		return -ENOMEM;
	for (i = 0; i < size; i++)
		memcpy(rep + bytes * i, sendbuf, bytes);
	err = nc_alltoall(ep, rep, recvbuf, bytes);
	free(rep);
	return err;
}

/*
 * nc_allreduce above the endpoint's threshold.  The vector is padded with
 * zeros to P blocks of ceil(count / P) elements; the padding is reduced
 * like the rest and dropped.  One buffer of the padded size serves the
 * input and the allgather's copies, another the alltoalls' output.
 */
int nc_allreduce_rsag(nc_endpoint *ep, const void *sendbuf, void *recvbuf,
		      size_t count, enum nc_dtype dtype, enum nc_op op)
{
	size_t elem = nc_elem_size(op, dtype), block, bytes;
	uint32_t size, i;
	char *in, *out;
	int err;

	err = nc_rs_size(ep, &size);
	if (err)
		return err;
	block = (count + size - 1) / size * elem;
	bytes = block * size;
	in = calloc(1, bytes);
	out = malloc(bytes);
	if (!in || !out) {
		err = -ENOMEM;
		goto out;
	}
	memcpy(in, sendbuf, count * elem);
	err = nc_alltoall(ep, in, out, block);
	if (err)
		goto out;
	nc_rs_fold(out, in, size, block, dtype, op);	/* this rank's block */
	for (i = 1; i < size; i++)
		memcpy(in + block * i, in, block);
	err = nc_alltoall(ep, in, out, block);
	if (!err)
		memcpy(recvbuf, out, count * elem);
out:
	free(in);
	free(out);
	return err;
}

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The collectives netcoll takes.  Each wrapper decides from its arguments
 * alone (the same on every rank of a correct MPI program) whether netcoll
 * runs the call; if not, the PMPI_ version does.  Limits: what one netcoll
 * operation carries (NETCOLL_REDUCE_MAX bytes for reductions and
 * broadcasts; NCMPI_A2A_MAX per peer and NCMPI_A2A_TOTAL in all for
 * alltoall and allgather, whose staging buffers this library allocates).
 *
 * Several ranks on a host (ncmpi_hier): MPI's collective on the host's
 * ranks (c->node) runs first or last, and only the host's leader (node
 * rank 0) calls netcoll, as its host's member; its result goes to the
 * host's other ranks the same way.  A netcoll failure on a leader is
 * reported there; the host's other ranks then wait in MPI until the
 * error handler ends the job (its default).
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <linux/netcoll.h>

#include "netcoll_mpi.h"

/* Per-peer block, and all blocks, of an alltoall/allgather netcoll takes. */
#define NCMPI_A2A_MAX	(4u << 20)
#define NCMPI_A2A_TOTAL	(64u << 20)

/* Rank r's host: its rank in the netcoll communicator. */
static int ncmpi_host(const struct ncmpi_comm *c, int r)
{
	return ncmpi_hier(c) ? c->host[r] : r;
}

/* A rooted call netcoll takes: its root leads its host. */
static int ncmpi_rooted(const struct ncmpi_comm *c, int root)
{
	return !ncmpi_hier(c) || c->lead[root];
}

/* Calls whose host-local step would be a scatter: one rank per host only. */
static struct ncmpi_comm *ncmpi_flat(struct ncmpi_comm *c)
{
	return c && !ncmpi_hier(c) ? c : NULL;
}

int MPI_Barrier(MPI_Comm comm)
{
	struct ncmpi_comm *c = ncmpi_takes(comm);
	int err;

	if (!c) {
		ncmpi_count(NCMPI_BARRIER, 0);
		return PMPI_Barrier(comm);
	}
	ncmpi_count(NCMPI_BARRIER, 1);
	if (!ncmpi_hier(c)) {
		err = nc_barrier(c->ep);
		return err ? ncmpi_failed(comm, "MPI_Barrier", err) : MPI_SUCCESS;
	}
	/* every rank of each host is here, then every host, then go */
	err = PMPI_Barrier(c->node);
	if (err == MPI_SUCCESS && c->ep) {
		err = nc_barrier(c->ep);
		if (err)
			return ncmpi_failed(comm, "MPI_Barrier", err);
	}
	return err ?: PMPI_Barrier(c->node);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
	struct ncmpi_comm *c = ncmpi_takes(comm);
	size_t bytes;
	int err;

	if (!c || count <= 0 || root < 0 || root >= c->size ||
	    !ncmpi_rooted(c, root) ||
	    !ncmpi_contig_bytes(type, count, &bytes) || bytes > NETCOLL_REDUCE_MAX) {
		ncmpi_count(NCMPI_BCAST, 0);
		return PMPI_Bcast(buf, count, type, root, comm);
	}
	ncmpi_count(NCMPI_BCAST, 1);
	if (c->ep) {
		err = nc_bcast(c->ep, buf, bytes, ncmpi_host(c, root));
		if (err)
			return ncmpi_failed(comm, "MPI_Bcast", err);
	}
	return ncmpi_hier(c) ? PMPI_Bcast(buf, count, type, 0, c->node) : MPI_SUCCESS;
}

/*
 * MPI_LAND, MPI_LOR and MPI_LXOR on integers and Fortran LOGICALs are
 * MPI_BAND, MPI_BOR and MPI_BXOR of truth values (each element 0 or 1,
 * gfortran's .FALSE. and .TRUE., as Open MPI's own result is); programs
 * use them for "any rank" and "every rank" (FFTW's planner asks one per
 * plan).
 */
static MPI_Op ncmpi_bitwise_of(MPI_Op op)
{
	if (op == MPI_LAND)
		return MPI_BAND;
	if (op == MPI_LOR)
		return MPI_BOR;
	if (op == MPI_LXOR)
		return MPI_BXOR;
	return MPI_OP_NULL;
}

/*
 * A reduction netcoll can run: its element types and size.  truth: where
 * to say that the contribution must become truth values first
 * (ncmpi_truth); NULL: logical ops go to MPI.
 */
static int ncmpi_red_ok(int count, MPI_Datatype type, MPI_Op op,
			enum nc_dtype *dt, enum nc_op *nop, int *truth)
{
	MPI_Op bitwise = ncmpi_bitwise_of(op);
	size_t elem;

	if (truth)
		*truth = bitwise != MPI_OP_NULL;
	if (bitwise != MPI_OP_NULL) {
		if (!truth)
			return 0;
		op = bitwise;	/* integer types only, as MPI says */
	}
	return count > 0 &&
	       ncmpi_red_map(type, op, bitwise != MPI_OP_NULL, dt, nop, &elem) &&
	       (size_t)count <= NETCOLL_REDUCE_MAX / elem;
}

/* dst[i] = src[i] != 0 for count integers of elem (4 or 8) bytes. */
static void ncmpi_truth(const void *src, void *dst, size_t count, size_t elem)
{
	const unsigned char *s = src;
	unsigned char *d = dst;
	size_t i;

	for (i = 0; i < count; i++, s += elem, d += elem) {
		if (elem == sizeof(uint32_t)) {
			uint32_t v;

			memcpy(&v, s, sizeof(v));
			v = v != 0;
			memcpy(d, &v, sizeof(v));
		} else {	/* the map's integers are 4 or 8 bytes */
			uint64_t v;

			memcpy(&v, s, sizeof(v));
			v = v != 0;
			memcpy(d, &v, sizeof(v));
		}
	}
}

/*
 * netcoll's MPI_Allreduce on c (a call ncmpi_red_ok() takes): the host's
 * step around it, and the trees or reduce-scatter + allgather as path says
 * (NCMPI_PATH_LIB: as the library chooses, NETCOLL_RSAG_MIN).  Returns 0,
 * an MPI error of the host's step, or netcoll's negative error.
 */
int ncmpi_allreduce_on(struct ncmpi_comm *c, const void *sendbuf,
		       void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
		       enum ncmpi_path path)
{
	enum nc_dtype dt;
	enum nc_op nop;
	int err, truth;

	ncmpi_red_ok(count, type, op, &dt, &nop, &truth);
	if (ncmpi_hier(c)) {
		/* the host's sum at its leader, in recvbuf there */
		if (sendbuf == MPI_IN_PLACE && !c->ep)
			sendbuf = recvbuf;	/* in place is the node root's only */
		err = PMPI_Reduce(sendbuf, c->ep ? recvbuf : NULL, count, type,
				  op, 0, c->node);
		if (err)
			return err;
		sendbuf = MPI_IN_PLACE;
	}
	if (c->ep) {
		if (sendbuf == MPI_IN_PLACE)
			sendbuf = recvbuf;
		if (truth) {	/* recvbuf is the caller's: ours to write */
			ncmpi_truth(sendbuf, recvbuf, count, nc_elem_size(nop, dt));
			sendbuf = recvbuf;
		}
		/* a setting of the endpoint, the same on every rank */
		if (path == NCMPI_PATH_TREES || path == NCMPI_PATH_RSAG)
			nc_set_rsag_min(c->ep, path == NCMPI_PATH_RSAG);
		err = nc_allreduce(c->ep, sendbuf, recvbuf, count, dt, nop);
		if (err)
			return err;
	}
	return ncmpi_hier(c) ? PMPI_Bcast(recvbuf, count, type, 0, c->node) : MPI_SUCCESS;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count,
		  MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
	struct ncmpi_comm *c = ncmpi_takes(comm);
	enum ncmpi_path path = NCMPI_PATH_MPI;
	enum nc_dtype dt;
	enum nc_op nop;
	int err, truth;

	if (c && ncmpi_red_ok(count, type, op, &dt, &nop, &truth)) {
		path = ncmpi_allreduce_path(c, (size_t)count * nc_elem_size(nop, dt));
		ncmpi.allreduce_measured_mpi += path == NCMPI_PATH_MPI;
	}
	if (path == NCMPI_PATH_MPI) {
		ncmpi_count(NCMPI_ALLREDUCE, 0);
		return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
	}
	ncmpi_count(NCMPI_ALLREDUCE, 1);
	err = ncmpi_allreduce_on(c, sendbuf, recvbuf, count, type, op, path);
	return err < 0 ? ncmpi_failed(comm, "MPI_Allreduce", err) : err;
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count,
	       MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm)
{
	struct ncmpi_comm *c = ncmpi_takes(comm);
	enum nc_dtype dt;
	enum nc_op nop;
	size_t elem;
	int err, truth;

	if (!c || root < 0 || root >= c->size || !ncmpi_rooted(c, root) ||
	    !ncmpi_red_ok(count, type, op, &dt, &nop, &truth)) {
		ncmpi_count(NCMPI_REDUCE, 0);
		return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
	}
	ncmpi_count(NCMPI_REDUCE, 1);
	elem = nc_elem_size(nop, dt);
	if (c->rank != root && c->ep) {
		/* recvbuf means nothing off the root: never write the caller's */
		recvbuf = ncmpi_scratch((size_t)count * elem);
		if (!recvbuf)
			return ncmpi_failed(comm, "MPI_Reduce", -ENOMEM);
	}
	if (ncmpi_hier(c)) {
		/* the host's partial result at its leader, in recvbuf there */
		err = PMPI_Reduce(sendbuf, c->ep ? recvbuf : NULL, count, type,
				  op, 0, c->node);
		if (err || !c->ep)
			return err;
		sendbuf = MPI_IN_PLACE;
	}
	if (sendbuf == MPI_IN_PLACE)
		sendbuf = recvbuf;
	if (truth) {	/* the root's result buffer, or our scratch */
		ncmpi_truth(sendbuf, recvbuf, count, elem);
		sendbuf = recvbuf;
	}
	err = nc_reduce(c->ep, sendbuf, recvbuf, count, dt, nop, ncmpi_host(c, root));
	return err ? ncmpi_failed(comm, "MPI_Reduce", err) : MPI_SUCCESS;
}

/* Alltoall-shaped calls: both sides the same plain type and block size. */
static int ncmpi_blocks(const struct ncmpi_comm *c, int scount,
			MPI_Datatype stype, int rcount, MPI_Datatype rtype,
			size_t *bytes)
{
	return c && scount == rcount && stype == rtype &&
	       rcount > 0 && ncmpi_contig_bytes(rtype, rcount, bytes) &&
	       *bytes <= NCMPI_A2A_MAX &&
	       *bytes * (size_t)c->size <= NCMPI_A2A_TOTAL;
}

int MPI_Alltoall(const void *sendbuf, int scount, MPI_Datatype stype,
		 void *recvbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
	struct ncmpi_comm *c = ncmpi_flat(ncmpi_takes(comm));
	size_t bytes;
	void *tmp;
	int err;

	/* MPI_IN_PLACE: scount and stype are ignored, the receive side counts */
	if (sendbuf == MPI_IN_PLACE) {
		scount = rcount;
		stype = rtype;
	}
	if (!ncmpi_blocks(c, scount, stype, rcount, rtype, &bytes)) {
		ncmpi_count(NCMPI_ALLTOALL, 0);
		return PMPI_Alltoall(sendbuf, scount, stype, recvbuf, rcount,
				     rtype, comm);
	}
	ncmpi_count(NCMPI_ALLTOALL, 1);
	if (sendbuf == MPI_IN_PLACE) {
		tmp = ncmpi_scratch(bytes * c->size);
		if (!tmp)
			return ncmpi_failed(comm, "MPI_Alltoall", -ENOMEM);
		memcpy(tmp, recvbuf, bytes * c->size);
		sendbuf = tmp;
	}
	err = nc_alltoall(c->ep, sendbuf, recvbuf, bytes);
	return err ? ncmpi_failed(comm, "MPI_Alltoall", err) : MPI_SUCCESS;
}

/* Allgather: nc_allgather, an alltoall of P copies of the rank's block. */
int MPI_Allgather(const void *sendbuf, int scount, MPI_Datatype stype,
		  void *recvbuf, int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
	struct ncmpi_comm *c = ncmpi_flat(ncmpi_takes(comm));
	size_t bytes;
	int err;

	if (sendbuf == MPI_IN_PLACE) {
		scount = rcount;
		stype = rtype;
	}
	if (!ncmpi_blocks(c, scount, stype, rcount, rtype, &bytes)) {
		ncmpi_count(NCMPI_ALLGATHER, 0);
		return PMPI_Allgather(sendbuf, scount, stype, recvbuf, rcount,
				      rtype, comm);
	}
	ncmpi_count(NCMPI_ALLGATHER, 1);
	if (sendbuf == MPI_IN_PLACE) {
		/* nc_allgather reads its block before it writes recvbuf */
		sendbuf = (const char *)recvbuf + bytes * c->rank;
	}
	err = nc_allgather(c->ep, sendbuf, recvbuf, bytes);
	return err ? ncmpi_failed(comm, "MPI_Allgather", err) : MPI_SUCCESS;
}

/*
 * Reduce_scatter_block: nc_reduce_scatter, an alltoall of the blocks and
 * a reduction in rank order of the P blocks each rank receives.
 */
int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int rcount,
			     MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
	struct ncmpi_comm *c = ncmpi_flat(ncmpi_takes(comm));
	enum nc_dtype dt;
	enum nc_op nop;
	int err;

	if (!c || rcount <= 0 || rcount > INT32_MAX / c->size ||
	    !ncmpi_red_ok(rcount * c->size, type, op, &dt, &nop, NULL)) {
		ncmpi_count(NCMPI_REDUCE_SCATTER_BLOCK, 0);
		return PMPI_Reduce_scatter_block(sendbuf, recvbuf, rcount, type,
						 op, comm);
	}
	ncmpi_count(NCMPI_REDUCE_SCATTER_BLOCK, 1);
	/* MPI_IN_PLACE: the whole vector is in recvbuf */
	err = nc_reduce_scatter(c->ep, sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf,
				recvbuf, rcount, dt, nop);
	return err ? ncmpi_failed(comm, "MPI_Reduce_scatter_block", err) :
		     MPI_SUCCESS;
}

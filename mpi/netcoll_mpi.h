/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libnetcoll-mpi: a PMPI interposer.  Loaded with LD_PRELOAD (or linked
 * before the MPI library), it gives MPI_COMM_WORLD (and communicators
 * congruent to it) a netcoll communicator at MPI_Init, and sends the
 * collectives netcoll runs (contiguous predefined types, supported ops) to
 * the kernel; everything else goes to the MPI library's PMPI_ version.
 *
 * The decision to use netcoll for a call depends only on arguments every
 * rank passes alike (communicator, count, datatype, op, root), never on
 * local state, so all ranks of a call take the same path.
 *
 * Threads: the interposer takes calls only at MPI_THREAD_SERIALIZED or
 * below (one endpoint, one operation at a time); at MPI_THREAD_MULTIPLE it
 * stays off.
 */
#ifndef NETCOLL_MPI_H
#define NETCOLL_MPI_H

#include <mpi.h>
#include <netcoll.h>
#include <stddef.h>

/* The call kinds counted for NETCOLL_MPI_VERBOSE. */
enum ncmpi_kind {
	NCMPI_BARRIER,
	NCMPI_BCAST,
	NCMPI_REDUCE,
	NCMPI_ALLREDUCE,
	NCMPI_ALLTOALL,
	NCMPI_ALLGATHER,
	NCMPI_REDUCE_SCATTER_BLOCK,
	NCMPI_KINDS
};

struct ncmpi_state {
	int on;			/* netcoll takes the calls it can */
	int verbose;		/* NETCOLL_MPI_VERBOSE */
	int rank, size;		/* in MPI_COMM_WORLD */
	uint32_t id;		/* the netcoll communicator */
	nc_ctl *ctl;
	nc_endpoint *ep;
	int keyval;		/* caches "congruent to MPI_COMM_WORLD" */
	void *scratch;		/* reused: in-place alltoall, non-root reduce */
	size_t scratch_len;
	unsigned long calls[NCMPI_KINDS][2];	/* [kind][0: netcoll, 1: MPI] */
};

extern struct ncmpi_state ncmpi;

/* setup.c */
int ncmpi_takes(MPI_Comm comm);
void ncmpi_count(enum ncmpi_kind kind, int netcoll);
void *ncmpi_scratch(size_t len);
int ncmpi_failed(MPI_Comm comm, const char *call, int err);

/* types.c */
int ncmpi_contig_bytes(MPI_Datatype type, size_t count, size_t *bytes);
int ncmpi_red_map(MPI_Datatype type, MPI_Op op, enum nc_dtype *dt,
		  enum nc_op *nop, size_t *elem);

#endif

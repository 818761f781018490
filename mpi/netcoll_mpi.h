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
 * Other communicators (MPI_Comm_split, MPI_Comm_create, ...) get their own
 * netcoll communicator at their first collective call, made through the
 * communicator itself, up to NCMPI_SUBS_MAX at once; past that, or if any
 * rank fails to make its side, all of their calls go to MPI.
 *
 * Several ranks on a host: MPI's own collectives on the host's ranks do
 * the host-local step (reduce to, or broadcast from, the host's lowest
 * rank), and one rank per host, that lowest, takes part in the netcoll
 * communicator (seed 002, section 6.1).  Calls whose host-local step
 * would be a scatter (alltoall, allgather, reduce_scatter_block), and
 * rooted calls whose root is not its host's lowest rank, go to MPI then.
 *
 * Threads: the interposer takes calls only at MPI_THREAD_SERIALIZED or
 * below (one operation at a time); at MPI_THREAD_MULTIPLE it stays off.
 */
#ifndef NETCOLL_MPI_H
#define NETCOLL_MPI_H

/*
 * The MPI_ calls defined here are the library's exports, and the objects
 * are built with -fvisibility=hidden: Open MPI's mpi.h marks its
 * declarations visible, MPICH's does not, so say it for both.
 */
#pragma GCC visibility push(default)
#include <mpi.h>
#pragma GCC visibility pop
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

/* Which way an MPI_Allreduce goes (tune.c). */
enum ncmpi_path {
	NCMPI_PATH_MPI,		/* the MPI library's own */
	NCMPI_PATH_TREES,	/* netcoll's aggregation trees */
	NCMPI_PATH_RSAG,	/* netcoll's reduce-scatter + allgather */
	NCMPI_PATHS,
	NCMPI_PATH_LIB = NCMPI_PATHS,	/* not measured: netcoll, as the library chooses */
};

/* Sizes measured by NETCOLL_MPI_ALLREDUCE_TUNE: 8 B to 2 MiB by fours. */
#define NCMPI_TUNE_SIZES	10

/* Shapes of sub-communicator whose measurements a process keeps. */
#define NCMPI_SHAPES		4

/*
 * How a communicator's calls go, as measured (tune.c): the same on every
 * rank of it.  Each shape of communicator (its ranks and hosts) is
 * measured once; others of that shape get the same.
 */
struct ncmpi_tuning {
	int allreduce;		/* NETCOLL_MPI_ALLREDUCE_TUNE: path[] measured */
	enum ncmpi_path path[NCMPI_TUNE_SIZES];	/* ... each size's fastest */
	int bcast;		/* NETCOLL_MPI_BCAST_TUNE: mcast[] measured */
	size_t mcast[2];	/* ... broadcasts of [0] .. [1] - 1 bytes multicast */
};

/*
 * A netcoll communicator serving one MPI communicator and its duplicates.
 *
 * Ownership: MPI_COMM_WORLD's is ncmpi.world and lives from MPI_Init to
 * MPI_Finalize.  Any other is held by the MPI communicators whose
 * attribute (ncmpi.keyval) points at it, counted in refs: MPI_Comm_dup
 * takes a reference (the attribute's copy callback), MPI_Comm_free drops
 * one (its delete callback), and the last drop deletes it, after
 * MPI_Comm_free's PMPI_Barrier has made sure no rank still waits for a
 * repair from this side.  MPI_Finalize deletes those the program never
 * freed.  One thread at a time (see above): no lock.
 */
struct ncmpi_comm {
	nc_endpoint *ep;	/* NULL off the hosts' leaders */
	uint32_t id;
	int rank, size;		/* in the MPI communicator */
	int refs;		/* MPI communicators using it (not world's) */
	struct ncmpi_comm *next;	/* ncmpi.subs */
	/*
	 * Several ranks on a host: the host-local step.  node holds the
	 * MPI communicator's ranks on this host (MPI_COMM_NULL when every
	 * host has one); its rank 0, the host's leader, is the host's member
	 * of the netcoll communicator, whose rank host[r] is rank r's host.
	 * lead[r]: rank r is its host's leader.
	 */
	MPI_Comm node;
	int hosts;		/* members of the netcoll communicator */
	int *host;		/* [size] */
	unsigned char *lead;	/* [size] */
	struct ncmpi_tuning tune;
};

/* Several ranks on a host: the host-local step runs before and after. */
static inline int ncmpi_hier(const struct ncmpi_comm *c)
{
	return c->node != MPI_COMM_NULL;
}

struct ncmpi_state {
	int verbose;		/* NETCOLL_MPI_VERBOSE */
	uint32_t timeout_ms;	/* NETCOLL_MPI_TIMEOUT_MS: each operation's budget */
	int tune_allreduce;	/* NETCOLL_MPI_ALLREDUCE_TUNE set */
	int tune_bcast;		/* NETCOLL_MPI_BCAST_TUNE set */
	struct ncmpi_shape {	/* what each shape measured, up to NCMPI_SHAPES */
		int size, hosts;	/* 0: none yet */
		struct ncmpi_tuning tune;
	} shapes[NCMPI_SHAPES];
	unsigned long allreduce_measured_mpi;	/* calls sent to MPI by tuning */
	int rank, size;		/* in MPI_COMM_WORLD */
	int on;			/* netcoll takes calls (world made) */
	struct ncmpi_comm world;
	struct ncmpi_comm *subs;	/* the others, at most NCMPI_SUBS_MAX */
	int nsubs;
	int finalized;		/* delete callbacks after MPI_Finalize: no-ops */
	nc_ctl *ctl;
	struct nc_dev_info dev;	/* the device every communicator uses */
	struct nc_member *addrs;	/* every world rank's address */
	int keyval;		/* a communicator's struct ncmpi_comm, or none */
	void *scratch;		/* reused: in-place alltoall, non-root reduce */
	size_t scratch_len;
	unsigned long calls[NCMPI_KINDS][2];	/* [kind][0: netcoll, 1: MPI] */
	unsigned long subs_made[2];	/* sub-communicators: [0: netcoll, 1: MPI] */
};

/* Sub-communicators with a netcoll communicator at once, per process. */
#define NCMPI_SUBS_MAX	15

extern struct ncmpi_state ncmpi;

/* setup.c */
struct ncmpi_comm *ncmpi_takes(MPI_Comm comm);
void ncmpi_count(enum ncmpi_kind kind, int netcoll);
void *ncmpi_scratch(size_t len);
int ncmpi_failed(MPI_Comm comm, const char *call, int err);
int ncmpi_agree(MPI_Comm comm, int err);

/* collectives.c: netcoll's MPI_Allreduce on c, a call it takes, by path */
int ncmpi_allreduce_on(struct ncmpi_comm *c, const void *sendbuf,
		       void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
		       enum ncmpi_path path);

/* tune.c */
void ncmpi_tune_env(void);
int ncmpi_tune(MPI_Comm comm, struct ncmpi_comm *c);
enum ncmpi_path ncmpi_allreduce_path(const struct ncmpi_comm *c, size_t bytes);

/* types.c */
int ncmpi_contig_bytes(MPI_Datatype type, size_t count, size_t *bytes);
int ncmpi_red_map(MPI_Datatype type, MPI_Op op, int logical,
		  enum nc_dtype *dt, enum nc_op *nop, size_t *elem);

#endif

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * MPI_Init and MPI_Finalize: the netcoll communicator of MPI_COMM_WORLD,
 * made with MPI itself as the rendezvous.  Every rank gathers every
 * rank's device address (PMPI_Allgather), rank 0 draws the id and cookie,
 * each rank creates its side and binds; the ranks agree on the outcome
 * after each step (PMPI_Allreduce), so either all use netcoll or none
 * does.  An id taken on some host is drawn again.
 *
 * Environment: NETCOLL_MPI=off keeps everything on MPI; NETCOLL_DEV names
 * the device (default: the only one attached); NETCOLL_MPI_VERBOSE=1
 * prints at MPI_Finalize, per call kind, the calls that went to netcoll
 * and those that went to MPI, summed over the ranks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "netcoll_mpi.h"

struct ncmpi_state ncmpi = { .keyval = MPI_KEYVAL_INVALID };

static const char *const ncmpi_kind_names[NCMPI_KINDS] = {
	[NCMPI_BARRIER]			= "MPI_Barrier",
	[NCMPI_BCAST]			= "MPI_Bcast",
	[NCMPI_REDUCE]			= "MPI_Reduce",
	[NCMPI_ALLREDUCE]		= "MPI_Allreduce",
	[NCMPI_ALLTOALL]		= "MPI_Alltoall",
	[NCMPI_ALLGATHER]		= "MPI_Allgather",
	[NCMPI_REDUCE_SCATTER_BLOCK]	= "MPI_Reduce_scatter_block",
};

/* Ids above this are drawn; below stay for the admin's fixed ones. */
#define NCMPI_ID_MIN	0x10000000u
#define NCMPI_ID_TRIES	4

static void ncmpi_say(const char *fmt, const char *what, int err)
{
	if (ncmpi.verbose)
		fprintf(stderr, fmt, ncmpi.rank, what, nc_strerror(err));
}

/* Every rank's err; 0 only if every rank's is 0 (else the lowest). */
static int ncmpi_agree(int err)
{
	int all = 0;

	if (PMPI_Allreduce(&err, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD) !=
	    MPI_SUCCESS)
		return -EIO;
	return all;
}

static int ncmpi_device(struct nc_dev_info *dev)
{
	const char *name = getenv("NETCOLL_DEV");
	struct nc_dev_info *devs = NULL;
	size_t n = 0;
	int err;

	err = nc_ctl_open(&ncmpi.ctl);
	if (err)
		return err;
	err = nc_dev_list(ncmpi.ctl, name && *name ? name : NULL, &devs, &n);
	if (!err && n != 1)
		err = n ? -EMLINK : -ENODEV;	/* several: NETCOLL_DEV says */
	if (!err)
		*dev = devs[0];
	free(devs);
	return err;
}

/* Several ranks on one host need one member per rank: not yet. */
static int ncmpi_one_per_host(void)
{
	MPI_Comm node;
	int n = 1;

	if (PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0,
				 MPI_INFO_NULL, &node) != MPI_SUCCESS)
		return -EIO;
	PMPI_Comm_size(node, &n);
	PMPI_Comm_free(&node);
	return n == 1 ? 0 : -EADDRINUSE;
}

static int ncmpi_create(const struct nc_dev_info *dev, struct nc_member *m)
{
	struct { uint32_t id; uint64_t cookie; } pick = { 0, 0 };
	struct nc_comm_spec spec;
	int err, all, tries;

	for (tries = 0; tries < NCMPI_ID_TRIES; tries++) {
		if (ncmpi.rank == 0 &&
		    getrandom(&pick, sizeof(pick), 0) != sizeof(pick))
			pick.id = 0;
		pick.id = NCMPI_ID_MIN + pick.id % (0x7fffffffu - NCMPI_ID_MIN);
		if (PMPI_Bcast(&pick, sizeof(pick), MPI_BYTE, 0, MPI_COMM_WORLD) !=
		    MPI_SUCCESS)
			return -EIO;
		memset(&spec, 0, sizeof(spec));
		spec.id = pick.id;
		spec.ifname = dev->ifname;
		spec.rank = ncmpi.rank;
		spec.size = ncmpi.size;
		spec.members = m;
		spec.cookie = pick.cookie;
		err = nc_comm_create(ncmpi.ctl, &spec);
		all = ncmpi_agree(err);
		if (!all) {
			ncmpi.id = pick.id;
			return 0;
		}
		if (!err)
			nc_comm_delete(ncmpi.ctl, pick.id);
		if (all != -EEXIST)
			return all;
	}
	return -EEXIST;
}

static void ncmpi_setup(int provided)
{
	struct nc_dev_info dev;
	struct nc_member *m = NULL;
	const char *env = getenv("NETCOLL_MPI_VERBOSE");
	int err;

	ncmpi.verbose = env && *env && strcmp(env, "0");
	PMPI_Comm_rank(MPI_COMM_WORLD, &ncmpi.rank);
	PMPI_Comm_size(MPI_COMM_WORLD, &ncmpi.size);
	env = getenv("NETCOLL_MPI");
	if (env && (!strcmp(env, "off") || !strcmp(env, "0")))
		return;		/* the same environment on every rank */
	if (ncmpi.size < 2 || provided == MPI_THREAD_MULTIPLE) {
		if (ncmpi.rank == 0 && ncmpi.verbose)
			fprintf(stderr, "netcoll-mpi: off (%s)\n", ncmpi.size < 2 ?
				"one rank" : "MPI_THREAD_MULTIPLE");
		return;
	}
	err = ncmpi_agree(ncmpi_one_per_host());
	if (err) {
		ncmpi_say("netcoll-mpi: rank %d: off (%s: %s)\n",
			  "several ranks on one host", err);
		return;
	}
	memset(&dev, 0, sizeof(dev));
	err = ncmpi_device(&dev);
	m = calloc(ncmpi.size, sizeof(*m));
	if (!m)
		err = err ?: -ENOMEM;
	if (ncmpi_agree(err))
		goto fail;
	memcpy(m[ncmpi.rank].addr, dev.addr, sizeof(dev.addr));
	m[ncmpi.rank].addr_len = dev.addr_len;
	if (PMPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, m, sizeof(*m),
			   MPI_BYTE, MPI_COMM_WORLD) != MPI_SUCCESS) {
		err = -EIO;
		goto fail;
	}
	err = ncmpi_create(&dev, m);
	if (err)
		goto fail;
	err = nc_open(&ncmpi.ep, NULL);
	if (!err)
		err = nc_bind(ncmpi.ep, ncmpi.id, ncmpi.rank);
	if (ncmpi_agree(err)) {
		err = err ?: ncmpi_agree(err);
		nc_comm_delete(ncmpi.ctl, ncmpi.id);
		goto fail;
	}
	free(m);
	ncmpi.on = 1;
	if (ncmpi.rank == 0 && ncmpi.verbose)
		fprintf(stderr, "netcoll-mpi: on, communicator %u of %d ranks on %s\n",
			ncmpi.id, ncmpi.size, dev.ifname);
	return;
fail:
	free(m);
	ncmpi_say("netcoll-mpi: rank %d: off (%s: %s)\n", "setup", err);
	if (ncmpi.ep)
		nc_close(ncmpi.ep);
	ncmpi.ep = NULL;
	nc_ctl_close(ncmpi.ctl);
	ncmpi.ctl = NULL;
}

int MPI_Init(int *argc, char ***argv)
{
	int err = PMPI_Init(argc, argv);

	if (err == MPI_SUCCESS)
		ncmpi_setup(MPI_THREAD_SINGLE);
	return err;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	int err = PMPI_Init_thread(argc, argv, required, provided);

	if (err == MPI_SUCCESS)
		ncmpi_setup(*provided);
	return err;
}

static void ncmpi_report(void)
{
	unsigned long sum[NCMPI_KINDS][2];
	int k;

	if (PMPI_Reduce(ncmpi.calls, sum, NCMPI_KINDS * 2, MPI_UNSIGNED_LONG,
			MPI_SUM, 0, MPI_COMM_WORLD) != MPI_SUCCESS || ncmpi.rank)
		return;
	for (k = 0; k < NCMPI_KINDS; k++)
		if (sum[k][0] || sum[k][1])
			fprintf(stderr, "netcoll-mpi: %s: %lu netcoll, %lu MPI\n",
				ncmpi_kind_names[k], sum[k][0], sum[k][1]);
}

int MPI_Finalize(void)
{
	if (ncmpi.verbose)
		ncmpi_report();
	if (ncmpi.on) {
		/* every rank is done with netcoll: nobody needs a repair */
		PMPI_Barrier(MPI_COMM_WORLD);
		nc_close(ncmpi.ep);
		nc_comm_delete(ncmpi.ctl, ncmpi.id);
		nc_ctl_close(ncmpi.ctl);
		ncmpi.on = 0;
	}
	if (ncmpi.keyval != MPI_KEYVAL_INVALID)
		PMPI_Comm_free_keyval(&ncmpi.keyval);
	free(ncmpi.scratch);
	ncmpi.scratch = NULL;
	return PMPI_Finalize();
}

/*
 * Does netcoll take collectives on comm?  MPI_COMM_WORLD and communicators
 * congruent to it (MPI_Comm_dup of it): blocking collectives on them run
 * in one order on every rank, as the MPI standard requires of a correct
 * program, so one netcoll communicator serves them all.  The answer is
 * cached on the communicator.
 */
int ncmpi_takes(MPI_Comm comm)
{
	int flag = 0, res;
	void *val;

	if (!ncmpi.on)
		return 0;
	if (comm == MPI_COMM_WORLD)
		return 1;
	if (comm == MPI_COMM_NULL)
		return 0;
	if (ncmpi.keyval == MPI_KEYVAL_INVALID &&
	    PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN,
				    &ncmpi.keyval, NULL) != MPI_SUCCESS)
		return 0;
	if (PMPI_Comm_get_attr(comm, ncmpi.keyval, &val, &flag) == MPI_SUCCESS && flag)
		return (int)(intptr_t)val - 1;
	if (PMPI_Comm_compare(comm, MPI_COMM_WORLD, &res) != MPI_SUCCESS)
		return 0;
	res = res == MPI_CONGRUENT || res == MPI_IDENT;
	PMPI_Comm_set_attr(comm, ncmpi.keyval, (void *)(intptr_t)(res + 1));
	return res;
}

void ncmpi_count(enum ncmpi_kind kind, int netcoll)
{
	ncmpi.calls[kind][!netcoll]++;
}

void *ncmpi_scratch(size_t len)
{
	void *p;

	if (len <= ncmpi.scratch_len)
		return ncmpi.scratch;
	p = realloc(ncmpi.scratch, len);
	if (!p)
		return NULL;
	ncmpi.scratch = p;
	ncmpi.scratch_len = len;
	return p;
}

/*
 * netcoll failed a call the ranks had agreed to give it: some ranks may
 * have its result, so MPI cannot take over.  The communicator's error
 * handler decides (by default MPI_ERRORS_ARE_FATAL aborts the job).
 */
int ncmpi_failed(MPI_Comm comm, const char *call, int err)
{
	fprintf(stderr, "netcoll-mpi: rank %d: %s: %s\n", ncmpi.rank, call,
		nc_strerror(err));
	PMPI_Comm_call_errhandler(comm, MPI_ERR_OTHER);
	return MPI_ERR_OTHER;
}

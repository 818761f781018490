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
 * and those that went to MPI, summed over the ranks;
 * NETCOLL_MPI_TIMEOUT_MS sets each operation's time budget (below);
 * NETCOLL_MPI_BCAST_TUNE=1 and NETCOLL_MPI_ALLREDUCE_TUNE=1 measure, here
 * and for each other shape of communicator at its first call, how
 * broadcasts and allreduces of each size go fastest (tune.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <linux/netcoll.h>

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

/*
 * An MPI collective waits for its slowest rank as long as it takes: ranks
 * enter a collective minutes apart in a program with load imbalance, and
 * large vectors on slow links take long.  The kernel's default budget (5 s)
 * suits neither, so every communicator made here gets the longest the
 * kernel allows (one hour; MPI itself sets no limit).  A dead peer host
 * still fails an operation within the kernel's retransmission budget (a
 * live one answers, a dead one does not), and mpirun ends the job when a
 * process dies.
 */
#define NCMPI_TIMEOUT_MS_DEFAULT	NETCOLL_TIMEOUT_MS_MAX

#define NCMPI_ID_TRIES	4

static void ncmpi_say(const char *fmt, const char *what, int err)
{
	if (ncmpi.verbose)
		fprintf(stderr, fmt, ncmpi.rank, what, nc_strerror(err));
}

/* Every rank's err on comm; 0 only if every rank's is 0 (else the lowest). */
int ncmpi_agree(MPI_Comm comm, int err)
{
	int all = 0;

	if (PMPI_Allreduce(&err, &all, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
		return -EIO;
	return all;
}

/* NETCOLL_MPI_TIMEOUT_MS, in [NETCOLL_TIMEOUT_MS_MIN, _MAX]. */
static int ncmpi_timeout(uint32_t *ms)
{
	const char *env = getenv("NETCOLL_MPI_TIMEOUT_MS");
	unsigned long v;
	char *end;

	*ms = NCMPI_TIMEOUT_MS_DEFAULT;
	if (!env || !*env)
		return 0;
	errno = 0;
	v = strtoul(env, &end, 10);
	if (errno || *end || *env == '-' || v < NETCOLL_TIMEOUT_MS_MIN ||
	    v > NETCOLL_TIMEOUT_MS_MAX)
		return -EINVAL;
	*ms = v;
	return 0;
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

/*
 * Each rank of comm (rank of size) creates its side of c with members m
 * (in comm's rank order): rank 0 draws id and cookie, and an id some host
 * already has is drawn again.  Then each opens and binds its endpoint.  0
 * on every rank or an error on every rank (and nothing left).
 */
static int ncmpi_create(MPI_Comm comm, int rank, int size,
			struct ncmpi_comm *c, struct nc_member *m)
{
	struct { uint32_t id; uint64_t cookie; } pick = { 0, 0 };
	struct nc_comm_spec spec;
	int err, all, tries;

	for (tries = 0; tries < NCMPI_ID_TRIES; tries++) {
		if (rank == 0 &&
		    getrandom(&pick, sizeof(pick), 0) != sizeof(pick))
			pick.id = 0;
		/* from the users' range: below are the admin's fixed ids */
		pick.id = NETCOLL_COMM_ID_USER_MIN + pick.id %
			  (NETCOLL_COMM_ID_MAX - NETCOLL_COMM_ID_USER_MIN + 1);
		if (PMPI_Bcast(&pick, sizeof(pick), MPI_BYTE, 0, comm) != MPI_SUCCESS)
			return -EIO;
		memset(&spec, 0, sizeof(spec));
		spec.id = pick.id;
		spec.ifname = ncmpi.dev.ifname;
		spec.rank = rank;
		spec.size = size;
		spec.members = m;
		spec.cookie = pick.cookie;
		spec.timeout_ms = ncmpi.timeout_ms;
		/* a job that dies leaves no communicator behind */
		spec.flags = NC_COMM_SPEC_TRANSIENT;
		err = nc_comm_create(ncmpi.ctl, &spec);
		all = ncmpi_agree(comm, err);
		if (!all)
			break;
		if (!err)
			nc_comm_delete(ncmpi.ctl, pick.id);
		if (all != -EEXIST)
			return all;
	}
	if (tries == NCMPI_ID_TRIES)
		return -EEXIST;
	c->id = pick.id;
	err = nc_open(&c->ep, NULL);
	if (!err)
		err = nc_bind(c->ep, c->id, rank);
	all = ncmpi_agree(comm, err);
	if (all) {
		if (c->ep)
			nc_close(c->ep);
		c->ep = NULL;
		nc_comm_delete(ncmpi.ctl, c->id);
	}
	return all;
}

/* The other side of ncmpi_build: every rank of c's communicator is done with it. */
static void ncmpi_destroy(struct ncmpi_comm *c)
{
	if (c->ep) {
		nc_close(c->ep);
		c->ep = NULL;
		nc_comm_delete(ncmpi.ctl, c->id);
	}
	if (c->node != MPI_COMM_NULL)
		PMPI_Comm_free(&c->node);
	free(c->host);
	free(c->lead);
	c->host = NULL;
	c->lead = NULL;
}

static int ncmpi_build(MPI_Comm comm, struct ncmpi_comm *c);

static void ncmpi_setup(int provided)
{
	struct ncmpi_comm *w = &ncmpi.world;
	const char *env = getenv("NETCOLL_MPI_VERBOSE");
	int err;

	ncmpi.verbose = env && *env && strcmp(env, "0");
	PMPI_Comm_rank(MPI_COMM_WORLD, &ncmpi.rank);
	PMPI_Comm_size(MPI_COMM_WORLD, &ncmpi.size);
	w->rank = ncmpi.rank;
	w->size = ncmpi.size;
	w->node = MPI_COMM_NULL;
	env = getenv("NETCOLL_MPI");
	if (env && (!strcmp(env, "off") || !strcmp(env, "0")))
		return;		/* the same environment on every rank */
	if (ncmpi.size < 2 || provided == MPI_THREAD_MULTIPLE) {
		if (ncmpi.rank == 0 && ncmpi.verbose)
			fprintf(stderr, "netcoll-mpi: off (%s)\n", ncmpi.size < 2 ?
				"one rank" : "MPI_THREAD_MULTIPLE");
		return;
	}
	ncmpi_tune_env();
	err = ncmpi_timeout(&ncmpi.timeout_ms);
	if (err) {
		ncmpi_say("netcoll-mpi: rank %d: off (%s: %s)\n",
			  "NETCOLL_MPI_TIMEOUT_MS", err);
		return;		/* the same environment on every rank */
	}
	err = ncmpi_device(&ncmpi.dev);
	ncmpi.addrs = calloc(ncmpi.size, sizeof(*ncmpi.addrs));
	if (!ncmpi.addrs)
		err = err ?: -ENOMEM;
	if (ncmpi_agree(MPI_COMM_WORLD, err))
		goto fail;
	memcpy(ncmpi.addrs[ncmpi.rank].addr, ncmpi.dev.addr,
	       sizeof(ncmpi.dev.addr));
	ncmpi.addrs[ncmpi.rank].addr_len = ncmpi.dev.addr_len;
	if (PMPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, ncmpi.addrs,
			   sizeof(*ncmpi.addrs), MPI_BYTE, MPI_COMM_WORLD) !=
	    MPI_SUCCESS) {
		err = -EIO;
		goto fail;
	}
	err = ncmpi_build(MPI_COMM_WORLD, w);
	if (err)
		goto fail;
	err = ncmpi_tune(MPI_COMM_WORLD, w);
	if (err) {
		ncmpi_destroy(w);	/* a failed operation broke it */
		goto fail;
	}
	ncmpi.on = 1;
	if (ncmpi.rank == 0 && ncmpi.verbose)	/* rank 0 leads its host */
		fprintf(stderr, "netcoll-mpi: on, communicator %u of %d ranks on %d hosts on %s\n",
			w->id, ncmpi.size, w->hosts, ncmpi.dev.ifname);
	return;
fail:
	ncmpi_say("netcoll-mpi: rank %d: off (%s: %s)\n", "setup", err);
	free(ncmpi.addrs);
	ncmpi.addrs = NULL;
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
	unsigned long sum[NCMPI_KINDS][2], subs[2], measured;
	int k;

	if (PMPI_Reduce(ncmpi.calls, sum, NCMPI_KINDS * 2, MPI_UNSIGNED_LONG,
			MPI_SUM, 0, MPI_COMM_WORLD) != MPI_SUCCESS ||
	    PMPI_Reduce(ncmpi.subs_made, subs, 2, MPI_UNSIGNED_LONG,
			MPI_SUM, 0, MPI_COMM_WORLD) != MPI_SUCCESS ||
	    PMPI_Reduce(&ncmpi.allreduce_measured_mpi, &measured, 1,
			MPI_UNSIGNED_LONG, MPI_SUM, 0, MPI_COMM_WORLD) !=
	    MPI_SUCCESS || ncmpi.rank)
		return;
	for (k = 0; k < NCMPI_KINDS; k++)
		if (sum[k][0] || sum[k][1])
			fprintf(stderr, "netcoll-mpi: %s: %lu netcoll, %lu MPI\n",
				ncmpi_kind_names[k], sum[k][0], sum[k][1]);
	if (ncmpi.tune_allreduce)
		fprintf(stderr, "netcoll-mpi: MPI_Allreduce: %lu of them to MPI, the faster there when measured\n",
			measured);
	if (subs[0] || subs[1])
		fprintf(stderr, "netcoll-mpi: sub-communicators (a side per rank): %lu netcoll, %lu MPI\n",
			subs[0], subs[1]);
}

int MPI_Finalize(void)
{
	struct ncmpi_comm *c;

	if (ncmpi.verbose)
		ncmpi_report();
	if (ncmpi.on) {
		/* every rank is done with netcoll: nobody needs a repair */
		PMPI_Barrier(MPI_COMM_WORLD);
		while ((c = ncmpi.subs)) {	/* those never freed */
			ncmpi.subs = c->next;
			ncmpi_destroy(c);
			free(c);
		}
		ncmpi.nsubs = 0;
		ncmpi_destroy(&ncmpi.world);
		nc_ctl_close(ncmpi.ctl);
		ncmpi.ctl = NULL;
		ncmpi.on = 0;
	}
	ncmpi.finalized = 1;
	if (ncmpi.keyval != MPI_KEYVAL_INVALID)
		PMPI_Comm_free_keyval(&ncmpi.keyval);
	free(ncmpi.addrs);
	ncmpi.addrs = NULL;
	free(ncmpi.scratch);
	ncmpi.scratch = NULL;
	return PMPI_Finalize();
}

/* The attribute's value for a communicator netcoll does not take. */
static struct ncmpi_comm ncmpi_mpi;

/* MPI_Comm_dup: the duplicate shares the netcoll communicator. */
static int ncmpi_attr_copy(MPI_Comm old, int keyval, void *extra, void *in,
			   void *out, int *flag)
{
	struct ncmpi_comm *c = in;

	if (c != &ncmpi_mpi && c != &ncmpi.world)
		c->refs++;
	*(void **)out = c;
	*flag = 1;
	return MPI_SUCCESS;
}

/* MPI_Comm_free (after its barrier) or MPI_Finalize: drop a reference. */
static int ncmpi_attr_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
	struct ncmpi_comm *c = val, **p;

	if (ncmpi.finalized || c == &ncmpi_mpi || c == &ncmpi.world ||
	    --c->refs > 0)
		return MPI_SUCCESS;
	for (p = &ncmpi.subs; *p; p = &(*p)->next)
		if (*p == c) {
			*p = c->next;
			break;
		}
	ncmpi.nsubs--;
	ncmpi_destroy(c);
	free(c);
	return MPI_SUCCESS;
}

static struct ncmpi_comm *ncmpi_cached(MPI_Comm comm)
{
	void *val;
	int flag = 0;

	if (ncmpi.keyval == MPI_KEYVAL_INVALID ||
	    PMPI_Comm_get_attr(comm, ncmpi.keyval, &val, &flag) != MPI_SUCCESS ||
	    !flag)
		return NULL;
	return val;
}

/*
 * The last MPI communicator using a netcoll one is freed: once every rank
 * is here, none waits for a repair of a netcoll operation on it, and the
 * delete callback may delete this side.
 */
int MPI_Comm_free(MPI_Comm *comm)
{
	struct ncmpi_comm *c = ncmpi_cached(*comm);

	if (c && c != &ncmpi_mpi && c != &ncmpi.world && c->refs == 1)
		PMPI_Barrier(*comm);
	return PMPI_Comm_free(comm);
}

/* comm's members, as addresses in comm's rank order (world's table). */
static int ncmpi_members(MPI_Comm comm, int size, struct nc_member **m)
{
	MPI_Group group, world;
	int *in, *out, i, err = 0;

	in = calloc(size, sizeof(*in));
	out = calloc(size, sizeof(*out));
	*m = calloc(size, sizeof(**m));
	if (!in || !out || !*m) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < size; i++)
		in[i] = i;
	if (PMPI_Comm_group(comm, &group) != MPI_SUCCESS) {
		err = -EIO;
		goto out;
	}
	if (PMPI_Comm_group(MPI_COMM_WORLD, &world) == MPI_SUCCESS) {
		if (PMPI_Group_translate_ranks(group, size, in, world, out) !=
		    MPI_SUCCESS)
			err = -EIO;
		PMPI_Group_free(&world);
	} else {
		err = -EIO;
	}
	PMPI_Group_free(&group);
	for (i = 0; !err && i < size; i++) {
		if (out[i] == MPI_UNDEFINED)	/* not of this world */
			err = -EXDEV;
		else
			(*m)[i] = ncmpi.addrs[out[i]];
	}
out:
	free(in);
	free(out);
	if (err) {
		free(*m);
		*m = NULL;
	}
	return err;
}

/*
 * comm's hosts: c->node (MPI_COMM_NULL if each host has one rank of
 * comm), c->hosts, c->host[] and c->lead[]; *leaders: the leaders' MPI
 * communicator (MPI_COMM_NULL off them, and with one rank per host).
 * The same outcome on every rank.
 */
static int ncmpi_hosts(MPI_Comm comm, struct ncmpi_comm *c, MPI_Comm *leaders)
{
	int nrank = 0, nsize = 1, most = 0, me[2] = { 0, 0 }, *all, r, err = 0;

	*leaders = MPI_COMM_NULL;
	if (PMPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL,
				 &c->node) != MPI_SUCCESS)
		c->node = MPI_COMM_NULL;
	if (c->node != MPI_COMM_NULL) {
		PMPI_Comm_rank(c->node, &nrank);
		PMPI_Comm_size(c->node, &nsize);
	} else {
		err = -EIO;
	}
	if (PMPI_Allreduce(&nsize, &most, 1, MPI_INT, MPI_MAX, comm) != MPI_SUCCESS)
		err = -EIO;
	err = ncmpi_agree(comm, err);
	if (err || most == 1) {
		if (c->node != MPI_COMM_NULL)
			PMPI_Comm_free(&c->node);
		c->hosts = c->size;
		return err;
	}
	/* the leaders, in comm's rank order, are the netcoll ranks 0, 1, ... */
	if (PMPI_Comm_split(comm, nrank == 0 ? 0 : MPI_UNDEFINED, c->rank,
			    leaders) != MPI_SUCCESS)
		err = -EIO;
	if (!err && nrank == 0)
		PMPI_Comm_rank(*leaders, &me[0]);
	me[1] = nrank == 0;
	c->host = calloc(c->size, sizeof(*c->host));
	c->lead = calloc(c->size, sizeof(*c->lead));
	all = calloc(2 * (size_t)c->size, sizeof(*all));
	if (!c->host || !c->lead || !all)
		err = -ENOMEM;
	if (!err && (PMPI_Bcast(&me[0], 1, MPI_INT, 0, c->node) != MPI_SUCCESS ||
		     PMPI_Allgather(me, 2, MPI_INT, all, 2, MPI_INT, comm) != MPI_SUCCESS))
		err = -EIO;
	for (r = 0, c->hosts = 0; !err && r < c->size; r++) {
		c->host[r] = all[2 * r];
		c->lead[r] = all[2 * r + 1];
		c->hosts += c->lead[r];
	}
	free(all);
	return ncmpi_agree(comm, err);
}

/*
 * c's netcoll communicator for comm: with one rank
 * per host every rank is a member; with several, each host's leader is,
 * for its host.  0 on every rank, or an error on every rank and nothing
 * left.
 */
static int ncmpi_build(MPI_Comm comm, struct ncmpi_comm *c)
{
	struct nc_member *m = NULL;
	MPI_Comm leaders;
	int err, lrank;

	PMPI_Comm_rank(comm, &c->rank);
	PMPI_Comm_size(comm, &c->size);
	lrank = c->rank;
	err = ncmpi_hosts(comm, c, &leaders);
	if (!err && !ncmpi_hier(c))
		err = ncmpi_members(comm, c->size, &m);
	else if (!err && leaders != MPI_COMM_NULL) {
		PMPI_Comm_rank(leaders, &lrank);
		err = ncmpi_members(leaders, c->hosts, &m);
	}
	err = ncmpi_agree(comm, err);
	if (!err && !ncmpi_hier(c))
		err = ncmpi_create(comm, c->rank, c->size, c, m);
	else if (!err && leaders != MPI_COMM_NULL)
		err = ncmpi_create(leaders, lrank, c->hosts, c, m);
	free(m);
	if (leaders != MPI_COMM_NULL)
		PMPI_Comm_free(&leaders);
	/* the leaders agreed among themselves: the others learn it here */
	if (ncmpi_hier(c))
		err = ncmpi_agree(comm, err);
	if (err)
		ncmpi_destroy(c);	/* the leaders left nothing in the kernel */
	return err;
}

/*
 * A netcoll communicator for comm, at its first collective call (every
 * rank of comm is in this call).  NULL on every rank if any rank cannot
 * make its side.
 */
static struct ncmpi_comm *ncmpi_make(MPI_Comm comm)
{
	struct ncmpi_comm *c = calloc(1, sizeof(*c));
	int err = 0;

	if (!c)
		err = -ENOMEM;
	else if (ncmpi.nsubs >= NCMPI_SUBS_MAX)
		err = -EMFILE;
	err = ncmpi_agree(comm, err);
	if (!err) {
		c->node = MPI_COMM_NULL;
		err = ncmpi_build(comm, c);
	}
	if (!err) {
		err = ncmpi_tune(comm, c);
		if (err)
			ncmpi_destroy(c);
	}
	ncmpi.subs_made[!!err]++;
	if (err) {
		ncmpi_say("netcoll-mpi: rank %d: a %s goes to MPI (%s)\n",
			  "sub-communicator", err);
		free(c);
		return NULL;
	}
	c->refs = 1;
	c->next = ncmpi.subs;
	ncmpi.subs = c;
	ncmpi.nsubs++;
	return c;
}

/*
 * The netcoll communicator that takes collectives on comm, or NULL.
 * MPI_COMM_WORLD and communicators congruent to it share the world's:
 * blocking collectives on them run in one order on every rank, as the MPI
 * standard requires of a correct program.  Any other intra-communicator of
 * two or more ranks gets its own (ncmpi_make).  The answer is cached on
 * the communicator and decided alike on every rank.
 */
struct ncmpi_comm *ncmpi_takes(MPI_Comm comm)
{
	struct ncmpi_comm *c;
	int res, inter = 1, size = 0;

	if (!ncmpi.on)
		return NULL;
	if (comm == MPI_COMM_WORLD)
		return &ncmpi.world;
	if (comm == MPI_COMM_NULL)
		return NULL;
	if (ncmpi.keyval == MPI_KEYVAL_INVALID &&
	    PMPI_Comm_create_keyval(ncmpi_attr_copy, ncmpi_attr_delete,
				    &ncmpi.keyval, NULL) != MPI_SUCCESS)
		return NULL;
	c = ncmpi_cached(comm);
	if (c)
		return c == &ncmpi_mpi ? NULL : c;
	if (PMPI_Comm_compare(comm, MPI_COMM_WORLD, &res) != MPI_SUCCESS)
		return NULL;
	PMPI_Comm_test_inter(comm, &inter);
	PMPI_Comm_size(comm, &size);
	if (res == MPI_CONGRUENT || res == MPI_IDENT)
		c = &ncmpi.world;
	else if (!inter && size >= 2)
		c = ncmpi_make(comm);
	if (!c)
		c = &ncmpi_mpi;
	if (PMPI_Comm_set_attr(comm, ncmpi.keyval, c) != MPI_SUCCESS) {
		ncmpi_attr_delete(comm, ncmpi.keyval, c, NULL);
		return NULL;
	}
	return c == &ncmpi_mpi ? NULL : c;
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

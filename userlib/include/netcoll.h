/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libnetcoll: the public C API of netcoll.
 *
 * Two halves:
 *   - the data path: an endpoint (/dev/netcoll) bound to a communicator
 *     runs collectives (nc_barrier, nc_alltoall, ...);
 *   - configuration over generic netlink (nc_ctl_*): attach devices,
 *     create communicators, read statistics and events.
 *
 * Every function returning int returns 0 (or a count) on success and a
 * negative error code on failure: -errno as the kernel reported it, or one
 * of the NC_E* codes below.  nc_strerror() turns either into a sentence.
 * This header does not need any kernel header.  The planner (topologies,
 * trees, the latency model) has its own header, netcoll_plan.h.
 *
 * Threads:
 *   - an nc_endpoint may be shared: collectives on it from several threads
 *     are serialised where they must be by the kernel (BIND and alltoall
 *     one at a time per endpoint); a request from nc_ireduce_ex() is waited
 *     for by one thread (a second one gets -EBUSY).  Ranks match
 *     collectives by the order they start, so threads starting them at
 *     once must do so in the same order on every rank.  nc_set_timeout() and
 *     nc_set_dist() change defaults without a lock: call them before
 *     sharing the endpoint;
 *   - an nc_ctl is one netlink socket and its last error: one thread at a
 *     time (open one per thread);
 *   - everything else keeps no global state and is reentrant.  Computing
 *     a schedule (nc_sched_install) may run worker threads of its own,
 *     joined before it returns.
 *
 * Extending structs: a struct the caller fills has a field saying which of
 * its later fields are valid (nc_red_args.comp_mask, nc_comm_spec.flags,
 * as libibverbs' comp_mask); 0 means the base fields only, and a bit this
 * library does not know makes the call fail with -EINVAL.
 */
#ifndef NETCOLL_H
#define NETCOLL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What this header declares is libnetcoll's interface; the rest is hidden. */
#pragma GCC visibility push(default)

#define NC_LIB_VERSION_MAJOR	0
#define NC_LIB_VERSION_MINOR	3

/* Library errors (returned negated, like errno values). */
enum nc_error {
	NC_ENOMODULE = 2000,	/* /dev/netcoll or the netlink family is absent */
	NC_EABI,		/* module speaks another ABI version */
	NC_EPARSE,		/* a text argument could not be parsed */
	NC_EPROTO,		/* malformed netlink answer */
};

const char *nc_strerror(int err);

/* ---------------------------------------------------------------- */
/* Data path                                                         */
/* ---------------------------------------------------------------- */

typedef struct nc_endpoint nc_endpoint;

enum nc_a2a_algo {
	NC_A2A_DEFAULT = 0,	/* the installed schedule, else ring */
	NC_A2A_LINEAR = 1,	/* LAM order: 0, 1, ..., P-1 */
	NC_A2A_PAIRWISE = 2,	/* MPICH pairwise: r^i (P power of 2), else r+i */
	NC_A2A_RING = 3,	/* step i: send to (r + i) mod P */
	NC_A2A_SCHED = 4,	/* the installed schedule; -ENOENT if none */
};

struct nc_info {
	uint32_t abi_version;
	uint32_t wire_version;
	uint64_t features;
	uint32_t comm_size_max;
};

/* Open /dev/netcoll (path NULL = default) and check the ABI version. */
int nc_open(nc_endpoint **ep, const char *path);
void nc_close(nc_endpoint *ep);
int nc_get_info(nc_endpoint *ep, struct nc_info *info);

/* Bind to communicator comm_id of this network namespace as rank. */
int nc_bind(nc_endpoint *ep, uint32_t comm_id, uint32_t rank);
/* Members of the bound communicator (P), or -ENOTCONN before nc_bind. */
int nc_comm_size(const nc_endpoint *ep);
/* This endpoint's rank in it, or -ENOTCONN before nc_bind. */
int nc_comm_rank(const nc_endpoint *ep);
/*
 * The pieces a reduction of `bytes` gets with split 0 (nc_red_args):
 * nc_split_for_mtu() with the communicator's size and the MTU its device
 * has now, as the kernel reports it on the endpoint.  1 before nc_bind.
 */
uint32_t nc_comm_split(const nc_endpoint *ep, size_t bytes);
/* Per-operation time budget in ms; 0 = the communicator's default. */
int nc_set_timeout(nc_endpoint *ep, uint32_t timeout_ms);

int nc_barrier(nc_endpoint *ep);
/* sendbuf: P blocks of count bytes (block i to rank i); recvbuf likewise. */
int nc_alltoall(nc_endpoint *ep, const void *sendbuf, void *recvbuf,
		size_t count);
int nc_alltoall_algo(nc_endpoint *ep, const void *sendbuf, void *recvbuf,
		     size_t count, enum nc_a2a_algo algo);

/*
 * Reductions on the kernel's aggregation trees.  Values are the uapi's
 * enum netcoll_red_op / netcoll_dtype.  minloc/maxloc elements are
 * struct { T value; int32_t index; } (MPI_2INT, MPI_LONG_INT, ... layouts).
 */
enum nc_op {
	NC_OP_SUM, NC_OP_PROD, NC_OP_MIN, NC_OP_MAX, NC_OP_BAND, NC_OP_BOR,
	NC_OP_BXOR, NC_OP_MINLOC, NC_OP_MAXLOC,
	NC_OP_COUNT
};

enum nc_dtype {
	NC_DT_INT32, NC_DT_INT64, NC_DT_UINT32, NC_DT_UINT64, NC_DT_FLOAT,
	NC_DT_DOUBLE,
	NC_DT_COUNT
};

/* How the result travels from the tree's root. */
enum nc_dist {
	NC_DIST_TREE = 0,	/* down the tree, hop by hop */
	NC_DIST_MCAST = 1,	/* one multicast, lost frames repaired by unicast */
	NC_DIST_AUTO = 2,	/* chosen by size: broadcasts in the range
				 * of nc_set_bcast_mcast() and allreduce
				 * results in that of
				 * nc_set_allreduce_mcast() multicast, the
				 * rest (and rooted reductions) go down
				 * the tree
				 */
};

struct nc_red_args {
	uint32_t comp_mask;	/* later fields valid (none yet): 0 */
	const void *sendbuf;
	void *recvbuf;		/* may equal sendbuf */
	size_t count;		/* elements; 0 = barrier */
	enum nc_dtype dtype;
	enum nc_op op;
	uint32_t root;		/* reduce only */
	int all;		/* 1: allreduce */
	enum nc_dist dist;
	uint32_t split;		/* pieces on parallel trees; 0: the library's
				 * choice for the size and the device's MTU
				 * (nc_split_for_mtu)
				 */
};

typedef uint64_t nc_request;

int nc_reduce(nc_endpoint *ep, const void *sendbuf, void *recvbuf,
	      size_t count, enum nc_dtype dtype, enum nc_op op, uint32_t root);
int nc_allreduce(nc_endpoint *ep, const void *sendbuf, void *recvbuf,
		 size_t count, enum nc_dtype dtype, enum nc_op op);
int nc_reduce_ex(nc_endpoint *ep, const struct nc_red_args *a);
/* Post a reduction and return at once; nc_wait() completes it. */
int nc_ireduce_ex(nc_endpoint *ep, const struct nc_red_args *a,
		  nc_request *req);
int nc_wait(nc_endpoint *ep, nc_request req);

/*
 * Broadcast: len bytes of root's buf reach every rank's buf.  The root
 * sends; inner ranks of a tree rooted at it forward each fragment in the
 * kernel's receive path (a descheduled process does not hold up its
 * subtree), or the root multicasts with NC_DIST_MCAST and lost frames are
 * repaired by unicast.  Every rank's process only collects.
 */
struct nc_bcast_args {
	uint32_t comp_mask;	/* later fields valid (none yet): 0 */
	void *buf;
	size_t len;		/* bytes, <= NETCOLL_REDUCE_MAX */
	uint32_t root;
	enum nc_dist dist;
};
int nc_bcast(nc_endpoint *ep, void *buf, size_t len, uint32_t root);
int nc_bcast_ex(nc_endpoint *ep, const struct nc_bcast_args *a);
/* Post a broadcast and return at once; nc_wait() completes it. */
int nc_ibcast_ex(nc_endpoint *ep, const struct nc_bcast_args *a,
		 nc_request *req);
/* Default distribution for nc_reduce/nc_allreduce/nc_barrier/nc_bcast:
 * NC_DIST_AUTO unless set. */
int nc_set_dist(nc_endpoint *ep, enum nc_dist dist);

/*
 * The sizes NC_DIST_AUTO multicasts: broadcasts of min <= len < max bytes
 * (min >= max: none).  Which is faster depends on the network (a switch
 * that copies multicast in hardware, or a software bridge that copies it
 * frame by frame on the hosts' CPUs, where multicast can win for small
 * broadcasts and lose for large ones), so it is measured:
 * nc_bcast_tune() times both on the bound communicator and sets it.
 * Until then min is NETCOLL_BCAST_MCAST_MIN from the environment (0 if
 * only the maximum is given), max NETCOLL_BCAST_MCAST_MAX (SIZE_MAX);
 * with neither, none: always the tree.  Every rank must use the same
 * range (the two send different frames).
 */
int nc_set_bcast_mcast(nc_endpoint *ep, size_t min, size_t max);

/*
 * The same for allreduces under NC_DIST_AUTO: results of min <= bytes <
 * max go from the root to the group at once (lost frames repaired by
 * unicast), the others down the tree; rooted reductions always go down
 * the tree.  A switch copies a multicast frame to every port, so an inner
 * rank's link no longer carries its result once per child, and every
 * rank has it at about the same time.  Until set, NETCOLL_ALLREDUCE_MCAST_MIN
 * and _MAX from the environment as for broadcasts, but with neither from
 * NC_ALLREDUCE_MCAST_MIN_DEFAULT up (NETCOLL_ALLREDUCE_MCAST_MAX=0: none).
 * Every rank must use the same range.
 *
 * From 32 KiB: on the emulated clusters (two switches at MTU 9000, under
 * MPI and alone; a star at MTU 1500) results multicast were up to 1.8x as
 * fast as down the trees from 32 KiB to 4 MiB, with about half the frames,
 * and slower twice (128 KiB alone on two switches: 0.9x; 32 KiB under MPI
 * with spinning ranks: 0.98x); below 32 KiB the two were within a few per
 * cent (docs/apps-bench.md, 2026-12-06).
 */
#define NC_ALLREDUCE_MCAST_MIN_DEFAULT	32768
int nc_set_allreduce_mcast(nc_endpoint *ep, size_t min, size_t max);

#define NC_BCAST_TUNE_SIZES_MAX	16
#define NC_BCAST_TUNE_ITERS	10

/*
 * nc_bcast_tune: a collective (every rank calls it with the same
 * arguments).  For each size, twice, `iters` broadcasts from `root` go
 * down the tree and `iters` by multicast, each set after a barrier, every
 * byte checked on every rank; a set's time is its slowest rank's, the
 * better of the two rounds counts.  The range multicast gets is the run
 * of consecutive sizes where it was faster with the largest summed gain
 * (1 - mcast/tree), from the size halfway (in log scale) to the next
 * smaller size, 0 if the run starts at the smallest, to halfway to the
 * next larger one, SIZE_MAX if it ends at the largest; none if multicast
 * won at no size.  It is set on the endpoint and returned.  Every rank
 * gets the same numbers (one allreduce of the times), so the same choice.
 * Errors: -EINVAL (bad arguments), -ENOTCONN (not bound), -ENOMEM, -EIO
 * (a rank received wrong bytes), or a broadcast's error.
 */
struct nc_bcast_tune {
	uint32_t comp_mask;	/* later fields valid (none yet): 0 */
	uint32_t root;
	uint32_t iters;		/* per size and distribution; 0: NC_BCAST_TUNE_ITERS */
	uint32_t nsizes;	/* 0: 1 KiB, 4 KiB, ... 1 MiB */
	size_t sizes[NC_BCAST_TUNE_SIZES_MAX];	/* ascending, bytes */
	/* results */
	double tree_us[NC_BCAST_TUNE_SIZES_MAX];	/* per broadcast */
	double mcast_us[NC_BCAST_TUNE_SIZES_MAX];
	size_t mcast_min, mcast_max;	/* the range set (none: min == max) */
};
int nc_bcast_tune(nc_endpoint *ep, struct nc_bcast_tune *t);

/*
 * Bandwidth-optimal collectives for large vectors, on the kernel's
 * alltoall (and its installed contention-free order): each rank sends
 * (P - 1)/P of the vector per step, where a tree's inner ranks take in
 * whole vectors from each child.
 *
 * nc_reduce_scatter: sendbuf holds P blocks of count elements (block i for
 * rank i); recvbuf gets this rank's block reduced over the ranks, in rank
 * order 0 .. P-1 (one fixed order: the same bits on every run).
 * nc_allgather: every rank's `bytes` from sendbuf land in recvbuf, P
 * blocks in rank order.
 * nc_allreduce() runs vectors of at least nc_set_rsag_min() bytes as a
 * reduce-scatter and an allgather (padded to P equal blocks), smaller ones
 * on the trees: the result is identical on every rank either way, but the
 * reduction order, and so the bits of a float sum, differ between the
 * two.  The default is NC_RSAG_MIN_DEFAULT, or NETCOLL_RSAG_MIN from the
 * environment; 0 turns it off.  Every rank must use the same threshold.
 *
 * Off by default: the kernel's trees were faster from 512 KiB to 4 MiB in
 * every measurement since 2026-11-27, on one switch as on two
 * (docs/apps-bench.md, 2026-12-02).  Two alltoalls send the least a rank
 * can, but across a switch-to-switch link P/4 vectors each way where the
 * trees send one or two, and two user-space passes cost more per byte
 * than the receive path's reductions.
 */
#define NC_RSAG_MIN_DEFAULT	0
int nc_reduce_scatter(nc_endpoint *ep, const void *sendbuf, void *recvbuf,
		      size_t count, enum nc_dtype dtype, enum nc_op op);
int nc_allgather(nc_endpoint *ep, const void *sendbuf, void *recvbuf,
		 size_t bytes);
int nc_set_rsag_min(nc_endpoint *ep, size_t bytes);

/* Bytes of one element of (op, dtype); 0 for an invalid pair. */
size_t nc_elem_size(enum nc_op op, enum nc_dtype dtype);
/* "sum", "minloc", ... / "int32", "double", ... ; -NC_EPARSE if unknown */
int nc_op_parse(const char *name);
const char *nc_op_name(enum nc_op op);
int nc_dtype_parse(const char *name);
const char *nc_dtype_name(enum nc_dtype dtype);
/*
 * Pieces the library splits a vector of `bytes` into (1 .. 8) on a
 * communicator of `size` members whose devices have this MTU (0: not
 * known; nc_split_for: the same).  Every rank must choose alike: give
 * each the same MTU (reductions need one fragment size everywhere).
 */
uint32_t nc_split_for_mtu(size_t bytes, uint32_t size, uint32_t mtu);
uint32_t nc_split_for(size_t bytes, uint32_t size);

/* ---------------------------------------------------------------- */
/* Configuration (generic netlink)                                   */
/* ---------------------------------------------------------------- */

typedef struct nc_ctl nc_ctl;

#define NC_IFNAMSIZ	16
#define NC_ADDR_MAX	32

int nc_ctl_open(nc_ctl **ctl);
void nc_ctl_close(nc_ctl *ctl);
/*
 * Why the last request on ctl failed, in words: the kernel's extended ack
 * message, or what was wrong with a malformed answer (-NC_EPROTO).  NULL
 * when there is nothing to add to the error code.  Valid until the next
 * call on ctl.
 */
const char *nc_ctl_last_error(nc_ctl *ctl);
/*
 * A host may have several ranks of one communicator (several members at
 * one address).  Then requests about it must say which rank they mean:
 * after nc_ctl_set_rank(ctl, R), every request on ctl that names a
 * communicator names its rank R on this host; NC_RANK_NONE (the default)
 * names none, which is enough while this host has one rank of it.
 */
#define NC_RANK_NONE	UINT32_MAX
void nc_ctl_set_rank(nc_ctl *ctl, uint32_t rank);

struct nc_dev_info {
	uint32_t ifindex;
	char ifname[NC_IFNAMSIZ];
	char bearer[32];		/* "eth:eth0" */
	uint32_t mtu;
	uint8_t addr[NC_ADDR_MAX];
	uint32_t addr_len;
};

int nc_dev_attach(nc_ctl *ctl, const char *ifname);
int nc_dev_detach(nc_ctl *ctl, const char *ifname);
/*
 * ifname NULL: all attached devices, dumped again (up to 8 times) when a
 * device was attached or detached meanwhile; -EAGAIN if that kept
 * happening.  *devs is malloc'ed; free() it.
 */
int nc_dev_list(nc_ctl *ctl, const char *ifname, struct nc_dev_info **devs,
		size_t *ndevs);

/*
 * Users' communicators on a device: off by default (the admin makes them
 * all).  Opened, any user may create communicators it owns there, each
 * within the module's default memory limits, at most comms_max of them on
 * this host, their memory limits summing to at most mem_max bytes
 * (-EDQUOT beyond).  Only the admin may set it; lower limits leave the
 * communicators made before alone.  A module before these: -EOPNOTSUPP.
 */
struct nc_dev_user {
	int comms;			/* users may make communicators */
	uint32_t comms_max;		/* 1 .. 256, per user */
	uint32_t mem_max;		/* bytes, per user */
};

#define NC_DEV_USER_COMMS	0x01	/* the fields nc_dev_set_user() sets */
#define NC_DEV_USER_COMMS_MAX	0x02
#define NC_DEV_USER_MEM_MAX	0x04

int nc_dev_set_user(nc_ctl *ctl, const char *ifname,
		    const struct nc_dev_user *u, uint32_t fields);
int nc_dev_get_user(nc_ctl *ctl, const char *ifname, struct nc_dev_user *u);

struct nc_member {
	uint8_t addr[NC_ADDR_MAX];
	uint32_t addr_len;
};

struct nc_comm_spec {
	uint32_t id;			/* 1 .. 0x7fffffff */
	const char *ifname;		/* attached device */
	uint32_t rank;			/* this host's rank */
	uint32_t size;			/* number of members */
	const struct nc_member *members;	/* members[r] = rank r */
	uint64_t cookie;		/* 0: none */
	uint32_t timeout_ms;		/* 0: module default */
	uint32_t oso;			/* 0: NETCOLL_OSO_DEFAULT; equal on all */
	uint32_t tree_degree;		/* 0: NETCOLL_TREE_DEGREE_DEFAULT */
	const uint8_t *mcast_addr;	/* NULL: derived from the id */
	uint32_t mcast_addr_len;
	/*
	 * Fields below count only when their bit is in flags (this struct's
	 * comp_mask); unknown bits: -EINVAL.
	 */
	uint32_t flags;			/* NC_COMM_SPEC_* */
	uint32_t owner;			/* uid that may bind and reconfigure */
	uint32_t group;			/* gid whose members may bind */
	const uint8_t *key;		/* frames carry an HMAC-SHA256 tag */
	uint32_t key_len;		/* NC_KEY_MIN .. NC_KEY_MAX bytes */
	uint32_t mem_max;		/* bytes operations may allocate */
	uint32_t rx_mem_max;		/* bytes of frames held on receive */
};

/* Bits of nc_comm_spec.flags; without them the module's defaults apply. */
#define NC_COMM_SPEC_OWNER	0x01	/* default: the creator; none
					 * (NC_OWNER_NONE) if the admin */
#define NC_COMM_SPEC_GROUP	0x02	/* default: none */
#define NC_COMM_SPEC_KEY	0x04	/* default: no authentication */
#define NC_COMM_SPEC_MEM	0x08	/* default: module comm_mem_max */
#define NC_COMM_SPEC_RX_MEM	0x10	/* default: module rx_queue_max */
/*
 * A process's communicator: deleted on this host when the endpoint bound
 * to it closes, however the process ends (default: it stays until
 * nc_comm_delete).  A module older than this library answers -EINVAL.
 */
#define NC_COMM_SPEC_TRANSIENT	0x20

#define NC_KEY_MIN	16
#define NC_KEY_MAX	64

/* The life of a communicator on this host (nc_comm_info.state). */
enum nc_comm_state {
	NC_COMM_JOINING,	/* waiting for rank 0's epoch */
	NC_COMM_READY,
	NC_COMM_BROKEN,		/* an operation failed: ENOTRECOVERABLE until
				 * deleted and created again
				 */
	NC_COMM_DEAD,		/* deleted, or its device went away */
};

struct nc_comm_info {
	uint32_t id;
	uint32_t ifindex;
	uint32_t rank;
	uint32_t size;
	uint32_t timeout_ms;
	uint32_t op_seq;
	uint64_t cookie;
	int bound;
	uint32_t sched_phases;		/* installed alltoall slice; 0: none */
	uint32_t sched_syncs;		/* tokens this rank sends per alltoall */
	uint32_t oso;			/* outstanding aggregation ops per rank */
	uint32_t agg_seq;		/* next reduction (barrier, ...) */
	uint32_t tree_degree;		/* of the built-in trees */
	uint8_t mcast_addr[NC_ADDR_MAX];	/* result group */
	uint32_t mcast_addr_len;
	struct nc_member *members;	/* size entries, or NULL in lists */
	uint32_t owner;			/* uid, or NC_OWNER_NONE */
	int64_t group;			/* gid, or -1: none */
	int auth;			/* frames are authenticated */
	int secrets;			/* cookie and epoch were shown (only
					 * to the owner and the admin)
					 */
	uint64_t epoch;			/* this incarnation; 0 while joining */
	enum nc_comm_state state;
	uint32_t mem_max, rx_mem_max;
};

/* A communicator nobody owns: only the admin binds to it and changes it. */
#define NC_OWNER_NONE	UINT32_MAX

int nc_comm_create(nc_ctl *ctl, const struct nc_comm_spec *spec);
int nc_comm_delete(nc_ctl *ctl, uint32_t id);
/* One communicator, with members; release with nc_comm_info_free(). */
int nc_comm_get(nc_ctl *ctl, uint32_t id, struct nc_comm_info *info);
void nc_comm_info_free(struct nc_comm_info *info);
/* All communicators, without members.  *comms is malloc'ed; free() it. */
int nc_comm_list(nc_ctl *ctl, struct nc_comm_info **comms, size_t *ncomms);

/* A round-trip estimate (RFC 6298), microseconds; srtt_us 0: no sample. */
struct nc_rtt {
	uint32_t srtt_us;
	uint32_t rttvar_us;
	uint32_t rto_us;		/* the timeout it gives (clamped) */
};
/*
 * Communicator id's round-trip estimates on this host: the alltoall
 * transport's and the aggregation engine's (reductions, broadcasts), what
 * their retransmission timers run on.  Any user may read them; a module
 * before them: -EOPNOTSUPP.
 */
int nc_comm_get_rtt(nc_ctl *ctl, uint32_t id, struct nc_rtt *alltoall,
		    struct nc_rtt *agg);

/*
 * What communicator id holds on this host now, in bytes: against its
 * limits (nc_comm_info's mem_max, rx_mem_max) and, for a user's, with them
 * against the user's quota on the device (installed).  Any user may read
 * it; a module before it: -EOPNOTSUPP.  comp_mask: 0 (what a later
 * version adds is flagged there).
 */
struct nc_comm_mem {
	uint64_t comp_mask;
	uint64_t mem_used;		/* posted operations' buffers */
	uint64_t rx_mem_used;		/* frames held on receive */
	uint32_t installed;		/* schedule, trees, broadcast order */
};
int nc_comm_get_mem(nc_ctl *ctl, uint32_t id, struct nc_comm_mem *mem);

/*
 * Alltoall schedules computed from the network's topology.  On trees all
 * of them get pairwise synchronisation (a fat link counts as as many lanes
 * as it carries messages at once).
 */
enum nc_sched_kind {
	NC_SCHED_AAPC,		/* Faraj & Yuan phases + pairwise sync (trees) */
	NC_SCHED_FT_OPT,	/* Prisacari et al., bandwidth-optimal (fat trees) */
	NC_SCHED_FT_XOR,	/* d = s XOR p (fat trees, baseline) */
	NC_SCHED_FT_LIN,	/* d = s + p (fat trees, baseline) */
};

/*
 * Compute the schedule for a topology (a file in the cluster format, or a
 * generator spec such as "ft:3:4,4,2"; rank r = its r-th host) and install
 * this host's slice on communicator comm_id.  Every member does the same
 * and computes the same plan.  Returns 0 or a negative error;
 * nc_ctl_last_error() explains a topology or verification failure.
 */
int nc_sched_install(nc_ctl *ctl, uint32_t comm_id, const char *topology,
		     enum nc_sched_kind kind);
/* Back to the default order (ring). */
int nc_sched_remove(nc_ctl *ctl, uint32_t comm_id);

/*
 * Aggregation trees.  A tree is parents[rank] for every rank, the root
 * being its own parent; each rank reduces its own data first, then its
 * children's in ascending rank order.  Index 0 .. 7: piece j of a split
 * vector runs on tree j.  Without an installed tree the kernel uses an
 * f-nomial tree of the communicator's degree.
 */
#define NC_TREES_MAX	8

int nc_tree_install(nc_ctl *ctl, uint32_t comm_id, uint32_t index,
		    const uint32_t *parents, uint32_t size);
int nc_tree_remove(nc_ctl *ctl, uint32_t comm_id, uint32_t index);

struct nc_tree_info {
	uint32_t index;
	uint32_t root;
	uint32_t parent;	/* this rank's; == rank at the root */
	uint32_t nchildren;
	uint32_t *children;	/* reduction order; free with nc_tree_info_free */
	int installed;		/* 0: the built-in f-nomial tree */
};
int nc_tree_get(nc_ctl *ctl, uint32_t comm_id, uint32_t index,
		struct nc_tree_info *info);
void nc_tree_info_free(struct nc_tree_info *info);

/*
 * Build and install f-nomial trees 0 .. ntrees-1 (1 .. NC_TREES_MAX) of
 * degree f >= 2 on communicator comm_id: tree j over the positions of
 * nc_tree_order_aware(topology, size, j * size / ntrees, f), so the
 * pieces of a split vector have different roots, subtrees stay under a
 * switch, and slow host links end on leaves (netcoll_plan.h).  topology
 * NULL: ranks in order.
 * Trees ntrees .. NC_TREES_MAX-1 are left as they are.  Every member
 * computes the same trees.  nc_ctl_last_error() explains a topology error.
 */
int nc_tree_install_fnomial(nc_ctl *ctl, uint32_t comm_id, uint32_t ntrees,
			    uint32_t degree, const char *topology);

/*
 * The broadcasts' order (since 0.3).  A broadcast from root r runs on the
 * f-nomial tree of the communicator's degree over the positions [r, then
 * order[] without r]; order[] (size entries) holds every rank once, as
 * nc_bcast_order() (netcoll_plan.h) places them for root order[0]: for
 * that root the tree is exactly the planner's, for others the fast hosts
 * keep the positions with children.  Without one, rank order from r.
 * Install and remove: the communicator's owner or an admin.
 * nc_bcast_tree_get() tells this rank's place in the tree of a broadcast
 * from root (installed: an order is).
 */
int nc_bcast_order_install(nc_ctl *ctl, uint32_t comm_id, const uint32_t *order,
			   uint32_t size);
int nc_bcast_order_remove(nc_ctl *ctl, uint32_t comm_id);
int nc_bcast_tree_get(nc_ctl *ctl, uint32_t comm_id, uint32_t root,
		      struct nc_tree_info *info);

/* Statistics of this network namespace. */
#define NC_STAT_MAX	64
struct nc_stats {
	uint64_t value[NC_STAT_MAX];	/* indexed by enum netcoll_stat */
	uint32_t count;			/* highest index + 1 */
};
int nc_stats_get(nc_ctl *ctl, struct nc_stats *stats);
/* "tx_frames", "drop_cookie", ...; NULL for an unknown index. */
const char *nc_stat_name(unsigned int id);

/* Events multicast group. */
enum nc_event_type {
	NC_EVENT_OP_FAILED = 1,
	NC_EVENT_DEV_DETACHED = 2,
};

struct nc_event {
	enum nc_event_type type;
	uint32_t comm_id;
	uint32_t op_seq;
	uint32_t peer_rank;		/* UINT32_MAX when unknown */
	int error;			/* positive errno */
	uint32_t ifindex;
	char ifname[NC_IFNAMSIZ];
};

/* The admin's only (CAP_NET_ADMIN): -EPERM for other users. */
int nc_ctl_subscribe(nc_ctl *ctl);
/* Wait up to timeout_ms (-1: forever); 0 = got one, -ETIMEDOUT = none. */
int nc_event_wait(nc_ctl *ctl, struct nc_event *ev, int timeout_ms);

/* ---------------------------------------------------------------- */
/* Bootstrap: a communicator without member lists                    */
/* ---------------------------------------------------------------- */

/*
 * Every rank calls nc_comm_bootstrap() with the same store, "HOST:PORT":
 * rank 0 listens there, the others connect (retrying until rank 0 is up),
 * send their device address, and rank 0 hands every rank the member table,
 * a fresh id (unless given) and cookie, and with NC_BOOTSTRAP_AUTH a fresh
 * key.  Each rank then creates its side; a rank that fails makes every
 * rank undo its own.  The store is plain TCP, unauthenticated: use it on
 * the job's own network.  Errors: -ETIMEDOUT (a rank never arrived, named
 * in nc_ctl_last_error(); or no rank 0 at the store), -EADDRINUSE (this
 * rank or its address was taken by another process), -EINVAL (this rank
 * disagrees with rank 0 on the size), or the error of the rank that could
 * not create its side (-EEXIST for a fixed id in use).
 */
struct nc_bootstrap_args {
	const char *store;	/* NULL: $NETCOLL_STORE */
	/*
	 * size 0: rank and size from the environment: NETCOLL_RANK and
	 * NETCOLL_SIZE, else the launcher's (OMPI_COMM_WORLD_RANK/SIZE,
	 * PMI_RANK/SIZE, SLURM_PROCID/SLURM_NTASKS).
	 */
	uint32_t rank, size;
	const char *ifname;	/* NULL: $NETCOLL_DEV, else the only attached
				 * device
				 */
	uint32_t wait_ms;	/* for every rank; 0: $NETCOLL_WAIT_MS or 60 s */
	uint32_t id;		/* rank 0's: 0 picks an unused one at random */
	uint32_t flags;		/* NC_BOOTSTRAP_* */
	/* rank 0's values count for every rank (0: the module defaults) */
	uint32_t timeout_ms, oso, tree_degree;
};

#define NC_BOOTSTRAP_AUTH	0x01	/* frames carry an HMAC-SHA256 tag */
#define NC_BOOTSTRAP_TRANSIENT	0x02	/* every rank's side is deleted when
					 * the endpoint its owner bound to it
					 * closes (NC_COMM_SPEC_TRANSIENT)
					 */

struct nc_bootstrap_result {
	uint32_t id, rank, size;
};

int nc_comm_bootstrap(nc_ctl *ctl, const struct nc_bootstrap_args *a,
		      struct nc_bootstrap_result *r);
/*
 * All an application needs: bootstrap a communicator (a NULL a: everything
 * from the environment), open an endpoint and bind it.  The communicator
 * is transient (NC_BOOTSTRAP_TRANSIENT): closing the endpoint deletes it,
 * also when the process dies without nc_close().
 */
int nc_open_bootstrap(nc_endpoint **ep, const struct nc_bootstrap_args *a);

/* ---------------------------------------------------------------- */
/* Text helpers (shared by tools and tests)                          */
/* ---------------------------------------------------------------- */

/* "02:00:0a:00:00:01" -> bytes; returns the length or -NC_EPARSE. */
int nc_parse_addr(const char *text, uint8_t *addr, size_t max);
/* Writes "02:00:..." into buf; returns buf. */
char *nc_format_addr(const uint8_t *addr, size_t len, char *buf, size_t size);
/* "default", "linear", "pairwise", "ring", "sched" <-> enum nc_a2a_algo. */
int nc_a2a_algo_parse(const char *name);	/* the algo, or -NC_EPARSE */
const char *nc_a2a_algo_name(enum nc_a2a_algo algo);

/*
 * A member list: addresses in rank order separated by commas, blanks or
 * newlines; '#' starts a comment.  *members is malloc'ed; free() it.
 */
int nc_parse_members(const char *text, struct nc_member **members,
		     size_t *nmembers);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif /* NETCOLL_H */

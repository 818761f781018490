/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * netcoll: collective operations below the socket layer.
 *
 * This is the only ABI between the module and user space:
 *   1. the generic netlink family "netcoll" (configuration, statistics, events),
 *   2. the /dev/netcoll data path (one open file = one endpoint, ioctls),
 *   3. the wire header that every netcoll frame starts with.
 * Each part carries its own version number.
 */
#ifndef _UAPI_LINUX_NETCOLL_H
#define _UAPI_LINUX_NETCOLL_H

#include <linux/const.h>
#include <linux/types.h>

/* ------------------------------------------------------------------ */
/* 1. Generic netlink                                                  */
/* ------------------------------------------------------------------ */

#define NETCOLL_GENL_NAME		"netcoll"
/*
 * 3: DEV_SET, users' communicators; 4: COMM_TRANSIENT; 5: TREE_BCAST_*;
 * 6: COMM_RTT; 7: members may share an address (several ranks on one
 * host), COMM_RANK names one of them in requests; 8: COMM_GROUP
 * defaults to none (nobody binds by group unless it is named); 9:
 * COMM_MEM_USED, COMM_RX_MEM_USED, COMM_INSTALLED_MEM; 10: users' ids
 * from NETCOLL_COMM_ID_USER_MIN; 11: the requester is its effective uid
 * (was the uid on the request's credentials, the real one), and a
 * communicator the admin makes without COMM_OWNER has none (COMM_GET
 * then leaves COMM_OWNER out; it was the admin's uid, mostly 0)
 */
#define NETCOLL_GENL_VERSION		11
#define NETCOLL_GENL_MCGRP_EVENTS	"events"

/*
 * Commands.  DEV_ATTACH/DEV_DETACH/DEV_SET need CAP_NET_ADMIN (in the
 * initial user namespace: the "admin"); so does COMM_NEW, except on a
 * device the admin opened to users' communicators (DEV_USER_COMMS): there
 * any user may make communicators it owns, within the device's per-user
 * limits (EDQUOT past them) and the module's default memory limits.
 * COMM_DEL, SCHED_* and TREE_SET/DEL act on one communicator: its owner or
 * the admin.  The GET commands are open
 * to everybody (a communicator's cookie only to its owner and the admin;
 * its key to nobody).  EVENT_* are only ever sent by the kernel, on the
 * "events" multicast group.
 */
enum netcoll_cmd {
	NETCOLL_CMD_UNSPEC,
	NETCOLL_CMD_DEV_ATTACH,		/* IFINDEX or IFNAME */
	NETCOLL_CMD_DEV_DETACH,		/* IFINDEX or IFNAME */
	NETCOLL_CMD_DEV_GET,		/* doit (IFINDEX|IFNAME) or dumpit */
	NETCOLL_CMD_COMM_NEW,		/* COMM_ID, IFINDEX|IFNAME, COMM_RANK,
					 * COMM_MEMBERS, [COMM_COOKIE],
					 * [COMM_TIMEOUT_MS], [COMM_OWNER],
					 * [COMM_GROUP], [COMM_KEY],
					 * [COMM_MEM_MAX], [COMM_RX_MEM_MAX]
					 */
	NETCOLL_CMD_COMM_DEL,		/* COMM_ID */
	NETCOLL_CMD_COMM_GET,		/* doit (COMM_ID, with members) or
					 * dumpit (summary, no members)
					 */
	NETCOLL_CMD_STATS_GET,		/* doit: NETCOLL_A_STATS of this netns */
	NETCOLL_CMD_EVENT_OP_FAILED,	/* COMM_ID, COMM_RANK (this host's
					 * rank it failed on), OP_SEQ, ERRNO,
					 * [PEER_RANK]; rank 0 never answering
					 * the join: once per communicator,
					 * OP_SEQ 0, PEER_RANK 0
					 */
	NETCOLL_CMD_EVENT_DEV_DETACHED,	/* IFINDEX, IFNAME, ERRNO (reason) */
	NETCOLL_CMD_SCHED_SET,		/* COMM_ID, one SCHED_PHASE per phase in
					 * which this rank sends or receives:
					 * the rank's slice of an alltoall
					 * schedule, replacing any earlier one
					 */
	NETCOLL_CMD_SCHED_DEL,		/* COMM_ID: back to the default (ring) order */
	NETCOLL_CMD_TREE_SET,		/* COMM_ID, [TREE_INDEX], TREE_PARENTS:
					 * an aggregation tree over all members,
					 * replacing the built-in one; or
					 * COMM_ID, TREE_BCAST_ORDER (family
					 * version 5): the broadcasts' order
					 */
	NETCOLL_CMD_TREE_DEL,		/* COMM_ID, [TREE_INDEX]: built-in again;
					 * COMM_ID, TREE_BCAST: no broadcast
					 * order (rank order again)
					 */
	NETCOLL_CMD_TREE_GET,		/* COMM_ID, [TREE_INDEX]; or COMM_ID,
					 * TREE_BCAST, [TREE_ROOT]: the tree of a
					 * broadcast from that root (default 0).
					 * Out: TREE_ROOT, _PARENT, _CHILDREN,
					 * _INSTALLED
					 */
	NETCOLL_CMD_DEV_SET,		/* IFINDEX|IFNAME, [DEV_USER_COMMS],
					 * [DEV_USER_COMMS_MAX],
					 * [DEV_USER_MEM_MAX] (family version 3)
					 */

	__NETCOLL_CMD_MAX,
	NETCOLL_CMD_MAX = __NETCOLL_CMD_MAX - 1
};

enum netcoll_attr {
	NETCOLL_A_UNSPEC,
	NETCOLL_A_PAD,
	NETCOLL_A_IFINDEX,		/* u32 */
	NETCOLL_A_IFNAME,		/* string, < IFNAMSIZ */
	NETCOLL_A_BEARER,		/* string (out): "eth:eth0" */
	NETCOLL_A_MTU,			/* u32 (out): device MTU */
	NETCOLL_A_HWADDR,		/* binary (out): device address */
	NETCOLL_A_COMM_ID,		/* u32, 1 .. NETCOLL_COMM_ID_MAX */
	NETCOLL_A_COMM_COOKIE,		/* u64: shared by all members; 0 = none */
	NETCOLL_A_COMM_RANK,		/* u32: the rank of this host; in a
					 * request about a communicator, which
					 * of this host's ranks of it (needed
					 * when it has several)
					 */
	NETCOLL_A_COMM_SIZE,		/* u32 (out) */
	NETCOLL_A_COMM_MEMBERS,		/* nest of NETCOLL_A_MEMBER */
	NETCOLL_A_COMM_TIMEOUT_MS,	/* u32: default time budget of an op */
	NETCOLL_A_COMM_OP_SEQ,		/* u32 (out): next operation sequence */
	NETCOLL_A_COMM_BOUND,		/* u8 (out): an endpoint is bound */
	NETCOLL_A_STATS,		/* nest of enum netcoll_stat, each u64 */
	NETCOLL_A_ERRNO,		/* s32 (events): positive errno */
	NETCOLL_A_OP_SEQ,		/* u32 (events) */
	NETCOLL_A_PEER_RANK,		/* u32 (events): the peer that failed */
	NETCOLL_A_SCHED_PHASE,		/* nest of enum netcoll_phase_attr;
					 * repeated, in phase order
					 */
	NETCOLL_A_SCHED_PHASES,		/* u32 (out): phases of the installed
					 * slice, 0 = none (the ring order)
					 */
	NETCOLL_A_SCHED_SYNCS,		/* u32 (out): tokens this rank sends */
	NETCOLL_A_COMM_OSO,		/* u32: aggregation operations a rank may
					 * have outstanding, 1 .. NETCOLL_OSO_MAX
					 * (default NETCOLL_OSO_DEFAULT); must be
					 * equal on all members
					 */
	NETCOLL_A_COMM_MCAST_ADDR,	/* binary: group address that results are
					 * multicast to (Ethernet: a multicast
					 * MAC; default 03:6e:63 + low 24 bits
					 * of the communicator id)
					 */
	NETCOLL_A_COMM_TREE_DEGREE,	/* u32: degree f of the built-in f-nomial
					 * trees, 2 .. NETCOLL_TREE_DEGREE_MAX
					 */
	NETCOLL_A_TREE_INDEX,		/* u32 < NETCOLL_TREES_MAX, default 0 */
	NETCOLL_A_TREE_PARENTS,		/* binary: __u32[members], the parent of
					 * each rank; the root is its own parent
					 */
	NETCOLL_A_TREE_ROOT,		/* u32 (out; in: TREE_GET with
					 * TREE_BCAST)
					 */
	NETCOLL_A_TREE_PARENT,		/* u32 (out): this rank's parent */
	NETCOLL_A_TREE_CHILDREN,	/* binary (out): __u32[] children of this
					 * rank, in reduction order
					 */
	NETCOLL_A_TREE_INSTALLED,	/* u8 (out): 0 = built-in f-nomial */
	NETCOLL_A_COMM_AGG_SEQ,		/* u32 (out): sequence of the next
					 * reduction (its own space; COMM_OP_SEQ
					 * counts alltoalls)
					 */
	NETCOLL_A_COMM_OWNER,		/* u32 uid (in the requester's user
					 * namespace) that may bind and
					 * reconfigure; default: the creator,
					 * none (absent) if it is the admin
					 */
	NETCOLL_A_COMM_GROUP,		/* u32 gid whose members may bind;
					 * default: none (family version 8;
					 * before, the creator's group)
					 */
	NETCOLL_A_COMM_KEY,		/* binary, NETCOLL_KEY_MIN ..
					 * NETCOLL_KEY_MAX bytes: frames carry
					 * an HMAC-SHA256 tag under this key;
					 * write-only, never dumped
					 */
	NETCOLL_A_COMM_AUTH,		/* u8 (out): frames are authenticated */
	NETCOLL_A_COMM_MEM_MAX,		/* u32 bytes (< 2 GiB): operations a process may
					 * have posted (buffers and bookkeeping);
					 * default: module parameter comm_mem_max
					 */
	NETCOLL_A_COMM_RX_MEM_MAX,	/* u32 bytes (< 2 GiB): frames held on receive
					 * (early, queued, reduction inputs);
					 * default: module parameter rx_queue_max
					 */
	NETCOLL_A_COMM_EPOCH,		/* u64 (out): this incarnation, agreed
					 * with rank 0; 0 until joined
					 */
	NETCOLL_A_COMM_STATE,		/* u32 (out): enum netcoll_comm_state */
	NETCOLL_A_DEV_USER_COMMS,	/* u8: users may make communicators on
					 * this device (default 0: the admin only)
					 */
	NETCOLL_A_DEV_USER_COMMS_MAX,	/* u32 1 .. NETCOLL_USER_COMMS_MAX: a
					 * user's communicators on this host
					 * (default NETCOLL_USER_COMMS_DEFAULT)
					 */
	NETCOLL_A_DEV_USER_MEM_MAX,	/* u32 bytes (< 2 GiB): the memory limits
					 * (COMM_MEM_MAX + COMM_RX_MEM_MAX) of a
					 * user's communicators on this host and
					 * the schedules, trees and broadcast orders
					 * installed on them, summed (default: four
					 * of the module's defaults); creating or
					 * installing beyond it: EDQUOT
					 */
	NETCOLL_A_COMM_USER_MADE,	/* u8 (out): made by a user, counted
					 * against its quota
					 */
	NETCOLL_A_COMM_TRANSIENT,	/* u8 1 (in, out): a process's
					 * communicator, deleted on this host
					 * when the endpoint its owner (or an
					 * admin) bound to it closes (the
					 * process ended, however), so a job
					 * that dies leaves nothing; a group
					 * member's close leaves it
					 */
	NETCOLL_A_TREE_BCAST_ORDER,	/* binary: __u32[members], a permutation
					 * of the ranks.  A broadcast from root r
					 * runs on the f-nomial tree over the
					 * positions [r, then this order without
					 * r]: the library places fast hosts on
					 * the positions with children (for r =
					 * order[0] exactly seed 003's DFT/BFT
					 * tree).  Family version 5
					 */
	NETCOLL_A_TREE_BCAST,		/* flag (in): TREE_DEL, TREE_GET act on
					 * the broadcast order (version 5)
					 */
	NETCOLL_A_COMM_RTT,		/* nest of enum netcoll_rtt_attr (out):
					 * the alltoall transport's round trip
					 * estimate on this host (version 6)
					 */
	NETCOLL_A_COMM_AGG_RTT,		/* nest of enum netcoll_rtt_attr (out):
					 * the aggregation engine's (version 6)
					 */
	NETCOLL_A_COMM_MEM_USED,	/* u64 (out): of MEM_MAX, what posted
					 * operations hold now (version 9)
					 */
	NETCOLL_A_COMM_RX_MEM_USED,	/* u64 (out): of RX_MEM_MAX, the frames
					 * held on receive now (version 9)
					 */
	NETCOLL_A_COMM_INSTALLED_MEM,	/* u32 (out): bytes of the schedule,
					 * trees and broadcast order installed
					 * on it, which count against a user's
					 * DEV_USER_MEM_MAX with its limits
					 * (version 9)
					 */

	__NETCOLL_A_MAX,
	NETCOLL_A_MAX = __NETCOLL_A_MAX - 1
};

/*
 * A communicator's life on one host.  JOINING: waiting for rank 0's epoch
 * (operations wait too).  READY: operations run.  BROKEN: an operation
 * failed after it had started, so this rank's sequence of operations may
 * differ from its peers'; every later operation fails with ENOTRECOVERABLE
 * until the communicator is deleted and created again.  DEAD: deleted,
 * or its device went away.
 */
enum netcoll_comm_state {
	NETCOLL_COMM_JOINING,
	NETCOLL_COMM_READY,
	NETCOLL_COMM_BROKEN,
	NETCOLL_COMM_DEAD,
};

#define NETCOLL_KEY_MIN			16
#define NETCOLL_KEY_MAX			64

/* A user's communicators on one host (NETCOLL_A_DEV_USER_COMMS_MAX). */
#define NETCOLL_USER_COMMS_DEFAULT	8
#define NETCOLL_USER_COMMS_MAX		256

/*
 * A round-trip estimate (RFC 6298) and the retransmission timeout it
 * gives, in microseconds: what an engine's timers run on.  SRTT 0: no
 * sample yet (the timeout is then the module's rto_min_ms).
 */
enum netcoll_rtt_attr {
	NETCOLL_A_RTT_UNSPEC,
	NETCOLL_A_RTT_SRTT_US,		/* u32 */
	NETCOLL_A_RTT_RTTVAR_US,	/* u32 */
	NETCOLL_A_RTT_RTO_US,		/* u32: SRTT + 4 RTTVAR, clamped */

	__NETCOLL_A_RTT_MAX,
	NETCOLL_A_RTT_MAX = __NETCOLL_A_RTT_MAX - 1
};

/* Inside NETCOLL_A_COMM_MEMBERS: one NETCOLL_A_MEMBER nest per rank. */
enum netcoll_members_attr {
	NETCOLL_A_MEMBERS_UNSPEC,
	NETCOLL_A_MEMBER,		/* nest of enum netcoll_member_attr */

	__NETCOLL_A_MEMBERS_MAX,
	NETCOLL_A_MEMBERS_MAX = __NETCOLL_A_MEMBERS_MAX - 1
};

enum netcoll_member_attr {
	NETCOLL_A_MEMBER_UNSPEC,
	NETCOLL_A_MEMBER_RANK,		/* u32, < number of members */
	NETCOLL_A_MEMBER_ADDR,		/* binary: bearer address (6 B on Ethernet) */

	__NETCOLL_A_MEMBER_MAX,
	NETCOLL_A_MEMBER_MAX = __NETCOLL_A_MEMBER_MAX - 1
};

/*
 * One phase of a rank's alltoall slice.  A phase may only wait for tokens
 * (SYNC_IN) and send tokens (SYNC_OUT) if the rank sends in it: its send
 * starts once every SYNC_IN token arrived, and its tokens go out once the
 * send is acknowledged.  Across the slice every other rank is sent to
 * exactly once and received from exactly once.
 */
enum netcoll_phase_attr {
	NETCOLL_A_PHASE_UNSPEC,
	NETCOLL_A_PHASE_INDEX,		/* u32: phase number in the global plan,
					 * strictly increasing
					 */
	NETCOLL_A_PHASE_SEND_TO,	/* u32 rank (absent: no send) */
	NETCOLL_A_PHASE_RECV_FROM,	/* u32 rank (absent: no receive) */
	NETCOLL_A_PHASE_SYNC_IN,	/* binary: __u32 ranks to wait for */
	NETCOLL_A_PHASE_SYNC_OUT,	/* binary: struct netcoll_sync_out[] */

	__NETCOLL_A_PHASE_MAX,
	NETCOLL_A_PHASE_MAX = __NETCOLL_A_PHASE_MAX - 1
};

/* A token for rank's phase `phase`. */
struct netcoll_sync_out {
	__u32	rank;
	__u32	phase;
};

#define NETCOLL_SCHED_PHASE_MAX		0x400000U
#define NETCOLL_SCHED_SYNC_MAX		64	/* tokens in or out of one phase */

#define NETCOLL_COMM_ID_MAX		0x7fffffffU
/*
 * Ids below this one are the admin's, as ports below 1024 are root's: a
 * user's COMM_NEW with one is EPERM, so what an admin's scripts make
 * with fixed ids cannot be taken first by a user.  nc_comm_bootstrap()
 * and the MPI interposer draw their ids from the users' range.
 */
#define NETCOLL_COMM_ID_USER_MIN	0x10000000U
#define NETCOLL_COMM_SIZE_MAX		2048	/* members fit one 16-bit nest */
#define NETCOLL_TIMEOUT_MS_MIN		10
#define NETCOLL_TIMEOUT_MS_MAX		3600000
#define NETCOLL_TIMEOUT_MS_DEFAULT	5000
#define NETCOLL_ADDR_MAX		32
#define NETCOLL_OSO_MAX			32
#define NETCOLL_OSO_DEFAULT		8
#define NETCOLL_TREES_MAX		8	/* parallel trees (vector split) */
#define NETCOLL_TREE_DEGREE_MAX		64
#define NETCOLL_TREE_DEGREE_DEFAULT	4

/* Per network namespace counters, in NETCOLL_A_STATS (all u64). */
enum netcoll_stat {
	NETCOLL_STAT_UNSPEC,
	NETCOLL_STAT_PAD,
	NETCOLL_STAT_TX_FRAMES,
	NETCOLL_STAT_TX_BYTES,
	NETCOLL_STAT_RX_FRAMES,		/* accepted frames */
	NETCOLL_STAT_RX_BYTES,
	NETCOLL_STAT_RETRANSMITS,	/* data frames sent again */
	NETCOLL_STAT_TX_ACKS,
	NETCOLL_STAT_RX_ACKS,
	NETCOLL_STAT_RX_DUPLICATES,	/* data already received, re-acked */
	NETCOLL_STAT_RX_EARLY,		/* held for an operation not yet started */
	NETCOLL_STAT_OPS_DONE,
	NETCOLL_STAT_OPS_FAILED,	/* any error, timeouts included */
	NETCOLL_STAT_OPS_TIMEDOUT,
	NETCOLL_STAT_DROP_SHORT,	/* frame shorter than the header */
	NETCOLL_STAT_DROP_VERSION,	/* unknown wire version */
	NETCOLL_STAT_DROP_TYPE,		/* unknown frame type or flags */
	NETCOLL_STAT_DROP_LENGTH,	/* lengths/offsets inconsistent */
	NETCOLL_STAT_DROP_COMM,		/* no such communicator here */
	NETCOLL_STAT_DROP_COOKIE,	/* cookie mismatch */
	NETCOLL_STAT_DROP_RANK,		/* bad source/destination rank */
	NETCOLL_STAT_DROP_ADDR,		/* source address is not that rank's */
	NETCOLL_STAT_DROP_STATE,	/* no matching operation or message */
	NETCOLL_STAT_DROP_MEMORY,	/* receive memory bound reached */
	NETCOLL_STAT_DROP_TX,		/* refused: the device's or our queue full */
	NETCOLL_STAT_DROP_OPCODE,	/* contribution of another op or dtype */
	NETCOLL_STAT_AGG_OPS,		/* aggregation operations completed */
	NETCOLL_STAT_AGG_REDUCED,	/* fragments reduced in the kernel */
	NETCOLL_STAT_AGG_MCAST_TX,	/* result fragments multicast */
	NETCOLL_STAT_AGG_REPAIRS,	/* result fragments resent by unicast */
	NETCOLL_STAT_AGG_QUEUED,	/* starts that waited for a free OSO */
	NETCOLL_STAT_AGG_FPU_DEFERRED,	/* float reductions moved out of softirq */
	NETCOLL_STAT_RTO_EXPIRED,	/* retransmission timeouts (not SACK repairs) */
	NETCOLL_STAT_DROP_EPOCH,	/* another incarnation of the communicator */
	NETCOLL_STAT_DROP_AUTH,		/* tag missing, wrong or unexpected */
	NETCOLL_STAT_DROP_REPLAY,	/* authentic, but seen before or too old */
	NETCOLL_STAT_DROP_RATELIMIT,	/* repair or join request refused: too
					 * soon after the last answer to that peer,
					 * or the operation's repair budget spent;
					 * or a finished alltoall's data frame
					 * beyond the rate its acks are sent at
					 */
	NETCOLL_STAT_OPS_CANCELLED,	/* posted operations cancelled by close */
	NETCOLL_STAT_JOINS,		/* epoch requests answered (rank 0) */
	NETCOLL_STAT_ACKS_HELD,		/* acks held until the process copied:
					 * receive memory was half used
					 */
	NETCOLL_STAT_AGG_REPEATS,	/* reduction frames sent a second time
					 * after a loss (small operations,
					 * last fragments, resends and
					 * repairs)
					 */
	NETCOLL_STAT_AGG_BCAST_EARLY,	/* broadcasts their data started here
					 * before the process posted them
					 */
	NETCOLL_STAT_RX_DUP_ACKS,	/* acks saying a fragment we sent came
					 * twice (NETCOLL_F_DUP): resent while
					 * queued, or copied by the network
					 */
	NETCOLL_STAT_TX_REORDERED,	/* fragments we sent once, acked after
					 * ones sent later: the path reorders
					 * (and its reordering grows to match)
					 */
	/* holes resent at once: the newest fragment sent was acked above them */
	NETCOLL_STAT_TX_EARLY_RETRANSMITS,
	/* alltoall frames sent twice on purpose once an operation saw a loss */
	NETCOLL_STAT_TX_REPEATS,
	/* skbs of several frames sent to a device that passes them whole */
	NETCOLL_STAT_TX_GSO,
	/* such skbs received whole, cut into their frames here */
	NETCOLL_STAT_RX_GSO,
	/*
	 * Losses a reduction saw, by what showed them; each turns
	 * repetition on (NETCOLL_STAT_AGG_REPEATS):
	 */
	NETCOLL_STAT_AGG_LOSS_ACKED,	/* an ack showed a fragment sent lost */
	NETCOLL_STAT_AGG_LOSS_HOLES,	/* a result arrived past a hole a
					 * round trip old
					 */
	NETCOLL_STAT_AGG_LOSS_ASKED,	/* a rank asked for result fragments
					 * it had been sent
					 */
	NETCOLL_STAT_AGG_LOSS_TIMEOUTS,	/* a rank's timeout asked for result
					 * fragments sent it: a small piece's,
					 * or below some it got
					 */

	__NETCOLL_STAT_MAX,
	NETCOLL_STAT_MAX = __NETCOLL_STAT_MAX - 1
};

/* ------------------------------------------------------------------ */
/* 2. Data path: /dev/netcoll                                          */
/* ------------------------------------------------------------------ */

#define NETCOLL_DEVICE_NAME		"netcoll"	/* /dev/netcoll */
#define NETCOLL_ABI_VERSION		1

/* Feature bits in netcoll_info.features. */
#define NETCOLL_FEAT_BARRIER		_BITULL(0)
#define NETCOLL_FEAT_ALLTOALL		_BITULL(1)
#define NETCOLL_FEAT_A2A_SCHED		_BITULL(2)	/* installed schedules */
#define NETCOLL_FEAT_REDUCE		_BITULL(3)	/* aggregation trees */
#define NETCOLL_FEAT_REDUCE_FLOAT	_BITULL(4)	/* float and double */
#define NETCOLL_FEAT_OWNER		_BITULL(5)	/* owned communicators */
#define NETCOLL_FEAT_AUTH		_BITULL(6)	/* authenticated frames */
#define NETCOLL_FEAT_COMM_MTU		_BITULL(7)	/* netcoll_info.mtu */

/*
 * mtu (with NETCOLL_FEAT_COMM_MTU): once the endpoint is bound, the MTU of
 * its communicator's device when asked (0 before BIND, or while the
 * communicator has no device).  Reductions are cut into fragments by it,
 * and every rank must cut alike, so a library choosing how to split a
 * vector by the MTU reads it here, from the kernel that cuts, on the
 * endpoint it will use.
 */
struct netcoll_info {
	__u32	abi_version;		/* NETCOLL_ABI_VERSION */
	__u32	wire_version;		/* NETCOLL_WIRE_VERSION */
	__u64	features;		/* NETCOLL_FEAT_* */
	__u32	comm_size_max;
	__u32	mtu;
	__u32	reserved[6];
};

/*
 * Bind this endpoint to a communicator of the caller's network namespace.
 * rank must be the communicator's local rank.  Only the communicator's
 * owner, a member of its group or the admin may bind (-EACCES).  One
 * endpoint per communicator at a time (-EBUSY); an endpoint binds once
 * (-EISCONN).  On success the kernel writes the number of members into
 * size.
 */
struct netcoll_bind {
	__u32	comm_id;
	__u32	rank;
	__u32	flags;			/* must be 0 */
	__u32	size;			/* in: 0; out: members */
};

/*
 * timeout_ms (here and in the alltoall and reduction arguments): 0 = the
 * communicator's default; above NETCOLL_TIMEOUT_MS_MAX EINVAL.
 */
struct netcoll_barrier_args {
	__u32	flags;			/* must be 0 */
	__u32	timeout_ms;
	__u64	reserved;		/* must be 0 */
};

/* Order in which an alltoall sends its messages. */
enum netcoll_a2a_algo {
	NETCOLL_A2A_DEFAULT,		/* the installed schedule, else ring */
	NETCOLL_A2A_LINEAR,		/* LAM: every rank sends to 0, 1, ..., P-1 */
	NETCOLL_A2A_PAIRWISE,		/* MPICH: partner r^i (P a power of two),
					 * else (r+i) mod P
					 */
	NETCOLL_A2A_RING,		/* step i: send to (r+i) mod P */
	NETCOLL_A2A_SCHED,		/* the installed schedule; ENOENT if none */

	__NETCOLL_A2A_MAX,
	NETCOLL_A2A_MAX = __NETCOLL_A2A_MAX - 1
};

/*
 * sendbuf holds P blocks of count bytes, block i for rank i; recvbuf
 * receives block i from rank i.  count may be 0.
 */
struct netcoll_alltoall_args {
	__u64	sendbuf;
	__u64	recvbuf;
	__u64	count;			/* bytes per peer, <= NETCOLL_MSG_MAX */
	__u32	flags;			/* must be 0 */
	__u32	timeout_ms;		/* 0 = the communicator's default */
	__u32	algo;			/* enum netcoll_a2a_algo */
	__u32	reserved;		/* must be 0 */
};

#define NETCOLL_MSG_MAX			0x40000000U

/* Reductions, applied in the tree's fixed order (see struct netcoll_reduce). */
enum netcoll_red_op {
	NETCOLL_OP_SUM,
	NETCOLL_OP_PROD,
	NETCOLL_OP_MIN,			/* b < a ? b : a, in reduction order */
	NETCOLL_OP_MAX,			/* b > a ? b : a, in reduction order */
	NETCOLL_OP_BAND,		/* integer types only */
	NETCOLL_OP_BOR,
	NETCOLL_OP_BXOR,
	NETCOLL_OP_MINLOC,		/* struct {value; __s32 index}: smaller
					 * value, on a tie the smaller index
					 */
	NETCOLL_OP_MAXLOC,

	NETCOLL_OP_COUNT		/* number of ops, not an op */
};

enum netcoll_dtype {
	NETCOLL_DT_INT32,
	NETCOLL_DT_INT64,
	NETCOLL_DT_UINT32,
	NETCOLL_DT_UINT64,
	NETCOLL_DT_FLOAT,
	NETCOLL_DT_DOUBLE,

	NETCOLL_DT_COUNT		/* number of types, not a type */
};

/* Flags of struct netcoll_reduce. */
#define NETCOLL_RED_ALL		0x0001	/* allreduce: every rank gets the result */
#define NETCOLL_RED_MCAST	0x0002	/* results go to the communicator's
					 * multicast group (repaired by unicast)
					 * instead of down the tree
					 */
#define NETCOLL_RED_BCAST	0x0004	/* broadcast: root's sendbuf into every
					 * rank's recvbuf; count is bytes, op
					 * and dtype must be 0
					 */
#define NETCOLL_RED_KNOWN	(NETCOLL_RED_ALL | NETCOLL_RED_MCAST | NETCOLL_RED_BCAST)
/* Wire opcode of a broadcast's frames (no reduction's op << 8 | dtype). */
#define NETCOLL_OPCODE_BCAST	0xff00

/*
 * Reduce count elements of sendbuf over all members into recvbuf of root
 * (or of every rank with NETCOLL_RED_ALL).  The vector is cut into `split`
 * contiguous pieces (0 = 1), piece j is reduced on tree j: every member
 * first combines its own piece with those of its children, in ascending
 * rank order, and sends the result to its parent; the tree's root
 * distributes it.  The result is therefore bit-identical on every rank
 * and on every run.  count == 0 is a barrier.
 *
 * With NETCOLL_RED_BCAST it is a broadcast: count bytes of root's sendbuf
 * (the others' sendbuf is not read) reach every rank's recvbuf.  Nothing
 * goes up: the root sends, on a tree rooted at it (the communicator's
 * tree degree, ranks taken relative to the root) or to the multicast
 * group with NETCOLL_RED_MCAST, inner ranks forward each fragment in
 * the receive path as it arrives, and holes are repaired as for results.
 *
 * REDUCE_START posts the contribution and returns at once with a handle
 * (it sleeps while NETCOLL_A_COMM_OSO operations of this rank are
 * unfinished); WAIT with that handle sleeps until the result is in recvbuf.
 * REDUCE does both.
 */
struct netcoll_reduce {
	__u64	sendbuf;		/* count elements */
	__u64	recvbuf;		/* count elements; may equal sendbuf */
	__u64	count;			/* elements, <= NETCOLL_REDUCE_MAX bytes */
	__u32	op;			/* enum netcoll_red_op */
	__u32	dtype;			/* enum netcoll_dtype */
	__u32	root;			/* ignored with NETCOLL_RED_ALL */
	__u32	flags;			/* NETCOLL_RED_* */
	__u32	timeout_ms;		/* 0 = the communicator's default */
	__u32	split;			/* 0 .. NETCOLL_TREES_MAX */
	__u64	handle;			/* out (REDUCE_START) */
	__u64	reserved;		/* must be 0 */
};

struct netcoll_wait {
	__u64	handle;			/* from REDUCE_START */
	__u64	reserved;		/* must be 0 */
};

#define NETCOLL_REDUCE_MAX		(16U << 20)

#define NETCOLL_IOC_MAGIC		'N'
#define NETCOLL_IOC_INFO	_IOR(NETCOLL_IOC_MAGIC, 0x80, struct netcoll_info)
#define NETCOLL_IOC_BIND	_IOWR(NETCOLL_IOC_MAGIC, 0x81, struct netcoll_bind)
#define NETCOLL_IOC_BARRIER	_IOW(NETCOLL_IOC_MAGIC, 0x90, struct netcoll_barrier_args)
#define NETCOLL_IOC_ALLTOALL	_IOW(NETCOLL_IOC_MAGIC, 0x91, struct netcoll_alltoall_args)
#define NETCOLL_IOC_REDUCE	_IOW(NETCOLL_IOC_MAGIC, 0x92, struct netcoll_reduce)
#define NETCOLL_IOC_REDUCE_START _IOWR(NETCOLL_IOC_MAGIC, 0x93, struct netcoll_reduce)
#define NETCOLL_IOC_WAIT	_IOW(NETCOLL_IOC_MAGIC, 0x94, struct netcoll_wait)

/*
 * Handles from REDUCE_START belong to the endpoint (open file) that made
 * them.  Closing the endpoint cancels what it posted and has not finished
 * and frees everything it posted.
 *
 * Errors an operation returns (negated, as ioctl errno):
 *   ENOENT    NETCOLL_A2A_SCHED without an installed schedule
 *   EINVAL    bad arguments (unknown flag, reserved field set, sizes)
 *   ENOTCONN  endpoint not bound
 *   EACCES    BIND by somebody who is not the owner, in the group or admin
 *   ETIMEDOUT a peer did not answer within the time budget (or rank 0
 *             never told this rank the communicator's epoch)
 *   EINTR     a signal interrupted the call: an alltoall is cancelled (the
 *             peers then time out, and the communicator is broken); a
 *             blocking reduction keeps running in the kernel, since the
 *             peers need this rank's part, and is freed when it ends
 *   ENETDOWN  the communicator's device went down or was detached
 *   ESHUTDOWN the communicator was deleted
 *   ENOTRECOVERABLE an earlier operation of the communicator failed after
 *             it started: ranks may disagree on the order of operations,
 *             so none runs until the communicator is created again
 *   ENOBUFS   the operation would exceed the communicator's memory limit
 *   EAGAIN    the endpoint has as many operations posted and not waited
 *             for as the module parameter ep_ops_max allows
 *   EFAULT    bad user buffer
 *   EOPNOTSUPP float or double reduction on an architecture without
 *             kernel FPU support, or a bitwise op on a float type
 *   EBADF     WAIT for a handle of another endpoint
 *   ESRCH     WAIT for an unknown or already waited-for handle
 *   EBUSY     WAIT for a handle another thread is waiting for
 *   EPERM     WAIT by a process other than the one that posted the handle
 *             (the file is shared by fork() or SCM_RIGHTS): the result goes
 *             to the poster's recvbuf, an address in the poster's memory
 */

/* ------------------------------------------------------------------ */
/* 3. Wire format                                                      */
/* ------------------------------------------------------------------ */

#define NETCOLL_ETHERTYPE		0x88B5	/* IEEE local experimental 1 */
/*
 * 3: AGG_NACK carries a bitmap of what the asker has and may be bounded;
 * 4: a bounded AGG_NACK carries its round (frag_off);
 * 5: AGG_ACK may carry ACK_NOW (a parent asks a child that owes fragments)
 * 6: AGG_ACK may carry RESULT (a child acks a large result going down)
 * 7: a broadcast's AGG_* frames carry its root in the tag
 *    (NETCOLL_AGG_TAG): a rank starts the broadcast from its data
 * 8: ACK may carry DUP (the fragment it answers came twice)
 * 9: a reduction's result goes down in a window above 24 KiB as well as
 *    above 16 fragments (receivers ack every 32 KiB if that comes before
 *    8 fragments): at MTUs above 1536 ranks of versions 8 and 9 disagree
 *    on which results are windowed, and one waits for acks the other
 *    never sends
 */
#define NETCOLL_WIRE_VERSION		9

enum netcoll_frame_type {
	NETCOLL_T_DATA = 1,		/* a fragment of a message */
	NETCOLL_T_ACK = 2,		/* acknowledges fragments of a message */
	NETCOLL_T_AGG_UP = 3,		/* a fragment of a partial result, child
					 * to parent
					 */
	NETCOLL_T_AGG_DOWN = 4,		/* a fragment of the result, toward the
					 * leaves or multicast; msg_len 0: the
					 * piece is done, no data for this rank
					 */
	NETCOLL_T_AGG_ACK = 5,		/* parent to child: fragments held, like
					 * ACK (answers AGG_UP with ACK_NOW).
					 * With ACK_NOW the parent waits for
					 * the child's fragments and asks it
					 * to answer.  Of nothing (seq 0, no
					 * sack), any direction: "alive, not
					 * done", the answer to such requests
					 * and to AGG_NACK.  With RESULT, child
					 * to the sender of a large result
					 * going down the tree: the result
					 * fragments it holds
					 */
	NETCOLL_T_AGG_NACK = 6,		/* asks the result's sender again for
					 * the fragments from seq on that this
					 * rank lacks.  The payload (at most
					 * NETCOLL_NACK_MAP_MAX bytes) is a
					 * bitmap of the ones after seq it has
					 * (bit i of byte i / 8: fragment
					 * seq + 1 + i).  msg_len 0: every one
					 * it lacks (its timer expired; seq is
					 * its cumulative point; frag_off is
					 * 0), else only those below msg_len
					 * (holes it saw arriving fragment
					 * msg_len); frag_off then counts the
					 * asker's requests for holes it asked
					 * for before (0: new holes only), so
					 * an old request is told from a new
					 * one
					 */
	NETCOLL_T_JOIN = 7,		/* to rank 0: which epoch?  epoch carries
					 * the asker's random nonce; seq:frag_off
					 * echo rank 0's challenge (0: none yet)
					 */
	NETCOLL_T_JOIN_ACK = 8,		/* from rank 0: epoch is the answer;
					 * seq:frag_off echo the asker's nonce
					 * (high:low 32 bits).  Epoch 0: refused,
					 * rank 0 knew an earlier incarnation of
					 * the asker (both are broken now)
					 */
	NETCOLL_T_JOIN_CHALLENGE = 9,	/* from rank 0: prove the JOIN is live;
					 * epoch is a fresh random number to
					 * echo, seq:frag_off echo the nonce
					 */

	__NETCOLL_T_MAX,
	NETCOLL_T_MAX = __NETCOLL_T_MAX - 1
};

/* Header flags. */
#define NETCOLL_F_ACK_ALL		0x0001	/* ACK: whole message received */
#define NETCOLL_F_ACK_NOW		0x0002	/* DATA, AGG_UP: ack at once;
						 * AGG_ACK: answer at once
						 */
#define NETCOLL_F_MCAST			0x0004	/* AGG_DOWN to the group; dst_rank is
						 * NETCOLL_RANK_GROUP
						 */
#define NETCOLL_F_AUTH			0x0008	/* a struct netcoll_auth follows
						 * the payload
						 */
#define NETCOLL_F_RESULT		0x0010	/* AGG_ACK, child to the sender
						 * of a piece's result: the
						 * result fragments it holds
						 * (seq cumulative, frag_off
						 * selective, as ACK); opens the
						 * sender's window
						 */
#define NETCOLL_F_DUP			0x0020	/* ACK: answers a fragment that
						 * had arrived already (RFC
						 * 2883's D-SACK): the sender
						 * resent it needlessly
						 */
#define NETCOLL_F_KNOWN			(NETCOLL_F_ACK_ALL | NETCOLL_F_ACK_NOW | \
					 NETCOLL_F_MCAST | NETCOLL_F_AUTH | \
					 NETCOLL_F_RESULT | NETCOLL_F_DUP)

#define NETCOLL_RANK_GROUP		0xffffffffU

/*
 * Every frame starts with this header, in network byte order, right after
 * the link header.  A message (one per sender, receiver, operation and tag)
 * is cut into fragments of frag_size bytes; fragment seq carries bytes
 * [seq * frag_size, seq * frag_size + len).  An empty message is one
 * fragment of length 0.
 *
 * ACK frames go from the receiver of a message back to its sender: seq is
 * cumulative (all fragments below seq arrived), frag_off is a bitmap of the
 * 32 fragments after it (bit i: fragment seq + 1 + i arrived).
 *
 * AGG_* frames belong to the aggregation engine, with its own op_seq
 * space; tag is the piece (tree) number and `opcode` carries
 * (enum netcoll_red_op << 8 | enum netcoll_dtype), so a contribution
 * to another reduction is recognised and dropped.  For other types it
 * is 0.
 */
struct netcoll_hdr {
	__u8	version;		/* NETCOLL_WIRE_VERSION */
	__u8	type;			/* enum netcoll_frame_type */
	__be16	flags;			/* NETCOLL_F_* */
	__be32	comm_id;
	__be64	cookie;			/* the communicator's cookie */
	__be64	epoch;			/* this incarnation of the communicator,
					 * chosen at random by rank 0 (JOIN: the
					 * asker's nonce)
					 */
	__be32	op_seq;			/* operation sequence in the communicator */
	__be32	src_rank;
	__be32	dst_rank;
	__be16	tag;			/* message within the operation;
					 * AGG_*: NETCOLL_AGG_TAG()
					 */
	__be16	len;			/* payload bytes after the header */
	__be32	seq;			/* DATA: fragment number; ACK: cumulative */
	__be32	frag_off;		/* DATA: offset in message; ACK: bitmap */
	__be32	msg_len;		/* DATA: message length; ACK: 0 */
	__be16	frag_size;		/* DATA: fragment size; ACK: 0 */
	__be16	opcode;			/* AGG_*: op << 8 | dtype, else 0 */
};

#define NETCOLL_HDR_LEN			56

/*
 * The tag of an aggregation frame: the piece of the vector (tree) it
 * belongs to, and for a broadcast's frames also the broadcast's root, so
 * that a rank whose process has not posted the broadcast yet can start it
 * from its first data frame and forward to its subtree (reductions: 0).
 */
#define NETCOLL_AGG_TAG(piece, root)	((root) * NETCOLL_TREES_MAX + (piece))
#define NETCOLL_AGG_TAG_PIECE(tag)	((tag) % NETCOLL_TREES_MAX)
#define NETCOLL_AGG_TAG_ROOT(tag)	((tag) / NETCOLL_TREES_MAX)
#define NETCOLL_NACK_MAP_MAX		32	/* AGG_NACK: bitmap bytes */

/*
 * Authenticated frames (the communicator has a key) carry NETCOLL_F_AUTH
 * and, right after the len bytes of payload, this trailer.  tag is the
 * first 16 bytes of HMAC-SHA256(key, header | payload | pn), over the
 * header as sent (NETCOLL_F_AUTH set).  pn counts a sender's frames,
 * separately for frames without payload (class 1: acks, tokens, repair
 * requests, joins; top bit set) and with payload (class 0), so that
 * control frames overtaking data in a priority queue are not replays; a
 * receiver keeps a window of 1024 pns per sender and class, and refuses
 * a pn it took before or one more than 960 behind the highest it took.
 */
struct netcoll_auth {
	__be64	pn;
	__u8	tag[16];
};

#define NETCOLL_AUTH_LEN		24
#define NETCOLL_PN_CONTROL		_BITULL(63)

#endif /* _UAPI_LINUX_NETCOLL_H */

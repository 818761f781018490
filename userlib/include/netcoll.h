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
 * This header does not need any kernel header.
 */
#ifndef NETCOLL_H
#define NETCOLL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define NC_LIB_VERSION_MAJOR	0
#define NC_LIB_VERSION_MINOR	1

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
	NC_A2A_DEFAULT = 0,	/* the installed schedule, else linear */
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
/* Per-operation time budget in ms; 0 = the communicator's default. */
int nc_set_timeout(nc_endpoint *ep, uint32_t timeout_ms);

int nc_barrier(nc_endpoint *ep);
/* sendbuf: P blocks of count bytes (block i to rank i); recvbuf likewise. */
int nc_alltoall(nc_endpoint *ep, const void *sendbuf, void *recvbuf,
		size_t count);
int nc_alltoall_algo(nc_endpoint *ep, const void *sendbuf, void *recvbuf,
		     size_t count, enum nc_a2a_algo algo);

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
/* ifname NULL: all attached devices.  *devs is malloc'ed; free() it. */
int nc_dev_list(nc_ctl *ctl, const char *ifname, struct nc_dev_info **devs,
		size_t *ndevs);

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
	struct nc_member *members;	/* size entries, or NULL in lists */
};

int nc_comm_create(nc_ctl *ctl, const struct nc_comm_spec *spec);
int nc_comm_delete(nc_ctl *ctl, uint32_t id);
/* One communicator, with members; release with nc_comm_info_free(). */
int nc_comm_get(nc_ctl *ctl, uint32_t id, struct nc_comm_info *info);
void nc_comm_info_free(struct nc_comm_info *info);
/* All communicators, without members.  *comms is malloc'ed; free() it. */
int nc_comm_list(nc_ctl *ctl, struct nc_comm_info **comms, size_t *ncomms);

/* Alltoall schedules computed from the network's topology. */
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
/* Back to the linear order. */
int nc_sched_remove(nc_ctl *ctl, uint32_t comm_id);

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

int nc_ctl_subscribe(nc_ctl *ctl);
/* Wait up to timeout_ms (-1: forever); 0 = got one, -ETIMEDOUT = none. */
int nc_event_wait(nc_ctl *ctl, struct nc_event *ev, int timeout_ms);

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

#ifdef __cplusplus
}
#endif

#endif /* NETCOLL_H */

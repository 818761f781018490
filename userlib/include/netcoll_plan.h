/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libnetcoll's planner: what every member computes the same way from the
 * same input, without the module: topologies, alltoall schedules (plans,
 * their verification, each rank's slice), aggregation and broadcast trees
 * over a topology and the reduction latency model that picks their
 * degree.  netcoll.h installs what these compute (nc_tree_install,
 * nc_tree_install_fnomial, nc_sched_install).
 *
 * Everything here is reentrant and keeps no state between calls.  A
 * topology (nc_topo_create) and a plan (nc_a2a_plan_compute) are opaque
 * handles, read through the functions below and never changed once made:
 * any number of threads may read one at once; destroy it only once no
 * call on it runs.  nc_a2a_plan_compute may run helper threads (at most
 * one per online CPU, at most 8), joined before it returns.
 *
 * The plain-data structs here (nc_topo_err, nc_topo_link_info,
 * nc_topo_route, nc_sched_report, nc_a2a_slice) are filled by the library
 * and written whole; if one grows, the functions filling it get a new
 * symbol version.
 */
#ifndef NETCOLL_PLAN_H
#define NETCOLL_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "netcoll.h"

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default)

/*
 * Topologies: switches and hosts joined by links.  A topology is named by
 * text, as users name one: an existing file in the cluster format (the
 * one selftests/net/cluster.sh builds emulated networks from),
 * "ib:NETDISCOVER[,LFTS]" for an InfiniBand fabric as ibnetdiscover (and
 * ibroute, dump_lfts) print it, or a generator spec: "star:16",
 * "chain:3x4", "random:5:20:SEED", "ft:3:4,4,2" (FT(L; M1..ML)),
 * "xgft:2:8,4:1,4" (XGFT(h; m1..mh; w1..wh)), each with an optional
 * "@RATE" for every link (Mbit/s, or "1gbit", "500kbit", ...).  Host r,
 * in the order declared or generated, is rank r.
 */
typedef struct nc_topo nc_topo;

#define NC_TOPO_NAME_MAX	32	/* node names, the NUL included */
#define NC_TOPO_NONE		UINT32_MAX	/* no such rank or node */

/* Where a topology's text went wrong. */
struct nc_topo_err {
	uint32_t line;			/* 0: not tied to a line */
	char msg[256];			/* "" when the error code says it all */
};

/*
 * Read or generate a topology.  Returns 0 and *t, or -errno with *t NULL
 * and err (may be NULL) filled in: -ENOENT, -EISDIR, ... for a file that
 * cannot be read (a name that does not start like a spec is a file),
 * -EINVAL for bad text at err->line or a bad spec.  Free with
 * nc_topo_destroy().
 */
int nc_topo_create(nc_topo **t, const char *topology, struct nc_topo_err *err);
void nc_topo_destroy(nc_topo *t);
/*
 * t in the text format (selftests/net/cluster.sh; what nc_topo_create()
 * reads back): switches, then hosts in rank order, then the links between
 * switches; rate and delay only.  0, -EINVAL for a topology with cycles or
 * parallel links (the format holds trees), -EIO if out fails.  Since 0.3.
 */
int nc_topo_write(const nc_topo *t, FILE *out);
uint32_t nc_topo_nhosts(const nc_topo *t);
uint32_t nc_topo_nswitches(const nc_topo *t);
uint32_t nc_topo_nlinks(const nc_topo *t);
/* 1: no cycle, so every two hosts have one path; 0: e.g. an XGFT with
 * parallel uplinks. */
int nc_topo_is_tree(const nc_topo *t);
/* 1: paths follow forwarding tables (an InfiniBand fabric read with them). */
int nc_topo_is_routed(const nc_topo *t);
/* The name of host `rank` (NULL past the last); lives as long as t. */
const char *nc_topo_host_name(const nc_topo *t, uint32_t rank);
/* The rank of the host of that name, or -ENOENT (no node, or a switch). */
int nc_topo_host_rank(const nc_topo *t, const char *name);

/* Link `link` (0 .. nc_topo_nlinks() - 1), its names living as long as t. */
struct nc_topo_link_info {
	const char *a, *b;		/* the nodes it joins */
	double rate_mbit;		/* 0: unknown */
	double delay_us;		/* 0: unknown */
	uint16_t port_a, port_b;	/* InfiniBand ports (0: unknown) */
};
int nc_topo_link_get(const nc_topo *t, uint32_t link,
		     struct nc_topo_link_info *info);	/* 0 or -EINVAL */

/* A path between two hosts: hops + 1 node names, and its slowest link. */
#define NC_TOPO_ROUTE_MAX	64
struct nc_topo_route {
	uint32_t hops;
	double slowest_mbit;		/* 0: a rate is unknown */
	char nodes[NC_TOPO_ROUTE_MAX][NC_TOPO_NAME_MAX];
};
/*
 * The path from host rank `from` to host rank `to` in t: the routed one
 * on a routed fabric, else the tree's.  0, or -EINVAL (no such rank),
 * -EOPNOTSUPP (no tree and not routed), -EHOSTUNREACH or -ELOOP (the
 * forwarding tables lose or circle the destination), -E2BIG (more than
 * NC_TOPO_ROUTE_MAX nodes), -ENOMEM.
 */
int nc_topo_host_path(const nc_topo *t, uint32_t from, uint32_t to,
		      struct nc_topo_route *r);
/*
 * The same asked of the topology query service (netcoll-topod(8)) at
 * addr ("unix:PATH" or "[HOST:]PORT"), by host names.  0, or -ENOENT
 * (unknown host), -EHOSTUNREACH (no path), -EPROTO (an answer it cannot
 * read), -E2BIG, -EBUSY (the service is full) or the connection's
 * -errno; msg (if not NULL) gets the service's words.
 */
int nc_topo_query(const char *addr, const char *a, const char *b,
		  struct nc_topo_route *r, char *msg, size_t msg_size);
/*
 * The hosts the service knows, in its rank order: *names is one
 * allocation (free(*names)), NULL-terminated, *n entries.  0, or -errno
 * as nc_topo_query().  Since 0.3.
 */
int nc_topo_query_hosts(const char *addr, char ***names, uint32_t *n,
			char *msg, size_t msg_size);

/*
 * Trees with known link rates: the least time any alltoall of 1 byte per
 * pair can take, in ns -- the busiest directed edge's load (messages that
 * must cross it) over its rate.  Multiply by the message size for the
 * physical bound.  0 when a rate is unknown or the topology is no tree.
 */
double nc_topo_a2a_bound_ns(const nc_topo *t);

/*
 * Alltoall plans: the global view every rank computes the same way, one
 * message per (src, dst != src) pair, each in a phase, a rank sending at
 * most once per phase, and the pairwise synchronisation tokens between
 * phases.  nc_sched_install() (netcoll.h) installs this host's slice.
 */
typedef struct nc_a2a_plan nc_a2a_plan;

/*
 * The plan of a kind for topology t, ranks = its hosts.  0 and *p, or
 * -errno with *p NULL: -EINVAL when there is no plan of that kind for t
 * (nc_sched_why() says why), -ENOMEM.  Free with nc_a2a_plan_destroy().
 */
int nc_a2a_plan_compute(nc_a2a_plan **p, const nc_topo *t,
			enum nc_sched_kind kind);
/* Why nc_a2a_plan_compute() gave err for this kind and topology, in words. */
const char *nc_sched_why(const nc_topo *t, enum nc_sched_kind kind, int err);
void nc_a2a_plan_destroy(nc_a2a_plan *p);
uint32_t nc_a2a_plan_nranks(const nc_a2a_plan *p);
uint32_t nc_a2a_plan_nphases(const nc_a2a_plan *p);
/*
 * The messages of one phase, by ascending sender: message i goes from
 * (*src)[i] to (*dst)[i].  Returns their number; the arrays live as long
 * as the plan.  0 (and NULLs) for a phase past the last.
 */
uint32_t nc_a2a_plan_phase(const nc_a2a_plan *p, uint32_t phase,
			   const uint32_t **src, const uint32_t **dst);

struct nc_sched_report {
	int ok;				/* every check below passed */
	char why[256];			/* first failed check */
	uint32_t nphases;
	uint32_t pairs_missing, pairs_repeated;
	uint32_t max_sends_per_phase, max_recvs_per_phase;
	uint32_t bottleneck_load;	/* AAPC load of the busiest edge (trees) */
	uint32_t max_edge_load;		/* most messages on one edge in a phase */
	uint32_t contended_phases;	/* phases with an edge over capacity
					 * (twice; fat links: rate / host rate) */
	/* Fat trees: the most messages leaving/entering one level-l subtree
	 * in one phase, next to B_min(l) (Prisacari et al., equation 1);
	 * index l = 1 .. ft_levels - 1. */
	uint32_t ft_levels;
	uint32_t level_max[8];
	uint32_t level_bmin[8];
	uint32_t nsyncs, nsyncs_unpruned;	/* tokens after and before the
						 * redundant ones were removed */
};

/*
 * Checks: every (src, dst != src) pair exactly once; each rank sends and
 * receives at most once per phase; on trees, per-phase edge loads (a
 * contention-free plan has max_edge_load 1, or on an ideal fat tree's fat
 * links up to rate / host rate) and nphases == bottleneck load (reported);
 * on fat trees, level_max against B_min.  A tree recognised or generated
 * as a fat tree gets both.  Syncs must go forward in phase order.
 * strict: contention (trees) or level_max > B_min (fat trees) makes ok
 * false.  Returns 0 with the verdict in r, or -errno if it cannot check.
 */
int nc_sched_verify(const nc_topo *t, const nc_a2a_plan *p, int strict,
		    struct nc_sched_report *r);

/* One rank's share of a plan, as the kernel takes it. */
struct nc_slice_phase {
	uint32_t send_to, recv_from;	/* NC_TOPO_NONE: none */
	uint32_t sync_in_first, nsync_in;	/* into sync_in[] */
	uint32_t sync_out_first, nsync_out;	/* into sync_out[] */
};

struct nc_slice_sync_out {
	uint32_t rank, phase;		/* the receiver's phase */
};

struct nc_a2a_slice {
	uint32_t rank, nphases;
	struct nc_slice_phase *phase;	/* nphases entries */
	uint32_t *sync_in;		/* ranks to hear from first */
	struct nc_slice_sync_out *sync_out;
	uint32_t nsync_in, nsync_out;
};

/* Fills s (free with nc_a2a_slice_free()); -EINVAL for a rank past the
 * plan's, -ENOMEM. */
int nc_a2a_slice(const nc_a2a_plan *p, uint32_t rank, struct nc_a2a_slice *s);
void nc_a2a_slice_free(struct nc_a2a_slice *s);

/*
 * f-nomial tree of degree f >= 2 (Yu, Buntinas, Graham, Panda, SC'03,
 * appendix A) over positions 0 .. size-1, position 0 the root;
 * order[v] is the rank placed at position v (NULL: rank v).  Writes
 * parents[rank].  Returns 0 or -EINVAL.
 */
int nc_tree_fnomial(uint32_t size, uint32_t degree, const uint32_t *order,
		    uint32_t *parents);
/*
 * The module's built-in tree rooted at root where ranks share hosts
 * (host[r] labels rank r's host; equal labels: one host): the f-nomial
 * tree of degree over the hosts, each host numbered by its lowest rank,
 * root's host at position 0, each host standing for its ranks through
 * root or its lowest rank, the host's other ranks hanging off that one.
 * Writes parents[rank].  Returns 0, -EINVAL or -ENOMEM.
 */
int nc_tree_fnomial_hosts(uint32_t size, uint32_t degree, uint32_t root,
			  const uint32_t *host, uint32_t *parents);

/*
 * Positions for a topology (cluster file or generator spec, rank r = its
 * r-th host): hosts are ordered switch by switch, depth first, so that
 * the f-nomial subtrees, which cover consecutive positions, stay under
 * one switch and partial results cross as few links as possible.
 * `rotate` shifts the root by that many positions (parallel trees).
 * topology NULL: rank order.  Returns 0 or -errno (-EINVAL when the
 * topology's host count is not size).
 */
int nc_tree_order_topo(const char *topology, uint32_t size, uint32_t rotate,
		       uint32_t *order);
/*
 * The order nc_tree_install_fnomial() installs for an f-nomial tree of
 * the given degree: nc_tree_order_topo()'s, and where the topology's host
 * links do not all run at one rate, the hosts placed by speed (Subramoni
 * et al., Cluster 2011, IV-B, for a reduction: the positions with
 * children get the hosts fastest towards their parents, slow links end
 * on leaves; the root stays; nc_bcast_order()'s DFT and BFT with the
 * delays taken child to parent for a 64 KiB vector, whichever
 * nc_bcast_predict() says is faster than the switch order; up to 4096
 * hosts, the delay matrix's bound).  Returns 0 or -errno.  Since 0.3.
 */
int nc_tree_order_aware(const char *topology, uint32_t size, uint32_t rotate,
			uint32_t degree, uint32_t *order);

/*
 * Broadcast trees aware of topology and speed (Subramoni et al., Cluster
 * 2011, section IV-B): the logical tree stays an f-nomial tree, and the
 * hosts are placed on its positions so that the positions with the
 * largest subtrees, reached first, get the shortest and fastest paths.
 * Everything is deterministic, so every member computes the same tree.
 */
enum nc_bcast_order {
	NC_BCAST_UNAWARE,	/* rank order, rotated to the root (as MPI) */
	NC_BCAST_DFT,		/* depth first, closest free host per child */
	NC_BCAST_BFT,		/* breadth first, the same */
	NC_BCAST_BEST,		/* the one of the three the model says is
				 * fastest; ties to the earlier */
};

/*
 * delay[a * P + b] in microseconds for the topology's P hosts:
 * the path's latency -- each link's delay where the topology gives one
 * (`delay` in a topology file), else hop_us per hop -- + bytes * 8 /
 * slowest rate on the path (Mbit/s); the second term is left out where a
 * rate is unknown.  Paths are the routed ones on a routed fabric, the
 * tree's on a tree, else shortest (then the slowest of the two hosts'
 * links counts; only text topologies, which are trees, give delays).
 * 0 or -errno.
 */
int nc_bcast_delays(const nc_topo *t, double hop_us, uint64_t bytes,
		    double *delay);
/*
 * Seed 003's way, for hosts the planner has no topology of: the same
 * matrix asked of the topology query service (netcoll-topod(8)) at addr,
 * pair by pair over one connection, for the P hosts names[] (an MPI job's
 * hosts in rank order, say).  Asked again if the service reloads its
 * model meanwhile (-EAGAIN after three tries).  The service says the
 * sum of its path's known link delays (a service before 0.3 does not:
 * then hop_us per hop).  0, or -errno as nc_topo_query(); msg (if not
 * NULL) gets the service's last words.  Since 0.3.
 */
int nc_bcast_delays_query(const char *addr, const char *const *names,
			  uint32_t P, double hop_us, uint64_t bytes,
			  double *delay, char *msg, size_t msg_size);
/*
 * order[pos] = the rank placed at position pos (order[0] = root) for the
 * f-nomial broadcast tree of the given degree, by how.  delay may be NULL
 * for NC_BCAST_UNAWARE.  0 or -errno.  nc_bcast_best_order() is
 * NC_BCAST_BEST and says which order it took.
 */
int nc_bcast_order(const double *delay, uint32_t P, uint32_t root,
		   uint32_t degree, enum nc_bcast_order how, uint32_t *order);
int nc_bcast_best_order(const double *delay, uint32_t P, uint32_t root,
			uint32_t degree, uint32_t *order,
			enum nc_bcast_order *chosen);
/*
 * Predicted broadcast time in microseconds: a host forwards to its
 * children one after another, largest subtree first, each send taking
 * delay[parent][child]; the broadcast ends when the last host has it.
 * Negative errno on bad arguments.
 */
double nc_bcast_predict(const double *delay, uint32_t P, uint32_t degree,
			const uint32_t *order);
/*
 * Adds a per-message cost of msg_us microseconds to every send of the
 * delay matrix (every entry but the diagonal): what a message costs
 * besides its hops and its bytes on the wire -- the sender's and the
 * receiver's software, interrupts, a process being scheduled.  The links
 * alone put a small broadcast at microseconds where it takes
 * milliseconds on a loaded host; with the cost, nc_bcast_predict() counts
 * the sends on the critical path, and the orders compare as the
 * measurement does.  bench_bcast.sh fits it to measured broadcasts.  0 or
 * -EINVAL (msg_us negative or not a number).  Since 0.3.
 */
int nc_bcast_msg_cost(double *delay, uint32_t P, double msg_us);

/*
 * The reduction latency model of the same paper (section 5.2), in
 * microseconds: L message latency, r reception cost, c reduction cost
 * (for the message size and op at hand), C start-up overhead.
 *   T(P, f) = C + L ceil(log_f P) + (r + c)(f - 1) floor(log_f P)
 *             + (r + c) ceil(P / f^floor(log_f P) - 1)
 */
struct nc_model {
	double L, r, c, C;
};
double nc_model_fnomial(const struct nc_model *m, uint32_t P, uint32_t f);
/* The f in [2, fmax] with the least T(P, f); ties to the smaller f. */
uint32_t nc_model_best_degree(const struct nc_model *m, uint32_t P,
			      uint32_t fmax);
/*
 * Fit from serial reductions (flat trees, f = P) of n sizes P[i] taking
 * t[i] us: T_serial(P) = C + L + (P - 1)(r + c).  Gives the slope (r + c)
 * and the intercept (C + L); returns 0 or -EINVAL (fewer than 2 points).
 */
int nc_model_fit_serial(const uint32_t *P, const double *t, size_t n,
			double *slope, double *intercept);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif

#endif /* NETCOLL_PLAN_H */

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The network as the schedulers see it: switches and hosts (leaves) joined
 * by links with a rate and an optional latency.  Host i is rank i: hosts
 * are numbered in the order they are declared (or generated).
 *
 * Sources: the text format of selftests/net/cluster.sh (the same file
 * describes the schedule's view and the emulated network), and generators
 * for a single switch, arbitrary and random trees, FT(L; M1..ML) and
 * XGFT(h; m1..mh; w1..wh).
 */
#ifndef NC_TOPO_H
#define NC_TOPO_H

#include <stdint.h>
#include <stdio.h>

/* nc_topo (opaque there), nc_topo_err, NC_TOPO_NONE, routes, the bound */
#include "netcoll_plan.h"

enum nc_node_kind {
	NC_NODE_SWITCH,
	NC_NODE_HOST,
};

struct nc_topo_node {
	char name[NC_TOPO_NAME_MAX];
	enum nc_node_kind kind;
	uint32_t host;			/* hosts: rank; switches: NC_TOPO_NONE */
	uint32_t level;			/* XGFT/FT level (hosts 0); else 0 */
	uint32_t line;			/* source line, 0 if generated */
};

/*
 * A link joins nodes a and b; it carries two directed edges.  Parsed host
 * cables and generated links have a = the host or lower node, b = the
 * switch above; don't rely on it: the edge from node n over link l is
 * NC_EDGE(l, links[l].a == n).
 */
struct nc_topo_link {
	uint32_t a, b;
	double rate_mbit;		/* 0: unknown */
	double delay_us;		/* 0: unknown */
	uint32_t line;
	/*
	 * Host links' worth this link carries at once when the rates are
	 * unknown (0: one).  A fat tree generated without a rate is still
	 * fat: its uplinks carry every host below them.
	 */
	uint32_t lanes;
	/* InfiniBand: the port numbers at a and at b (0: unknown). */
	uint16_t port_a, port_b;
};

/* Directed edge e of link l: e = 2 * l (a -> b) or 2 * l + 1 (b -> a). */
#define NC_EDGE(link, from_a)	(2 * (link) + ((from_a) ? 0 : 1))
#define NC_EDGE_LINK(e)		((e) / 2)

struct nc_topo {
	uint32_t nnodes, nlinks, nhosts;
	struct nc_topo_node *nodes;
	struct nc_topo_link *links;
	uint32_t *host_node;		/* rank -> node index */
	/* Built by nc_topo_finish(): links of node i are
	 * adj[adj_off[i] .. adj_off[i + 1]) (link indices). */
	uint32_t *adj_off, *adj;
	int is_tree;			/* set by nc_topo_finish() */
	/* For fat trees made by the generators (else ft_levels == 0). */
	/* Also set by nc_topo_finish() for a tree shaped as FT(L; M) whose
	 * hosts are ranked in mixed radix, M1 least significant. */
	uint32_t ft_levels;		/* L or h */
	uint32_t ft_m[8];		/* M1..ML / m1..mh, index 0 = level 1 */
	uint32_t ft_w[8];		/* w1..wh (all 1 for FT) */
	/*
	 * Routed fabrics (InfiniBand, from the switches' forwarding tables):
	 * the link switch n sends traffic for host h over is
	 * route[n * nhosts + h], NC_TOPO_NONE where it has no entry.  NULL:
	 * paths are the tree's.  Owned by the topology; set after finishing.
	 */
	uint32_t *route;
	/* Several cables may join two switches (set before finishing). */
	int parallel_links;
	/* Private to topo.c, appended: builder capacities, the name index
	 * (open addressing, node + 1, 0 empty) and, for trees, the rooted
	 * index nc_topo_path() walks (built by nc_topo_finish()). */
	uint32_t cap_nodes, cap_links;
	uint32_t *name_ix, name_cap;
	uint32_t root;			/* trees: the first switch */
	uint32_t *parent_link;		/* trees: link towards the root */
	uint32_t *depth;		/* trees: hops from the root */
	int ft_found;			/* ft_* recognized by nc_topo_finish() */
};

/* Rate of host h's (first) link in Mbit/s, 0 when unknown. */
static inline double nc_topo_host_rate(const struct nc_topo *t, uint32_t h)
{
	uint32_t n = t->host_node[h];

	return t->links[t->adj[t->adj_off[n]]].rate_mbit;
}

/* Hosts a text topology may have (cluster.sh: 16-bit MAC/IPv4 suffix). */
#define NC_TOPO_HOSTS_MAX	65534

void nc_topo_init(struct nc_topo *t);
void nc_topo_free(struct nc_topo *t);		/* leaves t initialized */

/*
 * Builders; return the new node/link index, or -errno: names as cluster.sh
 * takes them (-EINVAL; -ENAMETOOLONG past NC_TOPO_NAME_MAX - 1; -EPERM for
 * "fabric"), -EEXIST for a name in use, -EINVAL for a bad node index or a
 * negative/non-finite rate or delay.  Adding invalidates nc_topo_finish().
 */
int nc_topo_add_switch(struct nc_topo *t, const char *name);
int nc_topo_add_host(struct nc_topo *t, const char *name);
int nc_topo_add_link(struct nc_topo *t, uint32_t a, uint32_t b,
		     double rate_mbit, double delay_us);
/*
 * Check and index: names unique, hosts are leaves with exactly one link,
 * no self links, every node connected.  Sets is_tree (no cycle).
 * Returns 0 or -EINVAL with err filled in.
 */
int nc_topo_finish(struct nc_topo *t, struct nc_topo_err *err);

int nc_topo_find(const struct nc_topo *t, const char *name);	/* index or -ENOENT */

/*
 * The directed edges from node a to node b, in order; returns their number
 * (<= max written), or -errno.  Like snprintf, the return is the whole
 * length even when only max edges fit; -EINVAL on a bad node.
 * O(path length).  Routed fabrics: the routed path to a host b (from a
 * host or switch a); -EHOSTUNREACH where a switch on the way has no entry
 * for b, -ELOOP if the entries go round.  Else trees only: -EOPNOTSUPP on
 * a graph with cycles (XGFT) or, routed, towards a switch.
 */
int nc_topo_path(const struct nc_topo *t, uint32_t a, uint32_t b,
		 uint32_t *edges, uint32_t max);

/*
 * Messages each link carries at once at the hosts' rate, into cap[nlinks]:
 * 1, or for a fat link (an ideal fat tree's uplink runs at the hosts' rate
 * times the hosts below it) its rate over the hosts' rate, rounded down
 * and at most nhosts.  All 1 unless every host link has the same known
 * rate.
 */
void nc_topo_link_capacities(const struct nc_topo *t, uint32_t *cap);

/*
 * Text format (see selftests/net/cluster.sh); 0 or -errno with err.  t is
 * initialized here, and left empty on error.  Accepts what cluster.sh
 * accepts, and only trees: a cycle, a second link between two switches or
 * a switch apart from the first one is an error at its line.
 */
int nc_topo_parse(struct nc_topo *t, const char *text, struct nc_topo_err *err);
int nc_topo_load(struct nc_topo *t, const char *path, struct nc_topo_err *err);
/*
 * File or generator spec, as users name a topology: an existing file,
 * "ib:NETDISCOVER[,LFTS]" is an InfiniBand fabric (nc_topo_load_ib()),
 * "lldp:PATH[,PATH...]" an Ethernet network from LLDP (nc_topo_load_lldp()),
 * "service:ADDR" the topology query service's (nc_topo_load_service()), a
 * name starting like a spec ("ft:", ...) is generated, anything else is a
 * file that cannot be read (-ENOENT, -EISDIR, ... with the path in err).
 */
int nc_topo_open(struct nc_topo *t, const char *topology, struct nc_topo_err *err);
/* Fills err (if not NULL) with line and message; returns -EINVAL. */
__attribute__((format(printf, 3, 4)))
int nc_topo_fail(struct nc_topo_err *err, uint32_t line, const char *fmt, ...);

/* A whole file as a string (NUL bytes dropped); 0 or -errno. */
int nc_topo_read_text(const char *path, char **text);

/*
 * InfiniBand (topo_ib.c): the fabric as `ibnetdiscover` prints it and,
 * if lfts is not NULL, the switches' forwarding tables as `ibroute`,
 * `dump_fts` or `dump_lfts` print them (then t->route is set).  Hosts are
 * the CAs, named after their node descriptions, ranked in version order of
 * their names; rates from the links' width x speed.  0 or -errno with err;
 * *err_in_lfts (if not NULL) says which text err->line refers to.
 * nc_topo_load_ib() reads the files and puts "FILE:LINE: " into err->msg.
 */
int nc_topo_parse_ib(struct nc_topo *t, const char *netdiscover,
		     const char *lfts, struct nc_topo_err *err,
		     int *err_in_lfts);
int nc_topo_load_ib(struct nc_topo *t, const char *netdiscover_path,
		    const char *lfts_path, struct nc_topo_err *err);

/*
 * Ethernet from LLDP (topo_lldp.c): texts holding each node's `lldpcli -f
 * json show chassis` then its `lldpcli -f json show neighbors details` (any
 * number of such pairs per text).  Switches are the chassis with the Bridge
 * or Router capability, hosts the others, ranked in version order of their
 * names; rates from the ports' operational MAU type.  0 or -errno with
 * err; *err_text (if not NULL) is the index of the text err refers to
 * (ntexts: the whole).  nc_topo_load_lldp() reads files, or every *.json
 * of a directory, and puts "FILE: " into err->msg.
 */
int nc_topo_parse_lldp(struct nc_topo *t, const char *const *texts,
		       uint32_t ntexts, struct nc_topo_err *err,
		       uint32_t *err_text);
int nc_topo_load_lldp(struct nc_topo *t, const char *const *paths,
		      uint32_t npaths, struct nc_topo_err *err);

/*
 * The network the topology query service at addr (netcoll-topod(8))
 * knows, as it answers (topo_query.c): its model node by node and link by
 * link in its order (so ranks, the tree's root, link rates, lanes and
 * ports are the service's), a generated fat tree's shape, and a routed
 * fabric's routes switch by switch.  One connection, asked again if the
 * service reloads meanwhile.  The answers are checked, not believed: at
 * most NC_TOPO_SERVICE_HOSTS_MAX hosts, 2 * hosts + 64 switches and
 * 16 links per node (-E2BIG), no more of a kind than the service
 * announced, and a minute for all of it (-ETIMEDOUT); an answer that does
 * not fit is -EPROTO.  0 or -errno with err; t is left empty on error.
 */
#define NC_TOPO_SERVICE_HOSTS_MAX	1024
int nc_topo_load_service(struct nc_topo *t, const char *addr,
			 struct nc_topo_err *err);

/*
 * A node name as the text format takes it, made of in: other characters
 * become '_', "" if it does not start with a letter (cut to size - 1).
 */
void nc_topo_valid_name(const char *in, char *out, size_t size);
/* err->msg becomes "PATH:LINE: msg" (or "PATH: msg"), err->line 0. */
void nc_topo_err_prefix(struct nc_topo_err *err, const char *path);

/* Does text start like a generator spec (a known name and ':')? */
int nc_topo_spec_like(const char *text);

/*
 * Generators (call nc_topo_finish() themselves; t is initialized here and
 * left empty on error).  Hosts are h1..hN (rank + 1), switches s0, s1, ...
 * or, in fat trees, s<level>_<index>.
 */
int nc_topo_gen_star(struct nc_topo *t, uint32_t nhosts, double rate_mbit);
/* A chain of nswitches switches, hosts_per_switch hosts on each
 * (consecutive ranks), like Faraj & Yuan's Figure 5(c). */
int nc_topo_gen_chain(struct nc_topo *t, uint32_t nswitches,
		      uint32_t hosts_per_switch, double rate_mbit);
/* A random tree of nswitches switches and nhosts hosts (deterministic:
 * splitmix64 from seed; switch i hangs off a random earlier switch, hosts
 * off random switches, some switches may have none).  Rates 0. */
int nc_topo_gen_random_tree(struct nc_topo *t, uint32_t nswitches,
			    uint32_t nhosts, uint64_t seed);
/* FT(L; M1..ML): M[0] = M1 ... (ideal fat tree: one switch per subtree).
 * The uplink of a level-l node carries its subtree: rate * M1..Ml. */
int nc_topo_gen_ft(struct nc_topo *t, uint32_t L, const uint32_t *M,
		   double rate_mbit);
/* XGFT(h; m1..mh; w1..wh), Ohring et al.; every link at rate.  w1 must be
 * 1 (a host has one link); is_tree is false once some w > 1. */
int nc_topo_gen_xgft(struct nc_topo *t, uint32_t h, const uint32_t *m,
		     const uint32_t *w, double rate_mbit);
/*
 * "star:16", "chain:3x4", "ft:3:4,4,2", "xgft:2:8,4:1,4", "random:5:20:SEED"
 * (ft: L then M1..ML; xgft: h, m1..mh, w1..wh), each with an optional
 * "@RATE" for every link: Mbit/s ("@100", "@2.5") or a rate as in the
 * text format ("@1gbit", "@500kbit").  Without it, rates are 0 (unknown);
 * a generated fat tree (ft:) is still fat: its links count lanes instead.
 */
int nc_topo_gen_spec(struct nc_topo *t, const char *spec,
		     struct nc_topo_err *err);

#endif /* NC_TOPO_H */

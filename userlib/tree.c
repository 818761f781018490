// SPDX-License-Identifier: BSD-2-Clause
/*
 * Aggregation trees: the f-nomial tree of Yu, Buntinas, Graham and Panda
 * (SC'03, appendix A), host orders that keep its subtrees under one
 * switch, the vector split, and the helper that installs the parallel
 * trees of a communicator.  Every member computes the same trees from the
 * same arguments, so no member has to tell the others its choice.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/netcoll.h>

#include "bcast_plan.h"
#include "netcoll.h"
#include "netcoll_plan.h"
#include "nl.h"
#include "topo.h"

_Static_assert(NC_TREES_MAX == NETCOLL_TREES_MAX, "tree counts differ");

/*
 * The parent position of v: in phase k (stride f^k) v is a child when
 * digit k of v in base f is not 0; its parent clears that digit and the
 * lower ones.  Position 0 never is a child: it is the root.  Strides are
 * 64 bits wide so that size near 2^32 with a large f cannot wrap.
 */
static uint32_t fnomial_parent(uint32_t v, uint32_t size, uint32_t f)
{
	uint64_t stride;

	for (stride = 1; stride < size; stride *= f)
		if ((v / stride) % f != 0)
			return (uint32_t)(v / (stride * f) * (stride * f));
	return v;
}

int nc_tree_fnomial(uint32_t size, uint32_t degree, const uint32_t *order,
		    uint32_t *parents)
{
	uint32_t v, rank, pv;

	if (size == 0 || degree < 2 || !parents)
		return -EINVAL;
	for (v = 0; v < size; v++)
		parents[v] = UINT32_MAX;
	/* Each rank written once: that also proves order a permutation. */
	for (v = 0; v < size; v++) {
		rank = order ? order[v] : v;
		if (rank >= size || parents[rank] != UINT32_MAX)
			return -EINVAL;
		pv = fnomial_parent(v, size, degree);
		parents[rank] = order ? order[pv] : pv;
	}
	return 0;
}

/*
 * The kernel's built-in tree where ranks share hosts (kmod/tree.c,
 * nck_tree_placed_hosts): hosts numbered by their lowest ranks, the
 * f-nomial tree over them with root's host at position 0 and host h at
 * (h - root's host) mod hosts, each host standing in it for its ranks
 * through its lead (root on root's host, else its lowest rank), the
 * host's other ranks children of the lead.
 */
int nc_tree_fnomial_hosts(uint32_t size, uint32_t degree, uint32_t root,
			  const uint32_t *host, uint32_t *parents)
{
	uint32_t *hid, *first, nh = 0, r, q, hr, v, pv;

	if (size == 0 || degree < 2 || root >= size || !host || !parents)
		return -EINVAL;
	hid = calloc(size, sizeof(*hid));
	first = calloc(size, sizeof(*first));
	if (!hid || !first) {
		free(hid);
		free(first);
		return -ENOMEM;
	}
	for (r = 0; r < size; r++) {
		for (q = 0; q < r && host[q] != host[r]; q++)
			;
		if (q == r)
			first[nh++] = r;
		hid[r] = q == r ? nh - 1 : hid[q];
	}
	hr = hid[root];
	first[hr] = root;		/* the root stands for its host */
	for (r = 0; r < size; r++) {
		v = (hid[r] + nh - hr) % nh;
		pv = fnomial_parent(v, nh, degree);
		if (r != first[hid[r]])
			parents[r] = first[hid[r]];
		else
			parents[r] = first[(pv + hr) % nh];
	}
	free(hid);
	free(first);
	return 0;
}

/*
 * Depth first from the first switch; a switch's own hosts come before
 * the switches below it, so every switch's hosts, and on a tree every
 * switch subtree's hosts, are consecutive.  Visited marks make it work on
 * graphs with cycles (XGFT) too; the stack keeps long chains off the C
 * stack.
 */
static void topo_enter(const struct nc_topo *t, uint32_t s, uint8_t *seen,
		       uint32_t *out, uint32_t *n)
{
	uint32_t k, l, m;

	seen[s] = 1;
	if (t->nodes[s].kind == NC_NODE_HOST)
		out[(*n)++] = t->nodes[s].host;
	for (k = t->adj_off[s]; k < t->adj_off[s + 1]; k++) {
		l = t->adj[k];
		m = t->links[l].a == s ? t->links[l].b : t->links[l].a;
		if (t->nodes[m].kind == NC_NODE_HOST && !seen[m]) {
			seen[m] = 1;
			out[(*n)++] = t->nodes[m].host;
		}
	}
}

static int topo_dfs(const struct nc_topo *t, uint32_t *out)
{
	uint32_t *stack, *next, sp = 0, n = 0, s, l, m = 0;
	uint8_t *seen;
	int err = 0;

	stack = malloc(t->nnodes * sizeof(*stack));
	next = malloc(t->nnodes * sizeof(*next));
	seen = calloc(t->nnodes, 1);
	if (!stack || !next || !seen) {
		err = -ENOMEM;
		goto out;
	}
	topo_enter(t, t->root, seen, out, &n);
	next[t->root] = t->adj_off[t->root];
	stack[sp++] = t->root;
	while (sp) {
		s = stack[sp - 1];
		for (; next[s] < t->adj_off[s + 1]; next[s]++) {
			l = t->adj[next[s]];
			m = t->links[l].a == s ? t->links[l].b : t->links[l].a;
			if (!seen[m])
				break;
		}
		if (next[s] == t->adj_off[s + 1]) {
			sp--;
			continue;
		}
		next[s]++;
		topo_enter(t, m, seen, out, &n);
		next[m] = t->adj_off[m];
		stack[sp++] = m;
	}
	/* nc_topo_finish() proved the graph connected. */
	if (n != t->nhosts)
		err = -EINVAL;
out:
	free(stack);
	free(next);
	free(seen);
	return err;
}

/*
 * Speed awareness (seed 003, section IV-B, turned round): a reduction is
 * a broadcast run backwards -- a parent takes its children's partial
 * results one after another over its own link -- so the positions with
 * children are its critical part, and a host behind a slow link belongs
 * on a leaf, where its link carries one message instead of one per child.
 * Where the hosts' links do not all run at one rate, the hosts are placed
 * on the f-nomial positions as the broadcast planner places them (DFT and
 * BFT from the tree's root, which stays; bcast_plan.c), each child's
 * delay measured towards its parent, for a vector of AWARE_BYTES; the
 * placement the model predicts fastest is taken, the depth-first switch
 * order where it is as fast.  A homogeneous network keeps that order, and
 * so does one of more than AWARE_HOSTS_MAX hosts (the delay matrix has
 * P^2 entries, one path each; nctl tree bcast has the same bound).
 */
#define AWARE_BYTES	65536
#define AWARE_HOP_US	1.0
#define AWARE_HOSTS_MAX	4096

static int speeds_differ(const struct nc_topo *t)
{
	double rate = 0, r;
	uint32_t h;

	for (h = 0; h < t->nhosts; h++) {
		r = nc_topo_host_rate(t, h);
		if (r > 0 && rate > 0 && r != rate)
			return 1;
		if (r > 0)
			rate = r;
	}
	return 0;
}

/*
 * order[] holds the switch order from its root on; place speed-aware.
 * The placements see one more term than the model: of hosts equally
 * close to a parent (a slow parent makes every child equally slow), the
 * one with the faster link goes first, since its own children send over
 * it.  The term (a millionth of the vector's time on the host's link) is
 * below a hop's microsecond for links faster than 0.5 Mbit/s.
 */
static int tree_place_aware(const struct nc_topo *t, uint32_t size,
			    uint32_t degree, uint32_t *order)
{
	size_t P = size;
	double *d = malloc(P * P * sizeof(*d)), *up = malloc(P * P * sizeof(*up));
	uint32_t *cand = malloc(P * sizeof(*cand)), a, b;
	double best, time, r;
	int how, err;

	err = d && up && cand ? nc_bcast_delays(t, AWARE_HOP_US, AWARE_BYTES, d) : -ENOMEM;
	if (err)
		goto out;
	/* the broadcast model's delay[parent][child]: here child to parent */
	for (a = 0; a < size; a++)
		for (b = 0; b < size; b++)
			up[a * P + b] = d[b * P + a];
	best = nc_bcast_predict(up, size, degree, order);
	for (b = 0; b < size; b++) {
		r = nc_topo_host_rate(t, b);
		for (a = 0; a < size; a++)
			d[a * P + b] = up[a * P + b] + (r > 0 ? AWARE_BYTES * 8 / r * 1e-6 : 0);
	}
	for (how = NC_BCAST_DFT; how <= NC_BCAST_BFT && best >= 0; how++) {
		err = nc_bcast_order(d, size, order[0], degree, how, cand);
		if (err)
			break;
		time = nc_bcast_predict(up, size, degree, cand);
		if (time < 0) {		/* every member must choose alike */
			err = (int)time;
			break;
		}
		if (time < best) {
			best = time;
			memcpy(order, cand, P * sizeof(*order));
		}
	}
	if (best < 0)
		err = (int)best;
out:
	free(d);
	free(up);
	free(cand);
	return err;
}

/*
 * Fills order[size]; NULL topology: ranks in their own order.  degree 0:
 * the switch order alone; else speed-aware for that f-nomial tree.
 */
static int tree_order(const char *topology, uint32_t size, uint32_t rotate,
		      uint32_t degree, uint32_t *order, struct nc_topo_err *e)
{
	struct nc_topo t;
	uint32_t *dfs, v;
	int err;

	if (size == 0 || !order)
		return -EINVAL;
	rotate %= size;
	if (!topology) {
		for (v = 0; v < size; v++)
			order[v] = (uint32_t)(((uint64_t)v + rotate) % size);
		return 0;
	}
	nc_topo_init(&t);
	err = nc_topo_open(&t, topology, e);
	if (err)
		return err;
	if (t.nhosts != size) {
		snprintf(e->msg, sizeof(e->msg), "%u hosts, not %u", t.nhosts, size);
		e->line = 0;
		err = -EINVAL;
		goto out;
	}
	dfs = malloc(size * sizeof(*dfs));
	err = dfs ? topo_dfs(&t, dfs) : -ENOMEM;
	if (!err)
		for (v = 0; v < size; v++)
			order[v] = dfs[(uint32_t)(((uint64_t)v + rotate) % size)];
	if (!err && degree && size <= AWARE_HOSTS_MAX && speeds_differ(&t)) {
		err = tree_place_aware(&t, size, degree, order);
		if (err)
			snprintf(e->msg, sizeof(e->msg), "placing by speed: %s",
				 strerror(-err));
	}
	free(dfs);
out:
	nc_topo_free(&t);
	return err;
}

int nc_tree_order_topo(const char *topology, uint32_t size, uint32_t rotate,
		       uint32_t *order)
{
	struct nc_topo_err e = { 0 };

	return tree_order(topology, size, rotate, 0, order, &e);
}

int nc_tree_order_aware(const char *topology, uint32_t size, uint32_t rotate,
			uint32_t degree, uint32_t *order)
{
	struct nc_topo_err e = { 0 };

	if (degree < 2)
		return -EINVAL;
	return tree_order(topology, size, rotate, degree, order, &e);
}

/*
 * Piece j of a split vector runs on tree j, whose root and interior
 * members differ from the other trees' (they are rotated), so the
 * reduction work and the root's receptions spread over several hosts
 * working in parallel, as in the paper's vector split (section 5.3).
 * Each piece costs a tree's latency and its own frames, acks and timers,
 * though, so no piece is smaller than 8 KiB, nor than
 * NC_SPLIT_PIECE_FRAMES frames of the device's MTU where it is known.
 * On the two-switch cluster (16 hosts, docs/apps-bench.md, "stop 66")
 * pieces of 4 KiB made allreduces of 32 KiB 1.3-1.9x slower than pieces
 * of 8 KiB at MTU 1500 and 9000, and at MTU 9000 8 pieces of two jumbo
 * frames made 128 KiB 1.6x slower than 4 pieces of four.  More pieces
 * than members would put two pieces' roots on one host, more than
 * NC_TREES_MAX have no tree.
 */
#define NC_SPLIT_PIECE_BYTES	8192
#define NC_SPLIT_PIECE_FRAMES	3

uint32_t nc_split_for_mtu(size_t bytes, uint32_t size, uint32_t mtu)
{
	uint32_t cap = size < NC_TREES_MAX ? size : NC_TREES_MAX;
	size_t piece = NC_SPLIT_PIECE_BYTES, n;

	if ((size_t)mtu * NC_SPLIT_PIECE_FRAMES > piece)
		piece = (size_t)mtu * NC_SPLIT_PIECE_FRAMES;
	n = bytes / piece;
	if (n < 2 || cap < 2)
		return 1;
	return n < cap ? (uint32_t)n : cap;
}

uint32_t nc_split_for(size_t bytes, uint32_t size)
{
	return nc_split_for_mtu(bytes, size, 0);
}

int nc_tree_install_fnomial(nc_ctl *ctl, uint32_t comm_id, uint32_t ntrees,
			    uint32_t degree, const char *topology)
{
	uint32_t *order = NULL, *parents = NULL, j, size;
	struct nc_topo_err e = { 0 };
	struct nc_comm_info ci;
	int err;

	if (!ctl || ntrees == 0 || ntrees > NC_TREES_MAX || degree < 2)
		return -EINVAL;
	err = nc_comm_get(ctl, comm_id, &ci);
	if (err)
		return err;
	size = ci.size;
	nc_comm_info_free(&ci);
	order = malloc(size * sizeof(*order));
	parents = malloc(size * sizeof(*parents));
	if (!order || !parents) {
		err = -ENOMEM;
		goto out;
	}
	/* tree j: rotated by j * size / ntrees, as nc_tree_order_aware() */
	for (j = 0; j < ntrees && !err; j++) {
		err = tree_order(topology, size, (uint32_t)((uint64_t)j * size / ntrees),
				 degree, order, &e);
		if (err && e.line)
			nc_ctl_seterr(ctl, "%s:%u: %s", topology, e.line, e.msg);
		else if (err && topology)
			nc_ctl_seterr(ctl, "%s: %s", topology,
				      e.msg[0] ? e.msg : "cannot read");
		if (!err)
			err = nc_tree_fnomial(size, degree, order, parents);
		if (!err)
			err = nc_tree_install(ctl, comm_id, j, parents, size);
	}
out:
	free(order);
	free(parents);
	return err;
}

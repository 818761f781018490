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
#include <unistd.h>

#include <linux/netcoll.h>

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

/* Fills order[size]; NULL topology: ranks in their own order. */
static int tree_order(const char *topology, uint32_t size, uint32_t rotate,
		      uint32_t *order, struct nc_topo_err *e)
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
	free(dfs);
out:
	nc_topo_free(&t);
	return err;
}

int nc_tree_order_topo(const char *topology, uint32_t size, uint32_t rotate,
		       uint32_t *order)
{
	struct nc_topo_err e = { 0 };

	return tree_order(topology, size, rotate, order, &e);
}

/*
 * Piece j of a split vector runs on tree j, whose root and interior
 * members differ from the other trees' (they are rotated), so the
 * reduction work and the root's receptions spread over several hosts
 * working in parallel, as in the paper's vector split (section 5.3).
 * Each piece costs a tree's latency and its own frames, though: below
 * 8 KiB (a few frames) that outweighs the saved computation, and no
 * piece is made smaller than 4 KiB.  More pieces than members would put
 * two pieces' roots on one host, more than NC_TREES_MAX have no tree.
 */
#define NC_SPLIT_MIN_BYTES	8192
#define NC_SPLIT_PIECE_BYTES	4096

uint32_t nc_split_for(size_t bytes, uint32_t size)
{
	uint32_t cap = size < NC_TREES_MAX ? size : NC_TREES_MAX;
	size_t n;

	if (bytes < NC_SPLIT_MIN_BYTES || cap < 2)
		return 1;
	n = bytes / NC_SPLIT_PIECE_BYTES;
	return n < cap ? (uint32_t)n : cap;
}

int nc_tree_install_fnomial(nc_ctl *ctl, uint32_t comm_id, uint32_t ntrees,
			    uint32_t degree, const char *topology)
{
	uint32_t *base = NULL, *order = NULL, *parents = NULL, j, v, size;
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
	base = malloc(size * sizeof(*base));
	order = malloc(size * sizeof(*order));
	parents = malloc(size * sizeof(*parents));
	if (!base || !order || !parents) {
		err = -ENOMEM;
		goto out;
	}
	err = tree_order(topology, size, 0, base, &e);
	if (err) {
		if (e.line)
			nc_ctl_seterr(ctl, "%s:%u: %s", topology, e.line, e.msg);
		else if (topology)
			nc_ctl_seterr(ctl, "%s: %s", topology,
				      e.msg[0] ? e.msg : "cannot read");
		goto out;
	}
	/* tree j: the same order rotated, as nc_tree_order_topo() does */
	for (j = 0; j < ntrees && !err; j++) {
		uint32_t rotate = (uint32_t)((uint64_t)j * size / ntrees);

		for (v = 0; v < size; v++)
			order[v] = base[(uint32_t)(((uint64_t)v + rotate) % size)];
		err = nc_tree_fnomial(size, degree, order, parents);
		if (!err)
			err = nc_tree_install(ctl, comm_id, j, parents, size);
	}
out:
	free(base);
	free(order);
	free(parents);
	return err;
}

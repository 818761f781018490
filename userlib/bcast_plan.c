// SPDX-License-Identifier: BSD-2-Clause
/*
 * Topology- and speed-aware broadcast trees: the delay matrix, the DFT and
 * BFT placements of seed 003, and the time model that compares them.  See
 * bcast_plan.h.
 */
#define _GNU_SOURCE		/* qsort_r */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bcast_plan.h"
#include "netcoll_plan.h"

/* Hops from host node src to every node, breadth first (no tree needed). */
static int bfs_hops(const struct nc_topo *t, uint32_t src, uint32_t *dist,
		    uint32_t *queue)
{
	uint32_t head = 0, tail = 0, i, k;

	for (i = 0; i < t->nnodes; i++)
		dist[i] = UINT32_MAX;
	dist[src] = 0;
	queue[tail++] = src;
	while (head < tail) {
		uint32_t n = queue[head++];

		for (k = t->adj_off[n]; k < t->adj_off[n + 1]; k++) {
			const struct nc_topo_link *l = &t->links[t->adj[k]];
			uint32_t m = l->a == n ? l->b : l->a;

			/* hosts are leaves: no path runs through one */
			if (dist[m] != UINT32_MAX ||
			    (t->nodes[n].kind == NC_NODE_HOST && n != src))
				continue;
			dist[m] = dist[n] + 1;
			queue[tail++] = m;
		}
	}
	return 0;
}

int nc_bcast_delays(const struct nc_topo *t, double hop_us, uint64_t bytes,
		    double *delay)
{
	uint32_t P, a, b, i, *edges, *dist, *queue;
	int ret = 0;

	if (!t || !delay || !t->adj || !(hop_us >= 0))
		return -EINVAL;
	P = t->nhosts;
	edges = malloc(t->nnodes * sizeof(*edges));
	dist = malloc(t->nnodes * sizeof(*dist));
	queue = malloc(t->nnodes * sizeof(*queue));
	if (!edges || !dist || !queue) {
		ret = -ENOMEM;
		goto out;
	}
	for (a = 0; a < P; a++) {
		int bfs_done = 0;

		for (b = 0; b < P; b++) {
			double slow = 0, ra, rb, known_us = 0;
			uint32_t hops, known = 0;
			int n;

			if (a == b) {
				delay[(size_t)a * P + b] = 0;
				continue;
			}
			n = nc_topo_path(t, t->host_node[a], t->host_node[b], edges,
					 t->nnodes);
			if (n >= 0) {
				hops = (uint32_t)n;
				for (i = 0; i < hops; i++) {
					const struct nc_topo_link *l =
						&t->links[NC_EDGE_LINK(edges[i])];

					if (i == 0 || l->rate_mbit < slow)
						slow = l->rate_mbit;
					if (l->delay_us > 0) {
						known++;
						known_us += l->delay_us;
					}
				}
			} else if (n == -EOPNOTSUPP) {
				/* no unique path (XGFT): shortest, host links' rates */
				if (!bfs_done)
					bfs_hops(t, t->host_node[a], dist, queue);
				bfs_done = 1;
				hops = dist[t->host_node[b]];
				ra = nc_topo_host_rate(t, a);
				rb = nc_topo_host_rate(t, b);
				slow = ra < rb ? ra : rb;
				if (hops == UINT32_MAX) {
					ret = -EHOSTUNREACH;
					goto out;
				}
			} else {
				ret = n;
				goto out;
			}
			delay[(size_t)a * P + b] =
				nc_bcast_delay_of(hops, known, known_us, slow,
						  hop_us, bytes);
		}
	}
out:
	free(edges);
	free(dist);
	free(queue);
	return ret;
}

/* Subtree sizes, for sorting a parent's children; file-scope for qsort_r. */
struct by_size {
	const uint32_t *size;
};

static int cmp_child(const void *x, const void *y, void *arg)
{
	const struct by_size *s = arg;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;

	if (s->size[a] != s->size[b])
		return s->size[a] > s->size[b] ? -1 : 1;
	return a < b ? -1 : a > b;
}

int nc_bcast_children(uint32_t P, uint32_t degree, uint32_t *child_off,
		      uint32_t *child)
{
	uint32_t *parent, *size, *fill, v;
	struct by_size s;
	int ret;

	if (!P || degree < 2 || !child_off || (P > 1 && !child))
		return -EINVAL;
	parent = malloc(P * sizeof(*parent));
	size = calloc(P, sizeof(*size));
	fill = calloc(P + 1, sizeof(*fill));
	if (!parent || !size || !fill) {
		ret = -ENOMEM;
		goto out;
	}
	ret = nc_tree_fnomial(P, degree, NULL, parent);
	if (ret)
		goto out;
	/* a parent's position is below its children's: sizes from the end */
	for (v = P; v-- > 0;) {
		size[v]++;
		if (v)
			size[parent[v]] += size[v];
	}
	memset(child_off, 0, (P + 1) * sizeof(*child_off));
	for (v = 1; v < P; v++)
		child_off[parent[v] + 1]++;
	for (v = 0; v < P; v++)
		child_off[v + 1] += child_off[v];
	for (v = 1; v < P; v++)
		child[child_off[parent[v]] + fill[parent[v]]++] = v;
	s.size = size;
	for (v = 0; v < P; v++)
		qsort_r(child + child_off[v], child_off[v + 1] - child_off[v],
			sizeof(*child), cmp_child, &s);
out:
	free(parent);
	free(size);
	free(fill);
	return ret;
}

/*
 * The free rank closest to rank from; of equally close ones, prefer (the
 * rank the unaware order puts there, so that a homogeneous network keeps
 * rank order), else the lowest.
 */
static uint32_t closest(const double *delay, uint32_t P, uint32_t from,
			const uint8_t *used, uint32_t prefer)
{
	const double *d = delay + (size_t)from * P;
	uint32_t r, best = UINT32_MAX;

	for (r = 0; r < P; r++)
		if (!used[r] && (best == UINT32_MAX || d[r] < d[best]))
			best = r;
	return !used[prefer] && d[prefer] == d[best] ? prefer : best;
}

/*
 * One walk of the tree (depth or breadth first from the root, children in
 * send order) that places, at each child it reaches, the free host closest
 * to the parent's: only positions with children (leaves == 0), or only
 * leaves (leaves == 1).  Inner positions go first: they are the critical
 * part, and each leaf costs only its parent's last send.
 */
static int walk(const double *delay, uint32_t P, uint32_t root,
		enum nc_bcast_order how, const uint32_t *off,
		const uint32_t *child, int leaves, uint32_t *order,
		uint8_t *used, uint32_t *stack, uint32_t *next)
{
	uint32_t head = 0, tail = 0, v, c;

	memset(next, 0, P * sizeof(*next));
	stack[tail++] = 0;
	while (head < tail) {
		if (how == NC_BCAST_BFT) {
			v = stack[head++];
			next[v] = off[v + 1] - off[v];
		} else {
			/* depth first: the deepest position with a child left */
			v = stack[tail - 1];
			if (off[v] + next[v] == off[v + 1]) {
				tail--;
				continue;
			}
			next[v]++;
		}
		for (c = off[v] + (how == NC_BCAST_BFT ? 0 : next[v] - 1);
		     c < off[v] + next[v]; c++) {
			uint32_t k = child[c];
			int is_leaf = off[k] == off[k + 1];

			if (is_leaf == leaves) {
				order[k] = closest(delay, P, order[v], used, (root + k) % P);
				used[order[k]] = 1;
			}
			stack[tail++] = k;
		}
	}
	return 0;
}

int nc_bcast_order(const double *delay, uint32_t P, uint32_t root,
		   uint32_t degree, enum nc_bcast_order how, uint32_t *order)
{
	uint32_t *off = NULL, *child = NULL, *stack = NULL, *next = NULL, v;
	uint8_t *used = NULL;
	int ret;

	if (how == NC_BCAST_BEST)
		return nc_bcast_best_order(delay, P, root, degree, order, NULL);
	if (!P || root >= P || degree < 2 || !order || how > NC_BCAST_BFT ||
	    (how != NC_BCAST_UNAWARE && !delay))
		return -EINVAL;
	if (how == NC_BCAST_UNAWARE) {
		for (v = 0; v < P; v++)
			order[v] = (root + v) % P;
		return 0;
	}
	off = malloc((P + 1) * sizeof(*off));
	child = malloc((P > 1 ? P - 1 : 1) * sizeof(*child));
	stack = malloc(P * sizeof(*stack));
	next = malloc(P * sizeof(*next));
	used = calloc(P, 1);
	if (!off || !child || !stack || !next || !used) {
		ret = -ENOMEM;
		goto out;
	}
	ret = nc_bcast_children(P, degree, off, child);
	if (ret)
		goto out;
	order[0] = root;
	used[root] = 1;
	walk(delay, P, root, how, off, child, 0, order, used, stack, next);
	walk(delay, P, root, how, off, child, 1, order, used, stack, next);
out:
	free(off);
	free(child);
	free(stack);
	free(next);
	free(used);
	return ret;
}

int nc_bcast_best_order(const double *delay, uint32_t P, uint32_t root,
			uint32_t degree, uint32_t *order,
			enum nc_bcast_order *chosen)
{
	uint32_t *cand;
	double best = 0, t;
	int how, ret = 0, took = -1;

	if (!delay || !P || !order)
		return -EINVAL;
	cand = malloc((size_t)P * sizeof(*cand));
	if (!cand)
		return -ENOMEM;
	for (how = NC_BCAST_UNAWARE; how <= NC_BCAST_BFT; how++) {
		ret = nc_bcast_order(delay, P, root, degree, how, cand);
		if (ret)
			break;
		t = nc_bcast_predict(delay, P, degree, cand);
		if (t < 0) {
			ret = (int)t;
			break;
		}
		if (took < 0 || t < best) {
			best = t;
			took = how;
			memcpy(order, cand, (size_t)P * sizeof(*order));
		}
	}
	free(cand);
	if (!ret && chosen)
		*chosen = (enum nc_bcast_order)took;
	return ret;
}

int nc_bcast_msg_cost(double *delay, uint32_t P, double msg_us)
{
	uint32_t a, b;

	if (!delay || !(msg_us >= 0))	/* NaN too */
		return -EINVAL;
	for (a = 0; a < P; a++)
		for (b = 0; b < P; b++)
			if (a != b)
				delay[(size_t)a * P + b] += msg_us;
	return 0;
}

double nc_bcast_predict(const double *delay, uint32_t P, uint32_t degree,
			const uint32_t *order)
{
	uint32_t *off, *child, v, k;
	double *at, end = 0;
	int ret;

	if (!delay || !order || !P || degree < 2)
		return -EINVAL;
	off = malloc((P + 1) * sizeof(*off));
	child = malloc((P > 1 ? P - 1 : 1) * sizeof(*child));
	at = calloc(P, sizeof(*at));
	if (!off || !child || !at) {
		ret = -ENOMEM;
		goto out;
	}
	ret = nc_bcast_children(P, degree, off, child);
	if (ret)
		goto out;
	/* positions increase down the tree: parents are done before children */
	for (v = 0; v < P; v++) {
		double t = at[v];

		for (k = off[v]; k < off[v + 1]; k++) {
			t += delay[(size_t)order[v] * P + order[child[k]]];
			at[child[k]] = t;
			if (t > end)
				end = t;
		}
	}
out:
	free(off);
	free(child);
	free(at);
	return ret ? ret : end;
}

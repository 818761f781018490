// SPDX-License-Identifier: BSD-2-Clause
/*
 * The topology model: builders, validation (nc_topo_finish), name lookup,
 * tree paths and the text writer.  Parsing lives in topo_parse.c and the
 * generators in topo_gen.c.
 */
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo.h"

void nc_topo_init(struct nc_topo *t)
{
	memset(t, 0, sizeof(*t));
	t->root = NC_TOPO_NONE;
}

/* What nc_topo_finish() builds; stale as soon as the graph changes. */
static void unfinish(struct nc_topo *t)
{
	free(t->adj_off);
	free(t->adj);
	free(t->parent_link);
	free(t->depth);
	t->adj_off = t->adj = t->parent_link = t->depth = NULL;
	t->is_tree = 0;
	t->root = NC_TOPO_NONE;
	if (t->ft_found) {
		/* recognized, not generated: the shape may change */
		uint32_t i;

		for (i = 0; i < t->nnodes; i++)
			t->nodes[i].level = 0;
		t->ft_levels = 0;
		t->ft_found = 0;
	}
}

void nc_topo_free(struct nc_topo *t)
{
	if (!t)
		return;
	unfinish(t);
	free(t->nodes);
	free(t->links);
	free(t->host_node);
	free(t->name_ix);
	free(t->route);
	nc_topo_init(t);
}

/* FNV-1a: short names, no adversary; the table is a lookup aid only. */
static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* Slot of name, or of the empty slot where it would go. */
static uint32_t name_slot(const struct nc_topo *t, const char *name)
{
	uint32_t mask = t->name_cap - 1, i = name_hash(name) & mask;

	while (t->name_ix[i] &&
	       strcmp(t->nodes[t->name_ix[i] - 1].name, name) != 0)
		i = (i + 1) & mask;
	return i;
}

/* Rebuilds the index with room for n names at load <= 1/2. */
static int name_index_build(struct nc_topo *t, uint32_t n)
{
	uint32_t cap = 16, i, s;

	while (cap < 2 * (uint64_t)n)
		cap *= 2;
	free(t->name_ix);
	t->name_ix = calloc(cap, sizeof(*t->name_ix));
	t->name_cap = t->name_ix ? cap : 0;
	if (!t->name_ix)
		return -ENOMEM;
	for (i = 0; i < t->nnodes; i++) {
		s = name_slot(t, t->nodes[i].name);
		if (t->name_ix[s])
			return -EEXIST;
		t->name_ix[s] = i + 1;
	}
	return 0;
}

int nc_topo_find(const struct nc_topo *t, const char *name)
{
	uint32_t s;

	if (!t || !name || !t->name_cap)
		return -ENOENT;
	s = name_slot(t, name);
	return t->name_ix[s] ? (int)(t->name_ix[s] - 1) : -ENOENT;
}

/*
 * The names cluster.sh accepts: a letter, then letters, digits, '_', '-',
 * '.'; not "fabric" (the namespace of its switches).  Builders enforce it
 * so that whatever is built can be written out and brought up.
 */
static int name_check(const char *name)
{
	size_t i, n = strlen(name);

	if (n >= NC_TOPO_NAME_MAX)
		return -ENAMETOOLONG;
	if (!((name[0] >= 'a' && name[0] <= 'z') ||
	      (name[0] >= 'A' && name[0] <= 'Z')))
		return -EINVAL;
	for (i = 1; i < n; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.'))
			return -EINVAL;
	}
	if (strcmp(name, "fabric") == 0)
		return -EPERM;
	return 0;
}

static int add_node(struct nc_topo *t, const char *name, enum nc_node_kind kind)
{
	struct nc_topo_node *n;
	uint32_t s;
	int err;

	if (!t || !name)
		return -EINVAL;
	err = name_check(name);
	if (err)
		return err;
	if (t->nnodes >= (uint32_t)INT32_MAX)
		return -E2BIG;
	if (2 * (uint64_t)(t->nnodes + 1) > t->name_cap) {
		err = name_index_build(t, 2 * (t->nnodes + 1));
		if (err)
			return err;
	}
	s = name_slot(t, name);
	if (t->name_ix[s])
		return -EEXIST;
	if (t->nnodes == t->cap_nodes) {
		uint32_t cap = t->cap_nodes ? 2 * t->cap_nodes : 16;
		struct nc_topo_node *nodes;
		uint32_t *hn;

		nodes = realloc(t->nodes, cap * sizeof(*nodes));
		if (!nodes)
			return -ENOMEM;
		t->nodes = nodes;
		/* hosts <= nodes, so host_node grows with nodes */
		hn = realloc(t->host_node, cap * sizeof(*hn));
		if (!hn)
			return -ENOMEM;
		t->host_node = hn;
		t->cap_nodes = cap;
	}
	unfinish(t);
	n = &t->nodes[t->nnodes];
	memset(n, 0, sizeof(*n));
	strcpy(n->name, name);
	n->kind = kind;
	n->host = NC_TOPO_NONE;
	if (kind == NC_NODE_HOST) {
		n->host = t->nhosts;
		t->host_node[t->nhosts++] = t->nnodes;
	}
	t->name_ix[s] = t->nnodes + 1;
	return (int)t->nnodes++;
}

int nc_topo_add_switch(struct nc_topo *t, const char *name)
{
	return add_node(t, name, NC_NODE_SWITCH);
}

int nc_topo_add_host(struct nc_topo *t, const char *name)
{
	return add_node(t, name, NC_NODE_HOST);
}

/* Structure (self links, duplicates, hosts) is nc_topo_finish()'s job. */
int nc_topo_add_link(struct nc_topo *t, uint32_t a, uint32_t b,
		     double rate_mbit, double delay_us)
{
	struct nc_topo_link *l;

	if (!t || a >= t->nnodes || b >= t->nnodes)
		return -EINVAL;
	if (!(rate_mbit >= 0 && rate_mbit <= DBL_MAX) ||
	    !(delay_us >= 0 && delay_us <= DBL_MAX))
		return -EINVAL;
	if (t->nlinks >= (uint32_t)INT32_MAX / 2)	/* edges fit an int */
		return -E2BIG;
	if (t->nlinks == t->cap_links) {
		uint32_t cap = t->cap_links ? 2 * t->cap_links : 16;
		struct nc_topo_link *links = realloc(t->links, cap * sizeof(*links));

		if (!links)
			return -ENOMEM;
		t->links = links;
		t->cap_links = cap;
	}
	unfinish(t);
	l = &t->links[t->nlinks];
	memset(l, 0, sizeof(*l));
	l->a = a;
	l->b = b;
	l->rate_mbit = rate_mbit;
	l->delay_us = delay_us;
	return (int)t->nlinks++;
}

__attribute__((format(printf, 3, 4)))
int nc_topo_fail(struct nc_topo_err *err, uint32_t line, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->line = line;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static uint32_t other_end(const struct nc_topo_link *l, uint32_t n)
{
	return l->a == n ? l->b : l->a;
}

/* Adjacency in CSR form: the links of node i in link order. */
static int build_adj(struct nc_topo *t)
{
	uint32_t i, *fill;

	t->adj_off = calloc(t->nnodes + 1, sizeof(*t->adj_off));
	t->adj = malloc((2 * (size_t)t->nlinks + 1) * sizeof(*t->adj));
	fill = malloc(((size_t)t->nnodes + 1) * sizeof(*fill));
	if (!t->adj_off || !t->adj || !fill) {
		free(fill);
		return -ENOMEM;
	}
	for (i = 0; i < t->nlinks; i++) {
		t->adj_off[t->links[i].a + 1]++;
		t->adj_off[t->links[i].b + 1]++;
	}
	for (i = 0; i < t->nnodes; i++)
		t->adj_off[i + 1] += t->adj_off[i];
	memcpy(fill, t->adj_off, t->nnodes * sizeof(*fill));
	for (i = 0; i < t->nlinks; i++) {
		t->adj[fill[t->links[i].a]++] = i;
		t->adj[fill[t->links[i].b]++] = i;
	}
	free(fill);
	return 0;
}

/*
 * Breadth-first from src: the hops to each node and the node (and, if
 * asked, the link) it was reached from; NC_TOPO_NONE where not reached.
 * Returns how many nodes were reached.
 */
static uint32_t bfs_from(const struct nc_topo *t, uint32_t src, uint32_t *dist,
			 uint32_t *from, uint32_t *from_link, uint32_t *queue)
{
	uint32_t head = 0, tail = 0, i, k;

	for (i = 0; i < t->nnodes; i++)
		dist[i] = NC_TOPO_NONE;
	dist[src] = 0;
	from[src] = NC_TOPO_NONE;
	if (from_link)
		from_link[src] = NC_TOPO_NONE;
	queue[tail++] = src;
	while (head < tail) {
		uint32_t n = queue[head++];

		for (k = t->adj_off[n]; k < t->adj_off[n + 1]; k++) {
			uint32_t l = t->adj[k], m = other_end(&t->links[l], n);

			if (dist[m] != NC_TOPO_NONE)
				continue;
			dist[m] = dist[n] + 1;
			from[m] = n;
			if (from_link)
				from_link[m] = l;
			queue[tail++] = m;
		}
	}
	return tail;
}

/*
 * From the root: every node reached (else the first one not reached is
 * reported), and for trees the parent links and depths that
 * nc_topo_path() climbs.
 */
static int bfs(struct nc_topo *t, struct nc_topo_err *err)
{
	uint32_t *queue, *from, reached, i;
	int ret = 0;

	t->parent_link = malloc(t->nnodes * sizeof(*t->parent_link));
	t->depth = malloc(t->nnodes * sizeof(*t->depth));
	queue = malloc(t->nnodes * sizeof(*queue));
	from = malloc(t->nnodes * sizeof(*from));
	if (!t->parent_link || !t->depth || !queue || !from) {
		free(queue);
		free(from);
		return -ENOMEM;
	}
	reached = bfs_from(t, t->root, t->depth, from, t->parent_link, queue);
	for (i = 0; i < t->nnodes && reached < t->nnodes; i++) {
		if (t->depth[i] == NC_TOPO_NONE) {
			const struct nc_topo_node *n = &t->nodes[i];

			ret = nc_topo_fail(err, n->line, "%s %s is not connected to %s",
				   n->kind == NC_NODE_HOST ? "host" : "switch",
				   n->name, t->nodes[t->root].name);
			break;
		}
	}
	free(queue);
	free(from);
	return ret;
}

/* Per-link checks: ends exist, no self link, no host-to-host cable. */
static int check_links(const struct nc_topo *t, struct nc_topo_err *err)
{
	uint32_t i;

	for (i = 0; i < t->nlinks; i++) {
		const struct nc_topo_link *l = &t->links[i];

		if (l->a >= t->nnodes || l->b >= t->nnodes)
			return nc_topo_fail(err, l->line, "link %u names no node", i);
		if (l->a == l->b)
			return nc_topo_fail(err, l->line, "link from '%s' to itself",
				    t->nodes[l->a].name);
		if (t->nodes[l->a].kind == NC_NODE_HOST &&
		    t->nodes[l->b].kind == NC_NODE_HOST)
			return nc_topo_fail(err, l->line,
				    "link %s %s joins two hosts (hosts attach to switches)",
				    t->nodes[l->a].name, t->nodes[l->b].name);
	}
	return 0;
}

/* Hosts are leaves; no two links join the same two nodes (unless allowed). */
static int check_nodes(const struct nc_topo *t, struct nc_topo_err *err)
{
	uint32_t *seen, i, k;
	int ret = 0;

	for (i = 0; i < t->nhosts; i++) {
		uint32_t n = t->host_node[i], deg;

		if (n >= t->nnodes || t->nodes[n].kind != NC_NODE_HOST ||
		    t->nodes[n].host != i)
			return nc_topo_fail(err, 0, "rank %u: host table is inconsistent", i);
		deg = t->adj_off[n + 1] - t->adj_off[n];
		if (deg != 1)
			return nc_topo_fail(err, t->nodes[n].line,
				    "host %s has %u links (a host is a leaf with one link)",
				    t->nodes[n].name, deg);
	}
	if (t->parallel_links)
		return 0;
	/* seen[m] == n + 1: m is already a neighbour of n */
	seen = calloc(t->nnodes, sizeof(*seen));
	if (!seen)
		return -ENOMEM;
	for (i = 0; i < t->nnodes && !ret; i++) {
		for (k = t->adj_off[i]; k < t->adj_off[i + 1]; k++) {
			const struct nc_topo_link *l = &t->links[t->adj[k]];
			uint32_t m = other_end(l, i);

			if (seen[m] == i + 1) {
				ret = nc_topo_fail(err, l->line, "duplicate link %s %s",
					   t->nodes[l->a].name, t->nodes[l->b].name);
				break;
			}
			seen[m] = i + 1;
		}
	}
	free(seen);
	return ret;
}

/*
 * Is this tree an FT(L; M1..ML) with hosts ranked in mixed radix (M1 least
 * significant)?  Then record it as the generators do, so that the fat-tree
 * schedules also run on a topology file (e.g. two-level-ft.topo).  The
 * root is halfway between host 0 and the host farthest from it; from it
 * every host must be L hops down, every switch above, and all switches of
 * a level must have the same number of children.
 */
static int recognize_ft(struct nc_topo *t)
{
	uint32_t *dist, *from, *queue, *anc, M[9], i, r, far, L, root;
	uint64_t block = 1;
	int ok = 0;

	dist = malloc(t->nnodes * sizeof(*dist));
	from = malloc(t->nnodes * sizeof(*from));
	queue = malloc(t->nnodes * sizeof(*queue));
	anc = malloc(t->nhosts * sizeof(*anc));
	if (!dist || !from || !queue || !anc)
		goto out;
	for (i = 0; i < 9; i++)
		M[i] = NC_TOPO_NONE;
	bfs_from(t, t->host_node[0], dist, from, NULL, queue);
	for (far = t->host_node[0], r = 1; r < t->nhosts; r++)
		if (dist[t->host_node[r]] > dist[far])
			far = t->host_node[r];
	L = dist[far] / 2;
	if (dist[far] % 2 || L < 1 || L > 8)
		goto no;
	for (root = far, i = 0; i < L; i++)
		root = from[root];
	bfs_from(t, root, dist, from, NULL, queue);
	for (i = 0; i < t->nnodes; i++) {
		uint32_t d = dist[i], kids = t->adj_off[i + 1] - t->adj_off[i] -
					     (i != root);

		if (t->nodes[i].kind == NC_NODE_HOST ? d != L : d >= L)
			goto no;
		if (t->nodes[i].kind == NC_NODE_HOST)
			continue;
		if (M[L - d] == NC_TOPO_NONE)
			M[L - d] = kids;
		if (kids != M[L - d])
			goto no;
	}
	/* hosts under one level-l switch are consecutive ranks */
	for (r = 0; r < t->nhosts; r++)
		anc[r] = t->host_node[r];
	for (i = 1; i < L; i++) {
		block *= M[i];
		for (r = 0; r < t->nhosts; r++)
			anc[r] = from[anc[r]];
		for (r = 1; r < t->nhosts; r++)
			if (r % block && anc[r] != anc[r - 1])
				goto no;
	}
	t->ft_levels = L;
	for (i = 0; i < L; i++) {
		t->ft_m[i] = M[i + 1];
		t->ft_w[i] = 1;
	}
	for (i = 0; i < t->nnodes; i++)
		t->nodes[i].level = L - dist[i];
	t->ft_found = 1;
no:
	ok = 1;
out:
	free(dist);
	free(from);
	free(queue);
	free(anc);
	return ok ? 0 : -ENOMEM;
}

int nc_topo_finish(struct nc_topo *t, struct nc_topo_err *err)
{
	uint32_t i;
	int ret;

	if (err) {
		err->line = 0;
		err->msg[0] = '\0';
	}
	if (!t)
		return -EINVAL;
	unfinish(t);
	if (t->nhosts == 0)
		return nc_topo_fail(err, 0, "no hosts");
	ret = name_index_build(t, t->nnodes);
	if (ret == -EEXIST) {
		/* names changed behind the builders' back: find the culprit */
		for (i = 0; i < t->nnodes; i++)
			if (nc_topo_find(t, t->nodes[i].name) != (int)i)
				return nc_topo_fail(err, t->nodes[i].line,
					    "duplicate name '%s'", t->nodes[i].name);
	}
	if (ret)
		return ret;
	ret = check_links(t, err);
	if (!ret)
		ret = build_adj(t);
	if (!ret)
		ret = check_nodes(t, err);
	if (ret)
		goto out;
	for (i = 0; i < t->nnodes && t->nodes[i].kind != NC_NODE_SWITCH; i++)
		;
	t->root = i < t->nnodes ? i : 0;
	ret = bfs(t, err);
	if (ret)
		goto out;
	/* connected, so acyclic exactly when |E| = |V| - 1 */
	t->is_tree = t->nlinks == t->nnodes - 1;
	if (!t->is_tree) {
		/* parent links and depths mean nothing on a graph with cycles */
		free(t->parent_link);
		free(t->depth);
		t->parent_link = t->depth = NULL;
		return 0;
	}
	if (!t->ft_levels) {
		ret = recognize_ft(t);
		if (ret)
			goto out;
	}
	return 0;
out:
	unfinish(t);
	return ret;
}

/* Edge from n to its parent (n is not the root). */
static uint32_t up_edge(const struct nc_topo *t, uint32_t n)
{
	uint32_t l = t->parent_link[n];

	return NC_EDGE(l, t->links[l].a == n);
}

/* The routed path (t->route) from node a to host node b. */
static int routed_path(const struct nc_topo *t, uint32_t a, uint32_t b,
		       uint32_t *edges, uint32_t max)
{
	uint32_t x = a, len = 0, l;

	if (t->nodes[b].kind != NC_NODE_HOST)
		return -EOPNOTSUPP;
	while (x != b) {
		if (len >= t->nnodes)
			return -ELOOP;
		if (t->nodes[x].kind == NC_NODE_HOST) {
			if (x != a)
				return -EHOSTUNREACH;	/* routed into another host */
			l = t->adj[t->adj_off[x]];
		} else {
			l = t->route[(size_t)x * t->nhosts + t->nodes[b].host];
			if (l == NC_TOPO_NONE)
				return -EHOSTUNREACH;
		}
		if (len < max)
			edges[len] = NC_EDGE(l, t->links[l].a == x);
		len++;
		x = other_end(&t->links[l], x);
	}
	return (int)len;
}

int nc_topo_path(const struct nc_topo *t, uint32_t a, uint32_t b,
		 uint32_t *edges, uint32_t max)
{
	uint32_t x = a, y = b, up, len, pos;

	if (!t || a >= t->nnodes || b >= t->nnodes || (max && !edges))
		return -EINVAL;
	if (t->route && t->adj)
		return routed_path(t, a, b, edges, max);
	if (!t->is_tree || !t->parent_link)
		return -EOPNOTSUPP;
	/* climb to the lowest common ancestor to learn the length */
	while (t->depth[x] > t->depth[y])
		x = other_end(&t->links[t->parent_link[x]], x);
	while (t->depth[y] > t->depth[x])
		y = other_end(&t->links[t->parent_link[y]], y);
	while (x != y) {
		x = other_end(&t->links[t->parent_link[x]], x);
		y = other_end(&t->links[t->parent_link[y]], y);
	}
	up = t->depth[a] - t->depth[x];
	len = up + t->depth[b] - t->depth[x];
	/* a's half in order; b's half backwards, each edge reversed (down) */
	for (pos = 0, x = a; pos < up; pos++) {
		if (pos < max)
			edges[pos] = up_edge(t, x);
		x = other_end(&t->links[t->parent_link[x]], x);
	}
	for (pos = len, y = b; pos > up; pos--) {
		if (pos - 1 < max)
			edges[pos - 1] = up_edge(t, y) ^ 1;
		y = other_end(&t->links[t->parent_link[y]], y);
	}
	return (int)len;
}

/* N{bit,kbit,mbit,gbit}: the parser reads it back as N * unit / 1e6. */
static void write_rate(double rate_mbit, FILE *out)
{
	static const struct { uint64_t div; const char *unit; } u[] = {
		{ 1000000000, "gbit" }, { 1000000, "mbit" }, { 1000, "kbit" },
		{ 1, "bit" },
	};
	double b = rate_mbit * 1e6 + 0.5;
	uint64_t bits = b >= 9.2e18 ? UINT64_C(9200000000000000000) :
			b < 1 ? 1 : (uint64_t)b;
	size_t i;

	for (i = 0; bits % u[i].div; i++)
		;
	fprintf(out, " rate %" PRIu64 "%s", bits / u[i].div, u[i].unit);
}

/*
 * Microseconds with the fewest decimals that the parser (digits / 10^k,
 * one rounding) turns back into the same double.
 */
static void write_delay(double us, FILE *out)
{
	uint64_t scaled, p10 = 1;
	unsigned int k;

	if (us >= 9e18)		/* ~285000 years: keep the integers in range */
		us = 9e18;
	for (k = 0;; k++, p10 *= 10) {
		scaled = (uint64_t)(us * (double)p10 + 0.5);
		if ((double)scaled / (double)p10 == us || k == 9 ||
		    us * (double)p10 * 10 >= 9e18)
			break;
	}
	if (k == 0)
		fprintf(out, " delay %" PRIu64 "us", scaled);
	else
		fprintf(out, " delay %" PRIu64 ".%0*" PRIu64 "us", scaled / p10,
			(int)k, scaled % p10);
}

static void write_opts(const struct nc_topo_link *l, FILE *out)
{
	if (l->rate_mbit > 0)
		write_rate(l->rate_mbit, out);
	if (l->delay_us > 0)
		write_delay(l->delay_us, out);
}

int nc_topo_write(const struct nc_topo *t, FILE *out)
{
	uint32_t i, nsw = 0;

	if (!t || !out)
		return -EINVAL;
	/* the text format describes trees of switches, checked ones */
	if (!t->adj_off || !t->is_tree)
		return -EINVAL;
	for (i = 0; i < t->nnodes; i++)
		nsw += t->nodes[i].kind == NC_NODE_SWITCH;
	fprintf(out, "# %u hosts, %u switches (format: selftests/net/cluster.sh)\n",
		t->nhosts, nsw);
	if (t->ft_levels) {
		fprintf(out, "# fat tree, levels %u: m", t->ft_levels);
		for (i = 0; i < t->ft_levels; i++)
			fprintf(out, "%s%u", i ? "," : " ", t->ft_m[i]);
		fprintf(out, "; w");
		for (i = 0; i < t->ft_levels; i++)
			fprintf(out, "%s%u", i ? "," : " ", t->ft_w[i]);
		fprintf(out, "\n");
	}
	for (i = 0; i < t->nnodes; i++)
		if (t->nodes[i].kind == NC_NODE_SWITCH)
			fprintf(out, "switch %s\n", t->nodes[i].name);
	for (i = 0; i < t->nhosts; i++) {
		uint32_t n = t->host_node[i];
		const struct nc_topo_link *l = &t->links[t->adj[t->adj_off[n]]];

		fprintf(out, "host %s %s", t->nodes[n].name,
			t->nodes[other_end(l, n)].name);
		write_opts(l, out);
		fputc('\n', out);
	}
	for (i = 0; i < t->nlinks; i++) {
		const struct nc_topo_link *l = &t->links[i];

		if (t->nodes[l->a].kind == NC_NODE_HOST ||
		    t->nodes[l->b].kind == NC_NODE_HOST)
			continue;
		fprintf(out, "link %s %s", t->nodes[l->a].name,
			t->nodes[l->b].name);
		write_opts(l, out);
		fputc('\n', out);
	}
	return ferror(out) ? -EIO : 0;
}

double nc_topo_a2a_bound_ns(const struct nc_topo *t)
{
	uint32_t *load, *edges, s, d, i;
	double worst = 0;
	int n;

	if ((!t->is_tree && !t->route) || t->nhosts < 2)
		return 0;
	for (i = 0; i < t->nlinks; i++)
		if (t->links[i].rate_mbit <= 0)
			return 0;
	load = calloc(2 * (size_t)t->nlinks, sizeof(*load));
	edges = calloc(t->nnodes, sizeof(*edges));
	if (!load || !edges)
		goto out;
	for (s = 0; s < t->nhosts; s++) {
		for (d = 0; d < t->nhosts; d++) {
			if (s == d)
				continue;
			n = nc_topo_path(t, t->host_node[s], t->host_node[d], edges,
					 t->nnodes);
			for (i = 0; n > 0 && i < (uint32_t)n; i++)
				load[edges[i]]++;
		}
	}
	/* 8 bits per byte over rate Mbit/s is ns per byte times 1000. */
	for (i = 0; i < 2 * t->nlinks; i++) {
		double ns = load[i] * 8e3 / t->links[NC_EDGE_LINK(i)].rate_mbit;

		if (ns > worst)
			worst = ns;
	}
out:
	free(load);
	free(edges);
	return worst;
}

/* The hosts' common link rate, 0 unless every host link has the same. */
static double host_rate(const struct nc_topo *t)
{
	double rate = 0;
	uint32_t i;

	for (i = 0; i < t->nhosts; i++) {
		double r = nc_topo_host_rate(t, i);

		if (r <= 0 || (rate > 0 && r != rate))
			return 0;
		rate = r;
	}
	return rate;
}

void nc_topo_link_capacities(const struct nc_topo *t, uint32_t *cap)
{
	double hr = host_rate(t);
	uint32_t l;

	for (l = 0; l < t->nlinks; l++) {
		double c = hr > 0 ? t->links[l].rate_mbit / hr :
				    (t->links[l].lanes ? t->links[l].lanes : 1);

		/* no phase puts more than nhosts messages on a link */
		if (c > t->nhosts)
			c = t->nhosts;
		cap[l] = c >= 2 ? (uint32_t)(c + 1e-9) : 1;
	}
}

void nc_topo_valid_name(const char *in, char *out, size_t size)
{
	size_t i, n = 0;

	for (i = 0; in[i] && n + 1 < size; i++) {
		unsigned char c = (unsigned char)in[i];

		out[n++] = isalnum(c) || c == '_' || c == '-' || c == '.' ? (char)c : '_';
	}
	out[n] = '\0';
	if (!isalpha((unsigned char)out[0]))
		out[0] = '\0';
}

void nc_topo_err_prefix(struct nc_topo_err *err, const char *path)
{
	char msg[512];
	size_t n;

	if (err->line)
		snprintf(msg, sizeof(msg), "%s:%u: %s", path, err->line, err->msg);
	else
		snprintf(msg, sizeof(msg), "%s: %s", path, err->msg);
	n = strnlen(msg, sizeof(err->msg) - 1);
	memcpy(err->msg, msg, n);
	err->msg[n] = '\0';
	err->line = 0;
}

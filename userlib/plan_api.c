// SPDX-License-Identifier: BSD-2-Clause
/*
 * The planner's public handles (netcoll_plan.h): a topology and an
 * alltoall plan are the library's own structs behind opaque pointers, so
 * that programs (nctl, ncbench, applications) read them through functions
 * and the structs stay free to change.  Everything here wraps what the
 * library and its unit tests use directly (topo.h, sched.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "netcoll_plan.h"
#include "sched.h"
#include "topo.h"

int nc_topo_create(nc_topo **pt, const char *topology, struct nc_topo_err *err)
{
	struct nc_topo *t;
	int ret;

	if (err)
		*err = (struct nc_topo_err){ 0 };
	if (!pt)
		return -EINVAL;
	*pt = NULL;
	if (!topology)
		return -EINVAL;
	t = malloc(sizeof(*t));
	if (!t)
		return -ENOMEM;
	nc_topo_init(t);
	ret = nc_topo_open(t, topology, err);
	if (ret) {
		nc_topo_free(t);
		free(t);
		return ret;
	}
	*pt = t;
	return 0;
}

void nc_topo_destroy(nc_topo *t)
{
	if (!t)
		return;
	nc_topo_free(t);
	free(t);
}

uint32_t nc_topo_nhosts(const nc_topo *t)
{
	return t ? t->nhosts : 0;
}

uint32_t nc_topo_nswitches(const nc_topo *t)
{
	return t ? t->nnodes - t->nhosts : 0;
}

uint32_t nc_topo_nlinks(const nc_topo *t)
{
	return t ? t->nlinks : 0;
}

int nc_topo_is_tree(const nc_topo *t)
{
	return t && t->is_tree;
}

int nc_topo_is_routed(const nc_topo *t)
{
	return t && t->route != NULL;
}

const char *nc_topo_host_name(const nc_topo *t, uint32_t rank)
{
	if (!t || rank >= t->nhosts)
		return NULL;
	return t->nodes[t->host_node[rank]].name;
}

int nc_topo_host_rank(const nc_topo *t, const char *name)
{
	int n;

	if (!t || !name)
		return -EINVAL;
	n = nc_topo_find(t, name);
	if (n < 0 || t->nodes[n].kind != NC_NODE_HOST)
		return -ENOENT;
	return (int)t->nodes[n].host;
}

int nc_topo_link_get(const nc_topo *t, uint32_t link,
		     struct nc_topo_link_info *info)
{
	const struct nc_topo_link *l;

	if (!t || !info || link >= t->nlinks)
		return -EINVAL;
	l = &t->links[link];
	*info = (struct nc_topo_link_info){
		.a = t->nodes[l->a].name,
		.b = t->nodes[l->b].name,
		.rate_mbit = l->rate_mbit,
		.delay_us = l->delay_us,
		.port_a = l->port_a,
		.port_b = l->port_b,
	};
	return 0;
}

int nc_topo_host_path(const nc_topo *t, uint32_t from, uint32_t to,
		      struct nc_topo_route *r)
{
	uint32_t *edges, i, x;
	int n;

	if (!t || !r || from >= t->nhosts || to >= t->nhosts)
		return -EINVAL;
	edges = malloc((t->nnodes ? t->nnodes : 1) * sizeof(*edges));
	if (!edges)
		return -ENOMEM;
	x = t->host_node[from];
	n = nc_topo_path(t, x, t->host_node[to], edges, t->nnodes);
	if (n < 0 || n >= NC_TOPO_ROUTE_MAX) {
		free(edges);
		return n < 0 ? n : -E2BIG;
	}
	*r = (struct nc_topo_route){ .hops = (uint32_t)n };
	snprintf(r->nodes[0], sizeof(r->nodes[0]), "%s", t->nodes[x].name);
	for (i = 0; i < (uint32_t)n; i++) {
		const struct nc_topo_link *l = &t->links[NC_EDGE_LINK(edges[i])];

		x = l->a == x ? l->b : l->a;
		snprintf(r->nodes[i + 1], sizeof(r->nodes[i + 1]), "%s",
			 t->nodes[x].name);
		if (i == 0 || l->rate_mbit < r->slowest_mbit)
			r->slowest_mbit = l->rate_mbit;
	}
	free(edges);
	return 0;
}

int nc_a2a_plan_compute(nc_a2a_plan **pp, const nc_topo *t,
			enum nc_sched_kind kind)
{
	struct nc_a2a_plan *p;
	int err;

	if (!pp)
		return -EINVAL;
	*pp = NULL;
	if (!t)
		return -EINVAL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	err = nc_sched_compute(t, kind, p);
	if (err) {
		nc_a2a_plan_destroy(p);
		return err;
	}
	*pp = p;
	return 0;
}

void nc_a2a_plan_destroy(nc_a2a_plan *p)
{
	if (!p)
		return;
	nc_a2a_plan_free(p);
	free(p);
}

uint32_t nc_a2a_plan_nranks(const nc_a2a_plan *p)
{
	return p ? p->nranks : 0;
}

uint32_t nc_a2a_plan_nphases(const nc_a2a_plan *p)
{
	return p && p->first ? p->nphases : 0;
}

uint32_t nc_a2a_plan_phase(const nc_a2a_plan *p, uint32_t phase,
			   const uint32_t **src, const uint32_t **dst)
{
	uint32_t lo = 0, n = 0;

	if (p && p->first && phase < p->nphases) {
		lo = p->first[phase];
		n = p->first[phase + 1] - lo;
	}
	if (src)
		*src = n ? p->src + lo : NULL;
	if (dst)
		*dst = n ? p->dst + lo : NULL;
	return n;
}

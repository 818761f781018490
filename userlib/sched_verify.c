// SPDX-License-Identifier: BSD-2-Clause
/*
 * Plans: allocation, the verifier every plan passes before it is
 * installed, and one rank's slice of a plan.
 *
 * The verifier measures what the papers promise: Faraj & Yuan (section 4)
 * contention-free phases, as many as the bottleneck load, on trees;
 * Prisacari et al. (section 3) per-phase traffic out of and into every
 * level-l subtree of a fat tree within B_min(l) (equation 1).  A tree may
 * be a fat tree too (generated, or recognised by nc_topo_finish()): then
 * both apply, and a fat link (an ideal fat tree's uplink) carries as many
 * messages at once as its rate holds host links.  The phase count is
 * reported next to the bottleneck load; strict judges contention and
 * B_min only.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched.h"

void nc_a2a_plan_free(struct nc_a2a_plan *p)
{
	if (!p)
		return;
	free(p->src);
	free(p->dst);
	free(p->first);
	free(p->mphase);
	free(p->syncs);
	memset(p, 0, sizeof(*p));
}

int nc_a2a_plan_alloc(struct nc_a2a_plan *p, uint32_t nranks, uint32_t nphases)
{
	uint64_t want = (uint64_t)nranks * (nranks ? nranks - 1 : 0);

	if (!p)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	if (want >= UINT32_MAX || nphases == UINT32_MAX)
		return -E2BIG;
	/* an alltoall has nranks (nranks - 1) messages; more is possible */
	p->cap = want ? (uint32_t)want : 1;
	p->src = malloc(p->cap * sizeof(*p->src));
	p->dst = malloc(p->cap * sizeof(*p->dst));
	p->mphase = malloc(p->cap * sizeof(*p->mphase));
	if (!p->src || !p->dst || !p->mphase) {
		nc_a2a_plan_free(p);
		return -ENOMEM;
	}
	p->nranks = nranks;
	p->nphases = nphases;
	return 0;
}

int nc_plan_put(struct nc_a2a_plan *p, uint32_t phase, uint32_t src,
		uint32_t dst)
{
	if (!p->mphase || phase >= p->nphases || src >= p->nranks)
		return -EPROTO;
	if (p->nmsgs == p->cap) {
		uint32_t cap = p->cap < UINT32_MAX / 2 ? 2 * p->cap : UINT32_MAX;
		uint32_t *s, *d, *m;

		if (cap == p->cap)
			return -E2BIG;
		s = realloc(p->src, (size_t)cap * sizeof(*s));
		if (s)
			p->src = s;
		d = realloc(p->dst, (size_t)cap * sizeof(*d));
		if (d)
			p->dst = d;
		m = realloc(p->mphase, (size_t)cap * sizeof(*m));
		if (m)
			p->mphase = m;
		if (!s || !d || !m)
			return -ENOMEM;
		p->cap = cap;
	}
	p->src[p->nmsgs] = src;
	p->dst[p->nmsgs] = dst;
	p->mphase[p->nmsgs++] = phase;
	return 0;
}

/* Two stable counting sorts, by src then by phase: (phase, src) order. */
int nc_plan_seal(struct nc_a2a_plan *p)
{
	uint32_t n = p->nmsgs, i, k, *pos, *by_src, *src, *dst;
	int err = -ENOMEM;

	if (!p->mphase)
		return -EINVAL;
	p->first = calloc((size_t)p->nphases + 2, sizeof(*p->first));
	pos = calloc((size_t)p->nranks + 1, sizeof(*pos));
	by_src = malloc(((size_t)n + 1) * sizeof(*by_src));
	src = malloc(((size_t)n + 1) * sizeof(*src));
	dst = malloc(((size_t)n + 1) * sizeof(*dst));
	if (!p->first || !pos || !by_src || !src || !dst)
		goto out;
	for (i = 0; i < n; i++)
		pos[p->src[i] + 1]++;
	for (k = 0; k < p->nranks; k++)
		pos[k + 1] += pos[k];
	for (i = 0; i < n; i++)
		by_src[pos[p->src[i]]++] = i;
	for (i = 0; i < n; i++)
		p->first[p->mphase[i] + 1]++;
	for (k = 0; k < p->nphases; k++)
		p->first[k + 1] += p->first[k];
	/* first[ph] now counts up as phase ph fills; shifted back below */
	for (k = 0; k < n; k++) {
		i = by_src[k];
		src[p->first[p->mphase[i]]] = p->src[i];
		dst[p->first[p->mphase[i]]++] = p->dst[i];
	}
	memmove(p->first + 1, p->first, (size_t)p->nphases * sizeof(*p->first));
	p->first[0] = 0;
	err = 0;
	for (k = 0; k < p->nphases && !err; k++)
		for (i = p->first[k] + 1; i < p->first[k + 1]; i++)
			if (src[i] == src[i - 1])
				err = -EPROTO;	/* a rank sends twice in a phase */
	free(p->src);
	free(p->dst);
	free(p->mphase);
	p->src = src;
	p->dst = dst;
	p->mphase = NULL;
	src = dst = NULL;
out:
	free(pos);
	free(by_src);
	free(src);
	free(dst);
	if (err) {
		free(p->first);
		p->first = NULL;
	}
	return err;
}

int nc_plan_set_dst(struct nc_a2a_plan *p, uint32_t phase, uint32_t rank,
		    uint32_t dst)
{
	uint32_t i = nc_plan_find(p, phase, rank);

	if (i == UINT32_MAX)
		return -ENOENT;
	p->dst[i] = dst;
	return 0;
}

/* The first failed check explains the verdict. */
__attribute__((format(printf, 2, 3)))
static void fail(struct nc_sched_report *r, const char *fmt, ...)
{
	va_list ap;

	if (!r->ok)
		return;
	r->ok = 0;
	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
}

/* Every (src, dst != src) pair once; one send and one receive per phase. */
static int check_pairs(const struct nc_a2a_plan *p, struct nc_sched_report *r)
{
	uint32_t N = p->nranks, ph, s, i, *seen_at, *recvs;
	uint64_t distinct = 0;
	uint8_t *seen;

	seen = calloc(((size_t)N * N + 7) / 8, 1);
	recvs = calloc(N, sizeof(*recvs));
	seen_at = malloc(N * sizeof(*seen_at));
	if (!seen || !recvs || !seen_at) {
		free(seen);
		free(recvs);
		free(seen_at);
		return -ENOMEM;
	}
	for (s = 0; s < N; s++)
		seen_at[s] = NC_TOPO_NONE;
	for (ph = 0; ph < p->nphases; ph++) {
		for (i = p->first[ph]; i < p->first[ph + 1]; i++) {
			uint32_t d = p->dst[i];
			size_t bit;

			s = p->src[i];
			bit = (size_t)s * N + d;
			if (d >= N || d == s) {
				fail(r, "phase %u: rank %u sends to %u", ph, s, d);
				continue;
			}
			r->max_sends_per_phase = 1;
			if (seen_at[d] != ph) {
				seen_at[d] = ph;
				recvs[d] = 0;
			}
			if (++recvs[d] > r->max_recvs_per_phase)
				r->max_recvs_per_phase = recvs[d];
			if (recvs[d] == 2)
				fail(r, "phase %u: rank %u receives twice", ph, d);
			if (seen[bit / 8] & (1u << (bit % 8))) {
				r->pairs_repeated++;
				fail(r, "%u -> %u sent twice (phase %u)", s, d, ph);
			} else {
				seen[bit / 8] |= 1u << (bit % 8);
				distinct++;
			}
		}
	}
	r->pairs_missing = (uint32_t)((uint64_t)N * (N ? N - 1 : 0) - distinct);
	if (r->pairs_missing)
		fail(r, "%u pairs never sent", r->pairs_missing);
	free(seen);
	free(recvs);
	free(seen_at);
	return 0;
}

/* Syncs go forward and join two messages of the plan. */
static void check_syncs(const struct nc_a2a_plan *p, struct nc_sched_report *r)
{
	uint32_t i;

	r->nsyncs = p->nsyncs;
	r->nsyncs_unpruned = p->nsyncs_unpruned;
	for (i = 0; i < p->nsyncs; i++) {
		const struct nc_sync *y = &p->syncs[i];

		if (y->from >= p->nranks || y->to >= p->nranks || y->from == y->to ||
		    y->from_phase >= y->to_phase || y->to_phase >= p->nphases) {
			fail(r, "sync %u: %u@%u -> %u@%u does not go forward",
			     i, y->from, y->from_phase, y->to, y->to_phase);
			return;
		}
		if (nc_plan_dst(p, y->from_phase, y->from) == NC_TOPO_NONE ||
		    nc_plan_dst(p, y->to_phase, y->to) == NC_TOPO_NONE) {
			fail(r, "sync %u: %u@%u -> %u@%u joins an idle phase",
			     i, y->from, y->from_phase, y->to, y->to_phase);
			return;
		}
	}
}

/*
 * Trees: the messages of each phase on each directed edge (nc_topo_path),
 * against what the edge carries at once, and over the whole plan (the
 * AAPC load once every pair is present, Faraj & Yuan section 3).
 */
static int check_tree(const struct nc_topo *t, const struct nc_a2a_plan *p,
		      int strict, struct nc_sched_report *r)
{
	uint32_t E = 2 * t->nlinks, ph, s, i, m, *now, *stamp, *total, *path, *cap;
	int n, err = 0;

	now = calloc(E, sizeof(*now));
	stamp = malloc(E * sizeof(*stamp));
	total = calloc(E, sizeof(*total));
	cap = malloc((t->nlinks + 1) * sizeof(*cap));
	path = malloc(t->nnodes * sizeof(*path));
	if (!now || !stamp || !total || !cap || !path) {
		err = -ENOMEM;
		goto out;
	}
	nc_topo_link_capacities(t, cap);
	for (i = 0; i < E; i++)
		stamp[i] = NC_TOPO_NONE;
	for (ph = 0; ph < p->nphases; ph++) {
		int contended = 0;

		for (m = p->first[ph]; m < p->first[ph + 1]; m++) {
			uint32_t d = p->dst[m];

			s = p->src[m];
			if (d >= p->nranks || d == s)
				continue;
			n = nc_topo_path(t, t->host_node[s], t->host_node[d],
					 path, t->nnodes);
			if (n < 0) {
				err = n;
				goto out;
			}
			for (i = 0; i < (uint32_t)n; i++) {
				uint32_t e = path[i];

				if (stamp[e] != ph) {
					stamp[e] = ph;
					now[e] = 0;
				}
				total[e]++;
				if (++now[e] > r->max_edge_load)
					r->max_edge_load = now[e];
				if (now[e] == cap[NC_EDGE_LINK(e)] + 1) {
					contended = 1;
					if (strict)
						fail(r, "phase %u: %u -> %u contends on link %u",
						     ph, s, d, NC_EDGE_LINK(e));
				}
			}
		}
		r->contended_phases += contended;
	}
	for (i = 0; i < E; i++)
		if (total[i] > r->bottleneck_load)
			r->bottleneck_load = total[i];
out:
	free(now);
	free(stamp);
	free(total);
	free(cap);
	free(path);
	return err;
}

/*
 * Fat trees: per phase and per level-l subtree (the hosts sharing every
 * digit above level l, i.e. host / Pi_l), the messages leaving it and the
 * messages entering it; level_max[l] is the largest over phases, subtrees
 * and both directions, next to B_min(l) (section 3.1).
 */
static int check_fattree(const struct nc_topo *t, const struct nc_a2a_plan *p,
			 int strict, struct nc_sched_report *r)
{
	uint32_t L = t->ft_levels, N = p->nranks, pi[8], off[8], ph, s, l, m;
	uint64_t n = 1;
	size_t cells = 0;
	uint32_t *cnt;

	for (l = 0; l < L && l < 8; l++)
		n *= t->ft_m[l];
	if (L > 8 || n != N) {
		fail(r, "not a fat tree of %u hosts", N);
		return 0;
	}
	r->ft_levels = L;
	/* out-counters then in-counters of every level-l subtree, l < L */
	for (l = 1, pi[0] = 1; l < L; l++) {
		pi[l] = pi[l - 1] * t->ft_m[l - 1];
		off[l] = cells;
		cells += 2 * (N / pi[l]);
		r->level_bmin[l] = nc_ft_bmin(t, l);
	}
	cnt = malloc((cells ? cells : 1) * sizeof(*cnt));
	if (!cnt)
		return -ENOMEM;
	for (ph = 0; ph < p->nphases; ph++) {
		memset(cnt, 0, cells * sizeof(*cnt));
		for (m = p->first[ph]; m < p->first[ph + 1]; m++) {
			uint32_t d = p->dst[m];

			s = p->src[m];
			if (d >= N)
				continue;
			for (l = 1; l < L; l++) {
				uint32_t a = s / pi[l], b = d / pi[l];
				uint32_t *o = &cnt[off[l] + a];
				uint32_t *in = &cnt[off[l] + N / pi[l] + b];

				if (a == b)
					continue;
				if (++*o > r->level_max[l])
					r->level_max[l] = *o;
				if (++*in > r->level_max[l])
					r->level_max[l] = *in;
			}
		}
	}
	free(cnt);
	for (l = 1; l < L && strict; l++)
		if (r->level_max[l] > r->level_bmin[l])
			fail(r, "level %u: %u messages cross one subtree's links, B_min is %u",
			     l, r->level_max[l], r->level_bmin[l]);
	return 0;
}

int nc_sched_verify(const struct nc_topo *t, const struct nc_a2a_plan *p,
		    int strict, struct nc_sched_report *r)
{
	int err;

	if (!t || !p || !r)
		return -EINVAL;
	memset(r, 0, sizeof(*r));
	if (p->nranks != t->nhosts || !p->first ||
	    (p->nsyncs && !p->syncs))
		return -EINVAL;
	r->ok = 1;
	r->nphases = p->nphases;
	err = check_pairs(p, r);
	if (err)
		return err;
	check_syncs(p, r);
	if (t->is_tree) {
		err = check_tree(t, p, strict, r);
		if (err)
			return err;
	}
	if (t->ft_levels)
		err = check_fattree(t, p, strict, r);
	return err;
}

/*
 * One rank's share: per phase whom it sends to and receives from, the
 * ranks whose tokens it waits for before sending (sync_in), and the tokens
 * it sends once its message is acknowledged (sync_out: receiver and the
 * receiver's phase), as index ranges into two arrays in sync order.
 */
int nc_a2a_slice(const struct nc_a2a_plan *p, uint32_t rank,
		 struct nc_a2a_slice *s)
{
	uint32_t ph, m, r, i;

	if (!p || !s)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	if (rank >= p->nranks || !p->first || (p->nsyncs && !p->syncs))
		return -EINVAL;
	s->rank = rank;
	s->nphases = p->nphases;
	s->phase = calloc(p->nphases ? p->nphases : 1, sizeof(*s->phase));
	if (!s->phase)
		return -ENOMEM;
	for (ph = 0; ph < p->nphases; ph++) {
		struct nc_slice_phase *sp = &s->phase[ph];

		sp->send_to = nc_plan_dst(p, ph, rank);
		sp->recv_from = NC_TOPO_NONE;
		for (m = p->first[ph]; m < p->first[ph + 1]; m++) {
			if (p->dst[m] != rank)
				continue;
			if (sp->recv_from != NC_TOPO_NONE)
				goto invalid;
			sp->recv_from = p->src[m];
		}
	}
	/* count, then place each phase's tokens after those of earlier phases */
	for (i = 0; i < p->nsyncs; i++) {
		const struct nc_sync *y = &p->syncs[i];

		if (y->from_phase >= p->nphases || y->to_phase >= p->nphases)
			goto invalid;
		if (y->to == rank) {
			s->phase[y->to_phase].nsync_in++;
			s->nsync_in++;
		}
		if (y->from == rank) {
			s->phase[y->from_phase].nsync_out++;
			s->nsync_out++;
		}
	}
	s->sync_in = malloc((s->nsync_in ? s->nsync_in : 1) * sizeof(*s->sync_in));
	s->sync_out = malloc((s->nsync_out ? s->nsync_out : 1) * sizeof(*s->sync_out));
	if (!s->sync_in || !s->sync_out) {
		nc_a2a_slice_free(s);
		return -ENOMEM;
	}
	for (ph = 0, r = 0, i = 0; ph < p->nphases; ph++) {
		s->phase[ph].sync_in_first = r;
		s->phase[ph].sync_out_first = i;
		r += s->phase[ph].nsync_in;
		i += s->phase[ph].nsync_out;
		s->phase[ph].nsync_in = 0;
		s->phase[ph].nsync_out = 0;
	}
	for (i = 0; i < p->nsyncs; i++) {
		const struct nc_sync *y = &p->syncs[i];
		struct nc_slice_phase *sp;

		if (y->to == rank) {
			sp = &s->phase[y->to_phase];
			s->sync_in[sp->sync_in_first + sp->nsync_in++] = y->from;
		}
		if (y->from == rank) {
			sp = &s->phase[y->from_phase];
			s->sync_out[sp->sync_out_first + sp->nsync_out++] =
				(struct nc_slice_sync_out){ y->to, y->to_phase };
		}
	}
	return 0;
invalid:
	nc_a2a_slice_free(s);
	return -EINVAL;
}

void nc_a2a_slice_free(struct nc_a2a_slice *s)
{
	if (!s)
		return;
	free(s->phase);
	free(s->sync_in);
	free(s->sync_out);
	memset(s, 0, sizeof(*s));
}

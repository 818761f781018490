// SPDX-License-Identifier: BSD-2-Clause
/*
 * Pairwise synchronisation, Faraj & Yuan section 5: when messages a -> b
 * (phase p) and c -> d (phase q > p) share a directed edge, a token from a
 * (sent once a -> b is acknowledged) lets c start c -> d.  Redundant
 * tokens, whose ordering already follows from other tokens and from each
 * rank's own phase order, are removed.
 *
 * The events are the messages (sender, phase), numbered in phase order.
 * The dependence DAG links each event to its sender's next event (a rank's
 * sends are sequential, and the kernel sends a token only once the rank's
 * sends up to the token's message are all acknowledged, so completion
 * follows that order too) and has a sync edge for each pair of messages of
 * different phases and senders on one directed edge.  Its transitive
 * reduction is found without the quadratic number of pairs:
 *
 *  - on one edge, with messages in phase order m1, m2, m3 ..., m1 -> m3
 *    follows from m1 -> m2 -> m3 (a sync, or the rank's own order when m1
 *    and m2 have the same sender): only consecutive phase groups of each
 *    edge give candidates;
 *  - a candidate u -> w is redundant iff u reaches another predecessor of
 *    w: the previous event of w's sender, or another candidate source of
 *    w.  A candidate into the very next phase has no event in between and
 *    stays.  The others are decided 64 sources at a time: one pass over
 *    the events up to the farthest target carries, per event, the bit set
 *    of the sources that reach it.
 *
 * A fat link (a fat tree's uplink, nc_topo_link_capacities) carries k
 * messages at once: its directed edges are split into k lanes, each of
 * which is an edge of its own for all of the above, so up to k messages of
 * consecutive phases may cross it together and only those on one lane are
 * ordered.  Prisacari's fat-tree exchanges get their syncs this way.
 *
 * nsyncs_unpruned counts the pairs the paper's dependence graph starts
 * with, without listing them: in a tree the directed edges two paths share
 * form one contiguous run, so each pair is counted on the first edge it
 * shares, where the two messages arrive by different edges.  With lanes,
 * a pair that shares lanes on two separate stretches counts twice.  It
 * saturates at UINT32_MAX.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sched.h"

/* Sources whose farthest target lies further than this many events go to
 * batches of their own, which may span the whole plan; nearer ones are
 * batched with sources of about their reach, within this many more
 * events. */
#define SHORT_REACH	8192
#define SWEEP_SLACK	512
_Static_assert(SHORT_REACH <= 1 << 13, "reach classes 1..14 hold the near sources");
/* Threads for the batches, at most (they share no writes). */
#define NC_SYNC_THREADS	8

/* A message; path[ev[v].path .. ev[v + 1].path) are its directed edges. */
struct sync_event {
	uint32_t phase, rank;
	uint32_t prev, next;		/* the sender's neighbouring events */
	uint32_t path;
};

struct sync_graph {
	const struct nc_topo *t;
	const struct nc_a2a_plan *p;
	uint32_t nev;			/* events, in phase order */
	struct sync_event *ev;		/* nev + 1: the last ends the paths */
	uint32_t *path;
	/* per directed edge, its events in phase order and the edge each
	 * arrived by (E: the path starts there) */
	uint32_t E, *e_off, *e_ev, *e_from;
	/* candidates: the sources of w are in[in_off[w] .. in_off[w + 1]),
	 * keep[] is parallel to in[]; out[] lists them by source */
	uint32_t ncand, *in_off, *in, *out_off, *out;
	uint8_t *keep;
	uint64_t unpruned;
};

static void graph_free(struct sync_graph *g)
{
	free(g->ev);
	free(g->path);
	free(g->e_off);
	free(g->e_ev);
	free(g->e_from);
	free(g->in_off);
	free(g->in);
	free(g->out_off);
	free(g->out);
	free(g->keep);
}

/* a, grown to hold need elements of size bytes (capacity *cap); NULL if
 * that fails or need does not fit the uint32_t indices. */
static void *reserve(void *a, size_t *cap, size_t size, size_t need)
{
	size_t c = *cap ? *cap : 1024;
	void *x;

	if (need <= *cap)
		return a;
	if (need > UINT32_MAX)
		return NULL;
	while (c < need)
		c *= 2;
	if (c > UINT32_MAX)
		c = UINT32_MAX;
	x = realloc(a, c * size);
	if (x)
		*cap = c;
	return x;
}

/* One pass over the plan: the events, their senders' order, their paths. */
static int events(struct sync_graph *g)
{
	const struct nc_a2a_plan *p = g->p;
	const struct nc_topo *t = g->t;
	size_t cap_ev = 0, cap_path = 0, npath = 0;
	uint32_t ph, s, m, *last;
	int n, err = 0;

	last = malloc(((size_t)p->nranks + 1) * sizeof(*last));
	g->ev = reserve(NULL, &cap_ev, sizeof(*g->ev), 1);
	if (!last || !g->ev) {
		free(last);
		return -ENOMEM;
	}
	for (s = 0; s < p->nranks; s++)
		last[s] = NC_TOPO_NONE;
	for (ph = 0; ph < p->nphases && !err; ph++) {
		for (m = p->first[ph]; m < p->first[ph + 1] && !err; m++) {
			uint32_t d = p->dst[m], v = g->nev, *path;
			struct sync_event *ev;

			s = p->src[m];
			if (d >= p->nranks || d == s)
				continue;
			ev = reserve(g->ev, &cap_ev, sizeof(*ev), (size_t)v + 2);
			if (ev)
				g->ev = ev;
			path = reserve(g->path, &cap_path, sizeof(*path),
				       npath + t->nnodes);
			if (path)
				g->path = path;
			if (!ev || !path) {
				err = -ENOMEM;
				break;
			}
			n = nc_topo_path(t, t->host_node[s], t->host_node[d],
					 g->path + npath, t->nnodes);
			if (n < 0) {
				err = n;
				break;
			}
			g->ev[v] = (struct sync_event){
				.phase = ph, .rank = s, .prev = last[s],
				.next = NC_TOPO_NONE, .path = (uint32_t)npath,
			};
			if (last[s] != NC_TOPO_NONE)
				g->ev[last[s]].next = v;
			last[s] = v;
			npath += (uint32_t)n;
			g->nev++;
		}
	}
	free(last);
	if (!err)
		g->ev[g->nev].path = (uint32_t)npath;
	return err;
}

/* Per directed edge or lane (g->E of them), the events that cross it, in
 * phase order. */
static int edge_lists(struct sync_graph *g)
{
	uint32_t v, e, k, npath = g->ev[g->nev].path;

	g->e_off = calloc((size_t)g->E + 1, sizeof(*g->e_off));
	g->e_ev = malloc(((size_t)npath + 1) * sizeof(*g->e_ev));
	g->e_from = malloc(((size_t)npath + 1) * sizeof(*g->e_from));
	if (!g->e_off || !g->e_ev || !g->e_from)
		return -ENOMEM;
	for (k = 0; k < npath; k++)
		g->e_off[g->path[k] + 1]++;
	for (e = 0; e < g->E; e++)
		g->e_off[e + 1] += g->e_off[e];
	for (v = 0; v < g->nev; v++) {
		for (k = g->ev[v].path; k < g->ev[v + 1].path; k++) {
			uint32_t at = g->e_off[g->path[k]]++;

			g->e_ev[at] = v;
			g->e_from[at] = k > g->ev[v].path ? g->path[k - 1] : g->E;
		}
	}
	for (e = g->E; e > 0; e--)
		g->e_off[e] = g->e_off[e - 1];
	g->e_off[0] = 0;
	return 0;
}

/* The lane the sender's previous message took on edge e (lanes at off[e]
 * .. off[e + 1]), or NC_TOPO_NONE if it did not cross e. */
static uint32_t prev_lane(const struct sync_graph *g, uint32_t v, uint32_t e,
			  const uint32_t *off)
{
	uint32_t u = g->ev[v].prev, k;

	if (u == NC_TOPO_NONE)
		return NC_TOPO_NONE;
	for (k = g->ev[u].path; k < g->ev[u + 1].path; k++)
		if (g->path[k] >= off[e] && g->path[k] < off[e + 1])
			return g->path[k] - off[e];
	return NC_TOPO_NONE;
}

/*
 * Lanes of fat links: walking the events in phase order, a message takes
 * the lane its sender's previous message took on that edge if it is still
 * the sender's and free in this phase (the sender's own order then stands
 * for a sync), else the next free one in turn; a phase with more messages
 * than lanes (a contended schedule) shares them.  path[] is rewritten to
 * lane numbers (g->E of them); nothing changes when no link is fat.
 */
static int lanes(struct sync_graph *g)
{
	uint32_t E = 2 * g->t->nlinks, *cap, *off, *owner, *used, *cursor;
	uint32_t v, e, j, k, n, nl;
	int err = -ENOMEM;

	g->E = E;
	cap = malloc(((size_t)g->t->nlinks + 1) * sizeof(*cap));
	off = malloc(((size_t)E + 1) * sizeof(*off));
	cursor = calloc((size_t)E + 1, sizeof(*cursor));
	owner = used = NULL;
	if (!cap || !off || !cursor)
		goto out;
	nc_topo_link_capacities(g->t, cap);
	for (e = 0, off[0] = 0; e < E; e++) {
		off[e + 1] = off[e] + cap[NC_EDGE_LINK(e)];
		if (off[e + 1] < off[e])
			goto out;	/* more lanes than indices */
	}
	nl = off[E];
	err = 0;
	if (nl == E)
		goto out;
	err = -ENOMEM;
	owner = malloc((size_t)nl * sizeof(*owner));
	used = malloc((size_t)nl * sizeof(*used));
	if (!owner || !used)
		goto out;
	for (j = 0; j < nl; j++)
		owner[j] = used[j] = NC_TOPO_NONE;
	for (v = 0; v < g->nev; v++) {
		uint32_t ph = g->ev[v].phase, r = g->ev[v].rank;

		for (k = g->ev[v].path; k < g->ev[v + 1].path; k++) {
			uint32_t *o, *u, lane;

			e = g->path[k];
			n = off[e + 1] - off[e];
			g->path[k] = off[e];
			if (n == 1)
				continue;
			o = owner + off[e];
			u = used + off[e];
			lane = prev_lane(g, v, e, off);
			if (lane != NC_TOPO_NONE && (o[lane] != r || u[lane] == ph))
				lane = NC_TOPO_NONE;
			for (j = 0; j < n && lane == NC_TOPO_NONE; j++)
				if (u[(cursor[e] + j) % n] != ph)
					lane = (cursor[e] + j) % n;
			if (lane == NC_TOPO_NONE)
				lane = cursor[e] % n;
			cursor[e] = (lane + 1) % n;
			o[lane] = r;
			u[lane] = ph;
			g->path[k] = off[e] + lane;
		}
	}
	g->E = nl;
	err = 0;
out:
	free(cap);
	free(off);
	free(cursor);
	free(owner);
	free(used);
	return err;
}

/*
 * The unpruned count: on each edge, the pairs that arrived by different
 * edges (so their senders differ too) in different phases.  cnt[] counts
 * per arrival edge over the list, run[] over the current phase.
 */
static int count_unpruned(struct sync_graph *g)
{
	uint32_t *cnt, *run, *cnt_at, *run_at, e, i;
	size_t n = (size_t)g->E + 1;

	cnt = malloc(n * sizeof(*cnt));
	run = malloc(n * sizeof(*run));
	cnt_at = malloc(n * sizeof(*cnt_at));
	run_at = malloc(n * sizeof(*run_at));
	if (!cnt || !run || !cnt_at || !run_at) {
		free(cnt);
		free(run);
		free(cnt_at);
		free(run_at);
		return -ENOMEM;
	}
	for (i = 0; i <= g->E; i++)
		cnt_at[i] = run_at[i] = NC_TOPO_NONE;
	g->unpruned = 0;
	for (e = 0; e < g->E; e++) {
		uint64_t seen = 0, in_run = 0, diff = 0, same_phase = 0;
		uint32_t ph = NC_TOPO_NONE, run_start = 0;

		for (i = g->e_off[e]; i < g->e_off[e + 1]; i++) {
			uint32_t k = g->e_from[i], v = g->e_ev[i];

			if (g->ev[v].phase != ph) {
				ph = g->ev[v].phase;
				run_start = i;
				in_run = 0;
			}
			if (cnt_at[k] != e) {
				cnt_at[k] = e;
				cnt[k] = 0;
			}
			if (run_at[k] != run_start) {
				run_at[k] = run_start;
				run[k] = 0;
			}
			diff += seen++ - cnt[k]++;
			same_phase += in_run++ - run[k]++;
		}
		g->unpruned += diff - same_phase;
		if (g->unpruned >= UINT32_MAX)
			break;		/* reported saturated: no need to go on */
	}
	free(cnt);
	free(run);
	free(cnt_at);
	free(run_at);
	return 0;
}

/*
 * Candidates, by target in event order: on each edge of w's path, the
 * events of the last phase before w's, other senders only, each source
 * once (mark[]).  cur[e] and prv[e]: where the current (phase cur_ph[e])
 * and the previous phase groups of edge e start in its list; fill[e]:
 * where w sits in it.
 */
static int candidates(struct sync_graph *g)
{
	uint32_t *cur, *prv, *fill, *cur_ph, *mark, *in, v, e, j, k;
	size_t cap = 0;
	int err = -ENOMEM;

	cur = malloc(((size_t)g->E + 1) * sizeof(*cur));
	prv = malloc(((size_t)g->E + 1) * sizeof(*prv));
	fill = malloc(((size_t)g->E + 1) * sizeof(*fill));
	cur_ph = malloc(((size_t)g->E + 1) * sizeof(*cur_ph));
	mark = malloc(((size_t)g->nev + 1) * sizeof(*mark));
	g->in_off = malloc(((size_t)g->nev + 1) * sizeof(*g->in_off));
	if (!cur || !prv || !fill || !cur_ph || !mark || !g->in_off)
		goto out;
	for (e = 0; e < g->E; e++) {
		cur[e] = prv[e] = fill[e] = g->e_off[e];
		cur_ph[e] = NC_TOPO_NONE;
	}
	for (v = 0; v < g->nev; v++)
		mark[v] = NC_TOPO_NONE;
	g->ncand = 0;
	for (v = 0; v < g->nev; v++) {
		uint32_t ph = g->ev[v].phase;

		g->in_off[v] = g->ncand;
		for (k = g->ev[v].path; k < g->ev[v + 1].path; k++) {
			uint32_t at;

			e = g->path[k];
			at = fill[e]++;
			if (cur_ph[e] != ph) {
				prv[e] = cur[e];
				cur[e] = at;
				cur_ph[e] = ph;
			}
			for (j = prv[e]; j < cur[e]; j++) {
				uint32_t u = g->e_ev[j];

				if (g->ev[u].rank == g->ev[v].rank || mark[u] == v)
					continue;
				mark[u] = v;
				in = reserve(g->in, &cap, sizeof(*in),
					     (size_t)g->ncand + 1);
				if (!in)
					goto out;
				g->in = in;
				g->in[g->ncand++] = u;
			}
		}
	}
	g->in_off[g->nev] = g->ncand;
	err = 0;
out:
	free(cur);
	free(prv);
	free(fill);
	free(cur_ph);
	free(mark);
	return err;
}

/* The candidates by source; all kept until shown redundant. */
static int by_source(struct sync_graph *g)
{
	uint32_t v, i;

	g->out_off = calloc((size_t)g->nev + 1, sizeof(*g->out_off));
	g->out = malloc(((size_t)g->ncand + 1) * sizeof(*g->out));
	g->keep = malloc((size_t)g->ncand + 1);
	if (!g->out_off || !g->out || !g->keep)
		return -ENOMEM;
	memset(g->keep, 1, (size_t)g->ncand + 1);
	for (i = 0; i < g->ncand; i++)
		g->out_off[g->in[i] + 1]++;
	for (v = 0; v < g->nev; v++)
		g->out_off[v + 1] += g->out_off[v];
	for (v = 0; v < g->nev; v++)
		for (i = g->in_off[v]; i < g->in_off[v + 1]; i++)
			g->out[g->out_off[g->in[i]]++] = v;
	for (v = g->nev; v > 0; v--)
		g->out_off[v] = g->out_off[v - 1];
	g->out_off[0] = 0;
	return 0;
}

/* u's farthest target beyond the next phase, or NC_TOPO_NONE if none. */
static uint32_t farthest(const struct sync_graph *g, uint32_t u)
{
	uint32_t i, far = NC_TOPO_NONE;

	for (i = g->out_off[u]; i < g->out_off[u + 1]; i++) {
		uint32_t w = g->out[i];

		if (g->ev[w].phase > g->ev[u].phase + 1 &&
		    (far == NC_TOPO_NONE || w > far))
			far = w;
	}
	return far;
}

/*
 * Decides the candidates of the n <= 64 sources src[] (increasing), bit i
 * standing for src[i]: reach[v - base] collects the sources that reach
 * event v, passed on along candidates and each rank's own order.  Then
 * src[i] -> w is redundant iff bit i reached the previous event of w's
 * sender or another source of w.
 */
static void sweep(struct sync_graph *g, const uint32_t *src, uint32_t n,
		  uint32_t end, uint64_t *reach)
{
	uint32_t base = src[0], i, j, k, v;

	memset(reach, 0, (size_t)(end - base) * sizeof(*reach));
	for (i = 0; i < n; i++)
		reach[src[i] - base] |= UINT64_C(1) << i;
	for (v = base; v < end; v++) {
		uint64_t m = reach[v - base];

		if (!m)
			continue;
		if (g->ev[v].next < end)
			reach[g->ev[v].next - base] |= m;
		for (k = g->out_off[v]; k < g->out_off[v + 1]; k++)
			if (g->out[k] < end)
				reach[g->out[k] - base] |= m;
	}
	for (i = 0; i < n; i++) {
		uint32_t u = src[i];

		for (j = g->out_off[u]; j < g->out_off[u + 1]; j++) {
			uint32_t w = g->out[j], x = g->ev[w].prev, at = 0;
			uint64_t m = 0;

			if (g->ev[w].phase == g->ev[u].phase + 1)
				continue;
			if (x != NC_TOPO_NONE && x >= base)
				m |= reach[x - base];
			for (k = g->in_off[w]; k < g->in_off[w + 1]; k++) {
				x = g->in[k];
				if (x == u)
					at = k;
				else if (x >= base)
					m |= reach[x - base];
			}
			if (m >> i & 1)
				g->keep[at] = 0;
		}
	}
}

/* 64 sources decided together; the events up to end hold their targets. */
struct sweep_batch {
	uint32_t src[64], n, end;
};

struct sweep_work {
	struct sync_graph *g;
	const struct sweep_batch *b;
	uint32_t nb, next;		/* next: taken atomically */
};

/* A worker: batches touch disjoint keep[] entries (their sources'). */
static void *sweep_worker(void *arg)
{
	struct sweep_work *w = arg;
	uint64_t *reach;
	uint32_t i;

	reach = malloc(((size_t)w->g->nev + 1) * sizeof(*reach));
	if (!reach)
		return w;		/* the caller does the rest */
	while ((i = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED)) < w->nb)
		sweep(w->g, w->b[i].src, w->b[i].n, w->b[i].end, reach);
	free(reach);
	return NULL;
}

/* The batches, on up to one thread per CPU (NC_SYNC_THREADS at most). */
static int sweep_all(struct sync_graph *g, const struct sweep_batch *b,
		     uint32_t nb)
{
	struct sweep_work w = { .g = g, .b = b, .nb = nb };
	pthread_t tid[NC_SYNC_THREADS];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	uint32_t n = 0, i, want = nb / 8;	/* fewer batches: not worth a thread */

	if (cpus > 0 && want > (unsigned long)cpus)
		want = (uint32_t)cpus;
	if (want > NC_SYNC_THREADS)
		want = NC_SYNC_THREADS;
	while (n + 1 < want && !pthread_create(&tid[n], NULL, sweep_worker, &w))
		n++;
	/* this thread works too; if it cannot, the others finish */
	if (sweep_worker(&w) && !n)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	return w.next >= nb ? 0 : -ENOMEM;
}

/* A source's reach class: the bit length of its farthest target's distance. */
static uint32_t reach_class(uint32_t reach)
{
	return 32 - (uint32_t)__builtin_clz(reach | 1);
}

/*
 * Sources that need deciding, in event order, in batches of 64 with
 * targets about as far (one batch per reach class, up to SHORT_REACH) and
 * spanning little more than that reach, so that a sweep walks few events
 * per source; far sources (beyond SHORT_REACH) are batched apart.
 */
static int prune(struct sync_graph *g)
{
	enum { NEAR = 15, FAR = NEAR };	/* classes 1..14, then far */
	struct sweep_batch cls[NEAR + 1] = { 0 }, *b = NULL, *x;
	size_t cap = 0, nb = 0;
	uint32_t u, c;
	int err;

	for (u = 0; u < g->nev; u++) {
		uint32_t to = farthest(g, u), span;
		struct sweep_batch *into;

		if (to == NC_TOPO_NONE)
			continue;
		c = to - u > SHORT_REACH ? FAR : reach_class(to - u);
		into = &cls[c];
		span = c == FAR ? UINT32_MAX : (2U << c) + SWEEP_SLACK;
		if (into->n == 64 || (into->n && to + 1 - into->src[0] > span)) {
			x = reserve(b, &cap, sizeof(*b), nb + 1);
			if (!x)
				goto nomem;
			b = x;
			b[nb++] = *into;
			into->n = into->end = 0;
		}
		into->src[into->n++] = u;
		if (to + 1 > into->end)
			into->end = to + 1;
	}
	x = reserve(b, &cap, sizeof(*b), nb + NEAR + 1);
	if (!x)
		goto nomem;
	b = x;
	for (c = 0; c <= NEAR; c++)
		if (cls[c].n)
			b[nb++] = cls[c];
	err = nb ? sweep_all(g, b, (uint32_t)nb) : 0;
	free(b);
	return err;
nomem:
	free(b);
	return -ENOMEM;
}

static int emit(struct sync_graph *g, struct nc_a2a_plan *p)
{
	uint32_t w, i, n = 0;

	for (i = 0; i < g->ncand; i++)
		n += g->keep[i];
	p->syncs = malloc(((size_t)n + 1) * sizeof(*p->syncs));
	if (!p->syncs)
		return -ENOMEM;
	for (w = 0; w < g->nev; w++) {
		for (i = g->in_off[w]; i < g->in_off[w + 1]; i++) {
			uint32_t u = g->in[i];

			if (!g->keep[i])
				continue;
			p->syncs[p->nsyncs++] = (struct nc_sync){
				.from = g->ev[u].rank, .from_phase = g->ev[u].phase,
				.to = g->ev[w].rank, .to_phase = g->ev[w].phase,
			};
		}
	}
	p->nsyncs_unpruned = g->unpruned > UINT32_MAX ? UINT32_MAX :
			     (uint32_t)g->unpruned;
	return 0;
}

int nc_sched_sync(const struct nc_topo *t, struct nc_a2a_plan *p)
{
	struct sync_graph g = { .t = t, .p = p };
	int err;

	if (!t || !p || p->nranks != t->nhosts || !p->first)
		return -EINVAL;
	if (!t->is_tree)
		return -EOPNOTSUPP;
	free(p->syncs);
	p->syncs = NULL;
	p->nsyncs = p->nsyncs_unpruned = 0;
	err = events(&g);
	if (!err)
		err = lanes(&g);
	if (!err)
		err = edge_lists(&g);
	if (!err)
		err = count_unpruned(&g);
	if (!err)
		err = candidates(&g);
	if (!err)
		err = by_source(&g);
	if (!err)
		err = prune(&g);
	if (!err)
		err = emit(&g, p);
	graph_free(&g);
	return err;
}

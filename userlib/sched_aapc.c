// SPDX-License-Identifier: BSD-2-Clause
/*
 * Faraj & Yuan, "Message scheduling for all-to-all personalized
 * communication on Ethernet switched clusters": contention-free phases for
 * any tree, as many as the load of the bottleneck link.
 *
 *   4.1  root identification: walk from a bottleneck link to the switch
 *        whose subtrees hold at most |M|/2 machines each;
 *   4.2  extended ring scheduling of the groups t_i -> t_j between the
 *        root's subtrees, sorted |M_0| >= |M_1| >= ...;
 *   4.3  global and local message assignment, the six steps of Figure 4
 *        (broadcast and rotate patterns, Tables 2 and 3).
 *
 * Only one local message per subtree and phase is placed, next to global
 * messages as Lemma 3 allows, so the inside of a subtree never matters and
 * nothing recurses into it (section 4.3, before Lemma 5).  Machines of a
 * subtree are numbered t_{i,0}, t_{i,1}, ... in rank order, and subtrees
 * of equal size are ordered by their lowest rank: every rank computes the
 * same plan.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched.h"

struct aapc {
	const struct nc_topo *t;
	struct nc_a2a_plan *p;
	uint32_t k;			/* subtrees of the root */
	uint32_t *m;			/* |M_i|, non-increasing */
	uint32_t *sum;			/* sum[i] = |M_0| + ... + |M_{i-1}| */
	uint32_t *rank;			/* t_{i,x} = rank[sum[i] + x] */
	uint32_t P;			/* |M_0| * (|M| - |M_0|) phases */
	uint32_t *send0, *recv0;	/* per phase: t_0's global sender and
					 * receiver (x of t_{0,x}) */
};

static uint32_t other_end(const struct nc_topo_link *l, uint32_t n)
{
	return l->a == n ? l->b : l->a;
}

static uint32_t gcd(uint32_t a, uint32_t b)
{
	while (b) {
		uint32_t r = a % b;

		a = b;
		b = r;
	}
	return a;
}

/* Places t_{i,x} -> t_{j,y} in phase ph (a slot taken twice: seal fails). */
static int put(struct aapc *s, uint32_t ph, uint32_t i, uint32_t x,
	       uint32_t j, uint32_t y)
{
	uint32_t from = s->rank[s->sum[i] + x], to = s->rank[s->sum[j] + y];

	return nc_plan_put(s->p, ph, from, to);
}

/*
 * Section 4.2, extended ring: t_i -> t_j takes |M_i| |M_j| consecutive
 * phases from |M_i| (|M_{i+1}| + ... + |M_{j-1}|) if j > i, else from
 * P - |M_j| (|M_{j+1}| + ... + |M_i|) (Lemma 2: no two groups share a
 * subtree's link to the root in a phase).
 */
static uint32_t group_start(const struct aapc *s, uint32_t i, uint32_t j)
{
	if (j > i)
		return s->m[i] * (s->sum[j] - s->sum[i + 1]);
	return s->P - s->m[j] * (s->sum[i + 1] - s->sum[j + 1]);
}

/* t_{j,x} with x = (p - P) mod |M_j|: receivers aligned on the last phase
 * (steps 1.a and 4), the designated receiver of step 5. */
static uint32_t aligned(const struct aapc *s, uint32_t ph, uint32_t j)
{
	return (s->m[j] - (s->P - ph) % s->m[j]) % s->m[j];
}

/* Broadcast pattern (4.3): each sender of t_i in turn, |M_j| phases each. */
static int broadcast(struct aapc *s, uint32_t i, uint32_t j)
{
	uint32_t st = group_start(s, i, j), q;
	int err;

	for (q = 0; q < s->m[i] * s->m[j]; q++) {
		err = put(s, st + q, i, q / s->m[j], j, q % s->m[j]);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Step 1: t_0 -> t_j by the rotate pattern (Table 2): the base sequence
 * t_{0,0} .. t_{0,|M_0|-1} repeated, rotated once every a*b*D = lcm
 * phases; receivers aligned on the last phase (1.a).  Every |M_0|-phase
 * round from phase 0 then holds each node of t_0 once as a sender.
 */
static int step1(struct aapc *s)
{
	uint32_t j, q;
	int err;

	for (j = 1; j < s->k; j++) {
		uint32_t st = group_start(s, 0, j), n = s->m[0] * s->m[j];
		uint32_t lcm = n / gcd(s->m[0], s->m[j]);

		for (q = 0; q < n; q++) {
			uint32_t x = (q + q / lcm) % s->m[0];

			s->send0[st + q] = x;
			err = put(s, st + q, 0, x, j, aligned(s, st + q, j));
			if (err)
				return err;
		}
	}
	return 0;
}

/*
 * Step 2: t_i -> t_0.  Receivers follow Table 3: in round r (|M_0|
 * phases) the sender t_{0,x} of step 1 is paired with the receiver
 * t_{0,(x + 1 + r mod |M_0|) mod |M_0|}; senders of t_i by broadcast.
 */
static int step2(struct aapc *s)
{
	uint32_t m0 = s->m[0], i, q;
	int err;

	for (i = 1; i < s->k; i++) {
		uint32_t st = group_start(s, i, 0);

		for (q = 0; q < s->m[i] * m0; q++) {
			uint32_t ph = st + q;
			uint32_t y = (s->send0[ph] + 1 + (ph / m0) % m0) % m0;

			s->recv0[ph] = y;
			err = put(s, ph, i, q / m0, 0, y);
			if (err)
				return err;
		}
	}
	return 0;
}

/*
 * Step 3: t_{0,a} -> t_{0,b} in the one phase among the first
 * |M_0| * (|M_0| - 1) where t_{0,a} receives and t_{0,b} sends a global
 * message (round (a - b - 1) mod |M_0| of Table 3).
 */
static int step3(struct aapc *s)
{
	uint32_t ph;
	int err;

	for (ph = 0; ph < s->m[0] * (s->m[0] - 1); ph++) {
		err = put(s, ph, 0, s->recv0[ph], 0, s->send0[ph]);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Step 5: local messages of t_i (i >= 1) in the phases of t_i -> t_{i-1},
 * a broadcast (steps 2 and 4) where t_{i,b} sends |M_{i-1}| >= |M_i|
 * phases in a row while the designated receiver t_{i,a}, aligned on the
 * last phase, runs through all of t_i: t_{i,a} -> t_{i,b} takes the
 * first such phase.
 */
static int step5(struct aapc *s, uint8_t *done)
{
	uint32_t i, q;
	int err;

	for (i = 1; i < s->k; i++) {
		uint32_t mi = s->m[i], st = group_start(s, i, i - 1);

		memset(done, 0, (size_t)mi * mi);
		for (q = 0; q < mi * s->m[i - 1]; q++) {
			uint32_t b = q / s->m[i - 1], a = aligned(s, st + q, i);

			if (a == b || done[a * mi + b])
				continue;
			done[a * mi + b] = 1;
			err = put(s, st + q, i, a, i, b);
			if (err)
				return err;
		}
	}
	return 0;
}

/* Steps 1-6 of Figure 4, in order. */
static int assign(struct aapc *s)
{
	uint8_t *done;
	uint32_t i, j;
	int err;

	err = step1(s);
	if (!err)
		err = step2(s);
	if (!err)
		err = step3(s);
	/* step 4: t_i -> t_j, i > j >= 1, broadcast aligned on the last phase */
	for (i = 2; i < s->k && !err; i++)
		for (j = 1; j < i && !err; j++)
			err = broadcast(s, i, j);
	if (err)
		return err;
	done = malloc((size_t)s->m[1] * s->m[1]);
	if (!done)
		return -ENOMEM;
	err = step5(s, done);
	free(done);
	/* step 6: t_i -> t_j, 1 <= i < j, broadcast */
	for (i = 1; i < s->k && !err; i++)
		for (j = i + 1; j < s->k && !err; j++)
			err = broadcast(s, i, j);
	return err;
}

/*
 * Section 4.1.  cnt[] counts the hosts below each node of the tree hung
 * from node 0 (parent par[]); machines(u, w) is |M| of the part that
 * contains w once link (u, w) is cut.
 */
struct rooted {
	uint32_t *par, *cnt, *order;
};

static uint32_t machines(const struct nc_topo *t, const struct rooted *r,
			 uint32_t u, uint32_t w)
{
	return r->par[w] == u ? r->cnt[w] : t->nhosts - r->cnt[u];
}

static void hang(const struct nc_topo *t, struct rooted *r)
{
	uint32_t head = 0, tail = 0, i, k;

	r->par[0] = NC_TOPO_NONE;
	r->order[tail++] = 0;
	while (head < tail) {
		uint32_t n = r->order[head++];

		for (k = t->adj_off[n]; k < t->adj_off[n + 1]; k++) {
			uint32_t w = other_end(&t->links[t->adj[k]], n);

			if (w == r->par[n])
				continue;
			r->par[w] = n;
			r->order[tail++] = w;
		}
	}
	for (i = 0; i < t->nnodes; i++)
		r->cnt[i] = t->nodes[i].kind == NC_NODE_HOST;
	for (i = t->nnodes; i-- > 1;)
		r->cnt[r->par[r->order[i]]] += r->cnt[r->order[i]];
}

/*
 * A bottleneck link (u, v) with |M_u| >= |M_v| (the first such link; on a
 * tie, u is the end away from node 0); while u has a single branch with
 * machines other than the one towards v, step into it.  Lemma 1: each
 * subtree of the node reached holds <= |M|/2.
 */
static uint32_t find_root(const struct nc_topo *t, const struct rooted *r)
{
	uint64_t best = 0;
	uint32_t l, u = 0, v = 0, k;

	for (l = 0; l < t->nlinks; l++) {
		const struct nc_topo_link *ln = &t->links[l];
		uint32_t c = r->par[ln->a] == ln->b ? ln->a : ln->b;
		uint64_t mc = r->cnt[c], load = mc * (t->nhosts - mc);

		if (load > best) {
			best = load;
			u = 2 * mc >= t->nhosts ? c : r->par[c];
			v = other_end(ln, u);
		}
	}
	for (;;) {
		uint32_t branches = 0, next = 0;

		for (k = t->adj_off[u]; k < t->adj_off[u + 1]; k++) {
			uint32_t w = other_end(&t->links[t->adj[k]], u);

			if (w != v && machines(t, r, u, w)) {
				branches++;
				next = w;
			}
		}
		if (branches != 1)
			return u;
		v = u;
		u = next;
	}
}

/*
 * The root's subtrees: label every node with the root's neighbour it hangs
 * from, then order them by size (ties: lowest rank first) and list their
 * machines in rank order.
 */
static int subtrees(struct aapc *s, uint32_t root, uint32_t *lab,
		    uint32_t *queue)
{
	const struct nc_topo *t = s->t;
	uint32_t N = t->nhosts, head = 0, tail = 0, i, j, k, nsub = 0;
	uint32_t *size, *first, *order, *pos;
	int err = -ENOMEM;

	for (i = 0; i < t->nnodes; i++)
		lab[i] = NC_TOPO_NONE;
	for (k = t->adj_off[root]; k < t->adj_off[root + 1]; k++) {
		uint32_t w = other_end(&t->links[t->adj[k]], root);

		lab[w] = nsub++;
		queue[tail++] = w;
	}
	lab[root] = nsub;
	while (head < tail) {
		uint32_t n = queue[head++];

		for (k = t->adj_off[n]; k < t->adj_off[n + 1]; k++) {
			uint32_t w = other_end(&t->links[t->adj[k]], n);

			if (lab[w] == NC_TOPO_NONE) {
				lab[w] = lab[n];
				queue[tail++] = w;
			}
		}
	}
	size = calloc(nsub, sizeof(*size));
	first = malloc(nsub * sizeof(*first));
	order = malloc(nsub * sizeof(*order));
	pos = malloc(nsub * sizeof(*pos));
	s->m = malloc(nsub * sizeof(*s->m));
	s->sum = malloc((nsub + 1) * sizeof(*s->sum));
	s->rank = malloc(N * sizeof(*s->rank));
	if (!size || !first || !order || !pos || !s->m || !s->sum || !s->rank)
		goto out;
	for (i = N; i-- > 0;) {
		uint32_t b = lab[t->host_node[i]];

		size[b]++;
		first[b] = i;
	}
	/* insertion sort: k is the root's degree */
	s->k = 0;
	for (i = 0; i < nsub; i++) {
		if (!size[i])
			continue;
		for (j = s->k; j > 0; j--) {
			uint32_t o = order[j - 1];

			if (size[o] > size[i] ||
			    (size[o] == size[i] && first[o] < first[i]))
				break;
			order[j] = o;
		}
		order[j] = i;
		s->k++;
	}
	s->sum[0] = 0;
	for (j = 0; j < s->k; j++) {
		s->m[j] = size[order[j]];
		s->sum[j + 1] = s->sum[j] + s->m[j];
		pos[order[j]] = s->sum[j];
	}
	for (i = 0; i < N; i++)
		s->rank[pos[lab[t->host_node[i]]]++] = i;
	err = 0;
out:
	free(size);
	free(first);
	free(order);
	free(pos);
	return err;
}

/* |M| <= 2 (section 3: "trivial"): one phase for two hosts, none below. */
static int trivial(const struct nc_topo *t, struct nc_a2a_plan *p)
{
	int err = nc_a2a_plan_alloc(p, t->nhosts, t->nhosts == 2);

	if (!err && t->nhosts == 2)
		err = nc_plan_put(p, 0, 0, 1) ?: nc_plan_put(p, 0, 1, 0);
	return err ?: nc_plan_seal(p);
}

int nc_sched_aapc(const struct nc_topo *t, struct nc_a2a_plan *p)
{
	struct aapc s = { .t = t, .p = p };
	struct rooted r = { 0 };
	uint32_t root;
	int err;

	if (!t || !p)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	if (!t->is_tree || !t->adj_off)
		return -EINVAL;
	if (t->nhosts <= 2)
		return trivial(t, p);
	r.par = malloc(t->nnodes * sizeof(*r.par));
	r.cnt = malloc(t->nnodes * sizeof(*r.cnt));
	r.order = malloc(t->nnodes * sizeof(*r.order));
	err = -ENOMEM;
	if (!r.par || !r.cnt || !r.order)
		goto out;
	hang(t, &r);
	root = find_root(t, &r);
	/* par and order are spent: reuse them as labels and queue */
	err = subtrees(&s, root, r.par, r.order);
	if (err)
		goto out;
	err = -E2BIG;
	if ((uint64_t)s.m[0] * (t->nhosts - s.m[0]) > UINT32_MAX)
		goto out;
	s.P = s.m[0] * (t->nhosts - s.m[0]);
	err = nc_a2a_plan_alloc(p, t->nhosts, s.P);
	if (err)
		goto out;
	s.send0 = malloc(s.P * sizeof(*s.send0));
	s.recv0 = malloc(s.P * sizeof(*s.recv0));
	err = -ENOMEM;
	if (!s.send0 || !s.recv0)
		goto out;
	err = assign(&s);
	if (!err)
		err = nc_plan_seal(p);
out:
	if (err)
		nc_a2a_plan_free(p);
	free(r.par);
	free(r.cnt);
	free(r.order);
	free(s.m);
	free(s.sum);
	free(s.rank);
	free(s.send0);
	free(s.recv0);
	return err;
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * Aggregation trees against Yu, Buntinas, Graham and Panda (SC'03): the
 * f-nomial tree of appendix A (Figure 5, binomial trees, sizes that are
 * no power of f, against a literal copy of the appendix loop), the rank
 * orders and topology orders, the latency model of section 5.2 (Figure 8,
 * exact integer logs, appendix B's best degree), the serial fit, the
 * vector split, the operator and type names, and the checks that run
 * before a tree request leaves the library.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netcoll.h"
#include "netcoll_plan.h"
#include "../../userlib/args.h"
#include "../../userlib/topo.h"
#include "harness.h"

#define NEAR(a, b)	(fabs((a) - (b)) <= 1e-9 * (1 + fabs(b)))

/*
 * Appendix A's init_fnomial_tree() for process id_local, as printed:
 * returns the parent and fills the receives of each phase.
 */
static uint32_t appendix_parent(uint32_t degree, uint32_t id_count,
				uint32_t id_local, uint32_t *array_receives)
{
	uint32_t phase = 0, stride = 1, id_parent = id_local, index;

	while (stride < id_count) {
		array_receives[phase] = 0;
		if ((id_local / stride) % degree == 0) {
			for (index = 0; index < degree - 1; index++)
				if (id_local + (index + 1) * stride < id_count)
					array_receives[phase]++;
		} else {
			id_parent = id_local / (stride * degree) * (stride * degree);
			break;
		}
		stride *= degree;
		phase++;
	}
	array_receives[phase] = 0;
	return id_parent;
}

/* Exactly one root, order[0]; every rank reaches it in <= max_depth hops. */
static int rooted(const uint32_t *parents, uint32_t size, uint32_t root,
		  uint32_t max_depth)
{
	uint32_t r, v, hops;

	for (r = 0; r < size; r++) {
		if (parents[r] >= size || ((parents[r] == r) != (r == root)))
			return 0;
		for (v = r, hops = 0; v != root; v = parents[v])
			if (++hops > max_depth)
				return 0;
	}
	return nc_check_tree(parents, size) == 0;
}

static uint32_t ceil_log(uint32_t P, uint32_t f)
{
	uint64_t pw = 1;
	uint32_t k = 0;

	while (pw < P) {
		pw *= f;
		k++;
	}
	return k;
}

TEST(figure5_4nomial_16)
{
	static const uint32_t want[16] = {
		0, 0, 0, 0, 0, 4, 4, 4, 0, 8, 8, 8, 0, 12, 12, 12,
	};
	uint32_t parents[16], r;

	CHECK_EQ(nc_tree_fnomial(16, 4, NULL, parents), 0);
	for (r = 0; r < 16; r++)
		CHECK_EQ(parents[r], want[r]);
	CHECK(rooted(parents, 16, 0, 2));
}

TEST(binomial_8)
{
	static const uint32_t want[8] = { 0, 0, 0, 2, 0, 4, 4, 6 };
	uint32_t parents[8], r;

	CHECK_EQ(nc_tree_fnomial(8, 2, NULL, parents), 0);
	for (r = 0; r < 8; r++)
		CHECK_EQ(parents[r], want[r]);
	CHECK(rooted(parents, 8, 0, 3));
}

/* P = 10, f = 3: phases of stride 1, 3, 9; 9 is the root's last child. */
TEST(trinomial_10)
{
	static const uint32_t want[10] = { 0, 0, 0, 0, 3, 3, 0, 6, 6, 0 };
	uint32_t parents[10], r;

	CHECK_EQ(nc_tree_fnomial(10, 3, NULL, parents), 0);
	for (r = 0; r < 10; r++)
		CHECK_EQ(parents[r], want[r]);
	CHECK(rooted(parents, 10, 0, 3));
}

TEST(tiny_sizes)
{
	uint32_t parents[2] = { 7, 7 };

	CHECK_EQ(nc_tree_fnomial(1, 2, NULL, parents), 0);
	CHECK_EQ(parents[0], 0);
	CHECK_EQ(nc_tree_fnomial(2, 2, NULL, parents), 0);
	CHECK_EQ(parents[0], 0);
	CHECK_EQ(parents[1], 0);
	CHECK_EQ(nc_tree_fnomial(2, 64, NULL, parents), 0);
	CHECK_EQ(parents[1], 0);
}

/*
 * Every size to 200 and degree to 12 against the appendix, with the
 * children per phase the appendix counts: the root's phases are
 * ceil(log_f P), all of them full but maybe the last (the model's terms).
 */
TEST(appendix_brute_force)
{
	uint32_t parents[200], recv[40], P, f, v, ph, kids, total;

	for (P = 1; P <= 200; P++) {
		for (f = 2; f <= 12; f++) {
			CHECK_EQ(nc_tree_fnomial(P, f, NULL, parents), 0);
			for (v = 0; v < P; v++) {
				CHECK_EQ(parents[v], appendix_parent(f, P, v, recv));
				/* receives of v summed over the phases = its children */
				for (kids = 0, total = 0; total < P; total++)
					kids += parents[total] == v && total != v;
				for (ph = 0, total = 0; recv[ph]; ph++)
					total += recv[ph];
				CHECK_EQ(total, kids);
			}
			appendix_parent(f, P, 0, recv);
			for (ph = 0; recv[ph]; ph++)
				;
			CHECK_EQ(ph, ceil_log(P, f));
			CHECK(rooted(parents, P, 0, ceil_log(P, f)));
			if (h.why[0])
				return;
		}
	}
}

/* splitmix64: the same permutations on every run. */
static uint64_t rnd(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* parents[order[v]] = order[parent position of v], root order[0]. */
TEST(order_mapping)
{
	uint32_t order[100], plain[100], parents[100], P, f, v, i, t;
	uint64_t seed = 42;

	for (P = 1; P <= 100; P += 11) {
		for (f = 2; f <= 7; f++) {
			for (v = 0; v < P; v++)
				order[v] = v;
			for (v = P - 1; v > 0; v--) {
				i = (uint32_t)(rnd(&seed) % (v + 1));
				t = order[v];
				order[v] = order[i];
				order[i] = t;
			}
			CHECK_EQ(nc_tree_fnomial(P, f, NULL, plain), 0);
			CHECK_EQ(nc_tree_fnomial(P, f, order, parents), 0);
			for (v = 0; v < P; v++)
				CHECK_EQ(parents[order[v]], order[plain[v]]);
			CHECK(rooted(parents, P, order[0], ceil_log(P, f)));
		}
	}
}

TEST(fnomial_rejects)
{
	uint32_t parents[4], dup[4] = { 0, 1, 1, 3 }, big[4] = { 0, 1, 2, 4 };

	CHECK_EQ(nc_tree_fnomial(0, 2, NULL, parents), -EINVAL);
	CHECK_EQ(nc_tree_fnomial(4, 1, NULL, parents), -EINVAL);
	CHECK_EQ(nc_tree_fnomial(4, 0, NULL, parents), -EINVAL);
	CHECK_EQ(nc_tree_fnomial(4, 2, NULL, NULL), -EINVAL);
	CHECK_EQ(nc_tree_fnomial(4, 2, dup, parents), -EINVAL);
	CHECK_EQ(nc_tree_fnomial(4, 2, big, parents), -EINVAL);
}

/*
 * Ranks sharing hosts: the tree over hosts, each host's other ranks below
 * the rank that stands for it (the module's built-in trees then).
 */
TEST(fnomial_hosts)
{
	/* ranks 0-3 on hosts A-D, ranks 4-7 on A-D again */
	const uint32_t host[8] = { 10, 11, 12, 13, 10, 11, 12, 13 };
	const uint32_t root0[8] = { 0, 0, 0, 0, 0, 1, 2, 3 };
	const uint32_t root5[8] = { 5, 5, 5, 5, 0, 5, 2, 3 };
	/* two hosts of three ranks each, degree 2, root 4 (host 1's middle) */
	const uint32_t host6[6] = { 7, 7, 7, 9, 9, 9 };
	const uint32_t root4[6] = { 4, 0, 0, 4, 4, 4 };
	/* one rank per host: the plain f-nomial tree rotated to the root */
	const uint32_t distinct[5] = { 1, 2, 3, 4, 5 };
	uint32_t parents[8], plain[5], order[5], i;

	CHECK_EQ(nc_tree_fnomial_hosts(8, 4, 0, host, parents), 0);
	CHECK(!memcmp(parents, root0, sizeof(root0)));
	CHECK_EQ(nc_tree_fnomial_hosts(8, 4, 5, host, parents), 0);
	CHECK(!memcmp(parents, root5, sizeof(root5)));
	CHECK_EQ(nc_tree_fnomial_hosts(6, 2, 4, host6, parents), 0);
	CHECK(!memcmp(parents, root4, sizeof(root4)));
	for (i = 0; i < 5; i++)
		order[i] = (i + 2) % 5;
	CHECK_EQ(nc_tree_fnomial(5, 2, order, plain), 0);
	CHECK_EQ(nc_tree_fnomial_hosts(5, 2, 2, distinct, parents), 0);
	CHECK(!memcmp(parents, plain, sizeof(plain)));
	CHECK_EQ(nc_tree_fnomial_hosts(8, 1, 0, host, parents), -EINVAL);
	CHECK_EQ(nc_tree_fnomial_hosts(8, 4, 8, host, parents), -EINVAL);
	CHECK_EQ(nc_tree_fnomial_hosts(8, 4, 0, NULL, parents), -EINVAL);
}

/* The topology files, seen from the repository root (where tests run). */
static const char *topo_path(const char *name)
{
	static char path[600];
	const char *slash;

	if (access("selftests/net/topologies", F_OK) == 0) {
		snprintf(path, sizeof(path), "selftests/net/topologies/%s", name);
		return path;
	}
	slash = strrchr(__FILE__, '/');
	snprintf(path, sizeof(path), "%.*s/../net/topologies/%s",
		 slash ? (int)(slash - __FILE__) : 1, slash ? __FILE__ : ".", name);
	return path;
}

static int load(struct nc_topo *t, const char *topology)
{
	struct nc_topo_err e;

	if (access(topology, F_OK) == 0)
		return nc_topo_load(t, topology, &e);
	return nc_topo_gen_spec(t, topology, &e);
}

/* The switch a rank's host is cabled to. */
static uint32_t switch_of(const struct nc_topo *t, uint32_t rank)
{
	uint32_t n = t->host_node[rank];
	const struct nc_topo_link *l = &t->links[t->adj[t->adj_off[n]]];

	return l->a == n ? l->b : l->a;
}

/* Parent links between ranks on different switches. */
static uint32_t crossings(const struct nc_topo *t, const uint32_t *parents)
{
	uint32_t r, n = 0;

	for (r = 0; r < t->nhosts; r++)
		n += switch_of(t, r) != switch_of(t, parents[r]);
	return n;
}

/* Does n lie on the tree path from host node h up to the root? */
static int below(const struct nc_topo *t, uint32_t h, uint32_t n)
{
	uint32_t edges[64], i, k;
	int len = nc_topo_path(t, h, t->root, edges, 64);

	if (n == t->root)
		return 1;
	for (i = 0; i < (uint32_t)len && i < 64; i++) {
		const struct nc_topo_link *l = &t->links[NC_EDGE_LINK(edges[i])];

		k = edges[i] % 2 ? l->a : l->b;		/* the edge's head */
		if (k == n)
			return 1;
	}
	return 0;
}

/*
 * The hosts of every switch are consecutive positions, and on a tree so
 * are the hosts of every switch's subtree.
 */
static int grouped(const struct nc_topo *t, const uint32_t *order)
{
	uint32_t s, v, first, last, count;

	for (s = 0; s < t->nnodes; s++) {
		if (t->nodes[s].kind != NC_NODE_SWITCH)
			continue;
		first = UINT32_MAX;
		last = count = 0;
		for (v = 0; v < t->nhosts; v++) {
			uint32_t hn = t->host_node[order[v]];
			int in = t->is_tree ? below(t, hn, s) : switch_of(t, order[v]) == s;

			if (!in)
				continue;
			if (first == UINT32_MAX)
				first = v;
			last = v;
			count++;
		}
		if (count && last - first + 1 != count)
			return 0;
	}
	return 1;
}

static int is_perm(const uint32_t *order, uint32_t size)
{
	uint8_t seen[256] = { 0 };
	uint32_t v;

	for (v = 0; v < size; v++) {
		if (order[v] >= size || seen[order[v]])
			return 0;
		seen[order[v]] = 1;
	}
	return 1;
}

/*
 * Two switches whose hosts alternate in rank order: the identity order
 * sends most partial results across the switch link, the topology order
 * only one per switch, for every rotation.
 */
static const char interleaved[] =
	"switch s0\nswitch s1\n"
	"host h1 s0\nhost h2 s1\nhost h3 s0\nhost h4 s1\n"
	"host h5 s0\nhost h6 s1\nhost h7 s0\nhost h8 s1\n"
	"link s0 s1\n";

/* text into a new file named after the mkstemp template path; 0 or -1. */
static int temp_topology(char *path, const char *text, size_t len)
{
	int fd = mkstemp(path);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, len);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

TEST(topo_order_two_switches)
{
	char path[] = "/tmp/nc_test_tree_XXXXXX";
	uint32_t order[8], parents[8], rot, v;
	struct nc_topo t;

	CHECK_EQ(temp_topology(path, interleaved, sizeof(interleaved) - 1), 0);
	CHECK_EQ(load(&t, path), 0);
	CHECK_EQ(nc_tree_fnomial(8, 4, NULL, parents), 0);
	CHECK(crossings(&t, parents) > 1);
	for (rot = 0; rot < 8; rot++) {
		CHECK_EQ(nc_tree_order_topo(path, 8, rot, order), 0);
		CHECK(is_perm(order, 8));
		CHECK_EQ(nc_tree_fnomial(8, 4, order, parents), 0);
		if (rot % 4 == 0) {
			/* blocks of 4 = the switches: 1 crossing, the root's */
			CHECK_EQ(crossings(&t, parents), 1);
			CHECK(grouped(&t, order));
		}
		CHECK(rooted(parents, 8, order[0], 2));
	}
	/* s0's hosts first, in rank order, then s1's */
	CHECK_EQ(nc_tree_order_topo(path, 8, 0, order), 0);
	for (v = 0; v < 8; v++)
		CHECK_EQ(order[v], v < 4 ? 2 * v : 2 * (v - 4) + 1);
	/* rotation moves the root to position rot */
	CHECK_EQ(nc_tree_order_topo(path, 8, 4, order), 0);
	CHECK_EQ(order[0], 1);
	CHECK_EQ(nc_tree_order_topo(path, 8, 8 + 4, order), 0);
	CHECK_EQ(order[0], 1);
	CHECK_EQ(nc_tree_order_topo(path, 7, 0, order), -EINVAL);
	nc_topo_free(&t);
	unlink(path);
}

/* The repository's files and generated shapes keep switches together. */
TEST(topo_order_files_and_specs)
{
	static const struct {
		const char *topo;
		uint32_t f, crossings;	/* UINT32_MAX: not checked */
	} cases[] = {
		{ "two-switch.topo", 4, 1 },
		{ "two-switch-8x2.topo", 8, 1 },
		{ "two-switch-8x2.topo", 2, 1 },
		{ "chain3x4.topo", 4, 2 },
		{ "two-level-ft.topo", 2, 1 },
		{ "figure1.topo", 2, UINT32_MAX },
		{ "chain:2x4", 4, 1 },
		{ "chain:4x4", 4, 3 },
		{ "ft:2:4,4", 4, 3 },
		{ "ft:3:4,2,2", 4, 3 },
		{ "random:6:40:7", 3, UINT32_MAX },
		{ "xgft:2:4,4:1,2", 4, 3 },
	};
	uint32_t order[256], parents[256], i, size;
	struct nc_topo t;
	char name[600];

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *topo = cases[i].topo;

		if (strstr(topo, ".topo")) {
			snprintf(name, sizeof(name), "%s", topo_path(topo));
			topo = name;
		}
		CHECK_EQ(load(&t, topo), 0);
		size = t.nhosts;
		CHECK_EQ(nc_tree_order_topo(topo, size, 0, order), 0);
		CHECK(is_perm(order, size));
		CHECK(grouped(&t, order));
		CHECK_EQ(nc_tree_fnomial(size, cases[i].f, order, parents), 0);
		CHECK(rooted(parents, size, order[0], ceil_log(size, cases[i].f)));
		if (cases[i].crossings != UINT32_MAX)
			CHECK_EQ(crossings(&t, parents), cases[i].crossings);
		nc_topo_free(&t);
		if (h.why[0]) {
			snprintf(h.why + strlen(h.why), sizeof(h.why) - strlen(h.why),
				 " [%s]", cases[i].topo);
			return;
		}
	}
}

TEST(topo_order_rank_order_and_errors)
{
	uint32_t order[16], v;	/* 16: the chain:4x4 trees below */

	CHECK_EQ(nc_tree_order_topo(NULL, 10, 3, order), 0);
	for (v = 0; v < 10; v++)
		CHECK_EQ(order[v], (v + 3) % 10);
	CHECK_EQ(nc_tree_order_topo(NULL, 0, 0, order), -EINVAL);
	CHECK_EQ(nc_tree_order_topo(NULL, 10, 0, NULL), -EINVAL);
	CHECK(nc_tree_order_topo("nosuch:3", 3, 0, order) < 0);
	CHECK(nc_tree_order_topo("/nonexistent/x.topo", 3, 0, order) < 0);
	CHECK_EQ(nc_tree_order_topo("star:8", 9, 0, order), -EINVAL);
	/* parallel trees as nc_tree_install_fnomial builds them: distinct roots */
	{
		uint32_t roots[8], j, k;

		for (j = 0; j < 8; j++) {
			CHECK_EQ(nc_tree_order_topo("chain:4x4", 16, j * 16 / 8, order), 0);
			roots[j] = order[0];
			for (k = 0; k < j; k++)
				CHECK(roots[k] != roots[j]);
		}
	}
}

/*
 * Speed-aware trees: 16 hosts on two switches, the even ranks but the
 * root behind links at a tenth of the rate.  The switch order (rank order
 * here) puts them on exactly the binomial tree's inner positions; the
 * aware order keeps the root and puts every slow host on a leaf.
 */
TEST(aware_order_puts_slow_links_on_leaves)
{
	char path[] = "/tmp/nc_test_tree_XXXXXX", text[2048];
	uint32_t order[16], parents[16], r, j;
	size_t n = 0;

	n += (size_t)snprintf(text + n, sizeof(text) - n, "switch s0\nswitch s1\n");
	for (r = 0; r < 16; r++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "host h%u s%u rate %s\n",
				      r + 1, r / 8, r && r % 2 == 0 ? "1gbit" : "10gbit");
	n += (size_t)snprintf(text + n, sizeof(text) - n, "link s0 s1 rate 10gbit\n");
	CHECK_EQ(temp_topology(path, text, n), 0);
	CHECK_EQ(nc_tree_order_topo(path, 16, 0, order), 0);
	CHECK_EQ(nc_tree_fnomial(16, 2, order, parents), 0);
	for (r = 2; r < 16; r += 2)
		CHECK(parents[r + 1] == r);	/* unaware: slow ones are parents */
	CHECK_EQ(nc_tree_order_aware(path, 16, 0, 2, order), 0);
	CHECK(is_perm(order, 16));
	CHECK_EQ(order[0], 0);
	CHECK_EQ(nc_tree_fnomial(16, 2, order, parents), 0);
	for (r = 0; r < 16; r++)
		CHECK(parents[r] == r || parents[r] == 0 || parents[r] % 2);
	/* every tree of a split keeps its root */
	for (j = 0; j < 8; j++) {
		uint32_t plain[16];

		CHECK_EQ(nc_tree_order_topo(path, 16, j * 2, plain), 0);
		CHECK_EQ(nc_tree_order_aware(path, 16, j * 2, 3, order), 0);
		CHECK(is_perm(order, 16));
		CHECK_EQ(order[0], plain[0]);
	}
	CHECK_EQ(nc_tree_order_aware(path, 16, 0, 1, order), -EINVAL);
	unlink(path);
}

/*
 * More than 4096 hosts: no delay matrix (P^2 paths), the switch order;
 * quickly, not after 16 million paths.
 */
TEST(aware_order_bounded)
{
	char path[] = "/tmp/nc_test_tree_XXXXXX";
	uint32_t *plain = malloc(4097 * sizeof(*plain)), *order = malloc(4097 * sizeof(*order));
	FILE *f;
	int fd;
	uint32_t r;

	fd = mkstemp(path);
	CHECK(fd >= 0 && plain && order);
	if (fd < 0 || !plain || !order)
		goto out;
	f = fdopen(fd, "w");
	fprintf(f, "switch s0\n");
	for (r = 0; r < 4097; r++)
		fprintf(f, "host h%u s0 rate %s\n", r + 1, r % 2 ? "1gbit" : "10gbit");
	fclose(f);
	CHECK_EQ(nc_tree_order_topo(path, 4097, 5, plain), 0);
	CHECK_EQ(nc_tree_order_aware(path, 4097, 5, 2, order), 0);
	CHECK(!memcmp(plain, order, 4097 * sizeof(*order)));
	unlink(path);
out:
	free(plain);
	free(order);
}

/* Where every host link runs at one rate the aware order is the switch order. */
TEST(aware_order_on_homogeneous_networks)
{
	static const char *const topos[] = {
		"two-switch-8x2.topo", "chain3x4.topo", "two-level-ft.topo",
		"star:16@1000", "ft:2:4,4@1000", "chain:4x4",
	};
	uint32_t plain[64], order[64], i, f, rot;
	struct nc_topo t;
	char name[600];

	for (i = 0; i < sizeof(topos) / sizeof(topos[0]); i++) {
		const char *topo = topos[i];

		if (strstr(topo, ".topo")) {
			snprintf(name, sizeof(name), "%s", topo_path(topo));
			topo = name;
		}
		CHECK_EQ(load(&t, topo), 0);
		for (f = 2; f <= 4; f++)
			for (rot = 0; rot < t.nhosts; rot += 3) {
				CHECK_EQ(nc_tree_order_topo(topo, t.nhosts, rot, plain), 0);
				CHECK_EQ(nc_tree_order_aware(topo, t.nhosts, rot, f, order), 0);
				CHECK(!memcmp(plain, order, t.nhosts * sizeof(*order)));
			}
		nc_topo_free(&t);
	}
}

/* Figure 8: P = 16, f = 3: 3 phases, 2 of them full, 1 child in the last. */
TEST(model_figure8)
{
	struct nc_model m = { .L = 2.10, .r = 0.42, .c = 0.10, .C = 1.5 };
	double rc = m.r + m.c;

	CHECK(NEAR(nc_model_fnomial(&m, 16, 3),
		   m.C + 3 * m.L + rc * (3 - 1) * 2 + rc * 1));
	/* Figure 5's full tree: 2 phases of 3 children */
	CHECK(NEAR(nc_model_fnomial(&m, 16, 4), m.C + 2 * m.L + rc * 3 * 2));
	/* serial (f >= P): one phase of P - 1 children */
	CHECK(NEAR(nc_model_fnomial(&m, 16, 16), m.C + m.L + rc * 15));
	CHECK(NEAR(nc_model_fnomial(&m, 16, 40), m.C + m.L + rc * 15));
	CHECK(NEAR(nc_model_fnomial(&m, 1, 4), m.C));
	/* 10 = 9 + 1: 3 phases, 2 full, ceil(10/9 - 1) = 1 */
	CHECK(NEAR(nc_model_fnomial(&m, 10, 3), m.C + 3 * m.L + rc * 5));
	/* 20 -> last phase ceil(20/9 - 1) = 2 children */
	CHECK(NEAR(nc_model_fnomial(&m, 20, 3), m.C + 3 * m.L + rc * 6));
	CHECK(isnan(nc_model_fnomial(&m, 16, 1)));
	CHECK(isnan(nc_model_fnomial(&m, 0, 2)));
	CHECK(isnan(nc_model_fnomial(NULL, 16, 2)));
}

/* P = f^k exactly, where a floating log10(1000) = 2.9999999999999996. */
TEST(model_exact_powers)
{
	struct nc_model m = { .L = 1, .r = 0.25, .c = 0.25, .C = 0 };
	uint32_t f, k;
	uint64_t P;

	CHECK(NEAR(nc_model_fnomial(&m, 1000, 10), 3 * m.L + 0.5 * 9 * 3));
	for (f = 2; f <= 64; f++) {
		for (P = f, k = 1; P <= UINT32_MAX; P *= f, k++) {
			CHECK(NEAR(nc_model_fnomial(&m, (uint32_t)P, f),
				   k * (m.L + (f - 1) * 0.5)));
			/* one more member: one more phase of one child */
			if (P + 1 <= UINT32_MAX)
				CHECK(NEAR(nc_model_fnomial(&m, (uint32_t)P + 1, f),
					   (k + 1) * m.L + 0.5 * ((f - 1) * k + 1)));
		}
	}
	/* the largest size: 32 phases of a binomial tree, the last 1 child */
	CHECK(NEAR(nc_model_fnomial(&m, UINT32_MAX, 2), 32 * m.L + 0.5 * 32));
}

/* Appendix B's full-tree model: C + [L + (f - 1)(r + c)] log_f P. */
static double full_tree(const struct nc_model *m, double P, double f)
{
	return m->C + (m->L + (f - 1) * (m->r + m->c)) * log(P) / log(f);
}

TEST(model_best_degree)
{
	struct nc_model m = { .L = 2.10, .r = 0.42, .c = 0, .C = 0 };
	uint32_t f, best = 2, last, P;
	double g5 = 5 * (log(5) - 1), g6 = 6 * (log(6) - 1);
	double c;

	/* f (ln f - 1) = L / (r + c) - 1 = 4 lies between 5 and 6 */
	CHECK(g5 < m.L / m.r - 1 && m.L / m.r - 1 < g6);
	for (f = 3; f <= 16; f++)
		if (full_tree(&m, 4096, f) < full_tree(&m, 4096, best))
			best = f;
	CHECK(best == 5 || best == 6);
	/* where the tree is full for both, the general model agrees */
	CHECK(NEAR(nc_model_fnomial(&m, 625, 5), full_tree(&m, 625, 5)));
	CHECK(NEAR(nc_model_fnomial(&m, 1296, 6), full_tree(&m, 1296, 6)));
	CHECK_EQ(nc_model_best_degree(&m, 1296, 16), 6);
	CHECK_EQ(nc_model_best_degree(&m, 7776, 16), 6);
	f = nc_model_best_degree(&m, 1024, 16);
	CHECK(f >= 4 && f <= 7);
	/* costly computation wants tall trees: never wider as c grows */
	for (P = 16; P <= 4096; P *= 4) {
		last = nc_model_best_degree(&m, P, 16);
		for (c = 0; c <= 10; c += 0.05) {
			m.c = c;
			f = nc_model_best_degree(&m, P, 16);
			CHECK(f <= last);
			last = f;
		}
		CHECK_EQ(last, 2);
		m.c = 0;
	}
	/* latency-bound: as wide as allowed; ties go to the smaller f */
	m = (struct nc_model){ .L = 100, .r = 0.001 };
	CHECK_EQ(nc_model_best_degree(&m, 64, 64), 64);
	CHECK_EQ(nc_model_best_degree(&m, 16, 64), 16);
	/* two phases either way from 8 to 16: then the fewest children */
	CHECK_EQ(nc_model_best_degree(&m, 64, 16), 8);
	CHECK_EQ(nc_model_best_degree(&m, 16, 1), 2);
}

TEST(fit_serial)
{
	static const uint32_t P[] = { 2, 4, 8, 16, 32, 64, 906 };
	double t[7], slope = 0, intercept = 0;
	uint32_t same[3] = { 8, 8, 8 };
	unsigned int i;

	for (i = 0; i < 7; i++)
		t[i] = 3.5 + (P[i] - 1) * 0.52;
	CHECK_EQ(nc_model_fit_serial(P, t, 7, &slope, &intercept), 0);
	CHECK(NEAR(slope, 0.52));
	CHECK(NEAR(intercept, 3.5));
	CHECK_EQ(nc_model_fit_serial(P, t, 2, &slope, &intercept), 0);
	CHECK(NEAR(slope, 0.52));
	CHECK_EQ(nc_model_fit_serial(P, t, 1, &slope, &intercept), -EINVAL);
	CHECK_EQ(nc_model_fit_serial(same, t, 3, &slope, &intercept), -EINVAL);
	CHECK_EQ(nc_model_fit_serial(NULL, t, 3, &slope, &intercept), -EINVAL);
	CHECK_EQ(nc_model_fit_serial(P, t, 3, NULL, &intercept), -EINVAL);
}

TEST(split_for)
{
	size_t bytes;
	uint32_t n;

	CHECK_EQ(nc_split_for(0, 16), 1);
	CHECK_EQ(nc_split_for(16383, 16), 1);
	CHECK_EQ(nc_split_for(16384, 16), 2);
	CHECK_EQ(nc_split_for(24575, 16), 2);
	CHECK_EQ(nc_split_for(24576, 16), 3);
	CHECK_EQ(nc_split_for(32768, 16), 4);
	CHECK_EQ(nc_split_for(1 << 20, 16), 8);
	CHECK_EQ(nc_split_for(1 << 20, 3), 3);
	CHECK_EQ(nc_split_for(1 << 20, 1), 1);
	CHECK_EQ(nc_split_for(1 << 20, 0), 1);
	/* MTU 1500: three frames are less than 8 KiB, nothing changes */
	CHECK_EQ(nc_split_for_mtu(32768, 16, 1500), 4);
	CHECK_EQ(nc_split_for_mtu(16383, 16, 1500), 1);
	/* MTU 9000: pieces of at least 27000 bytes */
	CHECK_EQ(nc_split_for_mtu(53999, 16, 9000), 1);
	CHECK_EQ(nc_split_for_mtu(54000, 16, 9000), 2);
	CHECK_EQ(nc_split_for_mtu(131072, 16, 9000), 4);
	CHECK_EQ(nc_split_for_mtu(1 << 20, 16, 9000), 8);
	for (bytes = 0; bytes < 300000; bytes += 97) {
		n = nc_split_for(bytes, 64);
		CHECK(n >= 1 && n <= 8);
		if (n > 1)
			CHECK(bytes / n >= 8192);
		n = nc_split_for_mtu(bytes, 64, 9000);
		CHECK(n >= 1 && n <= 8);
		if (n > 1)
			CHECK(bytes / n >= 27000);
	}
}

TEST(names_round_trip)
{
	static const char *const ops[] = {
		"sum", "prod", "min", "max", "band", "bor", "bxor", "minloc", "maxloc",
	};
	static const char *const types[] = {
		"int32", "int64", "uint32", "uint64", "float", "double",
	};
	int i;

	CHECK_EQ(sizeof(ops) / sizeof(ops[0]), NC_OP_COUNT);
	CHECK_EQ(sizeof(types) / sizeof(types[0]), NC_DT_COUNT);
	for (i = 0; i < NC_OP_COUNT; i++) {
		CHECK(strcmp(nc_op_name((enum nc_op)i), ops[i]) == 0);
		CHECK_EQ(nc_op_parse(ops[i]), i);
	}
	for (i = 0; i < NC_DT_COUNT; i++) {
		CHECK(strcmp(nc_dtype_name((enum nc_dtype)i), types[i]) == 0);
		CHECK_EQ(nc_dtype_parse(types[i]), i);
	}
	CHECK_EQ(nc_op_parse("add"), -NC_EPARSE);
	CHECK_EQ(nc_op_parse(""), -NC_EPARSE);
	CHECK_EQ(nc_op_parse("SUM"), -NC_EPARSE);
	CHECK_EQ(nc_op_parse(NULL), -NC_EPARSE);
	CHECK_EQ(nc_dtype_parse("int"), -NC_EPARSE);
	CHECK_EQ(nc_dtype_parse(NULL), -NC_EPARSE);
	CHECK(strcmp(nc_op_name(NC_OP_COUNT), "unknown") == 0);
	CHECK(strcmp(nc_dtype_name((enum nc_dtype)-1), "unknown") == 0);
}

TEST(elem_size)
{
	CHECK_EQ(nc_elem_size(NC_OP_MINLOC, NC_DT_DOUBLE), 16);
	CHECK_EQ(nc_elem_size(NC_OP_MAXLOC, NC_DT_INT64), 16);
	CHECK_EQ(nc_elem_size(NC_OP_MINLOC, NC_DT_INT32), 8);
	CHECK_EQ(nc_elem_size(NC_OP_MAXLOC, NC_DT_FLOAT), 8);
	CHECK_EQ(nc_elem_size(NC_OP_BAND, NC_DT_FLOAT), 0);
	CHECK_EQ(nc_elem_size(NC_OP_BXOR, NC_DT_DOUBLE), 0);
	CHECK_EQ(nc_elem_size(NC_OP_BOR, NC_DT_UINT64), 8);
	CHECK_EQ(nc_elem_size(NC_OP_SUM, NC_DT_INT32), 4);
	CHECK_EQ(nc_elem_size(NC_OP_SUM, NC_DT_FLOAT), 4);
	CHECK_EQ(nc_elem_size(NC_OP_PROD, NC_DT_DOUBLE), 8);
	CHECK_EQ(nc_elem_size(NC_OP_COUNT, NC_DT_INT32), 0);
	CHECK_EQ(nc_elem_size(NC_OP_SUM, NC_DT_COUNT), 0);
}

/* What nc_tree_install() refuses before any netlink traffic. */
TEST(tree_checks)
{
	uint32_t p[5] = { 0, 0, 1, 1, 3 };

	CHECK_EQ(nc_check_tree(p, 5), 0);
	CHECK_EQ(nc_check_tree(p, 1), 0);
	p[4] = 5;			/* out of range */
	CHECK_EQ(nc_check_tree(p, 5), -EINVAL);
	p[4] = 4;			/* second root */
	CHECK_EQ(nc_check_tree(p, 5), -EINVAL);
	p[4] = 3;
	p[0] = 2;			/* no root: 0 -> 2 -> 1 -> 0 */
	CHECK_EQ(nc_check_tree(p, 5), -EINVAL);
	p[0] = 0;
	p[2] = 4;			/* cycle 2 -> 4 -> 3 -> 1 ... */
	p[1] = 2;			/* ... -> 2, root 0 alone */
	CHECK_EQ(nc_check_tree(p, 5), -EINVAL);
	CHECK_EQ(nc_check_tree(NULL, 5), -EINVAL);
	CHECK_EQ(nc_check_tree(p, 0), -EINVAL);
	CHECK_EQ(nc_tree_install(NULL, 1, 0, p, 5), -EINVAL);
	CHECK_EQ(nc_tree_remove(NULL, 1, 0), -EINVAL);
	CHECK_EQ(nc_tree_get(NULL, 1, 0, NULL), -EINVAL);
	CHECK_EQ(nc_tree_install_fnomial(NULL, 1, 1, 4, NULL), -EINVAL);
	nc_tree_info_free(NULL);
}

/* The new communicator fields, checked like the old ones. */
TEST(comm_spec_tree_fields)
{
	static const struct nc_member two[2] = {
		{ .addr = { 0x02, 0, 0, 0, 0, 1 }, .addr_len = 6 },
		{ .addr = { 0x02, 0, 0, 0, 0, 2 }, .addr_len = 6 },
	};
	static const uint8_t group[6] = { 0x03, 0x6e, 0x63, 0, 0, 7 };
	struct nc_comm_spec s = {
		.id = 7, .ifname = "eth0", .rank = 1, .size = 2, .members = two,
	};

	CHECK_EQ(nc_check_comm_spec(&s), 0);
	s.oso = 32;
	s.tree_degree = 64;
	s.mcast_addr = group;
	s.mcast_addr_len = 6;
	CHECK_EQ(nc_check_comm_spec(&s), 0);
	s.oso = 33;
	CHECK_EQ(nc_check_comm_spec(&s), -EINVAL);
	s.oso = 1;
	s.tree_degree = 1;
	CHECK_EQ(nc_check_comm_spec(&s), -EINVAL);
	s.tree_degree = 65;
	CHECK_EQ(nc_check_comm_spec(&s), -EINVAL);
	s.tree_degree = 2;
	s.mcast_addr_len = 4;
	CHECK_EQ(nc_check_comm_spec(&s), -EINVAL);
	s.mcast_addr = NULL;		/* the length alone means nothing */
	CHECK_EQ(nc_check_comm_spec(&s), 0);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	RUN(figure5_4nomial_16);
	RUN(binomial_8);
	RUN(trinomial_10);
	RUN(tiny_sizes);
	RUN(appendix_brute_force);
	RUN(order_mapping);
	RUN(fnomial_rejects);
	RUN(fnomial_hosts);
	RUN(topo_order_two_switches);
	RUN(topo_order_files_and_specs);
	RUN(topo_order_rank_order_and_errors);
	RUN(aware_order_puts_slow_links_on_leaves);
	RUN(aware_order_on_homogeneous_networks);
	RUN(aware_order_bounded);
	RUN(model_figure8);
	RUN(model_exact_powers);
	RUN(model_best_degree);
	RUN(fit_serial);
	RUN(split_for);
	RUN(names_round_trip);
	RUN(elem_size);
	RUN(tree_checks);
	RUN(comm_spec_tree_fields);
	return DONE();
}

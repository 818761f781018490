// SPDX-License-Identifier: BSD-2-Clause
/*
 * Unit tests of the broadcast planner (userlib/bcast_plan.c): the send
 * order of an f-nomial tree, the delay matrix, the placements of seed 003
 * (permutations with the root fixed; homogeneous networks keep rank
 * order; slow hosts and far switches kept out of the critical part) and
 * the time model; and the range of sizes nc_bcast_tune gives multicast.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../userlib/bcast_plan.h"
#include "../../userlib/bcast_tune.h"
#include "harness.h"

static int is_permutation(const uint32_t *order, uint32_t P)
{
	uint8_t *seen = calloc(P, 1);
	uint32_t i;
	int ok = seen != NULL;

	for (i = 0; ok && i < P; i++) {
		ok = order[i] < P && !seen[order[i]];
		if (ok)
			seen[order[i]] = 1;
	}
	free(seen);
	return ok;
}

TEST(children_in_send_order)
{
	uint32_t off[10], child[8];

	/* binomial of 8: the root sends to 4 (4 below it), 2, then 1 */
	CHECK_EQ(nc_bcast_children(8, 2, off, child), 0);
	CHECK_EQ(off[1] - off[0], 3);
	CHECK(child[0] == 4 && child[1] == 2 && child[2] == 1);
	CHECK_EQ(off[5] - off[4], 2);		/* 4 -> 6, 5 */
	CHECK(child[off[4]] == 6 && child[off[4] + 1] == 5);
	/* trinomial of 9: 3 and 6 (3 each) before 1 and 2 */
	CHECK_EQ(nc_bcast_children(9, 3, off, child), 0);
	CHECK(child[0] == 3 && child[1] == 6 && child[2] == 1 && child[3] == 2);
	CHECK_EQ(nc_bcast_children(1, 2, off, child), 0);
	CHECK_EQ(off[1], 0);
	CHECK_EQ(nc_bcast_children(0, 2, off, child), -EINVAL);
	CHECK_EQ(nc_bcast_children(4, 1, off, child), -EINVAL);
}

static double *delays(const struct nc_topo *t, double hop, uint64_t bytes)
{
	double *d = malloc((size_t)t->nhosts * t->nhosts * sizeof(*d));

	if (d && nc_bcast_delays(t, hop, bytes, d)) {
		free(d);
		d = NULL;
	}
	return d;
}

TEST(delay_matrix)
{
	struct nc_topo_err err;
	struct nc_topo t;
	double *d;

	/* 2 hops of 1 us, 1000 bytes at 1000 Mbit/s: 8 us */
	CHECK_EQ(nc_topo_gen_spec(&t, "star:4@1000", &err), 0);
	d = delays(&t, 1.0, 1000);
	CHECK(d && d[0] == 0 && d[1] == 10 && d[4 * 2 + 3] == 10);
	free(d);
	nc_topo_free(&t);
	/* chain of 2 switches: 3 hops across, 2 within */
	CHECK_EQ(nc_topo_gen_spec(&t, "chain:2x2", &err), 0);
	d = delays(&t, 5.0, 1000);		/* rates unknown: hops only */
	CHECK(d && d[0 * 4 + 1] == 10 && d[0 * 4 + 2] == 15);
	free(d);
	nc_topo_free(&t);
	/* no unique path (XGFT with w2 = 2): shortest, still 4 hops */
	CHECK_EQ(nc_topo_gen_spec(&t, "xgft:2:2,2:1,2@1000", &err), 0);
	d = delays(&t, 1.0, 0);
	CHECK(d && d[0 * 4 + 1] == 2 && d[0 * 4 + 2] == 4);
	free(d);
	nc_topo_free(&t);
	/* links with a delay count it, the others hop_us */
	CHECK_EQ(nc_topo_parse(&t, "switch s0\nswitch s1\n"
			       "host h1 s0 delay 10us\nhost h2 s0\n"
			       "host h3 s1 delay 20us\nhost h4 s1\n"
			       "link s0 s1 delay 100us\n", &err), 0);
	d = delays(&t, 1.0, 0);
	CHECK(d && d[0 * 4 + 1] == 11 && d[1 * 4 + 0] == 11);
	CHECK(d && d[0 * 4 + 2] == 130 && d[1 * 4 + 3] == 102);
	free(d);
	nc_topo_free(&t);
}

TEST(every_order_is_a_permutation_rooted_at_root)
{
	static const uint32_t sizes[] = { 1, 2, 3, 5, 7, 16, 33 };
	uint32_t i, degree, root, how, a, b, order[33];
	double d[33 * 33];

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint32_t P = sizes[i];

		/* an arbitrary, asymmetric delay matrix */
		for (a = 0; a < P; a++)
			for (b = 0; b < P; b++)
				d[a * P + b] = a == b ? 0 : 1 + (a * 7 + b * 13) % 11;
		for (degree = 2; degree <= 4; degree++)
			for (root = 0; root < P; root++)
				for (how = NC_BCAST_UNAWARE; how <= NC_BCAST_BFT; how++) {
					CHECK_EQ(nc_bcast_order(d, P, root, degree, how, order), 0);
					CHECK_EQ(order[0], root);
					CHECK(is_permutation(order, P));
					CHECK(nc_bcast_predict(d, P, degree, order) >= 0);
				}
	}
	CHECK_EQ(nc_bcast_order(d, 4, 4, 2, NC_BCAST_DFT, order), -EINVAL);
	CHECK_EQ(nc_bcast_order(NULL, 4, 0, 2, NC_BCAST_BFT, order), -EINVAL);
	CHECK_EQ(nc_bcast_order(NULL, 4, 1, 2, NC_BCAST_UNAWARE, order), 0);
	CHECK(order[0] == 1 && order[3] == 0);
}

TEST(model_of_uniform_trees)
{
	uint32_t order[16], i;
	double d[16 * 16];

	for (i = 0; i < 16 * 16; i++)
		d[i] = i % 17 ? 10 : 0;		/* 10 us between any two */
	nc_bcast_order(NULL, 16, 0, 2, NC_BCAST_UNAWARE, order);
	CHECK_EQ(nc_bcast_predict(d, 16, 2, order), 40);	/* log2 16 rounds */
	CHECK_EQ(nc_bcast_predict(d, 16, 16, order), 150);	/* flat: 15 sends */
	CHECK_EQ(nc_bcast_predict(d, 1, 2, order), 0);
}

TEST(message_cost_counts_the_sends_on_the_critical_path)
{
	uint32_t order[16], i;
	double d[16 * 16];

	for (i = 0; i < 16 * 16; i++)
		d[i] = i % 17 ? 10 : 0;
	nc_bcast_order(NULL, 16, 0, 2, NC_BCAST_UNAWARE, order);
	CHECK_EQ(nc_bcast_msg_cost(d, 16, 5), 0);
	CHECK_EQ(d[0], 0);				/* no send to itself */
	CHECK_EQ(d[1], 15);
	CHECK_EQ(nc_bcast_predict(d, 16, 2, order), 4 * 15);
	CHECK_EQ(nc_bcast_predict(d, 16, 16, order), 15 * 15);
	CHECK_EQ(nc_bcast_msg_cost(d, 16, -1), -EINVAL);
	CHECK_EQ(nc_bcast_msg_cost(d, 16, NAN), -EINVAL);
	CHECK_EQ(nc_bcast_msg_cost(NULL, 16, 1), -EINVAL);
	CHECK_EQ(d[1], 15);				/* refused: unchanged */
}

TEST(homogeneous_network_keeps_rank_order)
{
	struct nc_topo_err err;
	struct nc_topo t;
	uint32_t u[16], o[16], how;
	double *d;

	CHECK_EQ(nc_topo_gen_spec(&t, "star:16@1000", &err), 0);
	d = delays(&t, 1.0, 65536);
	CHECK(d != NULL);
	if (!d)
		return;
	nc_bcast_order(d, 16, 5, 2, NC_BCAST_UNAWARE, u);
	for (how = NC_BCAST_DFT; how <= NC_BCAST_BFT; how++) {
		CHECK_EQ(nc_bcast_order(d, 16, 5, 2, how, o), 0);
		CHECK(!memcmp(u, o, sizeof(u)));
	}
	free(d);
	nc_topo_free(&t);
}

/* 16 hosts on two switches; host i (rank i - 1) at fast or 1/10 the rate. */
static int mixed(struct nc_topo *t, int slow_second_half)
{
	char text[2048];
	size_t n = 0;
	int i;

	n += (size_t)snprintf(text + n, sizeof(text) - n, "switch s0\nswitch s1\n");
	for (i = 1; i <= 16; i++) {
		int slow = slow_second_half ? i > 8 : i % 2 == 0;

		n += (size_t)snprintf(text + n, sizeof(text) - n, "host h%d s%d rate %s\n",
				      i, i > 8, slow ? "1gbit" : "10gbit");
	}
	snprintf(text + n, sizeof(text) - n, "link s0 s1 rate 10gbit\n");
	return nc_topo_parse(t, text, NULL);
}

static void predicted(const double *d, uint32_t P, double out[3])
{
	uint32_t order[64], how;

	for (how = NC_BCAST_UNAWARE; how <= NC_BCAST_BFT; how++) {
		nc_bcast_order(d, P, 0, 2, how, order);
		out[how] = nc_bcast_predict(d, P, 2, order);
	}
}

TEST(speed_aware_keeps_slow_hosts_out_of_the_critical_part)
{
	struct nc_topo t;
	double *d, t3[3];

	/* ranks 8..15 slow: rank order makes them inner nodes */
	CHECK_EQ(mixed(&t, 1), 0);
	d = delays(&t, 1.0, 1 << 20);
	CHECK(d != NULL);
	if (!d)
		return;
	predicted(d, 16, t3);
	printf("# slow half: unaware %.0f us, dft %.0f us, bft %.0f us\n",
	       t3[0], t3[1], t3[2]);
	CHECK(t3[NC_BCAST_DFT] <= 0.5 * t3[NC_BCAST_UNAWARE]);
	CHECK(t3[NC_BCAST_BFT] <= 0.5 * t3[NC_BCAST_UNAWARE]);
	free(d);
	nc_topo_free(&t);
	/* every other rank slow: the binomial tree's leaves are the odd
	 * positions, so rank order is already right; aware stays as good */
	CHECK_EQ(mixed(&t, 0), 0);
	d = delays(&t, 1.0, 1 << 20);
	CHECK(d != NULL);
	if (!d)
		return;
	predicted(d, 16, t3);
	CHECK(t3[NC_BCAST_DFT] <= 1.001 * t3[NC_BCAST_UNAWARE]);
	CHECK(t3[NC_BCAST_BFT] <= 1.001 * t3[NC_BCAST_UNAWARE]);
	free(d);
	nc_topo_free(&t);
}

TEST(topology_aware_and_the_best_of_three)
{
	struct nc_topo t;
	char text[1024];
	size_t n = 0;
	double *d, t3[3];
	int i;

	uint32_t order[16];
	enum nc_bcast_order chosen;

	/* 16 hosts on a random tree of 6 switches, 5 us a hop */
	CHECK_EQ(nc_topo_gen_spec(&t, "random:6:16:7", NULL), 0);
	d = delays(&t, 5.0, 8);		/* rates unknown: hops only */
	CHECK(d != NULL);
	if (!d)
		return;
	predicted(d, 16, t3);
	printf("# random tree of 6 switches: unaware %.0f us, dft %.0f us, bft %.0f us\n",
	       t3[0], t3[1], t3[2]);
	CHECK(t3[NC_BCAST_DFT] < t3[NC_BCAST_UNAWARE]);
	CHECK(t3[NC_BCAST_BFT] < t3[NC_BCAST_UNAWARE]);
	CHECK_EQ(nc_bcast_best_order(d, 16, 0, 2, order, &chosen), 0);
	CHECK_EQ(chosen, NC_BCAST_BFT);
	free(d);
	nc_topo_free(&t);

	/* ranks round robin over a chain of 4 switches: the greedy
	 * placements lose to rank order here, and the best is rank order */
	n += (size_t)snprintf(text + n, sizeof(text) - n,
			      "switch s0\nswitch s1\nswitch s2\nswitch s3\n");
	for (i = 1; i <= 16; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "host h%d s%d\n",
				      i, (i - 1) % 4);
	snprintf(text + n, sizeof(text) - n, "link s0 s1\nlink s1 s2\nlink s2 s3\n");
	CHECK_EQ(nc_topo_parse(&t, text, NULL), 0);
	d = delays(&t, 5.0, 8);
	CHECK(d != NULL);
	if (!d)
		return;
	predicted(d, 16, t3);
	printf("# round robin over a chain: unaware %.0f us, dft %.0f us, bft %.0f us\n",
	       t3[0], t3[1], t3[2]);
	CHECK(t3[NC_BCAST_DFT] > t3[NC_BCAST_UNAWARE]);
	CHECK_EQ(nc_bcast_best_order(d, 16, 0, 2, order, &chosen), 0);
	CHECK_EQ(chosen, NC_BCAST_UNAWARE);
	CHECK_EQ(nc_bcast_predict(d, 16, 2, order), t3[NC_BCAST_UNAWARE]);
	free(d);
	nc_topo_free(&t);
}

/*
 * nc_bcast_tune's decision (userlib/bcast_tune.c): the run of sizes where
 * multicast won with the largest summed gain, widened halfway in log
 * scale to its neighbours.
 */
static void tune_set(struct nc_bcast_tune *t, uint32_t n, const size_t *sizes,
		     const double *tree, const double *mcast)
{
	memset(t, 0, sizeof(*t));
	t->nsizes = n;
	memcpy(t->sizes, sizes, n * sizeof(*sizes));
	memcpy(t->tree_us, tree, n * sizeof(*tree));
	memcpy(t->mcast_us, mcast, n * sizeof(*mcast));
}

TEST(bcast_tune_range)
{
	static const size_t s6[] = { 1024, 4096, 16384, 65536, 262144, 1048576 };
	/* docs/bcast-bench.md, 16 hosts: multicast wins up to 64 KiB */
	static const double tree6[] = { 2704, 2969.5, 9565.6, 55423, 291921, 1431171 };
	static const double mc6[] = { 2467.6, 2418.4, 3754.3, 51795.3, 528428, 2691008 };
	static const size_t s3[] = { 1024, 16384, 131072 };
	static const double tree3[] = { 100, 100, 100 };
	static const double mid[] = { 200, 50, 200 };	/* wins in the middle */
	static const double big[] = { 200, 99, 10 };	/* from 16 KiB on */
	static const double none[] = { 100, 200, 300 };	/* a tie is no win */
	static const double two[] = { 90, 200, 10 };	/* two runs: the larger gain */
	struct nc_bcast_tune t;

	tune_set(&t, 6, s6, tree6, mc6);
	nc_bcast_tune_range(&t);
	CHECK_EQ(t.mcast_min, 0);
	CHECK_EQ(t.mcast_max, 131072 + 1);	/* sqrt(64 Ki * 256 Ki) */
	tune_set(&t, 3, s3, tree3, mid);
	nc_bcast_tune_range(&t);
	CHECK_EQ(t.mcast_min, 4096 + 1);	/* sqrt(1 Ki * 16 Ki) */
	CHECK_EQ(t.mcast_max, 46340 + 1);	/* floor(sqrt(16 Ki * 128 Ki)) */
	tune_set(&t, 3, s3, tree3, big);
	nc_bcast_tune_range(&t);
	CHECK_EQ(t.mcast_min, 4096 + 1);
	CHECK_EQ(t.mcast_max, SIZE_MAX);
	tune_set(&t, 3, s3, tree3, none);
	nc_bcast_tune_range(&t);
	CHECK(t.mcast_min >= t.mcast_max);
	tune_set(&t, 3, s3, tree3, two);
	nc_bcast_tune_range(&t);
	CHECK_EQ(t.mcast_min, 46340 + 1);
	CHECK_EQ(t.mcast_max, SIZE_MAX);
}

int main(void)
{
	RUN(children_in_send_order);
	RUN(delay_matrix);
	RUN(every_order_is_a_permutation_rooted_at_root);
	RUN(model_of_uniform_trees);
	RUN(message_cost_counts_the_sends_on_the_critical_path);
	RUN(homogeneous_network_keeps_rank_order);
	RUN(speed_aware_keeps_slow_hosts_out_of_the_critical_part);
	RUN(topology_aware_and_the_best_of_three);
	RUN(bcast_tune_range);
	return DONE();
}

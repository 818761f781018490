// SPDX-License-Identifier: BSD-2-Clause
/*
 * The planner as a program outside the library sees it: only the public
 * headers (netcoll_plan.h), the opaque topology and plan handles and
 * their accessors.  The internals behind them are tested in test_topo,
 * test_sched and test_bcast.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netcoll.h"
#include "netcoll_plan.h"
#include "harness.h"

TEST(topo_accessors)
{
	struct nc_topo_link_info l;
	struct nc_topo_err e;
	nc_topo *t = NULL;
	uint32_t i, host_links = 0;

	CHECK_EQ(nc_topo_create(&t, "ft:2:4,4@1000", &e), 0);
	CHECK(t != NULL);
	if (!t)
		return;
	CHECK_EQ(nc_topo_nhosts(t), 16);
	CHECK_EQ(nc_topo_nswitches(t), 5);
	CHECK_EQ(nc_topo_nlinks(t), 20);
	CHECK_EQ(nc_topo_is_tree(t), 1);
	CHECK_EQ(nc_topo_is_routed(t), 0);
	CHECK(strcmp(nc_topo_host_name(t, 0), "h1") == 0);
	CHECK(strcmp(nc_topo_host_name(t, 15), "h16") == 0);
	CHECK(nc_topo_host_name(t, 16) == NULL);
	CHECK_EQ(nc_topo_host_rank(t, "h16"), 15);
	CHECK_EQ(nc_topo_host_rank(t, "s1_0"), -ENOENT);	/* a switch */
	CHECK_EQ(nc_topo_host_rank(t, "nosuch"), -ENOENT);
	for (i = 0; i < nc_topo_nlinks(t); i++) {
		CHECK_EQ(nc_topo_link_get(t, i, &l), 0);
		CHECK(l.a != NULL && l.b != NULL);
		if (l.a[0] == 'h') {
			host_links++;
			CHECK(l.rate_mbit == 1000);
		}
	}
	CHECK_EQ(host_links, 16);
	CHECK_EQ(nc_topo_link_get(t, 20, &l), -EINVAL);
	CHECK(nc_topo_a2a_bound_ns(t) > 0);
	nc_topo_destroy(t);
}

TEST(topo_host_path)
{
	struct nc_topo_route r;
	nc_topo *t = NULL;

	CHECK_EQ(nc_topo_create(&t, "ft:2:4,4@1000", NULL), 0);
	if (!t)
		return;
	CHECK_EQ(nc_topo_host_path(t, 0, 15, &r), 0);
	CHECK_EQ(r.hops, 4);
	CHECK(strcmp(r.nodes[0], "h1") == 0);
	CHECK(strcmp(r.nodes[2], "s2_0") == 0);
	CHECK(strcmp(r.nodes[4], "h16") == 0);
	CHECK(r.slowest_mbit == 1000);
	CHECK_EQ(nc_topo_host_path(t, 0, 1, &r), 0);
	CHECK_EQ(r.hops, 2);
	CHECK_EQ(nc_topo_host_path(t, 0, 16, &r), -EINVAL);
	nc_topo_destroy(t);
}

TEST(topo_errors)
{
	char path[] = "/tmp/nc_test_plan_XXXXXX";
	struct nc_topo_err e;
	nc_topo *t = (nc_topo *)&t;
	FILE *f;
	int fd;

	CHECK_EQ(nc_topo_create(&t, "nosuch.topo", &e), -ENOENT);
	CHECK(t == NULL);
	CHECK(e.msg[0] != '\0');
	CHECK(nc_topo_create(&t, "star:x", &e) < 0);
	CHECK(t == NULL);
	CHECK_EQ(nc_topo_create(NULL, "star:4", &e), -EINVAL);
	CHECK_EQ(nc_topo_create(&t, NULL, NULL), -EINVAL);
	CHECK_EQ(nc_topo_nhosts(NULL), 0);
	CHECK(nc_topo_host_name(NULL, 0) == NULL);
	nc_topo_destroy(NULL);

	/* a bad line says where */
	fd = mkstemp(path);
	CHECK(fd >= 0);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	CHECK(f != NULL);
	if (f) {
		fputs("switch s0\nhost a s0\nhost a s0\n", f);
		fclose(f);
		CHECK_EQ(nc_topo_create(&t, path, &e), -EINVAL);
		CHECK(t == NULL);
		CHECK_EQ(e.line, 3);
	}
	unlink(path);
}

TEST(plan_accessors)
{
	const uint32_t *src, *dst;
	struct nc_sched_report r;
	struct nc_a2a_slice s;
	nc_a2a_plan *p = NULL;
	nc_topo *t = NULL;
	uint32_t ph, i, n, total = 0, seen[16][16] = { { 0 } }, ok = 1;

	CHECK_EQ(nc_topo_create(&t, "star:16", NULL), 0);
	if (!t)
		return;
	CHECK_EQ(nc_a2a_plan_compute(&p, t, NC_SCHED_AAPC), 0);
	CHECK(p != NULL);
	if (!p) {
		nc_topo_destroy(t);
		return;
	}
	CHECK_EQ(nc_a2a_plan_nranks(p), 16);
	CHECK_EQ(nc_a2a_plan_nphases(p), 15);
	for (ph = 0; ph < nc_a2a_plan_nphases(p); ph++) {
		n = nc_a2a_plan_phase(p, ph, &src, &dst);
		for (i = 0; i < n; i++) {
			if (i && src[i] <= src[i - 1])
				ok = 0;		/* by ascending sender */
			seen[src[i]][dst[i]]++;
		}
		total += n;
	}
	CHECK(ok);
	CHECK_EQ(total, 16 * 15);
	for (i = 0; i < 16 * 16; i++)
		if (seen[i / 16][i % 16] != (i / 16 != i % 16))
			ok = 0;
	CHECK(ok);
	CHECK_EQ(nc_a2a_plan_phase(p, 15, &src, &dst), 0);
	CHECK(src == NULL && dst == NULL);
	CHECK_EQ(nc_sched_verify(t, p, 1, &r), 0);
	CHECK(r.ok);
	CHECK_EQ(r.nphases, 15);
	CHECK_EQ(r.pairs_missing, 0);
	CHECK_EQ(nc_a2a_slice(p, 16, &s), -EINVAL);
	CHECK_EQ(nc_a2a_slice(p, 3, &s), 0);
	CHECK_EQ(s.rank, 3);
	CHECK_EQ(s.nphases, 15);
	nc_a2a_slice_free(&s);
	nc_a2a_plan_destroy(p);
	nc_topo_destroy(t);
}

TEST(plan_errors)
{
	nc_a2a_plan *p = (nc_a2a_plan *)&p;
	nc_topo *t = NULL;

	CHECK_EQ(nc_topo_create(&t, "star:5", NULL), 0);
	if (!t)
		return;
	CHECK_EQ(nc_a2a_plan_compute(&p, t, NC_SCHED_FT_XOR), -EINVAL);
	CHECK(p == NULL);
	CHECK(strstr(nc_sched_why(t, NC_SCHED_FT_XOR, -EINVAL), "power-of-two") != NULL);
	CHECK_EQ(nc_a2a_plan_compute(&p, NULL, NC_SCHED_AAPC), -EINVAL);
	CHECK_EQ(nc_a2a_plan_compute(NULL, t, NC_SCHED_AAPC), -EINVAL);
	CHECK_EQ(nc_a2a_plan_nphases(NULL), 0);
	CHECK_EQ(nc_a2a_plan_nranks(NULL), 0);
	nc_a2a_plan_destroy(NULL);
	nc_topo_destroy(t);
}

/* Broadcast orders through the handle: a homogeneous star is rank order. */
TEST(bcast_orders)
{
	uint32_t order[8], i, ok = 1;
	enum nc_bcast_order chosen = NC_BCAST_DFT;
	double delay[64];
	nc_topo *t = NULL;

	CHECK_EQ(nc_topo_create(&t, "star:8@1000", NULL), 0);
	if (!t)
		return;
	CHECK_EQ(nc_bcast_delays(t, 1.0, 65536, delay), 0);
	CHECK(delay[0 * 8 + 1] > 0);
	CHECK_EQ(nc_bcast_order(delay, 8, 2, 2, NC_BCAST_UNAWARE, order), 0);
	for (i = 0; i < 8; i++)
		if (order[i] != (2 + i) % 8)
			ok = 0;
	CHECK(ok);
	CHECK(nc_bcast_predict(delay, 8, 2, order) > 0);
	CHECK_EQ(nc_bcast_best_order(delay, 8, 2, 2, order, &chosen), 0);
	CHECK_EQ(chosen, NC_BCAST_UNAWARE);
	nc_topo_destroy(t);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	RUN(topo_accessors);
	RUN(topo_host_path);
	RUN(topo_errors);
	RUN(plan_accessors);
	RUN(plan_errors);
	RUN(bcast_orders);
	return DONE();
}

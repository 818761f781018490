// SPDX-License-Identifier: BSD-2-Clause
/*
 * nctl sched: alltoall schedules.  `show` computes and verifies a schedule
 * for a topology without touching the kernel; `install` puts this host's
 * slice on a communicator; `del` goes back to the linear order.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nctl.h"
#include "sched.h"

static int usage(void)
{
	printf("Usage: nctl sched show topo { FILE | SPEC } [ kind KIND ] [ phases ] [ rank R ]\n"
	       "       nctl sched install id ID topo { FILE | SPEC } [ kind KIND ]\n"
	       "       nctl sched del id ID\n"
	       "KIND := { aapc | opt | xor | lin }   (default aapc; the others need a fat tree)\n"
	       "SPEC := { star:N | chain:SxH | random:S:H:SEED | ft:L:M1,..,ML | xgft:h:m1,..:w1,.. }\n"
	       "\n"
	       "aapc is Faraj & Yuan's contention-free schedule with pairwise\n"
	       "synchronisation, for any switch tree; opt is Prisacari et al.'s\n"
	       "bandwidth-optimal fat-tree exchange; xor and lin are its baselines.\n"
	       "Rank r is the r-th host of the topology.\n");
	return NCTL_OK;
}

static const struct {
	const char *name;
	enum nc_sched_kind kind;
} kinds[] = {
	{ "aapc", NC_SCHED_AAPC },
	{ "opt", NC_SCHED_FT_OPT },
	{ "xor", NC_SCHED_FT_XOR },
	{ "lin", NC_SCHED_FT_LIN },
};

static int parse_kind(const char *text, enum nc_sched_kind *kind)
{
	size_t i;

	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (strcmp(text, kinds[i].name) == 0) {
			*kind = kinds[i].kind;
			return 0;
		}
	}
	return nctl_usage("unknown schedule kind \"%s\"", text);
}

static int load_topo(struct nc_topo *t, const char *topology)
{
	struct nc_topo_err e = { 0 };
	int err;

	err = nc_topo_open(t, topology, &e);
	if (!err)
		return 0;
	if (e.line)
		return nctl_fail("%s:%u: %s", topology, e.line, e.msg);
	return nctl_fail("%s: %s", topology, e.msg[0] ? e.msg : "cannot read");
}

static void print_report(const struct nc_topo *t, const struct nc_sched_report *r,
			 double ms)
{
	double bound = nc_topo_a2a_bound_ns(t);
	uint32_t l;

	if (nctl_json) {
		printf("{\"hosts\":%u,\"phases\":%u,\"ok\":%s,", t->nhosts, r->nphases,
		       r->ok ? "true" : "false");
		json_key("why");
		json_string(r->why);
		printf(",\"pairs_missing\":%u,\"pairs_repeated\":%u,"
		       "\"bottleneck_load\":%u,\"max_edge_load\":%u,"
		       "\"contended_phases\":%u,\"syncs\":%u,\"syncs_unpruned\":%u,"
		       "\"compute_ms\":%.3f,\"bound_ns_per_byte\":%.3f,\"levels\":[",
		       r->pairs_missing, r->pairs_repeated, r->bottleneck_load,
		       r->max_edge_load, r->contended_phases, r->nsyncs,
		       r->nsyncs_unpruned, ms, bound);
		for (l = 1; l < r->ft_levels; l++)
			printf("%s{\"level\":%u,\"max\":%u,\"bmin\":%u}", l > 1 ? "," : "",
			       l, r->level_max[l], r->level_bmin[l]);
		puts("]}");
		return;
	}
	printf("hosts %u phases %u computed in %.3f ms\n", t->nhosts, r->nphases, ms);
	printf("verifier: %s%s%s\n", r->ok ? "ok" : "FAILED", r->why[0] ? ": " : "",
	       r->why);
	printf("  pairs missing %u repeated %u\n", r->pairs_missing, r->pairs_repeated);
	if (t->is_tree)
		printf("  bottleneck load %u, max edge load per phase %u, contended phases %u\n",
		       r->bottleneck_load, r->max_edge_load, r->contended_phases);
	for (l = 1; l < r->ft_levels; l++)
		printf("  level %u: max %u messages per subtree and phase, B_min %u%s\n",
		       l, r->level_max[l], r->level_bmin[l],
		       r->level_max[l] > r->level_bmin[l] ? "  (above the bound)" : "");
	printf("  syncs %u (%u before removing redundant ones)\n", r->nsyncs,
	       r->nsyncs_unpruned);
	if (bound > 0)
		printf("  physical bound: %.1f us per KiB of message size\n",
		       bound * 1024 / 1e3);
}

static void print_phases(const struct nc_a2a_plan *p)
{
	uint32_t ph, m;

	for (ph = 0; ph < p->nphases; ph++) {
		printf("phase %u:", ph);
		for (m = p->first[ph]; m < p->first[ph + 1]; m++)
			printf(" %u->%u", p->src[m], p->dst[m]);
		putchar('\n');
	}
}

static int print_slice(const struct nc_a2a_plan *p, uint32_t rank)
{
	struct nc_a2a_slice s = { 0 };
	uint32_t i, j;

	if (rank >= p->nranks || nc_a2a_slice(p, rank, &s))
		return nctl_fail("rank %u: no such rank in the plan", rank);
	for (i = 0; i < s.nphases; i++) {
		const struct nc_slice_phase *ph = &s.phase[i];

		if (ph->send_to == NC_TOPO_NONE && ph->recv_from == NC_TOPO_NONE)
			continue;
		printf("phase %u:", i);
		if (ph->nsync_in) {
			printf(" wait");
			for (j = 0; j < ph->nsync_in; j++)
				printf(" %u", s.sync_in[ph->sync_in_first + j]);
			printf(";");
		}
		if (ph->send_to != NC_TOPO_NONE)
			printf(" send %u", ph->send_to);
		if (ph->recv_from != NC_TOPO_NONE)
			printf(" recv %u", ph->recv_from);
		for (j = 0; j < ph->nsync_out; j++)
			printf("%s %u@%u", j ? "," : "; then token", s.sync_out[ph->sync_out_first + j].rank,
			       s.sync_out[ph->sync_out_first + j].phase);
		putchar('\n');
	}
	nc_a2a_slice_free(&s);
	return NCTL_OK;
}

static int do_show(int argc, char **argv)
{
	enum nc_sched_kind kind = NC_SCHED_AAPC;
	const char *topology = NULL;
	struct nc_a2a_plan p = { 0 };
	struct nc_sched_report r;
	int phases = 0, ret = NCTL_OK, err;
	uint32_t rank = UINT32_MAX;
	struct timespec a, b;
	struct nc_topo t;

	for (; argc > 0; argc--, argv++) {
		if (matches(argv[0], "topo")) {
			if (nctl_next(&argc, &argv, "topo"))
				return NCTL_USAGE;
			topology = argv[0];
		} else if (matches(argv[0], "kind")) {
			if (nctl_next(&argc, &argv, "kind") || parse_kind(argv[0], &kind))
				return NCTL_USAGE;
		} else if (matches(argv[0], "phases")) {
			phases = 1;
		} else if (matches(argv[0], "rank")) {
			if (nctl_next(&argc, &argv, "rank") || nctl_u32(argv[0], "rank", &rank))
				return NCTL_USAGE;
		} else {
			return nctl_usage("unexpected argument \"%s\"", argv[0]);
		}
	}
	if (!topology)
		return nctl_usage("sched show needs topo FILE|SPEC");
	if (load_topo(&t, topology))
		return NCTL_ERR;
	clock_gettime(CLOCK_MONOTONIC, &a);
	err = nc_sched_compute(&t, kind, &p);
	if (err) {
		ret = nctl_fail("%s: %s", topology, nc_sched_why(&t, kind, err));
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (nc_sched_verify(&t, &p, kind == NC_SCHED_AAPC || kind == NC_SCHED_FT_OPT, &r)) {
		ret = nctl_fail("%s: verifier could not run", topology);
		goto out;
	}
	print_report(&t, &r, (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6);
	if (phases && !nctl_json)
		print_phases(&p);
	if (rank != UINT32_MAX && !nctl_json)
		ret = print_slice(&p, rank);
	if (!r.ok)
		ret = NCTL_ERR;
out:
	nc_a2a_plan_free(&p);
	nc_topo_free(&t);
	return ret;
}

static int do_install(int argc, char **argv, int del)
{
	enum nc_sched_kind kind = NC_SCHED_AAPC;
	const char *topology = NULL;
	uint32_t id = 0;
	int have_id = 0, err;
	nc_ctl *ctl;

	for (; argc > 0; argc--, argv++) {
		if (matches(argv[0], "id")) {
			if (nctl_next(&argc, &argv, "id") || nctl_u32(argv[0], "id", &id))
				return NCTL_USAGE;
			have_id = 1;
		} else if (!del && matches(argv[0], "topo")) {
			if (nctl_next(&argc, &argv, "topo"))
				return NCTL_USAGE;
			topology = argv[0];
		} else if (!del && matches(argv[0], "kind")) {
			if (nctl_next(&argc, &argv, "kind") || parse_kind(argv[0], &kind))
				return NCTL_USAGE;
		} else {
			return nctl_usage("unexpected argument \"%s\"", argv[0]);
		}
	}
	if (!have_id || (!del && !topology))
		return nctl_usage(del ? "sched del needs id ID" :
				  "sched install needs id ID and topo FILE|SPEC");
	if (nctl_open(&ctl))
		return NCTL_ERR;
	err = del ? nc_sched_remove(ctl, id) : nc_sched_install(ctl, id, topology, kind);
	if (err)
		nctl_lib_fail(ctl, err, "%s schedule of communicator %u",
			      del ? "cannot delete the" : "cannot install the", id);
	nc_ctl_close(ctl);
	return err ? NCTL_ERR : NCTL_OK;
}

int do_sched(int argc, char **argv)
{
	if (argc == 0 || matches(argv[0], "help"))
		return usage();
	if (matches(argv[0], "show"))
		return do_show(argc - 1, argv + 1);
	if (matches(argv[0], "install"))
		return do_install(argc - 1, argv + 1, 0);
	if (matches(argv[0], "delete"))
		return do_install(argc - 1, argv + 1, 1);
	return nctl_usage("command \"%s\" of sched is unknown", argv[0]);
}

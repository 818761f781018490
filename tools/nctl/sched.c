// SPDX-License-Identifier: BSD-2-Clause
/*
 * nctl sched: alltoall schedules.  `show` computes and verifies a schedule
 * for a topology without touching the kernel; `install` puts this host's
 * slice on a communicator; `del` goes back to the default (ring) order.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nctl.h"

enum { S_TOPO, S_KIND, S_PHASES, S_RANK };

static const struct opt show_opts[] = {
	[S_TOPO] = { "topology", OPT_VAL | OPT_REQ, "{ FILE | SPEC }" },
	[S_KIND] = { "kind", OPT_VAL, "KIND" },
	[S_PHASES] = { "phases", 0, NULL },
	[S_RANK] = { "rank", OPT_VAL, "R" },
	{ NULL }
};

enum { I_ID, I_TOPO, I_KIND };

static const struct opt install_opts[] = {
	[I_ID] = { "id", OPT_VAL | OPT_REQ, "ID" },
	[I_TOPO] = { "topology", OPT_VAL | OPT_REQ, "{ FILE | SPEC }" },
	[I_KIND] = { "kind", OPT_VAL, "KIND" },
	{ NULL }
};

static const struct opt del_opts[] = {
	{ "id", OPT_VAL | OPT_REQ, "ID" },
	{ NULL }
};

static int sched_show(int argc, char **argv);
static int sched_install(int argc, char **argv);
static int sched_del(int argc, char **argv);
static int usage(int argc, char **argv);

static const struct cmd cmds[] = {
	{ "show",	sched_show,	show_opts, NULL },
	{ "install",	sched_install,	install_opts, NULL },
	{ "del",	sched_del,	del_opts, NULL },
	{ "delete",	sched_del,	NULL, NULL },
	{ "help",	usage,		NULL, NULL },
	{ NULL }
};

static int usage(int argc, char **argv)
{
	(void)argc;	/* help takes no further words */
	(void)argv;
	cmd_usage(stdout, "sched", cmds);
	printf("KIND := { aapc | opt | xor | lin }   (default aapc; the others need a fat tree)\n"
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

static int load_topo(nc_topo **t, const char *topology)
{
	struct nc_topo_err e = { 0 };
	int err;

	err = nc_topo_create(t, topology, &e);
	if (!err)
		return 0;
	if (e.line)
		return nctl_fail("%s:%u: %s", topology, e.line, e.msg);
	return nctl_fail("%s: %s", topology, e.msg[0] ? e.msg : "cannot read");
}

static void print_report(const nc_topo *t, const struct nc_sched_report *r,
			 double ms)
{
	enum output_type tree = nc_topo_is_tree(t) ? PRINT_ANY : PRINT_JSON;
	double bound = nc_topo_a2a_bound_ns(t);
	uint32_t l;

	open_json_object(NULL);
	print_uint(PRINT_ANY, "hosts", "hosts %u", nc_topo_nhosts(t));
	print_uint(PRINT_ANY, "phases", " phases %u", r->nphases);
	print_float(PRINT_ANY, "compute_ms", " computed in %.3f ms\n", ms);
	print_bool(PRINT_JSON, "ok", NULL, r->ok);
	print_text("verifier: %s", r->ok ? "ok" : "FAILED");
	print_string(PRINT_JSON, "why", NULL, r->why);
	if (r->why[0])
		print_text(": %s", r->why);
	print_nl();
	print_uint(PRINT_ANY, "pairs_missing", "  pairs missing %u", r->pairs_missing);
	print_uint(PRINT_ANY, "pairs_repeated", " repeated %u\n", r->pairs_repeated);
	print_uint(tree, "bottleneck_load", "  bottleneck load %u", r->bottleneck_load);
	print_uint(tree, "max_edge_load", ", max edge load per phase %u",
		   r->max_edge_load);
	print_uint(tree, "contended_phases", ", contended phases %u\n",
		   r->contended_phases);
	open_json_array("levels");
	for (l = 1; l < r->ft_levels; l++) {
		open_json_object(NULL);
		print_uint(PRINT_ANY, "level", "  level %u", l);
		print_uint(PRINT_ANY, "max", ": max %u messages per subtree and phase",
			   r->level_max[l]);
		print_uint(PRINT_ANY, "bmin", ", B_min %u", r->level_bmin[l]);
		if (r->level_max[l] > r->level_bmin[l])
			print_text("  (above the bound)");
		print_nl();
		close_json_object();
	}
	close_json_array();
	print_uint(PRINT_ANY, "syncs", "  syncs %u", r->nsyncs);
	print_uint(PRINT_ANY, "syncs_unpruned", " (%u before removing redundant ones)\n",
		   r->nsyncs_unpruned);
	print_float(PRINT_JSON, "bound_ns_per_byte", "%.3f", bound);
	if (bound > 0)
		print_text("  physical bound: %.1f us per KiB of message size\n",
			   bound * 1024 / 1e3);
	close_json_object();
}

static void print_phases(const nc_a2a_plan *p)
{
	const uint32_t *src, *dst;
	uint32_t ph, m, n;

	for (ph = 0; ph < nc_a2a_plan_nphases(p); ph++) {
		print_text("phase %u:", ph);
		n = nc_a2a_plan_phase(p, ph, &src, &dst);
		for (m = 0; m < n; m++)
			print_text(" %u->%u", src[m], dst[m]);
		print_nl();
	}
}

static int print_slice(const nc_a2a_plan *p, uint32_t rank)
{
	struct nc_a2a_slice s = { 0 };
	uint32_t i, j;

	if (rank >= nc_a2a_plan_nranks(p) || nc_a2a_slice(p, rank, &s))
		return nctl_fail("rank %u: no such rank in the plan", rank);
	for (i = 0; i < s.nphases; i++) {
		const struct nc_slice_phase *ph = &s.phase[i];

		if (ph->send_to == NC_TOPO_NONE && ph->recv_from == NC_TOPO_NONE)
			continue;
		print_text("phase %u:", i);
		if (ph->nsync_in) {
			print_text(" wait");
			for (j = 0; j < ph->nsync_in; j++)
				print_text(" %u", s.sync_in[ph->sync_in_first + j]);
			print_text(";");
		}
		if (ph->send_to != NC_TOPO_NONE)
			print_text(" send %u", ph->send_to);
		if (ph->recv_from != NC_TOPO_NONE)
			print_text(" recv %u", ph->recv_from);
		for (j = 0; j < ph->nsync_out; j++)
			print_text("%s %u@%u", j ? "," : "; then token",
				   s.sync_out[ph->sync_out_first + j].rank,
				   s.sync_out[ph->sync_out_first + j].phase);
		print_nl();
	}
	nc_a2a_slice_free(&s);
	return NCTL_OK;
}

static int sched_show(int argc, char **argv)
{
	struct optv v[ARRAY_SIZE(show_opts)];
	enum nc_sched_kind kind = NC_SCHED_AAPC;
	const char *topology;
	nc_a2a_plan *p = NULL;
	struct nc_sched_report r;
	int ret = NCTL_OK, err;
	uint32_t rank = UINT32_MAX;
	struct timespec a, b;
	nc_topo *t;

	ret = opt_parse(show_opts, v, argc, argv);
	if (ret)
		return ret;
	topology = v[S_TOPO].val;
	if ((v[S_KIND].val && parse_kind(v[S_KIND].val, &kind)) ||
	    (v[S_RANK].val && nctl_u32(v[S_RANK].val, "rank", &rank)))
		return NCTL_USAGE;
	if (load_topo(&t, topology))
		return NCTL_ERR;
	clock_gettime(CLOCK_MONOTONIC, &a);
	err = nc_a2a_plan_compute(&p, t, kind);
	if (err) {
		ret = nctl_fail("%s: %s", topology, nc_sched_why(t, kind, err));
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (nc_sched_verify(t, p, kind == NC_SCHED_AAPC || kind == NC_SCHED_FT_OPT, &r)) {
		ret = nctl_fail("%s: verifier could not run", topology);
		goto out;
	}
	print_report(t, &r, (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6);
	/* the phases and a rank's slice are text only */
	if (v[S_PHASES].val && !is_json_context())
		print_phases(p);
	if (v[S_RANK].val && !is_json_context())
		ret = print_slice(p, rank);
	if (!r.ok)
		ret = NCTL_ERR;
out:
	nc_a2a_plan_destroy(p);
	nc_topo_destroy(t);
	return ret;
}

/* install, or del without topo and kind. */
static int sched_change(const struct optv *v, int del)
{
	enum nc_sched_kind kind = NC_SCHED_AAPC;
	uint32_t id;
	nc_ctl *ctl;
	int err;

	if (nctl_u32(v[I_ID].val, "id", &id) ||
	    (!del && v[I_KIND].val && parse_kind(v[I_KIND].val, &kind)))
		return NCTL_USAGE;
	if (nctl_open(&ctl))
		return NCTL_ERR;
	err = del ? nc_sched_remove(ctl, id) :
		    nc_sched_install(ctl, id, v[I_TOPO].val, kind);
	if (err)
		nctl_lib_fail(ctl, err, "%s schedule of communicator %u",
			      del ? "cannot delete the" : "cannot install the", id);
	nc_ctl_close(ctl);
	return err ? NCTL_ERR : NCTL_OK;
}

static int sched_install(int argc, char **argv)
{
	struct optv v[ARRAY_SIZE(install_opts)];
	int ret = opt_parse(install_opts, v, argc, argv);

	return ret ? ret : sched_change(v, 0);
}

static int sched_del(int argc, char **argv)
{
	struct optv v[ARRAY_SIZE(install_opts)];
	int ret = opt_parse(del_opts, v, argc, argv);

	/* del_opts is install_opts' first entry, I_ID */
	return ret ? ret : sched_change(v, 1);
}

int do_sched(int argc, char **argv)
{
	return run_cmd("sched", cmds, argc, argv, "help");
}

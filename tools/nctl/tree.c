// SPDX-License-Identifier: BSD-2-Clause
/*
 * nctl tree: the aggregation trees of reductions.  `show` and `del` ask
 * the kernel; `install` builds f-nomial trees (degree given, or the best
 * one of the latency model) and installs them; `model` and `plan` compute
 * offline, without the module, what `install` would choose and build.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/netcoll.h>

#include "nctl.h"

#define FMAX_DEFAULT	16
#define PLAN_SIZE_MAX	(1U << 20)

/*
 * "comm ID" (or "id ID") and "index N": show and del; "bcast" [root R]:
 * the broadcasts' order instead.
 */
enum { C_COMM, C_ID, C_INDEX, C_BCAST, C_ROOT, C_RANK };

static const struct opt comm_opts[] = {
	[C_COMM] = { "comm", OPT_VAL | OPT_REQ, "ID" },
	[C_ID] = { "id", OPT_ALIAS, NULL },
	[C_INDEX] = { "index", OPT_VAL, "N" },
	[C_BCAST] = { "bcast", 0, NULL },
	[C_ROOT] = { "root", OPT_VAL, "RANK" },
	/* which of this host's ranks of the communicator (if it has several) */
	[C_RANK] = { "rank", OPT_VAL, "RANK" },
	{ NULL }
};

enum { I_COMM, I_ID, I_DEGREE, I_MODEL, I_FMAX, I_TREES, I_TOPOLOGY, I_RANK };

static const struct opt install_opts[] = {
	[I_COMM] = { "comm", OPT_VAL | OPT_REQ, "ID" },
	[I_ID] = { "id", OPT_ALIAS, NULL },
	[I_DEGREE] = { "degree", OPT_VAL, "F" },
	[I_MODEL] = { "model", OPT_COUNT(3, 4), "L R C [ CONST ]" },
	[I_FMAX] = { "fmax", OPT_VAL, "F" },
	[I_TREES] = { "trees", OPT_VAL, "N" },
	[I_TOPOLOGY] = { "topology", OPT_VAL, "{ FILE | SPEC }" },
	[I_RANK] = { "rank", OPT_VAL, "RANK" },
	{ NULL }
};

/* L R C [CONST] need no keyword; they are the numbers among the words. */
enum { M_SIZE, M_COSTS, M_FMAX };

static const struct opt model_opts[] = {
	[M_SIZE] = { "size", OPT_VAL | OPT_REQ, "P" },
	[M_COSTS] = { "L R C", OPT_COUNT(3, 4) | OPT_POS | OPT_NOKEY | OPT_REQ,
		      "L R C [ CONST ]" },
	[M_FMAX] = { "fmax", OPT_VAL, "F" },
	{ NULL }
};

enum { P_SIZE, P_DEGREE, P_TREES, P_TOPOLOGY };

static const struct opt plan_opts[] = {
	[P_SIZE] = { "size", OPT_VAL, "P" },
	[P_DEGREE] = { "degree", OPT_VAL | OPT_REQ, "F" },
	[P_TREES] = { "trees", OPT_VAL, "N" },
	[P_TOPOLOGY] = { "topology", OPT_VAL, "{ FILE | SPEC }" },
	{ NULL }
};

enum { B_TOPOLOGY, B_SERVICE, B_HOSTS, B_DEGREE, B_ROOT, B_SIZE, B_HOP,
       B_MSG, B_INSTALL, B_ORDER };

static const struct opt bcast_opts[] = {
	[B_TOPOLOGY] = { "topology", OPT_VAL, "TOPOLOGY" },
	[B_SERVICE] = { "service", OPT_VAL, "ADDR" },
	[B_HOSTS] = { "hosts", OPT_VAL, "HOST,HOST..." },
	[B_DEGREE] = { "degree", OPT_VAL, "F" },
	[B_ROOT] = { "root", OPT_VAL, "RANK" },
	[B_SIZE] = { "size", OPT_VAL, "BYTES" },
	[B_HOP] = { "hop-us", OPT_VAL, "US" },
	[B_MSG] = { "msg-us", OPT_VAL, "US" },
	[B_INSTALL] = { "install", OPT_VAL, "COMM" },
	[B_ORDER] = { "order", OPT_VAL, "{ unaware | dft | bft | best }" },
	{ NULL }
};

static int tree_show(int argc, char **argv);
static int tree_bcast(int argc, char **argv);
static int tree_install(int argc, char **argv);
static int tree_del(int argc, char **argv);
static int tree_model(int argc, char **argv);
static int tree_plan(int argc, char **argv);
static int usage(int argc, char **argv);

static const struct cmd cmds[] = {
	{ "show",	tree_show,	comm_opts, NULL },
	{ "list",	tree_show,	NULL, NULL },
	{ "install",	tree_install,	NULL,
	  "install comm ID [ degree F | model L R C [ CONST ] [ fmax F ] ]\n"
	  "                         [ trees N ] [ topology { FILE | SPEC } ] [ rank RANK ]" },
	{ "del",	tree_del,	comm_opts, NULL },
	{ "delete",	tree_del,	NULL, NULL },
	{ "model",	tree_model,	model_opts, NULL },
	{ "plan",	tree_plan,	NULL,
	  "plan { size P | topology { FILE | SPEC } } degree F [ trees N ]" },
	{ "bcast",	tree_bcast,	bcast_opts, NULL },
	{ "help",	usage,		NULL, NULL },
	{ NULL }
};

static int usage(int argc, char **argv)
{
	(void)argc;	/* help takes no further words */
	(void)argv;
	cmd_usage(stdout, "tree", cmds);
	printf("SPEC := { star:N | chain:SxH | random:S:H:SEED | ft:L:M1,..,ML | xgft:h:m1,..:w1,.. }\n"
	       "\n"
	       "Reductions run on f-nomial trees (Yu et al., SC'03).  L is the message\n"
	       "latency, R the reception cost, C the reduction cost of one message and\n"
	       "CONST the start-up cost, all in microseconds; the model's degree is the\n"
	       "F in 2..fmax (default %u) of least T(P, F).  Tree j of N is rotated by\n"
	       "j * P / N positions, so the pieces of a split vector have different\n"
	       "roots.  With a topology, rank r is its r-th host and subtrees stay\n"
	       "under one switch.  Without an index, show and del act on every tree.\n"
	       "\n"
	       "bcast ... install COMM puts the order (default: best) into communicator\n"
	       "COMM: its broadcasts from root R run on the f-nomial tree over R, then\n"
	       "that order without R.  show/del comm ID bcast [ root R ]: that order.\n",
	       FMAX_DEFAULT);
	return NCTL_OK;
}

/* A finite number >= 0, such as a cost in microseconds. */
static int parse_us(const char *text, const char *what, double *v)
{
	char *end;
	double x;

	errno = 0;
	x = strtod(text, &end);
	if (errno || end == text || *end || !isfinite(x) || x < 0)
		return nctl_usage("invalid %s \"%s\" (want microseconds, >= 0)",
				  what, text);
	*v = x;
	return 0;
}

/* L R C [CONST] of the latency model, in microseconds. */
static int parse_model(const struct optv *v, struct nc_model *m)
{
	static const char *const what[] = { "L", "R", "C", "CONST" };
	double *x[] = { &m->L, &m->r, &m->c, &m->C };
	unsigned int i;

	for (i = 0; i < v->n; i++)
		if (parse_us(v->vals[i], what[i], x[i]))
			return NCTL_USAGE;
	return 0;
}

static int parse_degree(const char *text, uint32_t *f)
{
	if (nctl_u32(text, "degree", f))
		return NCTL_USAGE;
	return *f < 2 ? nctl_usage("degree must be at least 2") : 0;
}

static int parse_trees(const char *text, uint32_t *n)
{
	if (nctl_u32(text, "trees", n))
		return NCTL_USAGE;
	return *n < 1 || *n > NC_TREES_MAX ?
		nctl_usage("trees must be 1..%u", NC_TREES_MAX) : 0;
}

static int parse_index(const char *text, uint32_t *index)
{
	if (nctl_u32(text, "index", index))
		return NCTL_USAGE;
	return *index >= NC_TREES_MAX ?
		nctl_usage("index must be 0..%u", NC_TREES_MAX - 1) : 0;
}

/* floor(log_f P) and f^floor: the model's full phases, as in the library. */
static uint32_t full_phases(uint32_t P, uint32_t f, uint64_t *pw)
{
	uint32_t k = 0;

	for (*pw = 1; *pw * f <= P; *pw *= f)
		k++;
	return k;
}

/* ---------------------------------------------------------------- */
/* show, del: the kernel's trees                                     */
/* ---------------------------------------------------------------- */

/*
 * The communicator and index; index UINT32_MAX: every tree.  *root
 * UINT32_MAX: not the broadcasts' order ("bcast"), else the root asked
 * about (default 0).  *rank: NC_RANK_NONE, or which of this host's ranks.
 */
static int parse_comm_index(int argc, char **argv, uint32_t *id, uint32_t *index,
			    uint32_t *root, uint32_t *rank)
{
	struct optv v[ARRAY_SIZE(comm_opts)];
	int ret = opt_parse(comm_opts, v, argc, argv);

	*index = UINT32_MAX;
	*root = UINT32_MAX;
	*rank = NC_RANK_NONE;
	if (ret)
		return ret;
	if (nctl_u32(v[C_COMM].val, "communicator id", id) ||
	    (v[C_INDEX].val && parse_index(v[C_INDEX].val, index)) ||
	    (v[C_RANK].val && nctl_u32(v[C_RANK].val, "rank", rank)))
		return NCTL_USAGE;
	if (v[C_ROOT].val && !v[C_BCAST].val)
		return nctl_usage("root goes with bcast");
	if (v[C_BCAST].val && v[C_INDEX].val)
		return nctl_usage("bcast and index exclude each other");
	if (v[C_BCAST].val) {
		*root = 0;
		if (v[C_ROOT].val && nctl_u32(v[C_ROOT].val, "root", root))
			return NCTL_USAGE;
	}
	return 0;
}

static void print_tree(const struct nc_tree_info *t, uint32_t rank, bool bcast)
{
	uint32_t i;

	open_json_object(NULL);
	if (bcast)
		print_text("bcast");
	else
		print_uint(PRINT_ANY, "index", "tree %u", t->index);
	print_uint(PRINT_JSON, "rank", NULL, rank);
	if (bcast)
		print_text(" %s", t->installed ? "installed order" : "rank order");
	else
		print_text(" %s", t->installed ? "installed" : "built-in");
	print_uint(PRINT_ANY, "root", " root %u", t->root);
	if (t->parent == rank) {
		print_uint(PRINT_JSON, "parent", NULL, t->parent);
		print_text(" parent - (this rank is the root)");
	} else {
		print_uint(PRINT_ANY, "parent", " parent %u", t->parent);
	}
	print_bool(PRINT_JSON, "installed", NULL, t->installed);
	print_text(" children%s", t->nchildren ? "" : " -");
	open_json_array("children");
	for (i = 0; i < t->nchildren; i++)
		print_uint(PRINT_ANY, NULL, " %u", t->children[i]);
	close_json_array();
	print_nl();
	close_json_object();
}

static int tree_show(int argc, char **argv)
{
	uint32_t id = 0, index, root, i, lo, hi, rank;
	struct nc_comm_info ci;
	struct nc_tree_info t;
	int err, ret = NCTL_OK;
	nc_ctl *ctl;

	ret = parse_comm_index(argc, argv, &id, &index, &root, &rank);
	if (ret)
		return ret;
	if (nctl_open(&ctl))
		return NCTL_ERR;
	nc_ctl_set_rank(ctl, rank);
	err = nc_comm_get(ctl, id, &ci);
	if (err) {
		ret = nctl_lib_fail(ctl, err, "cannot show communicator %" PRIu32, id);
		goto out;
	}
	lo = index == UINT32_MAX ? 0 : index;
	hi = index == UINT32_MAX ? NC_TREES_MAX - 1 : index;
	print_text("comm %" PRIu32 " rank %" PRIu32 " size %" PRIu32
		   " built-in degree %" PRIu32 "\n", id, ci.rank, ci.size,
		   ci.tree_degree);
	if (root != UINT32_MAX)		/* one tree: a broadcast's from root */
		lo = hi = 0;
	open_json_array(NULL);
	for (i = lo; i <= hi; i++) {
		err = root == UINT32_MAX ? nc_tree_get(ctl, id, i, &t) :
		      nc_bcast_tree_get(ctl, id, root, &t);
		if (err && root != UINT32_MAX) {
			close_json_array();
			ret = nctl_lib_fail(ctl, err, "cannot show the broadcast tree from %"
					    PRIu32 " of communicator %" PRIu32, root, id);
			break;
		}
		if (err) {
			close_json_array();
			ret = nctl_lib_fail(ctl, err, "cannot show tree %" PRIu32
					    " of communicator %" PRIu32, i, id);
			break;
		}
		print_tree(&t, ci.rank, root != UINT32_MAX);
		nc_tree_info_free(&t);
	}
	if (!err)
		close_json_array();
	nc_comm_info_free(&ci);
out:
	nc_ctl_close(ctl);
	return ret;
}

static int tree_del(int argc, char **argv)
{
	uint32_t id = 0, index, root, i, rank;
	int err = 0, ret;
	nc_ctl *ctl;

	ret = parse_comm_index(argc, argv, &id, &index, &root, &rank);
	if (ret)
		return ret;
	if (nctl_open(&ctl))
		return NCTL_ERR;
	nc_ctl_set_rank(ctl, rank);
	if (root != UINT32_MAX) {
		err = nc_bcast_order_remove(ctl, id);
		ret = err ? nctl_lib_fail(ctl, err, "cannot delete the broadcast order"
					  " of communicator %" PRIu32, id) : NCTL_OK;
		nc_ctl_close(ctl);
		return ret;
	}
	if (index != UINT32_MAX) {
		err = nc_tree_remove(ctl, id, index);
	} else {
		/* every tree: one that is built-in already is no error */
		for (i = 0; i < NC_TREES_MAX && !err; i++) {
			index = i;
			err = nc_tree_remove(ctl, id, i);
			if (err == -ENOENT)
				err = 0;
		}
	}
	ret = err ? nctl_lib_fail(ctl, err, "cannot delete tree %" PRIu32
				  " of communicator %" PRIu32, index, id) : NCTL_OK;
	nc_ctl_close(ctl);
	return ret;
}

/* ---------------------------------------------------------------- */
/* install                                                           */
/* ---------------------------------------------------------------- */

static int tree_install(int argc, char **argv)
{
	uint32_t id = 0, degree = 0, ntrees = 1, fmax = FMAX_DEFAULT, rank = NC_RANK_NONE;
	struct optv v[ARRAY_SIZE(install_opts)];
	int have_model, err, ret = NCTL_OK;
	struct nc_model m = { 0 };
	struct nc_comm_info ci;
	const char *topology;
	nc_ctl *ctl;

	ret = opt_parse(install_opts, v, argc, argv);
	if (ret)
		return ret;
	have_model = v[I_MODEL].val != NULL;
	topology = v[I_TOPOLOGY].val;
	if (nctl_u32(v[I_COMM].val, "communicator id", &id) ||
	    (v[I_DEGREE].val && parse_degree(v[I_DEGREE].val, &degree)) ||
	    (have_model && parse_model(&v[I_MODEL], &m)) ||
	    (v[I_FMAX].val && parse_degree(v[I_FMAX].val, &fmax)) ||
	    (v[I_TREES].val && parse_trees(v[I_TREES].val, &ntrees)) ||
	    (v[I_RANK].val && nctl_u32(v[I_RANK].val, "rank", &rank)))
		return NCTL_USAGE;
	if (degree && have_model)
		return nctl_usage("tree install: degree and model exclude each other");
	if (nctl_open(&ctl))
		return NCTL_ERR;
	nc_ctl_set_rank(ctl, rank);
	/* The model needs P; without either, the communicator's own degree. */
	err = nc_comm_get(ctl, id, &ci);
	if (err) {
		ret = nctl_lib_fail(ctl, err, "cannot read communicator %" PRIu32, id);
		goto out;
	}
	if (have_model)
		degree = nc_model_best_degree(&m, ci.size, fmax);
	else if (!degree)
		degree = ci.tree_degree ? ci.tree_degree : NETCOLL_TREE_DEGREE_DEFAULT;
	err = nc_tree_install_fnomial(ctl, id, ntrees, degree, topology);
	if (err) {
		ret = nctl_lib_fail(ctl, err, "cannot install trees on communicator %"
				    PRIu32, id);
	} else if (have_model) {
		open_json_object(NULL);
		print_uint(PRINT_ANY, "comm", "comm %u:", id);
		print_uint(PRINT_ANY, "trees", " %u", ntrees);
		print_text(" tree%s", ntrees > 1 ? "s" : "");
		print_uint(PRINT_ANY, "degree", " of degree %u", degree);
		print_float(PRINT_ANY, "t_us", " (model: %.3f us",
			    nc_model_fnomial(&m, ci.size, degree));
		print_uint(PRINT_ANY, "size", " for %u members)\n", ci.size);
		close_json_object();
	}
	nc_comm_info_free(&ci);
out:
	nc_ctl_close(ctl);
	return ret;
}

/* ---------------------------------------------------------------- */
/* model, plan: offline                                              */
/* ---------------------------------------------------------------- */

static int tree_model(int argc, char **argv)
{
	uint32_t P = 0, fmax = FMAX_DEFAULT, f, best, full;
	struct optv v[ARRAY_SIZE(model_opts)];
	struct nc_model m = { 0 };
	uint64_t pw;
	double t;
	int ret;

	ret = opt_parse(model_opts, v, argc, argv);
	if (ret)
		return ret;
	if (nctl_u32(v[M_SIZE].val, "size", &P) ||
	    parse_model(&v[M_COSTS], &m) ||
	    (v[M_FMAX].val && parse_degree(v[M_FMAX].val, &fmax)))
		return NCTL_USAGE;
	if (P == 0)
		return nctl_usage("size must be at least 1");
	if (fmax > 4096)
		return nctl_usage("fmax must be 2..4096");
	best = nc_model_best_degree(&m, P, fmax);
	open_json_object(NULL);
	print_uint(PRINT_ANY, "size", "P %u", P);
	print_float(PRINT_ANY, "L", "  L %g", m.L);
	print_float(PRINT_ANY, "r", "  r %g", m.r);
	print_float(PRINT_ANY, "c", "  c %g", m.c);
	print_float(PRINT_ANY, "C", "  C %g", m.C);
	print_text("  (us)\n");
	print_uint(PRINT_JSON, "fmax", NULL, fmax);
	print_text("%5s %7s %5s %5s %12s\n", "f", "phases", "full", "last", "T(P,f) us");
	open_json_array("degrees");
	for (f = 2; f <= fmax; f++) {
		full = full_phases(P, f, &pw);
		t = nc_model_fnomial(&m, P, f);
		open_json_object(NULL);
		print_uint(PRINT_ANY, "f", "%5u", f);
		print_uint(PRINT_ANY, "phases", " %7u", full + (pw != P));
		print_uint(PRINT_ANY, "full_phases", " %5u", full);
		print_u64(PRINT_ANY, "last_children", " %5" PRIu64, (P + pw - 1) / pw - 1);
		print_float(PRINT_FP, NULL, " %12.3f", t);
		print_float(PRINT_JSON, "t_us", "%.6f", t);
		if (f == best)
			print_text("  *");
		print_nl();
		close_json_object();
	}
	close_json_array();
	print_uint(PRINT_ANY, "best", "best degree %u\n", best);
	close_json_object();
	return NCTL_OK;
}

/* Reads the topology here too, to say what is wrong with it. */
static int topo_hosts(const char *topology, uint32_t *nhosts)
{
	struct nc_topo_err e = { 0 };
	nc_topo *t;
	int err;

	err = nc_topo_create(&t, topology, &e);
	if (err && e.line)
		return nctl_fail("%s:%u: %s", topology, e.line, e.msg);
	if (err)
		return nctl_fail("%s: %s", topology, e.msg[0] ? e.msg : "cannot read");
	*nhosts = nc_topo_nhosts(t);
	nc_topo_destroy(t);
	return 0;
}

static uint32_t depth_of(const uint32_t *parents, uint32_t r)
{
	uint32_t d = 0;

	for (; parents[r] != r; r = parents[r])
		d++;
	return d;
}

static int tree_plan(int argc, char **argv)
{
	uint32_t P = 0, degree = 0, ntrees = 1, nhosts = 0, j, r, depth, d, root;
	struct optv v[ARRAY_SIZE(plan_opts)];
	uint32_t *order = NULL, *parents = NULL;
	const char *topology;
	int err, ret;

	ret = opt_parse(plan_opts, v, argc, argv);
	if (ret)
		return ret;
	topology = v[P_TOPOLOGY].val;
	if ((v[P_SIZE].val && nctl_u32(v[P_SIZE].val, "size", &P)) ||
	    parse_degree(v[P_DEGREE].val, &degree) ||
	    (v[P_TREES].val && parse_trees(v[P_TREES].val, &ntrees)))
		return NCTL_USAGE;
	if (!P && !topology)
		return nctl_usage("tree plan needs size P or topology { FILE | SPEC }");
	if (topology) {
		if (topo_hosts(topology, &nhosts))
			return NCTL_ERR;
		if (P && P != nhosts)
			return nctl_fail("%s has %" PRIu32 " hosts, not %" PRIu32,
					 topology, nhosts, P);
		P = nhosts;
	}
	if (P > PLAN_SIZE_MAX)
		return nctl_usage("size must be 1..%u", PLAN_SIZE_MAX);
	ret = NCTL_ERR;
	order = malloc((size_t)P * sizeof(*order));
	parents = malloc((size_t)P * ntrees * sizeof(*parents));
	if (!order || !parents) {
		nctl_fail("out of memory");
		goto out;
	}
	/* the same trees as nc_tree_install_fnomial() */
	for (j = 0; j < ntrees; j++) {
		err = nc_tree_order_aware(topology, P, (uint32_t)((uint64_t)j * P / ntrees),
					  degree, order);
		if (!err)
			err = nc_tree_fnomial(P, degree, order, parents + (size_t)j * P);
		if (err) {
			nctl_fail("tree %" PRIu32 ": %s", j, nc_strerror(err));
			goto out;
		}
	}
	open_json_object(NULL);
	print_uint(PRINT_ANY, "size", "size %u", P);
	print_uint(PRINT_ANY, "degree", " degree %u", degree);
	print_uint(PRINT_FP, NULL, " trees %u\n", ntrees);
	open_json_array("trees");
	for (j = 0; j < ntrees; j++) {
		const uint32_t *p = parents + (size_t)j * P;

		for (depth = 0, root = 0, r = 0; r < P; r++) {
			d = depth_of(p, r);
			depth = d > depth ? d : depth;
			if (p[r] == r)
				root = r;
		}
		open_json_object(NULL);
		print_uint(PRINT_ANY, "index", "tree %u", j);
		print_uint(PRINT_ANY, "root", " root %u", root);
		print_uint(PRINT_ANY, "depth", " depth %u\n", depth);
		open_json_array("parents");
		for (r = 0; is_json_context() && r < P; r++)
			print_uint(PRINT_JSON, NULL, NULL, p[r]);
		close_json_array();
		close_json_object();
	}
	close_json_array();
	close_json_object();
	/* text: each rank's parent in every tree */
	if (!is_json_context()) {
		print_text("%5s", "rank");
		for (j = 0; j < ntrees; j++)
			print_text("  tree %" PRIu32, j);
		print_nl();
		for (r = 0; r < P; r++) {
			print_text("%5" PRIu32, r);
			for (j = 0; j < ntrees; j++) {
				uint32_t pr = parents[(size_t)j * P + r];

				if (pr == r)
					print_text("  %6s", "root");
				else
					print_text("  %6" PRIu32, pr);
			}
			print_nl();
		}
	}
	ret = NCTL_OK;
out:
	free(order);
	free(parents);
	return ret;
}

/* min, median and max of the delays between different hosts */
static void delay_summary(const double *delay, uint32_t P, double out[3])
{
	size_t n = 0, a, b;
	double *d = malloc((size_t)P * P * sizeof(*d)), x;

	out[0] = out[1] = out[2] = 0;
	if (!d || P < 2) {
		free(d);
		return;
	}
	for (a = 0; a < P; a++)
		for (b = 0; b < P; b++)
			if (a != b)
				d[n++] = delay[a * P + b];
	/* insertion sort would do for small P; qsort for any */
	for (a = 1; a < n; a++)
		for (b = a; b > 0 && d[b - 1] > d[b]; b--) {
			x = d[b];
			d[b] = d[b - 1];
			d[b - 1] = x;
		}
	out[0] = d[0];
	out[1] = d[n / 2];
	out[2] = d[n - 1];
	free(d);
}

/*
 * The hosts of "hosts H,H,...": one allocation like nc_topo_query_hosts's
 * (free(*names)).
 */
static int split_hosts(const char *list, char ***names, uint32_t *n)
{
	size_t len = strlen(list);
	uint32_t count = 1, i = 0;
	char **v, *p, *w, *save = NULL;
	const char *c;

	for (c = list; *c; c++)
		count += *c == ',';
	v = malloc((count + 1) * sizeof(*v) + len + 1);
	if (!v)
		return -ENOMEM;
	p = strcpy((char *)(v + count + 1), list);
	for (w = strtok_r(p, ",", &save); w; w = strtok_r(NULL, ",", &save))
		v[i++] = w;
	v[i] = NULL;
	if (!i) {
		free(v);
		return -EINVAL;
	}
	*names = v;
	*n = i;
	return 0;
}

/*
 * Seed 003's broadcast trees for a topology, or for hosts the topology
 * query service knows (its delay matrix asked pair by pair, as the paper's
 * MPI library does): the f-nomial tree with its hosts placed in rank order
 * (unaware), depth first and breadth first (closest free host per child),
 * each with the time the model predicts; with install COMM, one of them
 * becomes that communicator's broadcast order (of its degree).
 */
static int tree_bcast(int argc, char **argv)
{
	static const char *const names[] = { "unaware", "dft", "bft" };
	struct optv v[ARRAY_SIZE(bcast_opts)];
	static const char *const kinds[] = { "unaware", "dft", "bft", "best", NULL };
	uint32_t degree = 2, root = 0, P, *order = NULL, k, pos, comm = 0, put = 3;
	struct nc_comm_info ci = { 0 };
	uint64_t bytes = 65536;
	double hop = 1.0, msg_us = 0, *delay = NULL, t[3], sum[3];
	enum nc_bcast_order best;
	nc_topo *topo = NULL;
	char **hosts = NULL, msg[256] = "";
	nc_ctl *ctl = NULL;
	int err, ret;

	ret = opt_parse(bcast_opts, v, argc, argv);
	if (ret)
		return ret;
	if ((v[B_DEGREE].val && parse_degree(v[B_DEGREE].val, &degree)) ||
	    (v[B_ROOT].val && nctl_u32(v[B_ROOT].val, "root", &root)) ||
	    (v[B_SIZE].val && nctl_u64(v[B_SIZE].val, "size", &bytes)) ||
	    (v[B_HOP].val && parse_us(v[B_HOP].val, "hop-us", &hop)) ||
	    (v[B_MSG].val && parse_us(v[B_MSG].val, "msg-us", &msg_us)) ||
	    (v[B_INSTALL].val && nctl_u32(v[B_INSTALL].val, "communicator id", &comm)))
		return NCTL_USAGE;
	if (v[B_ORDER].val && !v[B_INSTALL].val)
		return nctl_usage("order goes with install COMM");
	if (v[B_ORDER].val) {
		for (put = 0; kinds[put] && strcmp(kinds[put], v[B_ORDER].val); put++)
			;
		if (!kinds[put])
			return nctl_usage("unknown order \"%s\" (unaware, dft, bft, best)",
					  v[B_ORDER].val);
	}
	/* installed, the order is for the communicator's own degree */
	if (v[B_INSTALL].val) {
		if (nctl_open(&ctl))
			return NCTL_ERR;
		err = nc_comm_get(ctl, comm, &ci);
		if (err) {
			ret = nctl_lib_fail(ctl, err, "cannot read communicator %" PRIu32, comm);
			nc_ctl_close(ctl);
			return ret;
		}
		if (v[B_DEGREE].val && degree != ci.tree_degree) {
			nctl_usage("communicator %" PRIu32 " has degree %" PRIu32,
				   comm, ci.tree_degree);
			ret = NCTL_USAGE;
			goto out;
		}
		degree = ci.tree_degree;
	}
	if (!v[B_TOPOLOGY].val == !v[B_SERVICE].val)
		return nctl_usage("tree bcast needs topology TOPOLOGY or service ADDR");
	if (v[B_HOSTS].val && !v[B_SERVICE].val)
		return nctl_usage("hosts goes with service ADDR");
	if (v[B_TOPOLOGY].val) {
		struct nc_topo_err e = { 0 };

		err = nc_topo_create(&topo, v[B_TOPOLOGY].val, &e);
		ret = NCTL_ERR;
		if (err && e.line) {
			nctl_fail("%s:%u: %s", v[B_TOPOLOGY].val, e.line, e.msg);
			goto out;
		}
		if (err) {
			nctl_fail("%s: %s", v[B_TOPOLOGY].val,
				  e.msg[0] ? e.msg : "cannot read");
			goto out;
		}
		P = nc_topo_nhosts(topo);
	} else {
		err = v[B_HOSTS].val ? split_hosts(v[B_HOSTS].val, &hosts, &P) :
		      nc_topo_query_hosts(v[B_SERVICE].val, &hosts, &P, msg, sizeof(msg));
		ret = NCTL_ERR;
		if (err) {
			nctl_fail("%s: %s", v[B_HOSTS].val ? "hosts" : v[B_SERVICE].val,
				  err == -EPROTO && msg[0] ? msg : strerror(-err));
			goto out;
		}
	}
	if (ctl && P != ci.size) {
		nctl_fail("%u hosts, but communicator %" PRIu32 " has %" PRIu32 " members",
			  P, comm, ci.size);
		goto out;
	}
	if (root >= P) {
		nctl_usage("root must be below %u, the host count", P);
		ret = NCTL_USAGE;
		goto out;
	}
	if (P > 4096) {
		nctl_fail("%u hosts: the delay matrix is limited to 4096", P);
		goto out;
	}
	delay = malloc((size_t)P * P * sizeof(*delay));
	order = malloc(4 * (size_t)P * sizeof(*order));
	if (!delay || !order) {
		nctl_fail("out of memory");
		goto out;
	}
	msg[0] = '\0';
	err = topo ? nc_bcast_delays(topo, hop, bytes, delay) :
	      nc_bcast_delays_query(v[B_SERVICE].val, (const char *const *)hosts, P,
				    hop, bytes, delay, msg, sizeof(msg));
	if (!err)
		err = nc_bcast_msg_cost(delay, P, msg_us);
	if (err) {
		nctl_fail("delays: %s", msg[0] && !topo ? msg : strerror(-err));
		goto out;
	}
	for (k = 0; k < 3; k++) {
		err = nc_bcast_order(delay, P, root, degree, (enum nc_bcast_order)k,
				     order + (size_t)k * P);
		t[k] = err ? err : nc_bcast_predict(delay, P, degree, order + (size_t)k * P);
		if (t[k] < 0) {
			nctl_fail("%s: %s", names[k], strerror((int)-t[k]));
			goto out;
		}
	}
	delay_summary(delay, P, sum);
	open_json_object(NULL);
	print_uint(PRINT_ANY, "hosts", "hosts %u", P);
	print_uint(PRINT_ANY, "degree", " degree %u", degree);
	print_uint(PRINT_ANY, "root", " root %u", root);
	print_u64(PRINT_ANY, "size", " size %" PRIu64, bytes);
	print_float(PRINT_ANY, "hop_us", " hop %g us", hop);
	print_float(PRINT_ANY, "msg_us", " msg %g us\n", msg_us);
	print_float(PRINT_ANY, "delay_min_us", "delay min %.3f", sum[0]);
	print_float(PRINT_ANY, "delay_median_us", " median %.3f", sum[1]);
	print_float(PRINT_ANY, "delay_max_us", " max %.3f us\n", sum[2]);
	open_json_array("orders");
	for (k = 0; k < 3; k++) {
		open_json_object(NULL);
		print_string(PRINT_ANY, "order", "%-8s", names[k]);
		print_float(PRINT_ANY, "predicted_us", " predicted %12.3f us", t[k]);
		print_float(PRINT_ANY, "vs_unaware", "  %.2f of unaware\n",
			    t[0] > 0 ? t[k] / t[0] : 1);
		open_json_array("ranks");
		for (pos = 0; is_json_context() && pos < P; pos++)
			print_uint(PRINT_JSON, NULL, NULL, order[(size_t)k * P + pos]);
		close_json_array();
		close_json_object();
	}
	close_json_array();
	/* the fourth P of order[] holds the best placement */
	err = nc_bcast_best_order(delay, P, root, degree, order + 3 * (size_t)P, &best);
	if (err) {
		nctl_fail("best order: %s", strerror(-err));
		goto out;
	}
	print_string(PRINT_ANY, "best", "best %s (the model's least time)\n", names[best]);
	if (ctl) {
		err = nc_bcast_order_install(ctl, comm, order + (size_t)put * P, P);
		if (err) {
			close_json_object();
			ret = nctl_lib_fail(ctl, err, "cannot install the broadcast order"
					    " of communicator %" PRIu32, comm);
			goto out;
		}
		print_string(PRINT_ANY, "installed", "installed %s",
			     names[put == 3 ? best : put]);
		print_uint(PRINT_ANY, "comm", " in communicator %u\n", comm);
	}
	close_json_object();
	if (!is_json_context()) {
		print_text("%8s  %-12s %-12s %-12s\n", "position", "unaware", "dft", "bft");
		for (pos = 0; pos < P; pos++) {
			print_text("%8u", pos);
			for (k = 0; k < 3; k++) {
				uint32_t rank = order[(size_t)k * P + pos];

				print_text("  %-12s", topo ? nc_topo_host_name(topo, rank) :
					   hosts[rank]);
			}
			print_nl();
		}
	}
	ret = NCTL_OK;
out:
	free(delay);
	free(order);
	free(hosts);
	nc_topo_destroy(topo);
	if (ctl) {
		nc_comm_info_free(&ci);
		nc_ctl_close(ctl);
	}
	return ret;
}

int do_tree(int argc, char **argv)
{
	return run_cmd("tree", cmds, argc, argv, "help");
}

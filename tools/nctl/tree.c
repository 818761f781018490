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
#include "topo.h"

#define FMAX_DEFAULT	16
#define PLAN_SIZE_MAX	(1U << 20)

static int usage(void)
{
	printf("Usage: nctl tree show comm ID [ index N ]\n"
	       "       nctl tree install comm ID [ degree F | model L R C [ CONST ] [ fmax F ] ]\n"
	       "                         [ trees N ] [ topology { FILE | SPEC } ]\n"
	       "       nctl tree del comm ID [ index N ]\n"
	       "       nctl tree model size P L R C [ CONST ] [ fmax F ]\n"
	       "       nctl tree plan { size P | topology { FILE | SPEC } } degree F [ trees N ]\n"
	       "SPEC := { star:N | chain:SxH | random:S:H:SEED | ft:L:M1,..,ML | xgft:h:m1,..:w1,.. }\n"
	       "\n"
	       "Reductions run on f-nomial trees (Yu et al., SC'03).  L is the message\n"
	       "latency, R the reception cost, C the reduction cost of one message and\n"
	       "CONST the start-up cost, all in microseconds; the model's degree is the\n"
	       "F in 2..fmax (default %u) of least T(P, F).  Tree j of N is rotated by\n"
	       "j * P / N positions, so the pieces of a split vector have different\n"
	       "roots.  With a topology, rank r is its r-th host and subtrees stay\n"
	       "under one switch.  Without an index, show and del act on every tree.\n",
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

static int is_number(const char *text)
{
	return (text[0] >= '0' && text[0] <= '9') ||
	       (text[0] == '.' && text[1] >= '0' && text[1] <= '9');
}

/* "L R C [CONST]" after `model`: *argv at the keyword, left at the last. */
static int parse_model(int *argc, char ***argv, struct nc_model *m)
{
	static const char *const what[] = { "L", "R", "C", "CONST" };
	double *v[] = { &m->L, &m->r, &m->c, &m->C };
	int i;

	for (i = 0; i < 4; i++) {
		if (i == 3 && (*argc < 2 || !is_number((*argv)[1])))
			break;
		if (nctl_next(argc, argv, what[i]) ||
		    parse_us((*argv)[0], what[i], v[i]))
			return NCTL_USAGE;
	}
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

/* "comm ID" (or "id ID") and "index N"; index UINT32_MAX: every tree. */
static int parse_comm_index(int argc, char **argv, const char *cmd,
			    uint32_t *id, uint32_t *index)
{
	int have_id = 0;

	*index = UINT32_MAX;
	for (; argc > 0; argc--, argv++) {
		if (strcmp(argv[0], "comm") == 0 || strcmp(argv[0], "id") == 0) {
			if (nctl_next(&argc, &argv, "comm") ||
			    nctl_u32(argv[0], "communicator id", id))
				return NCTL_USAGE;
			have_id = 1;
		} else if (matches(argv[0], "index")) {
			if (nctl_next(&argc, &argv, "index") ||
			    parse_index(argv[0], index))
				return NCTL_USAGE;
		} else {
			return nctl_usage("tree %s: unexpected argument \"%s\"", cmd,
					  argv[0]);
		}
	}
	if (!have_id)
		return nctl_usage("tree %s needs comm ID", cmd);
	return 0;
}

static void print_tree(const struct nc_tree_info *t, uint32_t rank, int first)
{
	uint32_t i;

	if (nctl_json) {
		printf("%s{\"index\":%" PRIu32 ",\"rank\":%" PRIu32 ",\"root\":%" PRIu32
		       ",\"parent\":%" PRIu32 ",\"installed\":%s,\"children\":[",
		       first ? "" : ",", t->index, rank, t->root, t->parent,
		       t->installed ? "true" : "false");
		for (i = 0; i < t->nchildren; i++)
			printf("%s%" PRIu32, i ? "," : "", t->children[i]);
		fputs("]}", stdout);
		return;
	}
	printf("tree %" PRIu32 " %s root %" PRIu32, t->index,
	       t->installed ? "installed" : "built-in", t->root);
	if (t->parent == rank)
		fputs(" parent - (this rank is the root)", stdout);
	else
		printf(" parent %" PRIu32, t->parent);
	fputs(" children", stdout);
	if (!t->nchildren)
		fputs(" -", stdout);
	for (i = 0; i < t->nchildren; i++)
		printf(" %" PRIu32, t->children[i]);
	putchar('\n');
}

static int tree_show(int argc, char **argv)
{
	uint32_t id = 0, index, i, lo, hi;
	struct nc_comm_info ci;
	struct nc_tree_info t;
	int err, ret = NCTL_OK;
	nc_ctl *ctl;

	ret = parse_comm_index(argc, argv, "show", &id, &index);
	if (ret)
		return ret;
	if (nctl_open(&ctl))
		return NCTL_ERR;
	err = nc_comm_get(ctl, id, &ci);
	if (err) {
		ret = nctl_lib_fail(ctl, err, "cannot show communicator %" PRIu32, id);
		goto out;
	}
	lo = index == UINT32_MAX ? 0 : index;
	hi = index == UINT32_MAX ? NC_TREES_MAX - 1 : index;
	if (nctl_json)
		putchar('[');
	else
		printf("comm %" PRIu32 " rank %" PRIu32 " size %" PRIu32
		       " built-in degree %" PRIu32 "\n", id, ci.rank, ci.size,
		       ci.tree_degree);
	for (i = lo; i <= hi; i++) {
		err = nc_tree_get(ctl, id, i, &t);
		if (err) {
			if (nctl_json)
				puts("]");
			ret = nctl_lib_fail(ctl, err, "cannot show tree %" PRIu32
					    " of communicator %" PRIu32, i, id);
			break;
		}
		print_tree(&t, ci.rank, i == lo);
		nc_tree_info_free(&t);
	}
	if (nctl_json && !err)
		puts("]");
	nc_comm_info_free(&ci);
out:
	nc_ctl_close(ctl);
	return ret;
}

static int tree_del(int argc, char **argv)
{
	uint32_t id = 0, index, i;
	int err = 0, ret;
	nc_ctl *ctl;

	ret = parse_comm_index(argc, argv, "del", &id, &index);
	if (ret)
		return ret;
	if (nctl_open(&ctl))
		return NCTL_ERR;
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
	uint32_t id = 0, degree = 0, ntrees = 1, fmax = FMAX_DEFAULT;
	int have_id = 0, have_model = 0, err, ret = NCTL_OK;
	const char *topology = NULL;
	struct nc_model m = { 0 };
	struct nc_comm_info ci;
	nc_ctl *ctl;

	for (; argc > 0; argc--, argv++) {
		if (strcmp(argv[0], "comm") == 0 || strcmp(argv[0], "id") == 0) {
			if (nctl_next(&argc, &argv, "comm") ||
			    nctl_u32(argv[0], "communicator id", &id))
				return NCTL_USAGE;
			have_id = 1;
		} else if (matches(argv[0], "degree")) {
			if (nctl_next(&argc, &argv, "degree") ||
			    parse_degree(argv[0], &degree))
				return NCTL_USAGE;
		} else if (matches(argv[0], "model")) {
			if (parse_model(&argc, &argv, &m))
				return NCTL_USAGE;
			have_model = 1;
		} else if (matches(argv[0], "fmax")) {
			if (nctl_next(&argc, &argv, "fmax") ||
			    parse_degree(argv[0], &fmax))
				return NCTL_USAGE;
		} else if (matches(argv[0], "trees")) {
			if (nctl_next(&argc, &argv, "trees") ||
			    parse_trees(argv[0], &ntrees))
				return NCTL_USAGE;
		} else if (matches(argv[0], "topology")) {
			if (nctl_next(&argc, &argv, "topology"))
				return NCTL_USAGE;
			topology = argv[0];
		} else {
			return nctl_usage("tree install: unexpected argument \"%s\"",
					  argv[0]);
		}
	}
	if (!have_id)
		return nctl_usage("tree install needs comm ID");
	if (degree && have_model)
		return nctl_usage("tree install: degree and model exclude each other");
	if (nctl_open(&ctl))
		return NCTL_ERR;
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
	} else if (have_model && nctl_json) {
		printf("{\"comm\":%" PRIu32 ",\"size\":%" PRIu32 ",\"degree\":%" PRIu32
		       ",\"trees\":%" PRIu32 ",\"t_us\":%.3f}\n", id, ci.size, degree,
		       ntrees, nc_model_fnomial(&m, ci.size, degree));
	} else if (have_model) {
		printf("comm %" PRIu32 ": %" PRIu32 " tree%s of degree %" PRIu32
		       " (model: %.3f us for %" PRIu32 " members)\n", id, ntrees,
		       ntrees > 1 ? "s" : "", degree,
		       nc_model_fnomial(&m, ci.size, degree), ci.size);
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
	static const char *const what[] = { "L", "R", "C", "CONST" };
	uint32_t P = 0, fmax = FMAX_DEFAULT, f, best, full;
	double *v[4];
	struct nc_model m = { 0 };
	int nv = 0;
	uint64_t pw;

	v[0] = &m.L;
	v[1] = &m.r;
	v[2] = &m.c;
	v[3] = &m.C;
	for (; argc > 0; argc--, argv++) {
		if (matches(argv[0], "size")) {
			if (nctl_next(&argc, &argv, "size") ||
			    nctl_u32(argv[0], "size", &P))
				return NCTL_USAGE;
		} else if (matches(argv[0], "fmax")) {
			if (nctl_next(&argc, &argv, "fmax") ||
			    parse_degree(argv[0], &fmax))
				return NCTL_USAGE;
		} else if (is_number(argv[0]) && nv < 4) {
			if (parse_us(argv[0], what[nv], v[nv]))
				return NCTL_USAGE;
			nv++;
		} else {
			return nctl_usage("tree model: unexpected argument \"%s\"",
					  argv[0]);
		}
	}
	if (P == 0 || nv < 3)
		return nctl_usage("tree model needs size P (>= 1) and L R C");
	if (fmax > 4096)
		return nctl_usage("fmax must be 2..4096");
	best = nc_model_best_degree(&m, P, fmax);
	if (nctl_json) {
		printf("{\"size\":%" PRIu32 ",\"L\":%g,\"r\":%g,\"c\":%g,\"C\":%g,"
		       "\"fmax\":%" PRIu32 ",\"best\":%" PRIu32 ",\"degrees\":[",
		       P, m.L, m.r, m.c, m.C, fmax, best);
		for (f = 2; f <= fmax; f++) {
			full = full_phases(P, f, &pw);
			printf("%s{\"f\":%" PRIu32 ",\"phases\":%" PRIu32
			       ",\"full_phases\":%" PRIu32 ",\"last_children\":%" PRIu64
			       ",\"t_us\":%.6f}", f > 2 ? "," : "", f,
			       full + (pw != P), full, (P + pw - 1) / pw - 1,
			       nc_model_fnomial(&m, P, f));
		}
		puts("]}");
		return NCTL_OK;
	}
	printf("P %" PRIu32 "  L %g  r %g  c %g  C %g  (us)\n", P, m.L, m.r, m.c, m.C);
	printf("%5s %7s %5s %5s %12s\n", "f", "phases", "full", "last", "T(P,f) us");
	for (f = 2; f <= fmax; f++) {
		full = full_phases(P, f, &pw);
		printf("%5" PRIu32 " %7" PRIu32 " %5" PRIu32 " %5" PRIu64 " %12.3f%s\n",
		       f, full + (pw != P), full, (P + pw - 1) / pw - 1,
		       nc_model_fnomial(&m, P, f), f == best ? "  *" : "");
	}
	printf("best degree %" PRIu32 "\n", best);
	return NCTL_OK;
}

/* Reads the topology here too, to say what is wrong with it. */
static int topo_hosts(const char *topology, uint32_t *nhosts)
{
	struct nc_topo_err e = { 0 };
	struct nc_topo t;
	int err;

	nc_topo_init(&t);
	err = nc_topo_open(&t, topology, &e);
	if (err && e.line)
		return nctl_fail("%s:%u: %s", topology, e.line, e.msg);
	if (err)
		return nctl_fail("%s: %s", topology, e.msg[0] ? e.msg : "cannot read");
	*nhosts = t.nhosts;
	nc_topo_free(&t);
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
	uint32_t P = 0, degree = 0, ntrees = 1, nhosts, j, r, depth, d;
	uint32_t *order = NULL, *parents = NULL;
	const char *topology = NULL;
	int err, ret = NCTL_ERR;

	for (; argc > 0; argc--, argv++) {
		if (matches(argv[0], "size")) {
			if (nctl_next(&argc, &argv, "size") ||
			    nctl_u32(argv[0], "size", &P))
				return NCTL_USAGE;
		} else if (matches(argv[0], "degree")) {
			if (nctl_next(&argc, &argv, "degree") ||
			    parse_degree(argv[0], &degree))
				return NCTL_USAGE;
		} else if (matches(argv[0], "trees")) {
			if (nctl_next(&argc, &argv, "trees") ||
			    parse_trees(argv[0], &ntrees))
				return NCTL_USAGE;
		} else if (matches(argv[0], "topology")) {
			if (nctl_next(&argc, &argv, "topology"))
				return NCTL_USAGE;
			topology = argv[0];
		} else {
			return nctl_usage("tree plan: unexpected argument \"%s\"",
					  argv[0]);
		}
	}
	if (!degree || (!P && !topology))
		return nctl_usage("tree plan needs degree F and size P or a topology");
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
	order = malloc((size_t)P * sizeof(*order));
	parents = malloc((size_t)P * ntrees * sizeof(*parents));
	if (!order || !parents) {
		nctl_fail("out of memory");
		goto out;
	}
	/* the same trees as nc_tree_install_fnomial() */
	for (j = 0; j < ntrees; j++) {
		err = nc_tree_order_topo(topology, P, (uint32_t)((uint64_t)j * P / ntrees),
					 order);
		if (!err)
			err = nc_tree_fnomial(P, degree, order, parents + (size_t)j * P);
		if (err) {
			nctl_fail("tree %" PRIu32 ": %s", j, nc_strerror(err));
			goto out;
		}
	}
	if (nctl_json) {
		printf("{\"size\":%" PRIu32 ",\"degree\":%" PRIu32 ",\"trees\":[",
		       P, degree);
		for (j = 0; j < ntrees; j++) {
			const uint32_t *p = parents + (size_t)j * P;
			uint32_t root = 0;

			for (depth = 0, r = 0; r < P; r++) {
				d = depth_of(p, r);
				depth = d > depth ? d : depth;
				if (p[r] == r)
					root = r;
			}
			printf("%s{\"index\":%" PRIu32 ",\"root\":%" PRIu32
			       ",\"depth\":%" PRIu32 ",\"parents\":[", j ? "," : "",
			       j, root, depth);
			for (r = 0; r < P; r++)
				printf("%s%" PRIu32, r ? "," : "", p[r]);
			fputs("]}", stdout);
		}
		puts("]}");
		ret = NCTL_OK;
		goto out;
	}
	printf("size %" PRIu32 " degree %" PRIu32 " trees %" PRIu32 "\n", P, degree,
	       ntrees);
	for (j = 0; j < ntrees; j++) {
		const uint32_t *p = parents + (size_t)j * P;
		uint32_t root = 0;

		for (depth = 0, r = 0; r < P; r++) {
			d = depth_of(p, r);
			depth = d > depth ? d : depth;
			if (p[r] == r)
				root = r;
		}
		printf("tree %" PRIu32 " root %" PRIu32 " depth %" PRIu32 "\n", j,
		       root, depth);
	}
	printf("%5s", "rank");
	for (j = 0; j < ntrees; j++)
		printf("  tree %" PRIu32, j);
	putchar('\n');
	for (r = 0; r < P; r++) {
		printf("%5" PRIu32, r);
		for (j = 0; j < ntrees; j++) {
			uint32_t pr = parents[(size_t)j * P + r];

			if (pr == r)
				printf("  %6s", "root");
			else
				printf("  %6" PRIu32, pr);
		}
		putchar('\n');
	}
	ret = NCTL_OK;
out:
	free(order);
	free(parents);
	return ret;
}

int do_tree(int argc, char **argv)
{
	if (argc == 0 || matches(argv[0], "help"))
		return usage();
	if (matches(argv[0], "show") || matches(argv[0], "list"))
		return tree_show(argc - 1, argv + 1);
	if (matches(argv[0], "install"))
		return tree_install(argc - 1, argv + 1);
	if (matches(argv[0], "delete"))
		return tree_del(argc - 1, argv + 1);
	if (matches(argv[0], "model"))
		return tree_model(argc - 1, argv + 1);
	if (matches(argv[0], "plan"))
		return tree_plan(argc - 1, argv + 1);
	return nctl_usage("command \"%s\" of tree is unknown", argv[0]);
}

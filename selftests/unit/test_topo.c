// SPDX-License-Identifier: BSD-2-Clause
/*
 * The topology model: the text format (every file of
 * selftests/net/topologies/, every error with its line), validation, tree
 * paths, the generators and the writer (parse(write(t)) == t).
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../userlib/topo.h"
#include "harness.h"

/* The topology files, seen from the repository root (where tests run). */
static const char *topo_dir(void)
{
	static char dir[512];
	DIR *d = opendir("selftests/net/topologies");
	const char *slash;

	if (d) {
		closedir(d);
		return "selftests/net/topologies";
	}
	slash = strrchr(__FILE__, '/');
	snprintf(dir, sizeof(dir), "%.*s/../net/topologies",
		 slash ? (int)(slash - __FILE__) : 1, slash ? __FILE__ : ".");
	return dir;
}

static int load(struct nc_topo *t, const char *name)
{
	char path[600];
	struct nc_topo_err e;

	snprintf(path, sizeof(path), "%s/%s", topo_dir(), name);
	return nc_topo_load(t, path, &e);
}

static uint32_t edge_from(const struct nc_topo *t, uint32_t e)
{
	const struct nc_topo_link *l = &t->links[NC_EDGE_LINK(e)];

	return e % 2 ? l->b : l->a;
}

static uint32_t edge_to(const struct nc_topo *t, uint32_t e)
{
	const struct nc_topo_link *l = &t->links[NC_EDGE_LINK(e)];

	return e % 2 ? l->a : l->b;
}

static uint32_t node(const struct nc_topo *t, const char *name)
{
	int n = nc_topo_find(t, name);

	return n < 0 ? NC_TOPO_NONE : (uint32_t)n;
}

static uint32_t degree(const struct nc_topo *t, uint32_t n)
{
	return t->adj_off[n + 1] - t->adj_off[n];
}

/* --- the files --------------------------------------------------------------- */

TEST(every_topology_file_parses)
{
	DIR *d = opendir(topo_dir());
	struct dirent *de;
	int files = 0;

	CHECK(d != NULL);
	while (d && (de = readdir(d))) {
		size_t n = strlen(de->d_name);
		struct nc_topo t;
		int ret;

		if (n < 5 || strcmp(de->d_name + n - 5, ".topo") != 0)
			continue;
		ret = load(&t, de->d_name);
		if (ret)
			printf("# %s: %d\n", de->d_name, ret);
		CHECK_EQ(ret, 0);
		CHECK(t.is_tree);
		CHECK(t.nhosts > 0);
		nc_topo_free(&t);
		files++;
	}
	if (d)
		closedir(d);
	CHECK(files >= 6);
}

TEST(known_files_have_their_shapes)
{
	struct nc_topo t;

	CHECK_EQ(load(&t, "star8.topo"), 0);
	CHECK_EQ(t.nhosts, 8);
	CHECK_EQ(t.nnodes, 9);
	CHECK(t.links[0].rate_mbit == 100);
	CHECK_EQ(t.ft_levels, 1);		/* a star is FT(1; 8) */
	CHECK_EQ(t.ft_m[0], 8);
	nc_topo_free(&t);

	CHECK_EQ(load(&t, "two-switch-8x2.topo"), 0);
	CHECK_EQ(t.nhosts, 16);
	CHECK_EQ(t.nlinks, 17);
	CHECK_EQ(t.ft_levels, 0);		/* hosts at two depths */
	CHECK_EQ(t.nodes[t.host_node[8]].line, 13);
	nc_topo_free(&t);

	CHECK_EQ(load(&t, "two-switch.topo"), 0);
	CHECK_EQ(t.nhosts, 8);
	nc_topo_free(&t);

	CHECK_EQ(load(&t, "chain3x4.topo"), 0);
	CHECK_EQ(t.nhosts, 12);
	CHECK_EQ(t.nnodes, 15);
	CHECK_EQ(t.ft_levels, 0);
	nc_topo_free(&t);

	CHECK_EQ(load(&t, "two-level-ft.topo"), 0);
	CHECK_EQ(t.nhosts, 16);
	CHECK_EQ(t.ft_levels, 2);
	CHECK_EQ(t.ft_m[0], 8);
	CHECK_EQ(t.ft_m[1], 2);
	CHECK_EQ(t.ft_w[1], 1);
	CHECK_EQ(t.nodes[node(&t, "core")].level, 2);
	CHECK_EQ(t.nodes[node(&t, "leaf1")].level, 1);
	CHECK_EQ(t.nodes[node(&t, "h16")].level, 0);
	/* the trunks carry half of what their leaf's hosts inject */
	CHECK(t.links[t.nlinks - 1].rate_mbit == 400);
	nc_topo_free(&t);
}

/* --- errors, each with its line ------------------------------------------------ */

struct bad {
	const char *text;
	uint32_t line;
	const char *msg;	/* a substring of the message */
};

static const struct bad bad_files[] = {
	{ "router r0\nswitch s0\nhost h1 s0", 1, "unknown statement 'router'" },
	{ "switch\n", 1, "want 'switch NAME'" },
	{ "switch s0 s1\n", 1, "want 'switch NAME'" },
	{ "switch s0\nhost h1\n", 2, "want 'host NAME SWITCH [OPTS]'" },
	{ "switch s0\nhost h1 s0\nlink s0\n", 3, "want 'link SWITCH SWITCH [OPTS]'" },
	{ "switch 0s\n", 1, "bad name '0s'" },
	{ "switch s:0\n", 1, "bad name 's:0'" },
	{ "switch s\r0\nhost h1 s0\n", 1, "bad name 's\r0'" },	/* CR only ends a line */
	{ "switch s2345678901234567890123456789012x\n", 1, "bad name" },
	{ "switch s0\nhost h2345678901234567890123456789012 s0\n", 2, "(at most 31 characters)" },
	{ "switch s0\nhost fabric s0\n", 2, "name 'fabric' is reserved" },
	{ "switch s0\nhost h1 s0\nhost h1 s0\n", 3, "duplicate name 'h1' (already a host)" },
	{ "switch s0\nhost s0 s0\n", 2, "duplicate name 's0' (already a switch)" },
	{ "switch s0\nhost h1 s9\n", 2, "unknown switch 's9'" },
	{ "host h1 s0\nswitch s0\n", 1, "unknown switch 's0'" },
	{ "switch s0\nhost h1 s0\nhost h2 h1\n", 3, "'h1' is a host, not a switch" },
	{ "switch s0\nhost h1 s0\nlink s0 s1\n", 3, "unknown switch 's1'" },
	{ "switch s0\nhost h1 s0\nlink h1 s0\n", 3, "'h1' is a host" },
	{ "switch s0\nswitch s1\nhost h1 s0\nlink s1 h1\n", 4, "'h1' is a host" },
	{ "switch s0\nhost h1 s0\nlink s0 s0\n", 3, "link from 's0' to itself" },
	{ "# c\nswitch s0\nhost h1 s0 rate fast\n", 3, "bad rate 'fast'" },
	{ "switch s0\nhost h1 s0 rate 0mbit\n", 2, "bad rate" },
	{ "switch s0\nhost h1 s0 rate 100mbps\n", 2, "bad rate" },
	{ "switch s0\nhost h1 s0 rate 9223372036854775808bit\n", 2, "bad rate" },
	{ "switch s0\nhost h1 s0 speed 1\n", 2, "unknown option 'speed'" },
	{ "switch s0\nhost h1 s0 Rate 1mbit\n", 2, "unknown option 'Rate'" },
	{ "switch s0\nhost h1 s0 rate\n", 2, "option 'rate' needs a value" },
	{ "switch s0\nhost h1 s0 loss 101%\n", 2, "bad loss '101%'" },
	{ "switch s0\nhost h1 s0 loss 100.01%\n", 2, "bad loss" },
	{ "switch s0\nhost h1 s0 corrupt 5\n", 2, "bad corrupt" },
	{ "switch s0\nhost h1 s0 duplicate .5%\n", 2, "bad duplicate" },
	{ "switch s0\nhost h1 s0 delay 1\n", 2, "bad delay '1'" },
	{ "switch s0\nhost h1 s0 delay 1.ms\n", 2, "bad delay" },
	{ "switch s0\nhost h1 s0 delay 1ms jitter 1m\n", 2, "bad jitter" },
	{ "switch s0\nhost h1 s0 rate 1mbit queue -1ms\n", 2, "bad queue" },
	{ "switch s0\nhost h1 s0 limit 0\n", 2, "bad limit '0'" },
	{ "switch s0\nhost h1 s0 rate 1mbit burst 1599\n", 2, "bad burst" },
	{ "switch s0\nhost h1 s0 rate 1mbit burst 01k\n", 2, "bad burst" },
	{ "switch s0\nhost h1 s0 rate 1mbit burst 08k\n", 2, "bad burst" },
	{ "switch s0\nhost h1 s0 jitter 1ms\n", 2, "jitter needs delay" },
	{ "switch s0\nhost h1 s0 reorder 5%\n", 2, "reorder needs delay" },
	{ "switch s0\nhost h1 s0 burst 100k\n", 2, "burst/queue need rate" },
	{ "switch s0\nhost h1 s0 rate 1mbit queue 1ms rate off\n", 2, "burst/queue need rate" },
	{ "switch s0\nswitch s1\nhost h1 s0\nlink s0 s1\nlink s1 s0\n", 5,
	  "duplicate link s1 s0 (already on line 4)" },
	{ "switch s0\nswitch s1\nswitch s2\nhost h1 s0\nlink s0 s1\nlink s1 s2\nlink s2 s0\n",
	  7, "link s2 s0 closes a cycle" },
	{ "switch s0\nswitch s1\nswitch s2\nswitch s3\nhost h1 s0\nlink s0 s1\nlink s2 s3\n",
	  3, "switch s2 is not connected to s0" },
	{ "switch s0\nswitch s1\nhost h1 s0\nhost h2 s1\n", 2, "switch s1 is not connected to s0" },
	{ "switch s0\n", 0, "no hosts" },
	{ "", 0, "no hosts" },
	{ "# nothing\n\n", 0, "no hosts" },
};

TEST(every_error_names_its_line)
{
	size_t i;

	for (i = 0; i < sizeof(bad_files) / sizeof(bad_files[0]); i++) {
		struct nc_topo_err e;
		struct nc_topo t;
		int ret = nc_topo_parse(&t, bad_files[i].text, &e);

		if (ret != -EINVAL || e.line != bad_files[i].line ||
		    !strstr(e.msg, bad_files[i].msg))
			printf("# case %zu: %d, line %u: %s\n", i, ret, e.line, e.msg);
		CHECK_EQ(ret, -EINVAL);
		CHECK_EQ(e.line, bad_files[i].line);
		CHECK(strstr(e.msg, bad_files[i].msg) != NULL);
		CHECK_EQ(t.nnodes, 0);		/* left empty */
		nc_topo_free(&t);
	}
}

TEST(too_many_hosts)
{
	size_t cap = 40 + 16 * (size_t)(NC_TOPO_HOSTS_MAX + 1), len;
	char *text = malloc(cap);
	struct nc_topo_err e;
	struct nc_topo t;
	uint32_t i;

	CHECK(text != NULL);
	if (!text)
		return;
	len = (size_t)sprintf(text, "switch s0\n");
	for (i = 1; i <= NC_TOPO_HOSTS_MAX; i++)
		len += (size_t)sprintf(text + len, "host h%u s0\n", i);
	CHECK_EQ(nc_topo_parse(&t, text, &e), 0);
	CHECK_EQ(t.nhosts, NC_TOPO_HOSTS_MAX);
	nc_topo_free(&t);
	sprintf(text + len, "host h%u s0\n", i);
	CHECK_EQ(nc_topo_parse(&t, text, &e), -EINVAL);
	CHECK_EQ(e.line, 0);
	CHECK(strstr(e.msg, "too many hosts") != NULL);
	free(text);
}

TEST(options_are_read_like_cluster_sh)
{
	static const char text[] =
		"  # blanks, tabs, comments and a missing last newline\n"
		"\n"
		"switch\ts0 # the core\n"
		"switch s1\n"
		"host h1 s0 rate 100MBIT delay 0.5ms jitter 100us loss 0.5% duplicate 1% "
		"reorder 2% corrupt 100.0% limit 10 burst 100k queue 20ms\n"
		"host h2 s0 rate 1500kbit delay 2s\n"
		"host h3 s1 rate 1gbit rate off delay 1ms clear\n"
		"host h4 s1 rate 1mbit burst 0100k queue 0ms delay 0.001us loss OFF\n"
		"link s0 s1 rate 7bit";
	struct nc_topo_err e;
	struct nc_topo t;

	CHECK_EQ(nc_topo_parse(&t, text, &e), 0);
	CHECK_EQ(t.nhosts, 4);
	CHECK(t.links[0].rate_mbit == 100);
	CHECK(t.links[0].delay_us == 500);
	CHECK(t.links[1].rate_mbit == 1.5);
	CHECK(t.links[1].delay_us == 2e6);
	CHECK(t.links[2].rate_mbit == 0);	/* "rate off", then "clear" */
	CHECK(t.links[2].delay_us == 0);
	CHECK(t.links[3].delay_us == 0.001);
	CHECK(t.links[4].rate_mbit == 7e-6);
	CHECK_EQ(t.links[4].line, 9);
	CHECK_EQ(t.nodes[node(&t, "s1")].line, 4);
	/* hosts: link a = the host, b = its switch */
	CHECK_EQ(t.links[0].a, node(&t, "h1"));
	CHECK_EQ(t.links[0].b, node(&t, "s0"));
	nc_topo_free(&t);
}

TEST(load_reads_files_and_reports_io_errors)
{
	char path[] = "/tmp/test_topo_XXXXXX";
	struct nc_topo_err e;
	struct nc_topo t;
	int fd = mkstemp(path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	CHECK(f != NULL);
	if (!f)
		return;
	/* bash's read drops NUL bytes, so the parser must too */
	fwrite("switch s0\n\0host h1 s0\nho\0st h2 s0", 1, 34, f);
	fclose(f);
	CHECK_EQ(nc_topo_load(&t, path, &e), 0);
	CHECK_EQ(t.nhosts, 2);
	nc_topo_free(&t);
	unlink(path);
	CHECK_EQ(nc_topo_load(&t, path, &e), -ENOENT);
	CHECK_EQ(e.line, 0);
	CHECK(strcmp(e.msg, strerror(ENOENT)) == 0);
}

/*
 * How users name a topology (nc_topo_open): a file that exists, else a
 * generator spec, else a missing file: never "bad spec" for a typo'd file
 * name, never "Input/output error" for a directory.
 */
TEST(open_tells_files_from_specs)
{
	struct nc_topo_err e;
	struct nc_topo t;

	CHECK_EQ(nc_topo_open(&t, "nosuch.topo", &e), -ENOENT);
	CHECK(strcmp(e.msg, strerror(ENOENT)) == 0);
	CHECK_EQ(nc_topo_open(&t, "/tmp", &e), -EISDIR);
	CHECK(strcmp(e.msg, strerror(EISDIR)) == 0);
	CHECK_EQ(nc_topo_open(&t, "star:4", &e), 0);
	CHECK_EQ(t.nhosts, 4);
	nc_topo_free(&t);
	CHECK_EQ(nc_topo_open(&t, "star:x", &e), -EINVAL);
	CHECK(strstr(e.msg, "bad spec") != NULL);
	CHECK_EQ(nc_topo_open(&t, "selftests/net/topologies/figure1.topo", &e), 0);
	nc_topo_free(&t);
	CHECK(nc_topo_spec_like("ft:2:8,8@1000"));
	CHECK(nc_topo_spec_like("xgft:2:4,4:1,2"));
	CHECK(!nc_topo_spec_like("foo:1"));
	CHECK(!nc_topo_spec_like("star"));
	CHECK(!nc_topo_spec_like("my.topo"));
}

/* A file with DOS line ends reads as the same file with Unix ones. */
TEST(crlf_lines_parse_like_lf)
{
	const char *lf = "# c\nswitch s0 \nswitch s1\nlink s0 s1 rate 1gbit\n"
			 "host h1 s0 rate 100mbit\nhost h2 s1\n";
	char crlf[256];
	struct nc_topo a, b;
	struct nc_topo_err e;
	size_t i, j;

	for (i = j = 0; lf[i]; i++) {
		if (lf[i] == '\n')
			crlf[j++] = '\r';
		crlf[j++] = lf[i];
	}
	crlf[j] = '\0';
	CHECK_EQ(nc_topo_parse(&a, lf, &e), 0);
	CHECK_EQ(nc_topo_parse(&b, crlf, &e), 0);
	CHECK_EQ(a.nnodes, b.nnodes);
	CHECK_EQ(a.nlinks, b.nlinks);
	CHECK_EQ(a.nhosts, 2);
	CHECK_EQ(b.nhosts, 2);
	for (i = 0; i < a.nnodes && i < b.nnodes; i++)
		CHECK(strcmp(a.nodes[i].name, b.nodes[i].name) == 0);
	for (i = 0; i < a.nlinks && i < b.nlinks; i++)
		CHECK(a.links[i].rate_mbit == b.links[i].rate_mbit);
	nc_topo_free(&a);
	nc_topo_free(&b);
}

/* --- builders and nc_topo_finish ------------------------------------------------ */

TEST(builders_check_names)
{
	struct nc_topo t;

	nc_topo_init(&t);
	CHECK_EQ(nc_topo_add_switch(&t, "s0"), 0);
	CHECK_EQ(nc_topo_add_host(&t, "h1"), 1);
	CHECK_EQ(nc_topo_add_host(&t, "s0"), -EEXIST);
	CHECK_EQ(nc_topo_add_host(&t, "1h"), -EINVAL);
	CHECK_EQ(nc_topo_add_host(&t, ""), -EINVAL);
	CHECK_EQ(nc_topo_add_host(&t, "a b"), -EINVAL);
	CHECK_EQ(nc_topo_add_switch(&t, "fabric"), -EPERM);
	CHECK_EQ(nc_topo_add_switch(&t, "s234567890123456789012345678901"), 2);
	CHECK_EQ(nc_topo_add_switch(&t, "s2345678901234567890123456789012"),
		 -ENAMETOOLONG);
	CHECK_EQ(nc_topo_add_link(&t, 0, 9, 0, 0), -EINVAL);
	CHECK_EQ(nc_topo_add_link(&t, 0, 1, -1, 0), -EINVAL);
	CHECK_EQ(nc_topo_add_link(&t, 1, 0, 10, 5), 0);
	CHECK_EQ(nc_topo_find(&t, "h1"), 1);
	CHECK_EQ(nc_topo_find(&t, "h2"), -ENOENT);
	CHECK_EQ(t.nodes[1].host, 0);
	CHECK_EQ(t.host_node[0], 1);
	CHECK_EQ(t.nodes[0].host, NC_TOPO_NONE);
	nc_topo_free(&t);
	nc_topo_free(&t);			/* twice is fine */
}

/* Builds switches s0..s(ns-1), hosts h1..h(nh) and the given links. */
static int build(struct nc_topo *t, uint32_t ns, uint32_t nh,
		 const uint32_t (*links)[2], size_t nlinks, struct nc_topo_err *e)
{
	char name[16];
	uint32_t i;

	nc_topo_init(t);
	for (i = 0; i < ns; i++) {
		snprintf(name, sizeof(name), "s%u", i);
		nc_topo_add_switch(t, name);
	}
	for (i = 0; i < nh; i++) {
		snprintf(name, sizeof(name), "h%u", i + 1);
		nc_topo_add_host(t, name);
	}
	for (i = 0; i < nlinks; i++)
		nc_topo_add_link(t, links[i][0], links[i][1], 0, 0);
	return nc_topo_finish(t, e);
}

TEST(finish_validates_graphs)
{
	/* nodes: s0 = 0, s1 = 1, s2 = 2, h1 = 3, h2 = 4 */
	static const uint32_t ok[][2] = { { 3, 0 }, { 4, 1 }, { 0, 1 }, { 1, 2 } };
	static const uint32_t cycle[][2] = { { 3, 0 }, { 4, 1 }, { 0, 1 }, { 1, 2 }, { 2, 0 } };
	static const uint32_t self[][2] = { { 3, 0 }, { 4, 1 }, { 0, 1 }, { 2, 2 } };
	static const uint32_t two[][2] = { { 3, 0 }, { 3, 1 }, { 4, 1 }, { 0, 1 } };
	static const uint32_t hh[][2] = { { 3, 4 }, { 0, 1 }, { 1, 2 } };
	static const uint32_t dup[][2] = { { 3, 0 }, { 4, 1 }, { 0, 1 }, { 1, 2 }, { 1, 0 } };
	static const uint32_t apart[][2] = { { 3, 0 }, { 4, 1 }, { 0, 1 } };
	struct nc_topo_err e;
	struct nc_topo t;

	CHECK_EQ(build(&t, 3, 2, ok, 4, &e), 0);
	CHECK(t.is_tree);
	CHECK_EQ(t.adj_off[t.nnodes], 2 * t.nlinks);
	CHECK_EQ(degree(&t, 1), 3);
	nc_topo_free(&t);
	/* cycles are allowed (fat trees); they only clear is_tree */
	CHECK_EQ(build(&t, 3, 2, cycle, 5, &e), 0);
	CHECK(!t.is_tree);
	CHECK_EQ(nc_topo_path(&t, 3, 4, NULL, 0), -EOPNOTSUPP);
	CHECK_EQ(nc_topo_write(&t, stdout), -EINVAL);
	nc_topo_free(&t);
	CHECK_EQ(build(&t, 3, 2, self, 4, &e), -EINVAL);
	CHECK(strstr(e.msg, "to itself") != NULL);
	nc_topo_free(&t);
	CHECK_EQ(build(&t, 3, 2, two, 4, &e), -EINVAL);
	CHECK(strstr(e.msg, "host h1 has 2 links") != NULL);
	nc_topo_free(&t);
	CHECK_EQ(build(&t, 3, 2, hh, 3, &e), -EINVAL);
	CHECK(strstr(e.msg, "joins two hosts") != NULL);
	nc_topo_free(&t);
	CHECK_EQ(build(&t, 3, 2, dup, 5, &e), -EINVAL);
	CHECK(strstr(e.msg, "duplicate link") != NULL);
	nc_topo_free(&t);
	CHECK_EQ(build(&t, 3, 2, apart, 3, &e), -EINVAL);
	CHECK(strstr(e.msg, "switch s2 is not connected to s0") != NULL);
	nc_topo_free(&t);
	CHECK_EQ(build(&t, 3, 0, ok + 2, 2, &e), -EINVAL);
	CHECK(strstr(e.msg, "no hosts") != NULL);
	nc_topo_free(&t);
	/* names changed behind the builders' back */
	CHECK_EQ(build(&t, 3, 2, ok, 4, &e), 0);
	strcpy(t.nodes[2].name, "s1");
	CHECK_EQ(nc_topo_finish(&t, &e), -EINVAL);
	CHECK(strstr(e.msg, "duplicate name 's1'") != NULL);
	nc_topo_free(&t);
}

/* --- paths --------------------------------------------------------------------- */

static int path_is(const struct nc_topo *t, const char *const *names, uint32_t n)
{
	uint32_t edges[16], i;
	int len = nc_topo_path(t, node(t, names[0]), node(t, names[n - 1]),
			       edges, 16);

	if (len != (int)n - 1)
		return 0;
	for (i = 0; i + 1 < n; i++)
		if (edge_from(t, edges[i]) != node(t, names[i]) ||
		    edge_to(t, edges[i]) != node(t, names[i + 1]))
			return 0;
	return 1;
}

TEST(figure1_paths)
{
	static const char *const n0n3[] = { "n0", "s0", "s1", "s3", "n3" };
	static const char *const n3n0[] = { "n3", "s3", "s1", "s0", "n0" };
	static const char *const n2n5[] = { "n2", "s2", "s0", "s1", "n5" };
	static const char *const n5n2[] = { "n5", "s1", "s0", "s2", "n2" };
	static const char *const n3n4[] = { "n3", "s3", "n4" };
	static const char *const n1n2[] = { "n1", "s0", "s2", "n2" };
	static const char *const s2s3[] = { "s2", "s0", "s1", "s3" };
	struct nc_topo t;
	uint32_t edges[8];

	CHECK_EQ(load(&t, "figure1.topo"), 0);
	CHECK_EQ(t.nhosts, 6);
	CHECK_EQ(t.nnodes, 10);
	CHECK(path_is(&t, n0n3, 5));
	CHECK(path_is(&t, n3n0, 5));
	CHECK(path_is(&t, n2n5, 5));
	CHECK(path_is(&t, n5n2, 5));
	CHECK(path_is(&t, n3n4, 3));
	CHECK(path_is(&t, n1n2, 4));
	CHECK(path_is(&t, s2s3, 4));
	CHECK_EQ(nc_topo_path(&t, 3, 3, edges, 8), 0);
	/* too small a buffer: the length, and the first edges in order */
	memset(edges, 0xff, sizeof(edges));
	CHECK_EQ(nc_topo_path(&t, node(&t, "n0"), node(&t, "n3"), edges, 2), 4);
	CHECK_EQ(edge_to(&t, edges[1]), node(&t, "s1"));
	CHECK_EQ(edges[2], 0xffffffffu);
	CHECK_EQ(nc_topo_path(&t, 0, t.nnodes, edges, 8), -EINVAL);
	CHECK_EQ(nc_topo_path(&t, 0, 1, NULL, 8), -EINVAL);
	CHECK_EQ(nc_topo_path(&t, 0, 1, NULL, 0), 1);
	nc_topo_free(&t);
}

TEST(figure1_bottleneck_is_s0_s1_with_load_9)
{
	struct nc_topo t;
	uint32_t loads[32] = { 0 }, edges[16], a, b, e, best = 0;
	int len, i;

	CHECK_EQ(load(&t, "figure1.topo"), 0);
	for (a = 0; a < t.nhosts; a++) {
		for (b = 0; b < t.nhosts; b++) {
			if (a == b)
				continue;
			len = nc_topo_path(&t, t.host_node[a], t.host_node[b], edges, 16);
			for (i = 0; i < len; i++)
				loads[edges[i]]++;
		}
	}
	for (e = 0; e < 2 * t.nlinks; e++)
		if (loads[e] > loads[best])
			best = e;
	CHECK_EQ(loads[best], 9);		/* |M0| x (|M| - |M0|) = 3 x 3 */
	CHECK_EQ(loads[best ^ 1], 9);
	CHECK((edge_from(&t, best) == node(&t, "s0") && edge_to(&t, best) == node(&t, "s1")) ||
	      (edge_from(&t, best) == node(&t, "s1") && edge_to(&t, best) == node(&t, "s0")));
	nc_topo_free(&t);
}

/* --- generators ---------------------------------------------------------------- */

TEST(star_and_chain)
{
	struct nc_topo t;
	uint32_t r;

	CHECK_EQ(nc_topo_gen_star(&t, 16, 100), 0);
	CHECK_EQ(t.nhosts, 16);
	CHECK_EQ(t.nlinks, 16);
	CHECK(t.is_tree);
	CHECK(t.links[5].rate_mbit == 100);
	CHECK_EQ(nc_topo_find(&t, "h16"), (int)t.host_node[15]);
	nc_topo_free(&t);
	CHECK_EQ(nc_topo_gen_star(&t, 0, 100), -EINVAL);

	CHECK_EQ(nc_topo_gen_chain(&t, 4, 8, 100), 0);	/* Figure 5(c) */
	CHECK_EQ(t.nhosts, 32);
	CHECK_EQ(t.nnodes, 36);
	CHECK_EQ(t.nlinks, 35);
	CHECK(t.is_tree);
	for (r = 0; r < 32; r++) {
		uint32_t hn = t.host_node[r];
		const struct nc_topo_link *l = &t.links[t.adj[t.adj_off[hn]]];

		CHECK_EQ(l->a == hn ? l->b : l->a, r / 8);	/* switch r / 8 */
	}
	/* the ends of the chain have one trunk, the middle ones two */
	CHECK_EQ(degree(&t, 0), 9);
	CHECK_EQ(degree(&t, 1), 10);
	nc_topo_free(&t);
	CHECK_EQ(nc_topo_gen_chain(&t, 3, 0, 0), -EINVAL);
}

TEST(ft_3_4_4_2)
{
	static const uint32_t M[] = { 4, 4, 2 };
	struct nc_topo t;
	uint32_t per_level[4] = { 0 }, i, r;

	CHECK_EQ(nc_topo_gen_ft(&t, 3, M, 100), 0);
	CHECK_EQ(t.nhosts, 32);
	CHECK_EQ(t.nnodes, 32 + 8 + 2 + 1);
	CHECK_EQ(t.nlinks, t.nnodes - 1);
	CHECK(t.is_tree);
	CHECK_EQ(t.ft_levels, 3);
	CHECK_EQ(t.ft_m[0], 4);
	CHECK_EQ(t.ft_m[2], 2);
	CHECK_EQ(t.ft_w[1], 1);
	for (i = 0; i < t.nnodes; i++) {
		per_level[t.nodes[i].level]++;
		if (t.nodes[i].level)	/* switches have M_l children */
			CHECK_EQ(degree(&t, i) - (t.nodes[i].level < 3),
				 M[t.nodes[i].level - 1]);
	}
	CHECK_EQ(per_level[0], 32);
	CHECK_EQ(per_level[1], 8);
	CHECK_EQ(per_level[2], 2);
	CHECK_EQ(per_level[3], 1);
	/* mixed radix, M1 least significant: ranks 4k..4k+3 share a switch,
	 * ranks 16k..16k+15 a level-2 switch */
	for (r = 1; r < 32; r++) {
		uint32_t e[8];
		int len = nc_topo_path(&t, t.host_node[r - 1], t.host_node[r], e, 8);

		CHECK_EQ(len, r % 16 == 0 ? 6 : r % 4 == 0 ? 4 : 2);
	}
	/* ideal fat tree: an uplink carries its whole subtree */
	for (i = 0; i < t.nlinks; i++) {
		uint32_t lo = t.nodes[t.links[i].a].level;

		CHECK_EQ(t.nodes[t.links[i].b].level, lo + 1);
		CHECK(t.links[i].rate_mbit == 100.0 * (lo == 0 ? 1 : lo == 1 ? 4 : 16));
	}
	nc_topo_free(&t);
}

/* Messages a link carries at once: its rate over the hosts', at most N. */
TEST(link_capacities)
{
	static const char mixed[] =
		"switch s\nswitch c\nswitch d\n"
		"host a s rate 1mbit\nhost b s rate 1mbit\nhost x d rate 1mbit\n"
		"link s c rate 2500kbit\nlink c d rate 100gbit\n";
	struct nc_topo_err e;
	struct nc_topo t;
	uint32_t cap[8], i;

	CHECK_EQ(nc_topo_parse(&t, mixed, &e), 0);
	nc_topo_link_capacities(&t, cap);
	for (i = 0; i < t.nlinks; i++) {
		const char *a = t.nodes[t.links[i].a].name;
		const char *b = t.nodes[t.links[i].b].name;

		if (t.nodes[t.links[i].a].kind == NC_NODE_HOST ||
		    t.nodes[t.links[i].b].kind == NC_NODE_HOST)
			CHECK_EQ(cap[i], 1);
		else if (!strcmp(a, "s") || !strcmp(b, "s"))
			CHECK_EQ(cap[i], 2);	/* 2.5 rounded down */
		else
			CHECK_EQ(cap[i], 3);	/* 100 000, but 3 hosts */
	}
	nc_topo_free(&t);
	/* one host at another rate: nothing is known to be fat */
	CHECK_EQ(nc_topo_parse(&t, "switch s\nswitch c\nhost a s rate 1mbit\n"
			       "host b s rate 2mbit\nlink s c rate 10mbit\n", &e), 0);
	nc_topo_link_capacities(&t, cap);
	for (i = 0; i < t.nlinks; i++)
		CHECK_EQ(cap[i], 1);
	nc_topo_free(&t);
}

/* Table 1 of Prisacari et al.: XGFT[h : m : w], 16 to 1024 nodes. */
static const struct {
	uint32_t nodes, h, m[4], w[4];
} table1[] = {
	{ 16, 3, { 4, 2, 2 }, { 1, 4, 1 } },
	{ 32, 3, { 4, 4, 2 }, { 1, 4, 2 } },
	{ 64, 3, { 8, 4, 2 }, { 1, 8, 2 } },
	{ 128, 3, { 8, 8, 2 }, { 1, 8, 4 } },
	{ 256, 4, { 8, 4, 4, 2 }, { 1, 8, 4, 2 } },
	{ 512, 4, { 8, 8, 4, 2 }, { 1, 8, 8, 2 } },
	{ 1024, 4, { 8, 8, 8, 2 }, { 1, 8, 8, 4 } },
};

TEST(every_table1_xgft_builds)
{
	size_t c;

	for (c = 0; c < sizeof(table1) / sizeof(table1[0]); c++) {
		uint32_t H = table1[c].h, count[5] = { 0 }, l, i, r;
		uint64_t nodes = 0, links = 0;
		const uint32_t *m = table1[c].m, *w = table1[c].w;
		struct nc_topo t;

		CHECK_EQ(nc_topo_gen_xgft(&t, H, m, w, 100), 0);
		CHECK_EQ(t.nhosts, table1[c].nodes);
		CHECK(!t.is_tree);
		CHECK_EQ(t.ft_levels, H);
		for (l = 0; l <= H; l++) {
			/* S(l) = w1..wl * m(l+1)..mh; E(l) = S(l) * ml */
			uint64_t s = 1;

			for (i = 0; i < H; i++)
				s *= i < l ? w[i] : m[i];
			nodes += s;
			if (l)
				links += s * m[l - 1];
		}
		CHECK_EQ(t.nnodes, nodes);
		CHECK_EQ(t.nlinks, links);
		for (i = 0; i < t.nnodes; i++) {
			l = t.nodes[i].level;
			count[l]++;
			/* m_l children below, w_(l+1) parents above */
			CHECK_EQ(degree(&t, i), (l ? m[l - 1] : 0) + (l < H ? w[l] : 0));
		}
		for (i = 0; i < t.nlinks; i++)
			CHECK_EQ(t.nodes[t.links[i].b].level,
				 t.nodes[t.links[i].a].level + 1);
		/* hosts under one level-1 switch are consecutive ranks */
		for (r = 0; r < t.nhosts; r++) {
			uint32_t hn = t.host_node[r], h0 = t.host_node[r - r % m[0]];

			CHECK_EQ(t.links[t.adj[t.adj_off[hn]]].b,
				 t.links[t.adj[t.adj_off[h0]]].b);
		}
		if (table1[c].nodes == 1024) {
			CHECK_EQ(count[1], 128);
			CHECK_EQ(count[4], 256);
		}
		nc_topo_free(&t);
	}
}

TEST(xgft_parameters)
{
	static const uint32_t m[] = { 4, 4 }, w_bad[] = { 2, 4 }, w_ones[] = { 1, 1 };
	struct nc_topo t;

	CHECK_EQ(nc_topo_gen_xgft(&t, 2, m, w_bad, 0), -EINVAL);	/* w1 != 1 */
	CHECK_EQ(nc_topo_gen_xgft(&t, 0, m, w_ones, 0), -EINVAL);
	CHECK_EQ(nc_topo_gen_xgft(&t, 9, m, w_ones, 0), -EINVAL);
	/* all w = 1 is a tree: FT(2; 4, 4) with flat rates */
	CHECK_EQ(nc_topo_gen_xgft(&t, 2, m, w_ones, 10), 0);
	CHECK(t.is_tree);
	CHECK_EQ(t.nhosts, 16);
	CHECK(t.links[t.nlinks - 1].rate_mbit == 10);
	nc_topo_free(&t);
}

TEST(random_trees_of_1024_hosts)
{
	static const uint32_t switches[] = { 1, 7, 64, 300, 2000 };
	size_t i;

	for (i = 0; i < sizeof(switches) / sizeof(switches[0]); i++) {
		struct nc_topo t, u, v;
		uint32_t l, same = 1;

		CHECK_EQ(nc_topo_gen_random_tree(&t, switches[i], 1024, 42 + i), 0);
		CHECK_EQ(t.nhosts, 1024);
		CHECK_EQ(t.nnodes, switches[i] + 1024);
		CHECK(t.is_tree);			/* finish: connected, acyclic */
		CHECK_EQ(t.nlinks, t.nnodes - 1);
		/* the same seed, the same tree; another seed, another tree */
		CHECK_EQ(nc_topo_gen_random_tree(&u, switches[i], 1024, 42 + i), 0);
		CHECK_EQ(nc_topo_gen_random_tree(&v, switches[i], 1024, 4242 + i), 0);
		for (l = 0; l < t.nlinks; l++) {
			CHECK_EQ(t.links[l].a, u.links[l].a);
			CHECK_EQ(t.links[l].b, u.links[l].b);
			same &= t.links[l].b == v.links[l].b;
		}
		CHECK(switches[i] == 1 || !same);
		nc_topo_free(&t);
		nc_topo_free(&u);
		nc_topo_free(&v);
	}
}

TEST(specs)
{
	static const struct {
		const char *spec;
		uint32_t hosts, levels;
		double rate;
	} ok[] = {
		{ "star:16", 16, 1, 0 },
		{ "star:16@100", 16, 1, 100 },
		{ "star:4@2.5", 4, 1, 2.5 },
		{ "star:4@1gbit", 4, 1, 1000 },
		{ "star:4@500kbit", 4, 1, 0.5 },
		{ "chain:3x4", 12, 0, 0 },
		{ "ft:3:4,4,2", 32, 3, 0 },
		{ "ft:2:8,2@100", 16, 2, 100 },
		{ "xgft:2:8,4:1,4", 32, 2, 0 },
		{ "xgft:4:8,8,8,2:1,8,8,4@100", 1024, 4, 100 },
		{ "random:5:20:7", 20, 0, 0 },
		{ "random:1:3:18446744073709551615@10", 3, 1, 10 },
	};
	static const char *const bad[] = {
		"", "star", "star:", "star:0", "star:x", "star:16:", "star:-1",
		"star:65535", "star:16@", "star:16@0", "star:16@fast", "star:16@1.",
		"chain:3", "chain:3x", "chain:0x4", "chain:3x4x5",
		"ft:3:4,4", "ft:2:4,4,2", "ft:0:", "ft:9:1,1,1,1,1,1,1,1,1",
		"ft:2:4,,4", "ft:2:4,0", "ft:3:64,64,64",
		"xgft:2:8,4:2,4", "xgft:2:8,4:1", "xgft:2:8,4", "xgft:2:8,4:1,4:",
		"random:5:20", "random:5:20:", "random:0:20:1", "random:5:0:1",
		"torus:4", "STAR:4",
	};
	struct nc_topo_err e;
	struct nc_topo t;
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		int ret = nc_topo_gen_spec(&t, ok[i].spec, &e);

		if (ret)
			printf("# %s: %s\n", ok[i].spec, e.msg);
		CHECK_EQ(ret, 0);
		CHECK_EQ(t.nhosts, ok[i].hosts);
		CHECK_EQ(t.ft_levels, ok[i].levels);
		CHECK(t.nlinks && t.links[t.adj[t.adj_off[t.host_node[0]]]].rate_mbit ==
		      ok[i].rate);
		nc_topo_free(&t);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret = nc_topo_gen_spec(&t, bad[i], &e);

		if (ret >= 0)
			printf("# accepted: '%s'\n", bad[i]);
		CHECK(ret < 0);
		CHECK(e.msg[0] != '\0');
		CHECK_EQ(t.nnodes, 0);
	}
}

/* --- the writer ------------------------------------------------------------------ */

/* Same nodes, ranks, links (ends as names, either order), rates, delays. */
static int same(const struct nc_topo *x, const struct nc_topo *y)
{
	uint32_t i;

	if (x->nnodes != y->nnodes || x->nhosts != y->nhosts ||
	    x->nlinks != y->nlinks || x->ft_levels != y->ft_levels)
		return 0;
	for (i = 0; i < x->nnodes; i++) {
		int j = nc_topo_find(y, x->nodes[i].name);

		if (j < 0 || y->nodes[j].kind != x->nodes[i].kind ||
		    y->nodes[j].host != x->nodes[i].host ||
		    y->nodes[j].level != x->nodes[i].level)
			return 0;
	}
	for (i = 0; i < x->nlinks; i++) {
		const struct nc_topo_link *l = &x->links[i];
		uint32_t a = node(y, x->nodes[l->a].name);
		uint32_t b = node(y, x->nodes[l->b].name), k;
		int found = 0;

		for (k = y->adj_off[a]; k < y->adj_off[a + 1]; k++) {
			const struct nc_topo_link *m = &y->links[y->adj[k]];

			if ((m->a == b || m->b == b) && m->rate_mbit == l->rate_mbit &&
			    m->delay_us == l->delay_us)
				found = 1;
		}
		if (!found)
			return 0;
	}
	return 1;
}

static int round_trip(const struct nc_topo *t)
{
	struct nc_topo_err e;
	struct nc_topo u;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int ok;

	if (!f)
		return 0;
	ok = nc_topo_write(t, f) == 0;
	fclose(f);
	ok = ok && nc_topo_parse(&u, text, &e) == 0;
	if (!ok)
		printf("# %s\n%s", e.msg, text);
	ok = ok && same(t, &u);
	if (ok)
		nc_topo_free(&u);
	free(text);
	return ok;
}

TEST(parse_write_round_trip)
{
	static const char *const files[] = {
		"star8.topo", "two-switch.topo", "two-switch-8x2.topo",
		"figure1.topo", "chain3x4.topo", "two-level-ft.topo",
	};
	static const uint32_t M[] = { 4, 4, 2 };
	static const char text[] =
		"switch a\nswitch b\nhost x b rate 7bit delay 0.001us\n"
		"host y a rate 123456789bit delay 1.234567ms\n"
		"host z a rate 999kbit delay 3s\nlink b a rate 1gbit delay 0.1ms\n";
	struct nc_topo t;
	uint64_t seed = 1;
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		CHECK_EQ(load(&t, files[i]), 0);
		CHECK(round_trip(&t));
		nc_topo_free(&t);
	}
	CHECK_EQ(nc_topo_parse(&t, text, NULL), 0);
	CHECK(round_trip(&t));
	nc_topo_free(&t);
	CHECK_EQ(nc_topo_gen_ft(&t, 3, M, 100), 0);
	CHECK(round_trip(&t));
	nc_topo_free(&t);
	CHECK_EQ(nc_topo_gen_chain(&t, 4, 8, 1000), 0);
	CHECK(round_trip(&t));
	nc_topo_free(&t);
	/* odd rates and delays, as a caller might set them */
	CHECK_EQ(nc_topo_gen_random_tree(&t, 50, 200, 9), 0);
	for (i = 0; i < t.nlinks; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		t.links[i].rate_mbit = (double)(seed >> 40) / 1e3;
		t.links[i].delay_us = (double)(seed >> 50) / 8;
	}
	CHECK(round_trip(&t));
	nc_topo_free(&t);
}

/* --- speed ------------------------------------------------------------------------ */

static double ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e3 +
	       (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

TEST(hosts_1024_in_well_under_10_ms)
{
	static const uint32_t m[] = { 8, 8, 8, 2 }, w[] = { 1, 8, 8, 4 };
	const char *pre = getenv("LD_PRELOAD");
	int slow = pre && strstr(pre, "vgpreload");	/* under valgrind */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct timespec t0;
	struct nc_topo t;
	double parse_ms, xgft_ms, random_ms;

	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_EQ(nc_topo_gen_random_tree(&t, 100, 1024, 5), 0);
	CHECK_EQ(nc_topo_write(&t, f), 0);
	fclose(f);
	nc_topo_free(&t);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_EQ(nc_topo_parse(&t, text, NULL), 0);
	parse_ms = ms_since(&t0);
	nc_topo_free(&t);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_EQ(nc_topo_gen_xgft(&t, 4, m, w, 100), 0);
	xgft_ms = ms_since(&t0);
	nc_topo_free(&t);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CHECK_EQ(nc_topo_gen_random_tree(&t, 1024, 1024, 5), 0);
	random_ms = ms_since(&t0);
	nc_topo_free(&t);
	free(text);
	printf("# 1024 hosts: parse %.2f ms, XGFT %.2f ms, random %.2f ms\n",
	       parse_ms, xgft_ms, random_ms);
	if (!slow) {
		CHECK(parse_ms < 10);
		CHECK(xgft_ms < 10);
		CHECK(random_ms < 10);
	}
}

/*
 * InfiniBand dumps (topo_ib.c), written as ibnetdiscover and ibroute print
 * them: rates of every width and speed, names from node descriptions, a
 * CA with two cables, parallel trunks and routed paths.  Real tool output
 * on simulated fabrics is selftests/ib/t_ib_topo.sh.
 */
static const char ib_fabric[] =
	"#\n# Topology file: generated by hand\n#\n\n"
	"vendid=0x2c9\ndevid=0xc738\nsysimgguid=0x10\nswitchguid=0x10(10)\n"
	"Switch\t36 \"S-0000000000000010\"\t\t# \"MF0;leaf1:SX6036/U1\" base port 0 lid 1 lmc 0\n"
	"[1]\t\"H-0000000000000001\"[1](2) \t\t# \"node1 mlx5_0\" lid 3 4xFDR\n"
	"[2]\t\"H-0000000000000004\"[1](5) \t\t# \"node10 mlx5_0\" lid 4 12xEDR\n"
	"[3]\t\"S-0000000000000020\"[3]\t\t# \"spine\" lid 2 2xHDR\n"
	"[4]\t\"S-0000000000000020\"[4]\t\t# \"spine\" lid 2 2xHDR\n"
	"[5]\t\"H-0000000000000001\"[2](3) \t\t# \"node1 mlx5_0\" lid 6 1xSDR\n\n"
	"switchguid=0x20(20)\n"
	"Switch\t36 \"S-0000000000000020\"\t\t# \"spine\" base port 0 lid 2 lmc 0\n"
	"[1]\t\"H-0000000000000007\"[1](8) \t\t# \"node2 mlx5_0\" lid 5 4xQDR\n"
	"[3]\t\"S-0000000000000010\"[3]\t\t# \"MF0;leaf1:SX6036/U1\" lid 1 2xHDR\n"
	"[4]\t\"S-0000000000000010\"[4]\t\t# \"MF0;leaf1:SX6036/U1\" lid 1 2xHDR\n\n"
	"caguid=0x1\nCa\t2 \"H-0000000000000001\"\t\t# \"node1 mlx5_0\"\n"
	"[1](2) \t\"S-0000000000000010\"[1]\t\t# lid 3 lmc 0 \"MF0;leaf1:SX6036/U1\" lid 1 4xFDR\n"
	"[2](3) \t\"S-0000000000000010\"[5]\t\t# lid 6 lmc 0 \"MF0;leaf1:SX6036/U1\" lid 1 1xSDR\n\n"
	"caguid=0x4\nCa\t1 \"H-0000000000000004\"\t\t# \"node10 mlx5_0\"\n"
	"[1](5) \t\"S-0000000000000010\"[2]\t\t# lid 4 lmc 0 \"MF0;leaf1:SX6036/U1\" lid 1 12xEDR\n\n"
	"caguid=0x7\nCa\t1 \"H-0000000000000007\"\t\t# \"node2 mlx5_0\"\n"
	"[1](8) \t\"S-0000000000000020\"[1]\t\t# lid 5 lmc 0 \"spine\" lid 2 4xQDR\n";

static const char ib_routes[] =
	"Unicast lids [0x0-0x6] of switch Lid 1 guid 0x0000000000000010 (MF0;leaf1:SX6036/U1):\n"
	"  Lid  Out   Destination\n       Port     Info \n"
	"0x0001 000 : (Switch portguid 0x0000000000000010: 'MF0;leaf1:SX6036/U1')\n"
	"0x0003 001 : (Channel Adapter portguid 0x0000000000000002: 'node1 mlx5_0')\n"
	"0x0004 002 : (Channel Adapter portguid 0x0000000000000005: 'node10 mlx5_0')\n"
	"0x0005 004 : (Channel Adapter portguid 0x0000000000000008: 'node2 mlx5_0')\n"
	"4 valid lids dumped \n"
	"Unicast lids [0x0-0x6] of switch Lid 2 guid 0x0000000000000020 (spine):\n"
	"0x0003 003 : (Channel Adapter portguid 0x0000000000000002: 'node1 mlx5_0')\n"
	"0x0004 004 : (Channel Adapter portguid 0x0000000000000005: 'node10 mlx5_0')\n"
	"0x0005 001 : (Channel Adapter portguid 0x0000000000000008: 'node2 mlx5_0')\n"
	"3 valid lids dumped \n";

TEST(infiniband_dumps)
{
	struct nc_topo_err err;
	struct nc_topo t;
	uint32_t e[8], i, h1, h2, h10, s;
	int n, in_lfts;

	n = nc_topo_parse_ib(&t, ib_fabric, ib_routes, &err, &in_lfts);
	CHECK_EQ(n, 0);
	if (n) {
		printf("# %u: %s\n", err.line, err.msg);
		return;
	}
	/* hosts in version order of their names; the switch without a
	 * valid first word keeps its id */
	CHECK_EQ(t.nhosts, 3);
	CHECK(!strcmp(t.nodes[t.host_node[0]].name, "node1"));
	CHECK(!strcmp(t.nodes[t.host_node[1]].name, "node2"));
	CHECK(!strcmp(t.nodes[t.host_node[2]].name, "node10"));
	CHECK(nc_topo_find(&t, "spine") >= 0);
	CHECK(nc_topo_find(&t, "MF0_leaf1_SX6036_U1") >= 0);
	/* node1's second cable (1xSDR) is left out: 3 host links, 2 trunks */
	CHECK_EQ(t.nlinks, 5);
	CHECK(t.parallel_links && !t.is_tree && t.route);
	h1 = t.host_node[0];
	h2 = t.host_node[1];
	h10 = t.host_node[2];
	s = t.adj[t.adj_off[h1]];
	CHECK(t.links[s].rate_mbit > 54545 && t.links[s].rate_mbit < 54546);	/* 4xFDR */
	CHECK_EQ(t.links[t.adj[t.adj_off[h10]]].rate_mbit, 300000);		/* 12xEDR */
	CHECK_EQ(t.links[t.adj[t.adj_off[h2]]].rate_mbit, 32000);		/* 4xQDR */
	for (i = 0; i < t.nlinks; i++)
		if (t.nodes[t.links[i].a].kind == NC_NODE_SWITCH &&
		    t.nodes[t.links[i].b].kind == NC_NODE_SWITCH)
			CHECK_EQ(t.links[i].rate_mbit, 100000);		/* 2xHDR */
	/* node1 -> node2 leaves the leaf by port 4 (its table says so) */
	n = nc_topo_path(&t, h1, h2, e, 8);
	CHECK_EQ(n, 3);
	CHECK_EQ(t.links[NC_EDGE_LINK(e[1])].port_a + t.links[NC_EDGE_LINK(e[1])].port_b, 8);
	/* node2 -> node10 enters the leaf by port 4 too, and ends at node10 */
	n = nc_topo_path(&t, h2, h10, e, 8);
	CHECK_EQ(n, 3);
	CHECK_EQ(t.links[NC_EDGE_LINK(e[1])].port_a, 4);
	CHECK(nc_topo_a2a_bound_ns(&t) > 0);
	nc_topo_free(&t);

	/* a host the tables do not route to */
	n = nc_topo_parse_ib(&t, ib_fabric, strstr(ib_routes, "Unicast lids [0x0-0x6] of switch Lid 2"),
			     &err, &in_lfts);
	CHECK_EQ(n, 0);
	if (!n) {
		CHECK_EQ(nc_topo_path(&t, t.host_node[1], t.host_node[2], e, 8),
			 -EHOSTUNREACH);
		nc_topo_free(&t);
	}
	/* errors name their text and line */
	CHECK_EQ(nc_topo_parse_ib(&t, ib_fabric, "Unicast lids of switch Lid 1 guid 0x99 (x):\n",
				  &err, &in_lfts), -EINVAL);
	CHECK(in_lfts && err.line == 1 && strstr(err.msg, "not in the fabric"));
	CHECK_EQ(nc_topo_parse_ib(&t, "Switch 8 \"a\"\n[1] \"b\"[1]\n", NULL, &err, &in_lfts),
		 -EINVAL);
	CHECK(!in_lfts && err.line == 2 && strstr(err.msg, "no record of node \"b\""));
	CHECK_EQ(t.nnodes, 0);
}

/*
 * LLDP (topo_lldp.c), as `lldpcli -f json` prints it: a chassis keyed by
 * its system name, one interface as an object instead of a list, a host
 * with a second cable, a host with no listing of its own, a cable seen
 * from both ends, rates from MAU types.  Real lldpd output on the emulated
 * clusters is selftests/net/t_topo.sh.
 */
#define LL_CH(name, mac, cap) \
	"{\"" name "\":{\"id\":{\"type\":\"mac\",\"value\":\"" mac "\"}," \
	"\"capability\":[{\"type\":\"Router\",\"enabled\":false}," \
	"{\"type\":\"" cap "\",\"enabled\":true}]}}"
#define LL_LOCAL(ch)	"{\"local-chassis\":{\"chassis\":" ch "}}\n"
#define LL_NB(ifname, ch, mau) \
	"{\"" ifname "\":{\"via\":\"LLDP\",\"chassis\":" ch ",\"port\":{\"id\":" \
	"{\"type\":\"ifname\",\"value\":\"p\"},\"auto-negotiation\":" \
	"{\"supported\":false,\"enabled\":false,\"current\":\"" mau "\"}}}}"
#define LL_LEAF		LL_CH("leaf1", "0a:00:00:00:00:01", "Bridge")
#define LL_SPINE	LL_CH("spine", "0a:00:00:00:00:02", "Bridge")
#define LL_NODE1	LL_CH("node1", "02:00:00:00:00:01", "Station")
#define LL_NODE2	LL_CH("node2", "02:00:00:00:00:02", "Station")
#define LL_NODE10	LL_CH("node10", "02:00:00:00:00:0a", "Station")

static const char *const ll_texts[] = {
	LL_LOCAL(LL_LEAF) "{\"lldp\":{\"interface\":["
	LL_NB("swp1", LL_NODE1, "1000BaseTFD - Four-pair Category 5 UTP, full duplex mode") ","
	LL_NB("swp2", LL_NODE10, "10GbaseT - Four-pair Category 6A or better") ","
	LL_NB("swp3", LL_SPINE, "10GbaseR - R PCS/PMA, serial 1550 nm") "]}}\n",
	/* spine lists node1's second cable too, and the trunk again */
	LL_LOCAL(LL_SPINE) "{\"lldp\":{\"interface\":["
	LL_NB("swp1", LL_NODE2, "100BaseTXFD - 2 pair category 5 UTP, full duplex mode") ","
	LL_NB("swp2", LL_NODE1, "1000BaseTFD") ","
	LL_NB("swp3", LL_LEAF, "10GbaseR") "]}}",
	/* two nodes in one text; node10's one interface is an object */
	LL_LOCAL(LL_NODE1) "{\"lldp\":{\"interface\":["
	LL_NB("eth0", LL_LEAF, "1000BaseTFD") "," LL_NB("eth1", LL_SPINE, "1000BaseTFD") "]}}"
	LL_LOCAL(LL_NODE10) "{\"lldp\":{\"interface\":"
	LL_NB("eth0", LL_LEAF, "10GbaseT") "}}",
};

TEST(lldp_views)
{
	uint32_t i, host, sw, bad, nleaf, nspine;
	struct nc_topo_err err;
	struct nc_topo t;
	char *text = NULL;
	size_t len = 0;
	FILE *f;
	int n;

	n = nc_topo_parse_lldp(&t, ll_texts, 3, &err, &bad);
	CHECK_EQ(n, 0);
	if (n) {
		printf("# text %u: %s\n", bad, err.msg);
		return;
	}
	/* hosts in version order; node2 has no listing of its own */
	CHECK_EQ(t.nhosts, 3);
	CHECK(!strcmp(t.nodes[t.host_node[0]].name, "node1"));
	CHECK(!strcmp(t.nodes[t.host_node[1]].name, "node2"));
	CHECK(!strcmp(t.nodes[t.host_node[2]].name, "node10"));
	nleaf = (uint32_t)nc_topo_find(&t, "leaf1");
	nspine = (uint32_t)nc_topo_find(&t, "spine");
	CHECK(t.nodes[nleaf].kind == NC_NODE_SWITCH && t.nodes[nspine].kind == NC_NODE_SWITCH);
	/* 3 host cables (node1's second left out) and one trunk, seen twice */
	CHECK_EQ(t.nlinks, 4);
	CHECK(t.is_tree);
	for (i = 0; i < t.nlinks; i++) {
		const struct nc_topo_link *l = &t.links[i];

		host = t.nodes[l->a].kind == NC_NODE_HOST ? l->a :
		       t.nodes[l->b].kind == NC_NODE_HOST ? l->b : NC_TOPO_NONE;
		sw = host == l->a ? l->b : l->a;
		if (host == NC_TOPO_NONE)
			CHECK_EQ(l->rate_mbit, 10000);
		else if (!strcmp(t.nodes[host].name, "node1"))
			CHECK(sw == nleaf && l->rate_mbit == 1000);
		else if (!strcmp(t.nodes[host].name, "node2"))
			CHECK(sw == nspine && l->rate_mbit == 100);
		else
			CHECK(sw == nleaf && l->rate_mbit == 10000);
	}
	/* written as text, it reads back the same */
	f = open_memstream(&text, &len);
	CHECK(f && nc_topo_write(&t, f) == 0);
	if (f)
		fclose(f);
	nc_topo_free(&t);
	CHECK(text && strstr(text, "host node2 spine rate 100mbit\n") &&
	      strstr(text, "link leaf1 spine rate 10gbit\n"));
	if (text && nc_topo_parse(&t, text, &err) == 0) {
		CHECK_EQ(t.nhosts, 3);
		CHECK_EQ(t.nlinks, 4);
		nc_topo_free(&t);
	}
	free(text);

	/* errors say which text and what */
	{
		const char *bad_texts[] = {
			ll_texts[0],
			"{\"lldp\":{\"interface\":[]}}",
			"{\"x\":1}",
			LL_LOCAL(LL_NODE2) "{\"lldp\":",
			LL_LOCAL(LL_NODE2) "{\"lldp\":[{\"interface\":[{\"name\":\"eth0\"}]}]}",
			LL_LOCAL("{\"node2\":{\"descr\":\"no id\"}}"),
			LL_LOCAL(LL_NODE2),
		};
		static const char *const want[] = {
			NULL, "before the chassis", "neither", "cut short",
			"json0", "without an ID", "node2: no cable seen",
		};

		for (i = 1; i < (sizeof(bad_texts) / sizeof(bad_texts[0])); i++) {
			const char *two[2] = { bad_texts[0], bad_texts[i] };

			CHECK_EQ(nc_topo_parse_lldp(&t, two, 2, &err, &bad), -EINVAL);
			CHECK(strstr(err.msg, want[i]) != NULL);
			/* the last one is the whole network's fault */
			CHECK_EQ(bad, i + 1 == (sizeof(bad_texts) / sizeof(bad_texts[0])) ? 2 : 1);
			CHECK_EQ(t.nnodes, 0);
		}
	}
	/* the hosts' views only: two stars with nothing between them */
	{
		const char *hosts_only[] = { ll_texts[2],
			LL_LOCAL(LL_NODE2) "{\"lldp\":{\"interface\":"
			LL_NB("eth0", LL_SPINE, "100BaseTXFD") "}}" };

		CHECK_EQ(nc_topo_parse_lldp(&t, hosts_only, 2, &err, &bad), -EINVAL);
		CHECK(strstr(err.msg, "not connected") != NULL);
	}
}

int main(void)
{
	RUN(every_topology_file_parses);
	RUN(known_files_have_their_shapes);
	RUN(every_error_names_its_line);
	RUN(too_many_hosts);
	RUN(options_are_read_like_cluster_sh);
	RUN(load_reads_files_and_reports_io_errors);
	RUN(open_tells_files_from_specs);
	RUN(crlf_lines_parse_like_lf);
	RUN(builders_check_names);
	RUN(finish_validates_graphs);
	RUN(figure1_paths);
	RUN(figure1_bottleneck_is_s0_s1_with_load_9);
	RUN(star_and_chain);
	RUN(ft_3_4_4_2);
	RUN(link_capacities);
	RUN(every_table1_xgft_builds);
	RUN(xgft_parameters);
	RUN(random_trees_of_1024_hosts);
	RUN(specs);
	RUN(parse_write_round_trip);
	RUN(hosts_1024_in_well_under_10_ms);
	RUN(infiniband_dumps);
	RUN(lldp_views);
	return DONE();
}

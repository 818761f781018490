// SPDX-License-Identifier: BSD-2-Clause
/*
 * nctl topo: what the planner makes of a topology, offline, and the path
 * between two hosts, computed here or asked of the topology query service
 * (netcoll-topod), so the two can be held side by side.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdl.h"
#include "nctl.h"
#include "print.h"

enum { S_TOPOLOGY };

static const struct opt show_opts[] = {
	[S_TOPOLOGY] = { "topology", OPT_VAL | OPT_REQ | OPT_POS, "TOPOLOGY" },
	{ NULL }
};

enum { PA_FROM, PA_TO, PA_TOPOLOGY, PA_SERVICE };

static const struct opt path_opts[] = {
	[PA_FROM] = { "from", OPT_VAL | OPT_REQ, "HOST" },
	[PA_TO] = { "to", OPT_VAL | OPT_REQ, "HOST" },
	[PA_TOPOLOGY] = { "topology", OPT_VAL, "TOPOLOGY" },
	[PA_SERVICE] = { "service", OPT_VAL, "ADDR" },
	{ NULL }
};

static int topo_show(int argc, char **argv);
static int topo_path(int argc, char **argv);
static int topo_discover(int argc, char **argv);
static int usage(int argc, char **argv);

static const struct cmd cmds[] = {
	{ "show",	topo_show,	show_opts, NULL },
	{ "path",	topo_path,	NULL,
	  "path from HOST to HOST { topology TOPOLOGY | service ADDR }" },
	{ "discover",	topo_discover,	NULL, "discover PATH..." },
	{ "help",	usage,		NULL, NULL },
	{ NULL }
};

static int usage(int argc, char **argv)
{
	(void)argc;	/* help takes no further words */
	(void)argv;
	cmd_usage(stdout, "topo", cmds);
	printf("TOPOLOGY := { FILE | ib:NETDISCOVER[,LFTS] | lldp:PATH[,PATH...] | SPEC }\n"
	       "ADDR := { unix:PATH | [HOST:]PORT }\n"
	       "\n"
	       "show prints the hosts in rank order, the switches and the links with\n"
	       "their rates; path the nodes from one host to another (the routed path\n"
	       "on an InfiniBand fabric read with its forwarding tables), its hops\n"
	       "and its slowest link, from the topology or from netcoll-topod(8).\n"
	       "discover writes, as a topology file, the Ethernet network that LLDP\n"
	       "shows: PATH is a file or a directory of *.json files, each holding a\n"
	       "host's or switch's `lldpcli -f json show chassis` followed by its\n"
	       "`lldpcli -f json show neighbors details`.\n");
	return NCTL_OK;
}

static int load(nc_topo **t, const char *topology)
{
	struct nc_topo_err e = { 0 };
	int err = nc_topo_create(t, topology, &e);

	if (!err)
		return 0;
	if (e.line)
		return nctl_fail("%s:%u: %s", topology, e.line, e.msg);
	return nctl_fail("%s: %s", topology, e.msg[0] ? e.msg : "cannot read");
}

static int topo_show(int argc, char **argv)
{
	struct optv v[ARRAY_SIZE(show_opts)];
	nc_topo *t;
	uint32_t i;
	int ret;

	ret = opt_parse(show_opts, v, argc, argv);
	if (ret)
		return ret;
	if (load(&t, v[S_TOPOLOGY].val))
		return NCTL_ERR;
	open_json_object(NULL);
	print_uint(PRINT_ANY, "hosts", "hosts %u", nc_topo_nhosts(t));
	print_uint(PRINT_ANY, "switches", " switches %u", nc_topo_nswitches(t));
	print_uint(PRINT_ANY, "links", " links %u", nc_topo_nlinks(t));
	print_bool(PRINT_ANY, "tree", " tree %s", nc_topo_is_tree(t));
	print_bool(PRINT_ANY, "routed", " routed %s\n", nc_topo_is_routed(t));
	open_json_array("ranks");
	for (i = 0; i < nc_topo_nhosts(t); i++) {
		print_text("rank %u ", i);
		print_string(PRINT_ANY, NULL, "%s\n", nc_topo_host_name(t, i));
	}
	close_json_array();
	open_json_array("links");
	for (i = 0; i < nc_topo_nlinks(t); i++) {
		struct nc_topo_link_info l;

		nc_topo_link_get(t, i, &l);
		open_json_object(NULL);
		print_string(PRINT_ANY, "a", "link %s", l.a);
		print_string(PRINT_ANY, "b", " %s", l.b);
		print_float(PRINT_ANY, "rate_mbit", " rate %.0f mbit", l.rate_mbit);
		if (l.port_a || l.port_b) {
			print_uint(PRINT_ANY, "port_a", " ports %u", l.port_a);
			print_uint(PRINT_ANY, "port_b", " %u", l.port_b);
		}
		print_nl();
		close_json_object();
	}
	close_json_array();
	close_json_object();
	nc_topo_destroy(t);
	return NCTL_OK;
}

static void print_route(const struct nc_topo_route *r)
{
	uint32_t i;

	open_json_object(NULL);
	open_json_array("nodes");
	print_text("path");
	for (i = 0; i <= r->hops; i++)
		print_string(PRINT_ANY, NULL, " %s", r->nodes[i]);
	close_json_array();
	print_uint(PRINT_ANY, "hops", " hops %u", r->hops);
	print_float(PRINT_ANY, "slowest_mbit", " slowest %.0f mbit\n", r->slowest_mbit);
	close_json_object();
}

/* The route from a to b in t, as the service would answer it. */
static int route_here(const nc_topo *t, const char *from, const char *to,
		      struct nc_topo_route *r)
{
	int a = nc_topo_host_rank(t, from), b = nc_topo_host_rank(t, to), err;

	if (a < 0)
		return nctl_fail("no host %s", from);
	if (b < 0)
		return nctl_fail("no host %s", to);
	err = nc_topo_host_path(t, (uint32_t)a, (uint32_t)b, r);
	if (err == -ENOMEM)
		return nctl_fail("out of memory");
	if (err)
		return nctl_fail("no path from %s to %s: %s", from, to,
				 err == -E2BIG ? "too long" : strerror(-err));
	return 0;
}

static int topo_path(int argc, char **argv)
{
	struct optv v[ARRAY_SIZE(path_opts)];
	struct nc_topo_route r;
	char msg[256];
	int ret;

	ret = opt_parse(path_opts, v, argc, argv);
	if (ret)
		return ret;
	if (!v[PA_TOPOLOGY].val == !v[PA_SERVICE].val)
		return nctl_usage("topo path needs topology TOPOLOGY or service ADDR");
	if (v[PA_TOPOLOGY].val) {
		nc_topo *t;

		if (load(&t, v[PA_TOPOLOGY].val))
			return NCTL_ERR;
		ret = route_here(t, v[PA_FROM].val, v[PA_TO].val, &r);
		nc_topo_destroy(t);
		if (ret)
			return NCTL_ERR;
	} else {
		ret = nc_topo_query(v[PA_SERVICE].val, v[PA_FROM].val, v[PA_TO].val,
				    &r, msg, sizeof(msg));
		if (ret)
			return nctl_fail("%s: %s", v[PA_SERVICE].val,
					 msg[0] ? msg : strerror(-ret));
	}
	print_route(&r);
	return NCTL_OK;
}

/* The text format, from every node's LLDP view (lldp:PATH,...). */
static int topo_discover(int argc, char **argv)
{
	size_t len = sizeof("lldp:");
	char *spec;
	nc_topo *t;
	int i, ret;

	if (argc < 1)
		return nctl_usage("topo discover needs PATH...");
	for (i = 0; i < argc; i++) {
		if (!argv[i][0] || strchr(argv[i], ','))
			return nctl_fail("%s: a path with a comma cannot be named",
					 argv[i]);
		len += strlen(argv[i]) + 1;
	}
	spec = malloc(len);
	if (!spec)
		return nctl_fail("out of memory");
	strcpy(spec, "lldp:");
	for (i = 0; i < argc; i++) {
		if (i)
			strcat(spec, ",");
		strcat(spec, argv[i]);
	}
	ret = load(&t, spec);
	free(spec);
	if (ret)
		return NCTL_ERR;
	ret = nc_topo_write(t, stdout);
	nc_topo_destroy(t);
	if (ret == -EINVAL)
		return nctl_fail("the network LLDP shows is not a tree (cycles or parallel cables): the text format cannot hold it; `nctl topo show lldp:PATH` lists it");
	if (ret)
		return nctl_fail("writing the topology: %s", strerror(-ret));
	return NCTL_OK;
}

int do_topo(int argc, char **argv)
{
	return run_cmd("topo", cmds, argc, argv, "help");
}

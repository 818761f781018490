// SPDX-License-Identifier: BSD-2-Clause
/*
 * What the planner made of an InfiniBand fabric, for selftests/ib/t_ib_topo.sh
 * to hold against the real tools:
 *
 *   ib_model NETDISCOVER [LFTS]
 *
 * prints "hosts H switches S links L tree 0|1", then per host
 * "host RANK NAME lid LID", per link "link A B RATE_MBIT", and with LFTS
 * per ordered host pair "path A B: A OUT>IN X OUT>IN ... B hops N slowest
 * RATE_MBIT" (the port each hop leaves by and the port it arrives at).
 * On a bad input: "error: FILE:LINE: reason" and exit 1.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../userlib/topo.h"

int main(int argc, char **argv)
{
	struct nc_topo_err err;
	struct nc_topo t;
	uint32_t *edges, s, d, i;
	int ret;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: ib_model NETDISCOVER [LFTS]\n");
		return 2;
	}
	ret = nc_topo_load_ib(&t, argv[1], argc > 2 ? argv[2] : NULL, &err);
	if (ret) {
		printf("error: %s\n", err.msg);
		return 1;
	}
	printf("hosts %u switches %u links %u tree %d\n", t.nhosts,
	       t.nnodes - t.nhosts, t.nlinks, t.is_tree);
	for (i = 0; i < t.nhosts; i++)
		printf("host %u %s\n", i, t.nodes[t.host_node[i]].name);
	for (i = 0; i < t.nlinks; i++)
		printf("link %s %s %.0f\n", t.nodes[t.links[i].a].name,
		       t.nodes[t.links[i].b].name, t.links[i].rate_mbit);
	edges = calloc(t.nnodes, sizeof(*edges));
	for (s = 0; edges && t.route && s < t.nhosts; s++) {
		for (d = 0; d < t.nhosts; d++) {
			uint32_t x = t.host_node[s];
			double slow = 0;
			int n;

			if (s == d)
				continue;
			n = nc_topo_path(&t, x, t.host_node[d], edges, t.nnodes);
			printf("path %s %s:", t.nodes[x].name,
			       t.nodes[t.host_node[d]].name);
			if (n < 0) {
				printf(" %s\n", strerror(-n));
				continue;
			}
			printf(" %s", t.nodes[x].name);
			for (i = 0; i < (uint32_t)n; i++) {
				const struct nc_topo_link *l = &t.links[NC_EDGE_LINK(edges[i])];
				int from_a = l->a == x;

				x = from_a ? l->b : l->a;
				printf(" %u>%u %s", from_a ? l->port_a : l->port_b,
				       from_a ? l->port_b : l->port_a, t.nodes[x].name);
				if (i == 0 || l->rate_mbit < slow)
					slow = l->rate_mbit;
			}
			printf(" hops %d slowest %.0f\n", n, slow);
		}
	}
	free(edges);
	nc_topo_free(&t);
	return 0;
}

// SPDX-License-Identifier: BSD-2-Clause
/* nctl stats: the counters of this network namespace. */
#include <inttypes.h>
#include <stdio.h>

#include "nctl.h"

static int usage(void)
{
	printf("Usage: nctl stats [ show ]\n"
	       "\n"
	       "Prints every netcoll counter of this network namespace, zeros\n"
	       "included.\n");
	return NCTL_OK;
}

int do_stats(int argc, char **argv)
{
	struct nc_stats st;
	unsigned int i;
	int err, first = 1;
	nc_ctl *ctl;

	if (argc > 0 && matches(argv[0], "help"))
		return usage();
	if (argc > 0 && !matches(argv[0], "show"))
		return nctl_usage("command \"%s\" of stats is unknown", argv[0]);
	if (argc > 1)
		return nctl_usage("unexpected argument \"%s\"", argv[1]);
	if (nctl_open(&ctl))
		return NCTL_ERR;
	err = nc_stats_get(ctl, &st);
	if (err) {
		nctl_lib_fail(ctl, err, "cannot read statistics");
		nc_ctl_close(ctl);
		return NCTL_ERR;
	}
	if (nctl_json)
		putchar('{');
	for (i = 0; i < NC_STAT_MAX; i++) {
		const char *name = nc_stat_name(i);
		char unnamed[16];

		/* Counters of a newer module have no name here yet. */
		if (!name) {
			if (i >= st.count || !st.value[i])
				continue;
			snprintf(unnamed, sizeof(unnamed), "stat_%u", i);
			name = unnamed;
		}
		if (nctl_json) {
			if (!first)
				putchar(',');
			json_key(name);
			printf("%" PRIu64, st.value[i]);
		} else {
			printf("%-16s %" PRIu64 "\n", name, st.value[i]);
		}
		first = 0;
	}
	if (nctl_json)
		puts("}");
	nc_ctl_close(ctl);
	return NCTL_OK;
}

// SPDX-License-Identifier: BSD-2-Clause
/* nctl stats: the counters of this network namespace. */
#include <inttypes.h>
#include <stdio.h>

#include "nctl.h"

static const struct opt show_opts[] = {
	{ NULL }
};

static int stats_show(int argc, char **argv);
static int usage(int argc, char **argv);

static const struct cmd cmds[] = {
	{ "show",	stats_show,	NULL, "[ show ]" },
	{ "help",	usage,		NULL, NULL },
	{ NULL }
};

static int usage(int argc, char **argv)
{
	(void)argc;	/* help takes no further words */
	(void)argv;
	cmd_usage(stdout, "stats", cmds);
	printf("\n"
	       "Prints every netcoll counter of this network namespace, zeros\n"
	       "included.\n");
	return NCTL_OK;
}

static int stats_show(int argc, char **argv)
{
	struct optv v[ARRAY_SIZE(show_opts)];
	struct nc_stats st;
	unsigned int i;
	nc_ctl *ctl;
	int err;

	err = opt_parse(show_opts, v, argc, argv);
	if (err)
		return err;
	if (nctl_open(&ctl))
		return NCTL_ERR;
	err = nc_stats_get(ctl, &st);
	if (err) {
		nctl_lib_fail(ctl, err, "cannot read statistics");
		nc_ctl_close(ctl);
		return NCTL_ERR;
	}
	open_json_object(NULL);
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
		print_string(PRINT_FP, NULL, "%-16s ", name);
		print_u64(PRINT_ANY, name, "%" PRIu64 "\n", st.value[i]);
	}
	close_json_object();
	nc_ctl_close(ctl);
	return NCTL_OK;
}

int do_stats(int argc, char **argv)
{
	return run_cmd("stats", cmds, argc, argv, "show");
}

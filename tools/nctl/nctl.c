// SPDX-License-Identifier: BSD-2-Clause
/*
 * nctl: configure netcoll, in the style of ip(8).
 *
 *   nctl [OPTIONS] OBJECT { COMMAND | help }
 *
 * Objects and commands may be abbreviated to any unambiguous prefix; the
 * first match in table order wins, as in ip.
 */
#include <stdio.h>
#include <string.h>

#include "nctl.h"

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: nctl [ OPTIONS ] OBJECT { COMMAND | help }\n"
		"       nctl help\n"
		"OBJECT := { dev | comm | sched | tree | stats | monitor }\n"
		"OPTIONS := { -j[son] | -h[elp] | -V[ersion] }\n"
		"\n"
		"  dev      attach and detach network devices, list them\n"
		"  comm     create, delete and show communicators\n"
		"  sched    compute, verify and install alltoall schedules\n"
		"  tree     reduction trees: show, install, model, plan\n"
		"  stats    show the counters of this network namespace\n"
		"  monitor  print netcoll events as they happen\n"
		"\n"
		"\"nctl OBJECT help\" describes the commands of an object.\n");
}

static int do_help(int argc, char **argv)
{
	usage(stdout);
	return NCTL_OK;
}

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
} objects[] = {
	{ "dev",	do_dev },
	{ "comm",	do_comm },
	{ "stats",	do_stats },
	{ "monitor",	do_monitor },
	{ "sched",	do_sched },
	{ "tree",	do_tree },
	{ "help",	do_help },
};

int main(int argc, char **argv)
{
	size_t i;

	/* Global options come before the object. */
	for (argc--, argv++; argc > 0 && argv[0][0] == '-'; argc--, argv++) {
		const char *opt = argv[0] + 1 + (argv[0][1] == '-');

		if (strcmp(argv[0], "--") == 0) {
			argc--, argv++;
			break;
		}
		if (matches(opt, "json")) {
			nctl_json = 1;
		} else if (matches(opt, "help")) {
			usage(stdout);
			return NCTL_OK;
		} else if (strcmp(opt, "V") == 0 || matches(opt, "version")) {
			printf("nctl (netcoll) %d.%d\n", NC_LIB_VERSION_MAJOR,
			       NC_LIB_VERSION_MINOR);
			return NCTL_OK;
		} else {
			return nctl_usage("option \"%s\" is unknown", argv[0]);
		}
	}
	if (argc == 0) {
		usage(stderr);
		return NCTL_USAGE;
	}
	for (i = 0; i < sizeof(objects) / sizeof(objects[0]); i++)
		if (matches(argv[0], objects[i].name))
			return objects[i].fn(argc - 1, argv + 1);
	return nctl_usage("object \"%s\" is unknown", argv[0]);
}

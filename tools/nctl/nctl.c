// SPDX-License-Identifier: BSD-2-Clause
/*
 * nctl: configure netcoll, in the style of ip(8).
 *
 *   nctl [OPTIONS] OBJECT { COMMAND | help }
 *
 * Objects and commands may be abbreviated to any prefix; the first match
 * in table order wins, as in ip.
 */
#include <stdio.h>
#include <string.h>

#include "nctl.h"

static int do_help(int argc, char **argv);

/* In the order of nctl.8 and of "nctl help", which is also the match order. */
static const struct cmd objects[] = {
	{ "dev",	do_dev,		NULL, "attach and detach network devices, list them" },
	{ "comm",	do_comm,	NULL, "create, delete and show communicators" },
	{ "sched",	do_sched,	NULL, "compute, verify and install alltoall schedules" },
	{ "tree",	do_tree,	NULL, "reduction trees: show, install, model, plan" },
	{ "stats",	do_stats,	NULL, "show the counters of this network namespace" },
	{ "monitor",	do_monitor,	NULL, "print netcoll events as they happen" },
	{ "topo",	do_topo,	NULL, "topologies: show, and paths between hosts (also from netcoll-topod)" },
	{ "help",	do_help,	NULL, NULL },
	{ NULL }
};

enum { G_JSON, G_HELP, G_VERSION };

/* Global options: -LETTER, or -WORD / --WORD for any prefix of WORD. */
static const struct {
	const char *letter, *word;
} globals[] = {
	[G_JSON] = { "j", "json" },
	[G_HELP] = { "h", "help" },
	[G_VERSION] = { "V", "version" },
};

static void usage(FILE *out)
{
	const char *sep = "";
	size_t i;

	fputs("Usage: nctl [ OPTIONS ] OBJECT { COMMAND | help }\n"
	      "       nctl help\n"
	      "OBJECT := {", out);
	for (i = 0; objects[i].name; i++) {
		if (!objects[i].help)
			continue;
		fprintf(out, " %s%s", sep, objects[i].name);
		sep = "| ";
	}
	fputs(" }\nOPTIONS := {", out);
	for (i = 0; i < ARRAY_SIZE(globals); i++)
		fprintf(out, "%s -%s[%s]", i ? " |" : "", globals[i].letter,
			globals[i].word + 1);
	fputs(" }\n\n", out);
	for (i = 0; objects[i].name; i++)
		if (objects[i].help)
			fprintf(out, "  %-8s %s\n", objects[i].name, objects[i].help);
	fputs("\n\"nctl OBJECT help\" describes the commands of an object.\n", out);
}

static int do_help(int argc, char **argv)
{
	(void)argc;	/* help takes no further words */
	(void)argv;
	usage(stdout);
	return NCTL_OK;
}

static int global_option(const char *arg)
{
	const char *opt = arg + 1 + (arg[1] == '-');
	size_t i;

	for (i = 0; i < ARRAY_SIZE(globals); i++)
		if (strcmp(opt, globals[i].letter) == 0 || matches(opt, globals[i].word))
			return (int)i;
	return -1;
}

int main(int argc, char **argv)
{
	const struct cmd *obj;
	int json = 0;

	/* Global options come before the object. */
	for (argc--, argv++; argc > 0 && argv[0][0] == '-'; argc--, argv++) {
		if (strcmp(argv[0], "--") == 0) {
			argc--, argv++;
			break;
		}
		switch (global_option(argv[0])) {
		case G_JSON:
			json = 1;
			break;
		case G_HELP:
			usage(stdout);
			return NCTL_OK;
		case G_VERSION:
			printf("nctl (netcoll) %d.%d\n", NC_LIB_VERSION_MAJOR,
			       NC_LIB_VERSION_MINOR);
			return NCTL_OK;
		default:
			return nctl_usage("option \"%s\" is unknown", argv[0]);
		}
	}
	print_init(json);
	if (argc == 0) {
		usage(stderr);
		return NCTL_USAGE;
	}
	obj = find_cmd(objects, argv[0]);
	if (!obj)
		return nctl_usage("object \"%s\" is unknown", argv[0]);
	snprintf(nctl_cmd, sizeof(nctl_cmd), "%s", obj->name);
	return obj->func(argc - 1, argv + 1);
}

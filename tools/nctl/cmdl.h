/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nctl: command and option tables, in the manner of iproute2's tipc/cmdl.h.
 *
 * Each level of the command line (objects, then each object's commands)
 * is a table of struct cmd; a word selects the first entry, in table
 * order, that it is a prefix of, as in ip(8).  Each command's keywords are
 * a table of struct opt, parsed once by opt_parse(): a keyword is given
 * whole or by a prefix of it that no other keyword has; unknown, repeated
 * and missing required keywords are errors that name them.
 */
#ifndef NCTL_CMDL_H
#define NCTL_CMDL_H

#include <stdio.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct opt;

struct cmd {
	const char *name;		/* NULL ends a table */
	int (*func)(int argc, char **argv);	/* argv: the words after name */
	/* the command's keywords: usage shows "name KEYWORDS" from them */
	const struct opt *opts;
	/*
	 * Objects: the line of "nctl help".  Commands: the synopsis after
	 * "nctl OBJECT ", for what the keywords cannot say by themselves.
	 * Neither help nor opts: an alias, not listed.
	 */
	const char *help;
};

/* "sched show": the object and command being run, for messages. */
extern char nctl_cmd[64];

/*
 * Runs the command of cmds that argv[0] selects (dflt without words):
 * "nctl OBJECT ...".  Unknown commands are usage errors.
 */
int run_cmd(const char *object, const struct cmd *cmds, int argc, char **argv,
	    const char *dflt);
const struct cmd *find_cmd(const struct cmd *cmds, const char *word);
/* "Usage: nctl OBJECT ..." and a line for each listed command. */
void cmd_usage(FILE *out, const char *object, const struct cmd *cmds);

/* Option flags. */
#define OPT_VAL		0x01	/* one value follows the keyword */
#define OPT_NUMS	0x02	/* OPT_COUNT(min, max): min values follow,
				 * then numbers, up to max in all
				 */
#define OPT_REQ		0x04	/* must be given */
#define OPT_POS		0x08	/* a word that is no keyword is its value (a
				 * number, for OPT_NUMS)
				 */
#define OPT_NOKEY	0x10	/* OPT_POS only: name is no keyword */
#define OPT_ALIAS	0x20	/* another spelling of the entry before;
				 * only whole, and not in usage
				 */
#define OPT_HIDE	0x40	/* not in usage */

#define OPT_VALS_MAX	4
#define OPT_COUNT(min, max)	(OPT_NUMS | (min) << 8 | (max) << 12)
#define OPT_MIN(flags)		((flags) >> 8 & 0xf)
#define OPT_MAX(flags)		((flags) >> 12 & 0xf)

struct opt {
	const char *name;	/* the keyword; NULL ends a table */
	unsigned int flags;
	const char *meta;	/* the value(s) in usage and messages: "ID" */
};

/* What opt_parse() found, one per entry of the table (aliases unused). */
struct optv {
	const char *val;	/* the value (vals[0]), the keyword of a
				 * flag; NULL: not given
				 */
	const char *vals[OPT_VALS_MAX];
	unsigned int n;
};

/*
 * Fills v[] (ARRAY_SIZE(opts) entries) from the words; 0, or the usage
 * error is printed and the exit status returned.
 */
int opt_parse(const struct opt *opts, struct optv *v, int argc, char **argv);
/* " [ kind KIND ] [ phases ]": the keywords as usage shows them. */
void opt_synopsis(FILE *out, const struct opt *opts);

/* A decimal number as the tree model takes it: "12", "0.5", ".5". */
int is_number(const char *text);

#endif /* NCTL_CMDL_H */

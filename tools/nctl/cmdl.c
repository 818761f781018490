// SPDX-License-Identifier: BSD-2-Clause
/* nctl: command and option tables (cmdl.h). */
#include <stdio.h>
#include <string.h>

#include "cmdl.h"
#include "nctl.h"

char nctl_cmd[64] = "nctl";

const struct cmd *find_cmd(const struct cmd *cmds, const char *word)
{
	const struct cmd *c;

	for (c = cmds; c->name; c++)
		if (matches(word, c->name))
			return c;
	return NULL;
}

/* An alias ("list") is reported under its command's name ("show"). */
static const char *cmd_name(const struct cmd *cmds, const struct cmd *c)
{
	const struct cmd *p;

	for (p = cmds; p != c; p++)
		if (p->func == c->func)
			return p->name;
	return c->name;
}

int run_cmd(const char *object, const struct cmd *cmds, int argc, char **argv,
	    const char *dflt)
{
	const char *word = argc > 0 ? argv[0] : dflt;
	const struct cmd *c = find_cmd(cmds, word);

	if (!c)
		return nctl_usage("command \"%s\" of %s is unknown", word, object);
	snprintf(nctl_cmd, sizeof(nctl_cmd), "%s %s", object, cmd_name(cmds, c));
	if (argc > 0) {
		argc--;
		argv++;
	}
	return c->func(argc, argv);
}

void cmd_usage(FILE *out, const char *object, const struct cmd *cmds)
{
	const char *lead = "Usage: ";
	const struct cmd *c;

	for (c = cmds; c->name; c++) {
		if (!c->help && !c->opts)
			continue;
		fprintf(out, "%snctl %s ", lead, object);
		if (c->help) {
			fputs(c->help, out);
		} else {
			fputs(c->name, out);
			opt_synopsis(out, c->opts);
		}
		fputc('\n', out);
		lead = "       ";
	}
}

void opt_synopsis(FILE *out, const struct opt *opts)
{
	const struct opt *o;

	for (o = opts; o->name; o++) {
		int req = o->flags & OPT_REQ;

		if (o->flags & (OPT_ALIAS | OPT_HIDE))
			continue;
		fputs(req ? " " : " [ ", out);
		if (!(o->flags & OPT_NOKEY))
			fprintf(out, "%s%s", o->name, o->meta ? " " : "");
		if (o->meta)
			fputs(o->meta, out);
		if (!req)
			fputs(" ]", out);
	}
}

int is_number(const char *text)
{
	return (text[0] >= '0' && text[0] <= '9') ||
	       (text[0] == '.' && text[1] >= '0' && text[1] <= '9');
}

/* The entry an alias stands for. */
static const struct opt *opt_main(const struct opt *opts, const struct opt *o)
{
	while (o > opts && (o->flags & OPT_ALIAS))
		o--;
	return o;
}

static const struct opt *opt_whole(const struct opt *opts, const char *word)
{
	const struct opt *o;

	for (o = opts; o->name; o++)
		if (!(o->flags & OPT_NOKEY) && strcmp(word, o->name) == 0)
			return opt_main(opts, o);
	return NULL;
}

/* The keyword word is the prefix of; NULL for none or several (said). */
static const struct opt *opt_prefix(const struct opt *opts, const char *word)
{
	const struct opt *o, *found = NULL;
	char names[256] = "";
	size_t len = 0;
	int n = 0;

	for (o = opts; o->name; o++) {
		if ((o->flags & (OPT_NOKEY | OPT_ALIAS)) || !matches(word, o->name))
			continue;
		found = o;
		if (len < sizeof(names))
			len += snprintf(names + len, sizeof(names) - len, "%s%s",
					n ? ", " : "", o->name);
		n++;
	}
	if (n > 1) {
		nctl_usage("%s: \"%s\" is ambiguous (%s)", nctl_cmd, word, names);
		return NULL;
	}
	if (!found)
		nctl_usage("%s: unexpected argument \"%s\"", nctl_cmd, word);
	return found;
}

/* The positional entry takes word: any word once, or numbers up to max. */
static int opt_bare(const struct opt *pos, const struct optv *v, const char *word)
{
	if (pos->flags & OPT_NUMS)
		return is_number(word) && v->n < OPT_MAX(pos->flags) &&
		       v->n < OPT_VALS_MAX;
	return v->n == 0;
}

/* "a", "a and b", "a, b and c": what a command lacks. */
static int opt_missing(const struct opt *opts, const struct optv *v)
{
	const struct opt *o;
	char what[256] = "";
	size_t len = 0;
	int n = 0, i = 0;

	for (o = opts; o->name; o++)
		n += (o->flags & OPT_REQ) && !(o->flags & OPT_ALIAS) && !v[o - opts].val;
	if (!n)
		return 0;
	for (o = opts; o->name; o++) {
		if (!(o->flags & OPT_REQ) || (o->flags & OPT_ALIAS) || v[o - opts].val)
			continue;
		i++;
		if (len < sizeof(what))
			len += snprintf(what + len, sizeof(what) - len, "%s%s%s%s",
					i == 1 ? "" : i == n ? " and " : ", ",
					o->flags & OPT_NOKEY ? "" : o->name,
					o->meta && !(o->flags & OPT_NOKEY) ? " " : "",
					o->meta ? o->meta : "");
	}
	return nctl_usage("%s needs %s", nctl_cmd, what);
}

int opt_parse(const struct opt *opts, struct optv *v, int argc, char **argv)
{
	const struct opt *o, *pos = NULL;
	struct optv *ov;
	unsigned int j;
	int i;

	for (o = opts; o->name; o++) {
		memset(&v[o - opts], 0, sizeof(*v));
		if (o->flags & OPT_POS)
			pos = o;
	}
	for (i = 0; i < argc; i++) {
		const char *word = argv[i];

		o = opt_whole(opts, word);
		if (!o && pos && opt_bare(pos, &v[pos - opts], word)) {
			ov = &v[pos - opts];
			ov->vals[ov->n++] = word;
			ov->val = ov->vals[0];
			continue;
		}
		if (!o)
			o = opt_prefix(opts, word);
		if (!o)
			return NCTL_USAGE;
		ov = &v[o - opts];
		if (ov->val)
			return nctl_usage("%s: \"%s\" is given twice", nctl_cmd, o->name);
		if (o->flags & OPT_NUMS) {
			for (j = 0; j < OPT_MAX(o->flags) && j < OPT_VALS_MAX &&
				    i + 1 < argc; j++) {
				if (j >= OPT_MIN(o->flags) && !is_number(argv[i + 1]))
					break;
				ov->vals[j] = argv[++i];
			}
			if (j < OPT_MIN(o->flags))
				return nctl_usage("%s: \"%s\" needs %s", nctl_cmd,
						  o->name, o->meta);
			ov->n = j;
			ov->val = ov->vals[0];
		} else if (o->flags & OPT_VAL) {
			if (i + 1 >= argc)
				return nctl_usage("%s: \"%s\" needs a value", nctl_cmd,
						  o->name);
			ov->vals[0] = ov->val = argv[++i];
			ov->n = 1;
		} else {
			ov->val = o->name;
		}
	}
	if (pos && (pos->flags & OPT_NUMS) && v[pos - opts].n &&
	    v[pos - opts].n < OPT_MIN(pos->flags))
		v[pos - opts].val = NULL;	/* too few: missing */
	return opt_missing(opts, v);
}

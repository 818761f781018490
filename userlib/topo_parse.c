// SPDX-License-Identifier: BSD-2-Clause
/*
 * The topology text format of selftests/net/cluster.sh, read into the
 * model.  Every file cluster.sh's parser rejects is rejected here, at the
 * same line and with the same message (only the first error; where a host
 * is named in place of a switch the message says so), and so is every
 * file that is not a tree of switches with hosts as leaves: the schedules
 * need the unique paths of a tree, and the emulated bridges run without
 * STP, so a second path would loop broadcasts.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "topo.h"

/* The OPTS keys, in cluster.sh's order (its _NC_KEYS). */
enum { K_RATE, K_BURST, K_QUEUE, K_DELAY, K_JITTER, K_LOSS, K_DUPLICATE,
       K_REORDER, K_CORRUPT, K_LIMIT, NKEYS };
static const char *const keys[NKEYS] = {
	"rate", "burst", "queue", "delay", "jitter", "loss", "duplicate",
	"reorder", "corrupt", "limit",
};
#define KEYS_TEXT "rate burst queue delay jitter loss duplicate reorder corrupt limit"

/* Of the options, the schedule's view keeps rate and delay. */
struct opts {
	unsigned int set;		/* 1 << K_* */
	double rate_mbit, delay_us;
};

struct parser {
	struct nc_topo *t;
	struct nc_topo_err *err;
	uint32_t line;
	uint32_t *uf, uf_cap;		/* union-find over nodes: cycles, parts */
};

__attribute__((format(printf, 2, 3)))
static int fail(struct parser *p, const char *fmt, ...)
{
	va_list ap;

	if (p->err) {
		p->err->line = p->line;
		va_start(ap, fmt);
		vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static int lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* s (n chars) equals lit, ignoring case: cluster.sh lower-cases values. */
static int ieq(const char *s, size_t n, const char *lit)
{
	size_t i;

	if (strlen(lit) != n)
		return 0;
	for (i = 0; i < n; i++)
		if (lower((unsigned char)s[i]) != lit[i])
			return 0;
	return 1;
}

static size_t ndigits(const char *s)
{
	size_t n = 0;

	while (s[n] >= '0' && s[n] <= '9')
		n++;
	return n;
}

/* n digits as test(1) reads them: decimal, at most INT64_MAX. */
static int test_int(const char *s, size_t n, uint64_t *v)
{
	size_t i;

	*v = 0;
	for (i = 0; i < n; i++) {
		if (*v > (UINT64_C(0x7fffffffffffffff) - (uint64_t)(s[i] - '0')) / 10)
			return -ERANGE;
		*v = *v * 10 + (uint64_t)(s[i] - '0');
	}
	return 0;
}

/*
 * n digits as bash arithmetic reads them: a leading 0 means octal (8 or 9
 * is then an error), and it wraps around in 64 bits.
 */
static int bash_int(const char *s, size_t n, uint64_t *v)
{
	unsigned int base = n > 1 && s[0] == '0' ? 8 : 10;
	size_t i;

	*v = 0;
	for (i = 0; i < n; i++) {
		if ((unsigned int)(s[i] - '0') >= base)
			return -EINVAL;
		*v = *v * base + (uint64_t)(s[i] - '0');
	}
	return 0;
}

/* rate: N{bit,kbit,mbit,gbit}, N > 0. */
static int check_rate(const char *v, double *mbit)
{
	size_t n = ndigits(v);
	const char *u = v + n;
	uint64_t num;
	double mult;

	if (!n || test_int(v, n, &num) || num == 0)
		return -EINVAL;
	if (ieq(u, strlen(u), "bit"))
		mult = 1;
	else if (ieq(u, strlen(u), "kbit"))
		mult = 1e3;
	else if (ieq(u, strlen(u), "mbit"))
		mult = 1e6;
	else if (ieq(u, strlen(u), "gbit"))
		mult = 1e9;
	else
		return -EINVAL;
	*mbit = (double)num * mult / 1e6;
	return 0;
}

/* burst: N[b|k|kb|m|mb] bytes, at least 1600 (k, m: bash arithmetic). */
static int check_burst(const char *v)
{
	size_t n = ndigits(v), ul;
	const char *u = v + n;
	uint64_t num, mult = 0;

	ul = strlen(u);
	if (!n)
		return -EINVAL;
	if (ieq(u, ul, "k") || ieq(u, ul, "kb"))
		mult = 1000;
	else if (ieq(u, ul, "m") || ieq(u, ul, "mb"))
		mult = 1000000;
	else if (ul && !ieq(u, ul, "b"))
		return -EINVAL;
	if (mult) {
		if (bash_int(v, n, &num))
			return -EINVAL;
		return (int64_t)(num * mult) >= 1600 ? 0 : -EINVAL;
	}
	return test_int(v, n, &num) || num < 1600 ? -EINVAL : 0;
}

/*
 * queue, delay, jitter: N[.F]{us,ms,s}.  The value in microseconds is
 * digits / 10^k with a single rounding, the way topo.c writes it back.
 */
static int check_time(const char *v, double *us)
{
	size_t n = ndigits(v), f = 0, i;
	const char *u;
	uint64_t mant = 0;
	int exp10;			/* the value is mant * 10^exp10 us */
	double x, p = 1;

	if (!n)
		return -EINVAL;
	u = v + n;
	if (*u == '.') {
		f = ndigits(u + 1);
		if (!f)
			return -EINVAL;
		u += 1 + f;
	}
	if (ieq(u, strlen(u), "us"))
		exp10 = 0;
	else if (ieq(u, strlen(u), "ms"))
		exp10 = 3;
	else if (ieq(u, strlen(u), "s"))
		exp10 = 6;
	else
		return -EINVAL;
	/* 19 significant digits are plenty: drop the rest */
	for (i = 0; i < n + (f ? 1 + f : 0); i++) {
		if (v[i] == '.')
			continue;
		if (mant > (UINT64_MAX - 9) / 10) {
			if (i > n)
				break;		/* fraction digits: just stop */
			exp10++;		/* integer digits: keep the scale */
			continue;
		}
		mant = mant * 10 + (uint64_t)(v[i] - '0');
		if (i > n)
			exp10--;
	}
	x = (double)mant;
	for (i = 0; i < (size_t)(exp10 < 0 ? -exp10 : exp10); i++)
		p *= 10;
	*us = exp10 < 0 ? x / p : x * p;
	return 0;
}

/* loss, duplicate, reorder, corrupt: 0-100 with decimals, then '%'. */
static int check_percent(const char *v)
{
	size_t n = ndigits(v), f = 0, i;
	const char *u = v + n;
	uint64_t ip;

	if (!n)
		return -EINVAL;
	if (*u == '.') {
		f = ndigits(u + 1);
		if (!f)
			return -EINVAL;
		u += 1 + f;
	}
	if (strcmp(u, "%") != 0 || test_int(v, n, &ip))
		return -EINVAL;
	if (ip < 100)
		return 0;
	if (ip > 100)
		return -EINVAL;
	for (i = 0; i < f; i++)
		if (v[n + 1 + i] != '0')
			return -EINVAL;
	return 0;
}

/* limit: packets, > 0. */
static int check_limit(const char *v)
{
	size_t n = ndigits(v);
	uint64_t num;

	return !n || v[n] || test_int(v, n, &num) || num == 0 ? -EINVAL : 0;
}

static int check_value(struct parser *p, int k, const char *v,
		       struct opts *o)
{
	double x;

	switch (k) {
	case K_RATE:
		if (check_rate(v, &x))
			return fail(p, "bad rate '%s' (want e.g. 100mbit, 1gbit, 500kbit)", v);
		o->rate_mbit = x;
		return 0;
	case K_BURST:
		if (check_burst(v))
			return fail(p, "bad burst '%s' (bytes, at least 1600; e.g. 100k)", v);
		return 0;
	case K_QUEUE:
	case K_DELAY:
	case K_JITTER:
		if (check_time(v, &x))
			return fail(p, "bad %s '%s' (want a time, e.g. 1ms, 500us, 0.5ms)",
				    keys[k], v);
		if (k == K_DELAY)
			o->delay_us = x;
		return 0;
	case K_LIMIT:
		if (check_limit(v))
			return fail(p, "bad limit '%s' (packets, > 0)", v);
		return 0;
	default:
		if (check_percent(v))
			return fail(p, "bad %s '%s' (want a percentage 0-100, e.g. 2%% or 0.5%%)",
				    keys[k], v);
		return 0;
	}
}

/* OPTS, merged left to right as cluster.sh does ("KEY off", "clear"). */
static int parse_opts(struct parser *p, char **tok, int ntok, struct opts *o)
{
	int i, k;

	memset(o, 0, sizeof(*o));
	for (i = 0; i < ntok; i++) {
		if (strcmp(tok[i], "clear") == 0) {
			memset(o, 0, sizeof(*o));
			continue;
		}
		for (k = 0; k < NKEYS && strcmp(tok[i], keys[k]) != 0; k++)
			;
		if (k == NKEYS)
			return fail(p, "unknown option '%s' (known: " KEYS_TEXT ", clear)",
				    tok[i]);
		if (i + 1 == ntok)
			return fail(p, "option '%s' needs a value", tok[i]);
		i++;
		if (ieq(tok[i], strlen(tok[i]), "off")) {
			o->set &= ~(1u << k);
			continue;
		}
		if (check_value(p, k, tok[i], o))
			return -EINVAL;
		o->set |= 1u << k;
	}
	if ((o->set & 1u << K_JITTER) && !(o->set & 1u << K_DELAY))
		return fail(p, "jitter needs delay");
	if ((o->set & 1u << K_REORDER) && !(o->set & 1u << K_DELAY))
		return fail(p, "reorder needs delay (netem reorders by sending some packets undelayed)");
	if (!(o->set & 1u << K_RATE) && (o->set & (1u << K_BURST | 1u << K_QUEUE)))
		return fail(p, "burst/queue need rate");
	if (!(o->set & 1u << K_RATE))
		o->rate_mbit = 0;
	if (!(o->set & 1u << K_DELAY))
		o->delay_us = 0;
	return 0;
}

static uint32_t uf_find(struct parser *p, uint32_t x)
{
	while (p->uf[x] != x) {
		p->uf[x] = p->uf[p->uf[x]];	/* path halving */
		x = p->uf[x];
	}
	return x;
}

/* A node for the line's name, with cluster.sh's checks and messages. */
static int add_node(struct parser *p, const char *name, enum nc_node_kind kind)
{
	int n = kind == NC_NODE_SWITCH ? nc_topo_add_switch(p->t, name) :
					 nc_topo_add_host(p->t, name);

	switch (n) {
	case -EINVAL:
		return fail(p, "bad name '%s'", name);
	case -ENAMETOOLONG:
		return fail(p, "bad name '%s' (at most %d characters)", name,
			    NC_TOPO_NAME_MAX - 1);
	case -EPERM:
		return fail(p, "name 'fabric' is reserved (the switches' namespace)");
	case -EEXIST:
		return fail(p, "duplicate name '%s' (already a %s)", name,
			    p->t->nodes[nc_topo_find(p->t, name)].kind == NC_NODE_HOST ?
			    "host" : "switch");
	default:
		if (n < 0) {
			fail(p, "%s", strerror(-n));
			return n;
		}
	}
	if ((uint32_t)n >= p->uf_cap) {
		uint32_t cap = p->uf_cap ? 2 * p->uf_cap : 64;
		uint32_t *uf = realloc(p->uf, cap * sizeof(*uf));

		if (!uf) {
			fail(p, "out of memory");
			return -ENOMEM;
		}
		p->uf = uf;
		p->uf_cap = cap;
	}
	p->uf[n] = (uint32_t)n;
	p->t->nodes[n].line = p->line;
	return n;
}

/* A declared switch, by name (for host and link lines). */
static int lookup_switch(struct parser *p, const char *name, int for_link)
{
	int n = nc_topo_find(p->t, name);

	if (n < 0)
		return fail(p, "unknown switch '%s'", name);
	if (p->t->nodes[n].kind == NC_NODE_SWITCH)
		return n;
	if (for_link)
		return fail(p, "'%s' is a host, not a switch (a host's one cable is on its host line)",
			    name);
	return fail(p, "'%s' is a host, not a switch (hosts are leaves: attach them to switches)",
		    name);
}

static int add_link(struct parser *p, uint32_t a, uint32_t b,
		    const struct opts *o)
{
	int l = nc_topo_add_link(p->t, a, b, o->rate_mbit, o->delay_us);

	if (l < 0) {
		fail(p, "%s", strerror(-l));
		return l;
	}
	p->t->links[l].line = p->line;
	p->uf[uf_find(p, a)] = uf_find(p, b);
	return 0;
}

static int stmt_switch(struct parser *p, char **tok, int ntok)
{
	int n;

	if (ntok != 2)
		return fail(p, "want 'switch NAME'");
	n = add_node(p, tok[1], NC_NODE_SWITCH);
	return n < 0 ? n : 0;
}

static int stmt_host(struct parser *p, char **tok, int ntok)
{
	struct opts o;
	int h, s;

	if (ntok < 3)
		return fail(p, "want 'host NAME SWITCH [OPTS]'");
	h = add_node(p, tok[1], NC_NODE_HOST);
	if (h < 0)
		return h;
	s = lookup_switch(p, tok[2], 0);
	if (s < 0)
		return s;
	if (parse_opts(p, tok + 3, ntok - 3, &o))
		return -EINVAL;
	/* a = the host, b = its switch */
	return add_link(p, (uint32_t)h, (uint32_t)s, &o);
}

static int stmt_link(struct parser *p, char **tok, int ntok)
{
	struct opts o;
	uint32_t i;
	int a, b;

	if (ntok < 3)
		return fail(p, "want 'link SWITCH SWITCH [OPTS]'");
	a = lookup_switch(p, tok[1], 1);
	if (a < 0)
		return a;
	b = lookup_switch(p, tok[2], 1);
	if (b < 0)
		return b;
	if (a == b)
		return fail(p, "link from '%s' to itself", tok[1]);
	if (parse_opts(p, tok + 3, ntok - 3, &o))
		return -EINVAL;
	if (uf_find(p, (uint32_t)a) == uf_find(p, (uint32_t)b)) {
		/* a second cable between two switches is a (short) cycle too */
		for (i = 0; i < p->t->nlinks; i++) {
			const struct nc_topo_link *l = &p->t->links[i];

			if ((l->a == (uint32_t)a && l->b == (uint32_t)b) ||
			    (l->a == (uint32_t)b && l->b == (uint32_t)a))
				return fail(p, "duplicate link %s %s (already on line %u)",
					    tok[1], tok[2], l->line);
		}
		return fail(p, "link %s %s closes a cycle (the network must be a tree)",
			    tok[1], tok[2]);
	}
	return add_link(p, (uint32_t)a, (uint32_t)b, &o);
}

/* Splits at blanks (bash's IFS: space and tab) after cutting the comment. */
static int tokenize(char *s, char ***tok, int *cap)
{
	int n = 0;

	s[strcspn(s, "#")] = '\0';
	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			return n;
		if (n == *cap) {
			int c = *cap ? 2 * *cap : 16;
			char **t = realloc(*tok, (size_t)c * sizeof(*t));

			if (!t)
				return -ENOMEM;
			*tok = t;
			*cap = c;
		}
		(*tok)[n++] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		if (*s)
			*s++ = '\0';
	}
}

/* After the last line: hosts exist, and one tree holds every switch. */
static int check_whole(struct parser *p)
{
	struct nc_topo *t = p->t;
	uint32_t i, root;

	p->line = 0;
	if (t->nhosts == 0)
		return fail(p, "no hosts");
	if (t->nhosts > NC_TOPO_HOSTS_MAX)
		return fail(p, "too many hosts (%u > %u)", t->nhosts,
			    NC_TOPO_HOSTS_MAX);
	/* node 0 is a switch: a host line needs a switch declared before */
	root = uf_find(p, 0);
	for (i = 1; i < t->nnodes; i++) {
		if (uf_find(p, i) != root) {
			p->line = t->nodes[i].line;
			return fail(p, "%s %s is not connected to %s",
				    t->nodes[i].kind == NC_NODE_HOST ? "host" : "switch",
				    t->nodes[i].name, t->nodes[0].name);
		}
	}
	return 0;
}

int nc_topo_parse(struct nc_topo *t, const char *text, struct nc_topo_err *err)
{
	struct parser p = { .t = t, .err = err };
	const char *s = text, *eol;
	char *line = NULL, **tok = NULL;
	size_t line_cap = 0;
	int ntok, tok_cap = 0, ret = 0;

	if (err) {
		err->line = 0;
		err->msg[0] = '\0';
	}
	if (!t || !text)
		return -EINVAL;
	nc_topo_init(t);
	for (p.line = 1; *s; p.line++, s = eol + (*eol == '\n')) {
		size_t len;

		eol = s + strcspn(s, "\n");
		len = (size_t)(eol - s);
		if (len && s[len - 1] == '\r')
			len--;			/* a CRLF (DOS) line end */
		if (len >= line_cap) {
			char *l = realloc(line, len + 1);

			if (!l) {
				ret = -ENOMEM;
				break;
			}
			line = l;
			line_cap = len + 1;
		}
		memcpy(line, s, len);
		line[len] = '\0';
		ntok = tokenize(line, &tok, &tok_cap);
		if (ntok < 0) {
			ret = ntok;
			break;
		}
		if (ntok == 0)
			continue;
		if (strcmp(tok[0], "switch") == 0)
			ret = stmt_switch(&p, tok, ntok);
		else if (strcmp(tok[0], "host") == 0)
			ret = stmt_host(&p, tok, ntok);
		else if (strcmp(tok[0], "link") == 0)
			ret = stmt_link(&p, tok, ntok);
		else
			ret = fail(&p, "unknown statement '%s' (want switch, host or link)",
				   tok[0]);
		if (ret)
			break;
	}
	if (ret == -ENOMEM)
		fail(&p, "out of memory");
	if (!ret)
		ret = check_whole(&p);
	if (!ret)
		ret = nc_topo_finish(t, err);
	free(line);
	free(tok);
	free(p.uf);
	if (ret)
		nc_topo_free(t);
	return ret;
}

int nc_topo_read_text(const char *path, char **textp)
{
	struct stat st;
	FILE *f;
	char *text = NULL;
	size_t len = 0, cap = 0, i, j;
	int ret;

	*textp = NULL;
	f = fopen(path, "r");
	if (!f)
		return -errno;
	/* glibc opens a directory for reading; its read fails with EIO */
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		goto io_error;
	}
	for (;;) {
		size_t n;

		if (cap - len < 4096) {
			char *x = realloc(text, cap + 65536);

			if (!x) {
				errno = ENOMEM;
				goto io_error;
			}
			text = x;
			cap += 65536;
		}
		n = fread(text + len, 1, cap - len - 1, f);
		len += n;
		if (n == 0)
			break;
	}
	if (ferror(f)) {
		if (!errno)
			errno = EIO;
		goto io_error;
	}
	fclose(f);
	/* bash's read drops NUL bytes; so does this reader */
	for (i = j = 0; i < len; i++)
		if (text[i])
			text[j++] = text[i];
	text[j] = '\0';
	*textp = text;
	return 0;
io_error:
	ret = -errno;
	fclose(f);
	free(text);
	return ret;
}

int nc_topo_load(struct nc_topo *t, const char *path, struct nc_topo_err *err)
{
	char *text;
	int ret;

	if (err) {
		err->line = 0;
		err->msg[0] = '\0';
	}
	if (!t || !path)
		return -EINVAL;
	nc_topo_init(t);
	ret = nc_topo_read_text(path, &text);
	if (ret) {
		if (err)
			snprintf(err->msg, sizeof(err->msg), "%s", strerror(-ret));
		return ret;
	}
	ret = nc_topo_parse(t, text, err);
	free(text);
	return ret;
}

/*
 * A topology as users name it: an existing file in the cluster format,
 * "ib:NETDISCOVER[,LFTS]" for an InfiniBand fabric's dumps (topo_ib.c),
 * "lldp:..." for LLDP views, "service:ADDR" for the topology query
 * service's answers (topo_query.c), else a generator spec.  Only a name that starts like a generator
 * ("star:", "ft:", ...) is read as a spec, so a mistyped file name says
 * that the file does not exist, not that the spec is bad.
 */
/* lldp:PATH[,PATH...]: every host's and switch's LLDP view */
static int open_lldp(struct nc_topo *t, const char *list,
		     struct nc_topo_err *err)
{
	const char *paths[64];
	char *copy, *p, *save = NULL;
	uint32_t n = 0;
	int ret;

	copy = strdup(list);
	if (!copy)
		return -ENOMEM;
	for (p = strtok_r(copy, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		if (n == sizeof(paths) / sizeof(paths[0])) {
			free(copy);
			return nc_topo_fail(err, 0, "lldp: more than %zu paths (name directories)",
					    sizeof(paths) / sizeof(paths[0]));
		}
		paths[n++] = p;
	}
	ret = n ? nc_topo_load_lldp(t, paths, n, err) :
		  nc_topo_fail(err, 0, "lldp: wants a file or directory");
	free(copy);
	return ret;
}

int nc_topo_open(struct nc_topo *t, const char *topology,
		 struct nc_topo_err *err)
{
	struct stat st;

	if (!topology)
		return -EINVAL;
	if (!strncmp(topology, "ib:", 3) && stat(topology, &st) != 0) {
		/* ib:NETDISCOVER[,LFTS]: an InfiniBand fabric's dumps */
		char nd[4096];
		const char *comma = strchr(topology + 3, ',');
		size_t n = comma ? (size_t)(comma - topology - 3) : strlen(topology + 3);

		if (n >= sizeof(nd))
			return -ENAMETOOLONG;
		memcpy(nd, topology + 3, n);
		nd[n] = '\0';
		return nc_topo_load_ib(t, nd, comma ? comma + 1 : NULL, err);
	}
	if (!strncmp(topology, "lldp:", 5) && stat(topology, &st) != 0)
		return open_lldp(t, topology + 5, err);
	if (!strncmp(topology, "service:", 8) && stat(topology, &st) != 0)
		return nc_topo_load_service(t, topology + 8, err);
	if (stat(topology, &st) == 0 || !nc_topo_spec_like(topology))
		return nc_topo_load(t, topology, err);
	return nc_topo_gen_spec(t, topology, err);
}

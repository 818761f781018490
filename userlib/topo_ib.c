// SPDX-License-Identifier: BSD-2-Clause
/*
 * An InfiniBand fabric, read into the model from what the standard tools
 * print (infiniband-diags), as seed 003's topology detection does:
 *
 *  - `ibnetdiscover` (its default format): switch and CA records, each with
 *    its connected ports "[local](portguid) "remote-id"[remote](guid)" and
 *    a comment holding the node description, the LIDs and the link's
 *    width x speed ("4xQDR");
 *  - optionally the switches' linear forwarding tables as `ibroute LID`,
 *    `dump_fts` or `dump_lfts` print them, one after another: which port
 *    each switch sends a destination LID to.  With them the path between
 *    two hosts is the one the subnet manager routed (a fat tree has many),
 *    not a shortest or "the" tree path.
 *
 * Names: a node takes the first word of its description ("node07 mlx5_0"
 * gives node07) when that is a valid, unique name, else the whole
 * description made valid, else the tools' own id ("H-0002c90300a1b2c4").
 * Hosts (CAs) are ranked by name in version order (h2 before h10), switches
 * follow the same order.  A CA with several cabled ports is one host on
 * its lowest-numbered cabled port; its other cables are left out (hosts
 * are leaves with one link).  Routers count as switches.
 *
 * Link rates are the data rates (after line coding): SDR 2, DDR 4, QDR 8,
 * FDR10 9.7, FDR 13.6, EDR 25, HDR 50, NDR 100, XDR 200 Gbit/s per lane,
 * times the width.  Links without a width x speed have rate 0 (unknown).
 */
#define _GNU_SOURCE		/* qsort_r, strverscmp */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo.h"

struct ib_node {
	char id[64];			/* the tools' quoted id */
	char desc[64];			/* node description, "" if none */
	char name[NC_TOPO_NAME_MAX];
	uint64_t guid;			/* node GUID, 0 if not given */
	uint32_t lid;			/* switches: port 0; CAs: first port */
	uint32_t line;
	uint32_t topo;			/* node index in the model */
	uint32_t host_port;		/* CAs: the cabled port kept; 0 none */
	int is_switch;
};

struct ib_port {
	uint32_t node, port;		/* this end */
	uint32_t lid;			/* CA ports: this end's LID */
	char rid[64];			/* the other end, by id ... */
	uint32_t rnode, rport;		/* ... and resolved */
	double rate_mbit;
	uint32_t line;
	uint32_t link;			/* model link, NC_TOPO_NONE if none */
};

struct ib_fabric {
	struct ib_node *nodes;
	uint32_t nnodes, cap_nodes;
	struct ib_port *ports;
	uint32_t nports, cap_ports;
	uint32_t *by_id;		/* node indices sorted by id */
};

/* Ports are sorted by (node, port) once read: port_find() bisects. */
static int cmp_port(const void *a, const void *b)
{
	const struct ib_port *x = a, *y = b;

	if (x->node != y->node)
		return x->node < y->node ? -1 : 1;
	return x->port < y->port ? -1 : x->port > y->port;
}

static struct ib_port *port_find(const struct ib_fabric *f, uint32_t node,
				 uint32_t port)
{
	struct ib_port key = { .node = node, .port = port };

	return bsearch(&key, f->ports, f->nports, sizeof(key), cmp_port);
}

static void fabric_free(struct ib_fabric *f)
{
	free(f->nodes);
	free(f->ports);
	free(f->by_id);
	memset(f, 0, sizeof(*f));
}

static int grow(void **v, uint32_t *cap, uint32_t n, size_t size)
{
	uint32_t c;
	void *x;

	if (n < *cap)
		return 0;
	if (*cap >= UINT32_MAX / 4)
		return -E2BIG;
	c = *cap ? 2 * *cap : 64;
	x = realloc(*v, (size_t)c * size);
	if (!x)
		return -ENOMEM;
	*v = x;
	*cap = c;
	return 0;
}

static const char *skip_ws(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* "..." at s into out (at most size - 1 bytes); the end, or NULL. */
static const char *quoted(const char *s, char *out, size_t size)
{
	const char *e;

	if (*s != '"')
		return NULL;
	e = strchr(s + 1, '"');
	if (!e || (size_t)(e - s - 1) >= size || e == s + 1)
		return NULL;
	memcpy(out, s + 1, e - s - 1);
	out[e - s - 1] = '\0';
	return e + 1;
}

/* "[N]" at s; the end, or NULL. */
static const char *bracketed(const char *s, uint32_t *n)
{
	char *e;
	unsigned long v;

	if (*s != '[' || !isdigit((unsigned char)s[1]))
		return NULL;
	errno = 0;
	v = strtoul(s + 1, &e, 10);
	if (errno || *e != ']' || v == 0 || v > 255)
		return NULL;
	*n = (uint32_t)v;
	return e + 1;
}

/* An optional "(hex guid)" at s; the end (s itself if none), or NULL. */
static const char *paren_guid(const char *s)
{
	if (*s != '(')
		return s;
	s++;
	while (isxdigit((unsigned char)*s))
		s++;
	return *s == ')' ? s + 1 : NULL;
}

/* Data rate in Gbit/s of one lane at speed name (NULL: not a speed). */
static double lane_gbit(const char *speed)
{
	static const struct { const char *name; double gbit; } s[] = {
		{ "SDR", 2.0 }, { "DDR", 4.0 }, { "QDR", 8.0 },
		{ "FDR10", 10.0 * 64 / 66 }, { "FDR", 14.0625 * 64 / 66 },
		{ "EDR", 25.0 }, { "HDR", 50.0 }, { "NDR", 100.0 },
		{ "XDR", 200.0 },
	};
	size_t i;

	for (i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		if (strcmp(speed, s[i].name) == 0)
			return s[i].gbit;
	return 0;
}

/* "4xQDR" -> Mbit/s; 0 if tok is no width x speed. */
static double width_speed(const char *tok)
{
	char *e;
	unsigned long w;

	if (!isdigit((unsigned char)tok[0]))
		return 0;
	w = strtoul(tok, &e, 10);
	if (*e != 'x' || !(w == 1 || w == 2 || w == 4 || w == 8 || w == 12))
		return 0;
	return w * lane_gbit(e + 1) * 1000;
}

/*
 * The comment after '#': the first quoted string is a description, "lid N"
 * the first LID, the last width x speed token the link's rate.
 */
static void comment(const char *c, char *desc, size_t dsize, uint32_t *lid,
		    double *rate)
{
	char tok[64];
	const char *s = c;
	int got_lid = 0;

	if (desc)
		desc[0] = '\0';
	while (*(s = skip_ws(s))) {
		size_t n;

		if (*s == '"') {
			const char *e = strchr(s + 1, '"');

			if (!e)
				break;
			if (desc && !desc[0] && (size_t)(e - s - 1) < dsize) {
				memcpy(desc, s + 1, e - s - 1);
				desc[e - s - 1] = '\0';
			}
			s = e + 1;
			continue;
		}
		n = strcspn(s, " \t");
		if (n < sizeof(tok)) {
			memcpy(tok, s, n);
			tok[n] = '\0';
			if (lid && !got_lid && strcmp(tok, "lid") == 0) {
				unsigned long v = strtoul(skip_ws(s + n), NULL, 10);

				*lid = v <= 0xffff ? (uint32_t)v : 0;
				got_lid = 1;
			}
			if (rate && width_speed(tok) > 0)
				*rate = width_speed(tok);
		}
		s += n;
	}
}

static int node_new(struct ib_fabric *f, const char *id, int is_switch,
		    uint64_t guid, uint32_t line, const char *cmt)
{
	struct ib_node *n;
	int ret = grow((void **)&f->nodes, &f->cap_nodes, f->nnodes,
		       sizeof(*f->nodes));

	if (ret)
		return ret;
	n = &f->nodes[f->nnodes++];
	memset(n, 0, sizeof(*n));
	snprintf(n->id, sizeof(n->id), "%s", id);
	n->is_switch = is_switch;
	n->guid = guid;
	n->line = line;
	n->topo = NC_TOPO_NONE;
	if (cmt)
		comment(cmt, n->desc, sizeof(n->desc), is_switch ? &n->lid : NULL,
			NULL);
	return 0;
}

/*
 * A port line of the current node: switches "[p] "rid"[rp](guid) # ...",
 * CAs "[p](guid) "rid"[rp] # lid L ...".
 */
static int port_line(struct ib_fabric *f, const char *s, uint32_t line,
		     struct nc_topo_err *err)
{
	struct ib_node *n = &f->nodes[f->nnodes - 1];
	struct ib_port *p;
	const char *c;
	int ret;

	ret = grow((void **)&f->ports, &f->cap_ports, f->nports, sizeof(*f->ports));
	if (ret)
		return ret;
	p = &f->ports[f->nports];
	memset(p, 0, sizeof(*p));
	p->node = f->nnodes - 1;
	p->line = line;
	p->link = NC_TOPO_NONE;
	s = bracketed(s, &p->port);
	if (s)
		s = paren_guid(s);
	if (s)
		s = quoted(skip_ws(s), p->rid, sizeof(p->rid));
	if (s)
		s = bracketed(s, &p->rport);
	if (s)
		s = paren_guid(s);
	if (!s)
		return nc_topo_fail(err, line, "bad port line (want [PORT] \"NODE-ID\"[PORT])");
	s = skip_ws(s);
	c = NULL;
	if (*s == '#')
		c = s + 1;
	else if (*s)
		return nc_topo_fail(err, line, "junk after the port: '%.40s'", s);
	if (c)
		comment(c, NULL, 0, n->is_switch ? NULL : &p->lid, &p->rate_mbit);
	f->nports++;
	return 0;
}

static uint64_t guid_after(const char *s)
{
	return strtoull(s, NULL, 0);
}

static int parse_netdiscover(struct ib_fabric *f, const char *text,
			     struct nc_topo_err *err)
{
	const char *s = text;
	uint64_t guid = 0;
	uint32_t line = 0;
	int in_node = 0, ret;

	while (*s) {
		size_t len = strcspn(s, "\n");
		char buf[512], id[64];
		const char *b, *cmt;
		unsigned long nports;
		int is_switch;

		line++;
		if (len >= sizeof(buf))
			return nc_topo_fail(err, line, "line too long");
		memcpy(buf, s, len);
		buf[len] = '\0';
		if (len && buf[len - 1] == '\r')
			buf[len - 1] = '\0';
		s += len + (s[len] == '\n');
		b = skip_ws(buf);
		if (!*b) {
			in_node = 0;
			continue;
		}
		if (*b == '#')
			continue;
		if (*b == '[') {
			if (!in_node)
				return nc_topo_fail(err, line, "port line outside a node record");
			ret = port_line(f, b, line, err);
			if (ret)
				return ret;
			continue;
		}
		if (!strncmp(b, "vendid=", 7) || !strncmp(b, "devid=", 6) ||
		    !strncmp(b, "sysimgguid=", 11))
			continue;
		if (!strncmp(b, "switchguid=", 11)) {
			guid = guid_after(b + 11);
			continue;
		}
		if (!strncmp(b, "caguid=", 7) || !strncmp(b, "rtguid=", 7)) {
			guid = guid_after(b + 7);
			continue;
		}
		if (!strncmp(b, "Switch", 6) || !strncmp(b, "Rt", 2))
			is_switch = 1;
		else if (!strncmp(b, "Ca", 2))
			is_switch = 0;
		else
			return nc_topo_fail(err, line, "cannot read '%.40s'", b);
		b += strcspn(b, " \t");
		b = skip_ws(b);
		nports = strtoul(b, (char **)&b, 10);
		if (nports == 0 || nports > 255)
			return nc_topo_fail(err, line, "bad port count");
		b = quoted(skip_ws(b), id, sizeof(id));
		if (!b)
			return nc_topo_fail(err, line, "want a quoted node id");
		b = skip_ws(b);
		cmt = *b == '#' ? b + 1 : NULL;
		if (!cmt && *b)
			return nc_topo_fail(err, line, "junk after the node id: '%.40s'", b);
		ret = node_new(f, id, is_switch, guid, line, cmt);
		if (ret)
			return ret;
		guid = 0;
		in_node = 1;
	}
	if (!f->nnodes)
		return nc_topo_fail(err, 0, "no switch or CA records");
	return 0;
}

static int cmp_id(const void *a, const void *b, void *arg)
{
	const struct ib_fabric *f = arg;

	return strcmp(f->nodes[*(const uint32_t *)a].id,
		      f->nodes[*(const uint32_t *)b].id);
}

static int find_id(const struct ib_fabric *f, const char *id)
{
	uint32_t lo = 0, hi = f->nnodes;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = strcmp(f->nodes[f->by_id[mid]].id, id);

		if (!c)
			return (int)f->by_id[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -ENOENT;
}

/* Resolve every port's other end; both ends must tell the same story. */
static int resolve(struct ib_fabric *f, struct nc_topo_err *err)
{
	uint32_t i, j;

	f->by_id = malloc(f->nnodes * sizeof(*f->by_id));
	if (!f->by_id)
		return -ENOMEM;
	for (i = 0; i < f->nnodes; i++)
		f->by_id[i] = i;
	qsort_r(f->by_id, f->nnodes, sizeof(*f->by_id), cmp_id, f);
	for (i = 1; i < f->nnodes; i++)
		if (!strcmp(f->nodes[f->by_id[i]].id, f->nodes[f->by_id[i - 1]].id))
			return nc_topo_fail(err, f->nodes[f->by_id[i]].line,
				       "node \"%s\" again (first at line %u)",
				       f->nodes[f->by_id[i]].id,
				       f->nodes[f->by_id[i - 1]].line);
	for (i = 0; i < f->nports; i++) {
		struct ib_port *p = &f->ports[i];
		int r = find_id(f, p->rid);

		if (r < 0)
			return nc_topo_fail(err, p->line, "no record of node \"%s\"", p->rid);
		if ((uint32_t)r == p->node)
			return nc_topo_fail(err, p->line, "port cabled to its own node");
		p->rnode = (uint32_t)r;
	}
	qsort(f->ports, f->nports, sizeof(*f->ports), cmp_port);
	for (j = 1; j < f->nports; j++)
		if (!cmp_port(&f->ports[j - 1], &f->ports[j]))
			return nc_topo_fail(err, f->ports[j].line, "port %u again (line %u)",
				       f->ports[j].port, f->ports[j - 1].line);
	return 0;
}

/* The record of the other end of p, which must point back at p. */
static int other_side(const struct ib_fabric *f, const struct ib_port *p,
		      struct nc_topo_err *err)
{
	const struct ib_port *q = port_find(f, p->rnode, p->rport);

	if (!q)
		return nc_topo_fail(err, p->line, "\"%s\" has no port %u cabled back",
			       f->nodes[p->rnode].id, p->rport);
	if (q->rnode != p->node || q->rport != p->port)
		return nc_topo_fail(err, p->line,
			       "\"%s\"[%u] says it is cabled to \"%s\"[%u] (line %u)",
			       f->nodes[p->rnode].id, p->rport,
			       f->nodes[q->rnode].id, q->rport, q->line);
	return (int)(q - f->ports);
}

static int name_taken(const struct ib_fabric *f, uint32_t upto, const char *name)
{
	uint32_t i;

	for (i = 0; i < f->nnodes; i++)
		if (i != upto && !strcmp(f->nodes[i].name, name))
			return 1;
	return 0;
}

/* Count the nodes whose candidate (first word) is cand. */
static uint32_t first_word(const char *desc, char *out, size_t size)
{
	size_t n = strcspn(desc, " \t");
	char w[64];

	if (n >= sizeof(w))
		n = sizeof(w) - 1;
	memcpy(w, desc, n);
	w[n] = '\0';
	nc_topo_valid_name(w, out, size);
	return (uint32_t)strlen(out);
}

static void choose_names(struct ib_fabric *f)
{
	char (*cand)[NC_TOPO_NAME_MAX];
	uint32_t i, j;

	cand = calloc(f->nnodes ? f->nnodes : 1, sizeof(*cand));
	for (i = 0; cand && i < f->nnodes; i++)
		first_word(f->nodes[i].desc, cand[i], sizeof(cand[i]));
	for (i = 0; i < f->nnodes; i++) {
		struct ib_node *n = &f->nodes[i];
		int unique = cand && cand[i][0] && strcmp(cand[i], "fabric");

		for (j = 0; unique && j < f->nnodes; j++)
			if (j != i && !strcmp(cand[i], cand[j]))
				unique = 0;
		if (unique)
			snprintf(n->name, sizeof(n->name), "%s", cand[i]);
	}
	/* second choice: the whole description; last: the tools' id */
	for (i = 0; i < f->nnodes; i++) {
		struct ib_node *n = &f->nodes[i];

		if (n->name[0])
			continue;
		nc_topo_valid_name(n->desc, n->name, sizeof(n->name));
		if (!n->name[0] || !strcmp(n->name, "fabric") ||
		    name_taken(f, i, n->name) ||
		    strlen(n->desc) >= sizeof(n->name))
			nc_topo_valid_name(n->id, n->name, sizeof(n->name));
	}
	free(cand);
}

static int cmp_name(const void *a, const void *b, void *arg)
{
	const struct ib_fabric *f = arg;
	const struct ib_node *x = &f->nodes[*(const uint32_t *)a];
	const struct ib_node *y = &f->nodes[*(const uint32_t *)b];

	if (x->is_switch != y->is_switch)
		return x->is_switch ? -1 : 1;
	return strverscmp(x->name, y->name);
}

static int build_model(struct ib_fabric *f, struct nc_topo *t,
		       struct nc_topo_err *err)
{
	uint32_t *order, i;
	int ret = 0, swap;

	/* the cable each CA keeps: its lowest-numbered one (ports sorted) */
	for (i = 0; i < f->nports; i++) {
		struct ib_node *n = &f->nodes[f->ports[i].node];

		if (!n->is_switch && !n->host_port) {
			n->host_port = f->ports[i].port;
			n->lid = f->ports[i].lid;
		}
	}
	choose_names(f);
	order = malloc(f->nnodes * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (i = 0; i < f->nnodes; i++)
		order[i] = i;
	qsort_r(order, f->nnodes, sizeof(*order), cmp_name, f);
	for (i = 0; i < f->nnodes && ret >= 0; i++) {
		struct ib_node *n = &f->nodes[order[i]];

		if (!n->is_switch && !n->host_port)
			continue;	/* an uncabled CA */
		ret = n->is_switch ? nc_topo_add_switch(t, n->name) :
				     nc_topo_add_host(t, n->name);
		if (ret >= 0) {
			n->topo = (uint32_t)ret;
			t->nodes[ret].line = n->line;
		} else {
			ret = nc_topo_fail(err, n->line, "cannot name node \"%s\" '%s'",
				      n->id, n->name);
		}
	}
	free(order);
	if (ret < 0)
		return ret;
	for (i = 0; i < f->nports; i++) {
		struct ib_port *p = &f->ports[i];
		struct ib_node *a = &f->nodes[p->node], *b = &f->nodes[p->rnode];
		int q = other_side(f, p, err);

		if (q < 0)
			return q;
		if ((!a->is_switch && p->port != a->host_port) ||
		    (!b->is_switch && p->rport != b->host_port))
			continue;	/* a CA's second cable */
		if (f->ports[q].link != NC_TOPO_NONE) {
			p->link = f->ports[q].link;
			continue;	/* seen from the other end */
		}
		if (f->ports[q].rate_mbit != p->rate_mbit && f->ports[q].rate_mbit > 0 &&
		    p->rate_mbit > 0)
			return nc_topo_fail(err, p->line, "the two ends disagree on the rate");
		/* hosts first: a parsed host cable has a = the host */
		swap = a->is_switch && !b->is_switch;
		ret = nc_topo_add_link(t, swap ? b->topo : a->topo,
				       swap ? a->topo : b->topo, p->rate_mbit, 0);
		if (ret < 0)
			return ret;
		t->links[ret].line = p->line;
		t->links[ret].port_a = (uint16_t)(swap ? p->rport : p->port);
		t->links[ret].port_b = (uint16_t)(swap ? p->port : p->rport);
		p->link = (uint32_t)ret;
	}
	t->parallel_links = 1;	/* trunks of several cables are common */
	return nc_topo_finish(t, err);
}

/* The model node of a switch GUID, or -ENOENT. */
static int switch_by_guid(const struct ib_fabric *f, uint64_t guid)
{
	uint32_t i;

	for (i = 0; i < f->nnodes; i++)
		if (f->nodes[i].is_switch && f->nodes[i].guid == guid)
			return (int)i;
	return -ENOENT;
}

/*
 * The forwarding tables, into t->route: for every switch, the link it
 * sends each host's LID over.  Entries for switches' LIDs, unknown LIDs
 * and port 0 (the switch itself) are skipped; a table for a switch that is
 * not in the fabric, or a port that is not cabled, is an error.
 */
static int parse_lfts(struct ib_fabric *f, struct nc_topo *t, const char *text,
		      struct nc_topo_err *err)
{
	uint32_t *host_of_lid, line = 0, i, nroutes = 0;
	const char *s = text;
	int sw = -1, in_unicast = 0, ret = 0;

	host_of_lid = malloc(0x10000 * sizeof(*host_of_lid));
	t->route = malloc((size_t)t->nnodes * t->nhosts * sizeof(*t->route));
	if (!host_of_lid || !t->route) {
		free(host_of_lid);
		return -ENOMEM;
	}
	for (i = 0; i < 0x10000; i++)
		host_of_lid[i] = NC_TOPO_NONE;
	for (i = 0; i < (size_t)t->nnodes * t->nhosts; i++)
		t->route[i] = NC_TOPO_NONE;
	for (i = 0; i < f->nnodes; i++) {
		const struct ib_node *n = &f->nodes[i];

		if (!n->is_switch && n->topo != NC_TOPO_NONE && n->lid)
			host_of_lid[n->lid] = t->nodes[n->topo].host;
	}
	while (*s && !ret) {
		size_t len = strcspn(s, "\n");
		char buf[512];
		const char *b, *g;
		unsigned long lid, port;
		struct ib_port *p;
		uint64_t guid;
		char *e;

		line++;
		if (len >= sizeof(buf)) {
			ret = nc_topo_fail(err, line, "line too long");
			break;
		}
		memcpy(buf, s, len);
		buf[len] = '\0';
		s += len + (s[len] == '\n');
		b = skip_ws(buf);
		if (!strncmp(b, "Unicast lids", 12)) {
			g = strstr(b, " guid ");
			if (!g) {
				ret = nc_topo_fail(err, line, "a table header without a switch guid");
				break;
			}
			guid = strtoull(g + 6, NULL, 0);
			sw = switch_by_guid(f, guid);
			if (sw < 0)
				ret = nc_topo_fail(err, line, "switch guid 0x%016" PRIx64
					      " is not in the fabric", guid);
			in_unicast = 1;
			continue;
		}
		if (!strncmp(b, "Multicast mlids", 15)) {
			in_unicast = 0;
			continue;
		}
		if (!in_unicast || strncmp(b, "0x", 2))
			continue;	/* headings, counts, warnings */
		errno = 0;
		lid = strtoul(b, &e, 16);
		if (errno || e == b + 2 || lid > 0xffff || (*e != ' ' && *e != '\t')) {
			ret = nc_topo_fail(err, line, "bad LID '%.20s'", b);
			break;
		}
		b = skip_ws(e);
		port = strtoul(b, &e, 10);
		if (e == b || port > 255 || (*e && *e != ' ' && *e != '\t')) {
			ret = nc_topo_fail(err, line, "bad port for LID 0x%04lx", lid);
			break;
		}
		if (host_of_lid[lid] == NC_TOPO_NONE || port == 0)
			continue;
		p = port_find(f, (uint32_t)sw, (uint32_t)port);
		if (!p || p->link == NC_TOPO_NONE) {
			ret = nc_topo_fail(err, line, "switch %s sends LID 0x%04lx to port %lu, which has no cable",
				      f->nodes[sw].name, lid, port);
			break;
		}
		t->route[(size_t)f->nodes[sw].topo * t->nhosts + host_of_lid[lid]] =
			p->link;
		nroutes++;
	}
	free(host_of_lid);
	if (!ret && !nroutes)
		ret = nc_topo_fail(err, 0, "no forwarding table entry for any host");
	if (ret) {
		free(t->route);
		t->route = NULL;
	}
	return ret;
}

int nc_topo_parse_ib(struct nc_topo *t, const char *netdiscover,
		     const char *lfts, struct nc_topo_err *err,
		     int *err_in_lfts)
{
	struct ib_fabric f = { 0 };
	int ret;

	if (err) {
		err->line = 0;
		err->msg[0] = '\0';
	}
	if (err_in_lfts)
		*err_in_lfts = 0;
	if (!t || !netdiscover)
		return -EINVAL;
	nc_topo_init(t);
	ret = parse_netdiscover(&f, netdiscover, err);
	if (!ret)
		ret = resolve(&f, err);
	if (!ret)
		ret = build_model(&f, t, err);
	if (!ret && lfts) {
		ret = parse_lfts(&f, t, lfts, err);
		if (ret && err_in_lfts)
			*err_in_lfts = 1;
	}
	fabric_free(&f);
	if (ret)
		nc_topo_free(t);
	return ret;
}

int nc_topo_load_ib(struct nc_topo *t, const char *netdiscover_path,
		    const char *lfts_path, struct nc_topo_err *err)
{
	char *nd = NULL, *lf = NULL;
	int ret, in_lfts = 0;

	if (err) {
		err->line = 0;
		err->msg[0] = '\0';
	}
	ret = nc_topo_read_text(netdiscover_path, &nd);
	if (!ret && lfts_path) {
		ret = nc_topo_read_text(lfts_path, &lf);
		in_lfts = 1;
	}
	if (ret) {
		if (err) {
			snprintf(err->msg, sizeof(err->msg), "%s", strerror(-ret));
			nc_topo_err_prefix(err, in_lfts ? lfts_path : netdiscover_path);
		}
		free(nd);
		return ret;
	}
	ret = nc_topo_parse_ib(t, nd, lf, err, &in_lfts);
	if (ret && err && (err->line || err->msg[0]))
		nc_topo_err_prefix(err, in_lfts ? lfts_path : netdiscover_path);
	free(nd);
	free(lf);
	return ret;
}

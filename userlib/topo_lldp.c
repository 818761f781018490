// SPDX-License-Identifier: BSD-2-Clause
/*
 * An Ethernet network, read into the model from LLDP as lldpd(8) learns it
 * on every host and switch: each node's `lldpcli -f json show chassis`
 * (who it is) followed by its `lldpcli -f json show neighbors details` (who
 * is at the other end of each of its ports, and at what speed; without
 * "details" the rates are unknown).  A text holds any number of such
 * pairs; a neighbors document belongs to the chassis document before it.
 *
 * Nodes are chassis, known by their chassis ID (the ID, not the name, is
 * what LLDP makes unique), named after their system name.  A chassis with
 * the Bridge or Router capability enabled is a switch, any other a host.
 * A node seen only as somebody's neighbor is in the model too: a switch
 * whose own data is missing still joins its hosts, though links between
 * two such switches cannot be known.
 *
 * Cables: a host keeps one, the first its own listing shows (or, without
 * its listing, the first a switch shows); a host's other ports (a second
 * network) are left out, as hosts are leaves.  Between two switches the
 * cables are as many as the side that lists more of them shows, so a cable
 * seen from both ends counts once.  Rates come from the operational MAU
 * type of the 802.3 MAC/PHY TLV ("10GbaseT" is 10000 Mbit/s), which lldpd
 * reads through ethtool; the slower end wins, unknown is 0.
 *
 * Hosts are ranked by name in version order (h2 before h10); switches come
 * first in the same order.
 */
#define _GNU_SOURCE		/* qsort_r, strverscmp */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "topo.h"

struct ll_node {
	char id[128];			/* chassis ID, "type:value" */
	char sysname[64];		/* "" if none */
	char name[NC_TOPO_NAME_MAX];
	int is_switch;
	int listed;			/* its own data was read */
	uint32_t topo;			/* node index in the model */
};

/* One neighbor as a node's listing shows it: from's port sees to. */
struct ll_seen {
	uint32_t from, to;
	double rate_mbit;		/* 0: not reported */
};

struct ll_net {
	struct ll_node *nodes;
	uint32_t nnodes, cap_nodes;
	struct ll_seen *seen;
	uint32_t nseen, cap_seen;
};

static void net_free(struct ll_net *n)
{
	free(n->nodes);
	free(n->seen);
}

static int grow(void **v, uint32_t *cap, uint32_t n, size_t size)
{
	uint32_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 64;
	if (ncap > NC_TOPO_HOSTS_MAX * 4U)
		return -E2BIG;
	p = realloc(*v, (size_t)ncap * size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = ncap;
	return 0;
}

static const char *str_at(struct json_object *o, const char *key)
{
	struct json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

/*
 * lldpcli's "json" format keys a chassis by its system name ({"sw1": {"id":
 * ...}}) and, without a name, gives its fields directly.
 */
static struct json_object *chassis_fields(struct json_object *ch,
					  const char **sysname)
{
	struct json_object *id;

	*sysname = NULL;
	if (!json_object_is_type(ch, json_type_object))
		return NULL;
	if (json_object_object_get_ex(ch, "id", &id))
		return ch;
	if (json_object_object_length(ch) != 1)
		return NULL;
	json_object_object_foreach(ch, key, val) {
		*sysname = key;
		return json_object_is_type(val, json_type_object) ? val : NULL;
	}
	return NULL;
}

static int cap_switches(struct json_object *c)
{
	const char *type = str_at(c, "type");
	struct json_object *on;

	return type && (!strcmp(type, "Bridge") || !strcmp(type, "Router")) &&
	       json_object_object_get_ex(c, "enabled", &on) &&
	       json_object_is_type(on, json_type_boolean) &&
	       json_object_get_boolean(on);
}

/* Bridge or Router enabled: a switch (one capability is not in a list). */
static int chassis_switches(struct json_object *f)
{
	struct json_object *caps;
	size_t i;

	if (!json_object_object_get_ex(f, "capability", &caps))
		return 0;
	if (!json_object_is_type(caps, json_type_array))
		return cap_switches(caps);
	for (i = 0; i < json_object_array_length(caps); i++)
		if (cap_switches(json_object_array_get_idx(caps, i)))
			return 1;
	return 0;
}

/* The node of a chassis (added if new); -errno. */
static int node_of(struct ll_net *n, struct json_object *ch,
		   struct nc_topo_err *err)
{
	const char *sysname, *type, *value;
	struct json_object *f, *id;
	char key[sizeof(n->nodes->id)];
	struct ll_node *x;
	uint32_t i;
	int ret;

	f = chassis_fields(ch, &sysname);
	if (!f || !json_object_object_get_ex(f, "id", &id) ||
	    !(type = str_at(id, "type")) || !(value = str_at(id, "value")))
		return nc_topo_fail(err, 0, "a chassis without an ID");
	if ((size_t)snprintf(key, sizeof(key), "%s:%s", type, value) >= sizeof(key))
		return nc_topo_fail(err, 0, "chassis ID too long: %.40s...", value);
	for (i = 0; i < n->nnodes; i++) {
		x = &n->nodes[i];
		if (strcmp(x->id, key))
			continue;
		if (sysname && !x->sysname[0])
			snprintf(x->sysname, sizeof(x->sysname), "%s", sysname);
		x->is_switch |= chassis_switches(f);
		return (int)i;
	}
	ret = grow((void **)&n->nodes, &n->cap_nodes, n->nnodes, sizeof(*n->nodes));
	if (ret == -E2BIG)
		return nc_topo_fail(err, 0, "more chassis than a network may have");
	if (ret)
		return ret;
	x = &n->nodes[n->nnodes];
	memset(x, 0, sizeof(*x));
	memcpy(x->id, key, sizeof(key));
	snprintf(x->sysname, sizeof(x->sysname), "%s", sysname ? sysname : "");
	x->is_switch = chassis_switches(f);
	return (int)n->nnodes++;
}

/*
 * The operational MAU type ("10GbaseT - Four-pair ...", "1000BaseTFD",
 * "100BaseTXFD"): the leading number, G for Gbit/s, then "base".
 */
static double mau_mbit(const char *mau)
{
	char *end;
	double v;

	if (!mau || !isdigit((unsigned char)mau[0]))
		return 0;
	v = strtod(mau, &end);
	if (*end == 'G' || *end == 'g') {
		v *= 1000;
		end++;
	}
	/* no Ethernet runs faster than 1.6 Tbit/s (yet): a bigger one is junk */
	if (!isfinite(v) || v > 1.6e6 || strncasecmp(end, "base", 4))
		return 0;
	return v;
}

static double port_rate(struct json_object *nb)
{
	struct json_object *port, *an;

	if (!json_object_object_get_ex(nb, "port", &port) ||
	    !json_object_object_get_ex(port, "auto-negotiation", &an))
		return 0;
	return mau_mbit(str_at(an, "current"));
}

static int add_seen(struct ll_net *n, uint32_t from, struct json_object *nb,
		    struct nc_topo_err *err)
{
	struct json_object *ch;
	int to, ret;

	if (!json_object_is_type(nb, json_type_object) ||
	    !json_object_object_get_ex(nb, "chassis", &ch))
		return nc_topo_fail(err, 0, "a neighbor without a chassis");
	to = node_of(n, ch, err);
	if (to < 0)
		return to;
	if ((uint32_t)to == from)
		return 0;	/* its own frames, looped back: not a cable */
	ret = grow((void **)&n->seen, &n->cap_seen, n->nseen, sizeof(*n->seen));
	if (ret == -E2BIG)
		return nc_topo_fail(err, 0, "more neighbors than a network may have");
	if (ret)
		return ret;
	n->seen[n->nseen].from = from;
	n->seen[n->nseen].to = (uint32_t)to;
	n->seen[n->nseen].rate_mbit = port_rate(nb);
	n->nseen++;
	return 0;
}

/* {"ifname": {neighbor}} (a port may carry several keys: each is one). */
static int add_port(struct ll_net *n, uint32_t from, struct json_object *e,
		    struct nc_topo_err *err)
{
	int ret = 0;

	if (!json_object_is_type(e, json_type_object))
		return nc_topo_fail(err, 0, "an interface is not an object");
	json_object_object_foreach(e, ifname, nb) {
		(void)ifname;
		ret = add_seen(n, from, nb, err);
		if (ret)
			break;
	}
	return ret;
}

/* A "show neighbors" document for node from: {"lldp": {"interface": ...}}. */
static int add_neighbors(struct ll_net *n, uint32_t from,
			 struct json_object *lldp, struct nc_topo_err *err)
{
	struct json_object *ifs;
	size_t i;
	int ret = 0;

	if (json_object_is_type(lldp, json_type_array) &&
	    !json_object_array_length(lldp))
		return 0;	/* no neighbor at all */
	if (!json_object_is_type(lldp, json_type_object))
		return nc_topo_fail(err, 0, "\"lldp\" is not an object (the \"json\" format is read, not \"json0\")");
	if (!json_object_object_get_ex(lldp, "interface", &ifs))
		return 0;
	if (!json_object_is_type(ifs, json_type_array))
		return add_port(n, from, ifs, err);	/* a single one */
	for (i = 0; i < json_object_array_length(ifs) && !ret; i++)
		ret = add_port(n, from, json_object_array_get_idx(ifs, i), err);
	return ret;
}

/*
 * One text: documents one after the other; cur is the node whose chassis
 * came last (-1: none yet).
 */
static int parse_text(struct ll_net *n, const char *text,
		      struct nc_topo_err *err)
{
	struct json_tokener *tok = json_tokener_new();
	size_t left = strlen(text), doc = 0;
	struct json_object *o, *v;
	int cur = -1, ret = 0;

	if (!tok)
		return -ENOMEM;
	while (!ret) {
		enum json_tokener_error jerr;

		while (left && isspace((unsigned char)*text))
			text++, left--;
		if (!left)
			break;
		doc++;
		json_tokener_reset(tok);
		o = json_tokener_parse_ex(tok, text, (int)(left > INT32_MAX ? INT32_MAX : left));
		jerr = json_tokener_get_error(tok);
		if (jerr != json_tokener_success) {
			ret = nc_topo_fail(err, 0, "document %zu: %s", doc,
					   jerr == json_tokener_continue ? "cut short" :
					   json_tokener_error_desc(jerr));
			break;
		}
		text += json_tokener_get_parse_end(tok);
		left -= json_tokener_get_parse_end(tok);
		if (json_object_object_get_ex(o, "local-chassis", &v) &&
		    json_object_object_get_ex(v, "chassis", &v)) {
			cur = node_of(n, v, err);
			if (cur >= 0) {
				n->nodes[cur].listed = 1;
				ret = 0;
			} else {
				ret = cur;
			}
		} else if (json_object_object_get_ex(o, "lldp", &v)) {
			ret = cur < 0 ?
			      nc_topo_fail(err, 0, "document %zu: neighbors before the chassis they belong to (`lldpcli -f json show chassis` first)", doc) :
			      add_neighbors(n, (uint32_t)cur, v, err);
		} else {
			ret = nc_topo_fail(err, 0, "document %zu: neither `show chassis` nor `show neighbors` output", doc);
		}
		json_object_put(o);
	}
	json_tokener_free(tok);
	return ret;
}

static int name_taken(const struct ll_net *n, uint32_t upto, const char *name)
{
	uint32_t i;

	for (i = 0; i < upto; i++)
		if (!strcmp(n->nodes[i].name, name))
			return 1;
	return 0;
}

/* The system name if valid and unique, else one made of the chassis ID. */
static void choose_names(struct ll_net *n)
{
	uint32_t i, j;

	for (i = 0; i < n->nnodes; i++) {
		struct ll_node *x = &n->nodes[i];
		int unique = x->sysname[0] != '\0';

		for (j = 0; unique && j < n->nnodes; j++)
			if (j != i && !strcmp(x->sysname, n->nodes[j].sysname))
				unique = 0;
		if (unique)
			nc_topo_valid_name(x->sysname, x->name, sizeof(x->name));
		if (!x->name[0] || !strcmp(x->name, "fabric") || name_taken(n, i, x->name) ||
		    strlen(x->sysname) >= sizeof(x->name)) {
			char alt[sizeof(x->id) + 2];

			snprintf(alt, sizeof(alt), "%c-%s", x->is_switch ? 's' : 'h', x->id);
			nc_topo_valid_name(alt, x->name, sizeof(x->name));
		}
	}
}

static int cmp_name(const void *a, const void *b, void *arg)
{
	const struct ll_net *n = arg;
	const struct ll_node *x = &n->nodes[*(const uint32_t *)a];
	const struct ll_node *y = &n->nodes[*(const uint32_t *)b];

	if (x->is_switch != y->is_switch)
		return x->is_switch ? -1 : 1;
	return strverscmp(x->name, y->name);
}

/* The slower known rate of what a and b say of the cables between them. */
static double pair_rate(const struct ll_net *n, uint32_t a, uint32_t b)
{
	double r = 0;
	uint32_t i;

	for (i = 0; i < n->nseen; i++) {
		const struct ll_seen *s = &n->seen[i];

		if (((s->from == a && s->to == b) || (s->from == b && s->to == a)) &&
		    s->rate_mbit > 0 && (r == 0 || s->rate_mbit < r))
			r = s->rate_mbit;
	}
	return r;
}

static int count_seen(const struct ll_net *n, uint32_t from, uint32_t to)
{
	uint32_t i;
	int k = 0;

	for (i = 0; i < n->nseen; i++)
		k += n->seen[i].from == from && n->seen[i].to == to;
	return k;
}

/* A host's cable: the first its listing shows, else a switch's. */
static int host_switch(const struct ll_net *n, uint32_t h)
{
	uint32_t i;

	for (i = 0; i < n->nseen; i++)
		if (n->seen[i].from == h)
			return (int)n->seen[i].to;
	for (i = 0; i < n->nseen; i++)
		if (n->seen[i].to == h && n->nodes[n->seen[i].from].is_switch)
			return (int)n->seen[i].from;
	return -1;
}

static int build_model(struct ll_net *n, struct nc_topo *t,
		       struct nc_topo_err *err)
{
	uint32_t *order, i, j;
	int ret = 0, k;

	choose_names(n);
	order = malloc((n->nnodes ? n->nnodes : 1) * sizeof(*order));
	if (!order)
		return -ENOMEM;
	for (i = 0; i < n->nnodes; i++)
		order[i] = i;
	qsort_r(order, n->nnodes, sizeof(*order), cmp_name, n);
	for (i = 0; i < n->nnodes && ret >= 0; i++) {
		struct ll_node *x = &n->nodes[order[i]];

		ret = x->is_switch ? nc_topo_add_switch(t, x->name) :
				     nc_topo_add_host(t, x->name);
		if (ret >= 0)
			x->topo = (uint32_t)ret;
		else
			ret = nc_topo_fail(err, 0, "cannot name chassis %s '%s'",
					   x->id, x->name);
	}
	free(order);
	for (i = 0; i < n->nnodes && ret >= 0; i++) {
		if (n->nodes[i].is_switch)
			continue;
		k = host_switch(n, i);
		if (k < 0)
			return nc_topo_fail(err, 0, "host %s: no cable seen (is lldpd running on it and its switch?)",
					    n->nodes[i].name);
		if (!n->nodes[k].is_switch)
			return nc_topo_fail(err, 0, "hosts %s and %s are cabled to each other: a switch between them has no Bridge capability enabled",
					    n->nodes[i].name, n->nodes[k].name);
		ret = nc_topo_add_link(t, n->nodes[i].topo, n->nodes[k].topo,
				       pair_rate(n, i, (uint32_t)k), 0);
		if (ret < 0)
			return nc_topo_fail(err, 0, "host %s: cannot add its cable (%s)",
					    n->nodes[i].name, strerror(-ret));
	}
	for (i = 0; i < n->nnodes && ret >= 0; i++) {
		for (j = i + 1; j < n->nnodes && ret >= 0; j++) {
			if (!n->nodes[i].is_switch || !n->nodes[j].is_switch)
				continue;
			k = count_seen(n, i, j);
			if (count_seen(n, j, i) > k)
				k = count_seen(n, j, i);
			while (k-- > 0 && ret >= 0)
				ret = nc_topo_add_link(t, n->nodes[i].topo, n->nodes[j].topo,
						       pair_rate(n, i, j), 0);
			if (ret < 0)
				return nc_topo_fail(err, 0, "switches %s and %s: cannot add their cable (%s)",
						    n->nodes[i].name, n->nodes[j].name,
						    strerror(-ret));
		}
	}
	if (ret < 0)
		return ret;
	t->parallel_links = 1;	/* trunks of several cables (LAGs) */
	return nc_topo_finish(t, err);
}

int nc_topo_parse_lldp(struct nc_topo *t, const char *const *texts,
		       uint32_t ntexts, struct nc_topo_err *err,
		       uint32_t *err_text)
{
	struct ll_net n = { 0 };
	uint32_t i;
	int ret = 0;

	if (err) {
		err->line = 0;
		err->msg[0] = '\0';
	}
	if (err_text)
		*err_text = 0;
	if (!t || (!texts && ntexts))
		return -EINVAL;
	nc_topo_init(t);
	for (i = 0; i < ntexts && !ret; i++) {
		ret = parse_text(&n, texts[i], err);
		if (ret && err_text)
			*err_text = i;
	}
	if (!ret && !n.nnodes)
		ret = nc_topo_fail(err, 0, "no LLDP data");
	if (!ret) {
		ret = build_model(&n, t, err);
		if (ret && err_text)
			*err_text = ntexts;	/* not one text's fault */
	}
	net_free(&n);
	if (ret)
		nc_topo_free(t);
	return ret;
}

static int cmp_str(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The files a path names: itself, or a directory's *.json in name order
 * (-ENODATA: none there).
 */
static int list_files(const char *path, char ***out, uint32_t *nout)
{
	struct dirent *d;
	struct stat st;
	uint32_t cap = 0;
	char **v = NULL;
	DIR *dir;
	int ret = 0;

	if (stat(path, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode)) {
		v = malloc(sizeof(*v));
		if (!v || !(v[0] = strdup(path))) {
			free(v);
			return -ENOMEM;
		}
		*out = v;
		*nout = 1;
		return 0;
	}
	dir = opendir(path);
	if (!dir)
		return -errno;
	*nout = 0;
	while ((d = readdir(dir)) && !ret) {
		size_t len = strlen(d->d_name);

		if (len < 6 || strcmp(d->d_name + len - 5, ".json") || d->d_name[0] == '.')
			continue;
		ret = grow((void **)&v, &cap, *nout, sizeof(*v));
		if (!ret && asprintf(&v[*nout], "%s/%s", path, d->d_name) < 0)
			ret = -ENOMEM;
		if (!ret)
			(*nout)++;
	}
	closedir(dir);
	if (!ret && !*nout)
		ret = -ENODATA;
	if (ret) {
		while (*nout)
			free(v[--(*nout)]);
		free(v);
		return ret;
	}
	qsort(v, *nout, sizeof(*v), cmp_str);
	*out = v;
	return 0;
}

int nc_topo_load_lldp(struct nc_topo *t, const char *const *paths,
		      uint32_t npaths, struct nc_topo_err *err)
{
	char **files = NULL, **texts = NULL;
	uint32_t nfiles = 0, cap = 0, i, k, n = 0;
	int ret = 0;

	if (err) {
		err->line = 0;
		err->msg[0] = '\0';
	}
	for (i = 0; i < npaths && !ret; i++) {
		char **f = NULL;

		ret = list_files(paths[i], &f, &n);
		if (ret) {
			if (err) {
				snprintf(err->msg, sizeof(err->msg), "%s",
					 ret == -ENODATA ? "no *.json file there" : strerror(-ret));
				nc_topo_err_prefix(err, paths[i]);
			}
			break;
		}
		for (k = 0; k < n; k++) {
			if (!ret)
				ret = grow((void **)&files, &cap, nfiles, sizeof(*files));
			if (!ret)
				files[nfiles++] = f[k];
			else
				free(f[k]);
		}
		free(f);
	}
	texts = calloc(nfiles ? nfiles : 1, sizeof(*texts));
	if (!texts && !ret)
		ret = -ENOMEM;
	for (i = 0; i < nfiles && !ret; i++) {
		ret = nc_topo_read_text(files[i], &texts[i]);
		if (ret && err) {
			snprintf(err->msg, sizeof(err->msg), "%s", strerror(-ret));
			nc_topo_err_prefix(err, files[i]);
		}
	}
	if (!ret) {
		ret = nc_topo_parse_lldp(t, (const char *const *)texts, nfiles, err, &n);
		if (ret && err && err->msg[0] && n < nfiles)
			nc_topo_err_prefix(err, files[n]);
	}
	for (i = 0; i < nfiles; i++) {
		free(files[i]);
		if (texts)
			free(texts[i]);
	}
	free(files);
	free(texts);
	return ret;
}

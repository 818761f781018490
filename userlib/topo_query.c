// SPDX-License-Identifier: BSD-2-Clause
/*
 * The client side of the topology query service (netcoll-topod): one line
 * each way per question (see the service's header for the protocol), over
 * a session: nc_topo_query() asks one question, nc_topo_query_hosts() and
 * nc_bcast_delays_query() ask many over one connection, as seed 003's MPI
 * library asks for every pair of its processes.
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "bcast_plan.h"
#include "topo.h"

/* An answer line may hold every host's name ("hosts ..."). */
#define ANSWER_MAX	(1U << 20)
/* The whole of nc_topo_load_service()'s questions, all rounds. */
#define NC_TOPO_SERVICE_SECONDS	60

struct session {
	int fd;
	char *buf;		/* what was read and not yet taken */
	size_t len, cap;
	char *msg;		/* the caller's, for the service's words */
	size_t msg_size;
	time_t deadline;	/* CLOCK_MONOTONIC seconds; 0: none */
};

/* A connected stream socket to "unix:PATH" or "[HOST:]PORT", or -errno. */
static int connect_to(const char *addr)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai, *p;
	struct timeval tv = { .tv_sec = 10 };
	char host[256] = "localhost";
	const char *port = addr, *colon;
	int fd = -1, err = ECONNREFUSED;

	if (!strncmp(addr, "unix:", 5)) {
		struct sockaddr_un sun = { .sun_family = AF_UNIX };

		if (strlen(addr + 5) >= sizeof(sun.sun_path))
			return -ENAMETOOLONG;
		strcpy(sun.sun_path, addr + 5);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			return -errno;
		if (connect(fd, (struct sockaddr *)&sun, sizeof(sun))) {
			err = errno;
			close(fd);
			return -err;
		}
		goto out;
	}
	colon = strrchr(addr, ':');
	if (colon) {
		snprintf(host, sizeof(host), "%.*s", (int)(colon - addr), addr);
		port = colon + 1;
	}
	if (getaddrinfo(host, port, &hints, &ai))
		return -EADDRNOTAVAIL;
	for (p = ai; p; p = p->ai_next) {
		fd = socket(p->ai_family, p->ai_socktype | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		if (!connect(fd, p->ai_addr, p->ai_addrlen))
			break;
		err = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd < 0)
		return -err;
out:
	/* a service that hangs must not hang the job that asks it */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

/*
 * "path A SW... B hops N slowest_mbit R [delay_us D known K]": the last
 * two (since 0.3) are the sum of the delays the path's links have, and
 * how many of its links have one; *known 0 without them.
 */
static int parse_path(char *line, struct nc_topo_route *r, double *delay_us,
		      uint32_t *known)
{
	char *save = NULL, *w = strtok_r(line, " ", &save);
	uint32_t n = 0;

	*delay_us = 0;
	*known = 0;
	if (!w || strcmp(w, "path"))
		return -EPROTO;
	while ((w = strtok_r(NULL, " ", &save)) && strcmp(w, "hops")) {
		if (n == NC_TOPO_ROUTE_MAX)
			return -E2BIG;
		if (strlen(w) >= NC_TOPO_NAME_MAX)
			return -EPROTO;
		strcpy(r->nodes[n++], w);
	}
	if (!w || !(w = strtok_r(NULL, " ", &save)) ||
	    sscanf(w, "%u", &r->hops) != 1 || r->hops + 1 != n ||
	    !(w = strtok_r(NULL, " ", &save)) || strcmp(w, "slowest_mbit") ||
	    !(w = strtok_r(NULL, " ", &save)) || sscanf(w, "%lf", &r->slowest_mbit) != 1)
		return -EPROTO;
	w = strtok_r(NULL, " ", &save);
	if (!w)
		return 0;
	if (strcmp(w, "delay_us") ||
	    !(w = strtok_r(NULL, " ", &save)) || sscanf(w, "%lf", delay_us) != 1 ||
	    !(*delay_us >= 0) ||
	    !(w = strtok_r(NULL, " ", &save)) || strcmp(w, "known") ||
	    !(w = strtok_r(NULL, " ", &save)) || sscanf(w, "%u", known) != 1 ||
	    *known > r->hops)
		return -EPROTO;
	return 0;
}

static int session_open(struct session *se, const char *addr, char *msg,
			size_t msg_size)
{
	memset(se, 0, sizeof(*se));
	se->fd = -1;
	se->msg = msg;
	se->msg_size = msg_size;
	if (msg && msg_size)
		msg[0] = '\0';
	if (!addr)
		return -EINVAL;
	se->fd = connect_to(addr);
	return se->fd < 0 ? se->fd : 0;
}

static void session_close(struct session *se)
{
	if (se->fd >= 0) {
		/* a polite end; the service closes idle clients anyway */
		ssize_t ignored = send(se->fd, "quit\n", 5, MSG_NOSIGNAL);

		(void)ignored;
		close(se->fd);
	}
	free(se->buf);
	se->fd = -1;
	se->buf = NULL;
}

/*
 * Sends req (a line without its newline) and reads the answer into *line
 * (NUL-terminated, valid until the next call).  An "error ..." answer is
 * -ENOENT (unknown host), -EHOSTUNREACH (no path), -EBUSY, else -EPROTO;
 * its words go to the caller's msg.
 */
static int session_ask(struct session *se, const char *req, char **line)
{
	char out[2 * NC_TOPO_NAME_MAX + 32];
	size_t rlen = strlen(req);
	char *nl;
	ssize_t n;

	*line = NULL;
	if (se->deadline) {	/* a service that answers slowly, forever */
		struct timespec now;

		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec > se->deadline)
			return -ETIMEDOUT;
	}
	se->len = 0;			/* one answer per question, read whole */
	if (rlen + 2 > sizeof(out))
		return -EINVAL;
	/*
	 * One send per question (two would meet Nagle and the service's
	 * delayed ack: 40 ms a question over TCP); a service that went away
	 * is an error, not SIGPIPE for the whole program.
	 */
	memcpy(out, req, rlen);
	out[rlen++] = '\n';
	do {
		n = send(se->fd, out, rlen, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if ((size_t)n != rlen)
		return -EIO;
	while (!(nl = se->len ? memchr(se->buf, '\n', se->len) : NULL)) {
		if (se->len + 4096 + 1 > se->cap) {
			size_t cap = se->cap ? se->cap * 2 : 8192;
			char *b;

			if (cap > ANSWER_MAX)
				return -EPROTO;
			b = realloc(se->buf, cap);
			if (!b)
				return -ENOMEM;
			se->buf = b;
			se->cap = cap;
		}
		n = read(se->fd, se->buf + se->len, se->cap - se->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)	/* SO_RCVTIMEO: a service that does not answer */
			return errno == EAGAIN || errno == EWOULDBLOCK ? -ETIMEDOUT : -errno;
		if (n == 0)
			return se->len ? -EPROTO : -ECONNRESET;
		se->len += (size_t)n;
	}
	*nl = '\0';
	*line = se->buf;
	if (se->msg)
		snprintf(se->msg, se->msg_size, "%s", se->buf);
	if (!strncmp(se->buf, "error ", 6)) {
		if (!strncmp(se->buf + 6, "unknown host", 12))
			return -ENOENT;
		if (!strncmp(se->buf + 6, "no path", 7))
			return -EHOSTUNREACH;
		if (!strncmp(se->buf + 6, "busy", 4))
			return -EBUSY;
		return -EPROTO;
	}
	return 0;
}

static int valid_host(const char *h)
{
	return h && strlen(h) < NC_TOPO_NAME_MAX && h[0] && !strpbrk(h, ": \n");
}

static int ask_path(struct session *se, const char *a, const char *b,
		    struct nc_topo_route *r, double *delay_us, uint32_t *known)
{
	char req[2 * NC_TOPO_NAME_MAX + 16], *line;
	int ret;

	snprintf(req, sizeof(req), "query %s:%s", a, b);
	ret = session_ask(se, req, &line);
	if (ret)
		return ret;
	memset(r, 0, sizeof(*r));
	return parse_path(line, r, delay_us, known);
}

int nc_topo_query(const char *addr, const char *a, const char *b,
		  struct nc_topo_route *r, char *msg, size_t msg_size)
{
	struct session se;
	uint32_t known;
	double dsum;
	int ret;

	if (msg && msg_size)
		msg[0] = '\0';
	if (!addr || !valid_host(a) || !valid_host(b) || !r)
		return -EINVAL;
	ret = session_open(&se, addr, msg, msg_size);
	if (!ret)
		ret = ask_path(&se, a, b, r, &dsum, &known);
	session_close(&se);
	return ret;
}

/* "info ... generation G": the service's model, to notice a reload. */
static int ask_generation(struct session *se, unsigned long *gen)
{
	char *line, *g;
	int ret = session_ask(se, "info", &line);

	if (ret)
		return ret;
	g = strstr(line, " generation ");
	if (!g || sscanf(g + 12, "%lu", gen) != 1)
		return -EPROTO;
	return 0;
}

/*
 * After a round of questions begun at generation `before`: 1 if the
 * service's model did not change meanwhile (the answers hold together),
 * 0 to ask again, -EAGAIN after the third round that saw a reload.
 */
static int round_held(struct session *se, unsigned long before, uint32_t tries)
{
	unsigned long after;
	int ret = ask_generation(se, &after);

	if (ret)
		return ret;
	if (after == before)
		return 1;
	return tries == 2 ? -EAGAIN : 0;
}

int nc_topo_query_hosts(const char *addr, char ***names, uint32_t *n,
			char *msg, size_t msg_size)
{
	struct session se;
	char *line, *w, *save = NULL, **v = NULL, *p;
	uint32_t count = 0, i;
	size_t bytes = 0;
	int ret;

	if (!names || !n)
		return -EINVAL;
	*names = NULL;
	*n = 0;
	ret = session_open(&se, addr, msg, msg_size);
	if (!ret)
		ret = session_ask(&se, "hosts", &line);
	if (!ret && strncmp(line, "hosts ", 6) && strcmp(line, "hosts"))
		ret = -EPROTO;
	if (ret) {
		session_close(&se);
		return ret;
	}
	/* one allocation: the pointers, then the names */
	for (w = line + 5; *w; w++)
		count += *w == ' ';
	bytes = (count + 1) * sizeof(*v) + strlen(line) + 1;
	v = malloc(bytes);
	if (!v) {
		session_close(&se);
		return -ENOMEM;
	}
	p = (char *)(v + count + 1);
	i = 0;
	for (w = strtok_r(line + 5, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		if (!valid_host(w) || i == count) {
			ret = -EPROTO;
			break;
		}
		v[i++] = strcpy(p, w);
		p += strlen(w) + 1;
	}
	session_close(&se);
	if (ret || !i) {
		free(v);
		return ret ? ret : -ENOENT;
	}
	v[i] = NULL;
	*names = v;
	*n = i;
	return 0;
}

int nc_bcast_delays_query(const char *addr, const char *const *names,
			  uint32_t P, double hop_us, uint64_t bytes,
			  double *delay, char *msg, size_t msg_size)
{
	unsigned long gen_before;
	struct nc_topo_route r;
	struct session se;
	uint32_t a, b, tries, known;
	double dsum;
	int ret;

	if (!names || !P || !delay || !(hop_us >= 0))
		return -EINVAL;
	for (a = 0; a < P; a++)
		if (!valid_host(names[a]))
			return -EINVAL;
	ret = session_open(&se, addr, msg, msg_size);
	/* a reload between the questions would mix two networks: ask again */
	for (tries = 0; !ret && tries < 3; tries++) {
		ret = ask_generation(&se, &gen_before);
		for (a = 0; !ret && a < P; a++) {
			for (b = 0; !ret && b < P; b++) {
				if (a == b) {
					delay[(size_t)a * P + b] = 0;
					continue;
				}
				ret = ask_path(&se, names[a], names[b], &r,
					       &dsum, &known);
				if (!ret)
					delay[(size_t)a * P + b] =
						nc_bcast_delay_of(r.hops, known, dsum,
								  r.slowest_mbit,
								  hop_us, bytes);
			}
		}
		if (!ret)
			ret = round_held(&se, gen_before, tries);
		if (ret == 1) {
			ret = 0;
			break;
		}
	}
	session_close(&se);
	return ret;
}

/* ---------------------------------------------------------------- */
/* A topology from the service's answers                             */
/* ---------------------------------------------------------------- */

/* A name as the service sent it: shorter than NC_TOPO_NAME_MAX, or -EPROTO. */
static int name_fits(const char *name)
{
	return strlen(name) < NC_TOPO_NAME_MAX ? 0 : -EPROTO;
}

/*
 * "node NAME host|switch level L": node k of the service's model, added
 * to t; left[0] and left[1] count down the hosts and switches its info
 * announced (a service cannot make us hold more than that).
 */
static int take_node(struct session *se, struct nc_topo *t, uint32_t k,
		     uint32_t left[2])
{
	char req[32], *line, name[NC_TOPO_NAME_MAX + 1], kind[8];
	unsigned int level;
	int n, ret, host;

	snprintf(req, sizeof(req), "node %u", k);
	ret = session_ask(se, req, &line);
	if (ret)
		return ret;
	if (sscanf(line, "node %32s %7s level %u%n", name, kind, &level, &n) != 3 ||
	    line[n] || name_fits(name) ||
	    (strcmp(kind, "host") && strcmp(kind, "switch")))
		return -EPROTO;
	host = !strcmp(kind, "host");
	if (!left[!host]--)
		return -EPROTO;		/* more of a kind than it announced */
	ret = host ? nc_topo_add_host(t, name) : nc_topo_add_switch(t, name);
	if (ret < 0)
		return ret;
	t->nodes[ret].level = level;
	return 0;
}

/* "link A B rate_mbit R delay_us D lanes N ports PA PB": link k, added to t. */
static int take_link(struct session *se, struct nc_topo *t, uint32_t k)
{
	char req[32], *line, a[NC_TOPO_NAME_MAX + 1], b[NC_TOPO_NAME_MAX + 1];
	unsigned int lanes, pa, pb;
	double rate, delay;
	int na, nb, n, ret;

	snprintf(req, sizeof(req), "link %u", k);
	ret = session_ask(se, req, &line);
	if (ret)
		return ret;
	if (sscanf(line, "link %32s %32s rate_mbit %lf delay_us %lf lanes %u ports %u %u%n",
		   a, b, &rate, &delay, &lanes, &pa, &pb, &n) != 7 || line[n] ||
	    name_fits(a) || name_fits(b) || pa > UINT16_MAX || pb > UINT16_MAX)
		return -EPROTO;
	na = nc_topo_find(t, a);
	nb = nc_topo_find(t, b);
	if (na < 0 || nb < 0)
		return -EPROTO;
	ret = nc_topo_add_link(t, (uint32_t)na, (uint32_t)nb, rate, delay);
	if (ret < 0)
		return ret;
	t->links[ret].lanes = lanes;
	t->links[ret].port_a = (uint16_t)pa;
	t->links[ret].port_b = (uint16_t)pb;
	return 0;
}

/*
 * A network with cycles (a fat tree) has more than one path between two
 * hosts: "route SWITCH" says, per host, which link the switch sends its
 * traffic over (as the subnet manager set it; parallel cables told
 * apart).  A model that routes nothing (a generated XGFT) says so.
 */
static int take_routes(struct session *se, struct nc_topo *t)
{
	char req[NC_TOPO_NAME_MAX + 8], *line, *w, *save = NULL, *end;
	uint32_t n, h, P = t->nhosts;
	unsigned long l;
	size_t k;
	int ret = 0;

	t->route = malloc((size_t)t->nnodes * P * sizeof(*t->route));
	if (!t->route)
		return -ENOMEM;
	for (k = 0; k < (size_t)t->nnodes * P; k++)
		t->route[k] = NC_TOPO_NONE;
	for (n = 0; !ret && n < t->nnodes; n++) {
		if (t->nodes[n].kind != NC_NODE_SWITCH)
			continue;
		snprintf(req, sizeof(req), "route %s", t->nodes[n].name);
		ret = session_ask(se, req, &line);
		if (ret == -EPROTO && line && !strncmp(line, "error not routed", 16)) {
			free(t->route);
			t->route = NULL;
			return 0;
		}
		w = ret ? NULL : strtok_r(line, " ", &save);
		if (!ret && (!w || strcmp(w, "route") ||
			     !(w = strtok_r(NULL, " ", &save)) ||
			     strcmp(w, t->nodes[n].name)))
			ret = -EPROTO;
		for (h = 0; !ret && h < P; h++) {
			w = strtok_r(NULL, " ", &save);
			if (!w) {
				ret = -EPROTO;
				break;
			}
			if (!strcmp(w, "-"))
				continue;
			errno = 0;
			l = strtoul(w, &end, 10);
			if (errno || *end || l >= t->nlinks ||
			    (t->links[l].a != n && t->links[l].b != n))
				ret = -EPROTO;	/* not one of its cables */
			else
				t->route[(size_t)n * P + h] = (uint32_t)l;
		}
		if (!ret && strtok_r(NULL, " ", &save))
			ret = -EPROTO;
	}
	return ret;
}

/* "shape L M1..ML W1..WL": a generated fat tree's shape (L 0: none). */
static int take_shape(struct session *se, struct nc_topo *t)
{
	char *line, *w, *save = NULL, *end;
	uint32_t i, L = 0, v[16];
	unsigned long x;
	int ret = session_ask(se, "shape", &line);

	if (ret)
		return ret;
	w = strtok_r(line, " ", &save);
	if (!w || strcmp(w, "shape"))
		return -EPROTO;
	for (i = 0; (w = strtok_r(NULL, " ", &save)); i++) {
		errno = 0;
		x = strtoul(w, &end, 10);
		if (errno || *end || x > UINT32_MAX || (i == 0 && x > 8) ||
		    (i > 0 && (i > 2 * L || !x)))
			return -EPROTO;
		if (i == 0)
			L = (uint32_t)x;
		else
			v[i - 1] = (uint32_t)x;
	}
	if (i != 2 * L + 1)
		return -EPROTO;
	t->ft_levels = L;
	for (i = 0; i < L; i++) {
		t->ft_m[i] = v[i];
		t->ft_w[i] = v[L + i];
	}
	return 0;
}

int nc_topo_load_service(struct nc_topo *t, const char *addr,
			 struct nc_topo_err *err)
{
	unsigned long gen_before = 0;
	unsigned int hosts, switches, links;
	char msg[256] = "", *line;
	uint32_t left[2];
	struct session se;
	uint32_t k, tries;
	int ret;

	if (err) {
		err->line = 0;
		err->msg[0] = '\0';
	}
	if (!t)
		return -EINVAL;
	nc_topo_init(t);
	if (!addr)
		return -EINVAL;
	ret = session_open(&se, addr, msg, sizeof(msg));
	if (!ret) {	/* tens of thousands of questions at most: a minute */
		struct timespec now;

		clock_gettime(CLOCK_MONOTONIC, &now);
		se.deadline = now.tv_sec + NC_TOPO_SERVICE_SECONDS;
	}
	/* a reload between the questions would mix two networks: ask again */
	for (tries = 0; !ret && tries < 3; tries++) {
		nc_topo_free(t);
		ret = session_ask(&se, "info", &line);
		if (!ret && sscanf(line, "info hosts %u switches %u links %u generation %lu",
				   &hosts, &switches, &links, &gen_before) != 4)
			ret = -EPROTO;
		if (!ret && hosts > NC_TOPO_SERVICE_HOSTS_MAX) {
			snprintf(msg, sizeof(msg), "%u hosts, more than the %u it is asked about",
				 hosts, NC_TOPO_SERVICE_HOSTS_MAX);
			ret = -E2BIG;
		}
		/*
		 * A network's worth for its hosts: a fat tree has fewer
		 * switches than hosts, trunks a few cables each.  No service
		 * makes us allocate or ask more.
		 */
		if (!ret && (switches > 2 * hosts + 64 ||
			     links > 16 * (hosts + switches))) {
			snprintf(msg, sizeof(msg), "%u switches and %u links for %u hosts: not a network",
				 switches, links, hosts);
			ret = -E2BIG;
		}
		left[0] = hosts;
		left[1] = switches;
		for (k = 0; !ret && k < hosts + switches; k++)
			ret = take_node(&se, t, k, left);
		if (!ret)
			ret = take_shape(&se, t);
		for (k = 0; !ret && k < links; k++)
			ret = take_link(&se, t, k);
		/* the service checked its model: trunks of several cables too */
		t->parallel_links = 1;
		if (!ret)
			ret = nc_topo_finish(t, err);
		if (!ret)	/* a routed tree keeps its routes too */
			ret = take_routes(&se, t);
		if (!ret)
			ret = round_held(&se, gen_before, tries);
		if (ret == 1) {
			ret = 0;
			break;
		}
	}
	session_close(&se);
	/* the service's own words if it said no, else the model's or the errno's */
	if (ret && err) {
		char why[sizeof(err->msg)];

		snprintf(why, sizeof(why), "%s", err->msg[0] ? err->msg :
			 !strncmp(msg, "error ", 6) || ret == -E2BIG ? msg : strerror(-ret));
		snprintf(err->msg, sizeof(err->msg), "service %.80s: %.160s", addr, why);
	}
	if (ret)
		nc_topo_free(t);
	return ret;
}

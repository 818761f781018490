// SPDX-License-Identifier: BSD-2-Clause
/*
 * netcoll-topod: the topology query service of seed 003 (section IV-A).
 * It loads a topology as nctl names one (an InfiniBand fabric's dumps,
 * ib:NETDISCOVER,LFTS; a topology file; a generator spec), reloads it when
 * its input files change, and answers clients over a unix or TCP socket,
 * one thread per client (at most --clients at once), one line per request:
 *
 *   query HOSTA:HOSTB  ->  path HOSTA SW... HOSTB hops N slowest_mbit R
 *                          delay_us D known K (the sum of the delays of
 *                          the K links of the path that have one)
 *   hosts              ->  hosts NAME...
 *   node K             ->  node NAME host|switch level L   (K < nodes, model order)
 *   link K             ->  link A B rate_mbit R delay_us D lanes N ports PA PB
 *   route SWITCH       ->  route SWITCH L... (the link it sends each host's
 *                          traffic over, in rank order; - for none), or
 *                          "error not routed" where paths are the tree's
 *   shape              ->  shape L M1..ML W1..WL (a generated fat tree's; 0: none)
 *   info               ->  info hosts N switches N links N generation G
 *   quit
 *
 * Anything else, a line over 255 bytes, an unknown host or a pair without
 * a route is answered "error REASON" (the connection stays, except after
 * an over-long line).  A client over the limit gets "error busy" and is
 * closed; an idle client is closed after --idle seconds.
 *
 * The model is a refcounted snapshot: the reloader publishes a new one
 * under snap_lock and drops its reference to the old one, which the last
 * query still using it frees.  Only the reloader writes; clients hold a
 * reference only for the duration of one request.
 */
#define _GNU_SOURCE		/* accept4 */
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "../../userlib/topo.h"

#define LINE_MAX_BYTES	256

struct snapshot {
	struct nc_topo t;
	atomic_uint refs;
	unsigned long generation;
};

static pthread_mutex_t snap_lock = PTHREAD_MUTEX_INITIALIZER;
static struct snapshot *snap;		/* current; snap_lock */
static atomic_uint clients;
static unsigned int max_clients = 64;
static unsigned int idle_s = 30;
static const char *topology;

static void snap_put(struct snapshot *s)
{
	if (s && atomic_fetch_sub(&s->refs, 1) == 1) {
		nc_topo_free(&s->t);
		free(s);
	}
}

static struct snapshot *snap_get(void)
{
	struct snapshot *s;

	pthread_mutex_lock(&snap_lock);
	s = snap;
	if (s)
		atomic_fetch_add(&s->refs, 1);
	pthread_mutex_unlock(&snap_lock);
	return s;
}

/* Load the topology; on success publish it, else keep the old one. */
static int reload(void)
{
	static unsigned long generation;
	struct nc_topo_err err;
	struct snapshot *s = calloc(1, sizeof(*s)), *old;
	int ret;

	if (!s)
		return -ENOMEM;
	ret = nc_topo_open(&s->t, topology, &err);
	if (ret) {
		if (err.line)
			fprintf(stderr, "netcoll-topod: %s:%u: %s\n", topology, err.line, err.msg);
		else
			fprintf(stderr, "netcoll-topod: %s: %s\n", topology, err.msg);
		free(s);
		return ret;
	}
	atomic_init(&s->refs, 1);
	s->generation = ++generation;
	pthread_mutex_lock(&snap_lock);
	old = snap;
	snap = s;
	pthread_mutex_unlock(&snap_lock);
	snap_put(old);
	fprintf(stderr, "netcoll-topod: generation %lu: %u hosts, %u nodes, %u links\n",
		s->generation, s->t.nhosts, s->t.nnodes, s->t.nlinks);
	return 0;
}

/*
 * The files the topology is read from ("ib:A,B" is A and B; a generator
 * spec has none), into paths[2]; returns how many.
 */
static int input_files(char paths[2][4096])
{
	const char *comma;
	struct stat st;

	if (!strncmp(topology, "ib:", 3) && stat(topology, &st) != 0) {
		comma = strchr(topology + 3, ',');
		snprintf(paths[0], sizeof(paths[0]), "%.*s",
			 (int)(comma ? comma - topology - 3 : (long)strlen(topology + 3)),
			 topology + 3);
		if (!comma)
			return 1;
		snprintf(paths[1], sizeof(paths[1]), "%s", comma + 1);
		return 2;
	}
	if (stat(topology, &st) == 0 || !nc_topo_spec_like(topology)) {
		snprintf(paths[0], sizeof(paths[0]), "%s", topology);
		return 1;
	}
	return 0;
}

/* What identifies a file's content cheaply: size, mtime and inode. */
static void stamp(const char *path, long long out[3])
{
	struct stat st;

	if (stat(path, &st)) {
		out[0] = out[1] = out[2] = -1;
		return;
	}
	out[0] = st.st_size;
	out[1] = st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
	out[2] = (long long)st.st_ino;
}

/*
 * Polls the inputs (the subnet manager's dump scripts rewrite them); a
 * change that has settled for one period is reloaded.  Polling, not
 * inotify: it also sees files replaced by rename and directories that
 * appear later.
 */
static void *reloader(void *arg)
{
	unsigned int period_ms = *(unsigned int *)arg;
	char paths[2][4096];
	long long seen[2][3], now[2][3];
	int n = input_files(paths), i, changed = 0;
	struct timespec ts = { period_ms / 1000, (period_ms % 1000) * 1000000L };

	for (i = 0; i < n; i++)
		stamp(paths[i], seen[i]);
	for (;;) {
		nanosleep(&ts, NULL);
		for (i = 0; i < n; i++) {
			stamp(paths[i], now[i]);
			if (memcmp(now[i], seen[i], sizeof(now[i]))) {
				memcpy(seen[i], now[i], sizeof(now[i]));
				changed = 1;
				i = -1;		/* settle: look again next period */
				break;
			}
		}
		if (i >= 0 && changed) {
			changed = 0;
			reload();
		}
	}
	return NULL;
}

/* One answer line into out (NUL-terminated, with its newline). */
/* "WORD K", K decimal digits only and a u32: 1 and *k, else 0. */
static int request_index(const char *req, const char *word, uint32_t *k)
{
	size_t n = strlen(word);
	unsigned long v;
	char *end;

	if (strncmp(req, word, n) || req[n] != ' ' ||
	    req[n + 1] < '0' || req[n + 1] > '9')
		return 0;
	errno = 0;
	v = strtoul(req + n + 1, &end, 10);
	if (errno || *end || v > UINT32_MAX)
		return 0;
	*k = (uint32_t)v;
	return 1;
}

static void answer(const char *req, char *out, size_t size)
{
	struct snapshot *s = snap_get();
	const struct nc_topo *t;
	char a[NC_TOPO_NAME_MAX + 1], b[NC_TOPO_NAME_MAX + 1];
	uint32_t *edges = NULL, x, i, known = 0;
	size_t len;
	int na, nb, n;
	double slow = 0, dsum = 0;

	if (!s) {
		snprintf(out, size, "error no topology loaded\n");
		return;
	}
	t = &s->t;
	if (!strcmp(req, "info")) {
		snprintf(out, size, "info hosts %u switches %u links %u generation %lu\n",
			 t->nhosts, t->nnodes - t->nhosts, t->nlinks, s->generation);
		goto out;
	}
	if (!strcmp(req, "hosts")) {
		len = (size_t)snprintf(out, size, "hosts");
		for (i = 0; i < t->nhosts && len < size; i++)
			len += (size_t)snprintf(out + len, size - len, " %s",
						t->nodes[t->host_node[i]].name);
		if (len + 2 > size)
			snprintf(out, size, "error too many hosts for one line\n");
		else
			snprintf(out + len, size - len, "\n");
		goto out;
	}
	/* the model itself, node by node and link by link, in its order */
	if (!strcmp(req, "shape")) {
		/* a generated fat tree's; one finish() recognizes is not sent */
		uint32_t L = t->ft_found ? 0 : t->ft_levels;

		len = (size_t)snprintf(out, size, "shape %u", L);
		for (i = 0; i < 2 * L; i++)
			len += (size_t)snprintf(out + len, size - len, " %u",
						i < L ? t->ft_m[i] : t->ft_w[i - L]);
		snprintf(out + len, size - len, "\n");
		goto out;
	}
	if (request_index(req, "node", &x)) {
		if (x >= t->nnodes)
			snprintf(out, size, "error no node %u (%u nodes)\n", x, t->nnodes);
		else
			snprintf(out, size, "node %s %s level %u\n", t->nodes[x].name,
				 t->nodes[x].kind == NC_NODE_HOST ? "host" : "switch",
				 t->nodes[x].level);
		goto out;
	}
	if (request_index(req, "link", &x)) {
		if (x >= t->nlinks)
			snprintf(out, size, "error no link %u (%u links)\n", x, t->nlinks);
		else
			snprintf(out, size, "link %s %s rate_mbit %.17g delay_us %.17g lanes %u ports %u %u\n",
				 t->nodes[t->links[x].a].name, t->nodes[t->links[x].b].name,
				 t->links[x].rate_mbit, t->links[x].delay_us,
				 t->links[x].lanes, t->links[x].port_a, t->links[x].port_b);
		goto out;
	}
	if (!strncmp(req, "route ", 6) &&
	    sscanf(req + 6, "%32[^: ]%n", a, &n) == 1 && req[6 + n] == '\0') {
		na = nc_topo_find(t, a);
		if (na < 0 || t->nodes[na].kind != NC_NODE_SWITCH) {
			snprintf(out, size, "error unknown switch '%s'\n", a);
			goto out;
		}
		if (!t->route) {
			snprintf(out, size, "error not routed (paths are the tree's)\n");
			goto out;
		}
		len = (size_t)snprintf(out, size, "route %s", a);
		for (i = 0; i < t->nhosts && len < size; i++) {
			uint32_t l = t->route[(size_t)na * t->nhosts + i];

			len += l == NC_TOPO_NONE ?
			       (size_t)snprintf(out + len, size - len, " -") :
			       (size_t)snprintf(out + len, size - len, " %u", l);
		}
		if (len + 2 > size)
			snprintf(out, size, "error too many hosts for one line\n");
		else
			snprintf(out + len, size - len, "\n");
		goto out;
	}
	if (strncmp(req, "query ", 6) ||
	    sscanf(req + 6, "%32[^: ]:%32[^: \n]%n", a, b, &n) != 2 ||
	    req[6 + n] != '\0') {
		snprintf(out, size, "error malformed request (want: query HOSTA:HOSTB, hosts, node N, link N, route SWITCH, shape, info, quit)\n");
		goto out;
	}
	na = nc_topo_find(t, a);
	nb = nc_topo_find(t, b);
	if (na < 0 || t->nodes[na].kind != NC_NODE_HOST ||
	    nb < 0 || t->nodes[nb].kind != NC_NODE_HOST) {
		snprintf(out, size, "error unknown host '%s'\n",
			 na < 0 || t->nodes[na].kind != NC_NODE_HOST ? a : b);
		goto out;
	}
	edges = malloc(t->nnodes * sizeof(*edges));
	n = edges ? nc_topo_path(t, (uint32_t)na, (uint32_t)nb, edges, t->nnodes) : -ENOMEM;
	if (n < 0) {
		snprintf(out, size, "error no path from %s to %s: %s\n", a, b, strerror(-n));
		goto out;
	}
	len = (size_t)snprintf(out, size, "path %s", a);
	for (i = 0, x = (uint32_t)na; i < (uint32_t)n && len < size; i++) {
		const struct nc_topo_link *l = &t->links[NC_EDGE_LINK(edges[i])];

		x = l->a == x ? l->b : l->a;
		len += (size_t)snprintf(out + len, size - len, " %s", t->nodes[x].name);
		if (i == 0 || l->rate_mbit < slow)
			slow = l->rate_mbit;
		if (l->delay_us > 0) {
			known++;
			dsum += l->delay_us;
		}
	}
	if (len < size)
		snprintf(out + len, size - len,
			 " hops %d slowest_mbit %.17g delay_us %.17g known %u\n",
			 n, slow, dsum, known);
out:
	free(edges);
	snap_put(s);
}

static void *client(void *arg)
{
	int fd = (int)(intptr_t)arg;
	char line[LINE_MAX_BYTES], out[65536];
	FILE *in = fdopen(fd, "r");

	if (!in) {
		close(fd);
		atomic_fetch_sub(&clients, 1);
		return NULL;
	}
	while (fgets(line, sizeof(line), in)) {
		size_t n = strlen(line);

		if (n && line[n - 1] == '\n')
			line[--n] = '\0';
		else if (!feof(in)) {
			dprintf(fd, "error line longer than %d bytes\n", LINE_MAX_BYTES - 1);
			break;
		}
		if (n && line[n - 1] == '\r')
			line[--n] = '\0';
		if (!strcmp(line, "quit"))
			break;
		answer(line, out, sizeof(out));
		if (write(fd, out, strlen(out)) < 0)
			break;
	}
	fclose(in);
	atomic_fetch_sub(&clients, 1);
	return NULL;
}

/* "unix:PATH" or "[HOST:]PORT" (TCP; HOST defaults to localhost). */
static int listen_on(const char *addr)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE }, *ai, *p;
	char host[256] = "localhost";
	const char *port = addr, *colon;
	int fd = -1, one = 1;

	if (!strncmp(addr, "unix:", 5)) {
		struct sockaddr_un sun = { .sun_family = AF_UNIX };

		if (strlen(addr + 5) >= sizeof(sun.sun_path))
			return -ENAMETOOLONG;
		strcpy(sun.sun_path, addr + 5);
		unlink(sun.sun_path);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0 || bind(fd, (struct sockaddr *)&sun, sizeof(sun)) ||
		    listen(fd, 128)) {
			if (fd >= 0)
				close(fd);
			return -errno;
		}
		return fd;
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
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (!bind(fd, p->ai_addr, p->ai_addrlen) && !listen(fd, 128))
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	return fd >= 0 ? fd : -EADDRINUSE;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: netcoll-topod [--listen unix:PATH|[HOST:]PORT] [--clients N]\n"
		   "                     [--idle SECONDS] [--reload-ms MS] TOPOLOGY\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "clients", required_argument, NULL, 'c' },
		{ "idle", required_argument, NULL, 'i' },
		{ "reload-ms", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *addr = "unix:/run/netcoll-topod.sock";
	unsigned int reload_ms = 1000;
	pthread_attr_t attr;
	pthread_t th;
	int c, lfd;

	while ((c = getopt_long(argc, argv, "l:c:i:r:h", opts, NULL)) != -1) {
		switch (c) {
		case 'l': addr = optarg; break;
		case 'c': max_clients = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'i': idle_s = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'r': reload_ms = (unsigned int)strtoul(optarg, NULL, 0); break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc - 1 || !max_clients || !reload_ms) {
		usage(stderr);
		return 2;
	}
	topology = argv[optind];
	signal(SIGPIPE, SIG_IGN);
	if (reload())
		return 1;
	lfd = listen_on(addr);
	if (lfd < 0) {
		fprintf(stderr, "netcoll-topod: %s: %s\n", addr, strerror(-lfd));
		return 1;
	}
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	if (pthread_create(&th, &attr, reloader, &reload_ms)) {
		fprintf(stderr, "netcoll-topod: cannot start the reloader\n");
		return 1;
	}
	fprintf(stderr, "netcoll-topod: listening on %s\n", addr);
	for (;;) {
		struct timeval tv = { .tv_sec = idle_s };
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			    errno == ENOMEM) {
				/* out of descriptors: let clients finish */
				usleep(100 * 1000);
				continue;
			}
			perror("netcoll-topod: accept");
			return 1;
		}
		if (atomic_fetch_add(&clients, 1) >= max_clients) {
			dprintf(fd, "error busy: %u clients\n", max_clients);
			close(fd);
			atomic_fetch_sub(&clients, 1);
			continue;
		}
		if (idle_s)
			setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		if (pthread_create(&th, &attr, client, (void *)(intptr_t)fd)) {
			dprintf(fd, "error busy: cannot start a thread\n");
			close(fd);
			atomic_fetch_sub(&clients, 1);
		}
	}
}

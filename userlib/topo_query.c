// SPDX-License-Identifier: BSD-2-Clause
/*
 * The client side of the topology query service (netcoll-topod): one
 * connection per question, one line each way (see the service's header
 * for the protocol).
 */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "topo.h"

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

static int parse_path(char *line, struct nc_topo_route *r)
{
	char *save = NULL, *w = strtok_r(line, " ", &save);
	uint32_t n = 0;

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
	return 0;
}

int nc_topo_query(const char *addr, const char *a, const char *b,
		  struct nc_topo_route *r, char *msg, size_t msg_size)
{
	char req[2 * NC_TOPO_NAME_MAX + 16], line[4096];
	size_t len = 0;
	ssize_t n;
	int fd, ret;

	if (msg && msg_size)
		msg[0] = '\0';
	if (!addr || !a || !b || !r || strlen(a) >= NC_TOPO_NAME_MAX ||
	    strlen(b) >= NC_TOPO_NAME_MAX || strpbrk(a, ": \n") || strpbrk(b, ": \n"))
		return -EINVAL;
	fd = connect_to(addr);
	if (fd < 0)
		return fd;
	snprintf(req, sizeof(req), "query %s:%s\n", a, b);
	if (write(fd, req, strlen(req)) != (ssize_t)strlen(req)) {
		ret = -errno;
		close(fd);
		return ret ? ret : -EIO;
	}
	while (len < sizeof(line) - 1 && !memchr(line, '\n', len)) {
		n = read(fd, line + len, sizeof(line) - 1 - len);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	line[len] = '\0';
	if (!memchr(line, '\n', len))
		return len ? -EPROTO : -ECONNRESET;
	*strchr(line, '\n') = '\0';
	if (msg)
		snprintf(msg, msg_size, "%s", line);
	if (!strncmp(line, "error ", 6)) {
		if (!strncmp(line + 6, "unknown host", 12))
			return -ENOENT;
		if (!strncmp(line + 6, "no path", 7))
			return -EHOSTUNREACH;
		if (!strncmp(line + 6, "busy", 4))
			return -EBUSY;
		return -EPROTO;
	}
	memset(r, 0, sizeof(*r));
	return parse_path(line, r);
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * nc_churn: pull the ground from under running collectives, fast enough
 * to do it hundreds of times in a test VM (no process per step: netlink
 * and ioctls from here).  Workers are forked children that run 64 KiB
 * allreduces and bind again after every error; each prints, when stopped
 * with SIGTERM, whether every error was one the churn explains and came
 * within the time budget.
 *
 *   nc_churn recreate --iters N         communicator 1 (this host alone)
 *                                       deleted and created again under a
 *                                       worker
 *   nc_churn updown --iters N           eth0 down and up under a worker
 *                                       (attached and created again each
 *                                       time)
 *   nc_churn detach --iters N           communicator 4 deleted under a
 *                                       worker, then eth0 detached (its
 *                                       bearer freed while the worker's
 *                                       endpoint still holds the deleted
 *                                       communicator), attached again
 *   nc_churn kill --iters N --peer NS   communicator 3 of this host and the
 *                                       one in network namespace file NS
 *                                       (e.g. /run/netns/nc-h2): a worker
 *                                       there runs throughout, one here is
 *                                       killed (SIGKILL) mid-operation each
 *                                       round, and the communicator made
 *                                       again on both
 *   nc_churn netns --iters N            a new namespace each round, joined
 *                                       to this one by a veth pair, with a
 *                                       device attached, a communicator and
 *                                       a worker; then (every other round)
 *                                       the device deleted, the worker killed
 *                                       and the namespace let go
 *
 * Output: "ok - ..." / "not ok - ..." lines and "N passed, N failed".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/if_link.h>
#include <linux/netcoll.h>
#include <linux/rtnetlink.h>
#include <linux/veth.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>

#include "netcoll.h"

#define TIMEOUT_MS	1000

static unsigned int passed, failed;

static void result(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void result(int ok, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		passed++;
	else
		failed++;
	fputs(ok ? "ok - " : "not ok - ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

static void die(const char *what, int err)
{
	fprintf(stderr, "nc_churn: %s: %s\n", what, nc_strerror(err));
	exit(2);
}

static const char *ename(int e)
{
	const char *n = e ? strerrorname_np(e) : "success";

	return n ? n : "unknown errno";
}

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void rand_sleep(unsigned int max_ms)
{
	usleep((useconds_t)(rand() % (max_ms * 1000 + 1)));
}

/* ---------------------------------------------------------------- */
/* The worker                                                        */
/* ---------------------------------------------------------------- */

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	stop = 1;
}

/* Errors the churn (deletion, device down, peers killed) explains. */
static int churn_errno(int e)
{
	switch (e) {
	case ENOENT:		/* bind: not (yet) created */
	case EBUSY:		/* bind: the previous endpoint not yet closed */
	case ENETDOWN:
	case ESHUTDOWN:
	case ETIMEDOUT:
	case ENOTRECOVERABLE:
	case EINTR:		/* SIGTERM */
		return 1;
	}
	return 0;
}

static void worker(const char *name, uint32_t comm, uint32_t rank)
{
	struct sigaction sa = { .sa_handler = on_term };	/* no SA_RESTART */
	unsigned long ops = 0, errs[256] = { 0 }, odd = 0;
	static uint64_t buf[8192];
	nc_endpoint *ep = NULL;
	double t0, worst = 0;
	char list[512] = "";
	size_t n = 0;
	int err, e;

	sigaction(SIGTERM, &sa, NULL);
	while (!stop) {
		if (!ep) {
			err = nc_open(&ep, NULL);
			if (err)
				die("open /dev/netcoll", err);
			nc_set_timeout(ep, TIMEOUT_MS);
			err = nc_bind(ep, comm, rank);
			if (err) {
				errs[-err < 256 ? -err : 0]++;
				odd += !churn_errno(-err);
				nc_close(ep);
				ep = NULL;
				usleep(2000);
				continue;
			}
		}
		t0 = now_ms();
		err = nc_allreduce(ep, buf, buf, 8192, NC_DT_UINT64, NC_OP_BOR);
		if (!err) {
			ops++;
			continue;
		}
		if (now_ms() - t0 > worst)
			worst = now_ms() - t0;
		errs[-err < 256 ? -err : 0]++;
		odd += !churn_errno(-err);
		nc_close(ep);
		ep = NULL;
		if (err == -ENOTRECOVERABLE || err == -ENETDOWN)
			usleep(2000);	/* until the churn makes it again */
	}
	nc_close(ep);
	for (e = 1; e < 256; e++)
		if (errs[e])
			n += snprintf(list + n, n < sizeof(list) ? sizeof(list) - n : 0,
				      " %s x%lu", ename(e), errs[e]);
	result(!odd && !errs[0], "%s: %lu operations, errors:%s", name, ops,
	       n ? list : " none");
	result(worst <= TIMEOUT_MS + 1000.0,
	       "%s: each failure within the %u ms budget (+1 s): worst %.0f ms",
	       name, TIMEOUT_MS, worst);
	exit(0);
}

static pid_t start_worker(const char *name, uint32_t comm, uint32_t rank)
{
	pid_t pid = fork();

	if (pid == 0)
		worker(name, comm, rank);
	if (pid < 0) {
		perror("nc_churn: fork");
		exit(2);
	}
	return pid;
}

static void stop_worker(pid_t pid, int sig)
{
	kill(pid, sig);
	waitpid(pid, NULL, 0);
}

/* ---------------------------------------------------------------- */
/* Configuration: netcoll, links, namespaces                         */
/* ---------------------------------------------------------------- */

/* eth0's address, attached if it is not. */
static struct nc_member own_member(nc_ctl *ctl, const char *dev)
{
	struct nc_dev_info *d;
	struct nc_member m = { 0 };
	size_t n;
	int err;

	err = nc_dev_list(ctl, dev, &d, &n);
	if (err == -ENODEV) {
		err = nc_dev_attach(ctl, dev);
		if (!err)
			err = nc_dev_list(ctl, dev, &d, &n);
	}
	if (err)
		die("attach", err);
	memcpy(m.addr, d->addr, d->addr_len);
	m.addr_len = d->addr_len;
	free(d);
	return m;
}

static int comm_create(nc_ctl *ctl, uint32_t id, uint32_t rank,
		       const struct nc_member *members, uint32_t size)
{
	struct nc_comm_spec s = {
		.id = id, .ifname = "eth0", .rank = rank, .size = size,
		.members = members, .timeout_ms = TIMEOUT_MS,
	};

	return nc_comm_create(ctl, &s);
}

static int set_up(const char *dev, int up)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM, 0), err = 0;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		err = -errno;
	if (!err) {
		ifr.ifr_flags = up ? ifr.ifr_flags | IFF_UP : ifr.ifr_flags & ~IFF_UP;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
			err = -errno;
	}
	close(fd);
	return err;
}

/* rtnetlink: veth pair NAME here, its peer eth0 in namespace nsfd. */
static int veth_add(const char *name, int nsfd)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct nlattr *info, *data, *peer;
	struct nl_sock *sk = nl_socket_alloc();
	struct nl_msg *m;
	int err;

	if (!sk || nl_connect(sk, NETLINK_ROUTE))
		return -ENOMEM;
	m = nlmsg_alloc_simple(RTM_NEWLINK, NLM_F_CREATE | NLM_F_EXCL);
	if (!m || nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO) ||
	    nla_put_string(m, IFLA_IFNAME, name) ||
	    !(info = nla_nest_start(m, IFLA_LINKINFO)) ||
	    nla_put_string(m, IFLA_INFO_KIND, "veth") ||
	    !(data = nla_nest_start(m, IFLA_INFO_DATA)) ||
	    !(peer = nla_nest_start(m, VETH_INFO_PEER)) ||
	    nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO) ||
	    nla_put_string(m, IFLA_IFNAME, "eth0") ||
	    nla_put_u32(m, IFLA_NET_NS_FD, (uint32_t)nsfd)) {
		nlmsg_free(m);
		nl_socket_free(sk);
		return -EMSGSIZE;
	}
	nla_nest_end(m, peer);
	nla_nest_end(m, data);
	nla_nest_end(m, info);
	err = nl_send_sync(sk, m);
	nl_socket_free(sk);
	return err ? -EIO : 0;
}

static int link_del(const char *name)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	struct nl_sock *sk = nl_socket_alloc();
	struct nl_msg *m;
	int err;

	if (!sk || nl_connect(sk, NETLINK_ROUTE))
		return -ENOMEM;
	ifi.ifi_index = (int)if_nametoindex(name);
	m = nlmsg_alloc_simple(RTM_DELLINK, 0);
	if (!m || nlmsg_append(m, &ifi, sizeof(ifi), NLMSG_ALIGNTO)) {
		nlmsg_free(m);
		nl_socket_free(sk);
		return -ENOMEM;
	}
	err = nl_send_sync(sk, m);
	nl_socket_free(sk);
	return err ? -EIO : 0;
}

/* A fresh network namespace, held by the returned fd only. */
static int new_netns(void)
{
	int here = open("/proc/self/ns/net", O_RDONLY), fd;

	if (here < 0 || unshare(CLONE_NEWNET)) {
		perror("nc_churn: unshare");
		exit(2);
	}
	fd = open("/proc/self/ns/net", O_RDONLY);
	if (fd < 0 || setns(here, CLONE_NEWNET)) {
		perror("nc_churn: back to the namespace");
		exit(2);
	}
	close(here);
	return fd;
}

static void enter(int nsfd)
{
	if (setns(nsfd, CLONE_NEWNET)) {
		perror("nc_churn: setns");
		exit(2);
	}
}

/* ---------------------------------------------------------------- */
/* Rounds                                                            */
/* ---------------------------------------------------------------- */

static int do_recreate(unsigned int iters)
{
	struct nc_member me;
	unsigned int i, made = 0;
	nc_ctl *ctl;
	pid_t w;
	int err;

	err = nc_ctl_open(&ctl);
	if (err)
		die("netlink", err);
	me = own_member(ctl, "eth0");
	w = start_worker("worker under recreate", 1, 0);
	for (i = 0; i < iters; i++) {
		made += !comm_create(ctl, 1, 0, &me, 1);
		rand_sleep(20);
		nc_comm_delete(ctl, 1);
	}
	stop_worker(w, SIGTERM);
	result(made == iters, "%u times communicator 1 created, run on and deleted (%u made)",
	       iters, made);
	nc_ctl_close(ctl);
	return 0;
}

static int do_updown(unsigned int iters)
{
	unsigned int i, downs = 0;
	struct nc_member me;
	nc_ctl *ctl;
	pid_t w;
	int err;

	err = nc_ctl_open(&ctl);
	if (err)
		die("netlink", err);
	me = own_member(ctl, "eth0");
	w = start_worker("worker under down/up", 2, 0);
	for (i = 0; i < iters; i++) {
		nc_dev_attach(ctl, "eth0");
		comm_create(ctl, 2, 0, &me, 1);
		rand_sleep(20);
		downs += !set_up("eth0", 0);
		set_up("eth0", 1);
		nc_comm_delete(ctl, 2);
	}
	stop_worker(w, SIGTERM);
	nc_dev_attach(ctl, "eth0");
	result(downs == iters, "%u times eth0 down and up under a worker", iters);
	nc_ctl_close(ctl);
	return 0;
}

static int do_detach(unsigned int iters)
{
	unsigned int i, detached = 0;
	struct nc_member me;
	nc_ctl *ctl;
	pid_t w;
	int err;

	err = nc_ctl_open(&ctl);
	if (err)
		die("netlink", err);
	me = own_member(ctl, "eth0");
	w = start_worker("worker under delete and detach", 4, 0);
	for (i = 0; i < iters; i++) {
		nc_dev_attach(ctl, "eth0");
		comm_create(ctl, 4, 0, &me, 1);
		rand_sleep(20);
		nc_comm_delete(ctl, 4);
		rand_sleep(5);
		detached += !nc_dev_detach(ctl, "eth0");
	}
	stop_worker(w, SIGTERM);
	nc_dev_attach(ctl, "eth0");
	result(detached == iters, "%u times communicator 4 deleted and eth0 detached under a worker",
	       iters);
	nc_ctl_close(ctl);
	return 0;
}

static int do_kill(unsigned int iters, const char *peer_ns)
{
	int here = open("/proc/self/ns/net", O_RDONLY);
	int there = open(peer_ns, O_RDONLY), err;
	struct nc_member m[2];
	nc_ctl *ctl[2];
	unsigned int i, made = 0;
	pid_t survivor, v;

	if (here < 0 || there < 0) {
		perror("nc_churn: namespaces");
		return 2;
	}
	err = nc_ctl_open(&ctl[0]);
	if (err)
		die("netlink", err);
	m[0] = own_member(ctl[0], "eth0");
	enter(there);
	err = nc_ctl_open(&ctl[1]);
	if (err)
		die("netlink (peer)", err);
	m[1] = own_member(ctl[1], "eth0");
	enter(here);

	comm_create(ctl[0], 3, 0, m, 2);
	comm_create(ctl[1], 3, 1, m, 2);
	enter(there);
	survivor = start_worker("survivor (peer)", 3, 1);
	enter(here);
	for (i = 0; i < iters; i++) {
		v = start_worker("victim", 3, 0);
		rand_sleep(50);
		stop_worker(v, SIGKILL);
		/* a member killed mid-operation leaves both broken: again */
		nc_comm_delete(ctl[0], 3);
		nc_comm_delete(ctl[1], 3);
		made += !comm_create(ctl[0], 3, 0, m, 2) &&
			!comm_create(ctl[1], 3, 1, m, 2);
	}
	stop_worker(survivor, SIGTERM);
	nc_comm_delete(ctl[0], 3);
	nc_comm_delete(ctl[1], 3);
	result(made == iters, "%u times a member killed with SIGKILL mid-operation", iters);
	nc_ctl_close(ctl[0]);
	nc_ctl_close(ctl[1]);
	close(here);
	close(there);
	return 0;
}

static int do_netns(unsigned int iters)
{
	int here = open("/proc/self/ns/net", O_RDONLY), ns, ok = 1;
	unsigned int i, done = 0;
	struct nc_member me;
	char name[IFNAMSIZ];
	nc_ctl *ctl;
	pid_t w;
	int err;

	for (i = 0; i < iters; i++) {
		ns = new_netns();
		snprintf(name, sizeof(name), "ncv%u", i);
		err = veth_add(name, ns);
		if (!err)
			err = set_up(name, 1);
		if (err) {
			ok = 0;
			fprintf(stderr, "nc_churn: round %u: veth: %s\n", i, ename(-err));
			close(ns);
			break;
		}
		enter(ns);
		set_up("lo", 1);
		set_up("eth0", 1);
		err = nc_ctl_open(&ctl);
		if (err)
			die("netlink (new namespace)", err);
		me = own_member(ctl, "eth0");
		err = comm_create(ctl, 4, 0, &me, 1);
		nc_ctl_close(ctl);		/* its socket would hold the namespace */
		w = err ? -1 : start_worker("worker in a namespace", 4, 0);
		enter(here);
		rand_sleep(30);
		if (i % 2)
			link_del(name);		/* its device first */
		if (w > 0) {
			stop_worker(w, SIGKILL);
			done++;
		}
		close(ns);			/* the namespace goes */
	}
	result(ok && done == iters,
	       "%u namespaces with a device, a communicator and a worker deleted (%u with the device first)",
	       done, done / 2);
	close(here);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "iters", 1, NULL, 'n' }, { "peer", 1, NULL, 'p' },
		{ "seed", 1, NULL, 's' }, { NULL, 0, NULL, 0 },
	};
	const char *mode = argc > 1 ? argv[1] : "", *peer = NULL;
	unsigned int iters = 200, seed = 1;
	int c, rc = 2;

	optind = 2;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'n': iters = strtoul(optarg, NULL, 0); break;
		case 'p': peer = optarg; break;
		case 's': seed = strtoul(optarg, NULL, 0); break;
		default: return 2;
		}
	}
	srand(seed);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "recreate"))
		rc = do_recreate(iters);
	else if (!strcmp(mode, "updown"))
		rc = do_updown(iters);
	else if (!strcmp(mode, "detach"))
		rc = do_detach(iters);
	else if (!strcmp(mode, "kill") && peer)
		rc = do_kill(iters, peer);
	else if (!strcmp(mode, "netns"))
		rc = do_netns(iters);
	else
		fprintf(stderr, "usage: nc_churn recreate|updown|detach|netns [--iters N] | kill --peer NSFILE [--iters N]\n");
	if (rc == 2)
		return 2;
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : rc;
}

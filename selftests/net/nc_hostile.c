// SPDX-License-Identifier: BSD-2-Clause
/*
 * nc_hostile: what a hostile (or merely buggy) local process tries against
 * /dev/netcoll, each attempt asserting the safe outcome.  Raw ioctls: the
 * library would refuse some of these before the kernel sees them.
 *
 *   nc_hostile bind-denied COMM RANK      BIND must fail with EACCES
 *   nc_hostile bind COMM RANK             BIND must succeed
 *   nc_hostile bind-deputy COMM RANK UID  (run by the admin) a process of
 *                                         uid UID opens /dev/netcoll and
 *                                         hands it over a unix socket; the
 *                                         admin's BIND on it is EACCES, on
 *                                         its own file it succeeds
 *   nc_hostile handles COMM               (a one-member communicator of the
 *                                         caller) another endpoint's handle
 *                                         is EBADF, an unknown one ESRCH,
 *                                         a waited-for one ESRCH, one a
 *                                         forked child waits for EPERM
 *   nc_hostile ops-limit COMM MAX         (one member) the endpoint may keep
 *                                         MAX operations posted; one more is
 *                                         EAGAIN
 *   nc_hostile race-wait COMM ITERS       (one member) two threads WAIT for
 *                                         the same handle at once: exactly
 *                                         one gets the result
 *   nc_hostile wait-close COMM ITERS      (one member) a thread WAITs while
 *                                         another closes the file
 *   nc_hostile memory COMM RANK MIB MAX   (peers idle) post MIB-MiB
 *                                         reductions until ENOBUFS: at most
 *                                         MAX MiB of kernel memory while held,
 *                                         back to the baseline within a
 *                                         second of close
 *   nc_hostile memory-del COMM RANK MIB MAX DEL-COMMAND
 *                                         as memory, then DEL-COMMAND
 *                                         deletes the communicator: every
 *                                         WAIT is ESHUTDOWN, and the memory
 *                                         is back with the file still open

 * Output: "ok - ..." / "not ok - ..." lines, then "N passed, N failed".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/netcoll.h>

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

static const char *ename(int e)
{
	const char *n = e ? strerrorname_np(e) : "success";

	return n ? n : "unknown errno";
}

/* rc of an ioctl as 0 or the errno it failed with */
static int rc_errno(int rc)
{
	return rc < 0 ? errno : 0;
}

static void expect(const char *what, int got, int want)
{
	if (got == want)
		result(1, "%s: %s", what, ename(want));
	else
		result(0, "%s: got %s, expected %s", what, ename(got), ename(want));
}

static int ep_open(void)
{
	int fd = open("/dev/" NETCOLL_DEVICE_NAME, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		perror("nc_hostile: /dev/netcoll");
		exit(2);
	}
	return fd;
}

static int ep_bind(int fd, uint32_t comm, uint32_t rank)
{
	struct netcoll_bind b = { .comm_id = comm, .rank = rank };

	return rc_errno(ioctl(fd, NETCOLL_IOC_BIND, &b));
}

/* An endpoint bound to comm as rank, or exit. */
static int ep_bound(uint32_t comm, uint32_t rank)
{
	int fd = ep_open(), err = ep_bind(fd, comm, rank);

	if (err) {
		fprintf(stderr, "nc_hostile: bind %u rank %u: %s\n", comm, rank,
			ename(err));
		exit(2);
	}
	return fd;
}

/* An allreduce (sum of count uint64) posted on fd: 0 and *handle, or errno. */
static int start(int fd, uint64_t *buf, uint64_t count, uint32_t timeout_ms,
		 uint64_t *handle)
{
	struct netcoll_reduce r = {
		.sendbuf = (uintptr_t)buf, .recvbuf = (uintptr_t)buf,
		.count = count, .op = NETCOLL_OP_SUM, .dtype = NETCOLL_DT_UINT64,
		.flags = NETCOLL_RED_ALL, .timeout_ms = timeout_ms, .split = 1,
	};
	int err = rc_errno(ioctl(fd, NETCOLL_IOC_REDUCE_START, &r));

	if (!err)
		*handle = r.handle;
	return err;
}

static int wait_for(int fd, uint64_t handle)
{
	struct netcoll_wait w = { .handle = handle };

	return rc_errno(ioctl(fd, NETCOLL_IOC_WAIT, &w));
}

static int cmd_bind(uint32_t comm, uint32_t rank, int want)
{
	int fd = ep_open();
	char what[96];

	snprintf(what, sizeof(what), "uid %u binds communicator %u rank %u",
		 getuid(), comm, rank);
	expect(what, ep_bind(fd, comm, rank), want);
	close(fd);
	return 0;
}

/* A /dev/netcoll that a child of uid opened, received over a unix socket. */
static int ep_opened_by(uid_t uid)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 }, byte = 0;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	int sv[2], fd = -1, status;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) || (pid = fork()) < 0) {
		perror("nc_hostile: socketpair/fork");
		exit(2);
	}
	if (!pid) {
		if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
		    setresuid(uid, uid, uid)) {
			perror("nc_hostile: become the user");
			_exit(2);
		}
		fd = ep_open();
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
		_exit(sendmsg(sv[1], &msg, 0) == 1 ? 0 : 2);
	}
	close(sv[1]);
	if (recvmsg(sv[0], &msg, 0) == 1 && (cm = CMSG_FIRSTHDR(&msg)) &&
	    cm->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(cm), sizeof(int));
	close(sv[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) || fd < 0) {
		fprintf(stderr, "nc_hostile: no file from uid %u\n", uid);
		exit(2);
	}
	return fd;
}

/*
 * A confused deputy: the admin binds a file a user opened and handed it
 * (as its output, or over a socket, as here).  The user would get the
 * file back bound to a communicator it may not use.
 */
static int cmd_bind_deputy(uint32_t comm, uint32_t rank, uint32_t uid)
{
	int fd = ep_opened_by(uid);
	char what[128];

	snprintf(what, sizeof(what),
		 "uid %u binds communicator %u rank %u on a file uid %u opened",
		 getuid(), comm, rank, uid);
	expect(what, ep_bind(fd, comm, rank), EACCES);
	close(fd);
	fd = ep_open();
	snprintf(what, sizeof(what), "... on a file it opened itself");
	expect(what, ep_bind(fd, comm, rank), 0);
	close(fd);
	return 0;
}

/*
 * A child forked after fd posted handle (the file is shared) WAITs for
 * it: the errno, or 0.  The result would go to the address the parent
 * named, in the child's memory (the parent's WAIT then found it gone).
 */
static int fork_waits(int fd, uint64_t handle, const uint64_t *buf)
{
	int status, err;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return errno;
	if (!pid) {
		err = wait_for(fd, handle);
		/* 0 with the parent's result in the child's copy of buf */
		_exit(err == EPERM ? 100 : !err && buf[0] == 1 ? 0 : 101);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return ECHILD;
	return WEXITSTATUS(status) == 100 ? EPERM :
	       WEXITSTATUS(status) ? EIO : 0;
}

static int cmd_handles(uint32_t comm)
{
	uint64_t buf[4] = { 1, 2, 3, 4 }, h, h2;
	int a = ep_bound(comm, 0), b, err;

	err = start(a, buf, 4, 0, &h);
	expect("REDUCE_START on endpoint A", err, 0);
	if (err)
		return 1;
	expect("WAIT for a handle A never made", wait_for(a, h + 1000), ESRCH);
	err = fork_waits(a, h, buf);
	result(err == EPERM,
	       "a forked child's WAIT for its parent's handle: EPERM, not the result at the parent's address (%s)",
	       ename(err));
	expect("... the parent still WAITs for it", wait_for(a, h), 0);
	close(a);		/* cancels nothing: the operation finished */
	b = ep_bound(comm, 0);
	expect("endpoint B, same rank: WAIT for A's handle", wait_for(b, h), EBADF);
	err = start(b, buf, 4, 0, &h2);
	expect("REDUCE_START on endpoint B", err, 0);
	/* a count of opens would tell users how often others open the device */
	result((uint32_t)(h2 >> 32) != (uint32_t)(h >> 32) + 1,
	       "B's handle does not count opens after A's (ids %#x, %#x)",
	       (unsigned int)(h >> 32), (unsigned int)(h2 >> 32));
	expect("B: WAIT for its own handle", wait_for(b, h2), 0);
	expect("B: WAIT for it again", wait_for(b, h2), ESRCH);
	result(buf[0] == 1 && buf[3] == 4,
	       "one member: the result is the input (%llu %llu)",
	       (unsigned long long)buf[0], (unsigned long long)buf[3]);
	close(b);
	return 0;
}

static int cmd_ops_limit(uint32_t comm, uint32_t max)
{
	uint64_t buf[2] = { 0 }, h = 0;
	int fd = ep_bound(comm, 0), err = 0;
	uint32_t i;
	char what[96];

	for (i = 0; i < max && !err; i++)
		err = start(fd, buf, 2, 0, &h);
	snprintf(what, sizeof(what), "%u operations posted, none waited for", max);
	expect(what, err, 0);
	expect("one more is refused", start(fd, buf, 2, 0, &h), EAGAIN);
	expect("after waiting for one, another may be posted",
	       wait_for(fd, h) ?: start(fd, buf, 2, 0, &h), 0);
	close(fd);
	return 0;
}

/* Two threads WAIT for one handle, released at the same moment. */
struct racer {
	int fd;
	uint64_t handle;
	pthread_barrier_t *go;
	int err;
};

static void *racer_run(void *arg)
{
	struct racer *r = arg;

	pthread_barrier_wait(r->go);
	r->err = wait_for(r->fd, r->handle);
	return NULL;
}

static int cmd_race_wait(uint32_t comm, uint32_t iters)
{
	size_t count = (1 << 20) / sizeof(uint64_t);	/* a long copy-out */
	uint64_t *buf = calloc(count, sizeof(*buf));
	unsigned int both = 0, none = 0, busy = 0, i;
	pthread_barrier_t go;
	struct racer r[2];
	pthread_t t[2];
	int fd = ep_bound(comm, 0), k;

	if (!buf)
		return 2;
	pthread_barrier_init(&go, NULL, 2);
	for (i = 0; i < iters; i++) {
		uint64_t h;

		if (start(fd, buf, count, 0, &h)) {
			result(0, "REDUCE_START %u: %s", i, ename(errno));
			break;
		}
		for (k = 0; k < 2; k++) {
			r[k] = (struct racer){ .fd = fd, .handle = h, .go = &go };
			pthread_create(&t[k], NULL, racer_run, &r[k]);
		}
		for (k = 0; k < 2; k++)
			pthread_join(t[k], NULL);
		if (!r[0].err && !r[1].err)
			both++;
		else if (r[0].err && r[1].err)
			none++;
		busy += r[0].err == EBUSY || r[1].err == EBUSY;
	}
	result(!both && !none,
	       "%u times two threads WAITed for one handle: exactly one got the result each time (%u times the other got EBUSY, else ESRCH)",
	       iters, busy);
	pthread_barrier_destroy(&go);
	free(buf);
	close(fd);
	return 0;
}

struct closer {
	int fd;
	pthread_barrier_t *go;
};

static void *closer_run(void *arg)
{
	struct closer *c = arg;

	pthread_barrier_wait(c->go);
	close(c->fd);
	return NULL;
}

static int cmd_wait_close(uint32_t comm, uint32_t iters)
{
	size_t count = (1 << 20) / sizeof(uint64_t);
	uint64_t *buf = calloc(count, sizeof(*buf));
	unsigned int i, odd = 0;
	pthread_barrier_t go;

	if (!buf)
		return 2;
	pthread_barrier_init(&go, NULL, 2);
	for (i = 0; i < iters; i++) {
		struct closer c = { .go = &go };
		pthread_t t;
		uint64_t h;
		int err;

		c.fd = ep_bound(comm, 0);
		if (start(c.fd, buf, count, 0, &h)) {
			result(0, "REDUCE_START %u: %s", i, ename(errno));
			break;
		}
		pthread_create(&t, NULL, closer_run, &c);
		pthread_barrier_wait(&go);
		/* the file lives until this ioctl returns, whatever close did */
		err = wait_for(c.fd, h);
		odd += err && err != EBADF && err != ESRCH;
		pthread_join(t, NULL);
	}
	result(!odd, "%u times a thread WAITed while another closed the file: result or EBADF, nothing else",
	       iters);
	pthread_barrier_destroy(&go);
	free(buf);
	return 0;
}

/* Slab + VmallocUsed in KiB: where a module's memory shows. */
static long kernel_kib(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	long v, sum = 0;
	char key[64];

	if (!f)
		return -1;
	while (fscanf(f, "%63s %ld kB\n", key, &v) == 2)
		if (!strcmp(key, "Slab:") || !strcmp(key, "VmallocUsed:"))
			sum += v;
	fclose(f);
	return sum;
}

/*
 * Post mib-MiB reductions on fd until ENOBUFS (the peers never join:
 * every one stays posted); their handles in h[48].  The number posted,
 * asserting the kernel memory they hold against max_mib.
 */
static int post_until_full(int fd, uint64_t *buf, uint32_t mib,
			   uint32_t max_mib, long base, uint64_t *h)
{
	size_t count = (size_t)mib << 20 >> 3;
	int err = 0, i, n = 0;
	long held;

	for (i = 0; i < 48 && !err; i++) {
		err = start(fd, buf, count, 60000, &h[n]);
		n += !err;
	}
	held = kernel_kib();
	expect("posting reductions until the communicator's memory is spent", err, ENOBUFS);
	result(held - base <= (long)max_mib << 10,
	       "%d x %u MiB posted before ENOBUFS: kernel memory +%ld MiB (limit %u MiB)",
	       n, mib, (held - base) >> 10, max_mib);
	return n;
}

/* Within a second, kernel memory is back to within 2 MiB of base. */
static void back_to_baseline(long base, const char *what)
{
	struct timespec t0, t1;
	long after;
	double ms;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		usleep(20000);
		after = kernel_kib();
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	} while (after - base > 2048 && ms < 1000);
	result(after - base <= 2048,
	       "%s: Slab+VmallocUsed %+ld KiB against the baseline after %.0f ms",
	       what, after - base, ms);
}

static int cmd_memory(uint32_t comm, uint32_t rank, uint32_t mib, uint32_t max_mib)
{
	uint64_t *buf = calloc((size_t)mib << 20 >> 3, sizeof(*buf)), h[48];
	long base;
	int fd;

	if (!buf)
		return 2;
	base = kernel_kib();
	fd = ep_bound(comm, rank);
	post_until_full(fd, buf, mib, max_mib, base, h);
	close(fd);
	back_to_baseline(base, "close gives it back");
	free(buf);
	return 0;
}

/*
 * As memory, but the communicator is deleted (by the command del, its
 * owner's nctl) while the file stays open: each WAIT gets ESHUTDOWN, and
 * what the operations held goes then, not at close.
 */
static int cmd_memory_del(uint32_t comm, uint32_t rank, uint32_t mib,
			  uint32_t max_mib, const char *del)
{
	uint64_t *buf = calloc((size_t)mib << 20 >> 3, sizeof(*buf)), h[48];
	int fd, i, n, odd = 0;
	long base;

	if (!buf)
		return 2;
	base = kernel_kib();
	fd = ep_bound(comm, rank);
	n = post_until_full(fd, buf, mib, max_mib, base, h);
	result(!system(del), "the owner deletes the communicator (%s)", del);
	for (i = 0; i < n; i++)
		odd += wait_for(fd, h[i]) != ESHUTDOWN;
	result(!odd, "each of the %d WAITs gets ESHUTDOWN (%d did not)", n, odd);
	back_to_baseline(base, "deleted and waited for, the file still open");
	close(fd);
	free(buf);
	return 0;
}

static uint32_t arg(char **argv, int i, int argc)
{
	if (i >= argc) {
		fprintf(stderr, "nc_hostile: missing argument\n");
		exit(2);
	}
	return strtoul(argv[i], NULL, 0);
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";
	int rc = 2;

	if (!strcmp(cmd, "bind-denied"))
		rc = cmd_bind(arg(argv, 2, argc), arg(argv, 3, argc), EACCES);
	else if (!strcmp(cmd, "bind-deputy"))
		rc = cmd_bind_deputy(arg(argv, 2, argc), arg(argv, 3, argc),
				     arg(argv, 4, argc));
	else if (!strcmp(cmd, "bind"))
		rc = cmd_bind(arg(argv, 2, argc), arg(argv, 3, argc), 0);
	else if (!strcmp(cmd, "handles"))
		rc = cmd_handles(arg(argv, 2, argc));
	else if (!strcmp(cmd, "ops-limit"))
		rc = cmd_ops_limit(arg(argv, 2, argc), arg(argv, 3, argc));
	else if (!strcmp(cmd, "race-wait"))
		rc = cmd_race_wait(arg(argv, 2, argc), arg(argv, 3, argc));
	else if (!strcmp(cmd, "wait-close"))
		rc = cmd_wait_close(arg(argv, 2, argc), arg(argv, 3, argc));
	else if (!strcmp(cmd, "memory-del") && argc > 6)
		rc = cmd_memory_del(arg(argv, 2, argc), arg(argv, 3, argc),
				    arg(argv, 4, argc), arg(argv, 5, argc),
				    argv[6]);
	else if (!strcmp(cmd, "memory"))
		rc = cmd_memory(arg(argv, 2, argc), arg(argv, 3, argc),
				arg(argv, 4, argc), arg(argv, 5, argc));
	else
		fprintf(stderr, "usage: nc_hostile bind-denied|bind|bind-deputy|handles|ops-limit|race-wait|wait-close|memory|memory-del ...\n");
	if (rc == 2)
		return 2;
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : rc;
}

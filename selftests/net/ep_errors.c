// SPDX-License-Identifier: BSD-2-Clause
/*
 * ep_errors: the /dev/netcoll endpoint's error contract, against the
 * running module.  Needs communicator --comm ID (rank --rank R) to exist
 * in this namespace with no endpoint bound, on a device of MTU -m, and a
 * communicator id -a that does not.  Raw ioctls are used where the library would
 * refuse the bad input itself.
 *
 * Output: "ok - case" / "not ok - case: why" lines, then "N passed, N failed".
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/netcoll.h>

static unsigned int passed, failed;

static void expect(const char *what, int rc, int want)
{
	int got = rc < 0 ? errno : 0;

	if (got == want) {
		passed++;
		printf("ok - %s\n", what);
	} else {
		failed++;
		printf("not ok - %s: got %s, expected %s\n", what,
		       got ? strerror(got) : "success", want ? strerror(want) : "success");
	}
}

static int ep_open(void)
{
	int fd = open("/dev/" NETCOLL_DEVICE_NAME, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		perror("ep_errors: open /dev/netcoll");
		exit(1);
	}
	return fd;
}

static unsigned int bound_size;

static int bind_ep(int fd, unsigned int comm, unsigned int rank, unsigned int flags)
{
	struct netcoll_bind b = { .comm_id = comm, .rank = rank, .flags = flags };
	int rc = ioctl(fd, NETCOLL_IOC_BIND, &b);

	bound_size = rc ? 0 : b.size;
	return rc;
}

/* INFO's mtu: 0 before BIND, the communicator's device's once bound. */
static void check_mtu(int fd, const char *when, int want)
{
	struct netcoll_info info = { 0 };

	if (ioctl(fd, NETCOLL_IOC_INFO, &info) || !(info.features & NETCOLL_FEAT_COMM_MTU) ||
	    (int)info.mtu != want) {
		failed++;
		printf("not ok - info's mtu %s: got %u, expected %d\n", when, info.mtu, want);
	} else {
		passed++;
		printf("ok - info's mtu %s (%u)\n", when, info.mtu);
	}
}

int main(int argc, char **argv)
{
	unsigned int comm = 0, rank = 0, absent = 0;
	int expected_size = -1, expected_mtu = -1;
	struct netcoll_barrier_args bar = { 0 };
	struct netcoll_alltoall_args a2a = { 0 };
	int32_t one = 1, sum = 0;
	struct netcoll_reduce red = {	/* valid but for what a case breaks */
		.sendbuf = (uintptr_t)&one, .recvbuf = (uintptr_t)&sum,
		.count = 1, .op = NETCOLL_OP_SUM, .dtype = NETCOLL_DT_INT32,
		.flags = NETCOLL_RED_ALL,
	};
	struct netcoll_info info;
	int fd, fd2, c;

	while ((c = getopt(argc, argv, "c:r:a:p:m:")) != -1) {
		switch (c) {
		case 'm': expected_mtu = atoi(optarg); break;
		case 'p': expected_size = atoi(optarg); break;
		case 'c': comm = strtoul(optarg, NULL, 0); break;
		case 'r': rank = strtoul(optarg, NULL, 0); break;
		case 'a': absent = strtoul(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: ep_errors -c COMM -r RANK -a ABSENT_COMM -p MEMBERS -m MTU\n");
			return 2;
		}
	}

	fd = ep_open();
	expect("info reports ABI version", ioctl(fd, NETCOLL_IOC_INFO, &info), 0);
	if (info.abi_version != NETCOLL_ABI_VERSION)
		expect("info abi_version matches the header", -1, 0);
	check_mtu(fd, "before bind", 0);
	expect("barrier before bind is ENOTCONN", ioctl(fd, NETCOLL_IOC_BARRIER, &bar), ENOTCONN);
	expect("unknown ioctl is ENOTTY", ioctl(fd, _IO('N', 0xff)), ENOTTY);
	expect("bind to an absent communicator is ENOENT", bind_ep(fd, absent, 0, 0), ENOENT);
	expect("bind with flags set is EINVAL", bind_ep(fd, comm, rank, 1), EINVAL);
	expect("bind as another rank is EINVAL", bind_ep(fd, comm, rank + 1, 0), EINVAL);
	expect("bind bad pointer is EFAULT", ioctl(fd, NETCOLL_IOC_BIND, (void *)8), EFAULT);
	expect("bind", bind_ep(fd, comm, rank, 0), 0);
	if (bound_size != (unsigned int)expected_size) {
		failed++;
		printf("not ok - bind returns the member count: got %u, expected %d\n",
		       bound_size, expected_size);
	} else {
		passed++;
		printf("ok - bind returns the member count (%u)\n", bound_size);
	}
	check_mtu(fd, "once bound", expected_mtu);
	expect("second bind of one endpoint is EISCONN", bind_ep(fd, comm, rank, 0), EISCONN);

	fd2 = ep_open();
	expect("second endpoint on a bound communicator is EBUSY", bind_ep(fd2, comm, rank, 0), EBUSY);
	close(fd2);

	bar.reserved = 1;
	expect("barrier with reserved field set is EINVAL", ioctl(fd, NETCOLL_IOC_BARRIER, &bar), EINVAL);
	bar.reserved = 0;
	bar.timeout_ms = NETCOLL_TIMEOUT_MS_MAX + 1;
	expect("barrier with a budget above NETCOLL_TIMEOUT_MS_MAX is EINVAL",
	       ioctl(fd, NETCOLL_IOC_BARRIER, &bar), EINVAL);
	red.timeout_ms = NETCOLL_TIMEOUT_MS_MAX + 1;
	expect("allreduce with a budget above NETCOLL_TIMEOUT_MS_MAX is EINVAL",
	       ioctl(fd, NETCOLL_IOC_REDUCE, &red), EINVAL);
	a2a.count = 1;
	a2a.timeout_ms = NETCOLL_TIMEOUT_MS_MAX + 1;
	expect("alltoall with a budget above NETCOLL_TIMEOUT_MS_MAX is EINVAL",
	       ioctl(fd, NETCOLL_IOC_ALLTOALL, &a2a), EINVAL);
	a2a.timeout_ms = 0;
	a2a.count = 1;
	a2a.algo = 99;
	expect("alltoall with unknown algo is EINVAL", ioctl(fd, NETCOLL_IOC_ALLTOALL, &a2a), EINVAL);
	a2a.algo = 0;
	a2a.count = (__u64)NETCOLL_MSG_MAX + 1;
	expect("alltoall count above the maximum is EINVAL", ioctl(fd, NETCOLL_IOC_ALLTOALL, &a2a), EINVAL);
	a2a.count = 4096;
	a2a.sendbuf = 0xffffffffffff0000ULL;
	a2a.recvbuf = 0xffffffffffff0000ULL;
	expect("alltoall on kernel addresses is EFAULT", ioctl(fd, NETCOLL_IOC_ALLTOALL, &a2a), EFAULT);
	close(fd);

	/* Closing unbinds: the communicator takes a new endpoint. */
	fd = ep_open();
	expect("rebind after close", bind_ep(fd, comm, rank, 0), 0);
	close(fd);

	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * Unit tests of libnetcoll's argument checks, error strings and counter
 * names.  They need no module: every case here must be decided before
 * the library makes a system call on /dev/netcoll or netlink.
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include <linux/netcoll.h>

#include "netcoll.h"
#include "../../userlib/args.h"
#include "harness.h"

static struct nc_member two[2] = {
	{ .addr = { 0x02, 0, 0, 0, 0, 1 }, .addr_len = 6 },
	{ .addr = { 0x02, 0, 0, 0, 0, 2 }, .addr_len = 6 },
};

static struct nc_comm_spec good_spec(void)
{
	struct nc_comm_spec s = {
		.id = 7, .ifname = "eth0", .rank = 1, .size = 2,
		.members = two, .cookie = 0x1234, .timeout_ms = 5000,
	};
	return s;
}

TEST(open_missing_device_is_nomodule)
{
	nc_endpoint *ep = (nc_endpoint *)&ep;

	CHECK_EQ(nc_open(&ep, "/nonexistent/netcoll"), -NC_ENOMODULE);
	CHECK(ep == NULL);
	CHECK_EQ(nc_open(NULL, NULL), -EINVAL);
}

TEST(open_foreign_device_is_eabi)
{
	nc_endpoint *ep;

	/* /dev/null answers ENOTTY to the INFO ioctl: not our ABI. */
	CHECK_EQ(nc_open(&ep, "/dev/null"), -NC_EABI);
	CHECK(ep == NULL);
}

TEST(endpoint_null_handle)
{
	struct nc_info info;
	char buf[16];

	CHECK_EQ(nc_get_info(NULL, &info), -EINVAL);
	CHECK_EQ(nc_bind(NULL, 7, 0), -EINVAL);
	CHECK_EQ(nc_set_timeout(NULL, 0), -EINVAL);
	CHECK_EQ(nc_barrier(NULL), -EINVAL);
	CHECK_EQ(nc_alltoall(NULL, buf, buf, 8), -EINVAL);
	CHECK_EQ(nc_alltoall_algo(NULL, buf, buf, 8, NC_A2A_LINEAR), -EINVAL);
	CHECK_EQ(nc_reduce_scatter(NULL, buf, buf, 1, NC_DT_INT32, NC_OP_SUM), -EINVAL);
	CHECK_EQ(nc_allgather(NULL, buf, buf, 8), -EINVAL);
	CHECK_EQ(nc_set_rsag_min(NULL, 1), -EINVAL);
	CHECK_EQ(nc_set_bcast_mcast(NULL, 1, 2), -EINVAL);
	CHECK_EQ(nc_set_allreduce_mcast(NULL, 1, 2), -EINVAL);
	CHECK_EQ(nc_set_dist(NULL, NC_DIST_AUTO), -EINVAL);
	CHECK_EQ(nc_comm_rank(NULL), -ENOTCONN);
	CHECK_EQ(nc_bcast_tune(NULL, NULL), -EINVAL);
	nc_close(NULL);
}

TEST(check_comm_id)
{
	CHECK_EQ(nc_check_comm_id(0), -EINVAL);
	CHECK_EQ(nc_check_comm_id(1), 0);
	CHECK_EQ(nc_check_comm_id(NETCOLL_COMM_ID_MAX), 0);
	CHECK_EQ(nc_check_comm_id(NETCOLL_COMM_ID_MAX + 1), -EINVAL);
	CHECK_EQ(nc_check_comm_id(UINT32_MAX), -EINVAL);
}

TEST(check_timeout)
{
	CHECK_EQ(nc_check_timeout(0), 0);
	CHECK_EQ(nc_check_timeout(NETCOLL_TIMEOUT_MS_MIN - 1), -EINVAL);
	CHECK_EQ(nc_check_timeout(NETCOLL_TIMEOUT_MS_MIN), 0);
	CHECK_EQ(nc_check_timeout(NETCOLL_TIMEOUT_MS_MAX), 0);
	CHECK_EQ(nc_check_timeout(NETCOLL_TIMEOUT_MS_MAX + 1), -EINVAL);
}

TEST(check_ifname)
{
	CHECK_EQ(nc_check_ifname(NULL), -EINVAL);
	CHECK_EQ(nc_check_ifname(""), -EINVAL);
	CHECK_EQ(nc_check_ifname("eth0"), 0);
	CHECK_EQ(nc_check_ifname("abcdefghijklmno"), 0);	/* 15 */
	CHECK_EQ(nc_check_ifname("abcdefghijklmnop"), -EINVAL);	/* 16 */
}

TEST(comm_spec_good)
{
	struct nc_comm_spec s = good_spec();

	CHECK_EQ(nc_check_comm_spec(&s), 0);
	s.cookie = 0;
	s.timeout_ms = 0;
	CHECK_EQ(nc_check_comm_spec(&s), 0);
}

TEST(comm_spec_bad)
{
	struct nc_member mixed[2] = { two[0], two[1] };
	struct nc_comm_spec s;

	CHECK_EQ(nc_check_comm_spec(NULL), -EINVAL);
	s = good_spec(); s.id = 0;
	CHECK_EQ(nc_check_comm_spec(&s), -EINVAL);
	s = good_spec(); s.id = NETCOLL_COMM_ID_MAX + 1;
	CHECK_EQ(nc_check_comm_spec(&s), -EINVAL);
	s = good_spec(); s.ifname = NULL;
	CHECK_EQ(nc_check_comm_spec(&s), -EINVAL);
	s = good_spec(); s.size = 0; s.rank = 0;
	CHECK_EQ(nc_check_comm_spec(&s), -EINVAL);
	s = good_spec(); s.size = NETCOLL_COMM_SIZE_MAX + 1;
	CHECK_EQ(nc_check_comm_spec(&s), -EINVAL);
	s = good_spec(); s.rank = 2;
	CHECK_EQ(nc_check_comm_spec(&s), -EINVAL);
	s = good_spec(); s.members = NULL;
	CHECK_EQ(nc_check_comm_spec(&s), -EINVAL);
	s = good_spec(); s.timeout_ms = NETCOLL_TIMEOUT_MS_MIN - 1;
	CHECK_EQ(nc_check_comm_spec(&s), -EINVAL);
	s = good_spec(); s.members = mixed;
	mixed[1].addr_len = 8;
	CHECK_EQ(nc_check_comm_spec(&s), -EINVAL);
	mixed[0].addr_len = mixed[1].addr_len = 0;
	CHECK_EQ(nc_check_comm_spec(&s), -EINVAL);
	mixed[0].addr_len = mixed[1].addr_len = NC_ADDR_MAX + 1;
	CHECK_EQ(nc_check_comm_spec(&s), -EINVAL);
}

TEST(alltoall_args)
{
	char s[64], r[64];

	CHECK_EQ(nc_check_alltoall(s, r, 8, NETCOLL_COMM_SIZE_MAX, NC_A2A_DEFAULT), 0);
	CHECK_EQ(nc_check_alltoall(s, r, 8, NETCOLL_COMM_SIZE_MAX, NC_A2A_LINEAR), 0);
	/* An empty alltoall moves nothing: no buffers needed. */
	CHECK_EQ(nc_check_alltoall(NULL, NULL, 0, NETCOLL_COMM_SIZE_MAX, 0), 0);
	CHECK_EQ(nc_check_alltoall(NULL, r, 8, NETCOLL_COMM_SIZE_MAX, 0), -EINVAL);
	CHECK_EQ(nc_check_alltoall(s, NULL, 8, NETCOLL_COMM_SIZE_MAX, 0), -EINVAL);
	CHECK_EQ(nc_check_alltoall(s, r, (size_t)NETCOLL_MSG_MAX + 1,
				   NETCOLL_COMM_SIZE_MAX, 0), -EINVAL);
	CHECK_EQ(nc_check_alltoall(s, r, NETCOLL_MSG_MAX,
				   NETCOLL_COMM_SIZE_MAX, 0), 0);
	CHECK_EQ(nc_check_alltoall(s, r, 8, NETCOLL_COMM_SIZE_MAX,
				   NETCOLL_A2A_MAX + 1), -EINVAL);
	CHECK_EQ(nc_check_alltoall(s, r, 8, NETCOLL_COMM_SIZE_MAX, -1), -EINVAL);
}

TEST(ctl_null_handle)
{
	struct nc_comm_spec s = good_spec();
	struct nc_comm_info ci;
	struct nc_dev_info *devs;
	struct nc_comm_info *comms;
	struct nc_stats st;
	struct nc_event ev;
	size_t n;

	CHECK_EQ(nc_ctl_open(NULL), -EINVAL);
	CHECK_EQ(nc_dev_attach(NULL, "eth0"), -EINVAL);
	CHECK_EQ(nc_dev_detach(NULL, "eth0"), -EINVAL);
	CHECK_EQ(nc_dev_list(NULL, NULL, &devs, &n), -EINVAL);
	CHECK_EQ(nc_comm_create(NULL, &s), -EINVAL);
	CHECK_EQ(nc_comm_delete(NULL, 7), -EINVAL);
	CHECK_EQ(nc_comm_get(NULL, 7, &ci), -EINVAL);
	CHECK_EQ(nc_comm_list(NULL, &comms, &n), -EINVAL);
	CHECK_EQ(nc_stats_get(NULL, &st), -EINVAL);
	CHECK_EQ(nc_ctl_subscribe(NULL), -EINVAL);
	CHECK_EQ(nc_event_wait(NULL, &ev, 0), -EINVAL);
	CHECK(nc_ctl_last_error(NULL) == NULL);
	nc_ctl_close(NULL);
	nc_comm_info_free(NULL);
}

TEST(strerror_library_codes)
{
	static const int codes[] = { NC_ENOMODULE, NC_EABI, NC_EPARSE, NC_EPROTO };
	size_t i, j;

	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		const char *s = nc_strerror(-codes[i]);

		CHECK(s && strcmp(s, "Unknown error") != 0);
		for (j = 0; j < i; j++)
			CHECK(strcmp(s, nc_strerror(-codes[j])) != 0);
	}
	CHECK(strstr(nc_strerror(-NC_ENOMODULE), "not loaded") != NULL);
}

TEST(strerror_errno_codes)
{
	CHECK(strcmp(nc_strerror(-EINVAL), "Invalid argument") == 0);
	CHECK(strcmp(nc_strerror(EINVAL), "Invalid argument") == 0);
	CHECK(strcmp(nc_strerror(-ETIMEDOUT), "Connection timed out") == 0);
	CHECK(strcmp(nc_strerror(0), "Success") == 0);
}

TEST(strerror_unknown_codes)
{
	CHECK(strcmp(nc_strerror(-NC_ENOMODULE + 1), "Unknown error") == 0);
	CHECK(strcmp(nc_strerror(-(NC_EPROTO + 1)), "Unknown error") == 0);
	CHECK(strcmp(nc_strerror(-100000), "Unknown error") == 0);
	CHECK(strcmp(nc_strerror(-2147483647), "Unknown error") == 0);
}

/* Each counter's name is its enum name in lower case, without the prefix. */
#define STAT(x)	{ NETCOLL_STAT_##x, #x }
static const struct {
	unsigned int id;
	const char *upper;
} stats[] = {
	STAT(TX_FRAMES), STAT(TX_BYTES), STAT(RX_FRAMES), STAT(RX_BYTES),
	STAT(RETRANSMITS), STAT(TX_ACKS), STAT(RX_ACKS), STAT(RX_DUPLICATES),
	STAT(RX_EARLY), STAT(OPS_DONE), STAT(OPS_FAILED), STAT(OPS_TIMEDOUT),
	STAT(DROP_SHORT), STAT(DROP_VERSION), STAT(DROP_TYPE),
	STAT(DROP_LENGTH), STAT(DROP_COMM), STAT(DROP_COOKIE), STAT(DROP_RANK),
	STAT(DROP_ADDR), STAT(DROP_STATE), STAT(DROP_MEMORY), STAT(DROP_TX),
	STAT(DROP_OPCODE), STAT(AGG_OPS), STAT(AGG_REDUCED), STAT(AGG_MCAST_TX),
	STAT(AGG_REPAIRS), STAT(AGG_QUEUED), STAT(AGG_FPU_DEFERRED),
	STAT(RTO_EXPIRED), STAT(DROP_EPOCH), STAT(DROP_AUTH), STAT(DROP_REPLAY),
	STAT(DROP_RATELIMIT), STAT(OPS_CANCELLED), STAT(JOINS),
	STAT(ACKS_HELD),
	STAT(AGG_REPEATS), STAT(AGG_BCAST_EARLY), STAT(RX_DUP_ACKS),
	STAT(TX_REORDERED), STAT(TX_EARLY_RETRANSMITS), STAT(TX_REPEATS),
	STAT(TX_GSO), STAT(RX_GSO), STAT(AGG_LOSS_ACKED), STAT(AGG_LOSS_HOLES),
	STAT(AGG_LOSS_ASKED), STAT(AGG_LOSS_TIMEOUTS),
};

TEST(stat_names_complete)
{
	size_t i, k;

	/* This list must name every counter of the uapi header. */
	CHECK_EQ(sizeof(stats) / sizeof(stats[0]),
		 NETCOLL_STAT_MAX - NETCOLL_STAT_TX_FRAMES + 1);
	for (i = 0; i < sizeof(stats) / sizeof(stats[0]); i++) {
		const char *name = nc_stat_name(stats[i].id);
		char lower[32];

		for (k = 0; stats[i].upper[k] && k < sizeof(lower) - 1; k++)
			lower[k] = (char)tolower((unsigned char)stats[i].upper[k]);
		lower[k] = '\0';
		CHECK(name != NULL);
		CHECK(name && strcmp(name, lower) == 0);
	}
}

TEST(stat_names_bounds)
{
	unsigned int i;

	CHECK(nc_stat_name(NETCOLL_STAT_UNSPEC) == NULL);
	CHECK(nc_stat_name(NETCOLL_STAT_PAD) == NULL);
	for (i = NETCOLL_STAT_TX_FRAMES; i <= NETCOLL_STAT_MAX; i++)
		CHECK(nc_stat_name(i) != NULL);
	CHECK(nc_stat_name(NETCOLL_STAT_MAX + 1) == NULL);
	CHECK(nc_stat_name(NC_STAT_MAX) == NULL);
	CHECK(nc_stat_name(~0U) == NULL);
	CHECK(strcmp(nc_stat_name(NETCOLL_STAT_TX_FRAMES), "tx_frames") == 0);
	CHECK(strcmp(nc_stat_name(NETCOLL_STAT_DROP_COOKIE), "drop_cookie") == 0);
}

int main(void)
{
	RUN(open_missing_device_is_nomodule);
	RUN(open_foreign_device_is_eabi);
	RUN(endpoint_null_handle);
	RUN(check_comm_id);
	RUN(check_timeout);
	RUN(check_ifname);
	RUN(comm_spec_good);
	RUN(comm_spec_bad);
	RUN(alltoall_args);
	RUN(ctl_null_handle);
	RUN(strerror_library_codes);
	RUN(strerror_errno_codes);
	RUN(strerror_unknown_codes);
	RUN(stat_names_complete);
	RUN(stat_names_bounds);
	return DONE();
}

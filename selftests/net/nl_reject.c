// SPDX-License-Identifier: BSD-2-Clause
/*
 * nl_reject: send bad requests to the netcoll family and check that each
 * gets exactly the errno the ABI promises.  It builds the requests with
 * raw libnl calls, since libnetcoll refuses most of them before sending;
 * the valid setup steps go through libnetcoll.
 *
 *   nl_reject --ifname IFNAME	as root: validation, lookups, duplicates,
 *				then checks that nothing was left behind
 *   nl_reject --unpriv [--ifname IFNAME] [--comm ID]
 *				drops to uid/gid 65534 first: devices and
 *				new communicators get EPERM, and so does
 *				every change to communicator ID (owned by
 *				root), whose cookie is not shown; the GET
 *				commands work
 *
 *   nl_reject --fuzz N [--unpriv] [--ifname IFNAME] [--seed S]
 *				N random messages per command (and for two
 *				unknown ones): random attributes, some of them
 *				plausible (small ids and ranks, the device,
 *				member lists, phases) so that they get past the
 *				policy into the handlers.  Every answer must be
 *				success or an errno a bad request explains;
 *				afterwards (as root) whatever the messages
 *				created is deleted and the state compared with
 *				the one before; unprivileged, nothing may
 *				have changed at all
 *
 *   nl_reject --dump-intr N	as root: attaches ncd0 .. ncd<N-1> (made by the
 *				caller, N >= 120: a dump in three parts or
 *				more), detaches and re-attaches ncd0 while a
 *				device dump is read part by part, and checks
 *				that the kernel marks that dump interrupted
 *				(NLM_F_DUMP_INTR) and that libnetcoll then
 *				lists every device once
 *
 * Values outside a range the family's policy declares (COMM_ID 0,
 * COMM_TIMEOUT_MS 0, ...) are refused by the netlink core before the
 * module sees them, and the core says ERANGE for those; everything the
 * module checks itself is EINVAL.
 *
 * Output: "ok - <case>" or "not ok - <case>: got X expected Y", then
 * "N passed, N failed"; the exit status is non-zero on any failure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <netlink/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>

#include <linux/netcoll.h>

#include "netcoll.h"

#define NOBODY		65534
#define NO_SUCH_DEV	"ncrej-none0"
#define UNATTACHED_DEV	"lo"		/* in every namespace, never a bearer */

struct ctx {
	struct nl_sock *sk;
	struct nl_cb *cb;
	int family;
	const char *ifname;
	uint8_t addr[2][NC_ADDR_MAX];	/* members of the probe communicators */
	uint32_t addr_len;
	uint32_t good_id, probe_id;
	uint32_t foreign_id;		/* --comm: somebody else's communicator */
	nc_ctl *ctl;			/* libnetcoll, for the valid steps */
	/* the request in flight */
	int error, done;
	char ext[256];
	unsigned int passed, failed;
};

/* ---------------------------------------------------------------- */
/* Raw requests                                                      */
/* ---------------------------------------------------------------- */

/* NLMSGERR_ATTR_MSG after hlen bytes of payload, as the kernel adds it. */
static void keep_extack(struct ctx *c, struct nlmsghdr *nlh, size_t hlen)
{
	static const struct nla_policy pol[NLMSGERR_ATTR_MAX + 1] = {
		[NLMSGERR_ATTR_MSG] = { .type = NLA_STRING },
	};
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	long off = NLMSG_ALIGN(hlen), len = (long)nlmsg_datalen(nlh) - off;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || len <= 0 ||
	    nla_parse(tb, NLMSGERR_ATTR_MAX,
		      (struct nlattr *)((char *)nlmsg_data(nlh) + off), (int)len,
		      pol) < 0 || !tb[NLMSGERR_ATTR_MSG])
		return;
	nla_strlcpy(c->ext, tb[NLMSGERR_ATTR_MSG], sizeof(c->ext));
}

static int error_cb(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	size_t hlen = sizeof(*e);
	struct ctx *c = arg;

	if (!(nlh->nlmsg_flags & NLM_F_CAPPED) && e->msg.nlmsg_len >= NLMSG_HDRLEN)
		hlen += e->msg.nlmsg_len - NLMSG_HDRLEN;
	keep_extack(c, nlh, hlen);
	c->error = e->error;
	c->done = 1;
	return NL_STOP;
}

static int ack_cb(struct nl_msg *msg, void *arg)
{
	((struct ctx *)arg)->done = 1;
	return NL_STOP;
}

static int finish_cb(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct ctx *c = arg;
	int err;

	if (nlmsg_datalen(nlh) >= (int)sizeof(err)) {
		memcpy(&err, nlmsg_data(nlh), sizeof(err));
		if (err < 0) {
			keep_extack(c, nlh, sizeof(err));
			c->error = err;
		}
	}
	c->done = 1;
	return NL_STOP;
}

static struct nl_msg *new_msg(struct ctx *c, uint8_t cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (msg && !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, c->family, 0,
				flags, cmd, NETCOLL_GENL_VERSION)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	if (!msg) {
		fprintf(stderr, "nl_reject: out of memory\n");
		exit(1);
	}
	return msg;
}

/* Send msg (consumed), read the answer to its end: 0 or -errno. */
static int send_req(struct ctx *c, struct nl_msg *msg)
{
	int err;

	c->error = 0;
	c->done = 0;
	c->ext[0] = '\0';
	err = nl_send_auto(c->sk, msg);
	nlmsg_free(msg);
	if (err < 0) {
		snprintf(c->ext, sizeof(c->ext), "send: %s", nl_geterror(err));
		return -EIO;
	}
	while (!c->done) {
		err = nl_recvmsgs(c->sk, c->cb);
		if (err < 0 && !c->error) {
			snprintf(c->ext, sizeof(c->ext), "receive: %s", nl_geterror(err));
			return -EIO;
		}
		if (err < 0)
			break;
	}
	return c->error;
}

/* ---------------------------------------------------------------- */
/* Cases                                                             */
/* ---------------------------------------------------------------- */

static const char *errname(int e)
{
	const char *n;

	if (e == 0)
		return "success";
	n = strerrorname_np(e);
	return n ? n : "unknown errno";
}

/* Record a case: got and expect are 0 or positive errno values. */
static void report(struct ctx *c, const char *name, int got, int expect)
{
	if (got == expect) {
		c->passed++;
		printf("ok - %s\n", name);
		return;
	}
	c->failed++;
	printf("not ok - %s: got %s expected %s%s%s%s\n", name, errname(got),
	       errname(expect), c->ext[0] ? " (kernel: " : "", c->ext,
	       c->ext[0] ? ")" : "");
}

/* report() for a step done through libnetcoll, with its kernel message. */
static void lib_report(struct ctx *c, const char *name, int err, int expect)
{
	const char *why = nc_ctl_last_error(c->ctl);

	snprintf(c->ext, sizeof(c->ext), "%s", why ? why : "");
	report(c, name, -err, expect);
}

/* Record a case that is not about an errno. */
static void check(struct ctx *c, const char *name, int ok, const char *why)
{
	if (ok) {
		c->passed++;
		printf("ok - %s\n", name);
	} else {
		c->failed++;
		printf("not ok - %s: %s\n", name, why);
	}
}

/* One defect per COMM_NEW case; D_NONE is a valid request. */
enum defect {
	D_NONE,
	D_NO_ID, D_ID_ZERO, D_ID_TOO_BIG, D_ID_U8, D_ID_U64,
	D_NO_DEV, D_DEV_MISSING, D_DEV_UNATTACHED, D_IFINDEX_UNATTACHED,
	D_NO_RANK, D_RANK_TOO_BIG,
	D_NO_MEMBERS, D_EMPTY_MEMBERS, D_DUP_RANK, D_GAP_RANK,
	D_MEMBER_NO_RANK, D_MEMBER_RANK_U16, D_MEMBER_NO_ADDR,
	D_ADDR_SHORT, D_ADDR_LONG,
	D_UNKNOWN_ATTR, D_OUTPUT_ATTR, D_TIMEOUT_ZERO, D_TIMEOUT_TOO_BIG,
	D_OSO_ZERO, D_OSO_TOO_BIG, D_DEGREE_ONE, D_MCAST_UNICAST, D_MCAST_SHORT,
};

/* A two-member COMM_NEW for id on c->ifname, rank 0, with defect d. */
static struct nl_msg *comm_new(struct ctx *c, uint32_t id, enum defect d)
{
	struct nl_msg *msg = new_msg(c, NETCOLL_CMD_COMM_NEW, 0);
	struct nlattr *nest, *m;
	int bad = 0;
	uint32_t r;

	if (d == D_ID_U8)
		bad |= nla_put_u8(msg, NETCOLL_A_COMM_ID, (uint8_t)id) < 0;
	else if (d == D_ID_U64)
		bad |= nla_put_u64(msg, NETCOLL_A_COMM_ID, id) < 0;
	else if (d != D_NO_ID)
		bad |= nla_put_u32(msg, NETCOLL_A_COMM_ID,
				   d == D_ID_ZERO ? 0 :
				   d == D_ID_TOO_BIG ? NETCOLL_COMM_ID_MAX + 1 : id) < 0;

	if (d == D_IFINDEX_UNATTACHED)
		bad |= nla_put_u32(msg, NETCOLL_A_IFINDEX,
				   if_nametoindex(UNATTACHED_DEV)) < 0;
	else if (d != D_NO_DEV)
		bad |= nla_put_string(msg, NETCOLL_A_IFNAME,
				      d == D_DEV_MISSING ? NO_SUCH_DEV :
				      d == D_DEV_UNATTACHED ? UNATTACHED_DEV :
				      c->ifname) < 0;

	if (d != D_NO_RANK)
		bad |= nla_put_u32(msg, NETCOLL_A_COMM_RANK,
				   d == D_RANK_TOO_BIG ? 2 : 0) < 0;

	if (d != D_NO_MEMBERS) {
		nest = nla_nest_start(msg, NETCOLL_A_COMM_MEMBERS);
		bad |= !nest;
		/* The second member carries the member defects. */
		for (r = 0; nest && d != D_EMPTY_MEMBERS && r < 2; r++) {
			uint32_t rank = r, len = c->addr_len;

			if (r == 1 && d == D_DUP_RANK)
				rank = 0;
			if (r == 1 && d == D_GAP_RANK)
				rank = 2;
			if (r == 1 && d == D_ADDR_SHORT)
				len--;
			if (r == 1 && d == D_ADDR_LONG)
				len++;
			m = nla_nest_start(msg, NETCOLL_A_MEMBER);
			bad |= !m;
			if (r == 1 && d == D_MEMBER_RANK_U16)
				bad |= nla_put_u16(msg, NETCOLL_A_MEMBER_RANK,
						   (uint16_t)rank) < 0;
			else if (r != 1 || d != D_MEMBER_NO_RANK)
				bad |= nla_put_u32(msg, NETCOLL_A_MEMBER_RANK, rank) < 0;
			if (r != 1 || d != D_MEMBER_NO_ADDR)
				bad |= nla_put(msg, NETCOLL_A_MEMBER_ADDR, (int)len,
					       c->addr[r]) < 0;
			bad |= m && nla_nest_end(msg, m) < 0;
		}
		/* libnl drops an empty nest unless told to keep it. */
		bad |= nest && nla_nest_end_keep_empty(msg, nest) < 0;
	}

	if (d == D_UNKNOWN_ATTR)
		bad |= nla_put_u32(msg, NETCOLL_A_MAX + 1, 1) < 0;
	if (d == D_OUTPUT_ATTR)
		bad |= nla_put_u32(msg, NETCOLL_A_COMM_SIZE, 2) < 0;
	if (d == D_TIMEOUT_ZERO || d == D_TIMEOUT_TOO_BIG)
		bad |= nla_put_u32(msg, NETCOLL_A_COMM_TIMEOUT_MS,
				   d == D_TIMEOUT_ZERO ? 0 : NETCOLL_TIMEOUT_MS_MAX + 1) < 0;
	if (d == D_OSO_ZERO || d == D_OSO_TOO_BIG)
		bad |= nla_put_u32(msg, NETCOLL_A_COMM_OSO,
				   d == D_OSO_ZERO ? 0 : NETCOLL_OSO_MAX + 1) < 0;
	if (d == D_DEGREE_ONE)
		bad |= nla_put_u32(msg, NETCOLL_A_COMM_TREE_DEGREE, 1) < 0;
	if (d == D_MCAST_UNICAST)	/* a member address is no group */
		bad |= nla_put(msg, NETCOLL_A_COMM_MCAST_ADDR, (int)c->addr_len,
			       c->addr[1]) < 0;
	if (d == D_MCAST_SHORT)
		bad |= nla_put(msg, NETCOLL_A_COMM_MCAST_ADDR, 3, "\x03\x6e\x63") < 0;
	if (bad) {
		fprintf(stderr, "nl_reject: cannot build COMM_NEW\n");
		exit(1);
	}
	return msg;
}

static struct nl_msg *with_ifname(struct nl_msg *msg, const char *ifname)
{
	if (nla_put_string(msg, NETCOLL_A_IFNAME, ifname) < 0) {
		fprintf(stderr, "nl_reject: cannot build request\n");
		exit(1);
	}
	return msg;
}

static struct nl_msg *with_id(struct nl_msg *msg, uint32_t id)
{
	if (nla_put_u32(msg, NETCOLL_A_COMM_ID, id) < 0) {
		fprintf(stderr, "nl_reject: cannot build request\n");
		exit(1);
	}
	return msg;
}

static const struct {
	const char *name;
	enum defect defect;
	int expect;
} comm_new_cases[] = {
	{ "COMM_NEW without COMM_ID -> EINVAL",		D_NO_ID,	EINVAL },
	{ "COMM_NEW with COMM_ID 0 -> ERANGE",		D_ID_ZERO,	ERANGE },
	{ "COMM_NEW with COMM_ID above NETCOLL_COMM_ID_MAX -> ERANGE",
							D_ID_TOO_BIG,	ERANGE },
	{ "COMM_NEW with COMM_ID as u8 -> EINVAL",	D_ID_U8,	EINVAL },
	{ "COMM_NEW with COMM_ID as u64 -> EINVAL",	D_ID_U64,	EINVAL },
	{ "COMM_NEW without IFNAME or IFINDEX -> EINVAL", D_NO_DEV,	EINVAL },
	{ "COMM_NEW on a device that does not exist -> ENODEV",
							D_DEV_MISSING,	ENODEV },
	{ "COMM_NEW on an existing but unattached device (IFNAME) -> ENODEV",
							D_DEV_UNATTACHED, ENODEV },
	{ "COMM_NEW on an existing but unattached device (IFINDEX) -> ENODEV",
							D_IFINDEX_UNATTACHED, ENODEV },
	{ "COMM_NEW without COMM_RANK -> EINVAL",	D_NO_RANK,	EINVAL },
	{ "COMM_NEW with COMM_RANK equal to the member count -> EINVAL",
							D_RANK_TOO_BIG,	EINVAL },
	{ "COMM_NEW without COMM_MEMBERS -> EINVAL",	D_NO_MEMBERS,	EINVAL },
	{ "COMM_NEW with an empty COMM_MEMBERS -> EINVAL", D_EMPTY_MEMBERS, EINVAL },
	{ "COMM_NEW with a duplicated member rank -> EINVAL", D_DUP_RANK, EINVAL },
	{ "COMM_NEW with a missing member rank (0, 2) -> EINVAL", D_GAP_RANK, EINVAL },
	{ "COMM_NEW with a member without MEMBER_RANK -> EINVAL",
							D_MEMBER_NO_RANK, EINVAL },
	{ "COMM_NEW with MEMBER_RANK as u16 -> EINVAL",	D_MEMBER_RANK_U16, EINVAL },
	{ "COMM_NEW with a member without MEMBER_ADDR -> EINVAL",
							D_MEMBER_NO_ADDR, EINVAL },
	{ "COMM_NEW with a member address one byte short -> EINVAL",
							D_ADDR_SHORT,	EINVAL },
	{ "COMM_NEW with a member address one byte long -> EINVAL",
							D_ADDR_LONG,	EINVAL },
	{ "COMM_NEW with an unknown attribute type -> EINVAL",
							D_UNKNOWN_ATTR,	EINVAL },
	{ "COMM_NEW with an output-only attribute (COMM_SIZE) -> EINVAL",
							D_OUTPUT_ATTR,	EINVAL },
	{ "COMM_NEW with COMM_TIMEOUT_MS 0 -> ERANGE",	D_TIMEOUT_ZERO,	ERANGE },
	{ "COMM_NEW with COMM_TIMEOUT_MS above NETCOLL_TIMEOUT_MS_MAX -> ERANGE",
							D_TIMEOUT_TOO_BIG, ERANGE },
	{ "COMM_NEW with COMM_OSO 0 -> ERANGE",		D_OSO_ZERO,	ERANGE },
	{ "COMM_NEW with COMM_OSO above NETCOLL_OSO_MAX -> ERANGE",
							D_OSO_TOO_BIG,	ERANGE },
	{ "COMM_NEW with tree degree 1 -> ERANGE",	D_DEGREE_ONE,	ERANGE },
	{ "COMM_NEW with a unicast address as result group -> EINVAL",
							D_MCAST_UNICAST, EINVAL },
	{ "COMM_NEW with a 3-byte result group on Ethernet -> EINVAL",
							D_MCAST_SHORT,	EINVAL },
};

static void run_comm_new_cases(struct ctx *c)
{
	size_t i;
	int err;

	for (i = 0; i < sizeof(comm_new_cases) / sizeof(comm_new_cases[0]); i++) {
		err = send_req(c, comm_new(c, c->probe_id, comm_new_cases[i].defect));
		report(c, comm_new_cases[i].name, -err, comm_new_cases[i].expect);
		/* Wrongly accepted: remove it, or it spoils the next cases. */
		if (err == 0)
			nc_comm_delete(c->ctl, c->probe_id);
	}
}

/* Defects of a SCHED_SET on the two-member communicator (rank 0). */
enum sdefect {
	S_NONE, S_NO_ID, S_UNKNOWN_COMM, S_NO_PHASES, S_NO_SEND, S_SEND_TWICE,
	S_SEND_SELF, S_SEND_NONMEMBER, S_INDEX_BACKWARDS, S_NO_INDEX,
	S_INDEX_TOO_BIG, S_EMPTY_PHASE, S_SYNC_WITHOUT_SEND, S_SYNC_PARTIAL,
	S_SYNC_FROM_SELF, S_SYNC_OUT_BAD_PHASE,
};

/* One phase: index, send_to/recv_from (UINT32_MAX: absent), tokens in. */
static int put_phase(struct nl_msg *msg, int64_t index, uint32_t send_to,
		     uint32_t recv_from, const void *in, int in_len,
		     const void *out, int out_len)
{
	struct nlattr *nest = nla_nest_start(msg, NETCOLL_A_SCHED_PHASE);
	int bad = !nest;

	if (index >= 0)
		bad |= nla_put_u32(msg, NETCOLL_A_PHASE_INDEX, (uint32_t)index) < 0;
	if (send_to != UINT32_MAX)
		bad |= nla_put_u32(msg, NETCOLL_A_PHASE_SEND_TO, send_to) < 0;
	if (recv_from != UINT32_MAX)
		bad |= nla_put_u32(msg, NETCOLL_A_PHASE_RECV_FROM, recv_from) < 0;
	if (in_len)
		bad |= nla_put(msg, NETCOLL_A_PHASE_SYNC_IN, in_len, in) < 0;
	if (out_len)
		bad |= nla_put(msg, NETCOLL_A_PHASE_SYNC_OUT, out_len, out) < 0;
	bad |= nest && nla_nest_end_keep_empty(msg, nest) < 0;
	return bad;
}

/*
 * The valid slice of rank 0 of two is one phase: send to 1, receive from
 * 1.  Each defect bends it in one way.
 */
static struct nl_msg *sched_set(struct ctx *c, enum sdefect d)
{
	struct nl_msg *msg = new_msg(c, NETCOLL_CMD_SCHED_SET, 0);
	const uint32_t none = UINT32_MAX, one = 1, self = 0;
	const struct netcoll_sync_out far = { 1, NETCOLL_SCHED_PHASE_MAX };
	const uint8_t partial[6] = { 0 };
	int bad = 0;

	if (d != S_NO_ID)
		bad |= nla_put_u32(msg, NETCOLL_A_COMM_ID,
				   d == S_UNKNOWN_COMM ? c->probe_id : c->good_id) < 0;
	switch (d) {
	case S_NO_PHASES:
		break;
	case S_NO_SEND:
		bad |= put_phase(msg, 0, none, 1, NULL, 0, NULL, 0);
		break;
	case S_SEND_TWICE:
		bad |= put_phase(msg, 0, 1, 1, NULL, 0, NULL, 0);
		bad |= put_phase(msg, 1, 1, none, NULL, 0, NULL, 0);
		break;
	case S_SEND_SELF:
		bad |= put_phase(msg, 0, 0, 1, NULL, 0, NULL, 0);
		break;
	case S_SEND_NONMEMBER:
		bad |= put_phase(msg, 0, 2, 1, NULL, 0, NULL, 0);
		break;
	case S_INDEX_BACKWARDS:
		bad |= put_phase(msg, 1, 1, none, NULL, 0, NULL, 0);
		bad |= put_phase(msg, 0, none, 1, NULL, 0, NULL, 0);
		break;
	case S_NO_INDEX:
		bad |= put_phase(msg, -1, 1, 1, NULL, 0, NULL, 0);
		break;
	case S_INDEX_TOO_BIG:
		bad |= put_phase(msg, NETCOLL_SCHED_PHASE_MAX, 1, 1, NULL, 0, NULL, 0);
		break;
	case S_EMPTY_PHASE:
		bad |= put_phase(msg, 0, 1, 1, NULL, 0, NULL, 0);
		bad |= put_phase(msg, 1, none, none, NULL, 0, NULL, 0);
		break;
	case S_SYNC_WITHOUT_SEND:
		bad |= put_phase(msg, 0, 1, none, NULL, 0, NULL, 0);
		bad |= put_phase(msg, 1, none, 1, &one, sizeof(one), NULL, 0);
		break;
	case S_SYNC_PARTIAL:
		bad |= put_phase(msg, 0, 1, 1, partial, sizeof(partial), NULL, 0);
		break;
	case S_SYNC_FROM_SELF:
		bad |= put_phase(msg, 0, 1, 1, &self, sizeof(self), NULL, 0);
		break;
	case S_SYNC_OUT_BAD_PHASE:
		bad |= put_phase(msg, 0, 1, 1, NULL, 0, &far, sizeof(far));
		break;
	default:
		bad |= put_phase(msg, 0, 1, 1, NULL, 0, NULL, 0);
		break;
	}
	if (bad) {
		fprintf(stderr, "nl_reject: cannot build SCHED_SET\n");
		exit(1);
	}
	return msg;
}

static const struct {
	const char *name;
	enum sdefect defect;
	int expect;
} sched_cases[] = {
	{ "SCHED_SET without COMM_ID -> EINVAL",		S_NO_ID,	EINVAL },
	{ "SCHED_SET on an unknown communicator -> ENOENT",	S_UNKNOWN_COMM,	ENOENT },
	{ "SCHED_SET without phases -> EINVAL",			S_NO_PHASES,	EINVAL },
	{ "SCHED_SET that never sends to rank 1 -> EINVAL",	S_NO_SEND,	EINVAL },
	{ "SCHED_SET sending to rank 1 twice -> EINVAL",	S_SEND_TWICE,	EINVAL },
	{ "SCHED_SET sending to itself -> EINVAL",		S_SEND_SELF,	EINVAL },
	{ "SCHED_SET sending to a non-member -> EINVAL",	S_SEND_NONMEMBER, EINVAL },
	{ "SCHED_SET with phases out of order -> EINVAL",	S_INDEX_BACKWARDS, EINVAL },
	{ "SCHED_SET with a phase without INDEX -> EINVAL",	S_NO_INDEX,	EINVAL },
	{ "SCHED_SET with a phase index out of range -> ERANGE", S_INDEX_TOO_BIG, ERANGE },
	{ "SCHED_SET with an empty phase -> EINVAL",		S_EMPTY_PHASE,	EINVAL },
	{ "SCHED_SET awaiting a token without a send -> EINVAL", S_SYNC_WITHOUT_SEND, EINVAL },
	{ "SCHED_SET with a partial token entry -> EINVAL",	S_SYNC_PARTIAL,	EINVAL },
	{ "SCHED_SET awaiting a token from itself -> EINVAL",	S_SYNC_FROM_SELF, EINVAL },
	{ "SCHED_SET with a token for a phase out of range -> EINVAL",
								S_SYNC_OUT_BAD_PHASE, EINVAL },
};

static void run_sched_cases(struct ctx *c)
{
	struct nc_comm_info ci;
	size_t i;
	int err;

	for (i = 0; i < sizeof(sched_cases) / sizeof(sched_cases[0]); i++) {
		err = send_req(c, sched_set(c, sched_cases[i].defect));
		report(c, sched_cases[i].name, -err, sched_cases[i].expect);
	}
	err = nc_comm_get(c->ctl, c->good_id, &ci);
	check(c, "rejected schedules left the communicator unscheduled",
	      !err && ci.sched_phases == 0, "a schedule is installed");
	if (!err)
		nc_comm_info_free(&ci);

	err = send_req(c, sched_set(c, S_NONE));
	report(c, "SCHED_SET of a valid slice", -err, 0);
	err = nc_comm_get(c->ctl, c->good_id, &ci);
	check(c, "COMM_GET shows the installed slice (1 phase)",
	      !err && ci.sched_phases == 1, "sched_phases is not 1");
	if (!err)
		nc_comm_info_free(&ci);
	err = send_req(c, with_id(new_msg(c, NETCOLL_CMD_SCHED_DEL, 0), c->good_id));
	report(c, "SCHED_DEL", -err, 0);
	err = nc_comm_get(c->ctl, c->good_id, &ci);
	check(c, "after SCHED_DEL the communicator is unscheduled again",
	      !err && ci.sched_phases == 0, "sched_phases is not 0");
	if (!err)
		nc_comm_info_free(&ci);
	err = send_req(c, with_id(new_msg(c, NETCOLL_CMD_SCHED_DEL, 0), c->probe_id));
	report(c, "SCHED_DEL of an unknown communicator -> ENOENT", -err, ENOENT);
}

/* TREE_SET on the two-member communicator: parents[] as given. */
static struct nl_msg *tree_set(struct ctx *c, uint32_t id, int64_t index,
			       const uint32_t *parents, int n)
{
	struct nl_msg *msg = with_id(new_msg(c, NETCOLL_CMD_TREE_SET, 0), id);
	int bad = 0;

	if (index >= 0)
		bad |= nla_put_u32(msg, NETCOLL_A_TREE_INDEX, (uint32_t)index) < 0;
	if (n >= 0)
		bad |= nla_put(msg, NETCOLL_A_TREE_PARENTS, n * 4, parents) < 0;
	if (bad) {
		fprintf(stderr, "nl_reject: cannot build TREE_SET\n");
		exit(1);
	}
	return msg;
}

static void run_tree_cases(struct ctx *c)
{
	static const uint32_t good[] = { 0, 0 }, two_roots[] = { 0, 1 },
		cycle[] = { 1, 0 }, out_of_range[] = { 0, 2 }, three[] = { 0, 0, 0 };
	struct nc_tree_info ti;
	int err;

	err = send_req(c, tree_set(c, c->good_id, -1, good, -1));
	report(c, "TREE_SET without TREE_PARENTS -> EINVAL", -err, EINVAL);
	err = send_req(c, tree_set(c, c->good_id, -1, three, 3));
	report(c, "TREE_SET with 3 parents for 2 members -> EINVAL", -err, EINVAL);
	err = send_req(c, tree_set(c, c->good_id, -1, two_roots, 2));
	report(c, "TREE_SET with two roots -> EINVAL", -err, EINVAL);
	err = send_req(c, tree_set(c, c->good_id, -1, cycle, 2));
	report(c, "TREE_SET with a cycle and no root -> EINVAL", -err, EINVAL);
	err = send_req(c, tree_set(c, c->good_id, -1, out_of_range, 2));
	report(c, "TREE_SET with a parent that is no member -> EINVAL", -err, EINVAL);
	err = send_req(c, tree_set(c, c->good_id, NETCOLL_TREES_MAX, good, 2));
	report(c, "TREE_SET with TREE_INDEX 8 -> ERANGE", -err, ERANGE);
	err = send_req(c, tree_set(c, c->probe_id, -1, good, 2));
	report(c, "TREE_SET on an unknown communicator -> ENOENT", -err, ENOENT);
	err = send_req(c, tree_set(c, c->good_id, 3, good, 2));
	report(c, "TREE_SET of a valid tree (index 3)", -err, 0);
	err = nc_tree_get(c->ctl, c->good_id, 3, &ti);
	check(c, "TREE_GET shows it installed, rank 0 the root with child 1",
	      !err && ti.installed && ti.root == 0 && ti.parent == 0 &&
	      ti.nchildren == 1 && ti.children[0] == 1, nc_strerror(err));
	if (!err)
		nc_tree_info_free(&ti);
	err = send_req(c, with_id(new_msg(c, NETCOLL_CMD_TREE_DEL, 0), c->good_id));
	report(c, "TREE_DEL (index 0, built-in again)", -err, 0);
}

/* TREE_SET with TREE_BCAST_ORDER (n entries; index >= 0: TREE_INDEX too). */
static struct nl_msg *bcast_order_set(struct ctx *c, int64_t index,
				      const uint32_t *order, int n)
{
	struct nl_msg *msg = with_id(new_msg(c, NETCOLL_CMD_TREE_SET, 0), c->good_id);
	int bad = nla_put(msg, NETCOLL_A_TREE_BCAST_ORDER, n * 4, order) < 0;

	if (index >= 0)
		bad |= nla_put_u32(msg, NETCOLL_A_TREE_INDEX, (uint32_t)index) < 0;
	if (bad) {
		fprintf(stderr, "nl_reject: cannot build TREE_SET\n");
		exit(1);
	}
	return msg;
}

/* The broadcast tree from root, of the two-member communicator. */
static int bcast_tree_is(struct ctx *c, uint32_t root, uint32_t parent,
			 int installed)
{
	struct nc_tree_info ti;
	int ok;

	if (nc_bcast_tree_get(c->ctl, c->good_id, root, &ti))
		return 0;
	ok = ti.root == root && ti.parent == parent && !ti.installed == !installed;
	nc_tree_info_free(&ti);
	return ok;
}

static void run_bcast_order_cases(struct ctx *c)
{
	static const uint32_t swapped[] = { 1, 0 }, twice[] = { 1, 1 },
		stranger[] = { 0, 2 }, three[] = { 0, 1, 2 };
	struct nl_msg *msg;
	int err;

	err = send_req(c, bcast_order_set(c, -1, three, 3));
	report(c, "TREE_SET with a broadcast order of 3 for 2 members -> EINVAL", -err, EINVAL);
	err = send_req(c, bcast_order_set(c, -1, twice, 2));
	report(c, "TREE_SET with a rank twice in the broadcast order -> EINVAL", -err, EINVAL);
	err = send_req(c, bcast_order_set(c, -1, stranger, 2));
	report(c, "TREE_SET with a non-member in the broadcast order -> EINVAL", -err, EINVAL);
	err = send_req(c, bcast_order_set(c, 1, swapped, 2));
	report(c, "TREE_SET with a broadcast order and TREE_INDEX -> EINVAL", -err, EINVAL);
	check(c, "the rejected orders left rank order",
	      bcast_tree_is(c, 0, 0, 0) && bcast_tree_is(c, 1, 1, 0), "installed");
	err = send_req(c, bcast_order_set(c, -1, swapped, 2));
	report(c, "TREE_SET of the broadcast order 1 0", -err, 0);
	check(c, "TREE_GET bcast: installed, each root its own parent",
	      bcast_tree_is(c, 0, 0, 1) && bcast_tree_is(c, 1, 1, 1), "other tree");
	msg = with_id(new_msg(c, NETCOLL_CMD_TREE_GET, 0), c->good_id);
	if (nla_put_flag(msg, NETCOLL_A_TREE_BCAST) < 0 ||
	    nla_put_u32(msg, NETCOLL_A_TREE_ROOT, 2) < 0) {
		fprintf(stderr, "nl_reject: cannot build TREE_GET\n");
		exit(1);
	}
	err = send_req(c, msg);
	report(c, "TREE_GET bcast from root 2 of 2 members -> EINVAL", -err, EINVAL);
	msg = with_id(new_msg(c, NETCOLL_CMD_TREE_DEL, 0), c->good_id);
	if (nla_put_flag(msg, NETCOLL_A_TREE_BCAST) < 0) {
		fprintf(stderr, "nl_reject: cannot build TREE_DEL\n");
		exit(1);
	}
	err = send_req(c, msg);
	report(c, "TREE_DEL bcast: rank order again", -err, 0);
	check(c, "TREE_GET bcast: not installed", bcast_tree_is(c, 1, 1, 0), "installed");
	/* an order left installed is freed with its communicator (leak check) */
	err = send_req(c, bcast_order_set(c, -1, swapped, 2));
	report(c, "TREE_SET of the broadcast order 1 0 again", -err, 0);
}

static void run_other_cases(struct ctx *c)
{
	struct nl_msg *msg;
	int err;

	err = send_req(c, comm_new(c, c->good_id, D_NONE));
	report(c, "COMM_NEW with the id of an existing communicator -> EEXIST",
	       -err, EEXIST);

	err = send_req(c, with_ifname(new_msg(c, NETCOLL_CMD_DEV_ATTACH, 0), c->ifname));
	report(c, "DEV_ATTACH of an attached device -> EEXIST", -err, EEXIST);

	err = send_req(c, with_ifname(new_msg(c, NETCOLL_CMD_DEV_ATTACH, 0), NO_SUCH_DEV));
	report(c, "DEV_ATTACH of a device that does not exist -> ENODEV", -err, ENODEV);
	if (err == 0)
		nc_dev_detach(c->ctl, NO_SUCH_DEV);

	err = send_req(c, with_ifname(new_msg(c, NETCOLL_CMD_DEV_DETACH, 0), UNATTACHED_DEV));
	report(c, "DEV_DETACH of an unattached device -> ENODEV", -err, ENODEV);

	msg = with_ifname(new_msg(c, NETCOLL_CMD_DEV_GET, 0), c->ifname);
	if (nla_put_u32(msg, NETCOLL_A_MAX + 1, 1) < 0) {
		fprintf(stderr, "nl_reject: cannot build request\n");
		exit(1);
	}
	err = send_req(c, msg);
	report(c, "DEV_GET with an unknown attribute type -> EINVAL", -err, EINVAL);

	err = send_req(c, with_id(new_msg(c, NETCOLL_CMD_COMM_GET, 0), c->probe_id));
	report(c, "COMM_GET of an unknown id -> ENOENT", -err, ENOENT);

	err = send_req(c, with_id(new_msg(c, NETCOLL_CMD_COMM_DEL, 0), c->probe_id));
	report(c, "COMM_DEL of an unknown id -> ENOENT", -err, ENOENT);

	err = send_req(c, new_msg(c, NETCOLL_CMD_COMM_DEL, 0));
	report(c, "COMM_DEL without COMM_ID -> EINVAL", -err, EINVAL);

	err = send_req(c, new_msg(c, NETCOLL_CMD_MAX + 1, 0));
	report(c, "unknown command -> EOPNOTSUPP", -err, EOPNOTSUPP);
}

/* ---------------------------------------------------------------- */
/* Setup and the two modes                                           */
/* ---------------------------------------------------------------- */

static int open_raw(struct ctx *c)
{
	int one = 1;

	c->sk = nl_socket_alloc();
	c->cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!c->sk || !c->cb || genl_connect(c->sk) < 0) {
		fprintf(stderr, "nl_reject: cannot open a generic netlink socket\n");
		return 1;
	}
	/* Ask for the kernel's reasons, without our request echoed back. */
	(void)setsockopt(nl_socket_get_fd(c->sk), SOL_NETLINK, NETLINK_EXT_ACK,
			 &one, sizeof(one));
	(void)setsockopt(nl_socket_get_fd(c->sk), SOL_NETLINK, NETLINK_CAP_ACK,
			 &one, sizeof(one));
	c->family = genl_ctrl_resolve(c->sk, NETCOLL_GENL_NAME);
	if (c->family < 0) {
		fprintf(stderr, "nl_reject: no \"%s\" netlink family: %s\n",
			NETCOLL_GENL_NAME, nl_geterror(c->family));
		return 1;
	}
	nl_cb_set(c->cb, NL_CB_ACK, NL_CB_CUSTOM, ack_cb, c);
	nl_cb_set(c->cb, NL_CB_FINISH, NL_CB_CUSTOM, finish_cb, c);
	nl_cb_err(c->cb, NL_CB_CUSTOM, error_cb, c);
	return 0;
}

static int has_comm(const struct nc_comm_info *v, size_t n, uint32_t id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i].id == id)
			return 1;
	return 0;
}

/* Communicators and devices: the state that must be as we found it. */
struct snapshot {
	struct nc_comm_info *comms;
	size_t ncomms;
	struct nc_dev_info *devs;
	size_t ndevs;
};

static int take_snapshot(nc_ctl *ctl, struct snapshot *s)
{
	int err = nc_comm_list(ctl, &s->comms, &s->ncomms);

	if (!err)
		err = nc_dev_list(ctl, NULL, &s->devs, &s->ndevs);
	if (err)
		fprintf(stderr, "nl_reject: cannot list communicators and devices: %s\n",
			nc_strerror(err));
	return err;
}

static void free_snapshot(struct snapshot *s)
{
	free(s->comms);
	free(s->devs);
}

static void check_no_leaks(struct ctx *c, const struct snapshot *before)
{
	struct snapshot after = { 0 };
	char why[96];
	size_t i;
	int same;

	if (take_snapshot(c->ctl, &after)) {
		check(c, "no leaked state", 0, "cannot list communicators and devices");
		return;
	}
	same = after.ncomms == before->ncomms;
	for (i = 0; same && i < after.ncomms; i++)
		same = has_comm(before->comms, before->ncomms, after.comms[i].id);
	snprintf(why, sizeof(why), "%zu communicators before, %zu after",
		 before->ncomms, after.ncomms);
	check(c, before->ncomms ? "no leaked communicators (same as before)"
				: "no leaked communicators (dump is empty)",
	      same, why);
	snprintf(why, sizeof(why), "%zu devices attached before, %zu after",
		 before->ndevs, after.ndevs);
	check(c, "devices attached as before", after.ndevs == before->ndevs, why);
	free_snapshot(&after);
}

/* Ids for the valid communicator and for the probes: both unused. */
static void pick_ids(struct ctx *c, const struct snapshot *s)
{
	c->good_id = 4242;
	while (has_comm(s->comms, s->ncomms, c->good_id) ||
	       has_comm(s->comms, s->ncomms, c->good_id + 1))
		c->good_id += 2;
	c->probe_id = c->good_id + 1;
}

static int run_privileged(struct ctx *c)
{
	struct snapshot before = { 0 };
	struct nc_member members[2];
	struct nc_comm_spec spec;
	struct nc_dev_info *dev;
	int attached = 0, err, ret = 0;
	size_t n;

	if (take_snapshot(c->ctl, &before))
		return 1;
	pick_ids(c, &before);
	err = nc_dev_list(c->ctl, c->ifname, &dev, &n);
	if (err == -ENODEV) {
		err = nc_dev_attach(c->ctl, c->ifname);
		lib_report(c, "DEV_ATTACH of the test device", err, 0);
		if (err) {
			ret = 1;
			goto out;
		}
		attached = 1;
		err = nc_dev_list(c->ctl, c->ifname, &dev, &n);
	}
	if (err) {
		fprintf(stderr, "nl_reject: cannot read device %s: %s\n", c->ifname,
			nc_strerror(err));
		ret = 1;
		goto detach;
	}
	if (dev->addr_len == 0) {
		fprintf(stderr, "nl_reject: device %s has no hardware address\n",
			c->ifname);
		free(dev);
		ret = 1;
		goto detach;
	}
	/* Rank 0 is this host; rank 1 a neighbour with a distinct address. */
	c->addr_len = dev->addr_len;
	memcpy(c->addr[0], dev->addr, dev->addr_len);
	memcpy(c->addr[1], dev->addr, dev->addr_len);
	c->addr[1][dev->addr_len - 1] ^= 1;
	free(dev);
	memset(members, 0, sizeof(members));
	memcpy(members[0].addr, c->addr[0], c->addr_len);
	memcpy(members[1].addr, c->addr[1], c->addr_len);
	members[0].addr_len = members[1].addr_len = c->addr_len;
	spec = (struct nc_comm_spec){
		.id = c->good_id, .ifname = c->ifname, .rank = 0, .size = 2,
		.members = members, .cookie = 0x6e636a, .timeout_ms = 1000,
	};
	err = nc_comm_create(c->ctl, &spec);
	lib_report(c, "COMM_NEW of a valid communicator", err, 0);
	if (err) {
		ret = 1;
		goto detach;
	}

	run_comm_new_cases(c);
	run_other_cases(c);
	run_sched_cases(c);
	run_tree_cases(c);
	run_bcast_order_cases(c);

	err = nc_comm_delete(c->ctl, c->good_id);
	lib_report(c, "COMM_DEL of the valid communicator", err, 0);
	err = send_req(c, with_id(new_msg(c, NETCOLL_CMD_COMM_DEL, 0), c->good_id));
	report(c, "COMM_DEL of a deleted communicator -> ENOENT", -err, ENOENT);
detach:
	if (attached) {
		err = nc_dev_detach(c->ctl, c->ifname);
		lib_report(c, "DEV_DETACH of the test device", err, 0);
	}
	check_no_leaks(c, &before);
out:
	free_snapshot(&before);
	return ret;
}


/* ---------------------------------------------------------------- */
/* Fuzzing                                                           */
/* ---------------------------------------------------------------- */

static uint32_t fuzz_u32(const struct ctx *c)
{
	switch (rand() % 6) {
	case 0: return 0;
	case 1: return UINT32_MAX;
	case 2: return (uint32_t)rand();
	case 3: return if_nametoindex(c->ifname);
	default: return 1 + rand() % 8;	/* ids, ranks, counts */
	}
}

static void fuzz_bytes(struct nl_msg *msg, int type, int maxlen)
{
	unsigned char b[96];
	int len = rand() % (maxlen + 1), i;

	for (i = 0; i < len; i++)
		b[i] = (unsigned char)rand();
	nla_put(msg, type, len, b);
}

/* A member list of random length, addresses mostly plausible. */
static void fuzz_members(const struct ctx *c, struct nl_msg *msg)
{
	struct nlattr *nest = nla_nest_start(msg, NETCOLL_A_COMM_MEMBERS), *m;
	int n = rand() % 5, i;
	uint8_t addr[NC_ADDR_MAX];

	for (i = 0; nest && i < n; i++) {
		m = nla_nest_start(msg, rand() % 4 ? NETCOLL_A_MEMBER : rand() % 4);
		if (!m)
			break;
		if (rand() % 4)
			nla_put_u32(msg, NETCOLL_A_MEMBER_RANK, rand() % 4);
		memcpy(addr, c->addr[rand() % 2], c->addr_len);
		if (rand() % 3 == 0)
			addr[c->addr_len - 1] = (uint8_t)rand();
		if (rand() % 4)
			nla_put(msg, NETCOLL_A_MEMBER_ADDR,
				rand() % 8 ? (int)c->addr_len : rand() % NC_ADDR_MAX, addr);
		nla_nest_end(msg, m);
	}
	if (nest)
		nla_nest_end(msg, nest);
}

/* A right member list: ranks 0 .. n-1, ours first, the rest distinct. */
static void fuzz_valid_members(const struct ctx *c, struct nl_msg *msg)
{
	struct nlattr *nest = nla_nest_start(msg, NETCOLL_A_COMM_MEMBERS), *m;
	int n = 1 + rand() % 4, i;
	uint8_t addr[NC_ADDR_MAX];

	for (i = 0; nest && i < n; i++) {
		m = nla_nest_start(msg, NETCOLL_A_MEMBER);
		if (!m)
			break;
		nla_put_u32(msg, NETCOLL_A_MEMBER_RANK, i);
		memcpy(addr, c->addr[0], c->addr_len);
		addr[c->addr_len - 1] ^= (uint8_t)(2 * i);
		nla_put(msg, NETCOLL_A_MEMBER_ADDR, c->addr_len, addr);
		nla_nest_end(msg, m);
	}
	if (nest)
		nla_nest_end(msg, nest);
}

static void fuzz_phase(const struct ctx *c, struct nl_msg *msg)
{
	struct nlattr *nest = nla_nest_start(msg, NETCOLL_A_SCHED_PHASE);
	uint32_t toks[4];
	int i;

	if (!nest)
		return;
	for (i = 1; i <= NETCOLL_A_PHASE_MAX + 1; i++) {
		if (rand() % 2)
			continue;
		if (i == NETCOLL_A_PHASE_SYNC_IN || i == NETCOLL_A_PHASE_SYNC_OUT) {
			toks[0] = rand() % 4;
			toks[1] = rand() % 4;
			toks[2] = fuzz_u32(c);
			toks[3] = rand() % 4;
			nla_put(msg, i, 4 * (1 + rand() % 4), toks);
		} else {
			nla_put_u32(msg, i, rand() % 6);
		}
	}
	nla_nest_end(msg, nest);
}

/*
 * A request that is nearly right for its command, so that a good part of
 * them reach the handlers' own checks, some succeed, and the rest of the
 * fuzz then meets the communicators they made.
 */
static void fuzz_plausible(struct ctx *c, struct nl_msg *msg, uint8_t cmd)
{
	uint32_t parents[4] = { 0, 0, rand() % 4, rand() % 5 };
	uint8_t key[NETCOLL_KEY_MAX];
	int i;

	nla_put_u32(msg, NETCOLL_A_COMM_ID, 1 + rand() % 8);
	switch (cmd) {
	case NETCOLL_CMD_COMM_NEW:
		nla_put_string(msg, NETCOLL_A_IFNAME, c->ifname);
		nla_put_u32(msg, NETCOLL_A_COMM_RANK, rand() % 3 ? 0 : rand() % 3);
		if (rand() % 2)
			fuzz_members(c, msg);
		else
			fuzz_valid_members(c, msg);
		if (rand() % 3 == 0) {
			for (i = 0; i < NETCOLL_KEY_MAX; i++)
				key[i] = (uint8_t)rand();
			nla_put(msg, NETCOLL_A_COMM_KEY, 12 + rand() % 56, key);
		}
		if (rand() % 4 == 0)
			nla_put_u32(msg, NETCOLL_A_COMM_OWNER, fuzz_u32(c));
		if (rand() % 4 == 0)
			nla_put_u32(msg, NETCOLL_A_COMM_MEM_MAX, fuzz_u32(c) << 16);
		if (rand() % 4 == 0)
			nla_put_u32(msg, NETCOLL_A_COMM_OSO, rand() % 40);
		break;
	case NETCOLL_CMD_SCHED_SET:
		for (i = rand() % 4; i >= 0; i--)
			fuzz_phase(c, msg);
		break;
	case NETCOLL_CMD_TREE_SET:
		if (rand() % 2)
			nla_put(msg, NETCOLL_A_TREE_BCAST_ORDER, 4 * (1 + rand() % 4),
				parents);
		else
			nla_put(msg, NETCOLL_A_TREE_PARENTS, 4 * (1 + rand() % 4),
				parents);
		if (rand() % 2)
			nla_put_u32(msg, NETCOLL_A_TREE_INDEX, rand() % 10);
		break;
	}
}

static struct nl_msg *fuzz_msg(struct ctx *c, uint8_t cmd)
{
	struct nl_msg *msg = new_msg(c, cmd, rand() % 6 ? 0 : NLM_F_DUMP);
	int k = rand() % 8, type;

	if (rand() % 3 == 0) {
		fuzz_plausible(c, msg, cmd);
		k = rand() % 3;
	}
	while (k--) {
		type = rand() % (NETCOLL_A_MAX + 3);
		switch (rand() % 5) {
		case 0:
			fuzz_bytes(msg, type, 80);
			break;
		case 1:
			nla_put_u32(msg, type, fuzz_u32(c));
			break;
		case 2:
			nla_put_u64(msg, type, rand() % 2 ? (uint64_t)rand() << 32 | rand() : 0);
			break;
		case 3:
			if (type == NETCOLL_A_IFNAME || rand() % 2)
				nla_put_string(msg, NETCOLL_A_IFNAME,
					       rand() % 3 ? c->ifname : "lo");
			else
				nla_put_u32(msg, NETCOLL_A_COMM_ID, 1 + rand() % 8);
			break;
		default:
			if (rand() % 2)
				fuzz_members(c, msg);
			else
				fuzz_phase(c, msg);
			break;
		}
	}
	return msg;
}

/* What a bad request may be answered with. */
static int fuzz_errno_ok(int e)
{
	switch (e) {
	case 0: case EINVAL: case ERANGE: case ENOENT: case EEXIST: case ENODEV:
	case EPERM: case EOPNOTSUPP: case EMSGSIZE: case ENETDOWN: case E2BIG:
	case EBUSY: case ENOBUFS: case EDQUOT:
		return 1;
	}
	return 0;
}

static int fuzz_mutates(unsigned int cmd)
{
	return cmd != NETCOLL_CMD_DEV_GET && cmd != NETCOLL_CMD_COMM_GET &&
	       cmd != NETCOLL_CMD_STATS_GET && cmd != NETCOLL_CMD_TREE_GET;
}

/*
 * n messages per command, the commands interleaved at random, so that
 * schedules and trees meet the communicators other messages made.
 */
static void run_fuzz(struct ctx *c, unsigned int n, int unpriv)
{
	enum { NCMD = NETCOLL_CMD_MAX + 2 };
	static unsigned int seen[NCMD][256], left[NCMD], odd[NCMD];
	unsigned int cmd, i, total = n * NCMD;
	char what[160], list[1024];
	size_t len;
	int err, e;

	for (cmd = 0; cmd < NCMD; cmd++)
		left[cmd] = n;
	for (i = 0; i < total; i++) {
		do
			cmd = rand() % NCMD;
		while (!left[cmd]);
		left[cmd]--;
		err = -send_req(c, fuzz_msg(c, (uint8_t)cmd));
		/* keep the device attached for the other commands */
		if (!err && cmd == NETCOLL_CMD_DEV_DETACH && c->ctl)
			nc_dev_attach(c->ctl, c->ifname);
		seen[cmd][err > 0 && err < 256 ? err : 0]++;
		/* unprivileged: a change would succeed; none may */
		if (!fuzz_errno_ok(err) || (unpriv && !err && fuzz_mutates(cmd))) {
			if (!odd[cmd]++)
				fprintf(stderr, "nl_reject: command %u answered %s (%s)\n",
					cmd, errname(err), c->ext);
		}
	}
	for (cmd = 0; cmd < NCMD; cmd++) {
		len = 0;
		list[0] = '\0';
		for (e = 0; e < 256; e++)
			if (seen[cmd][e])
				len += snprintf(list + len, len < sizeof(list) ? sizeof(list) - len : 0,
						" %s x%u", errname(e), seen[cmd][e]);
		snprintf(what, sizeof(what), "%s%u random messages of command %u:%s",
			 unpriv ? "unprivileged: " : "", n, cmd, list);
		check(c, what, !odd[cmd], "an unexpected answer (see stderr)");
	}
}

/* As root: delete what the fuzz created, then compare with before. */
static int fuzz_privileged(struct ctx *c, unsigned int n)
{
	struct snapshot before = { 0 }, after = { 0 };
	struct nc_dev_info *dev;
	size_t i, ndev;
	int err;

	if (take_snapshot(c->ctl, &before))
		return 1;
	err = nc_dev_list(c->ctl, c->ifname, &dev, &ndev);
	if (err) {
		fprintf(stderr, "nl_reject: %s is not attached\n", c->ifname);
		free_snapshot(&before);
		return 1;
	}
	c->addr_len = dev->addr_len;
	memcpy(c->addr[0], dev->addr, dev->addr_len);
	memcpy(c->addr[1], dev->addr, dev->addr_len);
	c->addr[1][dev->addr_len - 1] ^= 1;
	free(dev);
	run_fuzz(c, n, 0);
	if (take_snapshot(c->ctl, &after)) {
		free_snapshot(&before);
		return 1;
	}
	for (i = 0; i < after.ncomms; i++)
		if (!has_comm(before.comms, before.ncomms, after.comms[i].id))
			nc_comm_delete(c->ctl, after.comms[i].id);
	/* a fuzzed DEV_DETACH may have taken the device away */
	if (nc_dev_list(c->ctl, c->ifname, &dev, &ndev))
		nc_dev_attach(c->ctl, c->ifname);
	else
		free(dev);
	free_snapshot(&after);
	check_no_leaks(c, &before);
	free_snapshot(&before);
	return 0;
}

/* Give up root before any socket exists: netlink checks the opener too. */
static int drop_privileges(void)
{
	if (getuid() != 0 && geteuid() != 0)
		return 0;
	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY)) {
		perror("nl_reject: cannot drop to uid/gid 65534");
		return 1;
	}
	return 0;
}

/* The view of somebody else's communicator: everything but the secrets. */
static void unpriv_comm_view(struct ctx *c)
{
	struct nc_comm_info info;
	nc_ctl *ctl;
	int err;

	err = nc_ctl_open(&ctl);
	if (err) {
		report(c, "unprivileged nc_ctl_open", -err, 0);
		return;
	}
	err = nc_comm_get(ctl, c->good_id, &info);
	report(c, "unprivileged COMM_GET of root's communicator succeeds", -err, 0);
	if (!err) {
		report(c, "... without its cookie or epoch", info.secrets ? EACCES : 0, 0);
		report(c, "... naming no owner (the admin's own)",
		       info.owner == NC_OWNER_NONE ? 0 : EINVAL, 0);
		nc_comm_info_free(&info);
	}
	nc_ctl_close(ctl);
}

static int run_unprivileged(struct ctx *c)
{
	const char *dev = c->ifname;
	struct nl_msg *msg;
	int err;

	c->good_id = c->foreign_id ? c->foreign_id : 4242;
	c->addr_len = 6;
	memcpy(c->addr[0], "\x02\x00\x00\x00\x00\x01", 6);
	memcpy(c->addr[1], "\x02\x00\x00\x00\x00\x02", 6);

	err = send_req(c, with_ifname(new_msg(c, NETCOLL_CMD_DEV_ATTACH, 0), dev));
	report(c, "unprivileged DEV_ATTACH -> EPERM", -err, EPERM);
	err = send_req(c, with_ifname(new_msg(c, NETCOLL_CMD_DEV_DETACH, 0), dev));
	report(c, "unprivileged DEV_DETACH -> EPERM", -err, EPERM);
	err = send_req(c, comm_new(c, c->good_id, D_NONE));
	report(c, "unprivileged COMM_NEW -> EPERM", -err, EPERM);
	if (c->foreign_id) {
		/* Somebody else's communicator: not ours to change. */
		err = send_req(c, with_id(new_msg(c, NETCOLL_CMD_COMM_DEL, 0), c->good_id));
		report(c, "unprivileged COMM_DEL of root's communicator -> EPERM", -err, EPERM);
		err = send_req(c, sched_set(c, S_NONE));
		report(c, "unprivileged SCHED_SET on root's communicator -> EPERM", -err, EPERM);
		err = send_req(c, with_id(new_msg(c, NETCOLL_CMD_SCHED_DEL, 0), c->good_id));
		report(c, "unprivileged SCHED_DEL on root's communicator -> EPERM", -err, EPERM);
		err = send_req(c, with_id(new_msg(c, NETCOLL_CMD_TREE_SET, 0), c->good_id));
		report(c, "unprivileged TREE_SET on root's communicator -> EPERM", -err, EPERM);
		err = send_req(c, with_id(new_msg(c, NETCOLL_CMD_TREE_DEL, 0), c->good_id));
		report(c, "unprivileged TREE_DEL on root's communicator -> EPERM", -err, EPERM);
		unpriv_comm_view(c);
	}
	/* One that does not exist: nothing to protect, nothing to find. */
	err = send_req(c, with_id(new_msg(c, NETCOLL_CMD_COMM_DEL, 0), 4243));
	report(c, "unprivileged COMM_DEL of no communicator -> ENOENT", -err, ENOENT);

	err = send_req(c, new_msg(c, NETCOLL_CMD_DEV_GET, NLM_F_DUMP));
	report(c, "unprivileged DEV_GET dump succeeds", -err, 0);
	err = send_req(c, new_msg(c, NETCOLL_CMD_COMM_GET, NLM_F_DUMP));
	report(c, "unprivileged COMM_GET dump succeeds", -err, 0);
	msg = new_msg(c, NETCOLL_CMD_STATS_GET, 0);
	err = send_req(c, msg);
	report(c, "unprivileged STATS_GET succeeds", -err, 0);
	return 0;
}

/*
 * A device dump read one part per recvmsg(), with ncd0 detached and
 * attached again (it moves to the end of the list) after the first part:
 * the parts made after that must carry NLM_F_DUMP_INTR, since the dump
 * resumes by position.  The kernel makes a part when the one before is
 * read, so the change lands before the third part at the latest.
 */
static int run_dump_intr(struct ctx *c, unsigned int n)
{
	struct sockaddr_nl peer;
	unsigned int i, listed = 0, parts = 0, intr = 0, done = 0;
	struct nc_dev_info *devs = NULL;
	unsigned char *buf = NULL;
	struct nl_sock *sk;
	char name[IFNAMSIZ];
	size_t ndevs = 0;
	int len, err;

	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "ncd%u", i);
		err = nc_dev_attach(c->ctl, name);
		if (err) {
			fprintf(stderr, "nl_reject: attach %s: %s\n", name, nc_strerror(err));
			return 1;
		}
	}
	/*
	 * A socket of its own that never read more than a page at once: the
	 * kernel sizes a dump's parts by the largest read so far.
	 */
	sk = nl_socket_alloc();
	if (!sk || genl_connect(sk) < 0)
		return 1;
	nl_socket_disable_msg_peek(sk);
	nl_socket_set_msg_buf_size(sk, 4096);
	if (nl_send_auto(sk, new_msg(c, NETCOLL_CMD_DEV_GET, NLM_F_DUMP)) < 0)
		return 1;
	while (!done && (len = nl_recv(sk, &peer, &buf, NULL)) > 0) {
		struct nlmsghdr *h = (struct nlmsghdr *)buf;

		for (; nlmsg_ok(h, len); h = nlmsg_next(h, &len)) {
			intr |= !!(h->nlmsg_flags & NLM_F_DUMP_INTR);
			if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR)
				done = 1;
			else
				listed++;
		}
		free(buf);
		buf = NULL;
		if (++parts == 1 && (nc_dev_detach(c->ctl, "ncd0") ||
				     nc_dev_attach(c->ctl, "ncd0")))
			return 1;
	}
	nl_socket_free(sk);
	printf("# the dump: %u parts, %u devices listed, %smarked interrupted%s%s\n",
	       parts, listed, intr ? "" : "not ", len < 0 ? ", then " : "",
	       len < 0 ? nl_geterror(len) : "");
	check(c, "a device dump in parts is marked NLM_F_DUMP_INTR by a device detached and attached meanwhile",
	      parts >= 3 && intr, "not marked, or in fewer than three parts");
	err = nc_dev_list(c->ctl, NULL, &devs, &ndevs);
	check(c, "nc_dev_list() then lists every device once", !err && ndevs == n,
	      "a device missing or listed twice");
	free(devs);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "ncd%u", i);
		(void)nc_dev_detach(c->ctl, name);
	}
	return 0;
}

static void usage(FILE *out)
{
	fprintf(out, "Usage: nl_reject --ifname IFNAME\n"
		     "       nl_reject --unpriv [--ifname IFNAME] [--comm ID]\n"
		     "       nl_reject --fuzz N [--unpriv] [--ifname IFNAME] [--seed S]\n"
		     "       nl_reject --dump-intr N\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "ifname", required_argument, NULL, 'i' },
		{ "unpriv", no_argument,       NULL, 'u' },
		{ "comm",   required_argument, NULL, 'c' },
		{ "fuzz",   required_argument, NULL, 'f' },
		{ "seed",   required_argument, NULL, 's' },
		{ "dump-intr", required_argument, NULL, 'd' },
		{ "help",   no_argument,       NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct ctx c = { 0 };
	int opt, unpriv = 0, ret = 1, err;
	unsigned int fuzz = 0, seed = 1, dump_intr = 0;

	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'i':
			c.ifname = optarg;
			break;
		case 'u':
			unpriv = 1;
			break;
		case 'c':
			c.foreign_id = strtoul(optarg, NULL, 0);
			break;
		case 'f':
			fuzz = strtoul(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoul(optarg, NULL, 0);
			break;
		case 'd':
			dump_intr = strtoul(optarg, NULL, 0);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (optind < argc || (!unpriv && !c.ifname && !dump_intr)) {
		usage(stderr);
		return 1;
	}
	if (c.ifname && strlen(c.ifname) >= IFNAMSIZ) {
		fprintf(stderr, "nl_reject: device name \"%s\" is too long\n", c.ifname);
		return 1;
	}
	if (!c.ifname)
		c.ifname = UNATTACHED_DEV;
	if (unpriv && drop_privileges())
		return 1;
	if (open_raw(&c))
		goto out;
	if (!unpriv) {
		err = nc_ctl_open(&c.ctl);
		if (err) {
			fprintf(stderr, "nl_reject: %s\n", nc_strerror(err));
			goto out;
		}
	}
	srand(seed);
	/* A setup failure (non-zero) leaves the remaining cases unrun. */
	if (dump_intr) {
		err = run_dump_intr(&c, dump_intr);
	} else if (fuzz && unpriv) {
		c.addr_len = 6;
		memcpy(c.addr[0], "\x02\x00\x00\x00\x00\x01", 6);
		memcpy(c.addr[1], "\x02\x00\x00\x00\x00\x02", 6);
		run_fuzz(&c, fuzz, 1);
		err = 0;
	} else if (fuzz) {
		err = fuzz_privileged(&c, fuzz);
	} else {
		err = unpriv ? run_unprivileged(&c) : run_privileged(&c);
	}
	printf("%u passed, %u failed\n", c.passed, c.failed);
	ret = err || c.failed || !c.passed;
out:
	nc_ctl_close(c.ctl);
	nl_cb_put(c.cb);
	nl_socket_free(c.sk);
	return ret;
}

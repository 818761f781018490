// SPDX-License-Identifier: BSD-2-Clause
/*
 * Configuration over the generic netlink family "netcoll".
 *
 * One request at a time per nc_ctl: it is sent with NLM_F_ACK and its
 * answer is read until the ACK (doit), NLMSG_DONE (dump) or an error.
 * libnl folds several errno values into one NLE_* code (ENOENT and ESRCH,
 * for instance), so the error callback keeps the kernel's own errno and
 * the extended ack message that came with it.
 * Events arrive on a second socket, so they never interleave with answers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <netlink/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>

#include <linux/netcoll.h>

#include "netcoll.h"
#include "args.h"
#include "nl.h"

_Static_assert(NC_ADDR_MAX == NETCOLL_ADDR_MAX, "address sizes differ");


/* The request in flight, filled in by the callbacks. */
struct nc_req {
	nc_reply_fn fn;			/* parses one answer message */
	void *arg;
	int error;			/* first error: kernel's, else parser's */
	int done;
};

struct nc_ctl {
	struct nl_sock *sk;		/* requests and their answers */
	struct nl_cb *cb;		/* answer callbacks, all on &req */
	int family;
	struct nc_req req;
	struct nl_sock *ev_sk;		/* "events" group; NULL until subscribed */
	struct nc_event ev;		/* the event nc_event_cb() parsed */
	int ev_ready;
	int ev_error;
	char errmsg[256];		/* extack or parse failure, "" if none */
	uint32_t rank;			/* NC_RANK_NONE, or the rank requests name */
};

/* Answer attributes; the types are global to the family, as in the kernel. */
static const struct nla_policy nc_policy[NETCOLL_A_MAX + 1] = {
	[NETCOLL_A_IFINDEX]		= { .type = NLA_U32 },
	[NETCOLL_A_IFNAME]		= { .type = NLA_STRING, .maxlen = NC_IFNAMSIZ },
	[NETCOLL_A_BEARER]		= { .type = NLA_STRING,
					    .maxlen = sizeof(((struct nc_dev_info *)0)->bearer) },
	[NETCOLL_A_MTU]			= { .type = NLA_U32 },
	[NETCOLL_A_HWADDR]		= { .type = NLA_UNSPEC, .maxlen = NC_ADDR_MAX },
	[NETCOLL_A_COMM_ID]		= { .type = NLA_U32 },
	[NETCOLL_A_COMM_COOKIE]		= { .type = NLA_U64 },
	[NETCOLL_A_COMM_RANK]		= { .type = NLA_U32 },
	[NETCOLL_A_COMM_SIZE]		= { .type = NLA_U32 },
	[NETCOLL_A_COMM_MEMBERS]	= { .type = NLA_NESTED },
	[NETCOLL_A_COMM_TIMEOUT_MS]	= { .type = NLA_U32 },
	[NETCOLL_A_COMM_OP_SEQ]		= { .type = NLA_U32 },
	[NETCOLL_A_COMM_AGG_SEQ]	= { .type = NLA_U32 },
	[NETCOLL_A_COMM_BOUND]		= { .type = NLA_U8 },
	[NETCOLL_A_STATS]		= { .type = NLA_NESTED },
	[NETCOLL_A_COMM_RTT]		= { .type = NLA_NESTED },
	[NETCOLL_A_COMM_AGG_RTT]	= { .type = NLA_NESTED },
	[NETCOLL_A_ERRNO]		= { .type = NLA_S32, .minlen = sizeof(int32_t) },
	[NETCOLL_A_OP_SEQ]		= { .type = NLA_U32 },
	[NETCOLL_A_PEER_RANK]		= { .type = NLA_U32 },
	[NETCOLL_A_SCHED_PHASES]	= { .type = NLA_U32 },
	[NETCOLL_A_SCHED_SYNCS]		= { .type = NLA_U32 },
	[NETCOLL_A_COMM_OSO]		= { .type = NLA_U32 },
	[NETCOLL_A_COMM_MCAST_ADDR]	= { .type = NLA_UNSPEC, .minlen = 1,
					    .maxlen = NC_ADDR_MAX },
	[NETCOLL_A_COMM_TREE_DEGREE]	= { .type = NLA_U32 },
	[NETCOLL_A_TREE_INDEX]		= { .type = NLA_U32 },
	[NETCOLL_A_TREE_ROOT]		= { .type = NLA_U32 },
	[NETCOLL_A_TREE_PARENT]		= { .type = NLA_U32 },
	[NETCOLL_A_TREE_CHILDREN]	= { .type = NLA_UNSPEC },
	[NETCOLL_A_TREE_INSTALLED]	= { .type = NLA_U8 },
	[NETCOLL_A_COMM_OWNER]		= { .type = NLA_U32 },
	[NETCOLL_A_COMM_GROUP]		= { .type = NLA_U32 },
	[NETCOLL_A_COMM_AUTH]		= { .type = NLA_U8 },
	[NETCOLL_A_COMM_MEM_MAX]	= { .type = NLA_U32 },
	[NETCOLL_A_COMM_RX_MEM_MAX]	= { .type = NLA_U32 },
	[NETCOLL_A_COMM_EPOCH]		= { .type = NLA_U64 },
	[NETCOLL_A_COMM_STATE]		= { .type = NLA_U32 },
	[NETCOLL_A_DEV_USER_COMMS]	= { .type = NLA_U8 },
	[NETCOLL_A_DEV_USER_COMMS_MAX]	= { .type = NLA_U32 },
	[NETCOLL_A_DEV_USER_MEM_MAX]	= { .type = NLA_U32 },
	[NETCOLL_A_COMM_USER_MADE]	= { .type = NLA_U8 },
	[NETCOLL_A_COMM_TRANSIENT]	= { .type = NLA_U8 },
	[NETCOLL_A_COMM_MEM_USED]	= { .type = NLA_U64 },
	[NETCOLL_A_COMM_RX_MEM_USED]	= { .type = NLA_U64 },
	[NETCOLL_A_COMM_INSTALLED_MEM]	= { .type = NLA_U32 },
};

static const struct nla_policy nc_member_policy[NETCOLL_A_MEMBER_MAX + 1] = {
	[NETCOLL_A_MEMBER_RANK]		= { .type = NLA_U32 },
	[NETCOLL_A_MEMBER_ADDR]		= { .type = NLA_UNSPEC, .minlen = 1,
					    .maxlen = NC_ADDR_MAX },
};

/* Counters this library does not name yet are still read, up to NC_STAT_MAX. */
static const struct nla_policy nc_stats_policy[NC_STAT_MAX] = {
	[NETCOLL_STAT_TX_FRAMES ... NC_STAT_MAX - 1] = { .type = NLA_U64 },
};

/* libnl error code (negative NLE_*) to -errno. */
static int nc_nlerr(int err)
{
	switch (-err) {
	case NLE_INTR:		return -EINTR;
	case NLE_BAD_SOCK:	return -EBADF;
	case NLE_AGAIN:		return -EAGAIN;
	case NLE_NOMEM:		return -ENOMEM;
	case NLE_EXIST:		return -EEXIST;
	case NLE_INVAL:		return -EINVAL;
	case NLE_RANGE:		return -ERANGE;
	case NLE_MSGSIZE:	return -EMSGSIZE;
	case NLE_ATTRSIZE:	return -EMSGSIZE;
	case NLE_OPNOTSUPP:	return -EOPNOTSUPP;
	case NLE_AF_NOSUPPORT:	return -EAFNOSUPPORT;
	case NLE_OBJ_NOTFOUND:	return -ENOENT;
	case NLE_NOACCESS:	return -EACCES;
	case NLE_PERM:		return -EPERM;
	case NLE_BUSY:		return -EBUSY;
	case NLE_NODEV:		return -ENODEV;
	case NLE_PROTO_MISMATCH: return -EPROTONOSUPPORT;
	case NLE_DUMP_INTR:	return -EAGAIN;	/* table changed: dump again */
	case NLE_SEQ_MISMATCH:
	case NLE_MSG_OVERFLOW:
	case NLE_MSG_TRUNC:
	case NLE_MSG_TOOSHORT:
	case NLE_MSGTYPE_NOSUPPORT:
		return -NC_EPROTO;
	default:		return -EIO;
	}
}

/* A malformed answer: say what was wrong, return -NC_EPROTO. */
int nc_proto(nc_ctl *ctl, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctl->errmsg, sizeof(ctl->errmsg), fmt, ap);
	va_end(ap);
	return -NC_EPROTO;
}

void nc_ctl_seterr(nc_ctl *ctl, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ctl->errmsg, sizeof(ctl->errmsg), fmt, ap);
	va_end(ap);
}

static int nc_missing(nc_ctl *ctl, struct nlattr **tb, int type,
		      const char *name)
{
	return tb[type] ? 0 : nc_proto(ctl, "answer lacks %s", name);
}
#define MISSING(ctl, tb, type)	nc_missing(ctl, tb, type, #type)

/*
 * Keep NLMSGERR_ATTR_MSG of an error or NLMSG_DONE message.  The TLVs
 * follow hlen bytes of payload: struct nlmsgerr plus the echoed request
 * unless the ack was capped, or the int error of NLMSG_DONE.
 */
static void nc_extack(nc_ctl *ctl, struct nlmsghdr *nlh, size_t hlen)
{
	static const struct nla_policy pol[NLMSGERR_ATTR_MAX + 1] = {
		[NLMSGERR_ATTR_MSG] = { .type = NLA_STRING },
	};
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	long off = NLMSG_ALIGN(hlen), len = (long)nlmsg_datalen(nlh) - off;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || len <= 0)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX,
		      (struct nlattr *)((char *)nlmsg_data(nlh) + off), (int)len,
		      pol) < 0 || !tb[NLMSGERR_ATTR_MSG])
		return;
	nla_strlcpy(ctl->errmsg, tb[NLMSGERR_ATTR_MSG], sizeof(ctl->errmsg));
}

static int nc_valid_cb(struct nl_msg *msg, void *arg)
{
	nc_ctl *ctl = arg;
	struct nlattr *tb[NETCOLL_A_MAX + 1];
	int err;

	/* After a failure keep reading, so the next request starts clean. */
	if (!ctl->req.fn || ctl->req.error)
		return NL_OK;
	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, NETCOLL_A_MAX, nc_policy) < 0)
		err = nc_proto(ctl, "answer does not match the attribute policy");
	else
		err = ctl->req.fn(ctl, tb, ctl->req.arg);
	if (err)
		ctl->req.error = err;
	return NL_OK;
}

static int nc_ack_cb(struct nl_msg *msg, void *arg)
{
	nc_ctl *ctl = arg;

	ctl->req.done = 1;
	return NL_STOP;
}

/* End of a dump; since Linux 4.20 NLMSG_DONE may carry the dump's error. */
static int nc_finish_cb(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	nc_ctl *ctl = arg;
	int err;

	if (nlmsg_datalen(nlh) >= (int)sizeof(err)) {
		memcpy(&err, nlmsg_data(nlh), sizeof(err));
		if (err < 0) {
			nc_extack(ctl, nlh, sizeof(err));
			ctl->req.error = err;
		}
	}
	ctl->req.done = 1;
	return NL_STOP;
}

static int nc_error_cb(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	size_t hlen = sizeof(*e);
	nc_ctl *ctl = arg;

	if (!(nlh->nlmsg_flags & NLM_F_CAPPED) && e->msg.nlmsg_len >= NLMSG_HDRLEN)
		hlen += e->msg.nlmsg_len - NLMSG_HDRLEN;
	nc_extack(ctl, nlh, hlen);
	/* The kernel's verdict wins over a parse error of earlier parts. */
	ctl->req.error = e->error;
	ctl->req.done = 1;
	return NL_STOP;
}

/* A new request of ctl: forget the last one's message. */
struct nl_msg *nc_msg(nc_ctl *ctl, uint8_t cmd, int flags, size_t size)
{
	struct nl_msg *msg;

	ctl->errmsg[0] = '\0';
	msg = size ? nlmsg_alloc_size(size) : nlmsg_alloc();
	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, ctl->family, 0, flags,
			 cmd, NETCOLL_GENL_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* Send msg (consumed) and read its whole answer, each message through fn. */
int nc_nl_request(nc_ctl *ctl, struct nl_msg *msg, nc_reply_fn fn, void *arg)
{
	int err;

	ctl->req = (struct nc_req){ .fn = fn, .arg = arg };
	err = nl_send_auto(ctl->sk, msg);
	nlmsg_free(msg);
	if (err < 0)
		return nc_nlerr(err);
	while (!ctl->req.done) {
		err = nl_recvmsgs(ctl->sk, ctl->cb);
		if (err < 0) {
			if (!ctl->req.error)
				ctl->req.error = nc_nlerr(err);
			break;
		}
	}
	return ctl->req.error;
}

/* Dumps the kernel marks as interrupted are tried again this often. */
#define NC_DUMP_TRIES 8

/* Growable array for dumps. */
struct nc_vec {
	void *items;
	size_t n, cap, size;
};

static void *nc_vec_push(struct nc_vec *v)
{
	void *p;

	if (v->n == v->cap) {
		size_t cap = v->cap ? 2 * v->cap : 8;

		p = realloc(v->items, cap * v->size);
		if (!p)
			return NULL;
		v->items = p;
		v->cap = cap;
	}
	p = (char *)v->items + v->n++ * v->size;
	memset(p, 0, v->size);
	return p;
}

int nc_ctl_open(nc_ctl **pctl)
{
	nc_ctl *ctl;
	int err, fd, one = 1;

	if (!pctl)
		return -EINVAL;
	*pctl = NULL;
	ctl = calloc(1, sizeof(*ctl));
	if (!ctl)
		return -ENOMEM;
	ctl->rank = NC_RANK_NONE;
	ctl->sk = nl_socket_alloc();
	ctl->cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!ctl->sk || !ctl->cb) {
		err = -ENOMEM;
		goto fail;
	}
	err = genl_connect(ctl->sk);
	if (err < 0) {
		err = nc_nlerr(err);
		goto fail;
	}
	/*
	 * Extended acks carry the kernel's reason for a rejection; capped
	 * acks leave our request out of the error.  Kernels without them
	 * just say less, so failure here is not an error.
	 */
	fd = nl_socket_get_fd(ctl->sk);
	(void)setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	(void)setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	err = genl_ctrl_resolve(ctl->sk, NETCOLL_GENL_NAME);
	if (err < 0) {
		err = err == -NLE_OBJ_NOTFOUND ? -NC_ENOMODULE : nc_nlerr(err);
		goto fail;
	}
	ctl->family = err;
	nl_cb_set(ctl->cb, NL_CB_VALID, NL_CB_CUSTOM, nc_valid_cb, ctl);
	nl_cb_set(ctl->cb, NL_CB_ACK, NL_CB_CUSTOM, nc_ack_cb, ctl);
	nl_cb_set(ctl->cb, NL_CB_FINISH, NL_CB_CUSTOM, nc_finish_cb, ctl);
	nl_cb_err(ctl->cb, NL_CB_CUSTOM, nc_error_cb, ctl);
	*pctl = ctl;
	return 0;
fail:
	nc_ctl_close(ctl);
	return err;
}

void nc_ctl_close(nc_ctl *ctl)
{
	if (!ctl)
		return;
	nl_socket_free(ctl->ev_sk);
	nl_socket_free(ctl->sk);
	nl_cb_put(ctl->cb);
	free(ctl);
}

const char *nc_ctl_last_error(nc_ctl *ctl)
{
	return ctl && ctl->errmsg[0] ? ctl->errmsg : NULL;
}

/* ---------------------------------------------------------------- */
/* Devices                                                           */
/* ---------------------------------------------------------------- */

static int nc_dev_cmd(nc_ctl *ctl, uint8_t cmd, const char *ifname)
{
	struct nl_msg *msg;

	if (!ctl || nc_check_ifname(ifname))
		return -EINVAL;
	msg = nc_msg(ctl, cmd, 0, 0);
	if (!msg)
		return -ENOMEM;
	if (nla_put_string(msg, NETCOLL_A_IFNAME, ifname) < 0) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return nc_nl_request(ctl, msg, NULL, NULL);
}

int nc_dev_attach(nc_ctl *ctl, const char *ifname)
{
	return nc_dev_cmd(ctl, NETCOLL_CMD_DEV_ATTACH, ifname);
}

int nc_dev_detach(nc_ctl *ctl, const char *ifname)
{
	return nc_dev_cmd(ctl, NETCOLL_CMD_DEV_DETACH, ifname);
}

static int nc_parse_dev(nc_ctl *ctl, struct nlattr **tb, void *arg)
{
	struct nc_dev_info *d;

	if (MISSING(ctl, tb, NETCOLL_A_IFINDEX) ||
	    MISSING(ctl, tb, NETCOLL_A_IFNAME) ||
	    MISSING(ctl, tb, NETCOLL_A_BEARER) ||
	    MISSING(ctl, tb, NETCOLL_A_MTU) ||
	    MISSING(ctl, tb, NETCOLL_A_HWADDR))
		return -NC_EPROTO;
	d = nc_vec_push(arg);
	if (!d)
		return -ENOMEM;
	d->ifindex = nla_get_u32(tb[NETCOLL_A_IFINDEX]);
	nla_strlcpy(d->ifname, tb[NETCOLL_A_IFNAME], sizeof(d->ifname));
	nla_strlcpy(d->bearer, tb[NETCOLL_A_BEARER], sizeof(d->bearer));
	d->mtu = nla_get_u32(tb[NETCOLL_A_MTU]);
	d->addr_len = nla_len(tb[NETCOLL_A_HWADDR]);
	memcpy(d->addr, nla_data(tb[NETCOLL_A_HWADDR]), d->addr_len);
	return 0;
}

int nc_dev_list(nc_ctl *ctl, const char *ifname, struct nc_dev_info **devs,
		size_t *ndevs)
{
	struct nc_vec v = { .size = sizeof(struct nc_dev_info) };
	struct nl_msg *msg;
	int err, tries = 0;

	if (!ctl || !devs || !ndevs || (ifname && nc_check_ifname(ifname)))
		return -EINVAL;
	*devs = NULL;
	*ndevs = 0;
again:
	msg = nc_msg(ctl, NETCOLL_CMD_DEV_GET, ifname ? 0 : NLM_F_DUMP, 0);
	if (!msg)
		return -ENOMEM;
	if (ifname && nla_put_string(msg, NETCOLL_A_IFNAME, ifname) < 0) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	err = nc_nl_request(ctl, msg, nc_parse_dev, &v);
	if (!err && ifname && v.n != 1)
		err = nc_proto(ctl, "%zu answers to a single device request", v.n);
	if (err) {
		free(v.items);
		/* a device came or went during the dump (NLM_F_DUMP_INTR) */
		if (err == -EAGAIN && !ifname && ++tries < NC_DUMP_TRIES) {
			v = (struct nc_vec){ .size = sizeof(struct nc_dev_info) };
			goto again;
		}
		return err;
	}
	*devs = v.items;
	*ndevs = v.n;
	return 0;
}

int nc_dev_set_user(nc_ctl *ctl, const char *ifname,
		    const struct nc_dev_user *u, uint32_t fields)
{
	struct nl_msg *msg;

	if (!ctl || !u || nc_check_ifname(ifname) ||
	    (fields & ~(uint32_t)(NC_DEV_USER_COMMS | NC_DEV_USER_COMMS_MAX |
				  NC_DEV_USER_MEM_MAX)) ||
	    ((fields & NC_DEV_USER_COMMS_MAX) &&
	     (u->comms_max < 1 || u->comms_max > NETCOLL_USER_COMMS_MAX)) ||
	    ((fields & NC_DEV_USER_MEM_MAX) && u->mem_max > INT32_MAX))
		return -EINVAL;
	msg = nc_msg(ctl, NETCOLL_CMD_DEV_SET, 0, 0);
	if (!msg)
		return -ENOMEM;
	if (nla_put_string(msg, NETCOLL_A_IFNAME, ifname) < 0 ||
	    ((fields & NC_DEV_USER_COMMS) &&
	     nla_put_u8(msg, NETCOLL_A_DEV_USER_COMMS, !!u->comms) < 0) ||
	    ((fields & NC_DEV_USER_COMMS_MAX) &&
	     nla_put_u32(msg, NETCOLL_A_DEV_USER_COMMS_MAX, u->comms_max) < 0) ||
	    ((fields & NC_DEV_USER_MEM_MAX) &&
	     nla_put_u32(msg, NETCOLL_A_DEV_USER_MEM_MAX, u->mem_max) < 0)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return nc_nl_request(ctl, msg, NULL, NULL);
}

static int nc_parse_dev_user(nc_ctl *ctl, struct nlattr **tb, void *arg)
{
	struct nc_dev_user *u = arg;

	if (!tb[NETCOLL_A_DEV_USER_COMMS] || !tb[NETCOLL_A_DEV_USER_COMMS_MAX] ||
	    !tb[NETCOLL_A_DEV_USER_MEM_MAX]) {
		nc_ctl_seterr(ctl, "the module does not know users' communicators");
		return -EOPNOTSUPP;
	}
	u->comms = nla_get_u8(tb[NETCOLL_A_DEV_USER_COMMS]);
	u->comms_max = nla_get_u32(tb[NETCOLL_A_DEV_USER_COMMS_MAX]);
	u->mem_max = nla_get_u32(tb[NETCOLL_A_DEV_USER_MEM_MAX]);
	return 0;
}

int nc_dev_get_user(nc_ctl *ctl, const char *ifname, struct nc_dev_user *u)
{
	struct nl_msg *msg;

	if (!ctl || !u || nc_check_ifname(ifname))
		return -EINVAL;
	msg = nc_msg(ctl, NETCOLL_CMD_DEV_GET, 0, 0);
	if (!msg)
		return -ENOMEM;
	if (nla_put_string(msg, NETCOLL_A_IFNAME, ifname) < 0) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return nc_nl_request(ctl, msg, nc_parse_dev_user, u);
}

/* ---------------------------------------------------------------- */
/* Communicators                                                     */
/* ---------------------------------------------------------------- */

int nc_comm_create(nc_ctl *ctl, const struct nc_comm_spec *s)
{
	struct nlattr *members, *m;
	struct nl_msg *msg;
	uint32_t alen, r;
	size_t size;

	if (!ctl || nc_check_comm_spec(s))
		return -EINVAL;
	alen = s->members[0].addr_len;
	size = NLMSG_HDRLEN + GENL_HDRLEN + 256 +
	       (size_t)s->size * (size_t)(nla_total_size(0) + nla_total_size(4) +
					  nla_total_size(alen));
	msg = nc_msg(ctl, NETCOLL_CMD_COMM_NEW, 0, size);
	if (!msg)
		return -ENOMEM;
	if (nla_put_u32(msg, NETCOLL_A_COMM_ID, s->id) < 0 ||
	    nla_put_string(msg, NETCOLL_A_IFNAME, s->ifname) < 0 ||
	    nla_put_u32(msg, NETCOLL_A_COMM_RANK, s->rank) < 0)
		goto too_big;
	members = nla_nest_start(msg, NETCOLL_A_COMM_MEMBERS);
	if (!members)
		goto too_big;
	for (r = 0; r < s->size; r++) {
		m = nla_nest_start(msg, NETCOLL_A_MEMBER);
		if (!m || nla_put_u32(msg, NETCOLL_A_MEMBER_RANK, r) < 0 ||
		    nla_put(msg, NETCOLL_A_MEMBER_ADDR, alen,
			    s->members[r].addr) < 0 ||
		    nla_nest_end(msg, m) < 0)
			goto too_big;
	}
	/* nla_len is 16 bits: a nest holds at most 64 KiB of members. */
	if (nla_nest_end(msg, members) < 0) {
		snprintf(ctl->errmsg, sizeof(ctl->errmsg),
			 "%u members exceed the 64 KiB netlink attribute limit",
			 s->size);
		goto too_big;
	}
	if ((s->cookie && nla_put_u64(msg, NETCOLL_A_COMM_COOKIE, s->cookie) < 0) ||
	    (s->timeout_ms &&
	     nla_put_u32(msg, NETCOLL_A_COMM_TIMEOUT_MS, s->timeout_ms) < 0) ||
	    (s->oso && nla_put_u32(msg, NETCOLL_A_COMM_OSO, s->oso) < 0) ||
	    (s->tree_degree &&
	     nla_put_u32(msg, NETCOLL_A_COMM_TREE_DEGREE, s->tree_degree) < 0) ||
	    (s->mcast_addr &&
	     nla_put(msg, NETCOLL_A_COMM_MCAST_ADDR, s->mcast_addr_len,
		     s->mcast_addr) < 0) ||
	    ((s->flags & NC_COMM_SPEC_OWNER) &&
	     nla_put_u32(msg, NETCOLL_A_COMM_OWNER, s->owner) < 0) ||
	    ((s->flags & NC_COMM_SPEC_GROUP) &&
	     nla_put_u32(msg, NETCOLL_A_COMM_GROUP, s->group) < 0) ||
	    ((s->flags & NC_COMM_SPEC_KEY) &&
	     nla_put(msg, NETCOLL_A_COMM_KEY, s->key_len, s->key) < 0) ||
	    ((s->flags & NC_COMM_SPEC_MEM) &&
	     nla_put_u32(msg, NETCOLL_A_COMM_MEM_MAX, s->mem_max) < 0) ||
	    ((s->flags & NC_COMM_SPEC_RX_MEM) &&
	     nla_put_u32(msg, NETCOLL_A_COMM_RX_MEM_MAX, s->rx_mem_max) < 0) ||
	    ((s->flags & NC_COMM_SPEC_TRANSIENT) &&
	     nla_put_u8(msg, NETCOLL_A_COMM_TRANSIENT, 1) < 0))
		goto too_big;
	return nc_nl_request(ctl, msg, NULL, NULL);
too_big:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

void nc_ctl_set_rank(nc_ctl *ctl, uint32_t rank)
{
	if (ctl)
		ctl->rank = rank;
}

/* COMM_ID, and COMM_RANK if ctl names one (nc_ctl_set_rank). */
int nc_put_comm(nc_ctl *ctl, struct nl_msg *msg, uint32_t id)
{
	if (nla_put_u32(msg, NETCOLL_A_COMM_ID, id) < 0 ||
	    (ctl->rank != NC_RANK_NONE &&
	     nla_put_u32(msg, NETCOLL_A_COMM_RANK, ctl->rank) < 0))
		return -EMSGSIZE;
	return 0;
}

int nc_request_comm(nc_ctl *ctl, uint8_t cmd, uint32_t id)
{
	struct nl_msg *msg;

	if (!ctl || nc_check_comm_id(id))
		return -EINVAL;
	msg = nc_msg(ctl, cmd, 0, 0);
	if (!msg)
		return -ENOMEM;
	if (nc_put_comm(ctl, msg, id) < 0) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return nc_nl_request(ctl, msg, NULL, NULL);
}

int nc_comm_delete(nc_ctl *ctl, uint32_t id)
{
	return nc_request_comm(ctl, NETCOLL_CMD_COMM_DEL, id);
}

int nc_comm_delete_rank(nc_ctl *ctl, uint32_t id, uint32_t rank)
{
	uint32_t named;
	int err;

	if (!ctl)
		return -EINVAL;
	named = ctl->rank;
	ctl->rank = rank;
	err = nc_comm_delete(ctl, id);
	ctl->rank = named;
	return err;
}

/*
 * COMM_GET for communicator id; fn sees the answer and counts it in *got
 * (exactly one is expected).
 */
static int nc_comm_get_with(nc_ctl *ctl, uint32_t id, nc_reply_fn fn,
			    void *arg, const int *got)
{
	struct nl_msg *msg;
	int err;

	msg = nc_msg(ctl, NETCOLL_CMD_COMM_GET, 0, 0);
	if (!msg)
		return -ENOMEM;
	if (nc_put_comm(ctl, msg, id) < 0) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	err = nc_nl_request(ctl, msg, fn, arg);
	if (!err && !*got)
		err = nc_proto(ctl, "no answer to a communicator request");
	return err;
}

struct nc_rtt_pair {
	struct nc_rtt *alltoall, *agg;
	int got;
};

static int nc_parse_rtt(nc_ctl *ctl, struct nlattr *nest, struct nc_rtt *r)
{
	static struct nla_policy pol[NETCOLL_A_RTT_MAX + 1] = {
		[NETCOLL_A_RTT_SRTT_US]		= { .type = NLA_U32 },
		[NETCOLL_A_RTT_RTTVAR_US]	= { .type = NLA_U32 },
		[NETCOLL_A_RTT_RTO_US]		= { .type = NLA_U32 },
	};
	struct nlattr *tb[NETCOLL_A_RTT_MAX + 1];

	if (nla_parse_nested(tb, NETCOLL_A_RTT_MAX, nest, pol) < 0 ||
	    !tb[NETCOLL_A_RTT_SRTT_US] || !tb[NETCOLL_A_RTT_RTTVAR_US] ||
	    !tb[NETCOLL_A_RTT_RTO_US])
		return nc_proto(ctl, "a malformed round-trip estimate");
	r->srtt_us = nla_get_u32(tb[NETCOLL_A_RTT_SRTT_US]);
	r->rttvar_us = nla_get_u32(tb[NETCOLL_A_RTT_RTTVAR_US]);
	r->rto_us = nla_get_u32(tb[NETCOLL_A_RTT_RTO_US]);
	return 0;
}

static int nc_parse_comm_rtt(nc_ctl *ctl, struct nlattr **tb, void *arg)
{
	struct nc_rtt_pair *p = arg;
	int err;

	if (p->got++)
		return nc_proto(ctl, "more than one answer to a single communicator request");
	if (!tb[NETCOLL_A_COMM_RTT] || !tb[NETCOLL_A_COMM_AGG_RTT]) {
		nc_ctl_seterr(ctl, "the module does not report round trips");
		return -EOPNOTSUPP;
	}
	err = nc_parse_rtt(ctl, tb[NETCOLL_A_COMM_RTT], p->alltoall);
	return err ? err : nc_parse_rtt(ctl, tb[NETCOLL_A_COMM_AGG_RTT], p->agg);
}

int nc_comm_get_rtt(nc_ctl *ctl, uint32_t id, struct nc_rtt *alltoall,
		    struct nc_rtt *agg)
{
	struct nc_rtt_pair p = { alltoall, agg, 0 };

	if (!ctl || !alltoall || !agg || nc_check_comm_id(id))
		return -EINVAL;
	memset(alltoall, 0, sizeof(*alltoall));
	memset(agg, 0, sizeof(*agg));
	return nc_comm_get_with(ctl, id, nc_parse_comm_rtt, &p, &p.got);
}

struct nc_mem_answer {
	struct nc_comm_mem *mem;
	int got;
};

static int nc_parse_comm_mem(nc_ctl *ctl, struct nlattr **tb, void *arg)
{
	struct nc_mem_answer *a = arg;

	if (a->got++)
		return nc_proto(ctl, "more than one answer to a single communicator request");
	if (!tb[NETCOLL_A_COMM_MEM_USED] || !tb[NETCOLL_A_COMM_RX_MEM_USED] ||
	    !tb[NETCOLL_A_COMM_INSTALLED_MEM]) {
		nc_ctl_seterr(ctl, "the module does not report memory in use");
		return -EOPNOTSUPP;
	}
	a->mem->mem_used = nla_get_u64(tb[NETCOLL_A_COMM_MEM_USED]);
	a->mem->rx_mem_used = nla_get_u64(tb[NETCOLL_A_COMM_RX_MEM_USED]);
	a->mem->installed = nla_get_u32(tb[NETCOLL_A_COMM_INSTALLED_MEM]);
	return 0;
}

int nc_comm_get_mem(nc_ctl *ctl, uint32_t id, struct nc_comm_mem *mem)
{
	struct nc_mem_answer a = { mem, 0 };

	if (!ctl || !mem || nc_check_comm_id(id))
		return -EINVAL;
	memset(mem, 0, sizeof(*mem));
	return nc_comm_get_with(ctl, id, nc_parse_comm_mem, &a, &a.got);
}

/* Members arrive as one nest per rank, in any order; each rank once. */
static int nc_parse_members_attr(nc_ctl *ctl, struct nlattr *nest,
				 struct nc_comm_info *c)
{
	struct nlattr *tb[NETCOLL_A_MEMBER_MAX + 1], *pos;
	struct nc_member *m;
	uint32_t n = 0, r;
	int rem, err;

	m = calloc(c->size, sizeof(*m));
	if (!m)
		return -ENOMEM;
	nla_for_each_nested(pos, nest, rem) {
		if (nla_type(pos) != NETCOLL_A_MEMBER)
			continue;
		if (nla_parse_nested(tb, NETCOLL_A_MEMBER_MAX, pos,
				     nc_member_policy) < 0 ||
		    !tb[NETCOLL_A_MEMBER_RANK] || !tb[NETCOLL_A_MEMBER_ADDR]) {
			err = nc_proto(ctl, "communicator %u: malformed member",
				       c->id);
			goto fail;
		}
		r = nla_get_u32(tb[NETCOLL_A_MEMBER_RANK]);
		if (r >= c->size || m[r].addr_len) {
			err = nc_proto(ctl, "communicator %u: member rank %u repeated or out of range",
				       c->id, r);
			goto fail;
		}
		m[r].addr_len = nla_len(tb[NETCOLL_A_MEMBER_ADDR]);
		memcpy(m[r].addr, nla_data(tb[NETCOLL_A_MEMBER_ADDR]),
		       m[r].addr_len);
		n++;
	}
	if (n != c->size) {
		err = nc_proto(ctl, "communicator %u: %u members for size %u",
			       c->id, n, c->size);
		goto fail;
	}
	c->members = m;
	return 0;
fail:
	free(m);
	return err;
}

static int nc_parse_comm(nc_ctl *ctl, struct nlattr **tb,
			 struct nc_comm_info *c, int with_members)
{
	if (MISSING(ctl, tb, NETCOLL_A_COMM_ID) ||
	    MISSING(ctl, tb, NETCOLL_A_IFINDEX) ||
	    MISSING(ctl, tb, NETCOLL_A_COMM_RANK) ||
	    MISSING(ctl, tb, NETCOLL_A_COMM_SIZE) ||
	    MISSING(ctl, tb, NETCOLL_A_COMM_TIMEOUT_MS) ||
	    MISSING(ctl, tb, NETCOLL_A_COMM_OP_SEQ) ||
	    MISSING(ctl, tb, NETCOLL_A_COMM_BOUND))
		return -NC_EPROTO;
	c->id = nla_get_u32(tb[NETCOLL_A_COMM_ID]);
	c->ifindex = nla_get_u32(tb[NETCOLL_A_IFINDEX]);
	c->rank = nla_get_u32(tb[NETCOLL_A_COMM_RANK]);
	c->size = nla_get_u32(tb[NETCOLL_A_COMM_SIZE]);
	/* Only the owner and the admin see the cookie and the epoch. */
	c->secrets = tb[NETCOLL_A_COMM_COOKIE] != NULL;
	if (tb[NETCOLL_A_COMM_COOKIE])
		c->cookie = nla_get_u64(tb[NETCOLL_A_COMM_COOKIE]);
	if (tb[NETCOLL_A_COMM_EPOCH])
		c->epoch = nla_get_u64(tb[NETCOLL_A_COMM_EPOCH]);
	c->group = -1;
	c->owner = NC_OWNER_NONE;
	if (tb[NETCOLL_A_COMM_OWNER])
		c->owner = nla_get_u32(tb[NETCOLL_A_COMM_OWNER]);
	if (tb[NETCOLL_A_COMM_GROUP])
		c->group = nla_get_u32(tb[NETCOLL_A_COMM_GROUP]);
	if (tb[NETCOLL_A_COMM_AUTH])
		c->auth = nla_get_u8(tb[NETCOLL_A_COMM_AUTH]) != 0;
	if (tb[NETCOLL_A_COMM_STATE])
		c->state = nla_get_u32(tb[NETCOLL_A_COMM_STATE]);
	if (tb[NETCOLL_A_COMM_MEM_MAX])
		c->mem_max = nla_get_u32(tb[NETCOLL_A_COMM_MEM_MAX]);
	if (tb[NETCOLL_A_COMM_RX_MEM_MAX])
		c->rx_mem_max = nla_get_u32(tb[NETCOLL_A_COMM_RX_MEM_MAX]);
	c->timeout_ms = nla_get_u32(tb[NETCOLL_A_COMM_TIMEOUT_MS]);
	c->op_seq = nla_get_u32(tb[NETCOLL_A_COMM_OP_SEQ]);
	c->bound = nla_get_u8(tb[NETCOLL_A_COMM_BOUND]) != 0;
	if (tb[NETCOLL_A_SCHED_PHASES])
		c->sched_phases = nla_get_u32(tb[NETCOLL_A_SCHED_PHASES]);
	if (tb[NETCOLL_A_SCHED_SYNCS])
		c->sched_syncs = nla_get_u32(tb[NETCOLL_A_SCHED_SYNCS]);
	/* Absent from modules without aggregation trees: left 0. */
	if (tb[NETCOLL_A_COMM_OSO])
		c->oso = nla_get_u32(tb[NETCOLL_A_COMM_OSO]);
	if (tb[NETCOLL_A_COMM_AGG_SEQ])
		c->agg_seq = nla_get_u32(tb[NETCOLL_A_COMM_AGG_SEQ]);
	if (tb[NETCOLL_A_COMM_TREE_DEGREE])
		c->tree_degree = nla_get_u32(tb[NETCOLL_A_COMM_TREE_DEGREE]);
	if (tb[NETCOLL_A_COMM_MCAST_ADDR]) {
		c->mcast_addr_len = nla_len(tb[NETCOLL_A_COMM_MCAST_ADDR]);
		memcpy(c->mcast_addr, nla_data(tb[NETCOLL_A_COMM_MCAST_ADDR]),
		       c->mcast_addr_len);
	}
	if (c->size == 0 || c->size > NETCOLL_COMM_SIZE_MAX || c->rank >= c->size)
		return nc_proto(ctl, "communicator %u: rank %u of size %u",
				c->id, c->rank, c->size);
	if (!with_members)
		return 0;
	if (MISSING(ctl, tb, NETCOLL_A_COMM_MEMBERS))
		return -NC_EPROTO;
	return nc_parse_members_attr(ctl, tb[NETCOLL_A_COMM_MEMBERS], c);
}

struct nc_one {
	void *out;
	int got;
};

static int nc_parse_comm_one(nc_ctl *ctl, struct nlattr **tb, void *arg)
{
	struct nc_one *one = arg;

	if (one->got++)
		return nc_proto(ctl, "more than one answer to a single communicator request");
	return nc_parse_comm(ctl, tb, one->out, 1);
}

static int nc_parse_comm_dump(nc_ctl *ctl, struct nlattr **tb, void *arg)
{
	struct nc_comm_info *c = nc_vec_push(arg);

	return c ? nc_parse_comm(ctl, tb, c, 0) : -ENOMEM;
}

int nc_comm_get(nc_ctl *ctl, uint32_t id, struct nc_comm_info *info)
{
	struct nc_one one = { .out = info };
	int err;

	if (!ctl || !info || nc_check_comm_id(id))
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	err = nc_comm_get_with(ctl, id, nc_parse_comm_one, &one, &one.got);
	if (err)
		nc_comm_info_free(info);
	return err;
}

void nc_comm_info_free(struct nc_comm_info *info)
{
	if (!info)
		return;
	free(info->members);
	info->members = NULL;
}

int nc_comm_list(nc_ctl *ctl, struct nc_comm_info **comms, size_t *ncomms)
{
	struct nc_vec v = { .size = sizeof(struct nc_comm_info) };
	struct nl_msg *msg;
	int err;

	if (!ctl || !comms || !ncomms)
		return -EINVAL;
	*comms = NULL;
	*ncomms = 0;
	msg = nc_msg(ctl, NETCOLL_CMD_COMM_GET, NLM_F_DUMP, 0);
	if (!msg)
		return -ENOMEM;
	err = nc_nl_request(ctl, msg, nc_parse_comm_dump, &v);
	if (err) {
		free(v.items);
		return err;
	}
	*comms = v.items;
	*ncomms = v.n;
	return 0;
}

/* ---------------------------------------------------------------- */
/* Aggregation trees                                                 */
/* ---------------------------------------------------------------- */

/* COMM_ID and TREE_INDEX: the start of every tree request. */
static struct nl_msg *nc_tree_msg(nc_ctl *ctl, uint8_t cmd, uint32_t comm_id,
				  uint32_t index, size_t size)
{
	struct nl_msg *msg = nc_msg(ctl, cmd, 0, size);

	if (!msg)
		return NULL;
	if (nc_put_comm(ctl, msg, comm_id) < 0 ||
	    nla_put_u32(msg, NETCOLL_A_TREE_INDEX, index) < 0) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

int nc_tree_install(nc_ctl *ctl, uint32_t comm_id, uint32_t index,
		    const uint32_t *parents, uint32_t size)
{
	size_t bytes = (size_t)size * sizeof(*parents);
	struct nl_msg *msg;

	if (!ctl || nc_check_comm_id(comm_id) || index >= NC_TREES_MAX ||
	    nc_check_tree(parents, size))
		return -EINVAL;
	msg = nc_tree_msg(ctl, NETCOLL_CMD_TREE_SET, comm_id, index,
			  NLMSG_HDRLEN + GENL_HDRLEN + 64 + nla_total_size(bytes));
	if (!msg)
		return -ENOMEM;
	if (nla_put(msg, NETCOLL_A_TREE_PARENTS, (int)bytes, parents) < 0) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return nc_nl_request(ctl, msg, NULL, NULL);
}

int nc_tree_remove(nc_ctl *ctl, uint32_t comm_id, uint32_t index)
{
	struct nl_msg *msg;

	if (!ctl || nc_check_comm_id(comm_id) || index >= NC_TREES_MAX)
		return -EINVAL;
	msg = nc_tree_msg(ctl, NETCOLL_CMD_TREE_DEL, comm_id, index, 0);
	if (!msg)
		return -ENOMEM;
	return nc_nl_request(ctl, msg, NULL, NULL);
}

int nc_bcast_order_install(nc_ctl *ctl, uint32_t comm_id, const uint32_t *order,
			   uint32_t size)
{
	size_t bytes = (size_t)size * sizeof(*order);
	struct nl_msg *msg;

	if (!ctl || nc_check_comm_id(comm_id) || nc_check_order(order, size))
		return -EINVAL;
	msg = nc_msg(ctl, NETCOLL_CMD_TREE_SET, 0,
		     NLMSG_HDRLEN + GENL_HDRLEN + 64 + nla_total_size(bytes));
	if (!msg)
		return -ENOMEM;
	if (nc_put_comm(ctl, msg, comm_id) < 0 ||
	    nla_put(msg, NETCOLL_A_TREE_BCAST_ORDER, (int)bytes, order) < 0) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return nc_nl_request(ctl, msg, NULL, NULL);
}

/* COMM_ID and TREE_BCAST: the broadcast order's requests. */
static struct nl_msg *nc_bcast_msg(nc_ctl *ctl, uint8_t cmd, uint32_t comm_id)
{
	struct nl_msg *msg = nc_msg(ctl, cmd, 0, 0);

	if (!msg)
		return NULL;
	if (nc_put_comm(ctl, msg, comm_id) < 0 ||
	    nla_put_flag(msg, NETCOLL_A_TREE_BCAST) < 0) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

int nc_bcast_order_remove(nc_ctl *ctl, uint32_t comm_id)
{
	struct nl_msg *msg;

	if (!ctl || nc_check_comm_id(comm_id))
		return -EINVAL;
	msg = nc_bcast_msg(ctl, NETCOLL_CMD_TREE_DEL, comm_id);
	if (!msg)
		return -ENOMEM;
	return nc_nl_request(ctl, msg, NULL, NULL);
}

static int nc_parse_tree(nc_ctl *ctl, struct nlattr **tb, void *arg)
{
	struct nc_one *one = arg;
	struct nc_tree_info *t = one->out;
	struct nlattr *kids = tb[NETCOLL_A_TREE_CHILDREN];
	int len = kids ? nla_len(kids) : 0;

	if (one->got++)
		return nc_proto(ctl, "more than one answer to a tree request");
	if (MISSING(ctl, tb, NETCOLL_A_TREE_INDEX) ||
	    MISSING(ctl, tb, NETCOLL_A_TREE_ROOT) ||
	    MISSING(ctl, tb, NETCOLL_A_TREE_PARENT) ||
	    MISSING(ctl, tb, NETCOLL_A_TREE_INSTALLED))
		return -NC_EPROTO;
	if (len % sizeof(uint32_t))
		return nc_proto(ctl, "tree children: %d bytes, not a __u32 array", len);
	t->index = nla_get_u32(tb[NETCOLL_A_TREE_INDEX]);
	t->root = nla_get_u32(tb[NETCOLL_A_TREE_ROOT]);
	t->parent = nla_get_u32(tb[NETCOLL_A_TREE_PARENT]);
	t->installed = nla_get_u8(tb[NETCOLL_A_TREE_INSTALLED]) != 0;
	/* A leaf may get an empty attribute or none. */
	if (len) {
		t->children = malloc(len);
		if (!t->children)
			return -ENOMEM;
		memcpy(t->children, nla_data(kids), len);
		t->nchildren = len / sizeof(uint32_t);
	}
	return 0;
}

/* Send a tree request (msg, consumed) and parse its one answer into info. */
static int nc_tree_request(nc_ctl *ctl, struct nl_msg *msg,
			   struct nc_tree_info *info)
{
	struct nc_one one = { .out = info };
	int err;

	err = nc_nl_request(ctl, msg, nc_parse_tree, &one);
	if (!err && !one.got)
		err = nc_proto(ctl, "no answer to a tree request");
	return err;
}

int nc_tree_get(nc_ctl *ctl, uint32_t comm_id, uint32_t index,
		struct nc_tree_info *info)
{
	struct nl_msg *msg;
	int err;

	if (!ctl || !info || nc_check_comm_id(comm_id) || index >= NC_TREES_MAX)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	msg = nc_tree_msg(ctl, NETCOLL_CMD_TREE_GET, comm_id, index, 0);
	if (!msg)
		return -ENOMEM;
	err = nc_tree_request(ctl, msg, info);
	if (!err && info->index != index)
		err = nc_proto(ctl, "asked for tree %u, got tree %u", index,
			       info->index);
	if (err)
		nc_tree_info_free(info);
	return err;
}

int nc_bcast_tree_get(nc_ctl *ctl, uint32_t comm_id, uint32_t root,
		      struct nc_tree_info *info)
{
	struct nl_msg *msg;
	int err;

	if (!ctl || !info || nc_check_comm_id(comm_id) ||
	    root >= NETCOLL_COMM_SIZE_MAX)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	msg = nc_bcast_msg(ctl, NETCOLL_CMD_TREE_GET, comm_id);
	if (!msg)
		return -ENOMEM;
	if (nla_put_u32(msg, NETCOLL_A_TREE_ROOT, root) < 0) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	err = nc_tree_request(ctl, msg, info);
	if (!err && info->root != root)
		err = nc_proto(ctl, "asked for the broadcast tree from %u, got one from %u",
			       root, info->root);
	if (err)
		nc_tree_info_free(info);
	return err;
}

void nc_tree_info_free(struct nc_tree_info *info)
{
	if (!info)
		return;
	free(info->children);
	info->children = NULL;
	info->nchildren = 0;
}

/* ---------------------------------------------------------------- */
/* Statistics                                                        */
/* ---------------------------------------------------------------- */

static int nc_parse_stats(nc_ctl *ctl, struct nlattr **tb, void *arg)
{
	struct nlattr *st[NC_STAT_MAX];
	struct nc_one *one = arg;
	struct nc_stats *stats = one->out;
	unsigned int i;

	if (one->got++)
		return nc_proto(ctl, "more than one answer to a statistics request");
	if (MISSING(ctl, tb, NETCOLL_A_STATS))
		return -NC_EPROTO;
	if (nla_parse_nested(st, NC_STAT_MAX - 1, tb[NETCOLL_A_STATS],
			     nc_stats_policy) < 0)
		return nc_proto(ctl, "malformed statistics");
	for (i = NETCOLL_STAT_TX_FRAMES; i < NC_STAT_MAX; i++) {
		if (!st[i])
			continue;
		stats->value[i] = nla_get_u64(st[i]);
		stats->count = i + 1;
	}
	return 0;
}

int nc_stats_get(nc_ctl *ctl, struct nc_stats *stats)
{
	struct nc_one one = { .out = stats };
	struct nl_msg *msg;
	int err;

	if (!ctl || !stats)
		return -EINVAL;
	memset(stats, 0, sizeof(*stats));
	msg = nc_msg(ctl, NETCOLL_CMD_STATS_GET, 0, 0);
	if (!msg)
		return -ENOMEM;
	err = nc_nl_request(ctl, msg, nc_parse_stats, &one);
	if (!err && !one.got)
		err = nc_proto(ctl, "no answer to a statistics request");
	return err;
}

/* ---------------------------------------------------------------- */
/* Events                                                            */
/* ---------------------------------------------------------------- */

/*
 * The kernel multicasts one event per datagram, so the callback stops at
 * the first one and nc_event_wait() hands it out.
 */
static int nc_event_cb(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *tb[NETCOLL_A_MAX + 1];
	struct nc_event *ev;
	nc_ctl *ctl = arg;
	int err;

	if (nlh->nlmsg_type != ctl->family || !genlmsg_valid_hdr(nlh, 0))
		return NL_SKIP;
	ev = &ctl->ev;
	memset(ev, 0, sizeof(*ev));
	ev->peer_rank = UINT32_MAX;
	switch (genlmsg_hdr(nlh)->cmd) {
	case NETCOLL_CMD_EVENT_OP_FAILED:
		ev->type = NC_EVENT_OP_FAILED;
		break;
	case NETCOLL_CMD_EVENT_DEV_DETACHED:
		ev->type = NC_EVENT_DEV_DETACHED;
		break;
	default:
		return NL_SKIP;		/* an event kind newer than us */
	}
	if (genlmsg_parse(nlh, 0, tb, NETCOLL_A_MAX, nc_policy) < 0) {
		err = nc_proto(ctl, "event does not match the attribute policy");
	} else if (ev->type == NC_EVENT_OP_FAILED) {
		err = MISSING(ctl, tb, NETCOLL_A_COMM_ID) ||
		      MISSING(ctl, tb, NETCOLL_A_OP_SEQ) ||
		      MISSING(ctl, tb, NETCOLL_A_ERRNO) ? -NC_EPROTO : 0;
	} else {
		err = MISSING(ctl, tb, NETCOLL_A_IFINDEX) ||
		      MISSING(ctl, tb, NETCOLL_A_IFNAME) ||
		      MISSING(ctl, tb, NETCOLL_A_ERRNO) ? -NC_EPROTO : 0;
	}
	if (err) {
		ctl->ev_error = err;
		return NL_STOP;
	}
	ev->error = nla_get_s32(tb[NETCOLL_A_ERRNO]);
	if (tb[NETCOLL_A_COMM_ID])
		ev->comm_id = nla_get_u32(tb[NETCOLL_A_COMM_ID]);
	if (tb[NETCOLL_A_OP_SEQ])
		ev->op_seq = nla_get_u32(tb[NETCOLL_A_OP_SEQ]);
	if (tb[NETCOLL_A_PEER_RANK])
		ev->peer_rank = nla_get_u32(tb[NETCOLL_A_PEER_RANK]);
	if (tb[NETCOLL_A_IFINDEX])
		ev->ifindex = nla_get_u32(tb[NETCOLL_A_IFINDEX]);
	if (tb[NETCOLL_A_IFNAME])
		nla_strlcpy(ev->ifname, tb[NETCOLL_A_IFNAME], sizeof(ev->ifname));
	ctl->ev_ready = 1;
	return NL_STOP;
}

int nc_ctl_subscribe(nc_ctl *ctl)
{
	struct nl_sock *sk;
	int grp, err;

	if (!ctl)
		return -EINVAL;
	if (ctl->ev_sk)
		return 0;
	ctl->errmsg[0] = '\0';
	grp = genl_ctrl_resolve_grp(ctl->sk, NETCOLL_GENL_NAME,
				    NETCOLL_GENL_MCGRP_EVENTS);
	if (grp < 0)	/* the family is there (nc_ctl_open), the group not */
		return grp == -NLE_OBJ_NOTFOUND ? -NC_EABI : nc_nlerr(grp);
	sk = nl_socket_alloc();
	if (!sk)
		return -ENOMEM;
	/* Multicast messages answer no request: no sequence to check. */
	nl_socket_disable_seq_check(sk);
	err = nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, nc_event_cb, ctl);
	if (err >= 0)
		err = genl_connect(sk);
	if (err >= 0)
		err = nl_socket_add_membership(sk, grp);
	if (err < 0) {
		nl_socket_free(sk);
		return nc_nlerr(err);
	}
	ctl->ev_sk = sk;
	return 0;
}

static long long nc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int nc_event_wait(nc_ctl *ctl, struct nc_event *ev, int timeout_ms)
{
	long long deadline = 0, left;
	struct pollfd pfd;
	int err;

	if (!ctl || !ev || !ctl->ev_sk)
		return -EINVAL;
	if (timeout_ms >= 0)
		deadline = nc_now_ms() + timeout_ms;
	pfd.fd = nl_socket_get_fd(ctl->ev_sk);
	pfd.events = POLLIN;
	for (;;) {
		left = -1;
		if (timeout_ms >= 0) {
			left = deadline - nc_now_ms();
			if (left < 0)
				left = 0;
		}
		err = poll(&pfd, 1, (int)left);
		if (err < 0)
			return -errno;
		if (err == 0)
			return -ETIMEDOUT;
		ctl->ev_ready = 0;
		ctl->ev_error = 0;
		err = nl_recvmsgs_default(ctl->ev_sk);
		if (ctl->ev_error)
			return ctl->ev_error;
		if (ctl->ev_ready) {
			*ev = ctl->ev;
			return 0;
		}
		/* ENOBUFS from recvmsg: the group overran us, events were lost. */
		if (err == -NLE_NOMEM)
			return -ENOBUFS;
		if (err < 0)
			return nc_nlerr(err);
	}
}

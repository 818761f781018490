// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink family "netcoll": the family, its policies and command
 * table, the lookups every handler shares, statistics, and the events
 * group.  Every attribute is checked by a strict policy before a handler
 * runs; the handlers live next to their objects (bearer.c: devices,
 * comm.c: communicators, sched.c: alltoall slices, tree.c: aggregation
 * trees, as TIPC's bearer.c holds tipc_nl_bearer_*) and check what a
 * policy cannot (cross-attribute rules), saying why in the extended ack.
 * Devices and new communicators need CAP_NET_ADMIN; commands on one
 * communicator need its owner or that (access.c).
 */
#include <net/genetlink.h>
#include <net/sock.h>

#include "bearer.h"
#include "event.h"
#include "netlink.h"

enum nck_mcgrp { NCK_MCGRP_EVENTS };

/*
 * The events tell of every communicator's failures in the namespace,
 * other users' too: the admin's alone (CAP_NET_ADMIN over the
 * namespace; genl_bind() checks it).  A user learns of its own
 * operations' failures from their errno.
 */
static const struct genl_multicast_group nck_mcgrps[] = {
	[NCK_MCGRP_EVENTS] = { .name = NETCOLL_GENL_MCGRP_EVENTS,
			       .flags = GENL_MCAST_CAP_NET_ADMIN },
};

static struct netlink_range_validation nck_comm_id_range = {
	.min = 1,
	.max = NETCOLL_COMM_ID_MAX,
};

static struct netlink_range_validation nck_timeout_range = {
	.min = NETCOLL_TIMEOUT_MS_MIN,
	.max = NETCOLL_TIMEOUT_MS_MAX,
};

/* Memory limits: at least room for a few frames, at most 2 GiB - 1. */
static struct netlink_range_validation nck_mem_range = {
	.min = 64 << 10,
	.max = INT_MAX,
};

const struct nla_policy nck_member_policy[NETCOLL_A_MEMBER_MAX + 1] = {
	[NETCOLL_A_MEMBER_RANK] = NLA_POLICY_MAX(NLA_U32, NETCOLL_COMM_SIZE_MAX - 1),
	[NETCOLL_A_MEMBER_ADDR] = NLA_POLICY_RANGE(NLA_BINARY, 1, NETCOLL_ADDR_MAX),
};

static const struct nla_policy nck_members_policy[NETCOLL_A_MEMBERS_MAX + 1] = {
	[NETCOLL_A_MEMBER] = NLA_POLICY_NESTED(nck_member_policy),
};

static struct netlink_range_validation nck_phase_range = {
	.min = 0,
	.max = NETCOLL_SCHED_PHASE_MAX - 1,
};

const struct nla_policy nck_phase_policy[NETCOLL_A_PHASE_MAX + 1] = {
	[NETCOLL_A_PHASE_INDEX] = NLA_POLICY_FULL_RANGE(NLA_U32, &nck_phase_range),
	[NETCOLL_A_PHASE_SEND_TO] = NLA_POLICY_MAX(NLA_U32, NETCOLL_COMM_SIZE_MAX - 1),
	[NETCOLL_A_PHASE_RECV_FROM] = NLA_POLICY_MAX(NLA_U32, NETCOLL_COMM_SIZE_MAX - 1),
	[NETCOLL_A_PHASE_SYNC_IN] = NLA_POLICY_RANGE(NLA_BINARY, sizeof(__u32),
						     NETCOLL_SCHED_SYNC_MAX * sizeof(__u32)),
	[NETCOLL_A_PHASE_SYNC_OUT] = NLA_POLICY_RANGE(NLA_BINARY, sizeof(struct netcoll_sync_out),
						      NETCOLL_SCHED_SYNC_MAX *
						      sizeof(struct netcoll_sync_out)),
};

/* Attributes a request may carry; output-only ones are rejected. */
static const struct nla_policy nck_policy[NETCOLL_A_MAX + 1] = {
	[NETCOLL_A_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[NETCOLL_A_IFNAME] = { .type = NLA_NUL_STRING, .len = IFNAMSIZ - 1 },
	[NETCOLL_A_COMM_ID] = NLA_POLICY_FULL_RANGE(NLA_U32, &nck_comm_id_range),
	[NETCOLL_A_COMM_COOKIE] = { .type = NLA_U64 },
	[NETCOLL_A_COMM_RANK] = NLA_POLICY_MAX(NLA_U32, NETCOLL_COMM_SIZE_MAX - 1),
	[NETCOLL_A_COMM_MEMBERS] = NLA_POLICY_NESTED(nck_members_policy),
	[NETCOLL_A_COMM_TIMEOUT_MS] = NLA_POLICY_FULL_RANGE(NLA_U32, &nck_timeout_range),
	[NETCOLL_A_SCHED_PHASE] = NLA_POLICY_NESTED(nck_phase_policy),
	[NETCOLL_A_COMM_OSO] = NLA_POLICY_RANGE(NLA_U32, 1, NETCOLL_OSO_MAX),
	[NETCOLL_A_COMM_MCAST_ADDR] = NLA_POLICY_RANGE(NLA_BINARY, 1, NETCOLL_ADDR_MAX),
	[NETCOLL_A_COMM_TREE_DEGREE] = NLA_POLICY_RANGE(NLA_U32, 2, NETCOLL_TREE_DEGREE_MAX),
	[NETCOLL_A_TREE_INDEX] = NLA_POLICY_MAX(NLA_U32, NETCOLL_TREES_MAX - 1),
	[NETCOLL_A_TREE_PARENTS] = NLA_POLICY_RANGE(NLA_BINARY, sizeof(__u32),
						    NETCOLL_COMM_SIZE_MAX * sizeof(__u32)),
	[NETCOLL_A_TREE_ROOT] = NLA_POLICY_MAX(NLA_U32, NETCOLL_COMM_SIZE_MAX - 1),
	[NETCOLL_A_TREE_BCAST_ORDER] = NLA_POLICY_RANGE(NLA_BINARY, sizeof(__u32),
							NETCOLL_COMM_SIZE_MAX * sizeof(__u32)),
	[NETCOLL_A_TREE_BCAST] = { .type = NLA_FLAG },
	[NETCOLL_A_COMM_OWNER] = { .type = NLA_U32 },
	[NETCOLL_A_COMM_GROUP] = { .type = NLA_U32 },
	[NETCOLL_A_COMM_KEY] = NLA_POLICY_RANGE(NLA_BINARY, NETCOLL_KEY_MIN,
						NETCOLL_KEY_MAX),
	[NETCOLL_A_COMM_MEM_MAX] = NLA_POLICY_FULL_RANGE(NLA_U32, &nck_mem_range),
	[NETCOLL_A_COMM_RX_MEM_MAX] = NLA_POLICY_FULL_RANGE(NLA_U32, &nck_mem_range),
	[NETCOLL_A_COMM_TRANSIENT] = NLA_POLICY_RANGE(NLA_U8, 1, 1),
	[NETCOLL_A_DEV_USER_COMMS] = NLA_POLICY_MAX(NLA_U8, 1),
	[NETCOLL_A_DEV_USER_COMMS_MAX] = NLA_POLICY_RANGE(NLA_U32, 1, NETCOLL_USER_COMMS_MAX),
	[NETCOLL_A_DEV_USER_MEM_MAX] = NLA_POLICY_FULL_RANGE(NLA_U32, &nck_mem_range),
};

/* -- What a request names (for the handlers next to their objects) -- */

/* The user namespace ids in a request are read in: the sender's. */
struct user_namespace *nck_nl_userns(struct sk_buff *skb)
{
	return sk_user_ns(NETLINK_CB(skb).sk);
}

/* The device a request names, by index or name; under RTNL. */
struct net_device *nck_nl_dev(struct genl_info *info)
{
	struct nlattr *idx = info->attrs[NETCOLL_A_IFINDEX];
	struct nlattr *a = idx ?: info->attrs[NETCOLL_A_IFNAME];
	struct net *net = genl_info_net(info);
	struct net_device *dev;

	if (!a) {
		NL_SET_ERR_MSG(info->extack, "IFINDEX or IFNAME required");
		return ERR_PTR(-EINVAL);
	}
	dev = idx ? __dev_get_by_index(net, nla_get_u32(idx)) :
		    __dev_get_by_name(net, nla_data(a));
	if (!dev)
		NL_SET_ERR_MSG_ATTR(info->extack, a, "no such device");
	return dev ?: ERR_PTR(-ENODEV);
}

/* The attached bearer a request names; under RTNL. */
struct nck_bearer *nck_nl_bearer(struct genl_info *info)
{
	struct net_device *dev = nck_nl_dev(info);
	struct nck_bearer *b;

	if (IS_ERR(dev))
		return ERR_CAST(dev);
	b = nck_bearer_find(nck_net(genl_info_net(info)), dev);
	if (!b) {
		NL_SET_ERR_MSG(info->extack, "device not attached");
		return ERR_PTR(-ENODEV);
	}
	return b;
}

/*
 * The communicator a request names by COMM_ID (and COMM_RANK, which it
 * needs when this host has several ranks of it), with a reference.
 */
struct nck_comm *nck_nl_comm(struct genl_info *info)
{
	struct nck_net *nn = nck_net(genl_info_net(info));
	u32 id, rank;
	struct nck_comm *c;

	if (GENL_REQ_ATTR_CHECK(info, NETCOLL_A_COMM_ID))
		return ERR_PTR(-EINVAL);
	id = nla_get_u32(info->attrs[NETCOLL_A_COMM_ID]);
	rank = nck_nl_u32(info, NETCOLL_A_COMM_RANK, NCK_RANK_ANY);
	c = nck_comm_get(nn, id, rank);
	if (!c && rank == NCK_RANK_ANY && xa_load(&nn->comms, id)) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NETCOLL_A_COMM_ID],
				    "this host has several ranks of the communicator: name one");
		return ERR_PTR(-EINVAL);
	}
	if (!c) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NETCOLL_A_COMM_ID],
				    "no such communicator");
		return ERR_PTR(-ENOENT);
	}
	return c;
}

/*
 * The communicator a request names by COMM_ID, with a reference, for a
 * command that changes it: only for its owner or an admin.
 */
struct nck_comm *nck_nl_comm_admin(struct sk_buff *skb, struct genl_info *info)
{
	struct nck_comm *c = nck_nl_comm(info);

	if (!IS_ERR(c) && !nck_nl_may_admin_comm(c, skb)) {
		nck_comm_put(c);
		NL_SET_ERR_MSG(info->extack,
			       "only the communicator's owner or an admin may change it");
		return ERR_PTR(-EPERM);
	}
	return c;
}

/* An optional u32 attribute, or its default. */
u32 nck_nl_u32(struct genl_info *info, int attr, u32 dflt)
{
	return info->attrs[attr] ? nla_get_u32(info->attrs[attr]) : dflt;
}

/* -- Statistics -------------------------------------------------- */

static int nck_nl_stats_get(struct sk_buff *skb, struct genl_info *info)
{
	struct nck_net *nn = nck_net(genl_info_net(info));
	u64 v[__NETCOLL_STAT_MAX];
	struct nlattr *nest;
	struct sk_buff *msg;
	void *hdr;
	int i;

	nck_stats_read(nn, v);
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &nck_genl_family, 0,
				NETCOLL_CMD_STATS_GET);
	if (!hdr)
		goto nospace;
	nest = nla_nest_start(msg, NETCOLL_A_STATS);
	if (!nest)
		goto nospace;
	for (i = NETCOLL_STAT_PAD + 1; i <= NETCOLL_STAT_MAX; i++)
		if (nla_put_u64_64bit(msg, i, v[i], NETCOLL_STAT_PAD))
			goto nospace;
	nla_nest_end(msg, nest);
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
nospace:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

/* -- Events ------------------------------------------------------ */

/* An event a lower layer posted (event.h), multicast to the group. */
static int nck_event_notify(struct notifier_block *nb, unsigned long kind,
			    void *data)
{
	const struct nck_event *ev = data;
	struct sk_buff *msg;
	bool fail;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return NOTIFY_DONE;
	hdr = genlmsg_put(msg, 0, 0, &nck_genl_family, 0,
			  kind == NCK_EVENT_OP_FAILED ? NETCOLL_CMD_EVENT_OP_FAILED :
							NETCOLL_CMD_EVENT_DEV_DETACHED);
	if (!hdr)
		fail = true;
	else if (kind == NCK_EVENT_OP_FAILED)
		fail = nla_put_u32(msg, NETCOLL_A_COMM_ID, ev->comm_id) ||
		       nla_put_u32(msg, NETCOLL_A_COMM_RANK, ev->rank) ||
		       nla_put_u32(msg, NETCOLL_A_OP_SEQ, ev->seq) ||
		       nla_put_s32(msg, NETCOLL_A_ERRNO, ev->err) ||
		       (ev->peer != NETCOLL_NONE &&
			nla_put_u32(msg, NETCOLL_A_PEER_RANK, ev->peer));
	else
		fail = nla_put_u32(msg, NETCOLL_A_IFINDEX, ev->dev->ifindex) ||
		       nla_put_string(msg, NETCOLL_A_IFNAME, ev->dev->name) ||
		       nla_put_s32(msg, NETCOLL_A_ERRNO, ev->err);
	if (fail) {
		nlmsg_free(msg);
		return NOTIFY_DONE;
	}
	genlmsg_end(msg, hdr);
	genlmsg_multicast_netns(&nck_genl_family, ev->net, msg, 0,
				NCK_MCGRP_EVENTS, GFP_KERNEL);
	return NOTIFY_DONE;
}

static struct notifier_block nck_event_nb = {
	.notifier_call = nck_event_notify,
};

/* -- Family ------------------------------------------------------ */

static const struct genl_small_ops nck_genl_ops[] = {
	{
		.cmd	= NETCOLL_CMD_DEV_ATTACH,
		.doit	= nck_nl_dev_attach,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= NETCOLL_CMD_DEV_DETACH,
		.doit	= nck_nl_dev_detach,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= NETCOLL_CMD_DEV_GET,
		.doit	= nck_nl_dev_get,
		.dumpit	= nck_nl_dev_dump,
	},
	{
		.cmd	= NETCOLL_CMD_DEV_SET,
		.doit	= nck_nl_dev_set,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= NETCOLL_CMD_COMM_NEW,
		.doit	= nck_nl_comm_new,	/* admin, or users where allowed */
	},
	{
		.cmd	= NETCOLL_CMD_COMM_DEL,
		.doit	= nck_nl_comm_del,	/* owner or admin */
	},
	{
		.cmd	= NETCOLL_CMD_COMM_GET,
		.doit	= nck_nl_comm_get,
		.dumpit	= nck_nl_comm_dump,
	},
	{
		.cmd	= NETCOLL_CMD_STATS_GET,
		.doit	= nck_nl_stats_get,
	},
	{
		.cmd	= NETCOLL_CMD_SCHED_SET,
		.doit	= nck_nl_sched_set,	/* owner or admin */
	},
	{
		.cmd	= NETCOLL_CMD_SCHED_DEL,
		.doit	= nck_nl_sched_del,	/* owner or admin */
	},
	{
		.cmd	= NETCOLL_CMD_TREE_SET,
		.doit	= nck_nl_tree_set,	/* owner or admin */
	},
	{
		.cmd	= NETCOLL_CMD_TREE_DEL,
		.doit	= nck_nl_tree_del,	/* owner or admin */
	},
	{
		.cmd	= NETCOLL_CMD_TREE_GET,
		.doit	= nck_nl_tree_get,
	},
};

/* The first request for the family loads the module (nctl, libnetcoll). */
MODULE_ALIAS_GENL_FAMILY(NETCOLL_GENL_NAME);

struct genl_family nck_genl_family __ro_after_init = {
	.name		= NETCOLL_GENL_NAME,
	.version	= NETCOLL_GENL_VERSION,
	.maxattr	= NETCOLL_A_MAX,
	.policy		= nck_policy,
	.netnsok	= true,
	.module		= THIS_MODULE,
	.small_ops	= nck_genl_ops,
	.n_small_ops	= ARRAY_SIZE(nck_genl_ops),
	.mcgrps		= nck_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(nck_mcgrps),
};

int nck_genl_init(void)
{
	int err = genl_register_family(&nck_genl_family);

	if (err)
		return err;
	err = nck_event_listen(&nck_event_nb);
	if (err)
		genl_unregister_family(&nck_genl_family);
	return err;
}

void nck_genl_exit(void)
{
	nck_event_unlisten(&nck_event_nb);
	genl_unregister_family(&nck_genl_family);
}

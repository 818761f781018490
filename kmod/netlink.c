// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink family "netcoll": configuration, statistics, events.
 * Every attribute is checked by a strict policy before a handler runs;
 * handlers check what a policy cannot (cross-attribute rules) and say why
 * in the extended ack.  Devices and new communicators need CAP_NET_ADMIN;
 * commands on one communicator need its owner or that (access.c).
 */
#include <linux/etherdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "bearer.h"

static struct genl_family nc_genl_family;

enum nc_mcgrp { NC_MCGRP_EVENTS };

static const struct genl_multicast_group nc_mcgrps[] = {
	[NC_MCGRP_EVENTS] = { .name = NETCOLL_GENL_MCGRP_EVENTS },
};

static struct netlink_range_validation nc_comm_id_range = {
	.min = 1,
	.max = NETCOLL_COMM_ID_MAX,
};

static struct netlink_range_validation nc_timeout_range = {
	.min = NETCOLL_TIMEOUT_MS_MIN,
	.max = NETCOLL_TIMEOUT_MS_MAX,
};

static struct netlink_range_validation nc_oso_range = {
	.min = 1,
	.max = NETCOLL_OSO_MAX,
};

static struct netlink_range_validation nc_degree_range = {
	.min = 2,
	.max = NETCOLL_TREE_DEGREE_MAX,
};

/* Memory limits: at least room for a few frames, at most 2 GiB - 1. */
static struct netlink_range_validation nc_mem_range = {
	.min = 64 << 10,
	.max = INT_MAX,
};

static const struct nla_policy nc_member_policy[NETCOLL_A_MEMBER_MAX + 1] = {
	[NETCOLL_A_MEMBER_RANK] = NLA_POLICY_MAX(NLA_U32, NETCOLL_COMM_SIZE_MAX - 1),
	[NETCOLL_A_MEMBER_ADDR] = NLA_POLICY_RANGE(NLA_BINARY, 1, NETCOLL_ADDR_MAX),
};

static const struct nla_policy nc_members_policy[NETCOLL_A_MEMBERS_MAX + 1] = {
	[NETCOLL_A_MEMBER] = NLA_POLICY_NESTED(nc_member_policy),
};

static struct netlink_range_validation nc_phase_range = {
	.min = 0,
	.max = NETCOLL_SCHED_PHASE_MAX - 1,
};

static const struct nla_policy nc_phase_policy[NETCOLL_A_PHASE_MAX + 1] = {
	[NETCOLL_A_PHASE_INDEX] = NLA_POLICY_FULL_RANGE(NLA_U32, &nc_phase_range),
	[NETCOLL_A_PHASE_SEND_TO] = NLA_POLICY_MAX(NLA_U32, NETCOLL_COMM_SIZE_MAX - 1),
	[NETCOLL_A_PHASE_RECV_FROM] = NLA_POLICY_MAX(NLA_U32, NETCOLL_COMM_SIZE_MAX - 1),
	[NETCOLL_A_PHASE_SYNC_IN] = NLA_POLICY_RANGE(NLA_BINARY, sizeof(__u32),
						     NETCOLL_SCHED_SYNC_MAX * sizeof(__u32)),
	[NETCOLL_A_PHASE_SYNC_OUT] = NLA_POLICY_RANGE(NLA_BINARY, sizeof(struct netcoll_sync_out),
						      NETCOLL_SCHED_SYNC_MAX *
						      sizeof(struct netcoll_sync_out)),
};

/* Attributes a request may carry; output-only ones are rejected. */
static const struct nla_policy nc_policy[NETCOLL_A_MAX + 1] = {
	[NETCOLL_A_IFINDEX] = NLA_POLICY_MIN(NLA_U32, 1),
	[NETCOLL_A_IFNAME] = { .type = NLA_NUL_STRING, .len = IFNAMSIZ - 1 },
	[NETCOLL_A_COMM_ID] = NLA_POLICY_FULL_RANGE(NLA_U32, &nc_comm_id_range),
	[NETCOLL_A_COMM_COOKIE] = { .type = NLA_U64 },
	[NETCOLL_A_COMM_RANK] = NLA_POLICY_MAX(NLA_U32, NETCOLL_COMM_SIZE_MAX - 1),
	[NETCOLL_A_COMM_MEMBERS] = NLA_POLICY_NESTED(nc_members_policy),
	[NETCOLL_A_COMM_TIMEOUT_MS] = NLA_POLICY_FULL_RANGE(NLA_U32, &nc_timeout_range),
	[NETCOLL_A_SCHED_PHASE] = NLA_POLICY_NESTED(nc_phase_policy),
	[NETCOLL_A_COMM_OSO] = NLA_POLICY_FULL_RANGE(NLA_U32, &nc_oso_range),
	[NETCOLL_A_COMM_MCAST_ADDR] = NLA_POLICY_RANGE(NLA_BINARY, 1, NETCOLL_ADDR_MAX),
	[NETCOLL_A_COMM_TREE_DEGREE] = NLA_POLICY_FULL_RANGE(NLA_U32, &nc_degree_range),
	[NETCOLL_A_TREE_INDEX] = NLA_POLICY_MAX(NLA_U32, NETCOLL_TREES_MAX - 1),
	[NETCOLL_A_TREE_PARENTS] = NLA_POLICY_RANGE(NLA_BINARY, sizeof(__u32),
						    NETCOLL_COMM_SIZE_MAX * sizeof(__u32)),
	[NETCOLL_A_COMM_OWNER] = { .type = NLA_U32 },
	[NETCOLL_A_COMM_GROUP] = { .type = NLA_U32 },
	[NETCOLL_A_COMM_KEY] = NLA_POLICY_RANGE(NLA_BINARY, NETCOLL_KEY_MIN,
						NETCOLL_KEY_MAX),
	[NETCOLL_A_COMM_MEM_MAX] = NLA_POLICY_FULL_RANGE(NLA_U32, &nc_mem_range),
	[NETCOLL_A_COMM_RX_MEM_MAX] = NLA_POLICY_FULL_RANGE(NLA_U32, &nc_mem_range),
};

/* The user namespace ids in a request are read in: the sender's. */
static struct user_namespace *nc_nl_userns(struct sk_buff *skb)
{
	return sk_user_ns(NETLINK_CB(skb).sk);
}

/* ---------------------------------------------------------------- */
/* Devices                                                           */
/* ---------------------------------------------------------------- */

/* The device a request names, by index or name; under RTNL. */
static struct net_device *nc_nl_dev(struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct net_device *dev = NULL;

	if (info->attrs[NETCOLL_A_IFINDEX]) {
		dev = __dev_get_by_index(net, nla_get_u32(info->attrs[NETCOLL_A_IFINDEX]));
		if (!dev)
			NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NETCOLL_A_IFINDEX],
					    "no such device");
	} else if (info->attrs[NETCOLL_A_IFNAME]) {
		dev = __dev_get_by_name(net, nla_data(info->attrs[NETCOLL_A_IFNAME]));
		if (!dev)
			NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NETCOLL_A_IFNAME],
					    "no such device");
	} else {
		NL_SET_ERR_MSG(info->extack, "IFINDEX or IFNAME required");
		return ERR_PTR(-EINVAL);
	}
	return dev ?: ERR_PTR(-ENODEV);
}

/* The attached bearer a request names; under RTNL. */
static struct nc_bearer *nc_nl_bearer(struct genl_info *info)
{
	struct net_device *dev = nc_nl_dev(info);
	struct nc_bearer *b;

	if (IS_ERR(dev))
		return ERR_CAST(dev);
	b = nc_bearer_find(nc_net(genl_info_net(info)), dev);
	if (!b) {
		NL_SET_ERR_MSG(info->extack, "device not attached");
		return ERR_PTR(-ENODEV);
	}
	return b;
}

static int nc_nl_dev_attach(struct sk_buff *skb, struct genl_info *info)
{
	struct net_device *dev;
	int err;

	rtnl_lock();
	dev = nc_nl_dev(info);
	err = IS_ERR(dev) ? PTR_ERR(dev) :
	      nc_bearer_attach(genl_info_net(info), dev, info->extack);
	rtnl_unlock();
	return err;
}

static int nc_nl_dev_detach(struct sk_buff *skb, struct genl_info *info)
{
	struct nc_bearer *b;
	int err = 0;

	rtnl_lock();
	b = nc_nl_bearer(info);
	if (IS_ERR(b))
		err = PTR_ERR(b);
	else
		nc_bearer_detach(genl_info_net(info), b->dev, 0);
	rtnl_unlock();
	return err;
}

static int nc_nl_fill_dev(struct sk_buff *skb, struct nc_bearer *b, u32 portid,
			  u32 seq, int flags)
{
	struct net_device *dev = b->dev;
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &nc_genl_family, flags,
			  NETCOLL_CMD_DEV_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, NETCOLL_A_IFINDEX, dev->ifindex) ||
	    nla_put_string(skb, NETCOLL_A_IFNAME, dev->name) ||
	    nla_put_string(skb, NETCOLL_A_BEARER, b->name) ||
	    nla_put_u32(skb, NETCOLL_A_MTU, READ_ONCE(dev->mtu)) ||
	    nla_put(skb, NETCOLL_A_HWADDR, dev->addr_len, dev->dev_addr)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int nc_nl_dev_get(struct sk_buff *skb, struct genl_info *info)
{
	struct nc_bearer *b;
	struct sk_buff *msg;
	int err;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	rtnl_lock();
	b = nc_nl_bearer(info);
	err = IS_ERR(b) ? PTR_ERR(b) :
	      nc_nl_fill_dev(msg, b, info->snd_portid, info->snd_seq, 0);
	rtnl_unlock();
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

static int nc_nl_dev_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nc_net *nn = nc_net(sock_net(skb->sk));
	long idx = 0, start = cb->args[0];
	struct nc_bearer *b;

	rcu_read_lock();
	list_for_each_entry_rcu(b, &nn->bearers, list) {
		if (idx >= start &&
		    nc_nl_fill_dev(skb, b, NETLINK_CB(cb->skb).portid,
				   cb->nlh->nlmsg_seq, NLM_F_MULTI))
			break;
		idx++;
	}
	rcu_read_unlock();
	cb->args[0] = idx;
	return skb->len;
}

/* ---------------------------------------------------------------- */
/* Communicators                                                     */
/* ---------------------------------------------------------------- */

struct nc_addr_key {
	u8 a[NETCOLL_ADDR_MAX];
};

static int nc_addr_cmp(const void *x, const void *y)
{
	return memcmp(x, y, sizeof(struct nc_addr_key));
}

/* Two ranks with one address could not be told apart on receive. */
static bool nc_addrs_unique(const u8 *addrs, u32 size, u8 alen)
{
	struct nc_addr_key *keys;
	bool unique = true;
	u32 i;

	keys = kvcalloc(size, sizeof(*keys), GFP_KERNEL);
	if (!keys)
		return false;
	for (i = 0; i < size; i++)
		memcpy(keys[i].a, addrs + (size_t)i * alen, alen);
	sort(keys, size, sizeof(*keys), nc_addr_cmp, NULL);
	for (i = 1; i < size && unique; i++)
		unique = nc_addr_cmp(&keys[i - 1], &keys[i]) != 0;
	kvfree(keys);
	return unique;
}

/* Members -> addrs[rank]; every rank 0..size-1 exactly once. */
static int nc_nl_parse_members(struct genl_info *info, struct nc_bearer *b,
			       u8 **addrsp, u32 *sizep)
{
	struct nlattr *members = info->attrs[NETCOLL_A_COMM_MEMBERS];
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr *tb[NETCOLL_A_MEMBER_MAX + 1];
	u8 alen = b->ops->addr_len;
	unsigned long *seen = NULL;
	struct nlattr *m;
	u32 size = 0, rank;
	u8 *addrs = NULL;
	int rem, err;

	nla_for_each_nested(m, members, rem)
		size++;
	if (!size || size > NETCOLL_COMM_SIZE_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, members, "member count out of range");
		return -EINVAL;
	}
	addrs = kvcalloc(size, alen, GFP_KERNEL);
	seen = bitmap_zalloc(size, GFP_KERNEL);
	err = -ENOMEM;
	if (!addrs || !seen)
		goto fail;

	err = -EINVAL;
	nla_for_each_nested(m, members, rem) {
		if (nla_parse_nested(tb, NETCOLL_A_MEMBER_MAX, m, nc_member_policy,
				     extack))
			goto fail;
		if (!tb[NETCOLL_A_MEMBER_RANK] || !tb[NETCOLL_A_MEMBER_ADDR]) {
			NL_SET_ERR_MSG_ATTR(extack, m, "member needs RANK and ADDR");
			goto fail;
		}
		rank = nla_get_u32(tb[NETCOLL_A_MEMBER_RANK]);
		if (rank >= size) {
			NL_SET_ERR_MSG_ATTR(extack, tb[NETCOLL_A_MEMBER_RANK],
					    "member rank out of range");
			goto fail;
		}
		if (test_and_set_bit(rank, seen)) {
			NL_SET_ERR_MSG_ATTR(extack, tb[NETCOLL_A_MEMBER_RANK],
					    "duplicate member rank");
			goto fail;
		}
		if (nla_len(tb[NETCOLL_A_MEMBER_ADDR]) != alen ||
		    !b->ops->addr_ok(nla_data(tb[NETCOLL_A_MEMBER_ADDR]))) {
			NL_SET_ERR_MSG_ATTR(extack, tb[NETCOLL_A_MEMBER_ADDR],
					    "invalid member address for this device");
			goto fail;
		}
		memcpy(addrs + (size_t)rank * alen,
		       nla_data(tb[NETCOLL_A_MEMBER_ADDR]), alen);
	}
	if (!nc_addrs_unique(addrs, size, alen)) {
		NL_SET_ERR_MSG_ATTR(extack, members, "duplicate member address");
		goto fail;
	}
	bitmap_free(seen);
	*addrsp = addrs;
	*sizep = size;
	return 0;
fail:
	bitmap_free(seen);
	kvfree(addrs);
	return err;
}

/* Owner and group: named by an admin, else the sender's own. */
static int nc_nl_owner(struct sk_buff *skb, struct genl_info *info,
		       struct nc_comm_cfg *cfg)
{
	struct nlattr *uid = info->attrs[NETCOLL_A_COMM_OWNER];
	struct nlattr *gid = info->attrs[NETCOLL_A_COMM_GROUP];
	struct user_namespace *ns = nc_nl_userns(skb);

	cfg->owner = NETLINK_CB(skb).creds.uid;
	cfg->group = NETLINK_CB(skb).creds.gid;
	if (uid) {
		cfg->owner = make_kuid(ns, nla_get_u32(uid));
		if (!uid_valid(cfg->owner)) {
			NL_SET_ERR_MSG_ATTR(info->extack, uid,
					    "owner is no uid of this user namespace");
			return -EINVAL;
		}
	}
	if (gid) {
		cfg->group = make_kgid(ns, nla_get_u32(gid));
		if (!gid_valid(cfg->group)) {
			NL_SET_ERR_MSG_ATTR(info->extack, gid,
					    "group is no gid of this user namespace");
			return -EINVAL;
		}
	}
	return 0;
}

static u32 nc_nl_u32(struct genl_info *info, int attr, u32 dflt)
{
	return info->attrs[attr] ? nla_get_u32(info->attrs[attr]) : dflt;
}

static int nc_nl_comm_new(struct sk_buff *skb, struct genl_info *info)
{
	struct nc_net *nn = nc_net(genl_info_net(info));
	struct nlattr *mcast = info->attrs[NETCOLL_A_COMM_MCAST_ADDR];
	struct nlattr *key = info->attrs[NETCOLL_A_COMM_KEY];
	struct nc_comm_cfg cfg = {};
	struct nc_bearer *b;
	struct nc_comm *c;
	u8 *addrs;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, NETCOLL_A_COMM_ID) ||
	    GENL_REQ_ATTR_CHECK(info, NETCOLL_A_COMM_RANK) ||
	    GENL_REQ_ATTR_CHECK(info, NETCOLL_A_COMM_MEMBERS))
		return -EINVAL;
	cfg.id = nla_get_u32(info->attrs[NETCOLL_A_COMM_ID]);
	cfg.rank = nla_get_u32(info->attrs[NETCOLL_A_COMM_RANK]);
	if (info->attrs[NETCOLL_A_COMM_COOKIE])
		cfg.cookie = nla_get_u64(info->attrs[NETCOLL_A_COMM_COOKIE]);
	cfg.timeout_ms = nc_nl_u32(info, NETCOLL_A_COMM_TIMEOUT_MS,
				   NETCOLL_TIMEOUT_MS_DEFAULT);
	cfg.oso = nc_nl_u32(info, NETCOLL_A_COMM_OSO, NETCOLL_OSO_DEFAULT);
	cfg.degree = nc_nl_u32(info, NETCOLL_A_COMM_TREE_DEGREE,
			       NETCOLL_TREE_DEGREE_DEFAULT);
	cfg.mem_max = nc_nl_u32(info, NETCOLL_A_COMM_MEM_MAX,
				READ_ONCE(nc_comm_mem_max));
	cfg.rx_mem_max = nc_nl_u32(info, NETCOLL_A_COMM_RX_MEM_MAX,
				   READ_ONCE(nc_rx_queue_max));
	if (key) {
		cfg.key = nla_data(key);
		cfg.key_len = nla_len(key);
	}
	err = nc_nl_owner(skb, info, &cfg);
	if (err)
		return err;

	rtnl_lock();
	b = nc_nl_bearer(info);
	if (IS_ERR(b)) {
		err = PTR_ERR(b);
		goto out;
	}
	err = -EINVAL;
	if (mcast) {
		if (nla_len(mcast) != b->ops->addr_len ||
		    !b->ops->group_ok(nla_data(mcast))) {
			NL_SET_ERR_MSG_ATTR(info->extack, mcast,
					    "not a group address of this medium");
			goto out;
		}
		cfg.mcast = nla_data(mcast);
	}
	err = nc_nl_parse_members(info, b, &addrs, &cfg.size);
	if (err)
		goto out;
	err = -EINVAL;
	if (cfg.rank >= cfg.size) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NETCOLL_A_COMM_RANK],
				    "rank not below the member count");
	} else if (memcmp(addrs + (size_t)cfg.rank * b->ops->addr_len,
			  b->dev->dev_addr, b->ops->addr_len)) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NETCOLL_A_COMM_RANK],
				    "this rank's member address is not the device's");
	} else {
		cfg.addrs = addrs;
		c = nc_comm_create(nn, &cfg, b, info->extack);
		err = PTR_ERR_OR_ZERO(c);
	}
	kvfree(addrs);
out:
	rtnl_unlock();
	return err;
}

static int nc_nl_comm_del(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct nc_net *nn = nc_net(net);
	struct nc_comm *c;
	u32 id;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, NETCOLL_A_COMM_ID))
		return -EINVAL;
	id = nla_get_u32(info->attrs[NETCOLL_A_COMM_ID]);
	rtnl_lock();
	c = xa_load(&nn->comms, id);	/* RTNL: it cannot go away */
	if (!c) {
		err = -ENOENT;
	} else if (!nc_nl_may_admin_comm(c, skb, net)) {
		NL_SET_ERR_MSG(info->extack,
			       "only the communicator's owner or an admin may delete it");
		err = -EPERM;
	} else {
		err = nc_comm_delete(nn, id);
	}
	rtnl_unlock();
	if (err == -ENOENT)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NETCOLL_A_COMM_ID],
				    "no such communicator");
	return err;
}

static int nc_nl_fill_members(struct sk_buff *skb, const struct nc_comm *c)
{
	struct nlattr *members, *m;
	u32 r;

	members = nla_nest_start(skb, NETCOLL_A_COMM_MEMBERS);
	if (!members)
		return -EMSGSIZE;
	for (r = 0; r < c->size; r++) {
		m = nla_nest_start(skb, NETCOLL_A_MEMBER);
		if (!m || nla_put_u32(skb, NETCOLL_A_MEMBER_RANK, r) ||
		    nla_put(skb, NETCOLL_A_MEMBER_ADDR, c->addr_len,
			    nc_comm_addr(c, r)))
			return -EMSGSIZE;
		nla_nest_end(skb, m);
	}
	nla_nest_end(skb, members);
	return 0;
}

/* Who asks, for what a dump may show (the cookie and epoch or not). */
struct nc_nl_viewer {
	struct sk_buff *req;
	struct net *net;
};

static int nc_nl_fill_secrets(struct sk_buff *skb, struct nc_comm *c,
			      const struct nc_nl_viewer *v)
{
	if (!nc_nl_may_see_secrets(c, v->req, v->net))
		return 0;
	return nla_put_u64_64bit(skb, NETCOLL_A_COMM_COOKIE, c->cookie,
				 NETCOLL_A_PAD) ||
	       nla_put_u64_64bit(skb, NETCOLL_A_COMM_EPOCH, READ_ONCE(c->epoch),
				 NETCOLL_A_PAD);
}

static int nc_nl_fill_comm(struct sk_buff *skb, struct nc_comm *c,
			   bool with_members, const struct nc_nl_viewer *v,
			   u32 portid, u32 seq, int flags)
{
	struct user_namespace *ns = nc_nl_userns(v->req);
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &nc_genl_family, flags,
			  NETCOLL_CMD_COMM_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, NETCOLL_A_COMM_ID, c->id) ||
	    nla_put_u32(skb, NETCOLL_A_IFINDEX, c->ifindex) ||
	    nla_put_u32(skb, NETCOLL_A_COMM_RANK, c->rank) ||
	    nla_put_u32(skb, NETCOLL_A_COMM_SIZE, c->size) ||
	    nc_nl_fill_secrets(skb, c, v) ||
	    nla_put_u32(skb, NETCOLL_A_COMM_OWNER, from_kuid_munged(ns, c->owner)) ||
	    (gid_valid(c->group) &&
	     nla_put_u32(skb, NETCOLL_A_COMM_GROUP, from_kgid_munged(ns, c->group))) ||
	    nla_put_u8(skb, NETCOLL_A_COMM_AUTH, !!c->auth) ||
	    nla_put_u32(skb, NETCOLL_A_COMM_MEM_MAX, c->mem_max) ||
	    nla_put_u32(skb, NETCOLL_A_COMM_RX_MEM_MAX, c->rx_mem_max) ||
	    nla_put_u32(skb, NETCOLL_A_COMM_STATE, nc_comm_state(c)) ||
	    nla_put_u32(skb, NETCOLL_A_COMM_TIMEOUT_MS, c->timeout_ms) ||
	    nla_put_u32(skb, NETCOLL_A_COMM_OP_SEQ, READ_ONCE(c->next_seq)) ||
	    nla_put_u8(skb, NETCOLL_A_COMM_BOUND, !!atomic_read(&c->bound)) ||
	    nla_put_u32(skb, NETCOLL_A_SCHED_PHASES, READ_ONCE(c->sched_phases)) ||
	    nla_put_u32(skb, NETCOLL_A_SCHED_SYNCS, READ_ONCE(c->sched_syncs)) ||
	    nla_put_u32(skb, NETCOLL_A_COMM_OSO, c->oso) ||
	    nla_put_u32(skb, NETCOLL_A_COMM_AGG_SEQ, READ_ONCE(c->agg_next)) ||
	    nla_put_u32(skb, NETCOLL_A_COMM_TREE_DEGREE, c->tree_degree) ||
	    nla_put(skb, NETCOLL_A_COMM_MCAST_ADDR, c->addr_len, c->mcast_addr) ||
	    (with_members && nc_nl_fill_members(skb, c))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/*
 * The communicator a request names by COMM_ID, with a reference, for a
 * command that changes it: only for its owner or an admin.
 */
static struct nc_comm *nc_nl_comm_admin(struct sk_buff *skb,
					struct genl_info *info);

/* The communicator a request names by COMM_ID, with a reference. */
static struct nc_comm *nc_nl_comm(struct genl_info *info)
{
	struct nc_comm *c;

	if (GENL_REQ_ATTR_CHECK(info, NETCOLL_A_COMM_ID))
		return ERR_PTR(-EINVAL);
	c = nc_comm_get(nc_net(genl_info_net(info)),
			nla_get_u32(info->attrs[NETCOLL_A_COMM_ID]));
	if (!c) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NETCOLL_A_COMM_ID],
				    "no such communicator");
		return ERR_PTR(-ENOENT);
	}
	return c;
}

static struct nc_comm *nc_nl_comm_admin(struct sk_buff *skb,
					struct genl_info *info)
{
	struct nc_comm *c = nc_nl_comm(info);

	if (!IS_ERR(c) && !nc_nl_may_admin_comm(c, skb, genl_info_net(info))) {
		nc_comm_put(c);
		NL_SET_ERR_MSG(info->extack,
			       "only the communicator's owner or an admin may change it");
		return ERR_PTR(-EPERM);
	}
	return c;
}

static int nc_nl_comm_get(struct sk_buff *skb, struct genl_info *info)
{
	struct nc_nl_viewer v = { skb, genl_info_net(info) };
	struct nc_comm *c;
	struct sk_buff *msg;
	int err;

	c = nc_nl_comm(info);
	if (IS_ERR(c))
		return PTR_ERR(c);
	/* 32 bytes covers one member's nest, rank and address. */
	msg = genlmsg_new(NLMSG_GOODSIZE + (size_t)c->size * 32, GFP_KERNEL);
	if (!msg) {
		nc_comm_put(c);
		return -ENOMEM;
	}
	err = nc_nl_fill_comm(msg, c, true, &v, info->snd_portid,
			      info->snd_seq, 0);
	nc_comm_put(c);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

static int nc_nl_comm_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nc_nl_viewer v = { cb->skb, sock_net(skb->sk) };
	struct nc_net *nn = nc_net(v.net);
	unsigned long id = cb->args[0];
	struct nc_comm *c;

	rcu_read_lock();
	xa_for_each_start(&nn->comms, id, c, cb->args[0]) {
		if (nc_nl_fill_comm(skb, c, false, &v, NETLINK_CB(cb->skb).portid,
				    cb->nlh->nlmsg_seq, NLM_F_MULTI))
			break;
		cb->args[0] = id + 1;
	}
	rcu_read_unlock();
	return skb->len;
}

/* ---------------------------------------------------------------- */
/* Alltoall schedules                                                */
/* ---------------------------------------------------------------- */

/* A rank's slice as parsed from the request, before it becomes a schedule. */
struct nc_slice {
	struct nc_phase *ph;
	struct nc_sync_ref *in, *out;
	u32 *in_phase, *out_phase;
	u32 nph, nin, nout;
	unsigned long *sent, *heard;	/* peers sent to / received from */
};

static void nc_slice_free(struct nc_slice *sl)
{
	kvfree(sl->ph);
	kvfree(sl->in);
	kvfree(sl->out);
	kvfree(sl->in_phase);
	kvfree(sl->out_phase);
	bitmap_free(sl->sent);
	bitmap_free(sl->heard);
}

/* A peer rank named in a slice: a member, not this rank. */
static bool nc_peer_ok(const struct nc_comm *c, u32 r)
{
	return r < c->size && r != c->rank;
}

/* One phase into sl (counts only when sl->ph is NULL: the sizing pass). */
static int nc_slice_phase(const struct nc_comm *c, struct nc_slice *sl,
			  struct nlattr *a, struct netlink_ext_ack *extack)
{
	struct nlattr *tb[NETCOLL_A_PHASE_MAX + 1];
	struct nlattr *in, *out;
	struct nc_phase ph = {
		.send_to = NETCOLL_NONE,
		.recv_from = NETCOLL_NONE,
	};
	const struct netcoll_sync_out *so;
	const __u32 *si;
	u32 i, nin, nout;
	int err;

	err = nla_parse_nested(tb, NETCOLL_A_PHASE_MAX, a, nc_phase_policy, extack);
	if (err)
		return err;
	in = tb[NETCOLL_A_PHASE_SYNC_IN];
	out = tb[NETCOLL_A_PHASE_SYNC_OUT];
	nin = in ? nla_len(in) / sizeof(*si) : 0;
	nout = out ? nla_len(out) / sizeof(*so) : 0;
	if (!tb[NETCOLL_A_PHASE_INDEX]) {
		NL_SET_ERR_MSG_ATTR(extack, a, "phase without INDEX");
		return -EINVAL;
	}
	if ((in && nla_len(in) % sizeof(*si)) || (out && nla_len(out) % sizeof(*so))) {
		NL_SET_ERR_MSG_ATTR(extack, a, "token list of a partial entry");
		return -EINVAL;
	}
	if (!sl->ph) {
		sl->nph++;
		sl->nin += nin;
		sl->nout += nout;
		return 0;
	}

	ph.index = nla_get_u32(tb[NETCOLL_A_PHASE_INDEX]);
	if (sl->nph && ph.index <= sl->ph[sl->nph - 1].index) {
		NL_SET_ERR_MSG_ATTR(extack, a, "phase index not increasing");
		return -EINVAL;
	}
	if (tb[NETCOLL_A_PHASE_SEND_TO]) {
		ph.send_to = nla_get_u32(tb[NETCOLL_A_PHASE_SEND_TO]);
		if (!nc_peer_ok(c, ph.send_to) || test_and_set_bit(ph.send_to, sl->sent)) {
			NL_SET_ERR_MSG_ATTR(extack, tb[NETCOLL_A_PHASE_SEND_TO],
					    "send to a non-member, to self, or twice");
			return -EINVAL;
		}
	}
	if (tb[NETCOLL_A_PHASE_RECV_FROM]) {
		ph.recv_from = nla_get_u32(tb[NETCOLL_A_PHASE_RECV_FROM]);
		if (!nc_peer_ok(c, ph.recv_from) ||
		    test_and_set_bit(ph.recv_from, sl->heard)) {
			NL_SET_ERR_MSG_ATTR(extack, tb[NETCOLL_A_PHASE_RECV_FROM],
					    "receive from a non-member, from self, or twice");
			return -EINVAL;
		}
	}
	if (ph.send_to == NETCOLL_NONE && (nin || nout || ph.recv_from == NETCOLL_NONE)) {
		NL_SET_ERR_MSG_ATTR(extack, a,
				    "phase without a send may not hold tokens or be empty");
		return -EINVAL;
	}

	ph.in_first = sl->nin;
	ph.nin = nin;
	for (i = 0, si = in ? nla_data(in) : NULL; i < nin; i++) {
		if (!nc_peer_ok(c, si[i])) {
			NL_SET_ERR_MSG_ATTR(extack, in, "token from a non-member or self");
			return -EINVAL;
		}
		sl->in[sl->nin] = (struct nc_sync_ref){ .rank = si[i] };
		sl->in_phase[sl->nin++] = ph.index;
	}
	ph.out_first = sl->nout;
	ph.nout = nout;
	for (i = 0, so = out ? nla_data(out) : NULL; i < nout; i++) {
		if (!nc_peer_ok(c, so[i].rank) || so[i].phase >= NETCOLL_SCHED_PHASE_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, out,
					    "token to a non-member, to self, or a bad phase");
			return -EINVAL;
		}
		sl->out[sl->nout] = (struct nc_sync_ref){ .rank = so[i].rank };
		sl->out_phase[sl->nout++] = so[i].phase;
	}
	sl->ph[sl->nph++] = ph;
	return 0;
}

/* Phases are repeated top-level attributes: a slice may exceed a nest. */
static int nc_slice_pass(const struct nc_comm *c, struct genl_info *info,
			 struct nc_slice *sl)
{
	struct nlattr *a;
	int rem, err;

	nla_for_each_attr(a, genlmsg_data(info->genlhdr),
			  genlmsg_len(info->genlhdr), rem) {
		if (nla_type(a) != NETCOLL_A_SCHED_PHASE)
			continue;
		err = nc_slice_phase(c, sl, a, info->extack);
		if (err)
			return err;
	}
	return 0;
}

static int nc_slice_parse(const struct nc_comm *c, struct genl_info *info,
			  struct nc_slice *sl)
{
	struct netlink_ext_ack *extack = info->extack;
	u32 nph, nin, nout;
	int err;

	err = nc_slice_pass(c, info, sl);
	if (err)
		return err;
	if (!sl->nph || sl->nph > 2 * (c->size - 1)) {
		NL_SET_ERR_MSG(extack, "phase count not in 1 .. 2 * (members - 1)");
		return -EINVAL;
	}
	nph = sl->nph;
	nin = sl->nin;
	nout = sl->nout;
	sl->ph = kvcalloc(nph, sizeof(*sl->ph), GFP_KERNEL);
	sl->in = kvcalloc(nin ?: 1, sizeof(*sl->in), GFP_KERNEL);
	sl->out = kvcalloc(nout ?: 1, sizeof(*sl->out), GFP_KERNEL);
	sl->in_phase = kvcalloc(nin ?: 1, sizeof(u32), GFP_KERNEL);
	sl->out_phase = kvcalloc(nout ?: 1, sizeof(u32), GFP_KERNEL);
	sl->sent = bitmap_zalloc(c->size, GFP_KERNEL);
	sl->heard = bitmap_zalloc(c->size, GFP_KERNEL);
	if (!sl->ph || !sl->in || !sl->out || !sl->in_phase || !sl->out_phase ||
	    !sl->sent || !sl->heard)
		return -ENOMEM;
	sl->nph = 0;
	sl->nin = 0;
	sl->nout = 0;
	err = nc_slice_pass(c, info, sl);
	if (err)
		return err;
	if (bitmap_weight(sl->sent, c->size) != c->size - 1 ||
	    bitmap_weight(sl->heard, c->size) != c->size - 1) {
		NL_SET_ERR_MSG(extack,
			       "slice must send to and receive from every other member once");
		return -EINVAL;
	}
	return 0;
}

static int nc_nl_sched_set(struct sk_buff *skb, struct genl_info *info)
{
	struct nc_slice sl = {};
	struct nc_sched *s;
	struct nc_comm *c;
	int err;

	c = nc_nl_comm_admin(skb, info);
	if (IS_ERR(c))
		return PTR_ERR(c);
	err = c->size < 2 ? -EINVAL : nc_slice_parse(c, info, &sl);
	if (!err) {
		s = nc_sched_from_slice(sl.ph, sl.nph, sl.in, sl.in_phase, sl.nin,
					sl.out, sl.out_phase, sl.nout, &err);
		if (s)
			nc_comm_set_sched(c, s);
		else if (err == -E2BIG)
			NL_SET_ERR_MSG(info->extack, "too many tokens between two ranks");
	}
	nc_slice_free(&sl);
	nc_comm_put(c);
	return err;
}

static int nc_nl_sched_del(struct sk_buff *skb, struct genl_info *info)
{
	struct nc_comm *c;

	c = nc_nl_comm_admin(skb, info);
	if (IS_ERR(c))
		return PTR_ERR(c);
	nc_comm_set_sched(c, NULL);
	nc_comm_put(c);
	return 0;
}

/* ---------------------------------------------------------------- */
/* Aggregation trees                                                 */
/* ---------------------------------------------------------------- */

static u32 nc_nl_tree_index(struct genl_info *info)
{
	struct nlattr *a = info->attrs[NETCOLL_A_TREE_INDEX];

	return a ? nla_get_u32(a) : 0;
}

static int nc_nl_tree_set(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *a = info->attrs[NETCOLL_A_TREE_PARENTS];
	struct nc_tree *t;
	struct nc_comm *c;
	u32 *parents;
	int err;

	c = nc_nl_comm_admin(skb, info);
	if (IS_ERR(c))
		return PTR_ERR(c);
	err = -EINVAL;
	if (GENL_REQ_ATTR_CHECK(info, NETCOLL_A_TREE_PARENTS))
		goto out;
	if (nla_len(a) != c->size * sizeof(u32)) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "need one parent per member");
		goto out;
	}
	/* nla_data is only 4-byte aligned by luck: copy */
	parents = kvmalloc(nla_len(a), GFP_KERNEL);
	err = -ENOMEM;
	if (!parents)
		goto out;
	memcpy(parents, nla_data(a), nla_len(a));
	t = nc_tree_from_parents(c->rank, c->size, parents, info->extack);
	kvfree(parents);
	err = PTR_ERR_OR_ZERO(t);
	if (!err)
		err = nc_agg_set_tree(c, nc_nl_tree_index(info), t);
out:
	nc_comm_put(c);
	return err;
}

static int nc_nl_tree_del(struct sk_buff *skb, struct genl_info *info)
{
	struct nc_comm *c;
	int err;

	c = nc_nl_comm_admin(skb, info);
	if (IS_ERR(c))
		return PTR_ERR(c);
	err = nc_agg_set_tree(c, nc_nl_tree_index(info), NULL);
	nc_comm_put(c);
	return err;
}

static int nc_nl_tree_get(struct sk_buff *skb, struct genl_info *info)
{
	u32 index = nc_nl_tree_index(info);
	struct sk_buff *msg;
	struct nc_tree *t;
	struct nc_comm *c;
	void *hdr;
	int err = -EMSGSIZE;

	c = nc_nl_comm(info);
	if (IS_ERR(c))
		return PTR_ERR(c);
	msg = genlmsg_new(NLMSG_GOODSIZE + c->size * sizeof(u32), GFP_KERNEL);
	if (!msg) {
		nc_comm_put(c);
		return -ENOMEM;
	}
	hdr = genlmsg_put_reply(msg, info, &nc_genl_family, 0,
				NETCOLL_CMD_TREE_GET);
	mutex_lock(&c->tree_lock);
	t = c->trees[index];
	if (hdr &&
	    !nla_put_u32(msg, NETCOLL_A_COMM_ID, c->id) &&
	    !nla_put_u32(msg, NETCOLL_A_TREE_INDEX, index) &&
	    !nla_put_u32(msg, NETCOLL_A_TREE_ROOT, t->root) &&
	    !nla_put_u32(msg, NETCOLL_A_TREE_PARENT, t->parent) &&
	    !nla_put(msg, NETCOLL_A_TREE_CHILDREN, t->nchildren * sizeof(u32),
		     t->children) &&
	    !nla_put_u8(msg, NETCOLL_A_TREE_INSTALLED, t->installed)) {
		genlmsg_end(msg, hdr);
		err = 0;
	}
	mutex_unlock(&c->tree_lock);
	nc_comm_put(c);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/* ---------------------------------------------------------------- */
/* Statistics                                                        */
/* ---------------------------------------------------------------- */

static int nc_nl_stats_get(struct sk_buff *skb, struct genl_info *info)
{
	struct nc_net *nn = nc_net(genl_info_net(info));
	u64 v[__NETCOLL_STAT_MAX];
	struct nlattr *nest;
	struct sk_buff *msg;
	void *hdr;
	int i;

	nc_stats_read(nn, v);
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &nc_genl_family, 0,
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

/* ---------------------------------------------------------------- */
/* Events                                                            */
/* ---------------------------------------------------------------- */

static struct sk_buff *nc_event_new(u8 cmd, void **hdr)
{
	struct sk_buff *msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);

	if (msg) {
		*hdr = genlmsg_put(msg, 0, 0, &nc_genl_family, 0, cmd);
		if (!*hdr) {
			nlmsg_free(msg);
			msg = NULL;
		}
	}
	return msg;
}

static void nc_event_send(struct net *net, struct sk_buff *msg, void *hdr)
{
	genlmsg_end(msg, hdr);
	genlmsg_multicast_netns(&nc_genl_family, net, msg, 0, NC_MCGRP_EVENTS,
				GFP_KERNEL);
}

void nc_event_op_failed(struct nc_comm *c, u32 seq, int err, u32 peer)
{
	struct sk_buff *msg;
	void *hdr;

	msg = nc_event_new(NETCOLL_CMD_EVENT_OP_FAILED, &hdr);
	if (!msg)
		return;
	if (nla_put_u32(msg, NETCOLL_A_COMM_ID, c->id) ||
	    nla_put_u32(msg, NETCOLL_A_OP_SEQ, seq) ||
	    nla_put_s32(msg, NETCOLL_A_ERRNO, err) ||
	    (peer != U32_MAX && nla_put_u32(msg, NETCOLL_A_PEER_RANK, peer))) {
		nlmsg_free(msg);
		return;
	}
	nc_event_send(c->nn->net, msg, hdr);
}

void nc_event_dev_detached(struct net *net, struct net_device *dev, int err)
{
	struct sk_buff *msg;
	void *hdr;

	msg = nc_event_new(NETCOLL_CMD_EVENT_DEV_DETACHED, &hdr);
	if (!msg)
		return;
	if (nla_put_u32(msg, NETCOLL_A_IFINDEX, dev->ifindex) ||
	    nla_put_string(msg, NETCOLL_A_IFNAME, dev->name) ||
	    nla_put_s32(msg, NETCOLL_A_ERRNO, err)) {
		nlmsg_free(msg);
		return;
	}
	nc_event_send(net, msg, hdr);
}

/* ---------------------------------------------------------------- */
/* Family                                                            */
/* ---------------------------------------------------------------- */

static const struct genl_small_ops nc_genl_ops[] = {
	{
		.cmd	= NETCOLL_CMD_DEV_ATTACH,
		.doit	= nc_nl_dev_attach,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= NETCOLL_CMD_DEV_DETACH,
		.doit	= nc_nl_dev_detach,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= NETCOLL_CMD_DEV_GET,
		.doit	= nc_nl_dev_get,
		.dumpit	= nc_nl_dev_dump,
	},
	{
		.cmd	= NETCOLL_CMD_COMM_NEW,
		.doit	= nc_nl_comm_new,
		.flags	= GENL_ADMIN_PERM,
	},
	{
		.cmd	= NETCOLL_CMD_COMM_DEL,
		.doit	= nc_nl_comm_del,	/* owner or admin */
	},
	{
		.cmd	= NETCOLL_CMD_COMM_GET,
		.doit	= nc_nl_comm_get,
		.dumpit	= nc_nl_comm_dump,
	},
	{
		.cmd	= NETCOLL_CMD_STATS_GET,
		.doit	= nc_nl_stats_get,
	},
	{
		.cmd	= NETCOLL_CMD_SCHED_SET,
		.doit	= nc_nl_sched_set,	/* owner or admin */
	},
	{
		.cmd	= NETCOLL_CMD_SCHED_DEL,
		.doit	= nc_nl_sched_del,	/* owner or admin */
	},
	{
		.cmd	= NETCOLL_CMD_TREE_SET,
		.doit	= nc_nl_tree_set,	/* owner or admin */
	},
	{
		.cmd	= NETCOLL_CMD_TREE_DEL,
		.doit	= nc_nl_tree_del,	/* owner or admin */
	},
	{
		.cmd	= NETCOLL_CMD_TREE_GET,
		.doit	= nc_nl_tree_get,
	},
};

static struct genl_family nc_genl_family __ro_after_init = {
	.name		= NETCOLL_GENL_NAME,
	.version	= NETCOLL_GENL_VERSION,
	.maxattr	= NETCOLL_A_MAX,
	.policy		= nc_policy,
	.netnsok	= true,
	.module		= THIS_MODULE,
	.small_ops	= nc_genl_ops,
	.n_small_ops	= ARRAY_SIZE(nc_genl_ops),
	.mcgrps		= nc_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(nc_mcgrps),
};

int nc_genl_init(void)
{
	return genl_register_family(&nc_genl_family);
}

void nc_genl_exit(void)
{
	genl_unregister_family(&nc_genl_family);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Attaching and detaching devices, medium independent.  Everything here
 * runs under RTNL; the receive path reads the bearer list under RCU.
 */
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "bearer.h"
#include "event.h"
#include "netlink.h"

/* The medium of a device: only Ethernet for now. */
static const struct nck_bearer_ops *nck_bearer_ops_for(const struct net_device *dev)
{
	if (nck_eth_bearer_ops.dev_ok(dev))
		return &nck_eth_bearer_ops;
	return NULL;
}

struct nck_bearer *nck_bearer_find(struct nck_net *nn, const struct net_device *dev)
{
	struct nck_bearer *b;

	list_for_each_entry_rcu(b, &nn->bearers, list, lockdep_rtnl_is_held())
		if (b->dev == dev)
			return b;
	return NULL;
}

static int nck_bearer_attach(struct net *net, struct net_device *dev,
			     struct netlink_ext_ack *extack)
{
	struct nck_net *nn = nck_net(net);
	const struct nck_bearer_ops *ops;
	struct nck_bearer *b;
	int err;

	ASSERT_RTNL();
	if (nck_bearer_find(nn, dev)) {
		NL_SET_ERR_MSG(extack, "device already attached");
		return -EEXIST;
	}
	ops = nck_bearer_ops_for(dev);
	if (!ops) {
		NL_SET_ERR_MSG(extack, "device type not supported (Ethernet only)");
		return -EOPNOTSUPP;
	}
	if (!(dev->flags & IFF_UP)) {
		NL_SET_ERR_MSG(extack, "device is down");
		return -ENETDOWN;
	}

	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->ops = ops;
	b->dev = dev;
	b->user_comms_max = NETCOLL_USER_COMMS_DEFAULT;
	b->user_mem_max = min_t(u64, INT_MAX,
				4 * ((u64)READ_ONCE(nck_comm_mem_max) +
				     READ_ONCE(nck_rx_queue_max)));
	snprintf(b->name, sizeof(b->name), "%s:%s", ops->name, dev->name);
	netdev_hold(dev, &b->dev_tracker, GFP_KERNEL);

	err = ops->enable(b);
	if (err) {
		netdev_put(dev, &b->dev_tracker);
		kfree(b);
		return err;
	}
	list_add_tail_rcu(&b->list, &nn->bearers);
	WRITE_ONCE(nn->bearers_gen, nn->bearers_gen + 1);
	return 0;
}

/* Unpublish b, fail what uses it, wait for readers, free it. */
static void nck_bearer_release(struct net *net, struct nck_bearer *b, int reason)
{
	struct nck_net *nn = nck_net(net);

	list_del_rcu(&b->list);
	WRITE_ONCE(nn->bearers_gen, nn->bearers_gen + 1);
	nck_comm_unbind_bearer(nn, b);
	b->ops->disable(b);
	/* Receive handlers and transmitters (via comm->bearer) use b under RCU. */
	synchronize_net();
	if (reason)
		nck_event_dev_detached(net, b->dev, reason);
	netdev_put(b->dev, &b->dev_tracker);
	kfree(b);
}

static int nck_bearer_detach(struct net *net, struct net_device *dev, int reason)
{
	struct nck_bearer *b;

	ASSERT_RTNL();
	b = nck_bearer_find(nck_net(net), dev);
	if (!b)
		return -ENODEV;
	nck_bearer_release(net, b, reason);
	return 0;
}

void nck_bearer_detach_all(struct net *net)
{
	struct nck_net *nn = nck_net(net);
	struct nck_bearer *b, *tmp;

	ASSERT_RTNL();
	list_for_each_entry_safe(b, tmp, &nn->bearers, list)
		nck_bearer_release(net, b, ESHUTDOWN);
}

/* A device that goes down or away takes its bearer with it. */
static int nck_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);

	switch (event) {
	case NETDEV_DOWN:
		nck_bearer_detach(dev_net(dev), dev, ENETDOWN);
		break;
	case NETDEV_UNREGISTER:
		nck_bearer_detach(dev_net(dev), dev, ENODEV);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block nck_netdev_notifier = {
	.notifier_call = nck_netdev_event,
};

int nck_bearer_notifier_init(void)
{
	return register_netdevice_notifier(&nck_netdev_notifier);
}

void nck_bearer_notifier_exit(void)
{
	unregister_netdevice_notifier(&nck_netdev_notifier);
}

/* -- Netlink: devices -------------------------------------------- */

int nck_nl_dev_attach(struct sk_buff *skb, struct genl_info *info)
{
	struct net_device *dev;
	int err;

	rtnl_lock();
	dev = nck_nl_dev(info);
	err = IS_ERR(dev) ? PTR_ERR(dev) :
	      nck_bearer_attach(genl_info_net(info), dev, info->extack);
	rtnl_unlock();
	return err;
}

int nck_nl_dev_detach(struct sk_buff *skb, struct genl_info *info)
{
	struct nck_bearer *b;
	int err = 0;

	rtnl_lock();
	b = nck_nl_bearer(info);
	if (IS_ERR(b))
		err = PTR_ERR(b);
	else
		nck_bearer_detach(genl_info_net(info), b->dev, 0);
	rtnl_unlock();
	return err;
}

/* What the admin allows users on b; only the attributes given change. */
int nck_nl_dev_set(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **a = info->attrs;
	struct nck_bearer *b;
	int err = 0;

	rtnl_lock();
	b = nck_nl_bearer(info);
	if (IS_ERR(b)) {
		err = PTR_ERR(b);
		goto out;
	}
	/* lower limits leave the communicators made before them alone */
	if (a[NETCOLL_A_DEV_USER_COMMS])
		WRITE_ONCE(b->user_comms, nla_get_u8(a[NETCOLL_A_DEV_USER_COMMS]));
	if (a[NETCOLL_A_DEV_USER_COMMS_MAX])
		WRITE_ONCE(b->user_comms_max, nla_get_u32(a[NETCOLL_A_DEV_USER_COMMS_MAX]));
	if (a[NETCOLL_A_DEV_USER_MEM_MAX])
		WRITE_ONCE(b->user_mem_max, nla_get_u32(a[NETCOLL_A_DEV_USER_MEM_MAX]));
out:
	rtnl_unlock();
	return err;
}

/* One device's message; in a dump (@cb) marked if the list changed. */
static int nck_nl_fill_dev(struct sk_buff *skb, struct nck_bearer *b, u32 portid,
			   u32 seq, int flags, struct netlink_callback *cb)
{
	struct net_device *dev = b->dev;
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &nck_genl_family, flags,
			  NETCOLL_CMD_DEV_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		genl_dump_check_consistent(cb, hdr);
	if (nla_put_u32(skb, NETCOLL_A_IFINDEX, dev->ifindex) ||
	    nla_put_string(skb, NETCOLL_A_IFNAME, dev->name) ||
	    nla_put_string(skb, NETCOLL_A_BEARER, b->name) ||
	    nla_put_u32(skb, NETCOLL_A_MTU, READ_ONCE(dev->mtu)) ||
	    nla_put(skb, NETCOLL_A_HWADDR, dev->addr_len, dev->dev_addr) ||
	    nla_put_u8(skb, NETCOLL_A_DEV_USER_COMMS, READ_ONCE(b->user_comms)) ||
	    nla_put_u32(skb, NETCOLL_A_DEV_USER_COMMS_MAX, READ_ONCE(b->user_comms_max)) ||
	    nla_put_u32(skb, NETCOLL_A_DEV_USER_MEM_MAX, READ_ONCE(b->user_mem_max))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

int nck_nl_dev_get(struct sk_buff *skb, struct genl_info *info)
{
	struct nck_bearer *b;
	struct sk_buff *msg;
	int err;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	rtnl_lock();
	b = nck_nl_bearer(info);
	err = IS_ERR(b) ? PTR_ERR(b) :
	      nck_nl_fill_dev(msg, b, info->snd_portid, info->snd_seq, 0, NULL);
	rtnl_unlock();
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/*
 * Resumed by position in the list: a device attached or detached between
 * two parts of the dump shifts it, and the generation tells user space to
 * dump again (nc_dev_list() does).  Bit 31 keeps cb->seq from 0, which
 * nl_dump_check_consistent() takes for "not set".
 */
int nck_nl_dev_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nck_net *nn = nck_net(sock_net(skb->sk));
	long idx = 0, start = cb->args[0];
	struct nck_bearer *b;

	rcu_read_lock();
	cb->seq = READ_ONCE(nn->bearers_gen) | BIT(31);
	list_for_each_entry_rcu(b, &nn->bearers, list) {
		if (idx >= start &&
		    nck_nl_fill_dev(skb, b, NETLINK_CB(cb->skb).portid,
				    cb->nlh->nlmsg_seq, NLM_F_MULTI, cb))
			break;
		idx++;
	}
	rcu_read_unlock();
	cb->args[0] = idx;
	return skb->len;
}

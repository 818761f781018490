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
static const struct nc_bearer_ops *nc_bearer_ops_for(const struct net_device *dev)
{
	if (nc_eth_bearer_ops.dev_ok(dev))
		return &nc_eth_bearer_ops;
	return NULL;
}

struct nc_bearer *nc_bearer_find(struct nc_net *nn, const struct net_device *dev)
{
	struct nc_bearer *b;

	list_for_each_entry_rcu(b, &nn->bearers, list, lockdep_rtnl_is_held())
		if (b->dev == dev)
			return b;
	return NULL;
}

int nc_bearer_attach(struct net *net, struct net_device *dev,
		     struct netlink_ext_ack *extack)
{
	struct nc_net *nn = nc_net(net);
	const struct nc_bearer_ops *ops;
	struct nc_bearer *b;
	int err;

	ASSERT_RTNL();
	if (nc_bearer_find(nn, dev)) {
		NL_SET_ERR_MSG(extack, "device already attached");
		return -EEXIST;
	}
	ops = nc_bearer_ops_for(dev);
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
	snprintf(b->name, sizeof(b->name), "%s:%s", ops->name, dev->name);
	netdev_hold(dev, &b->dev_tracker, GFP_KERNEL);

	err = ops->enable(b);
	if (err) {
		netdev_put(dev, &b->dev_tracker);
		kfree(b);
		return err;
	}
	list_add_tail_rcu(&b->list, &nn->bearers);
	return 0;
}

/* Unpublish b, fail what uses it, wait for readers, free it. */
static void nc_bearer_release(struct net *net, struct nc_bearer *b, int reason)
{
	struct nc_net *nn = nc_net(net);

	list_del_rcu(&b->list);
	nc_comm_unbind_bearer(nn, b);
	b->ops->disable(b);
	/* Receive handlers and transmitters (via comm->bearer) use b under RCU. */
	synchronize_net();
	if (reason)
		nc_event_dev_detached(net, b->dev, reason);
	netdev_put(b->dev, &b->dev_tracker);
	kfree(b);
}

int nc_bearer_detach(struct net *net, struct net_device *dev, int reason)
{
	struct nc_bearer *b;

	ASSERT_RTNL();
	b = nc_bearer_find(nc_net(net), dev);
	if (!b)
		return -ENODEV;
	nc_bearer_release(net, b, reason);
	return 0;
}

void nc_bearer_detach_all(struct net *net)
{
	struct nc_net *nn = nc_net(net);
	struct nc_bearer *b, *tmp;

	ASSERT_RTNL();
	list_for_each_entry_safe(b, tmp, &nn->bearers, list)
		nc_bearer_release(net, b, ESHUTDOWN);
}

/* A device that goes down or away takes its bearer with it. */
static int nc_netdev_event(struct notifier_block *nb, unsigned long event,
			   void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);

	switch (event) {
	case NETDEV_DOWN:
		nc_bearer_detach(dev_net(dev), dev, ENETDOWN);
		break;
	case NETDEV_UNREGISTER:
		nc_bearer_detach(dev_net(dev), dev, ENODEV);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block nc_netdev_notifier = {
	.notifier_call = nc_netdev_event,
};

int nc_bearer_notifier_init(void)
{
	return register_netdevice_notifier(&nc_netdev_notifier);
}

void nc_bearer_notifier_exit(void)
{
	unregister_netdevice_notifier(&nc_netdev_notifier);
}

/* ---------------------------------------------------------------- */
/* Netlink: devices                                                */
/* ---------------------------------------------------------------- */

int nc_nl_dev_attach(struct sk_buff *skb, struct genl_info *info)
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

int nc_nl_dev_detach(struct sk_buff *skb, struct genl_info *info)
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

int nc_nl_dev_get(struct sk_buff *skb, struct genl_info *info)
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

int nc_nl_dev_dump(struct sk_buff *skb, struct netlink_callback *cb)
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

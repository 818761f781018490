// SPDX-License-Identifier: GPL-2.0
/*
 * Attaching and detaching devices, medium independent.  Everything here
 * runs under RTNL; the receive path reads the bearer list under RCU.
 */
#include <linux/rtnetlink.h>
#include <linux/slab.h>

#include "bearer.h"

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

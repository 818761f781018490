/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Bearers: the media netcoll frames travel on.  One small ops table per
 * medium (Ethernet now, InfiniBand verbs later); the transport and the
 * collectives only ever see struct nck_bearer.
 */
#ifndef NCK_BEARER_H
#define NCK_BEARER_H

#include <linux/etherdevice.h>
#include <linux/netdevice.h>

#include "comm.h"

struct nck_bearer_ops {
	const char *name;		/* "eth": bearer names are "eth:eth0" */
	u8 addr_len;
	/* Can this device carry this medium? */
	bool (*dev_ok)(const struct net_device *dev);
	/* Start/stop receiving on b->dev. */
	int (*enable)(struct nck_bearer *b);
	void (*disable)(struct nck_bearer *b);
	/* Send skb (data at the netcoll header) to dst; consumes skb. */
	int (*xmit)(struct nck_bearer *b, struct sk_buff *skb, const u8 *dst);
	/* Deliver skb to this host's own receive path; consumes skb. */
	int (*xmit_local)(struct nck_bearer *b, struct sk_buff *skb,
			  const u8 *dst);
	/* Optional: bytes and frames one skb may carry to b (frame.c) */
	bool (*gso_limits)(struct nck_bearer *b, u32 *bytes, u32 *segs);
	/* Sender address of a received frame. */
	const u8 *(*frame_src)(const struct sk_buff *skb);
	/* Is addr a valid member (unicast) address? */
	bool (*addr_ok)(const u8 *addr);
	/* Group (multicast) addresses for result distribution. */
	bool (*group_ok)(const u8 *addr);
	/* ... in netcoll's own range: the only ones a user may name */
	bool (*group_ours)(const u8 *addr);
	void (*group_default)(u32 comm_id, u8 *addr);
	int (*group_join)(struct nck_bearer *b, const u8 *addr);	/* RTNL */
	void (*group_leave)(struct nck_bearer *b, const u8 *addr);	/* RTNL */
};

struct nck_bearer {
	struct list_head list;
	const struct nck_bearer_ops *ops;
	struct net_device *dev;
	netdevice_tracker dev_tracker;
	struct packet_type pt;
	char name[32];
	/*
	 * Users' communicators (DEV_SET): allowed at all, and each user's
	 * count and summed memory limits on this host.  Written under RTNL,
	 * read under RTNL or (dumps) RCU.
	 */
	bool user_comms;
	u32 user_comms_max;
	u32 user_mem_max;
};

extern const struct nck_bearer_ops nck_eth_bearer_ops;
void nck_eth_offload_init(void);
void nck_eth_offload_exit(void);

/*
 * Two member addresses of len bytes equal?  Every received frame's sender
 * is checked with it: an Ethernet address in two loads, as the kernel's
 * memcmp() walks short buffers a byte at a time.
 */
static inline bool nck_addr_equal(const u8 *a, const u8 *b, u8 len)
{
	if (len == ETH_ALEN)
		return ether_addr_equal_unaligned(a, b);
	return !memcmp(a, b, len);
}

/* bearer.c; all under RTNL */
struct nck_bearer *nck_bearer_find(struct nck_net *nn,
				   const struct net_device *dev);
void nck_bearer_detach_all(struct net *net);
int nck_bearer_notifier_init(void);
void nck_bearer_notifier_exit(void);

/* The shared receive path of every medium (rx.c). */
void nck_rcv(struct nck_bearer *b, struct sk_buff *skb);

/* The MTU of c's device, 0 if c has no bearer (detached). */
static inline unsigned int nck_comm_mtu(struct nck_comm *c)
{
	struct nck_bearer *b;
	unsigned int mtu;

	rcu_read_lock();
	b = rcu_dereference(c->bearer);
	mtu = b ? READ_ONCE(b->dev->mtu) : 0;
	rcu_read_unlock();
	return mtu;
}

#endif /* NCK_BEARER_H */

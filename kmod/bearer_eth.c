// SPDX-License-Identifier: GPL-2.0
/*
 * Ethernet bearer: raw frames with the netcoll ethertype.  One packet_type
 * per attached device (pt.dev set), so the stack hands us only frames of
 * devices we attached and we never scan for them.
 */
#include <linux/etherdevice.h>
#include <linux/if_arp.h>

#include "bearer.h"

static int nck_eth_rcv(struct sk_buff *skb, struct net_device *dev,
		       struct packet_type *pt, struct net_device *orig_dev)
{
	struct nck_bearer *b = pt->af_packet_priv;

	/* Promiscuous copies and our own transmissions are not for us. */
	if (skb->pkt_type == PACKET_OTHERHOST ||
	    skb->pkt_type == PACKET_OUTGOING) {
		kfree_skb(skb);
		return NET_RX_DROP;
	}
	nck_rcv(b, skb);
	return NET_RX_SUCCESS;
}

static bool nck_eth_dev_ok(const struct net_device *dev)
{
	return dev->type == ARPHRD_ETHER && dev->addr_len == ETH_ALEN &&
	       !(dev->flags & IFF_LOOPBACK);
}

static int nck_eth_enable(struct nck_bearer *b)
{
	b->pt.type = htons(nck_ethertype);
	b->pt.dev = b->dev;
	b->pt.func = nck_eth_rcv;
	b->pt.af_packet_priv = b;
	dev_add_pack(&b->pt);
	return 0;
}

static void nck_eth_disable(struct nck_bearer *b)
{
	__dev_remove_pack(&b->pt);	/* the caller waits for readers */
}

/* The Ethernet header in front of the netcoll header; consumes skb on error. */
static int nck_eth_push_header(struct nck_bearer *b, struct sk_buff *skb,
			       const u8 *dst)
{
	struct net_device *dev = b->dev;
	int err;

	err = skb_cow_head(skb, LL_RESERVED_SPACE(dev));
	if (err) {
		kfree_skb(skb);
		return err;
	}
	skb_reset_network_header(skb);
	skb->dev = dev;
	skb->protocol = htons(nck_ethertype);
	if (dev_hard_header(skb, dev, nck_ethertype, dst, dev->dev_addr,
			    skb->len) < 0) {
		kfree_skb(skb);
		return -EINVAL;
	}
	return 0;
}

static int nck_eth_xmit(struct nck_bearer *b, struct sk_buff *skb, const u8 *dst)
{
	int err = nck_eth_push_header(b, skb, dst);

	if (err)
		return err;
	/* Negative: errno; positive: NET_XMIT_DROP/CN from the qdisc. */
	err = dev_queue_xmit(skb);
	return err > 0 ? net_xmit_errno(err) : err;
}

/*
 * To another rank on this host: into our own device's receive queue, as
 * if it had come from the wire (what a veth peer does), past the qdisc
 * and the cable.
 */
static int nck_eth_xmit_local(struct nck_bearer *b, struct sk_buff *skb,
			      const u8 *dst)
{
	int err = nck_eth_push_header(b, skb, dst);

	if (err)
		return err;
	/* as in a driver's xmit: the backlog's softirq runs at bh enable */
	local_bh_disable();
	err = dev_forward_skb(b->dev, skb);
	local_bh_enable();
	return err == NET_RX_SUCCESS ? 0 : -ENOBUFS;
}

static const u8 *nck_eth_frame_src(const struct sk_buff *skb)
{
	return eth_hdr(skb)->h_source;
}

static bool nck_eth_addr_ok(const u8 *addr)
{
	return is_valid_ether_addr(addr);
}

static bool nck_eth_group_ok(const u8 *addr)
{
	return is_multicast_ether_addr(addr) && !is_broadcast_ether_addr(addr);
}

/*
 * Is addr in netcoll's own range, 03:6e:63:xx:xx:xx?  A user may name no
 * other group address: not the reserved 01:80:c2 ones (STP, 802.1X,
 * LLDP), nor IP multicast's, nor any other protocol's.
 */
static bool nck_eth_group_ours(const u8 *addr)
{
	return addr[0] == 0x03 && addr[1] == 0x6e && addr[2] == 0x63;
}

/* 03:6e:63 ("nc", locally administered, multicast) + 24 bits of the id */
static void nck_eth_group_default(u32 comm_id, u8 *addr)
{
	addr[0] = 0x03;
	addr[1] = 0x6e;
	addr[2] = 0x63;
	addr[3] = comm_id >> 16;
	addr[4] = comm_id >> 8;
	addr[5] = comm_id;
}

/* Bridges flood the group; the device filter must let it in. */
static int nck_eth_group_join(struct nck_bearer *b, const u8 *addr)
{
	return dev_mc_add(b->dev, addr);
}

static void nck_eth_group_leave(struct nck_bearer *b, const u8 *addr)
{
	dev_mc_del(b->dev, addr);
}

const struct nck_bearer_ops nck_eth_bearer_ops = {
	.name		= "eth",
	.addr_len	= ETH_ALEN,
	.dev_ok		= nck_eth_dev_ok,
	.enable		= nck_eth_enable,
	.disable	= nck_eth_disable,
	.xmit		= nck_eth_xmit,
	.xmit_local	= nck_eth_xmit_local,
	.frame_src	= nck_eth_frame_src,
	.addr_ok	= nck_eth_addr_ok,
	.group_ok	= nck_eth_group_ok,
	.group_ours	= nck_eth_group_ours,
	.group_default	= nck_eth_group_default,
	.group_join	= nck_eth_group_join,
	.group_leave	= nck_eth_group_leave,
};

// SPDX-License-Identifier: GPL-2.0
/*
 * Ethernet bearer: raw frames with the netcoll ethertype.  One packet_type
 * per attached device (pt.dev set), so the stack hands us only frames of
 * devices we attached and we never scan for them.
 */
#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#ifdef NCK_HAVE_NET_GSO_H
#include <net/gso.h>		/* __skb_gso_segment() from 6.5 on */
#endif

#include "bearer.h"

/*
 * Several frames in one skb (frame.c's nck_frames_gso()), SKB_GSO_FRAGLIST
 * as UDP's fraglist GRO makes them: veth and bridges pass it whole, so
 * each qdisc, veth and bridge on the way works once; before any other
 * device the stack cuts it here into the frames a cable carries (each
 * keeps its header and tag, and gets the link header again).
 */
static struct sk_buff *nck_eth_gso_segment(struct sk_buff *skb,
					   netdev_features_t features)
{
	if (!(skb_shinfo(skb)->gso_type & SKB_GSO_FRAGLIST) ||
	    !skb_has_frag_list(skb))
		return ERR_PTR(-EINVAL);
	return skb_segment_list(skb, features, skb_mac_header_len(skb));
}

static struct packet_offload nck_eth_offload __read_mostly = {
	.callbacks.gso_segment = nck_eth_gso_segment,
};

void nck_eth_offload_init(void)
{
	nck_eth_offload.type = htons(nck_ethertype);
	dev_add_offload(&nck_eth_offload);
}

void nck_eth_offload_exit(void)
{
	dev_remove_offload(&nck_eth_offload);	/* waits for callers */
}

/* Such an skb reached us whole: cut it (as openvswitch does on receive). */
static void nck_eth_rcv_gso(struct nck_bearer *b, struct sk_buff *skb)
{
	struct nck_net *nn = nck_net(dev_net(b->dev));
	struct sk_buff *segs = ERR_PTR(-ENOMEM), *next;

	skb = skb_share_check(skb, GFP_ATOMIC);
	if (skb) {
		__skb_push(skb, -skb_mac_offset(skb));
		segs = __skb_gso_segment(skb, NETIF_F_SG, false);
	}
	if (IS_ERR(segs)) {	/* no memory, or not one of ours */
		kfree_skb(skb);
		nck_stat_inc(nn, PTR_ERR(segs) == -ENOMEM ? NETCOLL_STAT_DROP_MEMORY :
				 NETCOLL_STAT_DROP_TYPE);
		return;
	}
	consume_skb(skb);	/* the segments hold their own references */
	/* 6.1 leaves the cut frames in the first one's truesize: charged twice */
	segs->truesize = min(segs->truesize, SKB_TRUESIZE(skb_end_offset(segs)) +
					     segs->data_len);
	nck_stat_inc(nn, NETCOLL_STAT_RX_GSO);
	skb_list_walk_safe(segs, skb, next) {
		skb_mark_not_on_list(skb);
		__skb_pull(skb, skb_network_offset(skb));
		nck_rcv(b, skb);
	}
}

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
	if (skb_is_gso(skb))
		nck_eth_rcv_gso(b, skb);
	else
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

/* Only where it passes whole; gso_max_size and _segs bound it, as TCP's. */
static bool nck_eth_gso_limits(struct nck_bearer *b, u32 *bytes, u32 *segs)
{
	const netdev_features_t need = NETIF_F_FRAGLIST | NETIF_F_GSO_FRAGLIST;
	const struct net_device *dev = b->dev;

	if ((dev->features & need) != need)
		return false;
	*bytes = min(READ_ONCE(dev->gso_max_size), GSO_LEGACY_MAX_SIZE) -
		 ETH_HLEN;
	*segs = READ_ONCE(dev->gso_max_segs);
	return *segs > 1;
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
	.gso_limits	= nck_eth_gso_limits,
	.frame_src	= nck_eth_frame_src,
	.addr_ok	= nck_eth_addr_ok,
	.group_ok	= nck_eth_group_ok,
	.group_ours	= nck_eth_group_ours,
	.group_default	= nck_eth_group_default,
	.group_join	= nck_eth_group_join,
	.group_leave	= nck_eth_group_leave,
};

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Frames (frame.c): building a netcoll header, sending to a rank or the
 * result group, and the control block of every skb netcoll holds.
 *
 * Frames are built under c->lock and sent after it is released: builders
 * queue them with nc_frame_defer() on a local list that nc_frames_flush()
 * sends.  A frame is owned by whoever holds the skb; sending consumes it.
 */
#ifndef NC_FRAME_H
#define NC_FRAME_H

#include <linux/skbuff.h>

#include "shared/nc_wire.h"

struct nc_comm;

struct sk_buff *nc_frame_alloc(unsigned int payload, gfp_t gfp);
int nc_frame_xmit_to(struct nc_comm *c, struct sk_buff *skb, const u8 *dst);
int nc_frame_xmit(struct nc_comm *c, struct sk_buff *skb, u32 peer);
void nc_frame_defer(struct sk_buff_head *q, struct sk_buff *skb, u32 dst);
void nc_frames_flush(struct nc_comm *c, struct sk_buff_head *q);
void nc_frame_hdr(struct nc_comm *c, struct nc_frame *f, u16 type, u32 seq,
		  u32 dst, u16 tag);
unsigned int nc_comm_payload_max(struct nc_comm *c);

/**
 * struct nc_skb_cb - the control block of every skb netcoll holds
 * @charge: on receive, the bytes charged to the communicator's receive
 *	memory (nc_rx_charge)
 * @dst: on transmit, the destination rank (frames built under c->lock,
 *	sent after it)
 *
 * A held frame's header stays in its data and is decoded again when
 * needed (nc_skb_hdr), so the control block carries nothing the frame
 * says.
 */
struct nc_skb_cb {
	u32 charge;
	u32 dst;
};

static inline struct nc_skb_cb *nc_skb_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct nc_skb_cb) > sizeof(skb->cb));
	return (struct nc_skb_cb *)skb->cb;
}

/* The validated header of a held frame (its data starts at the header). */
static inline void nc_skb_hdr(const struct sk_buff *skb, struct nc_frame *f)
{
	nc_wire_decode(f, (const struct netcoll_hdr *)skb->data);
}

#endif /* NC_FRAME_H */

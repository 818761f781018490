/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Frames (frame.c): building a netcoll header, sending to a rank or the
 * result group, and the control block of every skb netcoll holds.
 *
 * Frames are built under c->lock and sent after it is released: builders
 * queue them with nck_frame_defer() on a local list that nck_frames_flush()
 * sends.  A frame is owned by whoever holds the skb; sending consumes it.
 *
 * Where several contexts build frames of one communicator at once (the
 * aggregation engine's process, receive path and timer), frames must leave
 * in the order they were built, or RACK (rel.h) reads a later frame's
 * arrival as an earlier one's loss (docs/rel-design.md, "The transmit
 * queue").  Such a builder moves its list onto the communicator's queue
 * under the lock (nck_frames_queue()), and after it one context at a time
 * sends the whole queue in order (nck_frames_push()).  Several frames for
 * one rank may leave in one skb (nck_frames_gso(), bearer_eth.c).
 */
#ifndef NCK_FRAME_H
#define NCK_FRAME_H

#include <linux/skbuff.h>

#include "shared/nc_wire.h"

/*
 * The queue is bounded as a device's is (txqueuelen): frames beyond
 * NCK_TXQ_MEM bytes of buffers (truesize), or the communicator's memory
 * limit if lower (nck_txq_limit()), are dropped when queued, counted as
 * drop_tx, and mark the communicator congested, as a full device queue
 * does; the core sends them again.  One nck_frames_push() call sends at
 * most NCK_TXQ_ROUNDS refills of its batch; the rest goes to a worker
 * (c->tx_work).  Why these bounds: docs/rel-design.md, "The transmit queue".
 */
#define NCK_TXQ_MEM		(16U << 20)
#define NCK_TXQ_ROUNDS		4

struct nck_comm;

struct sk_buff *nck_frame_alloc(unsigned int payload, gfp_t gfp);
int nck_frame_xmit(struct nck_comm *c, struct sk_buff *skb, u32 peer);
void nck_frame_defer(struct sk_buff_head *q, struct sk_buff *skb, u32 dst);
void nck_frames_flush(struct nck_comm *c, struct sk_buff_head *q);
/*
 * One process's frames for one rank, in order (nck_frame_defer()), in as
 * few skbs as the bearer takes (nck_frames_per_skb() frames of a payload
 * size: 1 if one by one).  *sent: how many went before the first error
 * (returned; -ENOBUFS: the device refused); those after it are freed.
 */
u32 nck_frames_per_skb(struct nck_comm *c, u32 payload);
int nck_frames_send(struct nck_comm *c, struct sk_buff_head *q, u32 *sent);
void nck_frames_queue(struct nck_comm *c, struct sk_buff_head *q);
void nck_frames_push(struct nck_comm *c);
void nck_frames_tx_work(struct work_struct *work);
void nck_frame_hdr(struct nck_comm *c, struct nc_frame *f, u16 type, u32 seq,
		   u32 dst, u16 tag);
unsigned int nck_comm_payload_max(struct nck_comm *c);

/**
 * struct nck_skb_cb - the control block of every skb netcoll holds
 * @charge: on receive, the bytes charged to the communicator's receive
 *	memory (nck_rx_charge)
 * @dst: on transmit, the destination rank (frames built under c->lock,
 *	sent after it)
 * @repair: on transmit, an answer to a repair request, charged to the
 *	repair budget of operation @seq (agg_rx.c gives back what the device
 *	refused)
 * @seq: see @repair
 *
 * A held frame's header stays in its data and is decoded again when
 * needed (nck_skb_hdr), so the control block carries nothing the frame
 * says.
 */
struct nck_skb_cb {
	u32 charge;
	u32 dst;
	u32 seq;
	bool repair;
};

static inline struct nck_skb_cb *nck_skb_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct nck_skb_cb) > sizeof(skb->cb));
	return (struct nck_skb_cb *)skb->cb;
}

/* The validated header of a held frame (its data starts at the header). */
static inline void nck_skb_hdr(const struct sk_buff *skb, struct nc_frame *f)
{
	nc_wire_decode(f, (const struct netcoll_hdr *)skb->data);
}

#endif /* NCK_FRAME_H */

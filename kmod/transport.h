/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The alltoall transport (transport.c): messages between ranks of one
 * operation, cut into fragments that the reliability core (rel.h) gets
 * through.  One operation at a time per communicator (c->op); it belongs
 * to the calling process's stack frame in nck_op_run(), the receive path
 * reaches it only through c->op, under c->lock.
 */
#ifndef NCK_TRANSPORT_H
#define NCK_TRANSPORT_H

#include <linux/types.h>

struct nck_comm;
struct nc_frame;
struct sk_buff;

/**
 * struct nck_msg_desc - a message of an operation
 * @peer: the rank it goes to (tx) or comes from (rx)
 * @tag: its tag (round, step or NCK_TAG_SYNC token)
 * @len: bytes
 * @ubuf: the caller's buffer
 * @wait_rx_lo: tx: sent once received messages [@wait_rx_lo, @wait_rx_hi)
 *	are complete
 * @wait_rx_hi: see @wait_rx_lo
 * @wait_tx: tx: and, if >= 0, that send and every ordered send before it
 *	are acknowledged
 * @unordered: tx: goes as soon as its conditions hold (such sends come
 *	last in the list); the others go in list order, each after the
 *	previous one was sent completely
 */
struct nck_msg_desc {
	u32 peer;
	u16 tag;
	u32 len;
	void __user *ubuf;
	u32 wait_rx_lo, wait_rx_hi;
	int wait_tx;
	bool unordered;
};

int nck_op_run(struct nck_comm *c, const struct nck_msg_desc *tx, u32 ntx,
	       const struct nck_msg_desc *rx, u32 nrx, u32 timeout_ms);
void nck_transport_rcv(struct nck_comm *c, struct sk_buff *skb,
		       const struct nc_frame *f);

#endif /* NCK_TRANSPORT_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * Alltoall: every rank sends block d of its send buffer to rank d.
 *
 * The schedule (struct nck_sched) fixes the order of the sends.  The
 * transport sends them one after the other, pipelined.  An installed
 * contention-free schedule adds pairwise synchronisation (Faraj & Yuan,
 * section 5): a phase's send starts only once the tokens it waits for
 * arrived, and its own tokens leave once it is acknowledged.  There is no
 * barrier between phases.  All receives are posted at once; a receive
 * has nothing to wait for.
 */
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "comm.h"
#include "coll.h"
#include "sched.h"
#include "transport.h"

/* The block a rank sends to itself never touches the network. */
static int nck_copy_self(void __user *dst, const void __user *src, size_t len)
{
	size_t chunk = min_t(size_t, len, PAGE_SIZE);
	void *bounce;
	int err = 0;

	if (!len)
		return 0;
	bounce = kmalloc(chunk, GFP_KERNEL);
	if (!bounce)
		return -ENOMEM;
	while (len) {
		size_t n = min(len, chunk);

		if (copy_from_user(bounce, src, n) || copy_to_user(dst, bounce, n)) {
			err = -EFAULT;
			break;
		}
		src += n;
		dst += n;
		len -= n;
	}
	kfree(bounce);
	return err;
}

struct nck_a2a_msgs {
	struct nck_msg_desc *tx, *rx;
	u32 ntx, nrx;
};

/*
 * Messages for schedule s: tx = data sends in phase order, then tokens
 * (unordered); rx = one data receive per peer, then the awaited tokens in
 * phase order, so the tokens of one phase are a contiguous range.
 */
static int nck_a2a_build(struct nck_comm *c, const struct nck_sched *s,
			 const struct netcoll_alltoall_args *a,
			struct nck_a2a_msgs *m)
{
	void __user *sbuf = u64_to_user_ptr(a->sendbuf);
	void __user *rbuf = u64_to_user_ptr(a->recvbuf);
	u32 p = c->size, i, j, nsend = 0, ntok_tx = 0;

	for (i = 0; i < s->nphases; i++)
		nsend += s->phase[i].send_to != NETCOLL_NONE;
	m->tx = kvcalloc(nsend + s->nout, sizeof(*m->tx), GFP_KERNEL_ACCOUNT);
	m->rx = kvcalloc(p - 1 + s->nin, sizeof(*m->rx), GFP_KERNEL_ACCOUNT);
	if (!m->tx || !m->rx)
		return -ENOMEM;

	for (i = 0; i < p; i++) {
		if (i == c->rank)
			continue;
		m->rx[m->nrx++] = (struct nck_msg_desc){
			.peer = i,
			.len = a->count,
			.ubuf = rbuf + (size_t)i * a->count,
		};
	}
	for (i = 0; i < s->nphases; i++) {
		const struct nck_phase *ph = &s->phase[i];
		u32 data = m->ntx, lo = m->nrx;

		if (ph->send_to == NETCOLL_NONE)
			continue;
		for (j = 0; j < ph->nin; j++)
			m->rx[m->nrx++] = (struct nck_msg_desc){
				.peer = s->in[ph->in_first + j].rank,
				.tag = s->in[ph->in_first + j].tag,
			};
		m->tx[m->ntx++] = (struct nck_msg_desc){
			.peer = ph->send_to,
			.len = a->count,
			.ubuf = sbuf + (size_t)ph->send_to * a->count,
			.wait_rx_lo = lo,
			.wait_rx_hi = m->nrx,
			.wait_tx = -1,
		};
		for (j = 0; j < ph->nout; j++, ntok_tx++)
			m->tx[nsend + ntok_tx] = (struct nck_msg_desc){
				.peer = s->out[ph->out_first + j].rank,
				.tag = s->out[ph->out_first + j].tag,
				.wait_tx = data,
				.unordered = true,
			};
	}
	m->ntx += ntok_tx;
	return 0;
}

/*
 * The schedule this call runs; *own is set when the caller must free it.
 *
 * Without an installed schedule the default is the ring order, not LAM's
 * linear one: in linear every rank sends to rank 0 first, then to rank 1,
 * so each step is an incast on one host's cable.  Ring was the fastest
 * built-in order from 64 KiB on every topology make bench-alltoall
 * emulates (docs/kmod-notes.md, "The default alltoall order").
 */
static int nck_a2a_sched(struct nck_comm *c, u32 algo,
			 const struct nck_sched **s, struct nck_sched **own)
{
	*own = NULL;
	if (algo == NETCOLL_A2A_SCHED || algo == NETCOLL_A2A_DEFAULT) {
		*s = c->a2a_sched;	/* under c->sched_lock */
		if (*s)
			return 0;
		if (algo == NETCOLL_A2A_SCHED)
			return -ENOENT;
		algo = NETCOLL_A2A_RING;
	}
	*own = nck_sched_builtin(algo, c->rank, c->size);
	*s = *own;
	return *own ? 0 : -ENOMEM;
}

int nck_coll_alltoall(struct nck_comm *c, const struct netcoll_alltoall_args *a)
{
	void __user *sbuf = u64_to_user_ptr(a->sendbuf);
	void __user *rbuf = u64_to_user_ptr(a->recvbuf);
	struct nck_a2a_msgs m = {};
	const struct nck_sched *s;
	struct nck_sched *own;
	size_t total;
	int err;

	if (a->flags || a->reserved || a->algo > NETCOLL_A2A_MAX ||
	    a->count > NETCOLL_MSG_MAX || a->timeout_ms > NETCOLL_TIMEOUT_MS_MAX ||
	    check_mul_overflow((size_t)a->count, (size_t)c->size, &total))
		return -EINVAL;
	if (!access_ok(sbuf, total) || !access_ok(rbuf, total))
		return -EFAULT;

	mutex_lock(&c->sched_lock);
	err = nck_a2a_sched(c, a->algo, &s, &own);
	if (!err)
		err = nck_a2a_build(c, s, a, &m);
	mutex_unlock(&c->sched_lock);
	nck_sched_free(own);

	if (!err)
		err = nck_copy_self(rbuf + (size_t)c->rank * a->count,
				    sbuf + (size_t)c->rank * a->count, a->count);
	if (!err)
		err = nck_op_run(c, m.tx, m.ntx, m.rx, m.nrx, a->timeout_ms);
	kvfree(m.tx);
	kvfree(m.rx);
	return err;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Alltoall: every rank sends block d of its send buffer to rank d.  The
 * order of the sends is a schedule object (struct nc_sched); the transport
 * sends the messages in that order, one after the other, pipelined.
 */
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "core.h"

/* The block a rank sends to itself never touches the network. */
static int nc_copy_self(void __user *dst, const void __user *src, size_t len)
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

static const struct nc_sched *nc_a2a_order(struct nc_comm *c, u32 algo,
					   struct nc_sched **tmp)
{
	if (algo == NETCOLL_A2A_LINEAR) {
		*tmp = nc_sched_linear(c->size);
		return *tmp;
	}
	return c->a2a_sched;
}

int nc_coll_alltoall(struct nc_comm *c, const struct netcoll_alltoall_args *a)
{
	void __user *sbuf = u64_to_user_ptr(a->sendbuf);
	void __user *rbuf = u64_to_user_ptr(a->recvbuf);
	struct nc_msg_desc *tx = NULL, *rx = NULL;
	struct nc_sched *tmp = NULL;
	const struct nc_sched *s;
	u32 p = c->size, i, ntx = 0, nrx = 0;
	size_t total;
	int err;

	if (a->flags || a->reserved || a->algo > NETCOLL_A2A_MAX ||
	    a->count > NETCOLL_MSG_MAX ||
	    check_mul_overflow((size_t)a->count, (size_t)p, &total))
		return -EINVAL;
	if (!access_ok(sbuf, total) || !access_ok(rbuf, total))
		return -EFAULT;

	s = nc_a2a_order(c, a->algo, &tmp);
	tx = kvmalloc_array(p, sizeof(*tx), GFP_KERNEL);
	rx = kvmalloc_array(p, sizeof(*rx), GFP_KERNEL);
	if (!s || !tx || !rx) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < s->nsteps; i++) {
		u32 peer = s->send_to[i];

		if (peer == c->rank)
			continue;
		tx[ntx++] = (struct nc_msg_desc){
			.peer = peer,
			.len = a->count,
			.ubuf = sbuf + (size_t)peer * a->count,
			.after_rx = -1,
		};
	}
	for (i = 0; i < p; i++) {
		if (i == c->rank)
			continue;
		rx[nrx++] = (struct nc_msg_desc){
			.peer = i,
			.len = a->count,
			.ubuf = rbuf + (size_t)i * a->count,
			.after_rx = -1,
		};
	}
	err = nc_copy_self(rbuf + (size_t)c->rank * a->count,
			   sbuf + (size_t)c->rank * a->count, a->count);
	if (!err)
		err = nc_op_run(c, tx, ntx, rx, nrx, a->timeout_ms);
out:
	kvfree(tx);
	kvfree(rx);
	kvfree(tmp);
	return err;
}

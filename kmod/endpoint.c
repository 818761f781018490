// SPDX-License-Identifier: GPL-2.0
/*
 * Endpoints and the reductions they posted.
 *
 * ep->ops maps a handle number to an operation and holds the poster's
 * reference on it (agg.c).  An entry is, under the xarray's lock:
 *   posted    REDUCE_START returned its handle; any thread of the process
 *             that posted it may WAIT for it (another process sharing the
 *             file gets EPERM: the result would go to the address the
 *             poster named, in the waiter's memory);
 *   claimed   a thread waits for it (a blocking REDUCE, or WAIT): a second
 *             WAIT gets EBUSY, and nobody else removes it;
 *   orphaned  claimed, and its waiter is gone (a signal interrupted a
 *             blocking REDUCE, whose operation the peers still need): it
 *             runs on and is reaped once finished.
 * The one who removes an entry (the finishing waiter, the reaper, or
 * release) gives its reference back with nck_agg_release(): exactly one
 * path per entry.  Release cancels whatever has not finished, and the
 * broadcasts their data started for the process (nck_agg_close): a closed
 * file leaves nothing behind (and deletes a transient communicator its
 * owner or an admin bound it to: a process's communicator ends with the
 * process; a group member's close leaves it to the owner).
 *
 * A handle is the endpoint's id (high 32 bits, random) and the entry's
 * number, so a handle of another endpoint is recognised (EBADF), not
 * looked up.
 */
#include <linux/random.h>
#include <linux/slab.h>

#include "endpoint.h"

#define NCK_EP_CLAIMED		XA_MARK_1	/* XA_MARK_0: free (ALLOC) */
#define NCK_EP_ORPHAN		XA_MARK_2

struct nck_endpoint *nck_ep_create(struct net *net)
{
	struct nck_endpoint *ep;

	ep = kzalloc(sizeof(*ep), GFP_KERNEL_ACCOUNT);
	if (!ep)
		return NULL;
	ep->net = get_net(net);
	mutex_init(&ep->lock);
	/*
	 * Random, not counted: a global count in every handle told any user
	 * how often other users and containers opened /dev/netcoll.  Two
	 * endpoints with one id only fail to tell each other's handles
	 * apart: each looks its handles up in its own table.
	 */
	ep->id = get_random_u32();
	xa_init_flags(&ep->ops, XA_FLAGS_ALLOC1);
	return ep;
}

void nck_ep_destroy(struct nck_endpoint *ep)
{
	struct nck_comm *c = ep->comm;
	struct nck_agg_op *op;
	unsigned long idx;

	if (c) {
		xa_for_each(&ep->ops, idx, op) {
			xa_erase(&ep->ops, idx);
			nck_agg_release(c, op, true);
		}
		nck_agg_close(c);
		atomic_set(&c->bound, 0);
		if (ep->ends_comm)	/* a process's: it ends with it */
			nck_comm_delete_this(nck_net(ep->net), c);
		nck_comm_put(c);
	}
	xa_destroy(&ep->ops);
	put_net(ep->net);
	mutex_destroy(&ep->lock);
	kfree(ep);
}

/*
 * BIND on file (ep's); b is the caller's request, written back to uarg on
 * success.
 */
int nck_ep_bind(struct nck_endpoint *ep, const struct file *file,
		struct netcoll_bind *b, void __user *uarg)
{
	struct nck_comm *c;
	int err;

	/* an alltoall of this endpoint may hold it for its whole budget */
	if (mutex_lock_interruptible(&ep->lock))
		return -EINTR;
	err = -EISCONN;
	if (ep->comm)
		goto out;
	err = -ENOENT;
	c = nck_comm_get(nck_net(ep->net), b->comm_id, NCK_RANK_ANY);
	if (!c)		/* several ranks of it here, or none */
		c = nck_comm_get(nck_net(ep->net), b->comm_id, b->rank);
	if (!c)
		goto out;
	if (!nck_may_bind(c, file))
		err = -EACCES;
	else if (b->rank != c->rank)
		err = -EINVAL;
	else if (atomic_cmpxchg(&c->bound, 0, 1))
		err = -EBUSY;
	else
		err = 0;
	if (!err) {
		b->size = c->size;
		if (copy_to_user(uarg, b, sizeof(*b))) {
			atomic_set(&c->bound, 0);
			err = -EFAULT;
		}
	}
	if (err) {
		nck_comm_put(c);
		goto out;
	}
	/* its owner's process (not a group member's) ends a transient one */
	ep->ends_comm = c->transient && nck_may_end(c, file);
	/* set once; operations read it without the lock: nck_ep_comm() */
	smp_store_release(&ep->comm, c);
out:
	mutex_unlock(&ep->lock);
	return err;
}

/*
 * The bound communicator, or NULL: not under ep->lock, which an alltoall
 * holds for its whole length, so that the other threads' calls do not
 * wait uninterruptibly behind it.
 */
struct nck_comm *nck_ep_comm(struct nck_endpoint *ep)
{
	/* pairs with the release in nck_ep_bind(): a whole communicator */
	return smp_load_acquire(&ep->comm);
}

#define NCK_EP_REAP_BATCH	16

/*
 * Finished orphans leave: their waiters are gone.  Each is taken out of
 * the table under its lock (the entry's reference keeps it alive while we
 * look), and given back after.
 */
static void nck_ep_reap(struct nck_endpoint *ep)
{
	struct nck_agg_op *done[NCK_EP_REAP_BATCH], *op;
	XA_STATE(xas, &ep->ops, 0);
	unsigned int n, i;

	do {
		n = 0;
		xas_set(&xas, 0);
		xa_lock(&ep->ops);
		xas_for_each_marked(&xas, op, ULONG_MAX, NCK_EP_ORPHAN) {
			if (!nck_agg_done(op))
				continue;
			xas_store(&xas, NULL);
			ep->nposted--;
			done[n++] = op;
			if (n == NCK_EP_REAP_BATCH)
				break;
		}
		xa_unlock(&ep->ops);
		for (i = 0; i < n; i++)
			nck_agg_release(ep->comm, done[i], false);
	} while (n == NCK_EP_REAP_BATCH);
}

/* A number for an operation about to be posted; -EAGAIN over the limit. */
int nck_ep_reserve(struct nck_endpoint *ep, u32 *idx)
{
	int err;

	nck_ep_reap(ep);
	xa_lock(&ep->ops);
	/* counted first: the allocation may drop the lock */
	if (ep->nposted >= READ_ONCE(nck_ep_ops_max)) {
		xa_unlock(&ep->ops);
		return -EAGAIN;
	}
	ep->nposted++;
	err = __xa_alloc_cyclic(&ep->ops, idx, NULL, xa_limit_32b, &ep->next,
				GFP_KERNEL_ACCOUNT);
	if (err < 0)
		ep->nposted--;
	xa_unlock(&ep->ops);
	return err < 0 ? err : 0;
}

void nck_ep_unreserve(struct nck_endpoint *ep, u32 idx)
{
	xa_lock(&ep->ops);
	__xa_erase(&ep->ops, idx);
	ep->nposted--;
	xa_unlock(&ep->ops);
}

/* The operation posted under idx (its reference now the entry's). */
void nck_ep_set(struct nck_endpoint *ep, u32 idx, struct nck_agg_op *op,
		bool claimed)
{
	xa_lock(&ep->ops);
	__xa_store(&ep->ops, idx, op, GFP_KERNEL);	/* reserved: no allocation */
	if (claimed)
		__xa_set_mark(&ep->ops, idx, NCK_EP_CLAIMED);
	xa_unlock(&ep->ops);
}

u64 nck_ep_handle(const struct nck_endpoint *ep, u32 idx)
{
	return (u64)ep->id << 32 | idx;
}

/* The operation a handle names, for its only waiter; NULL and *err if not. */
struct nck_agg_op *nck_ep_claim(struct nck_endpoint *ep, u64 handle, u32 *idx,
				int *err)
{
	struct nck_agg_op *op;

	if (upper_32_bits(handle) != ep->id) {
		*err = -EBADF;
		return NULL;
	}
	*idx = lower_32_bits(handle);
	xa_lock(&ep->ops);
	op = xa_load(&ep->ops, *idx);
	if (!op || xa_get_mark(&ep->ops, *idx, NCK_EP_ORPHAN)) {
		*err = -ESRCH;
		op = NULL;
	} else if (!nck_agg_posted_by_current(op)) {
		*err = -EPERM;	/* its result goes to another process's memory */
		op = NULL;
	} else if (xa_get_mark(&ep->ops, *idx, NCK_EP_CLAIMED)) {
		*err = -EBUSY;
		op = NULL;
	} else {
		__xa_set_mark(&ep->ops, *idx, NCK_EP_CLAIMED);
	}
	xa_unlock(&ep->ops);
	return op;
}

/* The waiter was interrupted: the handle may be waited for again. */
void nck_ep_unclaim(struct nck_endpoint *ep, u32 idx)
{
	xa_clear_mark(&ep->ops, idx, NCK_EP_CLAIMED);
}

/* The claimed entry idx is done with: remove it, give the reference back. */
void nck_ep_finish(struct nck_endpoint *ep, u32 idx)
{
	struct nck_agg_op *op;

	xa_lock(&ep->ops);
	op = __xa_erase(&ep->ops, idx);
	if (op)
		ep->nposted--;
	xa_unlock(&ep->ops);
	if (op)
		nck_agg_release(ep->comm, op, false);
}

/* The claimed entry idx loses its waiter but runs on; reaped when done. */
void nck_ep_orphan(struct nck_endpoint *ep, u32 idx)
{
	xa_set_mark(&ep->ops, idx, NCK_EP_ORPHAN);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Communicators: created and deleted over netlink (under RTNL), looked up
 * by the receive path under RCU, held by endpoints with a reference.
 *
 * Memory a communicator's users can make the kernel hold is bounded and
 * charged here, in two budgets:
 *  - posted memory (c->mem_used, at most c->mem_max): what processes'
 *    operations allocate, reserved before it is allocated
 *    (nc_comm_mem_reserve), so going over the limit is ENOBUFS for the
 *    caller and never an allocation failure elsewhere;
 *  - receive memory (c->rx_mem, at most c->rx_mem_max): every frame held
 *    on receive, whichever engine holds it (early frames, frames queued for
 *    the process, reduction inputs, float frames for the worker).  A frame
 *    over the limit is dropped and counted (drop_memory), and resent by
 *    its sender.
 */
#include <linux/random.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>

#include "auth.h"
#include "bearer.h"

/* ---------------------------------------------------------------- */
/* Memory                                                            */
/* ---------------------------------------------------------------- */

int nc_comm_mem_reserve(struct nc_comm *c, u64 bytes)
{
	if (bytes > c->mem_max)
		return -ENOBUFS;	/* never fits: keep what peers may need */
	for (;;) {
		if (atomic64_add_return(bytes, &c->mem_used) <= c->mem_max)
			return 0;
		atomic64_sub(bytes, &c->mem_used);
		/* finished reductions kept for repairs give way first */
		if (!nc_agg_reclaim(c))
			return -ENOBUFS;
	}
}

void nc_comm_mem_release(struct nc_comm *c, u64 bytes)
{
	if (bytes)
		atomic64_sub(bytes, &c->mem_used);
}

/* Hold skb on receive: charge it, or false when over the limit. */
bool nc_rx_charge(struct nc_comm *c, struct sk_buff *skb)
{
	u32 n = skb->truesize;

	if (atomic_long_add_return(n, &c->rx_mem) > c->rx_mem_max) {
		atomic_long_sub(n, &c->rx_mem);
		return false;
	}
	nc_skb_cb(skb)->charge = n;
	return true;
}

void nc_rx_uncharge(struct nc_comm *c, struct sk_buff *skb)
{
	atomic_long_sub(nc_skb_cb(skb)->charge, &c->rx_mem);
	nc_skb_cb(skb)->charge = 0;
}

void nc_rx_free(struct nc_comm *c, struct sk_buff *skb)
{
	nc_rx_uncharge(c, skb);
	kfree_skb(skb);
}

/* Free the charged frames of a queue only the caller can reach. */
void nc_rx_purge(struct nc_comm *c, struct sk_buff_head *q)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(q)))
		nc_rx_free(c, skb);
}

/* ---------------------------------------------------------------- */
/* Life                                                              */
/* ---------------------------------------------------------------- */

static void nc_comm_free(struct nc_comm *c)
{
	nc_sched_free(c->a2a_sched);
	nc_agg_free(c);
	nc_rx_purge(c, &c->early);
	WARN_ON_ONCE(atomic_long_read(&c->rx_mem));
	WARN_ON_ONCE(atomic64_read(&c->mem_used));
	nc_auth_free(c->auth);
	kvfree(c->peers);
	kvfree(c);
}

struct nc_comm *nc_comm_create(struct nc_net *nn, const struct nc_comm_cfg *cfg,
			       struct nc_bearer *b,
			       struct netlink_ext_ack *extack)
{
	u8 alen = b->ops->addr_len;
	struct nc_comm *c;
	int err;

	ASSERT_RTNL();
	c = kvzalloc(struct_size(c, addrs, (size_t)cfg->size * alen),
		     GFP_KERNEL_ACCOUNT);
	if (!c)
		return ERR_PTR(-ENOMEM);
	c->id = cfg->id;
	c->rank = cfg->rank;
	c->size = cfg->size;
	c->cookie = cfg->cookie;
	c->timeout_ms = cfg->timeout_ms;
	c->ifindex = b->dev->ifindex;
	c->nn = nn;
	c->owner = cfg->owner;
	c->group = cfg->group;
	c->mem_max = cfg->mem_max;
	c->rx_mem_max = cfg->rx_mem_max;
	c->addr_len = alen;
	memcpy(c->addrs, cfg->addrs, (size_t)cfg->size * alen);
	RCU_INIT_POINTER(c->bearer, b);
	refcount_set(&c->ref, 1);	/* the table's reference */
	mutex_init(&c->sched_lock);
	spin_lock_init(&c->lock);
	skb_queue_head_init(&c->early);
	init_waitqueue_head(&c->wq);
	c->oso = cfg->oso;
	c->tree_degree = cfg->degree;
	if (cfg->mcast)
		memcpy(c->mcast_addr, cfg->mcast, alen);
	else
		b->ops->group_default(cfg->id, c->mcast_addr);
	nc_join_init(c);
	err = nc_agg_init(c);	/* first: the free path relies on it */
	if (err)
		goto free;

	err = -ENOMEM;
	c->peers = kvcalloc(cfg->size, sizeof(*c->peers), GFP_KERNEL_ACCOUNT);
	if (!c->peers)
		goto free;
	if (cfg->key) {
		c->auth = nc_auth_create(cfg->key, cfg->key_len, cfg->size);
		if (IS_ERR(c->auth)) {
			err = PTR_ERR(c->auth);
			c->auth = NULL;
			NL_SET_ERR_MSG(extack, "cannot set up hmac(sha256) with this key");
			goto free;
		}
	}
	err = b->ops->group_join(b, c->mcast_addr);
	if (err)
		goto free;

	err = xa_insert(&nn->comms, cfg->id, c, GFP_KERNEL);
	if (err) {
		b->ops->group_leave(b, c->mcast_addr);
		if (err == -EBUSY) {
			NL_SET_ERR_MSG(extack, "communicator id in use");
			err = -EEXIST;
		}
		goto free;
	}
	nc_join_start(c);
	return c;
free:
	nc_comm_free(c);
	return ERR_PTR(err);
}

/* After the grace period (the receive path may still have seen c). */
static void nc_comm_free_work(struct work_struct *work)
{
	struct nc_comm *c = container_of(to_rcu_work(work), struct nc_comm,
					 free_work);

	nc_comm_free(c);
}

void nc_comm_put(struct nc_comm *c)
{
	if (refcount_dec_and_test(&c->ref)) {
		INIT_RCU_WORK(&c->free_work, nc_comm_free_work);
		queue_rcu_work(nc_wq, &c->free_work);
	}
}

/* Install (or with s == NULL drop) the alltoall schedule. */
void nc_comm_set_sched(struct nc_comm *c, struct nc_sched *s)
{
	struct nc_sched *old;

	mutex_lock(&c->sched_lock);
	old = c->a2a_sched;
	c->a2a_sched = s;
	WRITE_ONCE(c->sched_phases, s ? s->nphases : 0);
	WRITE_ONCE(c->sched_syncs, s ? s->nout : 0);
	mutex_unlock(&c->sched_lock);
	nc_sched_free(old);
}

/* A reference for an endpoint; NULL if there is no such communicator. */
struct nc_comm *nc_comm_get(struct nc_net *nn, u32 id)
{
	struct nc_comm *c;

	rcu_read_lock();
	c = xa_load(&nn->comms, id);
	if (c && !refcount_inc_not_zero(&c->ref))
		c = NULL;
	rcu_read_unlock();
	return c;
}

/* enum netcoll_comm_state, for dumps. */
int nc_comm_state(struct nc_comm *c)
{
	int state;

	spin_lock_bh(&c->lock);
	if (c->dead)
		state = NETCOLL_COMM_DEAD;
	else if (c->broken)
		state = NETCOLL_COMM_BROKEN;
	else if (!c->epoch)
		state = NETCOLL_COMM_JOINING;
	else
		state = NETCOLL_COMM_READY;
	spin_unlock_bh(&c->lock);
	return state;
}

/*
 * Under c->lock: an operation failed after it had started.  Operations are
 * matched across ranks by their sequence number alone, and the failed one
 * may have consumed a number on some ranks and not on others (or run its
 * course on some): every later operation could be combined with a
 * different call of a peer and return its data as a success.  So none
 * runs any more (ENOTRECOVERABLE); the peers, missing this rank, fail and
 * break in turn.  Operations already running finish as they can.  The
 * admin or owner deletes and re-creates the communicator, which gives it
 * a new epoch.
 */
void nc_comm_break(struct nc_comm *c)
{
	lockdep_assert_held(&c->lock);
	c->broken = true;
}

/*
 * The communicator can no longer run operations: fail the running one,
 * refuse the next ones, drop frames held for them.
 */
void nc_comm_fail(struct nc_comm *c, int err)
{
	struct sk_buff_head q;

	__skb_queue_head_init(&q);
	spin_lock_bh(&c->lock);
	if (!c->dead)
		c->dead = err;
	skb_queue_splice_init(&c->early, &q);
	spin_unlock_bh(&c->lock);
	nc_rx_purge(c, &q);
	wake_up_all(&c->wq);
	nc_join_stop(c);
	nc_agg_stop(c, c->dead);
}

int nc_comm_delete(struct nc_net *nn, u32 id)
{
	struct nc_comm *c;
	struct nc_bearer *b;

	ASSERT_RTNL();
	c = xa_erase(&nn->comms, id);
	if (!c)
		return -ENOENT;
	b = rtnl_dereference(c->bearer);
	if (b)
		b->ops->group_leave(b, c->mcast_addr);
	nc_comm_fail(c, -ESHUTDOWN);
	nc_comm_put(c);
	return 0;
}

void nc_comm_delete_all(struct nc_net *nn)
{
	struct nc_comm *c;
	unsigned long id;

	xa_for_each(&nn->comms, id, c)
		nc_comm_delete(nn, id);
}

/* The bearer b is going away: its communicators lose their path. */
void nc_comm_unbind_bearer(struct nc_net *nn, struct nc_bearer *b)
{
	struct nc_comm *c;
	unsigned long id;

	ASSERT_RTNL();
	xa_for_each(&nn->comms, id, c) {
		if (rtnl_dereference(c->bearer) != b)
			continue;
		RCU_INIT_POINTER(c->bearer, NULL);
		nc_comm_fail(c, -ENETDOWN);
	}
}

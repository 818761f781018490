// SPDX-License-Identifier: GPL-2.0
/*
 * Communicators: created and deleted over netlink (under RTNL), looked up
 * by the receive path under RCU, held by endpoints with a reference.
 */
#include <linux/rtnetlink.h>
#include <linux/slab.h>

#include "bearer.h"

struct nc_comm *nc_comm_create(struct nc_net *nn, u32 id, u32 rank, u32 size,
			       u64 cookie, u32 timeout_ms,
			       const struct nc_comm_agg_cfg *agg,
			       struct nc_bearer *b,
			       const u8 *addrs, struct netlink_ext_ack *extack)
{
	u8 alen = b->ops->addr_len;
	struct nc_comm *c;
	int err;

	ASSERT_RTNL();
	c = kvzalloc(struct_size(c, addrs, (size_t)size * alen), GFP_KERNEL);
	if (!c)
		return ERR_PTR(-ENOMEM);
	c->id = id;
	c->rank = rank;
	c->size = size;
	c->cookie = cookie;
	c->timeout_ms = timeout_ms;
	c->ifindex = b->dev->ifindex;
	c->nn = nn;
	c->addr_len = alen;
	memcpy(c->addrs, addrs, (size_t)size * alen);
	RCU_INIT_POINTER(c->bearer, b);
	refcount_set(&c->ref, 1);	/* the table's reference */
	mutex_init(&c->sched_lock);
	spin_lock_init(&c->lock);
	skb_queue_head_init(&c->early);
	init_waitqueue_head(&c->wq);
	c->oso = agg->oso;
	c->tree_degree = agg->degree;
	if (agg->mcast)
		memcpy(c->mcast_addr, agg->mcast, alen);
	else
		b->ops->group_default(id, c->mcast_addr);
	err = nc_agg_init(c);
	if (!err)
		err = b->ops->group_join(b, c->mcast_addr);
	if (err) {
		nc_agg_free(c);
		kvfree(c);
		return ERR_PTR(err);
	}

	err = xa_insert(&nn->comms, id, c, GFP_KERNEL);
	if (err) {
		b->ops->group_leave(b, c->mcast_addr);
		nc_agg_free(c);
		kvfree(c);
		if (err == -EBUSY) {
			NL_SET_ERR_MSG(extack, "communicator id in use");
			return ERR_PTR(-EEXIST);
		}
		return ERR_PTR(err);
	}
	return c;
}

static void nc_comm_free_rcu(struct rcu_head *head)
{
	struct nc_comm *c = container_of(head, struct nc_comm, rcu);

	nc_sched_free(c->a2a_sched);
	nc_agg_free(c);
	kvfree(c);
}

void nc_comm_put(struct nc_comm *c)
{
	if (refcount_dec_and_test(&c->ref)) {
		skb_queue_purge(&c->early);
		call_rcu(&c->rcu, nc_comm_free_rcu);
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

/*
 * The communicator can no longer run operations: fail the running one,
 * refuse the next ones, drop frames held for them.
 */
void nc_comm_fail(struct nc_comm *c, int err)
{
	spin_lock_bh(&c->lock);
	if (!c->dead)
		c->dead = err;
	__skb_queue_purge(&c->early);
	c->early_bytes = 0;
	spin_unlock_bh(&c->lock);
	wake_up_all(&c->wq);
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

// SPDX-License-Identifier: GPL-2.0
/*
 * Communicators: created and deleted over netlink (under RTNL), looked up
 * by the receive path under RCU, held by endpoints with a reference.
 *
 * Memory a communicator's users can make the kernel hold is bounded and
 * charged here, in two budgets:
 *  - posted memory (c->mem_used, at most c->mem_max): what processes'
 *    operations allocate, reserved before it is allocated
 *    (nck_comm_mem_reserve), so going over the limit is ENOBUFS for the
 *    caller and never an allocation failure elsewhere;
 *  - receive memory (c->rx_mem, at most c->rx_mem_max): every frame held
 *    on receive, whichever engine holds it (early frames, frames queued for
 *    the process, reduction inputs, float frames for the worker).  A frame
 *    over the limit is dropped and counted (drop_memory), and resent by
 *    its sender.
 * Both budgets of a user's communicator count against its owner's quota
 * on the device (access.c) until the communicator is freed, not only
 * while it is in the table: a deleted one an endpoint still holds is on
 * nn->user_gone until its last reference goes.
 */
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "auth.h"
#include "bearer.h"
#include "frame.h"
#include "sched.h"
#include "tree.h"
#include "netlink.h"

/* -- Memory ------------------------------------------------------ */

int nck_comm_mem_reserve(struct nck_comm *c, u64 bytes)
{
	if (bytes > c->mem_max)
		return -ENOBUFS;	/* never fits: keep what peers may need */
	/* finished reductions kept for repairs give way first */
	while (!nck_comm_mem_try(c, bytes))
		if (!nck_agg_reclaim(c, NULL))
			return -ENOBUFS;
	return 0;
}

/*
 * Reserve without reclaiming (softirq, c->lock may be held): what a peer's
 * frames make us allocate, e.g. a receive set for a finer fragment size.
 */
bool nck_comm_mem_try(struct nck_comm *c, u64 bytes)
{
	if (atomic64_add_return(bytes, &c->mem_used) <= c->mem_max)
		return true;
	atomic64_sub(bytes, &c->mem_used);
	return false;
}

void nck_comm_mem_release(struct nck_comm *c, u64 bytes)
{
	if (bytes)
		atomic64_sub(bytes, &c->mem_used);
}

/* Charge n bytes, as long as c's receive memory stays at most limit. */
bool nck_rx_charge_bytes(struct nck_comm *c, u32 n, u32 limit)
{
	if (atomic_long_add_return(n, &c->rx_mem) > limit) {
		atomic_long_sub(n, &c->rx_mem);
		return false;
	}
	return true;
}

void nck_rx_uncharge_bytes(struct nck_comm *c, u32 n)
{
	atomic_long_sub(n, &c->rx_mem);
}

/* ... as long as c's receive memory stays at most limit (<= rx_mem_max). */
bool nck_rx_charge_upto(struct nck_comm *c, struct sk_buff *skb, u32 limit)
{
	if (!nck_rx_charge_bytes(c, skb->truesize, limit))
		return false;
	nck_skb_cb(skb)->charge = skb->truesize;
	return true;
}

void nck_rx_charge_force(struct nck_comm *c, struct sk_buff *skb)
{
	atomic_long_add(skb->truesize, &c->rx_mem);
	nck_skb_cb(skb)->charge = skb->truesize;
}

void nck_rx_uncharge(struct nck_comm *c, struct sk_buff *skb)
{
	atomic_long_sub(nck_skb_cb(skb)->charge, &c->rx_mem);
	nck_skb_cb(skb)->charge = 0;
}

void nck_rx_free(struct nck_comm *c, struct sk_buff *skb)
{
	nck_rx_uncharge(c, skb);
	kfree_skb(skb);
}

/* Free the charged frames of a queue only the caller can reach. */
void nck_rx_purge(struct nck_comm *c, struct sk_buff_head *q)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(q)))
		nck_rx_free(c, skb);
}

/*
 * May we answer rank's frame of an operation that finished here (an
 * ack saying we need nothing more of it)?  Its sender missed our last
 * ack.  At most NCK_LATE_ACKS to each peer every NCK_LATE_ACKS_MS, both
 * engines together (the caller counts drop_ratelimit beyond): every forged copy of a
 * recent frame got its ack too, a reflection at a member's address on an
 * unkeyed communicator.  A peer lagging one operation misses few; one
 * that resends many does not use up the other peers' acks.  A sender
 * whose ack this drops asks again later.  Under c->lock.
 */
bool nck_peer_late_ack(struct nck_comm *c, u32 rank)
{
	struct nck_peer *p = &c->peers[rank];

	lockdep_assert_held(&c->lock);
	/* time elapsed, unsigned: no ordering of a stale or zero start */
	if (jiffies - p->late_from >= msecs_to_jiffies(NCK_LATE_ACKS_MS)) {
		p->late_from = jiffies;
		p->late_acks = 0;
	}
	if (p->late_acks >= NCK_LATE_ACKS)
		return false;
	p->late_acks++;
	return true;
}

/* -- Life -------------------------------------------------------- */

/* Guards every namespace's user_gone list (and c->gone): rare writers. */
static DEFINE_SPINLOCK(nck_comm_gone_lock);

void nck_comm_gone_usage(struct nck_net *nn, kuid_t uid, u32 *n, u64 *mem)
{
	struct nck_comm *c;

	spin_lock(&nck_comm_gone_lock);
	list_for_each_entry(c, &nn->user_gone, gone) {
		if (!uid_eq(c->owner, uid))
			continue;
		(*n)++;
		*mem += nck_comm_quota_bytes(c);
	}
	spin_unlock(&nck_comm_gone_lock);
}

/*
 * The namespace exits, its communicators deleted: wait until the works
 * that held the last references have freed them (netns.h), saying so
 * every 10 s as unregister_netdevice does for a device's references.
 */
void nck_comm_wait_freed(struct nck_net *nn)
{
	while (!wait_var_event_timeout(&nn->comms_alive,
				       !atomic_read(&nn->comms_alive), 10 * HZ))
		pr_warn("netcoll: waiting for %d communicators of an exiting namespace to be freed\n",
			atomic_read(&nn->comms_alive));
	WARN_ON_ONCE(!list_empty(&nn->user_gone));
}

static void nck_comm_free(struct nck_comm *c)
{
	struct nck_net *nn = c->nn;

	if (c->user_made) {	/* its quota comes back only now */
		spin_lock(&nck_comm_gone_lock);
		list_del_init(&c->gone);
		spin_unlock(&nck_comm_gone_lock);
	}
	nck_sched_free(c->a2a_sched);
	nck_agg_free(c);
	nck_rx_purge(c, &c->early);
	nck_early_books_purge(c, &c->early_books);
	skb_queue_purge(&c->txq);	/* nobody left to push it */
	WARN_ON_ONCE(atomic_long_read(&c->rx_mem));
	WARN_ON_ONCE(atomic64_read(&c->mem_used));
	nck_auth_free(c->auth);
	kvfree(c->hosts);
	kvfree(c->peers);
	kvfree(c);
	if (atomic_dec_and_test(&nn->comms_alive))
		wake_up_var(&nn->comms_alive);	/* nck_comm_wait_freed() */
}

/*
 * Another rank of a communicator this host already has: the same
 * communicator (cookie, members, device, and what its ranks must agree
 * on: trees, window, group, whether frames are keyed) and the same
 * owner.  Anything else is another communicator with a taken id.
 */
static bool nck_comm_sibling_ok(const struct nck_comm *head,
				const struct nck_comm *c)
{
	return head->cookie == c->cookie && head->size == c->size &&
	       head->ifindex == c->ifindex && head->addr_len == c->addr_len &&
	       uid_eq(head->owner, c->owner) &&
	       head->agg.tree_degree == c->agg.tree_degree &&
	       head->agg.oso == c->agg.oso && !head->auth == !c->auth &&
	       !memcmp(head->mcast_addr, c->mcast_addr, c->addr_len) &&
	       !memcmp(head->addrs, c->addrs, (size_t)c->size * c->addr_len);
}

/*
 * Into the namespace's table: as the id's first rank, or among the others
 * in rank order (a dump resumes by rank: nck_nl_comm_dump()).
 */
static int nck_comm_insert(struct nck_net *nn, struct nck_comm *c,
			   struct netlink_ext_ack *extack)
{
	struct nck_comm *head, *prev, *next;
	int err;

	ASSERT_RTNL();
	err = xa_insert(&nn->comms, c->id, c, GFP_KERNEL);
	if (err != -EBUSY)
		return err;
	head = xa_load(&nn->comms, c->id);
	if (!c->host_shared || !nck_comm_sibling_ok(head, c)) {
		NL_SET_ERR_MSG(extack, "communicator id in use");
		return -EEXIST;
	}
	for (prev = NULL, next = head; next && next->rank < c->rank;
	     next = rtnl_dereference(next->sibling))
		prev = next;
	if (next && next->rank == c->rank) {
		NL_SET_ERR_MSG(extack, "this host has that rank of the communicator already");
		return -EEXIST;
	}
	RCU_INIT_POINTER(c->sibling, next);
	if (prev)
		rcu_assign_pointer(prev->sibling, c);
	else
		xa_store(&nn->comms, c->id, c, GFP_KERNEL);	/* replaces: no alloc */
	return 0;
}

/* Out of the table; readers under RCU may still walk through c. */
static void nck_comm_unlink(struct nck_net *nn, struct nck_comm *c)
{
	struct nck_comm *next = rtnl_dereference(c->sibling);
	struct nck_comm *prev;

	ASSERT_RTNL();
	prev = xa_load(&nn->comms, c->id);
	if (prev == c) {
		if (next)
			xa_store(&nn->comms, c->id, next, GFP_KERNEL);	/* no alloc */
		else
			xa_erase(&nn->comms, c->id);
		return;
	}
	while (rtnl_dereference(prev->sibling) != c)
		prev = rtnl_dereference(prev->sibling);
	rcu_assign_pointer(prev->sibling, next);
}

/* Does another rank of c share c's address? */
static bool nck_comm_host_shared(const struct nck_comm *c)
{
	u32 r;

	for (r = 0; r < c->size; r++)
		if (r != c->rank &&
		    !memcmp(nck_comm_addr(c, r), nck_comm_addr(c, c->rank), c->addr_len))
			return true;
	return false;
}

static struct nck_comm *nck_comm_create(struct nck_net *nn, const struct nck_comm_cfg *cfg,
					struct nck_bearer *b,
				      struct netlink_ext_ack *extack)
{
	u8 alen = b->ops->addr_len;
	struct nck_comm *c;
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
	c->user_made = cfg->user_made;
	INIT_LIST_HEAD(&c->gone);
	c->transient = cfg->transient;
	c->addr_len = alen;
	memcpy(c->addrs, cfg->addrs, (size_t)cfg->size * alen);
	c->host_shared = nck_comm_host_shared(c);
	RCU_INIT_POINTER(c->bearer, b);
	refcount_set(&c->ref, 1);	/* the table's reference */
	mutex_init(&c->sched_lock);
	spin_lock_init(&c->lock);
	skb_queue_head_init(&c->early);
	skb_queue_head_init(&c->txq);
	INIT_WORK(&c->tx_work, nck_frames_tx_work);
	nck_early_books_init(&c->early_books, NULL);
	init_waitqueue_head(&c->wq);
	c->agg.oso = cfg->oso;
	c->agg.tree_degree = cfg->degree;
	if (cfg->mcast)
		memcpy(c->mcast_addr, cfg->mcast, alen);
	else
		b->ops->group_default(cfg->id, c->mcast_addr);
	nck_join_init(c);
	/* before the default trees, which follow it; nck_comm_free frees it */
	c->hosts = nck_hosts_build(c->addrs, c->size, alen);
	if (IS_ERR(c->hosts)) {
		err = PTR_ERR(c->hosts);
		kvfree(c);
		return ERR_PTR(err);
	}
	atomic_inc(&nn->comms_alive);	/* from here on nck_comm_free() frees c */
	err = nck_agg_init(c);	/* first freed thing: the free path relies on it */
	if (err)
		goto free;

	err = -ENOMEM;
	c->peers = kvcalloc(cfg->size, sizeof(*c->peers), GFP_KERNEL_ACCOUNT);
	if (!c->peers)
		goto free;

	if (cfg->key) {
		c->auth = nck_auth_create(cfg->key, cfg->key_len, cfg->size);
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

	err = nck_comm_insert(nn, c, extack);
	if (err) {
		b->ops->group_leave(b, c->mcast_addr);
		goto free;
	}
	nck_join_start(c);
	return c;
free:
	nck_comm_free(c);
	return ERR_PTR(err);
}

/* After the grace period (the receive path may still have seen c). */
static void nck_comm_free_work(struct work_struct *work)
{
	struct nck_comm *c = container_of(to_rcu_work(work), struct nck_comm,
					 free_work);

	nck_comm_free(c);
}

void nck_comm_put(struct nck_comm *c)
{
	if (refcount_dec_and_test(&c->ref)) {
		INIT_RCU_WORK(&c->free_work, nck_comm_free_work);
		queue_rcu_work(nck_wq, &c->free_work);
	}
}

/* Install (or with s == NULL drop) the alltoall schedule. */
void nck_comm_set_sched(struct nck_comm *c, struct nck_sched *s)
{
	struct nck_sched *old;

	mutex_lock(&c->sched_lock);
	old = c->a2a_sched;
	c->a2a_sched = s;
	WRITE_ONCE(c->sched_phases, s ? s->nphases : 0);
	WRITE_ONCE(c->sched_syncs, s ? s->nout : 0);
	mutex_unlock(&c->sched_lock);
	nck_sched_free(old);
}

/*
 * The given rank of communicator id on this host, under RCU or RTNL;
 * with NCK_RANK_ANY its only rank here (NULL if it has several).
 */
static struct nck_comm *nck_comm_find(struct nck_net *nn, u32 id, u32 rank)
{
	struct nck_comm *c = xa_load(&nn->comms, id);

	if (c && rank == NCK_RANK_ANY)
		return nck_comm_sibling(c) ? NULL : c;
	while (c && c->rank != rank)
		c = nck_comm_sibling(c);
	return c;
}

/* A reference for an endpoint; NULL if there is no such communicator. */
struct nck_comm *nck_comm_get(struct nck_net *nn, u32 id, u32 rank)
{
	struct nck_comm *c;

	rcu_read_lock();
	c = nck_comm_find(nn, id, rank);
	if (c && !refcount_inc_not_zero(&c->ref))
		c = NULL;
	rcu_read_unlock();
	return c;
}

/* enum netcoll_comm_state, for dumps. */
static int nck_comm_state(struct nck_comm *c)
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
void nck_comm_break(struct nck_comm *c)
{
	lockdep_assert_held(&c->lock);
	c->broken = true;
}

/*
 * The communicator can no longer run operations: fail the running one,
 * refuse the next ones, drop frames held for them.
 */
static void nck_comm_fail(struct nck_comm *c, int err)
{
	struct sk_buff_head q;

	__skb_queue_head_init(&q);
	spin_lock_bh(&c->lock);
	if (!c->dead)
		c->dead = err;
	skb_queue_splice_init(&c->early, &q);
	nck_early_books_purge(c, &c->early_books);
	spin_unlock_bh(&c->lock);
	nck_rx_purge(c, &q);
	wake_up_all(&c->wq);
	nck_join_stop(c);
	nck_agg_stop(c, c->dead);
}

/* c is in nn's table, under RTNL: out of it, failed, the table's reference put. */
static void nck_comm_delete(struct nck_net *nn, struct nck_comm *c)
{
	struct nck_bearer *b;

	ASSERT_RTNL();
	nck_comm_unlink(nn, c);
	/*
	 * A user's communicator deleted while an endpoint still holds it
	 * (with up to mem_max of posted operations) counts against the
	 * owner's quota until it is freed: counted only while in the table,
	 * a user could delete a bound one, make another, and so hold any
	 * number of times the device's limits.
	 */
	if (c->user_made) {
		spin_lock(&nck_comm_gone_lock);
		list_add(&c->gone, &nn->user_gone);
		spin_unlock(&nck_comm_gone_lock);
	}
	b = rtnl_dereference(c->bearer);
	if (b)
		b->ops->group_leave(b, c->mcast_addr);
	/*
	 * An endpoint may hold c long after this; the bearer is freed when
	 * its device is detached, and only communicators still in the table
	 * are unbound then (nck_comm_unbind_bearer).  Readers under RCU see
	 * NULL from here on (no MTU, no way out: ESHUTDOWN).
	 */
	RCU_INIT_POINTER(c->bearer, NULL);
	nck_comm_fail(c, -ESHUTDOWN);
	nck_comm_put(c);
}

/*
 * The endpoint of transient communicator c closed (c held by the caller):
 * delete c, if it is still the namespace's (it may have been deleted, and
 * its id taken again, already).
 */
void nck_comm_delete_this(struct nck_net *nn, struct nck_comm *c)
{
	rtnl_lock();
	if (nck_comm_find(nn, c->id, c->rank) == c)
		nck_comm_delete(nn, c);
	rtnl_unlock();
}

void nck_comm_delete_all(struct nck_net *nn)
{
	struct nck_comm *c;
	unsigned long id;

	ASSERT_RTNL();
	/* a deleted rank may be freed at once: start again from the table */
	xa_for_each(&nn->comms, id, c)
		while ((c = xa_load(&nn->comms, id)))
			nck_comm_delete(nn, c);
}

/* The bearer b is going away: its communicators lose their path. */
void nck_comm_unbind_bearer(struct nck_net *nn, struct nck_bearer *b)
{
	struct nck_comm *head, *c;
	unsigned long id;

	ASSERT_RTNL();
	xa_for_each(&nn->comms, id, head) {
		for (c = head; c; c = nck_comm_sibling(c)) {
			if (rtnl_dereference(c->bearer) != b)
				continue;
			/* joined while bound: left here, or never (COMM_DEL sees NULL) */
			b->ops->group_leave(b, c->mcast_addr);
			RCU_INIT_POINTER(c->bearer, NULL);
			nck_comm_fail(c, -ENETDOWN);
		}
	}
}

/* -- Netlink: communicators -------------------------------------- */

/*
 * Members -> addrs[rank]; every rank 0..size-1 exactly once.  Ranks may
 * share an address: they are on one host, and tell their frames apart by
 * the header's ranks.
 */
static int nck_nl_parse_members(struct genl_info *info, struct nck_bearer *b,
				u8 **addrsp, u32 *sizep)
{
	struct nlattr *members = info->attrs[NETCOLL_A_COMM_MEMBERS];
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr *tb[NETCOLL_A_MEMBER_MAX + 1];
	u8 alen = b->ops->addr_len;
	unsigned long *seen = NULL;
	struct nlattr *m;
	u32 size = 0, rank;
	u8 *addrs = NULL;
	int rem, err;

	nla_for_each_nested(m, members, rem)
		size++;
	if (!size || size > NETCOLL_COMM_SIZE_MAX) {
		NL_SET_ERR_MSG_ATTR(extack, members, "member count out of range");
		return -EINVAL;
	}
	addrs = kvcalloc(size, alen, GFP_KERNEL);
	seen = bitmap_zalloc(size, GFP_KERNEL);
	err = -ENOMEM;
	if (!addrs || !seen)
		goto fail;

	err = -EINVAL;
	nla_for_each_nested(m, members, rem) {
		if (nla_parse_nested(tb, NETCOLL_A_MEMBER_MAX, m, nck_member_policy,
				     extack))
			goto fail;
		if (!tb[NETCOLL_A_MEMBER_RANK] || !tb[NETCOLL_A_MEMBER_ADDR]) {
			NL_SET_ERR_MSG_ATTR(extack, m, "member needs RANK and ADDR");
			goto fail;
		}
		rank = nla_get_u32(tb[NETCOLL_A_MEMBER_RANK]);
		if (rank >= size) {
			NL_SET_ERR_MSG_ATTR(extack, tb[NETCOLL_A_MEMBER_RANK],
					    "member rank out of range");
			goto fail;
		}
		if (test_and_set_bit(rank, seen)) {
			NL_SET_ERR_MSG_ATTR(extack, tb[NETCOLL_A_MEMBER_RANK],
					    "duplicate member rank");
			goto fail;
		}
		if (nla_len(tb[NETCOLL_A_MEMBER_ADDR]) != alen ||
		    !b->ops->addr_ok(nla_data(tb[NETCOLL_A_MEMBER_ADDR]))) {
			NL_SET_ERR_MSG_ATTR(extack, tb[NETCOLL_A_MEMBER_ADDR],
					    "invalid member address for this device");
			goto fail;
		}
		memcpy(addrs + (size_t)rank * alen,
		       nla_data(tb[NETCOLL_A_MEMBER_ADDR]), alen);
	}
	bitmap_free(seen);
	*addrsp = addrs;
	*sizep = size;
	return 0;
fail:
	bitmap_free(seen);
	kvfree(addrs);
	return err;
}

/*
 * Owner: named, else the sender, or none for the admin (only the admin
 * acts on it then: access.c).  Group: named, else none -- the
 * creator's primary group was the default, and where users share one
 * (gid 100 "users") any of them could bind a new communicator before its
 * owner did.
 */
static int nck_nl_owner(struct sk_buff *skb, struct genl_info *info,
			struct nck_comm_cfg *cfg)
{
	struct nlattr *uid = info->attrs[NETCOLL_A_COMM_OWNER];
	struct nlattr *gid = info->attrs[NETCOLL_A_COMM_GROUP];
	struct user_namespace *ns = nck_nl_userns(skb);

	/* the admin's own has none: uid 0 is not the admin (access.c) */
	cfg->owner = netlink_capable(skb, CAP_NET_ADMIN) ? INVALID_UID :
							  current_euid();
	cfg->group = INVALID_GID;
	if (uid) {
		cfg->owner = make_kuid(ns, nla_get_u32(uid));
		if (!uid_valid(cfg->owner)) {
			NL_SET_ERR_MSG_ATTR(info->extack, uid,
					    "owner is no uid of this user namespace");
			return -EINVAL;
		}
	}
	if (gid) {
		cfg->group = make_kgid(ns, nla_get_u32(gid));
		if (!gid_valid(cfg->group)) {
			NL_SET_ERR_MSG_ATTR(info->extack, gid,
					    "group is no gid of this user namespace");
			return -EINVAL;
		}
	}
	return 0;
}

int nck_nl_comm_new(struct sk_buff *skb, struct genl_info *info)
{
	struct nck_net *nn = nck_net(genl_info_net(info));
	struct nlattr *mcast = info->attrs[NETCOLL_A_COMM_MCAST_ADDR];
	struct nlattr *key = info->attrs[NETCOLL_A_COMM_KEY];
	struct nck_comm_cfg cfg = {};
	struct nck_bearer *b;
	struct nck_comm *c;
	u8 *addrs;
	int err;

	if (GENL_REQ_ATTR_CHECK(info, NETCOLL_A_COMM_ID) ||
	    GENL_REQ_ATTR_CHECK(info, NETCOLL_A_COMM_RANK) ||
	    GENL_REQ_ATTR_CHECK(info, NETCOLL_A_COMM_MEMBERS))
		return -EINVAL;
	cfg.id = nla_get_u32(info->attrs[NETCOLL_A_COMM_ID]);
	cfg.rank = nla_get_u32(info->attrs[NETCOLL_A_COMM_RANK]);
	if (info->attrs[NETCOLL_A_COMM_COOKIE])
		cfg.cookie = nla_get_u64(info->attrs[NETCOLL_A_COMM_COOKIE]);
	cfg.timeout_ms = nck_nl_u32(info, NETCOLL_A_COMM_TIMEOUT_MS,
				    NETCOLL_TIMEOUT_MS_DEFAULT);
	cfg.oso = nck_nl_u32(info, NETCOLL_A_COMM_OSO, NETCOLL_OSO_DEFAULT);
	cfg.degree = nck_nl_u32(info, NETCOLL_A_COMM_TREE_DEGREE,
				NETCOLL_TREE_DEGREE_DEFAULT);
	cfg.mem_max = nck_nl_u32(info, NETCOLL_A_COMM_MEM_MAX,
				 READ_ONCE(nck_comm_mem_max));
	cfg.rx_mem_max = nck_nl_u32(info, NETCOLL_A_COMM_RX_MEM_MAX,
				    READ_ONCE(nck_rx_queue_max));
	cfg.transient = !!info->attrs[NETCOLL_A_COMM_TRANSIENT];
	if (key) {
		cfg.key = nla_data(key);
		cfg.key_len = nla_len(key);
	}
	err = nck_nl_owner(skb, info, &cfg);
	if (err)
		return err;

	rtnl_lock();
	b = nck_nl_bearer(info);
	if (IS_ERR(b)) {
		err = PTR_ERR(b);
		goto out;
	}
	err = nck_nl_may_create_comm(nn, b, skb, info, &cfg);
	if (err)
		goto out;
	err = -EINVAL;
	if (mcast) {
		if (nla_len(mcast) != b->ops->addr_len ||
		    !b->ops->group_ok(nla_data(mcast))) {
			NL_SET_ERR_MSG_ATTR(info->extack, mcast,
					    "not a group address of this medium");
			goto out;
		}
		if (cfg.user_made && !b->ops->group_ours(nla_data(mcast))) {
			NL_SET_ERR_MSG_ATTR(info->extack, mcast,
					    "a user's group address is one of netcoll's own");
			err = -EPERM;
			goto out;
		}
		cfg.mcast = nla_data(mcast);
	}
	err = nck_nl_parse_members(info, b, &addrs, &cfg.size);
	if (err)
		goto out;
	err = -EINVAL;
	if (cfg.rank >= cfg.size) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NETCOLL_A_COMM_RANK],
				    "rank not below the member count");
	} else if (memcmp(addrs + (size_t)cfg.rank * b->ops->addr_len,
			  b->dev->dev_addr, b->ops->addr_len)) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NETCOLL_A_COMM_RANK],
				    "this rank's member address is not the device's");
	} else {
		cfg.addrs = addrs;
		c = nck_comm_create(nn, &cfg, b, info->extack);
		err = PTR_ERR_OR_ZERO(c);
	}
	kvfree(addrs);
out:
	rtnl_unlock();
	return err;
}

int nck_nl_comm_del(struct sk_buff *skb, struct genl_info *info)
{
	struct nck_net *nn = nck_net(genl_info_net(info));
	struct nck_comm *c;
	u32 id, rank;
	int err = 0;

	if (GENL_REQ_ATTR_CHECK(info, NETCOLL_A_COMM_ID))
		return -EINVAL;
	id = nla_get_u32(info->attrs[NETCOLL_A_COMM_ID]);
	rank = nck_nl_u32(info, NETCOLL_A_COMM_RANK, NCK_RANK_ANY);
	rtnl_lock();
	c = nck_comm_find(nn, id, rank);	/* RTNL: it cannot go away */
	if (!c && rank == NCK_RANK_ANY && xa_load(&nn->comms, id)) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NETCOLL_A_COMM_ID],
				    "this host has several ranks of the communicator: name one");
		err = -EINVAL;
	} else if (!c) {
		err = -ENOENT;
	} else if (!nck_nl_may_admin_comm(c, skb)) {
		NL_SET_ERR_MSG(info->extack,
			       "only the communicator's owner or an admin may delete it");
		err = -EPERM;
	} else {
		nck_comm_delete(nn, c);
	}
	rtnl_unlock();
	if (err == -ENOENT)
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NETCOLL_A_COMM_ID],
				    "no such communicator");
	return err;
}

static int nck_nl_fill_members(struct sk_buff *skb, const struct nck_comm *c)
{
	struct nlattr *members, *m;
	u32 r;

	members = nla_nest_start(skb, NETCOLL_A_COMM_MEMBERS);
	if (!members)
		return -EMSGSIZE;
	for (r = 0; r < c->size; r++) {
		m = nla_nest_start(skb, NETCOLL_A_MEMBER);
		if (!m || nla_put_u32(skb, NETCOLL_A_MEMBER_RANK, r) ||
		    nla_put(skb, NETCOLL_A_MEMBER_ADDR, c->addr_len,
			    nck_comm_addr(c, r)))
			return -EMSGSIZE;
		nla_nest_end(skb, m);
	}
	nla_nest_end(skb, members);
	return 0;
}

/* The cookie and epoch, if the sender of req may see them. */
static int nck_nl_fill_secrets(struct sk_buff *skb, struct nck_comm *c,
			       struct sk_buff *req)
{
	if (!nck_nl_may_see_secrets(c, req))
		return 0;
	return nla_put_u64_64bit(skb, NETCOLL_A_COMM_COOKIE, c->cookie,
				 NETCOLL_A_PAD) ||
	       nla_put_u64_64bit(skb, NETCOLL_A_COMM_EPOCH, READ_ONCE(c->epoch),
				 NETCOLL_A_PAD);
}

/*
 * A round-trip estimate, read without its owner's lock (the alltoall's
 * process, c->lock for the aggregation engine): a snapshot for people,
 * which may mix two samples' values.
 */
static int nck_nl_fill_rtt(struct sk_buff *skb, int type,
			   const struct nck_rtt *live)
{
	struct nck_rtt r = {
		.srtt_us = READ_ONCE(live->srtt_us),
		.rttvar_us = READ_ONCE(live->rttvar_us),
	};
	struct nlattr *nest = nla_nest_start(skb, type);

	if (!nest ||
	    nla_put_u32(skb, NETCOLL_A_RTT_SRTT_US, r.srtt_us) ||
	    nla_put_u32(skb, NETCOLL_A_RTT_RTTVAR_US, r.rttvar_us) ||
	    nla_put_u32(skb, NETCOLL_A_RTT_RTO_US, nck_rtt_rto_us(&r)))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int nck_nl_fill_comm(struct sk_buff *skb, struct nck_comm *c,
			    bool with_members, struct sk_buff *req,
			    u32 portid, u32 seq, int flags)
{
	struct user_namespace *ns = nck_nl_userns(req);
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &nck_genl_family, flags,
			  NETCOLL_CMD_COMM_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, NETCOLL_A_COMM_ID, c->id) ||
	    nla_put_u32(skb, NETCOLL_A_IFINDEX, c->ifindex) ||
	    nla_put_u32(skb, NETCOLL_A_COMM_RANK, c->rank) ||
	    nla_put_u32(skb, NETCOLL_A_COMM_SIZE, c->size) ||
	    nck_nl_fill_secrets(skb, c, req) ||
	    (uid_valid(c->owner) &&
	     nla_put_u32(skb, NETCOLL_A_COMM_OWNER, from_kuid_munged(ns, c->owner))) ||
	    (gid_valid(c->group) &&
	     nla_put_u32(skb, NETCOLL_A_COMM_GROUP, from_kgid_munged(ns, c->group))) ||
	    nla_put_u8(skb, NETCOLL_A_COMM_AUTH, !!c->auth) ||
	    nla_put_u8(skb, NETCOLL_A_COMM_USER_MADE, c->user_made) ||
	    nla_put_u8(skb, NETCOLL_A_COMM_TRANSIENT, c->transient) ||
	    nla_put_u32(skb, NETCOLL_A_COMM_MEM_MAX, c->mem_max) ||
	    nla_put_u32(skb, NETCOLL_A_COMM_RX_MEM_MAX, c->rx_mem_max) ||
	    nla_put_u32(skb, NETCOLL_A_COMM_STATE, nck_comm_state(c)) ||
	    nla_put_u32(skb, NETCOLL_A_COMM_TIMEOUT_MS, c->timeout_ms) ||
	    nla_put_u32(skb, NETCOLL_A_COMM_OP_SEQ, READ_ONCE(c->next_seq)) ||
	    nla_put_u8(skb, NETCOLL_A_COMM_BOUND, !!atomic_read(&c->bound)) ||
	    nla_put_u32(skb, NETCOLL_A_SCHED_PHASES, READ_ONCE(c->sched_phases)) ||
	    nla_put_u32(skb, NETCOLL_A_SCHED_SYNCS, READ_ONCE(c->sched_syncs)) ||
	    nla_put_u32(skb, NETCOLL_A_COMM_OSO, c->agg.oso) ||
	    nla_put_u32(skb, NETCOLL_A_COMM_AGG_SEQ, READ_ONCE(c->agg.next)) ||
	    nla_put_u32(skb, NETCOLL_A_COMM_TREE_DEGREE, c->agg.tree_degree) ||
	    nla_put(skb, NETCOLL_A_COMM_MCAST_ADDR, c->addr_len, c->mcast_addr) ||
	    nck_nl_fill_rtt(skb, NETCOLL_A_COMM_RTT, &c->rtt) ||
	    nck_nl_fill_rtt(skb, NETCOLL_A_COMM_AGG_RTT, &c->agg.rtt) ||
	    nla_put_u64_64bit(skb, NETCOLL_A_COMM_MEM_USED,
			      atomic64_read(&c->mem_used), NETCOLL_A_PAD) ||
	    nla_put_u64_64bit(skb, NETCOLL_A_COMM_RX_MEM_USED,
			      atomic_long_read(&c->rx_mem), NETCOLL_A_PAD) ||
	    nla_put_u32(skb, NETCOLL_A_COMM_INSTALLED_MEM,
			READ_ONCE(c->installed_mem)) ||
	    (with_members && nck_nl_fill_members(skb, c))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

int nck_nl_comm_get(struct sk_buff *skb, struct genl_info *info)
{
	struct nck_comm *c;
	struct sk_buff *msg;
	int err;

	c = nck_nl_comm(info);
	if (IS_ERR(c))
		return PTR_ERR(c);
	/* each member: its nest, rank and address (up to NETCOLL_ADDR_MAX) */
	msg = genlmsg_new(NLMSG_GOODSIZE + (size_t)c->size *
			  (nla_total_size(0) + nla_total_size(sizeof(u32)) +
			   nla_total_size(c->addr_len)), GFP_KERNEL);
	if (!msg) {
		nck_comm_put(c);
		return -ENOMEM;
	}
	err = nck_nl_fill_comm(msg, c, true, skb, info->snd_portid,
			       info->snd_seq, 0);
	nck_comm_put(c);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

int nck_nl_comm_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nck_net *nn = nck_net(sock_net(skb->sk));
	unsigned long id = cb->args[0];
	struct nck_comm *c;

	/*
	 * args[0]: the id to go on with; args[1]: the rank of it to go on
	 * from (siblings are in rank order: ranks deleted or added meanwhile
	 * shift nothing)
	 */
	rcu_read_lock();
	xa_for_each_start(&nn->comms, id, c, cb->args[0]) {
		for (; c; c = rcu_dereference(c->sibling)) {
			if (id == cb->args[0] && c->rank < cb->args[1])
				continue;
			if (nck_nl_fill_comm(skb, c, false, cb->skb,
					     NETLINK_CB(cb->skb).portid,
					     cb->nlh->nlmsg_seq, NLM_F_MULTI))
				goto out;
			cb->args[0] = id;
			cb->args[1] = (long)c->rank + 1;
		}
		cb->args[0] = id + 1;
		cb->args[1] = 0;
	}
out:
	rcu_read_unlock();
	return skb->len;
}

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Communicators (comm.c): a group of ranks that run collectives together;
 * who may use one (access.c) and how its members agree on an incarnation
 * (join.c).  Several ranks may share a host (one address): each has its
 * own struct nck_comm with the same id, chained in rank order from the
 * table's entry by @sibling, and frames between them never leave the host
 * (frame.c).
 *
 * Ownership: reference counted.  The namespace's table holds one until
 * COMM_DEL, every endpoint bound to it, every netlink request using it, a
 * queued float worker and a queued broadcast start (agg_rx.c) hold one each.
 * The last nck_comm_put() frees it after an RCU grace period (the receive
 * path finds it under RCU, without a reference), in process context
 * (nck_comm_free_work): that is its only freeing path.  The table's
 * reference covers the @sibling chain too: a communicator is in the chain
 * exactly while it is in the table.
 */
#ifndef NCK_COMM_H
#define NCK_COMM_H

#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/uidgid.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/netcoll.h>

#include "netns.h"
#include "agg.h"

struct nck_bearer;
struct nck_auth;
struct nck_hosts;
struct nck_op;
struct nck_sched;
struct genl_info;

/**
 * struct nck_peer - what we keep of another member
 * @nonce: rank 0: of the incarnation let in; 0: none
 * @challenge: rank 0: the value it must echo; 0: none out
 * @answer_at: rank 0: jiffies of the last answer; 0: never answered
 * @late_from: jiffies: the interval @late_acks counts in
 * @late_acks: acks sent to it since @late_from for its frames of finished
 *	operations, of both engines (nck_peer_late_ack())
 * @answer_shift: rank 0: backoff of those answers
 */
struct nck_peer {
	u64 nonce;
	u64 challenge;
	unsigned long answer_at;
	unsigned long late_from;
	u16 late_acks;
	u8 answer_shift;
};

/**
 * struct nck_comm - a communicator on this host
 * @id: its id in the namespace (fixed)
 * @rank: this host's rank (fixed)
 * @size: members (fixed)
 * @timeout_ms: default time budget of an operation (fixed)
 * @cookie: frames carry it; 0: none (fixed)
 * @ifindex: the device it was created on (fixed)
 * @nn: its namespace (fixed)
 * @bearer: the device; NULL once it is gone (RCU; written under RTNL)
 * @ref: references, see the top of this file
 * @bound: an endpoint is bound (atomic)
 * @owner: may bind and reconfigure (fixed); INVALID_UID: nobody but the admin
 * @group: may bind; INVALID_GID: nobody (fixed)
 * @auth: frame tags; NULL: none (fixed; its replay windows have their lock)
 * @peers: [size], joins (rank 0) and late acks; @lock
 * @user_made: made by a user on a device open to users, and counted
 *	against that user's quota there (fixed), until freed
 * @gone: on nn->user_gone from its deletion until freed, if @user_made
 *	(nck_comm_gone_lock)
 * @transient: deleted when the endpoint its owner (or an admin) bound to it
 *	closes (fixed)
 * @mem_max: bytes posted operations may allocate (fixed)
 * @rx_mem_max: bytes of frames held on receive (fixed)
 * @mem_used: charged by nck_comm_mem_reserve() (atomic)
 * @rx_mem: charged by nck_rx_charge() (atomic)
 * @sched_lock: protects @a2a_sched, @sched_phases, @sched_syncs
 * @a2a_sched: the installed alltoall slice; NULL: linear.  Written under
 *	RTNL too (sched.c), so RTNL holders may read it
 * @sched_phases: of @a2a_sched, for dumps
 * @sched_syncs: of @a2a_sched, for dumps
 * @installed_mem: bytes of what was installed over netlink (the schedule,
 *	trees, the broadcast order: nck_nl_install_charge()), counted with
 *	@mem_max and @rx_mem_max against a user-made communicator's owner's
 *	quota (RTNL)
 * @rtt: round trip of alltoall fragments; the alltoall's process (one at
 *	a time, under the endpoint's mutex)
 * @tx_full_at: jiffies (| 1) when the bearer last refused a frame of ours,
 *	its queue being full; 0: never.  A hint, written and read without a
 *	lock (nck_comm_congested())
 * @txq: frames built under @lock, in the order built, waiting to be sent
 *	(frame.h: nck_frames_queue, nck_frames_push); its own lock, taken
 *	inside @lock; purged by nck_comm_free()
 * @txq_mem: truesize of the frames on @txq (under @txq's lock; frame.h)
 * @tx_pushing: bit 0: a context is sending @txq (atomic bitops)
 * @tx_work: sends what a push left in @txq after its rounds (frame.h);
 *	queued holding a reference, which the work drops
 * @repairs_refused: tells the aggregation engine that n repairs of its
 *	operation seq never went out (the device refused them, or @txq had
 *	no room); called with @lock held (set once at creation)
 * @join_told: a join timed out and was posted as an event (atomic, once
 *	per communicator: the operations it held up never started, and a
 *	caller retrying with a 1 ms budget multicast one a try)
 * @lock: protects everything below, and @peers; taken in softirq (the
 *	receive path, timers), so process context takes it with _bh
 * @dead: -ESHUTDOWN or -ENETDOWN once deleted or its device went; else 0
 * @broken: an operation failed after it started (nck_comm_break)
 * @epoch: agreed with rank 0; 0: not yet
 * @join_nonce: ours, while asking rank 0
 * @join_challenge: rank 0's, to echo; 0: none yet
 * @join_rto: the join's retransmission interval
 * @join_timer: resends the join until rank 0 answers
 * @op: the running alltoall; NULL: none
 * @next_seq: sequence of the running or next alltoall
 * @a2a_failed: the alltoall before @next_seq failed here (none starts
 *	after it: the communicator is broken)
 * @early: frames of alltoalls not started yet
 * @early_books: which fragments @early holds, to ack them (rel.h)
 * @wq: the alltoall's process sleeps here
 * @agg: the aggregation engine's state (agg.h states its locks)
 * @mcast_addr: the group results are multicast to (fixed)
 * @free_work: frees it after a grace period
 * @sibling: the next rank of this communicator on this host, in rank
 *	order (RCU; written under RTNL)
 * @host_shared: another rank has this rank's address (fixed): frames to it
 *	and to the group are also delivered on this host
 * @hosts: which ranks share a host, for the built-in trees; NULL if none do
 *	(fixed)
 * @addr_len: bytes of one member address (fixed)
 * @addrs: @size member addresses in rank order (fixed)
 */
struct nck_comm {
	u32 id;
	u32 rank;
	u32 size;
	u32 timeout_ms;
	u64 cookie;
	int ifindex;
	struct nck_net *nn;
	struct nck_bearer __rcu *bearer;
	refcount_t ref;
	atomic_t bound;
	kuid_t owner;
	kgid_t group;
	struct nck_auth *auth;
	struct nck_peer *peers;
	bool user_made;
	bool transient;
	struct list_head gone;
	u32 mem_max;
	u32 rx_mem_max;
	atomic64_t mem_used;
	atomic_long_t rx_mem;
	struct mutex sched_lock;	/* protects a2a_sched, sched_* */
	struct nck_sched *a2a_sched;
	u32 sched_phases, sched_syncs;
	u32 installed_mem;
	struct nck_rtt rtt;
	unsigned long tx_full_at;
	struct sk_buff_head txq;
	u32 txq_mem;
	unsigned long tx_pushing;
	struct work_struct tx_work;
	void (*repairs_refused)(struct nck_comm *c, u32 seq, u32 n);
	atomic_t join_told;

	spinlock_t lock;		/* protects what follows, and peers */
	int dead;
	bool broken;
	u64 epoch;
	u64 join_nonce;
	u64 join_challenge;
	unsigned long join_rto;
	struct timer_list join_timer;
	struct nck_op *op;
	u32 next_seq;
	bool a2a_failed;
	struct sk_buff_head early;
	struct nck_early_books early_books;
	wait_queue_head_t wq;

	struct nck_agg agg;
	u8 mcast_addr[NETCOLL_ADDR_MAX];

	struct rcu_work free_work;
	struct nck_comm __rcu *sibling;
	bool host_shared;
	struct nck_hosts *hosts;
	u8 addr_len;
	u8 addrs[];
};

/*
 * Did our own link's queue overflow lately?  Then frames are lost because
 * we send faster than the link takes them (a slow cable, not a lossy
 * one), and sending anything twice only loses more.
 */
#define NCK_CONGESTED_HOLD	HZ

static inline bool nck_comm_congested(const struct nck_comm *c)
{
	unsigned long at = READ_ONCE(c->tx_full_at);

	return at && time_before(jiffies, at + NCK_CONGESTED_HOLD);
}

/* What c counts against its owner's quota, if user-made (access.c). */
static inline u64 nck_comm_quota_bytes(const struct nck_comm *c)
{
	return (u64)c->mem_max + c->rx_mem_max + c->installed_mem;
}

static inline const u8 *nck_comm_addr(const struct nck_comm *c, u32 rank)
{
	return c->addrs + (size_t)rank * c->addr_len;
}

/* What COMM_NEW asks for, checked by netlink.c. */
struct nck_comm_cfg {
	u32 id, rank, size;
	u64 cookie;
	u32 timeout_ms;
	u32 oso;
	u32 degree;
	const u8 *mcast;		/* NULL: the medium's default group */
	kuid_t owner;
	kgid_t group;
	const u8 *key;			/* NULL: frames are not authenticated */
	u32 key_len;
	u32 mem_max, rx_mem_max;
	bool user_made;			/* a user's, not the admin's */
	bool transient;			/* deleted when its endpoint closes */
	const u8 *addrs;		/* size * the bearer's addr_len */
};

/* A user's deleted communicators still held: *n more, *mem more bytes. */
void nck_comm_gone_usage(struct nck_net *nn, kuid_t uid, u32 *n, u64 *mem);
void nck_comm_wait_freed(struct nck_net *nn);
void nck_comm_delete_this(struct nck_net *nn, struct nck_comm *c);
/* rank NCK_RANK_ANY: the only rank of id on this host */
#define NCK_RANK_ANY	U32_MAX
/* The next rank of c's communicator on this host (under RCU or RTNL). */
static inline struct nck_comm *nck_comm_sibling(const struct nck_comm *c)
{
	return rcu_dereference_rtnl(c->sibling);
}

struct nck_comm *nck_comm_get(struct nck_net *nn, u32 id, u32 rank);
void nck_comm_put(struct nck_comm *c);
void nck_comm_unbind_bearer(struct nck_net *nn, struct nck_bearer *b);
void nck_comm_delete_all(struct nck_net *nn);
void nck_comm_set_sched(struct nck_comm *c, struct nck_sched *s);
int nck_comm_mem_reserve(struct nck_comm *c, u64 bytes);
bool nck_comm_mem_try(struct nck_comm *c, u64 bytes);
void nck_comm_mem_release(struct nck_comm *c, u64 bytes);

/* Acks for frames of finished operations, per peer (comm.c). */
#define NCK_LATE_ACKS		8
#define NCK_LATE_ACKS_MS	100
bool nck_peer_late_ack(struct nck_comm *c, u32 rank);

/* The receive memory of a communicator: one limit for every holder. */
bool nck_rx_charge_upto(struct nck_comm *c, struct sk_buff *skb, u32 limit);
/* Hold skb on receive: charge it, or false when over the limit. */
static inline bool nck_rx_charge(struct nck_comm *c, struct sk_buff *skb)
{
	return nck_rx_charge_upto(c, skb, c->rx_mem_max);
}

/*
 * Charged past the limit: only for a frame its consumer takes at once
 * (refusing it could leave everything charged waiting for it).
 */
void nck_rx_charge_force(struct nck_comm *c, struct sk_buff *skb);
void nck_rx_uncharge(struct nck_comm *c, struct sk_buff *skb);
/* Bookkeeping kept for held frames (the early books), charged alike. */
bool nck_rx_charge_bytes(struct nck_comm *c, u32 n, u32 limit);
void nck_rx_uncharge_bytes(struct nck_comm *c, u32 n);
void nck_rx_free(struct nck_comm *c, struct sk_buff *skb);
void nck_rx_purge(struct nck_comm *c, struct sk_buff_head *q);

/*
 * Under c->lock: may an operation start now?  0, or the errno it fails
 * with: the communicator is gone, or broken (nck_comm_break).
 */
static inline int nck_comm_usable(const struct nck_comm *c)
{
	lockdep_assert_held(&c->lock);
	if (c->dead)
		return c->dead;
	return c->broken ? -ENOTRECOVERABLE : 0;
}

void nck_comm_break(struct nck_comm *c);

/* access.c: who may do what */
bool nck_may_bind(const struct nck_comm *c, const struct file *file);
bool nck_may_end(const struct nck_comm *c, const struct file *file);
bool nck_nl_may_admin_comm(const struct nck_comm *c, struct sk_buff *skb);
bool nck_nl_may_see_secrets(const struct nck_comm *c, struct sk_buff *skb);
int nck_nl_may_create_comm(struct nck_net *nn, struct nck_bearer *b,
			   struct sk_buff *skb, struct genl_info *info,
			   struct nck_comm_cfg *cfg);
int nck_nl_install_charge(struct nck_comm *c, u32 old, u32 new,
			  struct sk_buff *skb, struct genl_info *info);

/* join.c: the communicator's epoch, from rank 0 */
void nck_join_init(struct nck_comm *c);
void nck_join_start(struct nck_comm *c);
void nck_join_stop(struct nck_comm *c);
void nck_join_rcv(struct nck_comm *c, struct sk_buff *skb,
		  const struct nc_frame *f);
int nck_join_wait(struct nck_comm *c, unsigned long deadline);

#endif /* NCK_COMM_H */

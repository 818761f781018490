/* SPDX-License-Identifier: GPL-2.0 */
/*
 * netcoll module internals: the objects, who owns them, who frees them.
 *
 *   nc_net       per network namespace: bearers, communicators, counters.
 *                Owned by the namespace (pernet ops).
 *   nc_bearer    an attached device (bearer.h).  Owned by the namespace's
 *                bearer list (RTNL); freed by detach after synchronize_net.
 *   nc_comm      a communicator.  Reference counted: the namespace's table
 *                holds one until COMM_DEL, every endpoint bound to it, every
 *                netlink request using it and a queued float worker hold one
 *                each.  The last nc_comm_put() frees it after an RCU grace
 *                period (the receive path finds it under RCU, without a
 *                reference), in process context (nc_comm_free_work).
 *   nc_op        one alltoall in flight (transport.c).  Owned by the calling
 *                process's stack frame in nc_op_run(); the receive path
 *                reaches it only through c->op, under c->lock.
 *   nc_tree      this rank's view of an aggregation tree (tree.c).  Owned by
 *                c->trees[], replaced under c->tree_lock.
 *   nc_sched     an alltoall order (sched.c).  An installed one is owned by
 *                c->a2a_sched, replaced under c->sched_lock; a built-in one
 *                by the alltoall call that made it.
 *   nc_agg_op    one reduction (agg.c).  Reference counted: its slot in
 *                c->agg_slot[] (the engine) and the endpoint that posted it
 *                hold one each; see agg.c for the rules.
 *   nc_endpoint  an open /dev/netcoll file (endpoint.c).  Owned by the file;
 *                freed by release, which no ioctl can race.
 *
 * Configuration (attach, detach, communicator new/del) runs under RTNL,
 * like the rest of the networking control plane.  The receive path
 * (softirq) finds communicators under RCU and touches an operation only
 * under comm->lock.
 */
#ifndef NC_CORE_H
#define NC_CORE_H

#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/uidgid.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <linux/wait.h>
#include <net/netns/generic.h>
#include <linux/netcoll.h>

#include "shared/nc_wire.h"
#include "rel.h"

struct nc_bearer;

/* Module parameters (main.c). */
extern unsigned short nc_ethertype;
extern unsigned int nc_rto_min_ms;
extern unsigned int nc_rto_max_ms;
extern unsigned int nc_max_retries;
extern unsigned int nc_tx_window;
extern unsigned int nc_rx_queue_max;
extern unsigned int nc_comm_mem_max;
extern unsigned int nc_ep_ops_max;
extern bool nc_fpu_defer_all;
extern struct workqueue_struct *nc_wq;

struct nc_stats {
	u64 v[__NETCOLL_STAT_MAX];
};

struct nc_net {
	struct list_head bearers;	/* RTNL for writers, RCU for readers */
	struct xarray comms;		/* comm_id -> nc_comm */
	struct nc_stats __percpu *stats;
	struct net *net;
};

extern unsigned int nc_net_id;

static inline struct nc_net *nc_net(const struct net *net)
{
	return net_generic(net, nc_net_id);
}

static inline void nc_stat_add(struct nc_net *nn, int id, u64 n)
{
	this_cpu_add(nn->stats->v[id], n);
}

static inline void nc_stat_inc(struct nc_net *nn, int id)
{
	nc_stat_add(nn, id, 1);
}

void nc_stats_read(struct nc_net *nn, u64 *out);

#define NETCOLL_NONE		U32_MAX

/* Message tags: data messages use their round/step; tokens this range. */
#define NC_TAG_SYNC		0x8000
#define NC_TAG_SYNC_MAX		0x7fff

/*
 * One phase of this rank's alltoall schedule: wait for the tokens
 * in[in_first .. in_first + nin), send the block to send_to, and once it is
 * acknowledged send the tokens out[out_first .. out_first + nout).
 */
struct nc_phase {
	u32 index;			/* phase number in the global plan */
	u32 send_to;			/* NETCOLL_NONE: no send */
	u32 recv_from;			/* NETCOLL_NONE: no receive */
	u32 in_first, nin;
	u32 out_first, nout;
};

struct nc_sync_ref {
	u32 rank;
	u16 tag;			/* NC_TAG_SYNC | number in phase order */
};

/*
 * The order in which an alltoall sends its messages.  A schedule is an
 * object, not code: built-in orders (linear, pairwise, ring) and installed
 * contention-free slices are the same thing to the executor.
 */
struct nc_sched {
	u32 nphases;
	struct nc_phase *phase;
	struct nc_sync_ref *in, *out;
	u32 nin, nout;
	bool installed;
};

/* sched.c */
struct nc_sched *nc_sched_builtin(u32 algo, u32 rank, u32 size);
struct nc_sched *nc_sched_from_slice(const struct nc_phase *ph, u32 nphases,
				     const struct nc_sync_ref *in,
				     const u32 *in_phase, u32 nin,
				     const struct nc_sync_ref *out,
				     const u32 *out_phase, u32 nout, int *err);
void nc_sched_free(struct nc_sched *s);

struct nc_op;
struct nc_agg_op;

/* This rank's view of an aggregation tree. */
struct nc_tree {
	u32 root;
	u32 parent;			/* == own rank at the root */
	u32 nchildren;
	bool installed;			/* false: built-in f-nomial */
	u32 children[];			/* ascending: the reduction order */
};

/* tree.c */
struct nc_tree *nc_tree_fnomial(u32 rank, u32 size, u32 degree, u32 index);
struct nc_tree *nc_tree_from_parents(u32 rank, u32 size, const u32 *parents,
				     struct netlink_ext_ack *extack);

struct nc_auth;

/* Per peer state of a communicator, kept by rank 0 for joins. */
struct nc_peer {
	u64 nonce;			/* of the incarnation let in; 0: none */
	u64 challenge;			/* it must echo; 0: none out */
	unsigned long answer_at;	/* jiffies; 0: never answered */
	u8 answer_shift;		/* backoff of those answers */
};

/* Ops in flight at most per communicator: slots for 2 * OSO sequences. */
#define NC_AGG_SLOTS		(2 * NETCOLL_OSO_MAX)

struct nc_comm {
	u32 id;
	u32 rank;
	u32 size;
	u32 timeout_ms;
	u64 cookie;
	int ifindex;
	struct nc_net *nn;
	struct nc_bearer __rcu *bearer;	/* NULL once the device is gone */
	refcount_t ref;
	atomic_t bound;			/* an endpoint is bound */
	kuid_t owner;			/* may bind and reconfigure */
	kgid_t group;			/* may bind (INVALID_GID: nobody) */
	struct nc_auth *auth;		/* frame tags; NULL: none; fixed */
	struct nc_peer *peers;		/* [size], under lock */
	u32 mem_max;			/* bytes of posted operations */
	u32 rx_mem_max;			/* bytes of frames held on receive */
	atomic64_t mem_used;		/* charged by nc_comm_mem_reserve() */
	atomic_long_t rx_mem;		/* charged by nc_rx_charge() */
	struct mutex sched_lock;	/* protects a2a_sched */
	struct nc_sched *a2a_sched;	/* installed slice, NULL: linear */
	u32 sched_phases, sched_syncs;	/* of a2a_sched, for dumps */
	struct nc_rtt rtt;		/* alltoall round trip: the op's process */

	spinlock_t lock;		/* protects what follows */
	int dead;			/* -ESHUTDOWN or -ENETDOWN, else 0 */
	bool broken;			/* an operation failed after starting */
	u64 epoch;			/* agreed with rank 0; 0: not yet */
	u64 join_nonce;			/* ours, while asking rank 0 */
	u64 join_challenge;		/* rank 0's, to echo; 0: none yet */
	unsigned long join_rto;
	struct timer_list join_timer;
	struct nc_op *op;		/* the running operation */
	u32 next_seq;			/* sequence of the running or next op */
	struct sk_buff_head early;	/* frames of ops not started yet */
	wait_queue_head_t wq;		/* the op's process sleeps here */

	/* Aggregation (agg.c); the fields below `lock` are under it too. */
	u32 oso;			/* outstanding ops per rank */
	u32 tree_degree;
	struct mutex tree_lock;		/* protects trees[] */
	struct nc_tree *trees[NETCOLL_TREES_MAX];
	struct nc_agg_op *agg_slot[NC_AGG_SLOTS];	/* by seq % (2 * oso) */
	u32 agg_next;			/* sequence of the next local op */
	struct nc_rtt agg_rtt;		/* reductions' round trip, under lock */
	struct sk_buff_head agg_early;	/* frames of ops not started yet */
	struct timer_list agg_timer;
	struct work_struct agg_work;	/* float frames softirq could not do */
	struct sk_buff_head agg_deferred;
	wait_queue_head_t agg_wq;
	u8 mcast_addr[NETCOLL_ADDR_MAX];

	struct rcu_work free_work;
	u8 addr_len;
	u8 addrs[];			/* size * addr_len, rank order */
};

static inline const u8 *nc_comm_addr(const struct nc_comm *c, u32 rank)
{
	return c->addrs + (size_t)rank * c->addr_len;
}

/* comm.c */
struct nc_comm_cfg {
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
	const u8 *addrs;		/* size * the bearer's addr_len */
};

struct nc_comm *nc_comm_create(struct nc_net *nn, const struct nc_comm_cfg *cfg,
			       struct nc_bearer *b,
			       struct netlink_ext_ack *extack);
int nc_comm_delete(struct nc_net *nn, u32 id);
struct nc_comm *nc_comm_get(struct nc_net *nn, u32 id);
void nc_comm_put(struct nc_comm *c);
void nc_comm_fail(struct nc_comm *c, int err);
void nc_comm_unbind_bearer(struct nc_net *nn, struct nc_bearer *b);
void nc_comm_delete_all(struct nc_net *nn);
void nc_comm_set_sched(struct nc_comm *c, struct nc_sched *s);
int nc_comm_state(struct nc_comm *c);
int nc_comm_mem_reserve(struct nc_comm *c, u64 bytes);
void nc_comm_mem_release(struct nc_comm *c, u64 bytes);
bool nc_rx_charge(struct nc_comm *c, struct sk_buff *skb);
void nc_rx_uncharge(struct nc_comm *c, struct sk_buff *skb);
void nc_rx_free(struct nc_comm *c, struct sk_buff *skb);
void nc_rx_purge(struct nc_comm *c, struct sk_buff_head *q);

/*
 * Under c->lock: may an operation start now?  0, or the errno it fails
 * with: the communicator is gone, or broken (nc_comm_break).
 */
static inline int nc_comm_usable(const struct nc_comm *c)
{
	if (c->dead)
		return c->dead;
	return c->broken ? -ENOTRECOVERABLE : 0;
}

void nc_comm_break(struct nc_comm *c);

/* access.c: who may do what */
bool nc_may_admin_net(struct net *net);
bool nc_may_bind(const struct nc_comm *c);
bool nc_nl_may_admin_comm(const struct nc_comm *c, struct sk_buff *skb,
			  struct net *net);
bool nc_nl_may_see_secrets(const struct nc_comm *c, struct sk_buff *skb,
			   struct net *net);

/* join.c: the communicator's epoch, from rank 0 */
void nc_join_init(struct nc_comm *c);
void nc_join_start(struct nc_comm *c);
void nc_join_stop(struct nc_comm *c);
void nc_join_rcv(struct nc_comm *c, struct sk_buff *skb,
		 const struct nc_frame *f);
int nc_join_wait(struct nc_comm *c, unsigned long deadline);

/* transport.c: messages, fragments, acks, retransmission */
/*
 * A message of an operation.  Sends go out in list order, each after the
 * previous one was sent completely, except `unordered` ones (they must come
 * last in the list), which go as soon as their conditions hold.  A send
 * waits until the received messages [wait_rx_lo, wait_rx_hi) are complete
 * and, if wait_tx >= 0, that send and every ordered send before it are
 * acknowledged.
 */
struct nc_msg_desc {
	u32 peer;
	u16 tag;
	u32 len;
	void __user *ubuf;
	u32 wait_rx_lo, wait_rx_hi;	/* tx only */
	int wait_tx;			/* tx only */
	bool unordered;			/* tx only */
};

int nc_op_run(struct nc_comm *c, const struct nc_msg_desc *tx, u32 ntx,
	      const struct nc_msg_desc *rx, u32 nrx, u32 timeout_ms);
void nc_transport_rcv(struct nc_comm *c, struct sk_buff *skb,
		      const struct nc_frame *f);

/* reduce.c, reduce_fp.c */
bool nc_reduce_float_supported(void);
bool nc_reduce_fpu_usable(void);
void nc_reduce(u32 op, u32 dtype, void *acc, const void *in, u32 bytes);
bool nc_reduce_float(u32 op, u32 dtype, void *acc, const void *in, u32 bytes);

/* agg.c: the aggregation engine */
struct nc_agg_args {
	const void __user *sendbuf;
	void __user *recvbuf;
	u64 count;
	u32 op, dtype, root, flags, split;
	u32 timeout_ms;
};

int nc_agg_init(struct nc_comm *c);
void nc_agg_stop(struct nc_comm *c, int err);
void nc_agg_free(struct nc_comm *c);
struct nc_agg_op *nc_agg_start(struct nc_comm *c, const struct nc_agg_args *a);
int nc_agg_wait(struct nc_comm *c, struct nc_agg_op *op);
bool nc_agg_done(const struct nc_agg_op *op);
void nc_agg_release(struct nc_comm *c, struct nc_agg_op *op, bool cancel);
void nc_agg_rcv(struct nc_comm *c, struct sk_buff *skb,
		const struct nc_frame *f);
int nc_agg_set_tree(struct nc_comm *c, u32 index, struct nc_tree *t);
bool nc_agg_reclaim(struct nc_comm *c);
void nc_agg_close(struct nc_comm *c);

/* Frames (transport.c), shared with agg.c and join.c */
struct sk_buff *nc_frame_alloc(unsigned int payload, gfp_t gfp);
int nc_frame_xmit_to(struct nc_comm *c, struct sk_buff *skb, const u8 *dst);
int nc_frame_xmit(struct nc_comm *c, struct sk_buff *skb, u32 peer);
void nc_frame_defer(struct sk_buff_head *q, struct sk_buff *skb, u32 dst);
void nc_frames_flush(struct nc_comm *c, struct sk_buff_head *q);
void nc_frame_hdr(struct nc_comm *c, struct nc_frame *f, u16 type, u32 seq,
		  u32 dst, u16 tag);
unsigned int nc_comm_payload_max(struct nc_comm *c);

/*
 * The control block of every skb netcoll holds: on receive, the bytes
 * charged to the communicator's receive memory; on transmit (frames built
 * under c->lock, sent after it), the destination rank.  A held frame's
 * header stays in its data and is decoded again when needed
 * (nc_skb_hdr), so the control block carries nothing the frame says.
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

/* coll_reduce.c, coll_alltoall.c */
struct nc_endpoint;
int nc_coll_barrier(struct nc_endpoint *ep, struct nc_comm *c, u32 timeout_ms);
int nc_coll_reduce(struct nc_endpoint *ep, struct nc_comm *c,
		   struct netcoll_reduce *r, bool start);
int nc_coll_wait(struct nc_endpoint *ep, struct nc_comm *c, u64 handle);
int nc_coll_alltoall(struct nc_comm *c, const struct netcoll_alltoall_args *a);

/* netlink.c */
int nc_genl_init(void);
void nc_genl_exit(void);
void nc_event_op_failed(struct nc_comm *c, u32 seq, int err, u32 peer);
void nc_event_dev_detached(struct net *net, struct net_device *dev, int err);

/* chardev.c */
int nc_chardev_init(void);
void nc_chardev_exit(void);

#endif /* NC_CORE_H */

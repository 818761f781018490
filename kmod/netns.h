/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the whole module shares: its parameters (main.c), the work queue,
 * and the state of one network namespace, which stands for one host.
 */
#ifndef NCK_NETNS_H
#define NCK_NETNS_H

#include <linux/list.h>
#include <linux/percpu.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/netns/generic.h>
#include <linux/netcoll.h>

/* Module parameters (main.c); read without locks, changed by admins. */
extern unsigned short nck_ethertype;
extern unsigned int nck_rto_min_ms;
extern unsigned int nck_rto_max_ms;
extern unsigned int nck_max_retries;
extern unsigned int nck_tx_window;
extern unsigned int nck_rx_queue_max;
extern unsigned int nck_comm_mem_max;
extern unsigned int nck_ep_ops_max;
extern bool nck_fpu_defer_all;
/* Float reductions softirq could not do, broadcast starts, sends, frees. */
extern struct workqueue_struct *nck_wq;

/* "No rank", "no phase": an all-ones u32. */
#define NETCOLL_NONE		U32_MAX

struct nck_stats {
	u64 v[__NETCOLL_STAT_MAX];
};

/**
 * struct nck_net - netcoll in one network namespace (pernet ops own it)
 * @bearers: attached devices; written under RTNL, read under RCU
 * @bearers_gen: bumped under RTNL at every change of @bearers, so that a
 *	dump resumed after one is marked NLM_F_DUMP_INTR (nck_nl_dev_dump())
 * @comms: communicator id -> struct nck_comm; the xarray's own lock for
 *	writers (under RTNL too), RCU for the receive path
 * @stats: counters, per CPU; updated anywhere, summed by nck_stats_read()
 * @net: the namespace
 * @comms_alive: communicators made here and not freed yet, deleted ones
 *	included: a work (frame.c's tx_work, agg.c's) may hold the last
 *	reference of one after the endpoint that held the namespace closed,
 *	and still count into @stats.  The namespace's exit waits for 0
 *	before it frees them (nck_comm_create() and nck_comm_free() count).
 */
struct nck_net {
	struct list_head bearers;
	unsigned int bearers_gen;
	struct xarray comms;
	/*
	 * Users' communicators deleted from @comms whose last reference
	 * (an endpoint's) is not gone yet: their memory is still held, so
	 * they still count against their owner's quota (access.c).  Under
	 * nck_comm_gone_lock; comm.c adds and removes them.
	 */
	struct list_head user_gone;
	struct nck_stats __percpu *stats;
	struct net *net;
	atomic_t comms_alive;
};

extern unsigned int nck_net_id;

static inline struct nck_net *nck_net(const struct net *net)
{
	return net_generic(net, nck_net_id);
}

static inline void nck_stat_add(struct nck_net *nn, int id, u64 n)
{
	this_cpu_add(nn->stats->v[id], n);
}

static inline void nck_stat_inc(struct nck_net *nn, int id)
{
	nck_stat_add(nn, id, 1);
}

void nck_stats_read(struct nck_net *nn, u64 *out);

#endif /* NCK_NETNS_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the whole module shares: its parameters (main.c), the work queue,
 * and the state of one network namespace, which stands for one host.
 */
#ifndef NC_NETNS_H
#define NC_NETNS_H

#include <linux/list.h>
#include <linux/percpu.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/netns/generic.h>
#include <linux/netcoll.h>

/* Module parameters (main.c); read without locks, changed by admins. */
extern unsigned short nc_ethertype;
extern unsigned int nc_rto_min_ms;
extern unsigned int nc_rto_max_ms;
extern unsigned int nc_max_retries;
extern unsigned int nc_tx_window;
extern unsigned int nc_rx_queue_max;
extern unsigned int nc_comm_mem_max;
extern unsigned int nc_ep_ops_max;
extern bool nc_fpu_defer_all;
/* Float reductions softirq could not do, and communicator frees. */
extern struct workqueue_struct *nc_wq;

/* "No rank", "no phase": an all-ones u32. */
#define NETCOLL_NONE		U32_MAX

struct nc_stats {
	u64 v[__NETCOLL_STAT_MAX];
};

/**
 * struct nc_net - netcoll in one network namespace (pernet ops own it)
 * @bearers: attached devices; written under RTNL, read under RCU
 * @comms: communicator id -> struct nc_comm; the xarray's own lock for
 *	writers (under RTNL too), RCU for the receive path
 * @stats: counters, per CPU; updated anywhere, summed by nc_stats_read()
 * @net: the namespace
 */
struct nc_net {
	struct list_head bearers;
	struct xarray comms;
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

#endif /* NC_NETNS_H */

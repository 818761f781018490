// SPDX-License-Identifier: GPL-2.0
/*
 * netcoll: collective operations below the socket layer.
 *
 * Module set-up: parameters, per network namespace state, and the order
 * in which the parts come up and go down.
 *
 * The objects, who owns them, who frees them (each header says more):
 *
 *   nck_net       per network namespace: bearers, communicators, counters.
 *                Owned by the namespace (pernet ops).
 *   nck_bearer    an attached device (bearer.h).  Owned by the namespace's
 *                bearer list (RTNL); freed by detach after synchronize_net.
 *   nck_comm      a communicator (comm.h).  Reference counted: the table,
 *                endpoints, requests and queued works hold one each (comm.h
 *                names them); the last nck_comm_put() frees it after an RCU
 *                grace period.  Several ranks of one communicator on this
 *                host are chained from the table's entry (c->sibling).
 *   nck_hosts     which ranks share a host, for trees over hosts (tree.h).
 *                Owned by its communicator (fixed); freed with it.
 *   nck_op        one alltoall in flight (transport.h).  Owned by the calling
 *                process's stack frame in nck_op_run(); the receive path
 *                reaches it only through c->op, under c->lock.
 *   nck_agg       a communicator's aggregation state (agg.h), embedded in it.
 *   nck_tree      this rank's view of an aggregation tree (tree.h).  Owned by
 *                c->agg.trees[], replaced under c->agg.tree_lock.
 *   nck_sched     an alltoall order (sched.h).  An installed one is owned by
 *                c->a2a_sched, replaced under c->sched_lock; a built-in one
 *                by the alltoall call that made it.
 *   nck_agg_op    one reduction (agg_op.h).  Reference counted: its slot in
 *                c->agg.slot[] (the engine) and the endpoint that posted it
 *                hold one each; see agg.c for the rules.
 *   nck_endpoint  an open /dev/netcoll file (endpoint.h).  Owned by the file;
 *                freed by release, which no ioctl can race.
 *   netcoll_ops   /proc/net/netcoll_ops (procfs.c), what reductions wait
 *                for.  Owned by the namespace (pernet init and exit).
 *
 * Configuration (attach, detach, communicator new/del) runs under RTNL,
 * like the rest of the networking control plane.  The receive path
 * (softirq) finds communicators under RCU and touches an operation only
 * under comm->lock.
 */
#include <linux/module.h>
#include <linux/rtnetlink.h>
#include <net/net_namespace.h>

#include "bearer.h"
#include "endpoint.h"
#include "netlink.h"
#include "procfs.h"

unsigned short nck_ethertype = NETCOLL_ETHERTYPE;
module_param_named(ethertype, nck_ethertype, ushort, 0444);
MODULE_PARM_DESC(ethertype, "Ethertype of netcoll frames (default 0x88B5)");

/*
 * 2 ms: a lost frame of a small reduction costs about a round trip, not
 * several (docs/loss-bench.md); the estimate (SRTT + 4 RTTVAR) keeps
 * slower paths slower.  Not below one jiffy, whatever HZ is.
 */
unsigned int nck_rto_min_ms = 2;
module_param_named(rto_min_ms, nck_rto_min_ms, uint, 0644);
MODULE_PARM_DESC(rto_min_ms, "Smallest retransmission timeout in ms");

unsigned int nck_rto_max_ms = 500;
module_param_named(rto_max_ms, nck_rto_max_ms, uint, 0644);
MODULE_PARM_DESC(rto_max_ms, "Largest retransmission timeout in ms");

unsigned int nck_max_retries = 10;
module_param_named(max_retries, nck_max_retries, uint, 0644);
MODULE_PARM_DESC(max_retries, "Timeouts without progress before an operation fails");

unsigned int nck_tx_window = 64;
module_param_named(tx_window, nck_tx_window, uint, 0644);
MODULE_PARM_DESC(tx_window, "Fragments in flight per operation (and at most 96 KiB)");

unsigned int nck_rx_queue_max = 8 << 20;
module_param_named(rx_queue_max, nck_rx_queue_max, uint, 0644);
MODULE_PARM_DESC(rx_queue_max,
		 "Default receive memory of a communicator: bytes of frames it holds (early, queued, reduction inputs)");

unsigned int nck_comm_mem_max = 64 << 20;
module_param_named(comm_mem_max, nck_comm_mem_max, uint, 0644);
MODULE_PARM_DESC(comm_mem_max,
		 "Default posted memory of a communicator: bytes its operations may allocate (ENOBUFS beyond)");

unsigned int nck_ep_ops_max = 1024;
module_param_named(ep_ops_max, nck_ep_ops_max, uint, 0644);
MODULE_PARM_DESC(ep_ops_max,
		 "Reductions an endpoint may have posted and not waited for (EAGAIN beyond)");

bool nck_fpu_defer_all;
module_param_named(fpu_defer_all, nck_fpu_defer_all, bool, 0644);
MODULE_PARM_DESC(fpu_defer_all,
		 "Test knob: reduce every float contribution in the worker, as when softirq interrupted a kernel FPU user");

unsigned int nck_net_id __read_mostly;

struct workqueue_struct *nck_wq;

void nck_stats_read(struct nck_net *nn, u64 *out)
{
	int cpu, i;

	memset(out, 0, sizeof(u64) * __NETCOLL_STAT_MAX);
	for_each_possible_cpu(cpu) {
		const struct nck_stats *s = per_cpu_ptr(nn->stats, cpu);

		for (i = 0; i < __NETCOLL_STAT_MAX; i++)
			out[i] += READ_ONCE(s->v[i]);
	}
}

static int __net_init nck_net_init(struct net *net)
{
	struct nck_net *nn = nck_net(net);
	int err;

	INIT_LIST_HEAD(&nn->bearers);
	xa_init(&nn->comms);
	INIT_LIST_HEAD(&nn->user_gone);
	nn->net = net;
	nn->stats = alloc_percpu(struct nck_stats);
	if (!nn->stats)
		return -ENOMEM;
	err = nck_procfs_init(net);
	if (err)
		free_percpu(nn->stats);
	return err;
}

static void __net_exit nck_net_exit(struct net *net)
{
	struct nck_net *nn = nck_net(net);

	nck_procfs_exit(net);
	rtnl_lock();
	nck_bearer_detach_all(net);
	nck_comm_delete_all(nn);
	rtnl_unlock();
}

/*
 * After every namespace of the batch deleted its communicators: wait
 * until they are freed, before the counters they count into.  Once a
 * batch, not once a namespace: the frees wait for grace periods, which
 * then pass for all at once (docs/kmod-notes.md, "Namespace exit").
 */
static void __net_exit nck_net_exit_batch(struct list_head *net_exit_list)
{
	struct nck_net *nn;
	struct net *net;

	list_for_each_entry(net, net_exit_list, exit_list) {
		nn = nck_net(net);
		nck_comm_wait_freed(nn);
		xa_destroy(&nn->comms);
		free_percpu(nn->stats);
	}
}

static struct pernet_operations nck_net_ops = {
	.init	= nck_net_init,
	.exit	= nck_net_exit,
	.exit_batch = nck_net_exit_batch,
	.id	= &nck_net_id,
	.size	= sizeof(struct nck_net),
};

static int __init nck_init(void)
{
	int err;

	if (nck_ethertype < ETH_P_802_3_MIN) {
		pr_err("netcoll: ethertype 0x%04x is a length, not a type\n",
		       nck_ethertype);
		return -EINVAL;
	}
	/*
	 * High priority: its work is the receive path's (float reductions
	 * softirq could not do, broadcasts started by their data), and must
	 * not wait behind the busy processes it exists to not wait for.
	 */
	nck_wq = alloc_workqueue("netcoll", WQ_HIGHPRI, 0);
	if (!nck_wq)
		return -ENOMEM;
	nck_eth_offload_init();
	err = register_pernet_subsys(&nck_net_ops);
	if (err)
		goto err_wq;
	err = nck_bearer_notifier_init();
	if (err)
		goto err_pernet;
	err = nck_genl_init();
	if (err)
		goto err_notifier;
	err = nck_chardev_init();
	if (err)
		goto err_genl;
	pr_info("netcoll: abi %u, wire %u, ethertype 0x%04x\n",
		NETCOLL_ABI_VERSION, NETCOLL_WIRE_VERSION, nck_ethertype);
	return 0;

err_genl:
	nck_genl_exit();
err_notifier:
	nck_bearer_notifier_exit();
err_pernet:
	unregister_pernet_subsys(&nck_net_ops);
err_wq:
	nck_eth_offload_exit();
	destroy_workqueue(nck_wq);
	return err;
}

static void __exit nck_exit(void)
{
	nck_chardev_exit();
	nck_genl_exit();
	nck_bearer_notifier_exit();
	unregister_pernet_subsys(&nck_net_ops);
	nck_eth_offload_exit();		/* after every bearer */
	/*
	 * communicators are freed by queue_rcu_work(): let the works that
	 * may drop a last reference run (frame.c's tx_work), wait for the
	 * grace periods, then drain
	 */
	flush_workqueue(nck_wq);
	rcu_barrier();
	destroy_workqueue(nck_wq);
}

module_init(nck_init);
module_exit(nck_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("netcoll: collective operations below the socket layer");
MODULE_AUTHOR("netcoll developers");
MODULE_VERSION("0.3");

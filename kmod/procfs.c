// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/net/netcoll_ops: what each communicator's reductions in flight
 * wait for, per network namespace (one namespace is one host in the
 * emulated clusters, so `ip netns exec hN cat /proc/net/netcoll_ops`
 * reads host N).  For a hang: an MPI program waits without a time
 * budget, so the dump a timeout writes (dynamic debug) never comes; here
 * every running operation shows its pieces, what each child sent and what
 * the parent acked, while it waits.  Mode 0400: it shows every user's
 * communicators, so only the namespace's root reads it.
 *
 * Lifetime: the file belongs to the namespace (created and removed by the
 * pernet init and exit, main.c).  A read walks the communicator table
 * under RCU, as the receive path does, and reads each communicator's
 * state under its lock (nck_agg_show()).
 */
#include <linux/proc_fs.h>
#include <linux/seq_file_net.h>

#include "comm.h"
#include "procfs.h"

static int nck_ops_show(struct seq_file *m, void *v)
{
	struct nck_net *nn = nck_net(seq_file_single_net(m));
	struct nck_comm *c;
	unsigned long id;

	rcu_read_lock();
	xa_for_each(&nn->comms, id, c)
		for (; c; c = rcu_dereference(c->sibling))
			nck_agg_show(m, c);
	rcu_read_unlock();
	return 0;
}

int nck_procfs_init(struct net *net)
{
	if (!IS_ENABLED(CONFIG_PROC_FS))
		return 0;
	if (!proc_create_net_single("netcoll_ops", 0400, net->proc_net,
				    nck_ops_show, NULL))
		return -ENOMEM;
	return 0;
}

void nck_procfs_exit(struct net *net)
{
	remove_proc_entry("netcoll_ops", net->proc_net);
}

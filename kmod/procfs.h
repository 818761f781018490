/* SPDX-License-Identifier: GPL-2.0 */
/* /proc/net/netcoll_ops, one per network namespace (procfs.c). */
#ifndef NCK_PROCFS_H
#define NCK_PROCFS_H

struct net;

int nck_procfs_init(struct net *net);
void nck_procfs_exit(struct net *net);

#endif /* NCK_PROCFS_H */

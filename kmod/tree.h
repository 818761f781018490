/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Aggregation trees as one rank sees them (tree.c).  A tree belongs to its
 * communicator's aggregation state (agg->trees[], replaced under
 * agg->tree_lock) and is immutable once built; an operation copies what it
 * needs from it when it starts, so a replacement never races a running
 * reduction.
 */
#ifndef NCK_TREE_H
#define NCK_TREE_H

#include <linux/types.h>

/**
 * struct nck_tree - this rank's view of an aggregation tree
 * @root: the tree's root rank
 * @parent: this rank's parent; its own rank at the root
 * @nchildren: entries of @children
 * @installed: installed by the administrator (else the built-in f-nomial)
 * @children: this rank's children, ascending: the reduction order
 */
struct nck_tree {
	u32 root;
	u32 parent;
	u32 nchildren;
	bool installed;
	u32 children[];
};

/**
 * struct nck_hosts - which ranks share a host (an address); a
 * communicator has one only if some do (fixed, freed with it)
 * @nhosts: hosts, numbered in the order of their lowest ranks
 * @first: [@nhosts] each host's lowest rank (points into @of)
 * @of: [size] each rank's host, then @first's room
 */
struct nck_hosts {
	u32 nhosts;
	u32 *first;
	u32 of[];
};

/* sort_r()'s context in nck_hosts_build() */
struct nck_hosts_sort {
	const u8 *addrs;
	u8 alen;
};

/* NULL if every rank has an address of its own; else ERR_PTR or the hosts */
struct nck_hosts *nck_hosts_build(const u8 *addrs, u32 size, u8 alen);

/*
 * Built-in tree index (0: rank order; others mixed, nck_split_rank); hs:
 * the communicator's hosts (NULL: a rank per host)
 */
struct nck_tree *nck_tree_fnomial(u32 rank, u32 size, u32 degree, u32 index,
				  const struct nck_hosts *hs);
/*
 * A broadcast's tree from root: the f-nomial tree over the positions
 * [root, then order[] without root] (order: a permutation of the ranks,
 * nck_tree_order_check()), or without an order over the ranks relative to
 * root (position = rank - root).
 */
struct nck_tree *nck_tree_fnomial_ordered(u32 rank, u32 size, u32 degree,
					  u32 root, const u32 *order,
					  const struct nck_hosts *hs);

#endif /* NCK_TREE_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * Aggregation trees: this rank's view (root, parent, children) of a tree
 * over all members.  Built in: f-nomial trees (Yu, Buntinas, Graham,
 * Panda, SC'03, appendix A) of the communicator's degree, tree t (of a
 * split vector's piece t) over ranks mixed by t (nck_split_rank), so the
 * pieces have different roots and inner nodes.  Installed: any tree user
 * space computed (topology-mapped, model-chosen degree), given as the
 * parent of every rank.  Broadcasts run on an f-nomial tree rooted at
 * their root, over rank order or over an installed order (the library's
 * placement of fast hosts on the positions with children).  Where ranks share a host,
 * the built-in trees are trees over hosts with each host's own ranks
 * hanging off its lead (nck_tree_placed_hosts).
 *
 * Children are kept in ascending rank order: that is the fixed order in
 * which a node combines their contributions after its own.
 */
#include <linux/bitmap.h>
#include <linux/netlink.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <net/genetlink.h>

#include "tree.h"
#include "comm.h"
#include "netlink.h"

static struct nck_tree *nck_tree_alloc(u32 nchildren)
{
	struct nck_tree *t;

	/* kept as long as the communicator: charged to the installer */
	return kzalloc(struct_size(t, children, nchildren), GFP_KERNEL_ACCOUNT);
}

static int nck_u32_cmp(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Children of position v: in each phase before v's own, v + j * stride;
 * out[] and *parent get positions.
 */
static u32 nck_fnomial_children(u32 v, u32 size, u32 degree, u32 *out,
				u32 *parent)
{
	u32 n = 0, j;
	u64 stride;

	*parent = v;
	for (stride = 1; stride < size; stride *= degree) {
		if ((v / stride) % degree) {
			*parent = (u32)(v / (stride * degree) * (stride * degree));
			break;
		}
		for (j = 1; j < degree && v + j * stride < size; j++) {
			if (out)
				out[n] = (u32)(v + j * stride);
			n++;
		}
	}
	return n;
}

/*
 * Who sits at position v of built-in tree t (1 .. NETCOLL_TREES_MAX - 1)
 * of a split vector: rank v XOR t within each whole block of 8 positions,
 * the last, partial block rotated by t (tree 0 is rank order).  Tree t
 * is then rooted at rank t and its inner ranks differ from tree 0's, and
 * yet each of its subtrees of 2, 4 or 8 positions holds an aligned block
 * of ranks, as tree 0's do: neighbours in rank order, mostly on one
 * switch, and fewer vectors cross between switches than when trees cut
 * across the blocks (docs/kmod-notes.md, "Split trees").  An involution
 * within each whole block, so with pos it gives the position of a rank.
 */
static u32 nck_split_rank(u32 v, u32 size, u32 t, bool pos)
{
	u32 whole = size & ~7U, part = size - whole;

	if (v < whole)
		return v ^ t;
	t %= part;
	return whole + (v - whole + (pos ? part - t : t)) % part;
}

/*
 * Who sits where: without an order, position v holds rank (v + root) %
 * size, or for a split vector's tree mix rank nck_split_rank(v); with
 * one, position 0 holds the root and 1.. the order without it.
 */
struct nck_placing {
	const u32 *order;
	u32 size, root, root_at;	/* root_at: the root's index in order */
	u32 mix;
};

static u32 nck_placing_rank(const struct nck_placing *pl, u32 v)
{
	if (!pl->order && pl->mix)
		return nck_split_rank(v, pl->size, pl->mix, false);
	if (!pl->order)
		return (u32)(((u64)v + pl->root) % pl->size);
	if (!v)
		return pl->root;
	v--;
	return pl->order[v < pl->root_at ? v : v + 1];
}

static u32 nck_placing_pos(const struct nck_placing *pl, u32 rank)
{
	u32 i;

	if (!pl->order && pl->mix)
		return nck_split_rank(rank, pl->size, pl->mix, true);
	if (!pl->order)
		return (rank + pl->size - pl->root) % pl->size;
	if (rank == pl->root)
		return 0;
	for (i = 0; pl->order[i] != rank; i++)
		;	/* a permutation: rank is there */
	return i < pl->root_at ? i + 1 : i;
}

static struct nck_tree *nck_tree_placed(u32 rank, u32 degree,
					const struct nck_placing *pl)
{
	u32 v = nck_placing_pos(pl, rank);
	struct nck_tree *t;
	u32 n, parent, i;

	n = nck_fnomial_children(v, pl->size, degree, NULL, &parent);
	t = nck_tree_alloc(n);
	if (!t)
		return NULL;
	nck_fnomial_children(v, pl->size, degree, t->children, &parent);
	for (i = 0; i < n; i++)
		t->children[i] = nck_placing_rank(pl, t->children[i]);
	t->root = pl->root;
	t->parent = nck_placing_rank(pl, parent);
	t->nchildren = n;
	t->installed = !!pl->order;
	sort(t->children, n, sizeof(u32), nck_u32_cmp, NULL);
	return t;
}

struct nck_tree *nck_tree_fnomial(u32 rank, u32 size, u32 degree, u32 index,
				  const struct nck_hosts *hs)
{
	struct nck_placing pl = { .size = size, .mix = index };

	/* several ranks per host: trees over hosts, rotated as before */
	if (hs)
		return nck_tree_fnomial_ordered(rank, size, degree,
						(u32)((u64)index * size /
						      NETCOLL_TREES_MAX), NULL, hs);
	pl.root = nck_split_rank(0, size, index, false);
	return nck_tree_placed(rank, degree, &pl);
}

/* -- Several ranks per host -------------------------------------- */

static int nck_addr_rank_cmp(const void *x, const void *y, const void *priv)
{
	const struct nck_hosts_sort *hs = priv;
	u32 a = *(const u32 *)x, b = *(const u32 *)y;
	int d = memcmp(hs->addrs + (size_t)a * hs->alen,
		       hs->addrs + (size_t)b * hs->alen, hs->alen);

	return d ?: (a < b ? -1 : a > b);
}

struct nck_hosts *nck_hosts_build(const u8 *addrs, u32 size, u8 alen)
{
	struct nck_hosts_sort ctx = { addrs, alen };
	struct nck_hosts *hs;
	u32 *by_addr, i, r;

	hs = kvzalloc(struct_size(hs, of, 2 * (size_t)size), GFP_KERNEL_ACCOUNT);
	by_addr = kvmalloc_array(size, sizeof(u32), GFP_KERNEL_ACCOUNT);
	if (!hs || !by_addr) {
		kvfree(by_addr);
		kvfree(hs);
		return ERR_PTR(-ENOMEM);
	}
	for (i = 0; i < size; i++)
		by_addr[i] = i;
	sort_r(by_addr, size, sizeof(u32), nck_addr_rank_cmp, NULL, &ctx);
	/* of[r] first holds the lowest rank at r's address ... */
	for (i = 0; i < size; i++)
		hs->of[by_addr[i]] = i && !memcmp(addrs + (size_t)by_addr[i] * alen,
						  addrs + (size_t)by_addr[i - 1] * alen,
						  alen) ?
				     hs->of[by_addr[i - 1]] : by_addr[i];
	kvfree(by_addr);
	/* ... then its host, the hosts numbered by their lowest ranks */
	hs->first = hs->of + size;
	for (r = 0; r < size; r++) {
		if (hs->of[r] == r)
			hs->first[hs->nhosts++] = r;
		hs->of[r] = r == hs->of[r] ? hs->nhosts - 1 : hs->of[hs->of[r]];
	}
	if (hs->nhosts == size) {	/* a rank per host: plain trees */
		kvfree(hs);
		return NULL;
	}
	return hs;
}

/* Who stands for host h in a tree rooted at root: root, or its lowest rank. */
static u32 nck_host_lead(const struct nck_hosts *hs, u32 h, u32 root)
{
	return hs->of[root] == h ? root : hs->first[h];
}

/* The hosts in the order their ranks first appear in order[size]. */
static u32 *nck_hosts_order(const struct nck_hosts *hs, const u32 *order, u32 size)
{
	unsigned long *seen = bitmap_zalloc(hs->nhosts, GFP_KERNEL_ACCOUNT);
	u32 *horder = kvmalloc_array(hs->nhosts, sizeof(u32), GFP_KERNEL_ACCOUNT);
	u32 i, n = 0;

	if (seen && horder)
		for (i = 0; i < size; i++)
			if (!test_and_set_bit(hs->of[order[i]], seen))
				horder[n++] = hs->of[order[i]];
	bitmap_free(seen);
	if (!seen) {
		kvfree(horder);
		return NULL;
	}
	return horder;
}

/*
 * The host-local step first: the tree pl would give, over hosts, each
 * host standing for its ranks through its lead (nck_host_lead); the
 * lead's children are the leads of its host's children and the host's
 * other ranks, and those have no children.  So a reduction combines each
 * host's ranks before anything crosses the wire, and a broadcast crosses
 * it once per host.
 */
static struct nck_tree *nck_tree_placed_hosts(u32 rank, u32 degree,
					      const struct nck_placing *pl,
					      const struct nck_hosts *hs)
{
	u32 h = hs->of[rank], lead = nck_host_lead(hs, h, pl->root);
	struct nck_placing hpl = { .size = hs->nhosts, .root = hs->of[pl->root] };
	struct nck_tree *t, *ht;
	u32 *horder = NULL;
	u32 n, i, r;

	if (rank != lead) {
		t = nck_tree_alloc(0);
		if (t) {
			t->root = pl->root;
			t->parent = lead;
			t->installed = !!pl->order;
		}
		return t;
	}
	if (pl->order) {
		horder = nck_hosts_order(hs, pl->order, pl->size);
		if (!horder)
			return NULL;
		hpl.order = horder;
		while (horder[hpl.root_at] != hpl.root)
			hpl.root_at++;
	}
	ht = nck_tree_placed(h, degree, &hpl);
	kvfree(horder);
	if (!ht)
		return NULL;
	for (n = ht->nchildren, r = 0; r < pl->size; r++)
		n += hs->of[r] == h && r != rank;
	t = nck_tree_alloc(n);
	if (t) {
		for (i = 0; i < ht->nchildren; i++)
			t->children[i] = nck_host_lead(hs, ht->children[i], pl->root);
		for (r = 0; r < pl->size; r++)
			if (hs->of[r] == h && r != rank)
				t->children[i++] = r;
		t->root = pl->root;
		t->parent = ht->parent == h ? rank :
			    nck_host_lead(hs, ht->parent, pl->root);
		t->nchildren = n;
		t->installed = !!pl->order;
		sort(t->children, n, sizeof(u32), nck_u32_cmp, NULL);
	}
	kfree(ht);
	return t;
}

struct nck_tree *nck_tree_fnomial_ordered(u32 rank, u32 size, u32 degree,
					  u32 root, const u32 *order,
					  const struct nck_hosts *hs)
{
	struct nck_placing pl = { order, size, root, 0 };

	if (order)
		while (order[pl.root_at] != root)
			pl.root_at++;
	return hs ? nck_tree_placed_hosts(rank, degree, &pl, hs) :
		    nck_tree_placed(rank, degree, &pl);
}

/* order[size] holds every rank once.  0 or -EINVAL. */
static int nck_tree_order_check(const u32 *order, u32 size,
				struct netlink_ext_ack *extack)
{
	unsigned long *seen = bitmap_zalloc(size, GFP_KERNEL_ACCOUNT);
	int err = 0;
	u32 i;

	if (!seen)
		return -ENOMEM;
	for (i = 0; i < size && !err; i++) {
		if (order[i] >= size) {
			NL_SET_ERR_MSG(extack, "the order has a rank that is not a member");
			err = -EINVAL;
		} else if (test_and_set_bit(order[i], seen)) {
			NL_SET_ERR_MSG(extack, "the order has a rank twice");
			err = -EINVAL;
		}
	}
	bitmap_free(seen);
	return err;
}

/*
 * From parents[size]: exactly one root (its own parent), and every rank
 * reaches it (no cycles).  Returns the tree or an ERR_PTR.
 */
static struct nck_tree *nck_tree_from_parents(u32 rank, u32 size, const u32 *parents,
					      struct netlink_ext_ack *extack)
{
	u32 root = NETCOLL_NONE, n = 0, i;
	struct nck_tree *t;
	u8 *state;

	for (i = 0; i < size; i++) {
		if (parents[i] >= size) {
			NL_SET_ERR_MSG(extack, "a parent is not a member");
			return ERR_PTR(-EINVAL);
		}
		if (parents[i] == i) {
			if (root != NETCOLL_NONE) {
				NL_SET_ERR_MSG(extack, "tree has two roots");
				return ERR_PTR(-EINVAL);
			}
			root = i;
		}
		if (parents[i] == rank && i != rank)
			n++;
	}
	if (root == NETCOLL_NONE) {
		NL_SET_ERR_MSG(extack, "tree has no root");
		return ERR_PTR(-EINVAL);
	}
	/* 0 unknown, 1 on the current path, 2 reaches the root */
	state = kvzalloc(size, GFP_KERNEL_ACCOUNT);
	if (!state)
		return ERR_PTR(-ENOMEM);
	state[root] = 2;
	for (i = 0; i < size; i++) {
		u32 x = i;

		while (!state[x]) {
			state[x] = 1;
			x = parents[x];
		}
		if (state[x] == 1) {
			kvfree(state);
			NL_SET_ERR_MSG(extack, "tree has a cycle");
			return ERR_PTR(-EINVAL);
		}
		for (x = i; state[x] == 1; x = parents[x])
			state[x] = 2;
	}
	kvfree(state);

	t = nck_tree_alloc(n);
	if (!t)
		return ERR_PTR(-ENOMEM);
	t->root = root;
	t->parent = parents[rank];
	t->installed = true;
	for (i = 0; i < size; i++)
		if (parents[i] == rank && i != rank)
			t->children[t->nchildren++] = i;
	return t;
}

/* -- Netlink: aggregation trees ---------------------------------- */

static u32 nck_nl_tree_index(struct genl_info *info)
{
	struct nlattr *a = info->attrs[NETCOLL_A_TREE_INDEX];

	return a ? nla_get_u32(a) : 0;
}

/*
 * What an installed tree or broadcast order holds, as its owner's quota
 * counts it (nck_nl_install_charge(); the slots are written under RTNL,
 * so RTNL holders may read them).  Built-in trees count nothing.
 */
static u32 nck_tree_bytes(const struct nck_tree *t)
{
	return t && t->installed ? struct_size(t, children, t->nchildren) : 0;
}

static u32 nck_bcast_order_bytes(const struct nck_comm *c, const u32 *order)
{
	return order ? c->size * sizeof(u32) : 0;
}

/* TREE_SET with TREE_BCAST_ORDER: one u32 per member, each rank once. */
static int nck_nl_bcast_order_set(struct nck_comm *c, struct sk_buff *skb,
				  struct genl_info *info)
{
	struct nlattr *a = info->attrs[NETCOLL_A_TREE_BCAST_ORDER];
	u32 *order;
	int err;

	if (info->attrs[NETCOLL_A_TREE_PARENTS] ||
	    info->attrs[NETCOLL_A_TREE_INDEX]) {
		NL_SET_ERR_MSG(info->extack,
			       "a broadcast order is not an aggregation tree");
		return -EINVAL;
	}
	if (nla_len(a) != c->size * sizeof(u32)) {
		NL_SET_ERR_MSG_ATTR(info->extack, a, "need one rank per member");
		return -EINVAL;
	}
	/* the communicator's, for its life: charged to the installer */
	order = kvmalloc(nla_len(a), GFP_KERNEL_ACCOUNT);
	if (!order)
		return -ENOMEM;
	memcpy(order, nla_data(a), nla_len(a));	/* aligned by luck only */
	err = nck_tree_order_check(order, c->size, info->extack);
	if (!err) {
		rtnl_lock();
		err = nck_nl_install_charge(c, nck_bcast_order_bytes(c, c->agg.bcast_order),
					    nck_bcast_order_bytes(c, order), skb, info);
		if (!err)
			nck_agg_set_bcast_order(c, order);
		rtnl_unlock();
	}
	if (err)
		kvfree(order);
	return err;
}

int nck_nl_tree_set(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *a = info->attrs[NETCOLL_A_TREE_PARENTS];
	u32 index = nck_nl_tree_index(info);
	struct nck_tree *t;
	struct nck_comm *c;
	u32 *parents;
	int err;

	c = nck_nl_comm_admin(skb, info);
	if (IS_ERR(c))
		return PTR_ERR(c);
	if (info->attrs[NETCOLL_A_TREE_BCAST_ORDER]) {
		err = nck_nl_bcast_order_set(c, skb, info);
		goto out;
	}
	err = -EINVAL;
	if (GENL_REQ_ATTR_CHECK(info, NETCOLL_A_TREE_PARENTS))
		goto out;
	if (nla_len(a) != c->size * sizeof(u32)) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "need one parent per member");
		goto out;
	}
	/* nla_data is only 4-byte aligned by luck: copy */
	parents = kvmalloc(nla_len(a), GFP_KERNEL_ACCOUNT);
	err = -ENOMEM;
	if (!parents)
		goto out;
	memcpy(parents, nla_data(a), nla_len(a));
	t = nck_tree_from_parents(c->rank, c->size, parents, info->extack);
	kvfree(parents);
	err = PTR_ERR_OR_ZERO(t);
	if (!err) {
		rtnl_lock();
		err = nck_nl_install_charge(c, nck_tree_bytes(c->agg.trees[index]),
					    nck_tree_bytes(t), skb, info);
		if (!err)
			err = nck_agg_set_tree(c, index, t);	/* t: cannot fail */
		rtnl_unlock();
		if (err)
			kfree(t);
	}
out:
	nck_comm_put(c);
	return err;
}

int nck_nl_tree_del(struct sk_buff *skb, struct genl_info *info)
{
	u32 index = nck_nl_tree_index(info), old;
	struct nck_comm *c;
	int err;

	c = nck_nl_comm_admin(skb, info);
	if (IS_ERR(c))
		return PTR_ERR(c);
	rtnl_lock();
	if (nla_get_flag(info->attrs[NETCOLL_A_TREE_BCAST])) {
		old = nck_bcast_order_bytes(c, c->agg.bcast_order);
		nck_agg_set_bcast_order(c, NULL);
		err = 0;
	} else {
		old = nck_tree_bytes(c->agg.trees[index]);
		err = nck_agg_set_tree(c, index, NULL);	/* the built-in one */
	}
	if (!err)
		nck_nl_install_charge(c, old, 0, skb, info);
	rtnl_unlock();
	nck_comm_put(c);
	return err;
}

int nck_nl_tree_get(struct sk_buff *skb, struct genl_info *info)
{
	bool bcast = nla_get_flag(info->attrs[NETCOLL_A_TREE_BCAST]);
	u32 index = nck_nl_tree_index(info), root = 0;
	struct nck_tree *t, *own = NULL;
	struct sk_buff *msg;
	struct nck_comm *c;
	void *hdr;
	int err = -EMSGSIZE;

	c = nck_nl_comm(info);
	if (IS_ERR(c))
		return PTR_ERR(c);
	if (bcast && info->attrs[NETCOLL_A_TREE_ROOT])
		root = nla_get_u32(info->attrs[NETCOLL_A_TREE_ROOT]);
	if (root >= c->size) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NETCOLL_A_TREE_ROOT],
				    "the root is not a member");
		nck_comm_put(c);
		return -EINVAL;
	}
	msg = genlmsg_new(NLMSG_GOODSIZE + c->size * sizeof(u32), GFP_KERNEL);
	if (!msg) {
		nck_comm_put(c);
		return -ENOMEM;
	}
	hdr = genlmsg_put_reply(msg, info, &nck_genl_family, 0,
				NETCOLL_CMD_TREE_GET);
	mutex_lock(&c->agg.tree_lock);
	if (bcast) {	/* what a broadcast from root would run on */
		own = nck_tree_fnomial_ordered(c->rank, c->size,
					       c->agg.tree_degree, root,
					       c->agg.bcast_order, c->hosts);
		if (!own)
			err = -ENOMEM;
	}
	t = bcast ? own : c->agg.trees[index];
	if (hdr && t &&
	    !nla_put_u32(msg, NETCOLL_A_COMM_ID, c->id) &&
	    !nla_put_u32(msg, NETCOLL_A_TREE_INDEX, index) &&
	    !nla_put_u32(msg, NETCOLL_A_TREE_ROOT, t->root) &&
	    !nla_put_u32(msg, NETCOLL_A_TREE_PARENT, t->parent) &&
	    !nla_put(msg, NETCOLL_A_TREE_CHILDREN, t->nchildren * sizeof(u32),
		     t->children) &&
	    !nla_put_u8(msg, NETCOLL_A_TREE_INSTALLED, t->installed)) {
		genlmsg_end(msg, hdr);
		err = 0;
	}
	mutex_unlock(&c->agg.tree_lock);
	kfree(own);
	nck_comm_put(c);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

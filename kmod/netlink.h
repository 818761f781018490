/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The generic netlink family "netcoll" (netlink.c): the family, its
 * policies and command table, and the lookups its handlers share.  The
 * handlers are defined next to their objects and declared here for the
 * command table.
 */
#ifndef NCK_NETLINK_H
#define NCK_NETLINK_H

#include <net/genetlink.h>
#include <linux/netcoll.h>

struct nck_bearer;
struct nck_comm;

extern struct genl_family nck_genl_family;
/* Nested attributes, parsed by their handlers. */
extern const struct nla_policy nck_member_policy[NETCOLL_A_MEMBER_MAX + 1];
extern const struct nla_policy nck_phase_policy[NETCOLL_A_PHASE_MAX + 1];

int nck_genl_init(void);
void nck_genl_exit(void);

/* Lookups (netlink.c); each sets the extended ack when it fails. */
struct user_namespace *nck_nl_userns(struct sk_buff *skb);
struct net_device *nck_nl_dev(struct genl_info *info);		/* RTNL */
struct nck_bearer *nck_nl_bearer(struct genl_info *info);		/* RTNL */
struct nck_comm *nck_nl_comm(struct genl_info *info);		/* + ref */
struct nck_comm *nck_nl_comm_admin(struct sk_buff *skb, struct genl_info *info);
u32 nck_nl_u32(struct genl_info *info, int attr, u32 dflt);

/* bearer.c */
int nck_nl_dev_attach(struct sk_buff *skb, struct genl_info *info);
int nck_nl_dev_detach(struct sk_buff *skb, struct genl_info *info);
int nck_nl_dev_set(struct sk_buff *skb, struct genl_info *info);
int nck_nl_dev_get(struct sk_buff *skb, struct genl_info *info);
int nck_nl_dev_dump(struct sk_buff *skb, struct netlink_callback *cb);

/* comm.c */
int nck_nl_comm_new(struct sk_buff *skb, struct genl_info *info);
int nck_nl_comm_del(struct sk_buff *skb, struct genl_info *info);
int nck_nl_comm_get(struct sk_buff *skb, struct genl_info *info);
int nck_nl_comm_dump(struct sk_buff *skb, struct netlink_callback *cb);

/* sched.c */
int nck_nl_sched_set(struct sk_buff *skb, struct genl_info *info);
int nck_nl_sched_del(struct sk_buff *skb, struct genl_info *info);

/* tree.c */
int nck_nl_tree_set(struct sk_buff *skb, struct genl_info *info);
int nck_nl_tree_del(struct sk_buff *skb, struct genl_info *info);
int nck_nl_tree_get(struct sk_buff *skb, struct genl_info *info);

#endif /* NCK_NETLINK_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The generic netlink family "netcoll" (netlink.c): the family, its
 * policies and command table, and the lookups its handlers share.  The
 * handlers are defined next to their objects and declared here for the
 * command table.
 */
#ifndef NC_NETLINK_H
#define NC_NETLINK_H

#include <net/genetlink.h>
#include <linux/netcoll.h>

struct nc_bearer;
struct nc_comm;

extern struct genl_family nc_genl_family;
/* Nested attributes, parsed by their handlers. */
extern const struct nla_policy nc_member_policy[NETCOLL_A_MEMBER_MAX + 1];
extern const struct nla_policy nc_phase_policy[NETCOLL_A_PHASE_MAX + 1];

int nc_genl_init(void);
void nc_genl_exit(void);

/* Lookups (netlink.c); each sets the extended ack when it fails. */
struct user_namespace *nc_nl_userns(struct sk_buff *skb);
struct net_device *nc_nl_dev(struct genl_info *info);		/* RTNL */
struct nc_bearer *nc_nl_bearer(struct genl_info *info);		/* RTNL */
struct nc_comm *nc_nl_comm(struct genl_info *info);		/* + ref */
struct nc_comm *nc_nl_comm_admin(struct sk_buff *skb, struct genl_info *info);
u32 nc_nl_u32(struct genl_info *info, int attr, u32 dflt);

/* bearer.c */
int nc_nl_dev_attach(struct sk_buff *skb, struct genl_info *info);
int nc_nl_dev_detach(struct sk_buff *skb, struct genl_info *info);
int nc_nl_dev_get(struct sk_buff *skb, struct genl_info *info);
int nc_nl_dev_dump(struct sk_buff *skb, struct netlink_callback *cb);

/* comm.c */
int nc_nl_comm_new(struct sk_buff *skb, struct genl_info *info);
int nc_nl_comm_del(struct sk_buff *skb, struct genl_info *info);
int nc_nl_comm_get(struct sk_buff *skb, struct genl_info *info);
int nc_nl_comm_dump(struct sk_buff *skb, struct netlink_callback *cb);

/* sched.c */
int nc_nl_sched_set(struct sk_buff *skb, struct genl_info *info);
int nc_nl_sched_del(struct sk_buff *skb, struct genl_info *info);

/* tree.c */
int nc_nl_tree_set(struct sk_buff *skb, struct genl_info *info);
int nc_nl_tree_del(struct sk_buff *skb, struct genl_info *info);
int nc_nl_tree_get(struct sk_buff *skb, struct genl_info *info);

#endif /* NC_NETLINK_H */

// SPDX-License-Identifier: GPL-2.0
/*
 * Who may do what (README.md, "Security model"):
 *   admin  CAP_NET_ADMIN in the initial user namespace: devices, new
 *          communicators, and anything on any communicator.  Not the
 *          admin of a user namespace: an unprivileged user could then
 *          make communicators without number in a namespace of its own,
 *          whose received frames no memory cgroup pays for;
 *   user   anybody, on a device the admin opened to users (DEV_SET): makes
 *          communicators it owns, at most the device's user_comms_max of
 *          them on this host, whose memory limits (each at most the
 *          module's defaults) and installed schedules and trees sum to
 *          at most its user_mem_max;
 *   owner  the uid a communicator belongs to (the creator's, or the one
 *          the admin named): binds to it and reconfigures it (schedule,
 *          trees, delete), and sees its cookie;
 *   group  members of its group: bind to it.
 * Everybody else may only look at it (no cookie, never the key) and
 * receives EACCES (bind) or EPERM (netlink).
 *
 * The data path checks at BIND the caller's credentials, as tun does for
 * its owner and group (drivers/net/tun.c, tun_not_capable()), and the
 * file opener's, as netlink_capable() does for a socket: a user's
 * /dev/netcoll handed to a privileged program (as its output, or over a
 * unix socket) must not bind with that program's rights and come back
 * bound to a communicator the user may not use.  Netlink checks the
 * sender's effective uid, as BIND does (the handlers run in the sender's
 * context: current_euid()), and the sender's and the socket's capabilities
 * (netlink_capable()).  The uid stamped on the request
 * (NETLINK_CB(skb).creds) is the real one, or another the sender chose
 * (SCM_CREDENTIALS): a root daemon acting for a user with seteuid()
 * passed as uid 0, and a set-user-id launcher's communicator was not the
 * one it then bound as.
 *
 * A communicator the admin makes without naming an owner has none: uid 0
 * without CAP_NET_ADMIN (a container's root sharing the host's network)
 * is not the admin, and owned the admin's communicators before.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/rtnetlink.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "bearer.h"

/* Is gid cred's effective group or one of its supplementary ones? */
static bool nck_cred_in_group(const struct cred *cred, kgid_t gid)
{
	const struct group_info *gi = cred->group_info;
	int i;

	if (gid_eq(cred->egid, gid))
		return true;
	for (i = 0; gi && i < gi->ngroups; i++)	/* groups_search() is not exported */
		if (gid_eq(gi->gid[i], gid))
			return true;
	return false;
}

/* Does the opener of file own c (or is it the admin)? */
static bool nck_opener_may_end(const struct nck_comm *c, const struct file *file)
{
	return uid_eq(file->f_cred->euid, c->owner) ||
	       file_ns_capable(file, &init_user_ns, CAP_NET_ADMIN);
}

bool nck_may_bind(const struct nck_comm *c, const struct file *file)
{
	bool group = gid_valid(c->group);

	return ((group && in_egroup_p(c->group)) ||
		uid_eq(current_euid(), c->owner) ||
		capable(CAP_NET_ADMIN)) &&
	       ((group && nck_cred_in_group(file->f_cred, c->group)) ||
		nck_opener_may_end(c, file));
}

/*
 * May the caller's process end c by closing its endpoint file (a
 * transient communicator)?  Its owner or the admin, who opened file too:
 * a member of its group binds and runs on it, but its close leaves it to
 * the owner.  Asked at BIND, as nck_may_bind().
 */
bool nck_may_end(const struct nck_comm *c, const struct file *file)
{
	return (uid_eq(current_euid(), c->owner) ||
		capable(CAP_NET_ADMIN)) &&
	       nck_opener_may_end(c, file);
}

bool nck_nl_may_admin_comm(const struct nck_comm *c, struct sk_buff *skb)
{
	return uid_eq(current_euid(), c->owner) ||
	       netlink_capable(skb, CAP_NET_ADMIN);
}

/*
 * The cookie (and epoch): what a frame forger would need besides MACs.
 * Asked for every communicator of a dump: no audit record for a denial.
 * The admin's right is the sender's and the socket opener's, as
 * netlink_capable() has it: a user's socket handed to a privileged
 * program as its output must not have the secrets written into it.
 */
bool nck_nl_may_see_secrets(const struct nck_comm *c, struct sk_buff *skb)
{
	const struct socket *sock = NETLINK_CB(skb).sk->sk_socket;

	if (uid_eq(current_euid(), c->owner))
		return true;
	return ns_capable_noaudit(&init_user_ns, CAP_NET_ADMIN) && sock &&
	       file_ns_capable(sock->file, &init_user_ns, CAP_NET_ADMIN);
}

/*
 * What uid's user-made communicators in nn count against its quota: n of
 * them, and their nck_comm_quota_bytes() in mem; those deleted but still
 * held by an endpoint too (nck_comm_gone_usage).  Under RTNL, which every
 * insertion into and removal from nn->comms, and every install, holds:
 * the sum is exact.
 */
static void nck_user_usage(struct nck_net *nn, kuid_t uid, u32 *n, u64 *mem)
{
	struct nck_comm *head, *c;
	unsigned long id;

	ASSERT_RTNL();
	xa_for_each(&nn->comms, id, head) {
		for (c = head; c; c = nck_comm_sibling(c)) {
			if (!c->user_made || !uid_eq(c->owner, uid))
				continue;
			(*n)++;
			*mem += nck_comm_quota_bytes(c);
		}
	}
	nck_comm_gone_usage(nn, uid, n, mem);
}

/*
 * May the sender of a COMM_NEW make cfg on b?  The admin may make any.
 * A user only on a device open to users, with an id of the users' range
 * (NETCOLL_COMM_ID_USER_MIN and above), owned by itself (and one of its
 * groups), within the module's default memory limits and its quota on
 * this host; cfg->user_made then counts it until it is freed (deleted
 * ones an endpoint still holds too).  Under RTNL (nck_user_usage()).
 */
int nck_nl_may_create_comm(struct nck_net *nn, struct nck_bearer *b,
			   struct sk_buff *skb, struct genl_info *info,
			   struct nck_comm_cfg *cfg)
{
	kuid_t uid = current_euid();
	u64 mem = (u64)cfg->mem_max + cfg->rx_mem_max;
	u32 n = 0;

	ASSERT_RTNL();
	if (netlink_capable(skb, CAP_NET_ADMIN))
		return 0;
	if (!b->user_comms) {
		NL_SET_ERR_MSG(info->extack,
			       "only the admin may make communicators on this device");
		return -EPERM;
	}
	if (cfg->id < NETCOLL_COMM_ID_USER_MIN) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NETCOLL_A_COMM_ID],
				    "ids below 0x10000000 are the admin's");
		return -EPERM;
	}
	/*
	 * The quota is per user of the host.  In a user namespace of its
	 * own one user is as many users as it was given ids (/etc/subuid:
	 * 65536 by default), each with a quota, by setuid() or by the
	 * credentials it sends: none of them makes communicators.
	 */
	if (current_user_ns() != &init_user_ns ||
	    sk_user_ns(NETLINK_CB(skb).sk) != &init_user_ns) {
		NL_SET_ERR_MSG(info->extack,
			       "users in a user namespace may not make communicators: quotas are per user of the host");
		return -EPERM;
	}
	if (!uid_eq(cfg->owner, uid) ||
	    (gid_valid(cfg->group) &&
	     !in_egroup_p(cfg->group))) {
		NL_SET_ERR_MSG(info->extack,
			       "a user's communicator is its own, for one of its groups");
		return -EPERM;
	}
	if (cfg->mem_max > READ_ONCE(nck_comm_mem_max) ||
	    cfg->rx_mem_max > READ_ONCE(nck_rx_queue_max)) {
		NL_SET_ERR_MSG(info->extack,
			       "memory limits above the module's defaults are the admin's");
		return -EPERM;
	}
	nck_user_usage(nn, uid, &n, &mem);
	if (n >= b->user_comms_max) {
		NL_SET_ERR_MSG(info->extack,
			       "this user has as many communicators as the device allows users");
		return -EDQUOT;
	}
	if (mem > b->user_mem_max) {
		NL_SET_ERR_MSG(info->extack,
			       "this user's communicators would exceed the device's memory limit for users");
		return -EDQUOT;
	}
	cfg->user_made = true;
	return 0;
}

/**
 * nck_nl_install_charge() - count an install's bytes on c
 * @c: the communicator, which its owner or the admin reconfigures
 *	(nck_nl_comm_admin())
 * @old: bytes of what the slot holds now (0: nothing, or built in)
 * @new: bytes of what replaces it (0: nothing, or built in)
 * @skb: the request
 * @info: its extack
 *
 * The schedule, trees and broadcast order the owner installs on a
 * user-made communicator are the kernel's memory as long as it lives:
 * they count against the owner's quota with the communicators' memory
 * limits, and growing past the device's user_mem_max is EDQUOT (the
 * admin may; what it installs is counted all the same).  Shrinking
 * always succeeds.  The caller holds RTNL from this call until the slot
 * holds @new (or, when this fails, frees @new): nck_user_usage() then
 * sees every install.
 *
 * Return: 0, -EDQUOT, or -ENODEV when c's device is gone.
 */
int nck_nl_install_charge(struct nck_comm *c, u32 old, u32 new,
			  struct sk_buff *skb, struct genl_info *info)
{
	struct nck_bearer *b;
	u64 mem = 0;
	u32 n = 0;

	ASSERT_RTNL();
	if (new > old && c->user_made && !netlink_capable(skb, CAP_NET_ADMIN)) {
		b = rtnl_dereference(c->bearer);
		if (!b) {
			NL_SET_ERR_MSG(info->extack, "the communicator's device is gone");
			return -ENODEV;
		}
		nck_user_usage(c->nn, c->owner, &n, &mem);
		if (mem - old + new > READ_ONCE(b->user_mem_max)) {
			NL_SET_ERR_MSG(info->extack,
				       "this user's communicators and what is installed on them would exceed the device's memory limit for users");
			return -EDQUOT;
		}
	}
	WRITE_ONCE(c->installed_mem, c->installed_mem - old + new);
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * Who may do what (README.md, "Security model"):
 *   admin  CAP_NET_ADMIN in the initial user namespace: devices, new
 *          communicators, and anything on any communicator.  Not the
 *          admin of a user namespace: an unprivileged user could then
 *          make communicators without number in a namespace of its own,
 *          whose received frames no memory cgroup pays for.  Communicators
 *          for users come with quotas (the bootstrap work);
 *   owner  the uid a communicator belongs to (the creator's, or the one
 *          the admin named): binds to it and reconfigures it (schedule,
 *          trees, delete), and sees its cookie;
 *   group  members of its group: bind to it.
 * Everybody else may only look at it (no cookie, never the key) and
 * receives EACCES (bind) or EPERM (netlink).
 *
 * The data path checks the caller's credentials at BIND, as tun does for
 * its owner and group (drivers/net/tun.c, tun_not_capable()).  Netlink
 * checks the sender's: the uid the socket layer stamped on the request
 * (NETLINK_CB(skb).creds) and the socket's capabilities.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "comm.h"

bool nck_may_admin_net(struct net *net)
{
	return capable(CAP_NET_ADMIN);
}

bool nck_may_bind(const struct nck_comm *c)
{
	const struct cred *cred = current_cred();

	if (uid_eq(cred->euid, c->owner))
		return true;
	if (gid_valid(c->group) && in_egroup_p(c->group))
		return true;
	return nck_may_admin_net(c->nn->net);
}

bool nck_nl_may_admin_comm(const struct nck_comm *c, struct sk_buff *skb,
			   struct net *net)
{
	return uid_eq(NETLINK_CB(skb).creds.uid, c->owner) ||
	       netlink_capable(skb, CAP_NET_ADMIN);
}

/*
 * The cookie (and epoch): what a frame forger would need besides MACs.
 * Asked for every communicator of a dump: no audit record for a denial.
 */
bool nck_nl_may_see_secrets(const struct nck_comm *c, struct sk_buff *skb,
			    struct net *net)
{
	return uid_eq(NETLINK_CB(skb).creds.uid, c->owner) ||
	       ns_capable_noaudit(&init_user_ns, CAP_NET_ADMIN);
}

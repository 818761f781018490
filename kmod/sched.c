// SPDX-License-Identifier: GPL-2.0
/*
 * Alltoall schedules: the order in which this rank sends its blocks, and
 * for installed (contention-free) schedules the pairwise synchronisation
 * tokens around each send.  User space computes the global plan; every
 * rank installs only its slice, which is checked here as far as one
 * rank's view allows.
 *
 * Tokens between two ranks are told apart by their number in phase order
 * (tag NCK_TAG_SYNC | k): the sender numbers its tokens to a rank by the
 * receiver's phase, the receiver numbers the tokens it awaits from a rank
 * by its own phase, and both orders agree when the plan is consistent.
 */
#include <linux/slab.h>
#include <linux/sort.h>
#include <net/genetlink.h>

#include "sched.h"
#include "comm.h"
#include "netlink.h"

static struct nck_sched *nck_sched_alloc(u32 nphases, u32 nin, u32 nout)
{
	struct nck_sched *s;

	/* kept as long as the communicator: charged to the installer */
	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		return NULL;
	s->phase = kvcalloc(nphases, sizeof(*s->phase), GFP_KERNEL_ACCOUNT);
	s->in = kvcalloc(nin, sizeof(*s->in), GFP_KERNEL_ACCOUNT);
	s->out = kvcalloc(nout, sizeof(*s->out), GFP_KERNEL_ACCOUNT);
	if (!s->phase || (nin && !s->in) || (nout && !s->out)) {
		nck_sched_free(s);
		return NULL;
	}
	s->nphases = nphases;
	s->nin = nin;
	s->nout = nout;
	return s;
}

/* What an installed slice holds, as its owner's quota counts it. */
static u32 nck_sched_bytes(const struct nck_sched *s)
{
	if (!s || !s->installed)
		return 0;
	return sizeof(*s) + s->nphases * sizeof(*s->phase) +
	       (s->nin + s->nout) * sizeof(*s->in);
}

void nck_sched_free(struct nck_sched *s)
{
	if (!s)
		return;
	kvfree(s->phase);
	kvfree(s->in);
	kvfree(s->out);
	kfree(s);
}

/* Step i sends to order(i); steps that would send to itself are left out. */
struct nck_sched *nck_sched_builtin(u32 algo, u32 rank, u32 size)
{
	struct nck_sched *s = nck_sched_alloc(size ? size - 1 : 0, 0, 0);
	u32 i, n = 0, peer;

	if (!s)
		return NULL;
	for (i = 0; i < size; i++) {
		switch (algo) {
		case NETCOLL_A2A_PAIRWISE:
			peer = is_power_of_2(size) ? rank ^ i : (rank + i) % size;
			break;
		case NETCOLL_A2A_RING:
			peer = (rank + i) % size;
			break;
		default:		/* NETCOLL_A2A_LINEAR */
			peer = i;
			break;
		}
		if (peer == rank)
			continue;
		s->phase[n] = (struct nck_phase){
			.index = i,
			.send_to = peer,
			.recv_from = NETCOLL_NONE,
		};
		n++;
	}
	return s;
}

struct nck_tag_key {
	u32 rank, phase, idx;
};

/* sort()/bsearch() of structs led by two u32 keys (also transport.c). */
int nck_u32x2_cmp(const void *a, const void *b)
{
	const u32 *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	if (x[1] != y[1])
		return x[1] < y[1] ? -1 : 1;
	return 0;
}

/*
 * Number the tokens refs[n] exchanged with each rank in phase order
 * (phase[i]: token i's), sorting keys (room for n): refs[i].tag receives
 * the number.
 */
static int nck_sched_number_tokens(struct nck_tag_key *keys, const u32 *phase,
				   u32 n, struct nck_sync_ref *refs)
{
	u32 i, k = 0;

	for (i = 0; i < n; i++)
		keys[i] = (struct nck_tag_key){ refs[i].rank, phase[i], i };
	sort(keys, n, sizeof(*keys), nck_u32x2_cmp, NULL);
	for (i = 0; i < n; i++) {
		if (i && keys[i].rank != keys[i - 1].rank)
			k = 0;
		if (k > NCK_TAG_SYNC_MAX)
			return -E2BIG;
		refs[keys[i].idx].tag = NCK_TAG_SYNC | k++;
	}
	return 0;
}

/* -- Netlink: alltoall slices ------------------------------------ */

/* A rank's slice as parsed from the request, before it becomes a schedule. */
struct nck_slice {
	struct nck_phase *ph;
	struct nck_sync_ref *in, *out;
	u32 *in_phase, *out_phase;	/* token i's phase (out: the receiver's) */
	u32 nph, nin, nout;
	unsigned long *sent, *heard;	/* peers sent to / received from */
};

static void nck_slice_free(struct nck_slice *sl)
{
	kvfree(sl->ph);
	kvfree(sl->in);
	kvfree(sl->out);
	kvfree(sl->in_phase);
	kvfree(sl->out_phase);
	bitmap_free(sl->sent);
	bitmap_free(sl->heard);
}

/* A peer rank named in a slice: a member, not this rank. */
static bool nck_peer_ok(const struct nck_comm *c, u32 r)
{
	return r < c->size && r != c->rank;
}

/* One phase into sl (counts only when sl->ph is NULL: the sizing pass). */
static int nck_slice_phase(const struct nck_comm *c, struct nck_slice *sl,
			   struct nlattr *a, struct netlink_ext_ack *extack)
{
	struct nlattr *tb[NETCOLL_A_PHASE_MAX + 1];
	struct nlattr *in, *out;
	struct nck_phase ph = {
		.send_to = NETCOLL_NONE,
		.recv_from = NETCOLL_NONE,
	};
	const struct netcoll_sync_out *so;
	const __u32 *si;
	u32 i, nin, nout;
	int err;

	err = nla_parse_nested(tb, NETCOLL_A_PHASE_MAX, a, nck_phase_policy, extack);
	if (err)
		return err;
	in = tb[NETCOLL_A_PHASE_SYNC_IN];
	out = tb[NETCOLL_A_PHASE_SYNC_OUT];
	nin = in ? nla_len(in) / sizeof(*si) : 0;
	nout = out ? nla_len(out) / sizeof(*so) : 0;
	if (!tb[NETCOLL_A_PHASE_INDEX]) {
		NL_SET_ERR_MSG_ATTR(extack, a, "phase without INDEX");
		return -EINVAL;
	}
	if ((in && nla_len(in) % sizeof(*si)) || (out && nla_len(out) % sizeof(*so))) {
		NL_SET_ERR_MSG_ATTR(extack, a, "token list of a partial entry");
		return -EINVAL;
	}
	if (!sl->ph) {
		sl->nph++;
		sl->nin += nin;
		sl->nout += nout;
		return 0;
	}

	ph.index = nla_get_u32(tb[NETCOLL_A_PHASE_INDEX]);
	if (sl->nph && ph.index <= sl->ph[sl->nph - 1].index) {
		NL_SET_ERR_MSG_ATTR(extack, a, "phase index not increasing");
		return -EINVAL;
	}
	if (tb[NETCOLL_A_PHASE_SEND_TO]) {
		ph.send_to = nla_get_u32(tb[NETCOLL_A_PHASE_SEND_TO]);
		if (!nck_peer_ok(c, ph.send_to) || test_and_set_bit(ph.send_to, sl->sent)) {
			NL_SET_ERR_MSG_ATTR(extack, tb[NETCOLL_A_PHASE_SEND_TO],
					    "send to a non-member, to self, or twice");
			return -EINVAL;
		}
	}
	if (tb[NETCOLL_A_PHASE_RECV_FROM]) {
		ph.recv_from = nla_get_u32(tb[NETCOLL_A_PHASE_RECV_FROM]);
		if (!nck_peer_ok(c, ph.recv_from) ||
		    test_and_set_bit(ph.recv_from, sl->heard)) {
			NL_SET_ERR_MSG_ATTR(extack, tb[NETCOLL_A_PHASE_RECV_FROM],
					    "receive from a non-member, from self, or twice");
			return -EINVAL;
		}
	}
	if (ph.send_to == NETCOLL_NONE && (nin || nout || ph.recv_from == NETCOLL_NONE)) {
		NL_SET_ERR_MSG_ATTR(extack, a,
				    "phase without a send may not hold tokens or be empty");
		return -EINVAL;
	}

	ph.in_first = sl->nin;
	ph.nin = nin;
	for (i = 0, si = in ? nla_data(in) : NULL; i < nin; i++) {
		if (!nck_peer_ok(c, si[i])) {
			NL_SET_ERR_MSG_ATTR(extack, in, "token from a non-member or self");
			return -EINVAL;
		}
		sl->in[sl->nin] = (struct nck_sync_ref){ .rank = si[i] };
		sl->in_phase[sl->nin++] = ph.index;
	}
	ph.out_first = sl->nout;
	ph.nout = nout;
	for (i = 0, so = out ? nla_data(out) : NULL; i < nout; i++) {
		if (!nck_peer_ok(c, so[i].rank) || so[i].phase >= NETCOLL_SCHED_PHASE_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, out,
					    "token to a non-member, to self, or a bad phase");
			return -EINVAL;
		}
		sl->out[sl->nout] = (struct nck_sync_ref){ .rank = so[i].rank };
		sl->out_phase[sl->nout++] = so[i].phase;
	}
	sl->ph[sl->nph++] = ph;
	return 0;
}

/* Phases are repeated top-level attributes: a slice may exceed a nest. */
static int nck_slice_pass(const struct nck_comm *c, struct genl_info *info,
			  struct nck_slice *sl)
{
	struct nlattr *a;
	int rem, err;

	nla_for_each_attr(a, genlmsg_data(info->genlhdr),
			  genlmsg_len(info->genlhdr), rem) {
		if (nla_type(a) != NETCOLL_A_SCHED_PHASE)
			continue;
		err = nck_slice_phase(c, sl, a, info->extack);
		if (err)
			return err;
	}
	return 0;
}

static int nck_slice_parse(const struct nck_comm *c, struct genl_info *info,
			   struct nck_slice *sl)
{
	struct netlink_ext_ack *extack = info->extack;
	int err;

	err = nck_slice_pass(c, info, sl);
	if (err)
		return err;
	if (!sl->nph || sl->nph > 2 * (c->size - 1)) {
		NL_SET_ERR_MSG(extack, "phase count not in 1 .. 2 * (members - 1)");
		return -EINVAL;
	}
	sl->ph = kvcalloc(sl->nph, sizeof(*sl->ph), GFP_KERNEL_ACCOUNT);
	sl->in = kvcalloc(sl->nin ?: 1, sizeof(*sl->in), GFP_KERNEL_ACCOUNT);
	sl->out = kvcalloc(sl->nout ?: 1, sizeof(*sl->out), GFP_KERNEL_ACCOUNT);
	sl->in_phase = kvcalloc(sl->nin ?: 1, sizeof(u32), GFP_KERNEL_ACCOUNT);
	sl->out_phase = kvcalloc(sl->nout ?: 1, sizeof(u32), GFP_KERNEL_ACCOUNT);
	sl->sent = bitmap_zalloc(c->size, GFP_KERNEL_ACCOUNT);
	sl->heard = bitmap_zalloc(c->size, GFP_KERNEL_ACCOUNT);
	if (!sl->ph || !sl->in || !sl->out || !sl->in_phase || !sl->out_phase ||
	    !sl->sent || !sl->heard)
		return -ENOMEM;
	sl->nph = 0;
	sl->nin = 0;
	sl->nout = 0;
	err = nck_slice_pass(c, info, sl);
	if (err)
		return err;
	if (bitmap_weight(sl->sent, c->size) != c->size - 1 ||
	    bitmap_weight(sl->heard, c->size) != c->size - 1) {
		NL_SET_ERR_MSG(extack,
			       "slice must send to and receive from every other member once");
		return -EINVAL;
	}
	return 0;
}

/*
 * Turn a parsed slice into a schedule: phases in order, token lists
 * concatenated, token tags numbered.
 */
static struct nck_sched *nck_sched_from_slice(const struct nck_slice *sl, int *err)
{
	struct nck_tag_key *keys;
	struct nck_sched *s;

	*err = -ENOMEM;
	s = nck_sched_alloc(sl->nph, sl->nin, sl->nout);
	keys = kvcalloc(max(sl->nin, sl->nout) ?: 1, sizeof(*keys), GFP_KERNEL_ACCOUNT);
	if (s && keys) {
		memcpy(s->phase, sl->ph, sl->nph * sizeof(*sl->ph));
		memcpy(s->in, sl->in, sl->nin * sizeof(*sl->in));
		memcpy(s->out, sl->out, sl->nout * sizeof(*sl->out));
		*err = nck_sched_number_tokens(keys, sl->in_phase, sl->nin, s->in) ?:
		       nck_sched_number_tokens(keys, sl->out_phase, sl->nout, s->out);
	}
	kvfree(keys);
	if (*err) {
		nck_sched_free(s);
		return NULL;
	}
	s->installed = true;
	return s;
}

/* s in c's place, counted against a user's quota; freed if refused. */
static int nck_sched_install(struct nck_comm *c, struct nck_sched *s,
			     struct sk_buff *skb, struct genl_info *info)
{
	int err;

	rtnl_lock();	/* the owner's quota: nck_nl_install_charge() */
	err = nck_nl_install_charge(c, nck_sched_bytes(c->a2a_sched),
				    nck_sched_bytes(s), skb, info);
	if (!err)
		nck_comm_set_sched(c, s);
	rtnl_unlock();
	if (err)
		nck_sched_free(s);
	return err;
}

int nck_nl_sched_set(struct sk_buff *skb, struct genl_info *info)
{
	struct nck_slice sl = {};
	struct nck_sched *s;
	struct nck_comm *c;
	int err;

	c = nck_nl_comm_admin(skb, info);
	if (IS_ERR(c))
		return PTR_ERR(c);
	err = c->size < 2 ? -EINVAL : nck_slice_parse(c, info, &sl);
	if (!err) {
		s = nck_sched_from_slice(&sl, &err);
		if (s)
			err = nck_sched_install(c, s, skb, info);
		else if (err == -E2BIG)
			NL_SET_ERR_MSG(info->extack, "too many tokens between two ranks");
	}
	nck_slice_free(&sl);
	nck_comm_put(c);
	return err;
}

int nck_nl_sched_del(struct sk_buff *skb, struct genl_info *info)
{
	struct nck_comm *c;

	c = nck_nl_comm_admin(skb, info);
	if (IS_ERR(c))
		return PTR_ERR(c);
	rtnl_lock();
	nck_nl_install_charge(c, nck_sched_bytes(c->a2a_sched), 0, skb, info);
	nck_comm_set_sched(c, NULL);
	rtnl_unlock();
	nck_comm_put(c);
	return 0;
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * From a topology to this host's installed alltoall slice: load or
 * generate the topology, compute the plan every member computes the same
 * way, refuse it unless the verifier passes, and send this rank's slice
 * (NETCOLL_CMD_SCHED_SET, one attribute per active phase).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <netlink/attr.h>
#include <linux/netcoll.h>

#include "netcoll.h"
#include "nl.h"
#include "sched.h"

static int nc_topo_from(nc_ctl *ctl, struct nc_topo *t, const char *topology)
{
	struct nc_topo_err e = { 0 };
	int err;

	err = nc_topo_open(t, topology, &e);
	if (err && e.line)
		nc_ctl_seterr(ctl, "%s:%u: %s", topology, e.line, e.msg);
	else if (err)
		nc_ctl_seterr(ctl, "%s: %s", topology, e.msg[0] ? e.msg : "cannot read");
	return err;
}

int nc_sched_compute(const struct nc_topo *t, enum nc_sched_kind kind,
		     struct nc_a2a_plan *p)
{
	static const enum nc_ft_pattern ft[] = {
		[NC_SCHED_FT_OPT] = NC_FT_OPT,
		[NC_SCHED_FT_XOR] = NC_FT_XOR,
		[NC_SCHED_FT_LIN] = NC_FT_LIN,
	};
	int err;

	switch (kind) {
	case NC_SCHED_AAPC:
		err = nc_sched_aapc(t, p);
		break;
	case NC_SCHED_FT_OPT:
	case NC_SCHED_FT_XOR:
	case NC_SCHED_FT_LIN:
		err = nc_sched_fattree(t, ft[kind], p);
		if (!err && !t->is_tree)
			return 0;
		break;
	default:
		return -EINVAL;
	}
	return err ? err : nc_sched_sync(t, p);
}

const char *nc_sched_why(const struct nc_topo *t, enum nc_sched_kind kind,
			 int err)
{
	struct nc_a2a_plan p = { 0 };

	if (err == -ENOMEM)
		return "out of memory";
	if (err != -EINVAL)
		return strerror(-err);
	if (kind == NC_SCHED_AAPC)
		return "aapc needs a switch tree (one path between any two hosts)";
	/* the fat-tree kinds refuse a shape, or XOR a host count */
	if (nc_sched_fattree(t, NC_FT_LIN, &p) != 0)
		return "opt, xor and lin need a fat tree (an ft: or xgft: spec, or a file of that shape)";
	nc_a2a_plan_free(&p);
	if (kind == NC_SCHED_FT_XOR)
		return "xor needs a power-of-two number of hosts";
	return "no schedule of this kind for this topology";
}

static int nc_plan_for(nc_ctl *ctl, const struct nc_topo *t,
		       enum nc_sched_kind kind, struct nc_a2a_plan *p)
{
	struct nc_sched_report r;
	int err;

	err = nc_sched_compute(t, kind, p);
	if (err) {
		nc_ctl_seterr(ctl, "%s", nc_sched_why(t, kind, err));
		return err;
	}
	/* Baselines may contend by design; what we compute must not. */
	err = nc_sched_verify(t, p, kind == NC_SCHED_AAPC || kind == NC_SCHED_FT_OPT, &r);
	if (!err && !r.ok) {
		nc_ctl_seterr(ctl, "schedule fails verification: %s", r.why);
		err = -EINVAL;
	}
	return err;
}

/* Room for one phase attribute with its token lists. */
static size_t nc_phase_room(const struct nc_slice_phase *ph)
{
	return nla_total_size(0) + 3 * nla_total_size(sizeof(uint32_t)) +
	       nla_total_size(ph->nsync_in * sizeof(uint32_t)) +
	       nla_total_size(ph->nsync_out * sizeof(struct netcoll_sync_out));
}

static int nc_slice_send(nc_ctl *ctl, uint32_t comm_id, const struct nc_a2a_slice *s)
{
	size_t size = NLMSG_HDRLEN + GENL_HDRLEN + 64;
	struct nl_msg *msg;
	struct nlattr *nest;
	uint32_t i, j;

	for (i = 0; i < s->nphases; i++)
		size += nc_phase_room(&s->phase[i]);
	msg = nc_msg(ctl, NETCOLL_CMD_SCHED_SET, 0, size);
	if (!msg)
		return -ENOMEM;
	if (nc_put_comm(ctl, msg, comm_id) < 0)
		goto too_big;
	for (i = 0; i < s->nphases; i++) {
		const struct nc_slice_phase *ph = &s->phase[i];
		struct netcoll_sync_out out[NETCOLL_SCHED_SYNC_MAX];
		uint32_t in[NETCOLL_SCHED_SYNC_MAX];

		if (ph->send_to == NC_TOPO_NONE && ph->recv_from == NC_TOPO_NONE)
			continue;
		if (ph->nsync_in > NETCOLL_SCHED_SYNC_MAX ||
		    ph->nsync_out > NETCOLL_SCHED_SYNC_MAX) {
			nc_ctl_seterr(ctl, "phase %u has more than %u tokens", i,
				      NETCOLL_SCHED_SYNC_MAX);
			nlmsg_free(msg);
			return -E2BIG;
		}
		for (j = 0; j < ph->nsync_in; j++)
			in[j] = s->sync_in[ph->sync_in_first + j];
		for (j = 0; j < ph->nsync_out; j++)
			out[j] = (struct netcoll_sync_out){
				.rank = s->sync_out[ph->sync_out_first + j].rank,
				.phase = s->sync_out[ph->sync_out_first + j].phase,
			};
		nest = nla_nest_start(msg, NETCOLL_A_SCHED_PHASE);
		if (!nest || nla_put_u32(msg, NETCOLL_A_PHASE_INDEX, i) < 0 ||
		    (ph->send_to != NC_TOPO_NONE &&
		     nla_put_u32(msg, NETCOLL_A_PHASE_SEND_TO, ph->send_to) < 0) ||
		    (ph->recv_from != NC_TOPO_NONE &&
		     nla_put_u32(msg, NETCOLL_A_PHASE_RECV_FROM, ph->recv_from) < 0) ||
		    (ph->nsync_in &&
		     nla_put(msg, NETCOLL_A_PHASE_SYNC_IN, ph->nsync_in * sizeof(*in), in) < 0) ||
		    (ph->nsync_out &&
		     nla_put(msg, NETCOLL_A_PHASE_SYNC_OUT, ph->nsync_out * sizeof(*out), out) < 0))
			goto too_big;
		nla_nest_end(msg, nest);
	}
	return nc_nl_request(ctl, msg, NULL, NULL);
too_big:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

int nc_sched_install(nc_ctl *ctl, uint32_t comm_id, const char *topology,
		     enum nc_sched_kind kind)
{
	struct nc_a2a_plan plan = { 0 };
	struct nc_a2a_slice slice = { 0 };
	struct nc_comm_info ci;
	struct nc_topo t;
	int err;

	if (!ctl || !topology || kind > NC_SCHED_FT_LIN)
		return -EINVAL;
	err = nc_comm_get(ctl, comm_id, &ci);
	if (err)
		return err;
	nc_topo_init(&t);
	err = nc_topo_from(ctl, &t, topology);
	if (err)
		goto out;
	if (t.nhosts != ci.size) {
		nc_ctl_seterr(ctl, "topology has %u hosts, communicator %u has %u members",
			      t.nhosts, comm_id, ci.size);
		err = -EINVAL;
		goto out;
	}
	err = nc_plan_for(ctl, &t, kind, &plan);
	if (!err)
		err = nc_a2a_slice(&plan, ci.rank, &slice);
	if (!err)
		err = nc_slice_send(ctl, comm_id, &slice);
out:
	nc_a2a_slice_free(&slice);
	nc_a2a_plan_free(&plan);
	nc_topo_free(&t);
	nc_comm_info_free(&ci);
	return err;
}

int nc_sched_remove(nc_ctl *ctl, uint32_t comm_id)
{
	return nc_request_comm(ctl, NETCOLL_CMD_SCHED_DEL, comm_id);
}

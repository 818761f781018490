// SPDX-License-Identifier: BSD-2-Clause
/* Error strings and statistic names. */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>

#include <linux/netcoll.h>

#include "netcoll.h"

_Static_assert(__NETCOLL_STAT_MAX <= NC_STAT_MAX,
	       "struct nc_stats cannot hold every netcoll counter");

const char *nc_strerror(int err)
{
	const char *s;

	if (err < 0)
		err = -err;
	switch (err) {
	case 0:
		return "Success";
	case NC_ENOMODULE:
		return "netcoll module not loaded (no /dev/netcoll or no \"netcoll\" netlink family)";
	case NC_EABI:
		return "netcoll module speaks another ABI version";
	case NC_EPARSE:
		return "Cannot parse argument";
	case NC_EPROTO:
		return "Malformed netlink answer from the netcoll module";
	case ENOTRECOVERABLE:
		return "Communicator broken: an earlier operation failed, so ranks may disagree on the order of operations; delete and create it again";
	}
	/* strerrordesc_np: static strings, thread-safe, NULL when unknown. */
	s = strerrordesc_np(err);
	return s ? s : "Unknown error";
}

/* Indexed by enum netcoll_stat; the unit test checks it is complete. */
static const char *const nc_stat_names[__NETCOLL_STAT_MAX] = {
	[NETCOLL_STAT_TX_FRAMES]	= "tx_frames",
	[NETCOLL_STAT_TX_BYTES]		= "tx_bytes",
	[NETCOLL_STAT_RX_FRAMES]	= "rx_frames",
	[NETCOLL_STAT_RX_BYTES]		= "rx_bytes",
	[NETCOLL_STAT_RETRANSMITS]	= "retransmits",
	[NETCOLL_STAT_TX_ACKS]		= "tx_acks",
	[NETCOLL_STAT_RX_ACKS]		= "rx_acks",
	[NETCOLL_STAT_RX_DUPLICATES]	= "rx_duplicates",
	[NETCOLL_STAT_RX_EARLY]		= "rx_early",
	[NETCOLL_STAT_OPS_DONE]		= "ops_done",
	[NETCOLL_STAT_OPS_FAILED]	= "ops_failed",
	[NETCOLL_STAT_OPS_TIMEDOUT]	= "ops_timedout",
	[NETCOLL_STAT_DROP_SHORT]	= "drop_short",
	[NETCOLL_STAT_DROP_VERSION]	= "drop_version",
	[NETCOLL_STAT_DROP_TYPE]	= "drop_type",
	[NETCOLL_STAT_DROP_LENGTH]	= "drop_length",
	[NETCOLL_STAT_DROP_COMM]	= "drop_comm",
	[NETCOLL_STAT_DROP_COOKIE]	= "drop_cookie",
	[NETCOLL_STAT_DROP_RANK]	= "drop_rank",
	[NETCOLL_STAT_DROP_ADDR]	= "drop_addr",
	[NETCOLL_STAT_DROP_STATE]	= "drop_state",
	[NETCOLL_STAT_DROP_MEMORY]	= "drop_memory",
	[NETCOLL_STAT_DROP_TX]		= "drop_tx",
	[NETCOLL_STAT_DROP_OPCODE]	= "drop_opcode",
	[NETCOLL_STAT_AGG_OPS]		= "agg_ops",
	[NETCOLL_STAT_AGG_REDUCED]	= "agg_reduced",
	[NETCOLL_STAT_AGG_MCAST_TX]	= "agg_mcast_tx",
	[NETCOLL_STAT_AGG_REPAIRS]	= "agg_repairs",
	[NETCOLL_STAT_AGG_QUEUED]	= "agg_queued",
	[NETCOLL_STAT_AGG_FPU_DEFERRED]	= "agg_fpu_deferred",
	[NETCOLL_STAT_RTO_EXPIRED]	= "rto_expired",
	[NETCOLL_STAT_DROP_EPOCH]	= "drop_epoch",
	[NETCOLL_STAT_DROP_AUTH]	= "drop_auth",
	[NETCOLL_STAT_DROP_REPLAY]	= "drop_replay",
	[NETCOLL_STAT_DROP_RATELIMIT]	= "drop_ratelimit",
	[NETCOLL_STAT_OPS_CANCELLED]	= "ops_cancelled",
	[NETCOLL_STAT_JOINS]		= "joins",
	[NETCOLL_STAT_ACKS_HELD]	= "acks_held",
	[NETCOLL_STAT_AGG_REPEATS]	= "agg_repeats",
	[NETCOLL_STAT_AGG_BCAST_EARLY]	= "agg_bcast_early",
	[NETCOLL_STAT_RX_DUP_ACKS]	= "rx_dup_acks",
	[NETCOLL_STAT_TX_REORDERED]	= "tx_reordered",
	[NETCOLL_STAT_TX_EARLY_RETRANSMITS] = "tx_early_retransmits",
	[NETCOLL_STAT_TX_REPEATS]	= "tx_repeats",
	[NETCOLL_STAT_TX_GSO]		= "tx_gso",
	[NETCOLL_STAT_RX_GSO]		= "rx_gso",
	[NETCOLL_STAT_AGG_LOSS_ACKED]	= "agg_loss_acked",
	[NETCOLL_STAT_AGG_LOSS_HOLES]	= "agg_loss_holes",
	[NETCOLL_STAT_AGG_LOSS_ASKED]	= "agg_loss_asked",
	[NETCOLL_STAT_AGG_LOSS_TIMEOUTS] = "agg_loss_timeouts",
};

const char *nc_stat_name(unsigned int id)
{
	return id < __NETCOLL_STAT_MAX ? nc_stat_names[id] : NULL;
}

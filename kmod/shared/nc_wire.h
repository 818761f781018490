/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Wire codec shared by the module and the user-space unit tests, so the
 * tests exercise the very checks the receive path runs.  Everything here
 * is pure: no allocation, no locking, no kernel-only helpers.
 */
#ifndef NC_WIRE_H
#define NC_WIRE_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/string.h>
#include <asm/byteorder.h>
#define nc_be16(x)	be16_to_cpu(x)
#define nc_be32(x)	be32_to_cpu(x)
#define nc_be64(x)	be64_to_cpu(x)
#define nc_tobe16(x)	cpu_to_be16(x)
#define nc_tobe32(x)	cpu_to_be32(x)
#define nc_tobe64(x)	cpu_to_be64(x)
#else
#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <linux/types.h>
typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
#define nc_be16(x)	be16toh(x)
#define nc_be32(x)	be32toh(x)
#define nc_be64(x)	be64toh(x)
#define nc_tobe16(x)	htobe16(x)
#define nc_tobe32(x)	htobe32(x)
#define nc_tobe64(x)	htobe64(x)
#endif

#include <linux/netcoll.h>

/* Header fields in host order. */
struct nc_frame {
	u16 type;
	u16 flags;
	u32 comm_id;
	u64 cookie;
	u64 epoch;
	u32 op_seq;
	u32 src_rank;
	u32 dst_rank;
	u16 tag;
	u16 len;
	u32 seq;
	u32 frag_off;
	u32 msg_len;
	u16 frag_size;
	u16 opcode;
};

static inline void nc_wire_encode(struct netcoll_hdr *h, const struct nc_frame *f)
{
	h->version = NETCOLL_WIRE_VERSION;
	h->type = (u8)f->type;
	h->flags = nc_tobe16(f->flags);
	h->comm_id = nc_tobe32(f->comm_id);
	h->cookie = nc_tobe64(f->cookie);
	h->epoch = nc_tobe64(f->epoch);
	h->op_seq = nc_tobe32(f->op_seq);
	h->src_rank = nc_tobe32(f->src_rank);
	h->dst_rank = nc_tobe32(f->dst_rank);
	h->tag = nc_tobe16(f->tag);
	h->len = nc_tobe16(f->len);
	h->seq = nc_tobe32(f->seq);
	h->frag_off = nc_tobe32(f->frag_off);
	h->msg_len = nc_tobe32(f->msg_len);
	h->frag_size = nc_tobe16(f->frag_size);
	h->opcode = nc_tobe16(f->opcode);
}

static inline void nc_wire_decode(struct nc_frame *f, const struct netcoll_hdr *h)
{
	f->type = h->type;
	f->flags = nc_be16(h->flags);
	f->comm_id = nc_be32(h->comm_id);
	f->cookie = nc_be64(h->cookie);
	f->epoch = nc_be64(h->epoch);
	f->op_seq = nc_be32(h->op_seq);
	f->src_rank = nc_be32(h->src_rank);
	f->dst_rank = nc_be32(h->dst_rank);
	f->tag = nc_be16(h->tag);
	f->len = nc_be16(h->len);
	f->seq = nc_be32(h->seq);
	f->frag_off = nc_be32(h->frag_off);
	f->msg_len = nc_be32(h->msg_len);
	f->frag_size = nc_be16(h->frag_size);
	f->opcode = nc_be16(h->opcode);
}

/* Fragments of a message of msg_len bytes cut at frag_size (>= 1). */
static inline u32 nc_wire_nfrags(u32 msg_len, u32 frag_size)
{
	if (!msg_len)
		return 1;
	return msg_len / frag_size + (msg_len % frag_size != 0);
}

static inline bool nc_wire_is_agg(u16 type)
{
	return type >= NETCOLL_T_AGG_UP && type <= NETCOLL_T_AGG_NACK;
}

static inline bool nc_wire_is_join(u16 type)
{
	return type == NETCOLL_T_JOIN || type == NETCOLL_T_JOIN_ACK ||
	       type == NETCOLL_T_JOIN_CHALLENGE;
}

/* Flags each frame type may carry; any frame may be authenticated. */
static inline u16 nc_wire_flags_allowed(u16 type)
{
	switch (type) {
	case NETCOLL_T_DATA:
	case NETCOLL_T_AGG_UP:
		return NETCOLL_F_ACK_NOW | NETCOLL_F_AUTH;
	case NETCOLL_T_ACK:
		return NETCOLL_F_ACK_ALL | NETCOLL_F_DUP | NETCOLL_F_AUTH;
	case NETCOLL_T_AGG_DOWN:
		return NETCOLL_F_MCAST | NETCOLL_F_AUTH;
	case NETCOLL_T_AGG_ACK:	/* a parent asks a late child; a child acks a result */
		return NETCOLL_F_ACK_NOW | NETCOLL_F_RESULT | NETCOLL_F_AUTH;
	default:
		return NETCOLL_F_AUTH;
	}
}

/* Bytes of a frame after the link header: header, payload, trailer. */
static inline u32 nc_wire_frame_len(const struct nc_frame *f)
{
	return NETCOLL_HDR_LEN + f->len +
	       (f->flags & NETCOLL_F_AUTH ? NETCOLL_AUTH_LEN : 0);
}

/* Fragment checks shared by DATA, AGG_UP and AGG_DOWN. */
static inline int nc_wire_check_frag(const struct nc_frame *f)
{
	if (f->msg_len > NETCOLL_MSG_MAX)
		return NETCOLL_STAT_DROP_LENGTH;
	if (!f->msg_len) {
		if (f->len || f->seq || f->frag_off)
			return NETCOLL_STAT_DROP_LENGTH;
		return 0;
	}
	if (!f->frag_size ||
	    f->seq >= nc_wire_nfrags(f->msg_len, f->frag_size) ||
	    f->frag_off != f->seq * f->frag_size)
		return NETCOLL_STAT_DROP_LENGTH;
	/* every fragment is full but the last, which carries the rest */
	if (f->len != (f->msg_len - f->frag_off < f->frag_size ?
		       f->msg_len - f->frag_off : f->frag_size))
		return NETCOLL_STAT_DROP_LENGTH;
	return 0;
}

/*
 * Check a frame of frame_len bytes (header and payload, link header
 * already removed, padding included) against everything the header alone
 * can prove.  Returns 0, or the enum netcoll_stat drop counter to bump.
 * On success *f holds the decoded header.
 */
static inline int nc_wire_check(const void *frame, u32 frame_len,
				struct nc_frame *f)
{
	const struct netcoll_hdr *h = frame;

	if (frame_len < NETCOLL_HDR_LEN)
		return NETCOLL_STAT_DROP_SHORT;
	if (h->version != NETCOLL_WIRE_VERSION)
		return NETCOLL_STAT_DROP_VERSION;
	nc_wire_decode(f, h);
	if (f->type < NETCOLL_T_DATA || f->type > NETCOLL_T_MAX ||
	    f->flags & ~nc_wire_flags_allowed(f->type))
		return NETCOLL_STAT_DROP_TYPE;
	if (nc_wire_frame_len(f) > frame_len)
		return NETCOLL_STAT_DROP_LENGTH;
	if (f->src_rank >= NETCOLL_COMM_SIZE_MAX || f->src_rank == f->dst_rank)
		return NETCOLL_STAT_DROP_RANK;
	/* only a multicast result goes to the whole group */
	if (f->flags & NETCOLL_F_MCAST ? f->dst_rank != NETCOLL_RANK_GROUP :
	    f->dst_rank >= NETCOLL_COMM_SIZE_MAX)
		return NETCOLL_STAT_DROP_RANK;
	if (nc_wire_is_agg(f->type)) {
		if (f->opcode != NETCOLL_OPCODE_BCAST &&
		    ((f->opcode >> 8) >= NETCOLL_OP_COUNT ||
		     (f->opcode & 0xff) >= NETCOLL_DT_COUNT))
			return NETCOLL_STAT_DROP_OPCODE;
	} else if (f->opcode) {
		return NETCOLL_STAT_DROP_TYPE;
	}

	switch (f->type) {
	case NETCOLL_T_DATA:
	case NETCOLL_T_AGG_UP:
	case NETCOLL_T_AGG_DOWN:
		return nc_wire_check_frag(f);
	case NETCOLL_T_AGG_NACK:	/* a bitmap; msg_len: asks only below it */
		if (f->len > NETCOLL_NACK_MAP_MAX || f->frag_size ||
		    (f->frag_off && !f->msg_len) ||
		    (f->msg_len && f->msg_len <= f->seq))
			return NETCOLL_STAT_DROP_LENGTH;
		return 0;
	default:		/* ACK, AGG_ACK, JOIN*: no payload */
		if (f->len || f->msg_len || f->frag_size)
			return NETCOLL_STAT_DROP_LENGTH;
		return 0;
	}
}

#endif /* NC_WIRE_H */

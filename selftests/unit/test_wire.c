// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The wire codec, exactly as the module's receive path runs it
 * (kmod/shared/nc_wire.h is compiled into both).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "nc_wire.h"
#include "harness.h"

static unsigned char frame[NETCOLL_HDR_LEN + 2000];

/* A valid DATA frame: fragment 1 of a 3000-byte message cut at 1452. */
static struct nc_frame data_frame(void)
{
	struct nc_frame f = {
		.type = NETCOLL_T_DATA, .comm_id = 7, .cookie = 0x1122334455667788ULL,
		.epoch = 0x0102030405060708ULL, .op_seq = 9, .src_rank = 1, .dst_rank = 2, .tag = 3,
		.len = 1452, .seq = 1, .frag_off = 1452, .msg_len = 3000,
		.frag_size = 1452,
	};
	return f;
}

static int check(const struct nc_frame *in, uint32_t frame_len)
{
	struct nc_frame out;

	nc_wire_encode((struct netcoll_hdr *)frame, in);
	return nc_wire_check(frame, frame_len, &out);
}

TEST(header_is_56_bytes_with_fixed_offsets)
{
	CHECK_EQ(sizeof(struct netcoll_hdr), NETCOLL_HDR_LEN);
	CHECK_EQ(NETCOLL_HDR_LEN, 56);
	CHECK_EQ(offsetof(struct netcoll_hdr, cookie), 8);
	CHECK_EQ(offsetof(struct netcoll_hdr, epoch), 16);
	CHECK_EQ(offsetof(struct netcoll_hdr, op_seq), 24);
	CHECK_EQ(offsetof(struct netcoll_hdr, tag), 36);
	CHECK_EQ(offsetof(struct netcoll_hdr, seq), 40);
	CHECK_EQ(offsetof(struct netcoll_hdr, frag_size), 52);
	CHECK_EQ(sizeof(struct netcoll_auth), NETCOLL_AUTH_LEN);
}

TEST(encode_decode_round_trip_in_network_order)
{
	struct nc_frame in = data_frame(), out;
	const struct netcoll_hdr *hdr = (const void *)frame;

	nc_wire_encode((struct netcoll_hdr *)frame, &in);
	CHECK_EQ(frame[0], NETCOLL_WIRE_VERSION);
	CHECK_EQ(frame[1], NETCOLL_T_DATA);
	/* comm_id 7 big-endian at offset 4, cookie MSB first at offset 8 */
	CHECK_EQ(frame[7], 7);
	CHECK_EQ(frame[8], 0x11);
	CHECK_EQ(frame[15], 0x88);
	CHECK_EQ(frame[16], 0x01);
	CHECK_EQ(frame[23], 0x08);
	CHECK_EQ(hdr->opcode, 0);
	CHECK_EQ(nc_wire_check(frame, NETCOLL_HDR_LEN + 1452, &out), 0);
	/* every field, padding excluded */
	CHECK(memcmp(&in, &out, offsetof(struct nc_frame, frag_size) + 2) == 0);
}

TEST(valid_frames_pass)
{
	struct nc_frame f = data_frame();

	CHECK_EQ(check(&f, NETCOLL_HDR_LEN + 1452), 0);
	/* the last fragment carries the rest: 3000 - 2*1452 = 96 */
	f.seq = 2;
	f.frag_off = 2904;
	f.len = 96;
	CHECK_EQ(check(&f, NETCOLL_HDR_LEN + 96), 0);
	/* Ethernet padding after the payload is allowed */
	CHECK_EQ(check(&f, NETCOLL_HDR_LEN + 96 + 20), 0);
	/* an empty message is one empty fragment */
	f = data_frame();
	f.msg_len = 0;
	f.len = 0;
	f.seq = 0;
	f.frag_off = 0;
	f.frag_size = 0;
	CHECK_EQ(check(&f, 60), 0);
}

TEST(ack_frames)
{
	struct nc_frame f = {
		.type = NETCOLL_T_ACK, .flags = NETCOLL_F_ACK_ALL, .comm_id = 1,
		.src_rank = 0, .dst_rank = 1, .seq = 5, .frag_off = 0xdeadbeef,
	};

	CHECK_EQ(check(&f, NETCOLL_HDR_LEN), 0);
	/* an ack may say the fragment it answers came twice; data may not */
	f.flags = NETCOLL_F_ACK_ALL | NETCOLL_F_DUP;
	CHECK_EQ(check(&f, NETCOLL_HDR_LEN), 0);
	f.flags = NETCOLL_F_ACK_NOW;
	CHECK_EQ(check(&f, NETCOLL_HDR_LEN), NETCOLL_STAT_DROP_TYPE);
	/* a parent's ack may ask its child to answer; no other control frame */
	f.type = NETCOLL_T_AGG_ACK;
	f.opcode = NETCOLL_OP_SUM << 8 | NETCOLL_DT_INT64;
	CHECK_EQ(check(&f, NETCOLL_HDR_LEN), 0);
	f.flags = NETCOLL_F_ACK_ALL;
	CHECK_EQ(check(&f, NETCOLL_HDR_LEN), NETCOLL_STAT_DROP_TYPE);
	/* a child's ack of a result going down; only an AGG_ACK carries it */
	f.flags = NETCOLL_F_RESULT;
	CHECK_EQ(check(&f, NETCOLL_HDR_LEN), 0);
	f.type = NETCOLL_T_AGG_DOWN;
	f.len = 8;
	f.msg_len = 8;
	f.frag_size = 8;
	f.seq = 0;
	f.frag_off = 0;
	CHECK_EQ(check(&f, NETCOLL_HDR_LEN + 8), NETCOLL_STAT_DROP_TYPE);
	f.len = 0;
	f.msg_len = 0;
	f.frag_size = 0;
	f.type = NETCOLL_T_ACK;
	f.opcode = 0;
	f.flags = 0;
	f.len = 1;
	CHECK_EQ(check(&f, NETCOLL_HDR_LEN + 1), NETCOLL_STAT_DROP_LENGTH);
	f.len = 0;
	f.msg_len = 1;
	CHECK_EQ(check(&f, NETCOLL_HDR_LEN), NETCOLL_STAT_DROP_LENGTH);
}

TEST(short_and_version)
{
	struct nc_frame f = data_frame(), out;

	CHECK_EQ(check(&f, NETCOLL_HDR_LEN - 1), NETCOLL_STAT_DROP_SHORT);
	CHECK_EQ(check(&f, 0), NETCOLL_STAT_DROP_SHORT);
	nc_wire_encode((struct netcoll_hdr *)frame, &f);
	frame[0] = NETCOLL_WIRE_VERSION + 1;
	CHECK_EQ(nc_wire_check(frame, sizeof(frame), &out), NETCOLL_STAT_DROP_VERSION);
}

TEST(type_flags_reserved)
{
	struct nc_frame f = data_frame(), out;

	f.type = 0;
	CHECK_EQ(check(&f, sizeof(frame)), NETCOLL_STAT_DROP_TYPE);
	f.type = NETCOLL_T_MAX + 1;
	CHECK_EQ(check(&f, sizeof(frame)), NETCOLL_STAT_DROP_TYPE);
	f = data_frame();
	f.flags = 0x8000;
	CHECK_EQ(check(&f, sizeof(frame)), NETCOLL_STAT_DROP_TYPE);
	f.flags = NETCOLL_F_DUP;
	CHECK_EQ(check(&f, sizeof(frame)), NETCOLL_STAT_DROP_TYPE);
	f.flags = NETCOLL_F_ACK_ALL;
	CHECK_EQ(check(&f, sizeof(frame)), NETCOLL_STAT_DROP_TYPE);
	f = data_frame();
	nc_wire_encode((struct netcoll_hdr *)frame, &f);
	((struct netcoll_hdr *)frame)->opcode = nc_tobe16(1);
	CHECK_EQ(nc_wire_check(frame, sizeof(frame), &out), NETCOLL_STAT_DROP_TYPE);
}

TEST(lengths_must_agree)
{
	struct nc_frame f = data_frame();

	/* payload longer than the frame */
	CHECK_EQ(check(&f, NETCOLL_HDR_LEN + 1451), NETCOLL_STAT_DROP_LENGTH);
	/* offset not seq * frag_size */
	f.frag_off = 1000;
	CHECK_EQ(check(&f, sizeof(frame)), NETCOLL_STAT_DROP_LENGTH);
	/* fragment number beyond the message */
	f = data_frame();
	f.seq = 3;
	f.frag_off = 3 * 1452;
	CHECK_EQ(check(&f, sizeof(frame)), NETCOLL_STAT_DROP_LENGTH);
	/* a middle fragment that is not full */
	f = data_frame();
	f.len = 1000;
	CHECK_EQ(check(&f, sizeof(frame)), NETCOLL_STAT_DROP_LENGTH);
	/* the last fragment claiming more than the rest */
	f.seq = 2;
	f.frag_off = 2904;
	f.len = 97;
	CHECK_EQ(check(&f, sizeof(frame)), NETCOLL_STAT_DROP_LENGTH);
	/* zero fragment size with data */
	f = data_frame();
	f.frag_size = 0;
	CHECK_EQ(check(&f, sizeof(frame)), NETCOLL_STAT_DROP_LENGTH);
	/* message above the maximum */
	f = data_frame();
	f.msg_len = NETCOLL_MSG_MAX + 1;
	CHECK_EQ(check(&f, sizeof(frame)), NETCOLL_STAT_DROP_LENGTH);
	/* empty message with payload */
	f = data_frame();
	f.msg_len = 0;
	f.seq = 0;
	f.frag_off = 0;
	f.len = 4;
	CHECK_EQ(check(&f, sizeof(frame)), NETCOLL_STAT_DROP_LENGTH);
}

TEST(ranks)
{
	struct nc_frame f = data_frame();

	f.src_rank = f.dst_rank;
	CHECK_EQ(check(&f, sizeof(frame)), NETCOLL_STAT_DROP_RANK);
	f.src_rank = NETCOLL_COMM_SIZE_MAX;
	CHECK_EQ(check(&f, sizeof(frame)), NETCOLL_STAT_DROP_RANK);
	f = data_frame();
	f.dst_rank = 0xffffffff;
	CHECK_EQ(check(&f, sizeof(frame)), NETCOLL_STAT_DROP_RANK);
}

TEST(fragment_counts)
{
	CHECK_EQ(nc_wire_nfrags(0, 1452), 1);
	CHECK_EQ(nc_wire_nfrags(1, 1452), 1);
	CHECK_EQ(nc_wire_nfrags(1452, 1452), 1);
	CHECK_EQ(nc_wire_nfrags(1453, 1452), 2);
	CHECK_EQ(nc_wire_nfrags(NETCOLL_MSG_MAX, 20), (NETCOLL_MSG_MAX + 19) / 20);
}

TEST(aggregation_frames)
{
	struct nc_frame f = data_frame(), out;

	f.type = NETCOLL_T_AGG_UP;
	f.opcode = NETCOLL_OP_SUM << 8 | NETCOLL_DT_DOUBLE;
	CHECK_EQ(check(&f, sizeof(frame)), 0);
	CHECK_EQ(nc_wire_check(frame, sizeof(frame), &out), 0);
	CHECK_EQ(out.opcode, f.opcode);
	f.flags = NETCOLL_F_ACK_NOW;
	CHECK_EQ(check(&f, sizeof(frame)), 0);
	/* unknown op or dtype: its own counter */
	f.opcode = NETCOLL_OP_COUNT << 8;
	CHECK_EQ(check(&f, sizeof(frame)), NETCOLL_STAT_DROP_OPCODE);
	f.opcode = NETCOLL_DT_COUNT;
	CHECK_EQ(check(&f, sizeof(frame)), NETCOLL_STAT_DROP_OPCODE);
	/* only a result may be multicast, and only to the group */
	f.opcode = 0;
	f.flags = NETCOLL_F_MCAST;
	CHECK_EQ(check(&f, sizeof(frame)), NETCOLL_STAT_DROP_TYPE);
	f.type = NETCOLL_T_AGG_DOWN;
	CHECK_EQ(check(&f, sizeof(frame)), NETCOLL_STAT_DROP_RANK);
	f.dst_rank = NETCOLL_RANK_GROUP;
	CHECK_EQ(check(&f, sizeof(frame)), 0);
	f.flags = 0;
	CHECK_EQ(check(&f, sizeof(frame)), NETCOLL_STAT_DROP_RANK);
	/* a done marker carries nothing */
	f = data_frame();
	f.type = NETCOLL_T_AGG_DOWN;
	f.msg_len = 0;
	f.len = 0;
	f.seq = 0;
	f.frag_off = 0;
	CHECK_EQ(check(&f, NETCOLL_HDR_LEN), 0);
	/* acks carry no payload; nacks a bitmap of at most 32 bytes */
	f.type = NETCOLL_T_AGG_NACK;
	f.frag_size = 0;
	CHECK_EQ(check(&f, NETCOLL_HDR_LEN), 0);
	f.len = 4;
	CHECK_EQ(check(&f, NETCOLL_HDR_LEN + 4), 0);
	CHECK_EQ(check(&f, NETCOLL_HDR_LEN + 3), NETCOLL_STAT_DROP_LENGTH);
	f.len = NETCOLL_NACK_MAP_MAX + 1;
	CHECK_EQ(check(&f, sizeof(frame)), NETCOLL_STAT_DROP_LENGTH);
	f.len = 0;
	f.frag_off = 1;		/* a timer's request has no round */
	CHECK_EQ(check(&f, NETCOLL_HDR_LEN), NETCOLL_STAT_DROP_LENGTH);
	f.frag_off = 0;
	/* a nack for the holes below fragment msg_len, from seq */
	f.seq = 2;
	f.msg_len = 5;
	CHECK_EQ(check(&f, NETCOLL_HDR_LEN), 0);
	f.frag_off = 3;		/* ... asked for the third time */
	CHECK_EQ(check(&f, NETCOLL_HDR_LEN), 0);
	f.frag_off = 0;
	f.msg_len = 2;		/* nothing to ask for */
	CHECK_EQ(check(&f, NETCOLL_HDR_LEN), NETCOLL_STAT_DROP_LENGTH);
	f.type = NETCOLL_T_AGG_ACK;	/* only a nack bounds its request */
	f.msg_len = 5;
	CHECK_EQ(check(&f, NETCOLL_HDR_LEN), NETCOLL_STAT_DROP_LENGTH);
	f.msg_len = 0;
	f.len = 4;		/* nor carries a payload */
	CHECK_EQ(check(&f, NETCOLL_HDR_LEN + 4), NETCOLL_STAT_DROP_LENGTH);
	/* p2p frames carry no opcode */
	f = data_frame();
	f.opcode = 1;
	CHECK_EQ(check(&f, sizeof(frame)), NETCOLL_STAT_DROP_TYPE);
}

/* An authenticated frame needs room for its trailer after the payload. */
TEST(auth_trailer)
{
	struct nc_frame f = data_frame();

	f.flags = NETCOLL_F_AUTH;
	CHECK_EQ(nc_wire_frame_len(&f), NETCOLL_HDR_LEN + 1452 + NETCOLL_AUTH_LEN);
	CHECK_EQ(check(&f, NETCOLL_HDR_LEN + 1452), NETCOLL_STAT_DROP_LENGTH);
	CHECK_EQ(check(&f, NETCOLL_HDR_LEN + 1452 + NETCOLL_AUTH_LEN - 1),
		 NETCOLL_STAT_DROP_LENGTH);
	CHECK_EQ(check(&f, NETCOLL_HDR_LEN + 1452 + NETCOLL_AUTH_LEN), 0);
	/* any type may be authenticated */
	f.flags = NETCOLL_F_AUTH | NETCOLL_F_ACK_NOW;
	CHECK_EQ(check(&f, sizeof(frame)), 0);
	f.type = NETCOLL_T_JOIN;
	f.flags = NETCOLL_F_AUTH;
	f.len = f.msg_len = f.frag_size = f.seq = f.frag_off = 0;
	CHECK_EQ(check(&f, NETCOLL_HDR_LEN + NETCOLL_AUTH_LEN), 0);
}

/* Joins: no payload, no flags but AUTH, no opcode. */
TEST(join_frames)
{
	struct nc_frame f = data_frame();

	f.type = NETCOLL_T_JOIN;
	f.len = f.msg_len = f.frag_size = f.seq = f.frag_off = 0;
	CHECK_EQ(check(&f, NETCOLL_HDR_LEN), 0);
	CHECK(nc_wire_is_join(f.type));
	f.type = NETCOLL_T_JOIN_ACK;
	f.seq = 0xdeadbeef;	/* the nonce echoed */
	f.frag_off = 0x12345678;
	CHECK_EQ(check(&f, NETCOLL_HDR_LEN), 0);
	f.flags = NETCOLL_F_ACK_NOW;
	CHECK_EQ(check(&f, NETCOLL_HDR_LEN), NETCOLL_STAT_DROP_TYPE);
	f.flags = 0;
	f.len = 8;
	CHECK_EQ(check(&f, NETCOLL_HDR_LEN + 8), NETCOLL_STAT_DROP_LENGTH);
	f.len = 0;
	f.opcode = 1;
	CHECK_EQ(check(&f, NETCOLL_HDR_LEN), NETCOLL_STAT_DROP_TYPE);
	CHECK(!nc_wire_is_agg(NETCOLL_T_JOIN) && !nc_wire_is_agg(NETCOLL_T_JOIN_ACK));
}

int main(void)
{
	RUN(header_is_56_bytes_with_fixed_offsets);
	RUN(auth_trailer);
	RUN(join_frames);
	RUN(encode_decode_round_trip_in_network_order);
	RUN(valid_frames_pass);
	RUN(ack_frames);
	RUN(short_and_version);
	RUN(type_flags_reserved);
	RUN(lengths_must_agree);
	RUN(ranks);
	RUN(fragment_counts);
	RUN(aggregation_frames);
	return DONE();
}

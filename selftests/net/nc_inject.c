// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * nc_inject: send hostile netcoll frames from a raw AF_PACKET socket.
 *
 * Each case starts from a valid DATA frame (encoded with the module's own
 * codec) and breaks exactly one property, so a test can check that the
 * matching drop counter, and only it, went up by --count.
 *
 *   nc_inject --dev eth0 --dst MAC --comm ID --cookie C --epoch E
 *             --src-rank R --dst-rank D --case NAME [--count N]
 *             [--ethertype 0x88b5]
 *
 * Cases and the counter each must raise:
 *   short    drop_short     frame shorter than the header
 *   version  drop_version   wire version + 1
 *   type     drop_type      unknown frame type
 *   length   drop_length    payload length beyond the frame
 *   comm     drop_comm      communicator id nobody has
 *   cookie   drop_cookie    wrong cookie
 *   epoch    drop_epoch     another incarnation's epoch
 *   auth     drop_auth      a tag on a communicator without a key
 *   rank     drop_rank      destination rank that is not the receiver's
 *   addr     drop_addr      valid frame, sent from an address that is not
 *                           the source rank's (run it from another host)
 *   state    drop_state     valid frame for an operation far in the future
 *   past     (see t_inject) valid frame for operation --seq, finished:
 *                           acked if recent, at a bounded rate
 *                           (drop_ratelimit beyond), drop_state if older
 *   fuzz     (any drop)     random bytes after a valid version byte
 *
 * Contributions to a reduction (AGG_UP to rank --dst-rank, whose child
 * --src-rank must be; operation 0 is the receiver's next one, a sum of
 * two doubles, which the test starts afterwards):
 *   agg-opcode  drop_opcode  unknown op in the opcode field
 *   agg-wrongop drop_opcode  a valid op, but not the operation's (band int32)
 *   agg-length  drop_length  the operation's op, but 24 bytes instead of 16
 *   agg-seq     drop_state   an operation far in the future
 *   agg-mcast   drop_rank    a multicast result addressed to one rank
 *   agg-up      (none)       a well-formed contribution (sum of 2 doubles)
 *   agg-result  (none)       a well-formed result of piece 0 of that sum,
 *                            AGG_DOWN from --src-rank (the root or the
 *                            receiver's parent): forged ahead of the
 *                            receiver's children, it completes the piece
 *
 * The first fragment (DATA, tag 0) of the --msg-len byte alltoall message
 * of operation --seq, cut at --frag-size, finer than the receiver cuts it
 * (a sender with a smaller MTU): the receiver grows that message's receive
 * set, charged to the communicator's posted memory (drop_memory over it):
 *   finer
 *
 * A broadcast's data (AGG_DOWN, fragment 0 of a --msg-len byte vector,
 * 16 by default, cut at 1440, operation --seq) from broadcast root
 * --root, for the receiver's next operation: from its parent in that
 * broadcast's tree it starts the broadcast there (agg_bcast_early); from
 * another rank it must not:
 *   agg-bcast
 * Its empty piece (1) finished, from the same root: the receiver sent
 * nothing of that piece (its process did not post), so it is dropped
 * (drop_state):
 *   agg-bcast-done
 *
 * Alltoall data for a later operation (--seq), each copy another message
 * (tag 1, 2, ...) of 1400 bytes: held as early frames, those beyond the
 * receiver's books in the first half of its receive memory only
 * (drop_memory beyond):
 *   early
 * The same, but frame i is fragment i % 64 of message i / 64 + 1, each
 * message 64 fragments of 1400 bytes: the first 64 messages are booked
 * (and acked), and held in all the receive memory but the running
 * operation's reserve (rel.h):
 *   early-booked
 *
 * Requests that ask for an answer (they are valid; what counts is how much
 * the receiver sends back):
 *   agg-nack    repair request for piece 0 of operation --seq, from
 *               fragment 0 (the receiver must be that piece's root or
 *               the sender's parent)
 *   agg-holes   the same, for the holes below fragment 1000000 (seen
 *               arriving a fragment: answered once per hole, not per
 *               interval)
 *   join        JOIN to rank 0, each with another nonce
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "nc_wire.h"

struct args {
	const char *dev, *kase;
	unsigned char dst[ETH_ALEN];
	unsigned int comm, src, dstrank, count, ethertype, seq, root;
	unsigned int msg_len, frag_size;
	unsigned long long cookie, epoch;
};

static void usage(void)
{
	fprintf(stderr, "usage: nc_inject --dev DEV --dst MAC --comm ID --cookie C "
		"--epoch E --src-rank R --dst-rank D --case NAME [--count N] "
		"[--seq S] [--root R] [--msg-len N --frag-size N] [--ethertype T]\n");
	exit(2);
}

static int parse_mac(const char *s, unsigned char *mac)
{
	return sscanf(s, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac[0], &mac[1],
		      &mac[2], &mac[3], &mac[4], &mac[5]) == 6 ? 0 : -1;
}

/* Build case a->kase into buf; returns the frame length (after Ethernet). */
static int build(const struct args *a, unsigned char *buf, unsigned int i)
{
	struct netcoll_hdr *h = (struct netcoll_hdr *)buf;
	struct nc_frame f = {
		.type = NETCOLL_T_DATA, .comm_id = a->comm, .cookie = a->cookie,
		.epoch = a->epoch, .op_seq = 0, .src_rank = a->src,
		.dst_rank = a->dstrank, .tag = 0, .len = 16, .seq = 0,
		.frag_off = 0, .msg_len = 16, .frag_size = 1444,
	};
	int len = NETCOLL_HDR_LEN + 16;

	memset(buf, 0xab, 1500);
	if (!strncmp(a->kase, "agg-", 4)) {
		f.type = NETCOLL_T_AGG_UP;
		f.frag_size = 1440;
		f.opcode = NETCOLL_OP_SUM << 8 | NETCOLL_DT_DOUBLE;
	}
	if (!strcmp(a->kase, "agg-opcode")) {
		f.opcode = NETCOLL_OP_COUNT << 8;
	} else if (!strcmp(a->kase, "agg-wrongop")) {
		f.opcode = NETCOLL_OP_BAND << 8 | NETCOLL_DT_INT32;
	} else if (!strcmp(a->kase, "agg-length")) {
		f.len = 24;
		f.msg_len = 24;
		len = NETCOLL_HDR_LEN + 24;
	} else if (!strcmp(a->kase, "agg-seq")) {
		f.op_seq = 0x40000000;
	} else if (!strcmp(a->kase, "agg-mcast")) {
		f.type = NETCOLL_T_AGG_DOWN;
		f.flags = NETCOLL_F_MCAST;
	} else if (!strcmp(a->kase, "agg-result")) {
		f.type = NETCOLL_T_AGG_DOWN;
	} else if (!strcmp(a->kase, "agg-up")) {
		/* the base contribution as it is */
	} else if (!strcmp(a->kase, "agg-bcast")) {
		f.type = NETCOLL_T_AGG_DOWN;
		f.opcode = NETCOLL_OPCODE_BCAST;
		f.tag = NETCOLL_AGG_TAG(0, a->root);
		f.op_seq = a->seq;
		if (a->msg_len) {
			f.msg_len = a->msg_len;
			f.len = a->msg_len < f.frag_size ? a->msg_len : f.frag_size;
			len = NETCOLL_HDR_LEN + f.len;
		}
	} else if (!strcmp(a->kase, "agg-bcast-done")) {
		f.type = NETCOLL_T_AGG_DOWN;
		f.opcode = NETCOLL_OPCODE_BCAST;
		f.tag = NETCOLL_AGG_TAG(1, a->root);
		f.op_seq = a->seq;
		f.len = f.msg_len = f.frag_size = 0;
		len = NETCOLL_HDR_LEN;
	} else if (!strcmp(a->kase, "early")) {
		f.op_seq = a->seq;
		f.tag = (uint16_t)(i + 1);
		f.len = f.msg_len = 1400;
		len = NETCOLL_HDR_LEN + 1400;
	} else if (!strcmp(a->kase, "early-booked")) {
		/* frame i: fragment i % 64 of message i / 64 + 1, 64 of 1400 B */
		f.op_seq = a->seq;
		f.tag = (uint16_t)(i / 64 + 1);
		f.seq = i % 64;
		f.frag_size = 1400;
		f.frag_off = f.seq * 1400;
		f.msg_len = 64 * 1400;
		f.len = 1400;
		len = NETCOLL_HDR_LEN + 1400;
	} else if (!strcmp(a->kase, "finer")) {
		if (!a->frag_size || a->frag_size > 1400 || !a->msg_len)
			return -1;
		f.op_seq = a->seq;
		f.msg_len = a->msg_len;
		f.frag_size = a->frag_size;
		f.len = a->msg_len < a->frag_size ? a->msg_len : a->frag_size;
		len = NETCOLL_HDR_LEN + f.len;
	} else if (!strcmp(a->kase, "type"))
		f.type = NETCOLL_T_MAX + 1;
	else if (!strcmp(a->kase, "length"))
		f.len = 1000;
	else if (!strcmp(a->kase, "comm"))
		f.comm_id = 0x7ffffff0;
	else if (!strcmp(a->kase, "cookie"))
		f.cookie = ~a->cookie;
	else if (!strcmp(a->kase, "epoch"))
		f.epoch = ~a->epoch;
	else if (!strcmp(a->kase, "auth")) {
		f.flags = NETCOLL_F_AUTH;
		len += NETCOLL_AUTH_LEN;
	}
	else if (!strcmp(a->kase, "rank"))
		f.dst_rank = a->dstrank + 1 != a->src ? a->dstrank + 1 :
							a->dstrank + 2;
	else if (!strcmp(a->kase, "state"))
		f.op_seq = 0x40000000;
	else if (!strcmp(a->kase, "past"))
		f.op_seq = a->seq;
	else if (!strcmp(a->kase, "agg-nack") || !strcmp(a->kase, "agg-holes") ||
		 !strcmp(a->kase, "join")) {
		f.type = strcmp(a->kase, "join") ? NETCOLL_T_AGG_NACK :
						   NETCOLL_T_JOIN;
		f.op_seq = a->seq;
		f.len = f.msg_len = f.frag_size = f.opcode = 0;
		f.frag_off = 0;
		if (f.type == NETCOLL_T_JOIN) {
			f.dst_rank = 0;
			f.epoch = 0x6e630000ULL + i + 1;	/* the nonce */
		} else {
			f.opcode = NETCOLL_OP_SUM << 8 | NETCOLL_DT_DOUBLE;
			if (!strcmp(a->kase, "agg-holes"))
				f.msg_len = 1000000;
		}
		len = NETCOLL_HDR_LEN;
	}
	else if (strcmp(a->kase, "addr") && strcmp(a->kase, "short") &&
		 strcmp(a->kase, "version") && strcmp(a->kase, "fuzz"))
		return -1;
	nc_wire_encode(h, &f);
	if (!strcmp(a->kase, "short"))
		return NETCOLL_HDR_LEN - 1 - (int)(i % 8);
	if (!strcmp(a->kase, "version"))
		h->version = NETCOLL_WIRE_VERSION + 1;
	if (!strcmp(a->kase, "fuzz")) {
		unsigned int k;

		for (k = 1; k < 1500; k++)
			buf[k] = (unsigned char)rand();
		return 60 + rand() % 1400;
	}
	return len;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dev", 1, NULL, 'd' }, { "dst", 1, NULL, 'm' },
		{ "comm", 1, NULL, 'c' }, { "cookie", 1, NULL, 'k' },
		{ "src-rank", 1, NULL, 's' }, { "dst-rank", 1, NULL, 'r' },
		{ "case", 1, NULL, 'x' }, { "count", 1, NULL, 'n' },
		{ "ethertype", 1, NULL, 'e' }, { "epoch", 1, NULL, 'E' },
		{ "seq", 1, NULL, 'S' }, { "root", 1, NULL, 'R' },
		{ "msg-len", 1, NULL, 'L' }, { "frag-size", 1, NULL, 'F' },
		{ NULL, 0, NULL, 0 },
	};
	struct args a = { .count = 1, .ethertype = NETCOLL_ETHERTYPE };
	unsigned char frame[ETH_FRAME_LEN];
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	int fd, c, len, sndbuf = 16 << 20;
	unsigned int i;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'd': a.dev = optarg; break;
		case 'm': if (parse_mac(optarg, a.dst)) usage(); break;
		case 'c': a.comm = strtoul(optarg, NULL, 0); break;
		case 'k': a.cookie = strtoull(optarg, NULL, 0); break;
		case 's': a.src = strtoul(optarg, NULL, 0); break;
		case 'r': a.dstrank = strtoul(optarg, NULL, 0); break;
		case 'x': a.kase = optarg; break;
		case 'n': a.count = strtoul(optarg, NULL, 0); break;
		case 'e': a.ethertype = strtoul(optarg, NULL, 0); break;
		case 'E': a.epoch = strtoull(optarg, NULL, 0); break;
		case 'S': a.seq = strtoul(optarg, NULL, 0); break;
		case 'R': a.root = strtoul(optarg, NULL, 0); break;
		case 'L': a.msg_len = strtoul(optarg, NULL, 0); break;
		case 'F': a.frag_size = strtoul(optarg, NULL, 0); break;
		default: usage();
		}
	}
	if (!a.dev || !a.kase)
		usage();

	fd = socket(AF_PACKET, SOCK_DGRAM, htons(a.ethertype));
	if (fd < 0) {
		perror("nc_inject: socket");
		return 1;
	}
	/*
	 * A frame the receiver holds keeps our socket's send memory (across
	 * a veth, the skb keeps its socket): hundreds held would block us.
	 */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &sndbuf, sizeof(sndbuf)))
		perror("nc_inject: SO_SNDBUFFORCE");
	sll.sll_protocol = htons(a.ethertype);
	sll.sll_ifindex = if_nametoindex(a.dev);
	sll.sll_halen = ETH_ALEN;
	memcpy(sll.sll_addr, a.dst, ETH_ALEN);
	if (!sll.sll_ifindex) {
		fprintf(stderr, "nc_inject: no device %s\n", a.dev);
		return 1;
	}
	srand(12345);
	for (i = 0; i < a.count; i++) {
		len = build(&a, frame, i);
		if (len < 0) {
			fprintf(stderr, "nc_inject: unknown case %s, or its options missing\n", a.kase);
			return 2;
		}
		if (sendto(fd, frame, len, 0, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
			perror("nc_inject: sendto");
			return 1;
		}
	}
	printf("nc_inject: sent %u '%s' frames\n", a.count, a.kase);
	close(fd);
	return 0;
}

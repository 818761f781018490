// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * nc_replay: capture real netcoll frames, then send them again, as they
 * were or mutated: what an attacker on the segment can do with what it
 * overhears.
 *
 *   nc_replay record --dev DEV --out FILE [--count N] [--seconds S]
 *             [--outgoing]
 *       keep netcoll frames seen on DEV (with --outgoing: only those this
 *       host sends) until N frames, S seconds or SIGTERM/SIGINT (the
 *       test's "that is enough": what was kept is written out whole)
 *   nc_replay replay --dev DEV --in FILE [--times K] [--to MAC]
 *       send every kept frame again, K times
 *   nc_replay fuzz --dev DEV --in FILE --count N [--seed S] [--to MAC]
 *       send N mutations of the kept frames, every class in turn:
 *         flip      1 to 4 random bits of the netcoll header, payload or
 *                   trailer
 *         field     one header field at 0, 1 or all ones, field by field
 *         truncate  the frame cut at every length, one after the other
 *         huge      lengths and offsets near 2^16 and 2^32
 *         type      another frame type (every type in turn) on the frame
 *         replay    the frame as it was
 * Frames keep their source address (the host that sent them), so run it
 * on the host whose frames were recorded; --to rewrites the destination.
 * The file is a sequence of (u16 length, Ethernet frame).
 *
 * Prints how many frames it sent; the test compares that with the
 * receivers' counters.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "nc_wire.h"

#define MAX_FRAMES	4096
#define FRAME_MAX	(ETH_HLEN + 9216)
/* several frames for one destination may leave as one skb (tx_gso) */
#define PACKET_MAX	(ETH_HLEN + 65536)

struct frame {
	uint16_t len;
	unsigned char *data;
};

static struct frame frames[MAX_FRAMES];
static unsigned int nframes;

struct opts {
	const char *mode, *dev, *file;
	unsigned int count, times, seconds, seed, ethertype;
	int outgoing, have_to;
	unsigned char to[ETH_ALEN];
};

static void usage(void)
{
	fprintf(stderr,
		"usage: nc_replay record --dev DEV --out FILE [--count N] [--seconds S] [--outgoing]\n"
		"       nc_replay replay --dev DEV --in FILE [--times K] [--to MAC]\n"
		"       nc_replay fuzz --dev DEV --in FILE --count N [--seed S] [--to MAC]\n");
	exit(2);
}

/* A raw socket on dev; proto ETH_P_ALL also sees what the host sends. */
static int open_socket(const struct opts *o, int *ifindex, unsigned int proto)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	int fd;

	*ifindex = if_nametoindex(o->dev);
	if (!*ifindex) {
		fprintf(stderr, "nc_replay: no device %s\n", o->dev);
		exit(1);
	}
	fd = socket(AF_PACKET, SOCK_RAW, htons(proto));
	if (fd < 0) {
		perror("nc_replay: socket");
		exit(1);
	}
	sll.sll_protocol = htons(proto);
	sll.sll_ifindex = *ifindex;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		perror("nc_replay: bind");
		exit(1);
	}
	return fd;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static volatile sig_atomic_t record_stop;

static void on_stop(int sig)
{
	(void)sig;
	record_stop = 1;
}

/*
 * A captured packet's frames, each with the packet's Ethernet header, as
 * the cable carries them: an skb of several frames (tx_gso) is seen
 * whole here, its frames back to back, each as long as its header says.
 */
static unsigned int record_frames(FILE *out, const unsigned char *pkt, size_t n)
{
	static unsigned char frame[FRAME_MAX];
	size_t off = ETH_HLEN, len;
	unsigned int kept = 0;
	struct nc_frame f;
	uint16_t flen;

	while (off + NETCOLL_HDR_LEN <= n) {
		nc_wire_decode(&f, (const void *)(pkt + off));
		len = nc_wire_frame_len(&f);
		if (len > n - off || ETH_HLEN + len > FRAME_MAX)
			len = n - off;		/* not ours to cut: as it came */
		if (ETH_HLEN + len > FRAME_MAX)
			break;
		memcpy(frame, pkt, ETH_HLEN);
		memcpy(frame + ETH_HLEN, pkt + off, len);
		flen = (uint16_t)(ETH_HLEN + len);
		fwrite(&flen, sizeof(flen), 1, out);
		fwrite(frame, 1, flen, out);
		kept++;
		off += len;
	}
	return kept;
}

static int record(const struct opts *o)
{
	/* no SA_RESTART: the signal ends the poll at once */
	struct sigaction sa = { .sa_handler = on_stop };
	static unsigned char buf[PACKET_MAX];
	double end = now_s() + o->seconds;
	struct sockaddr_ll from;
	socklen_t flen;
	struct tpacket_stats st = { 0 };
	socklen_t slen = sizeof(st);
	unsigned int kept = 0;
	int fd, ifindex, rcvbuf = 32 << 20, draining = 0;
	ssize_t n;
	FILE *out;

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	fd = open_socket(o, &ifindex, ETH_P_ALL);
	/*
	 * Room for a whole burst: the default buffer holds about fifteen
	 * 9000-byte frames, and a busy guest may not run the recorder until
	 * an alltoall has ended (a test kept 13 of the ~40 frames h2 sent).
	 */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	out = fopen(o->file, "wb");
	if (!out) {
		perror("nc_replay: output");
		return 1;
	}
	/* the socket is bound: nc_record_start() waits for this line */
	printf("nc_replay: recording\n");
	fflush(stdout);
	while (kept < o->count && now_s() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		/* once told to stop, what the socket still holds is read (for a second at most) */
		if (record_stop && !draining) {
			draining = 1;
			end = now_s() + 1;
		}
		if (!record_stop && poll(&p, 1, 100) <= 0)
			continue;
		flen = sizeof(from);
		n = recvfrom(fd, buf, sizeof(buf), record_stop ? MSG_DONTWAIT : 0,
			     (struct sockaddr *)&from, &flen);
		if (n < 0 && record_stop)
			break;
		if (n < ETH_HLEN + NETCOLL_HDR_LEN ||
		    ((struct ether_header *)buf)->ether_type != htons(o->ethertype))
			continue;
		if (o->outgoing != (from.sll_pkttype == PACKET_OUTGOING))
			continue;
		kept += record_frames(out, buf, n);
	}
	fclose(out);
	if (getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &slen))
		st.tp_drops = 0;
	printf("nc_replay: recorded %u frames (%u dropped by the socket)\n", kept,
	       st.tp_drops);
	return 0;
}

static void load(const struct opts *o)
{
	FILE *in = fopen(o->file, "rb");
	uint16_t len;

	if (!in) {
		perror("nc_replay: input");
		exit(1);
	}
	while (nframes < MAX_FRAMES && fread(&len, sizeof(len), 1, in) == 1) {
		if (len > FRAME_MAX)
			break;
		frames[nframes].data = malloc(len);
		if (!frames[nframes].data ||
		    fread(frames[nframes].data, 1, len, in) != len)
			break;
		frames[nframes++].len = len;
	}
	fclose(in);
	if (!nframes) {
		fprintf(stderr, "nc_replay: no frames in %s\n", o->file);
		exit(1);
	}
}

static int send_frame(int fd, int ifindex, const struct opts *o,
		      unsigned char *data, size_t len)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET, .sll_ifindex = ifindex,
		.sll_halen = ETH_ALEN,
	};

	if (o->have_to)
		memcpy(data, o->to, ETH_ALEN);
	memcpy(sll.sll_addr, data, ETH_ALEN);
	/* the device pads short frames itself */
	if (sendto(fd, data, len, 0, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		if (errno == ENOBUFS) {	/* queue full: wait and try once more */
			usleep(1000);
			if (sendto(fd, data, len, 0, (struct sockaddr *)&sll,
				   sizeof(sll)) >= 0)
				return 0;
		}
		perror("nc_replay: sendto");
		return -1;
	}
	return 0;
}

static int replay(const struct opts *o)
{
	unsigned char buf[FRAME_MAX];
	unsigned int t, i, sent = 0;
	int fd, ifindex;

	load(o);
	fd = open_socket(o, &ifindex, o->ethertype);
	for (t = 0; t < o->times; t++)
		for (i = 0; i < nframes; i++) {
			memcpy(buf, frames[i].data, frames[i].len);
			if (send_frame(fd, ifindex, o, buf, frames[i].len))
				return 1;
			sent++;
		}
	printf("nc_replay: sent %u frames\n", sent);
	return 0;
}

/* Offsets and sizes of the header's fields, for field-wise mutations. */
static const struct {
	uint8_t off, size;
} fields[] = {
	{ offsetof(struct netcoll_hdr, version), 1 },
	{ offsetof(struct netcoll_hdr, type), 1 },
	{ offsetof(struct netcoll_hdr, flags), 2 },
	{ offsetof(struct netcoll_hdr, comm_id), 4 },
	{ offsetof(struct netcoll_hdr, cookie), 8 },
	{ offsetof(struct netcoll_hdr, epoch), 8 },
	{ offsetof(struct netcoll_hdr, op_seq), 4 },
	{ offsetof(struct netcoll_hdr, src_rank), 4 },
	{ offsetof(struct netcoll_hdr, dst_rank), 4 },
	{ offsetof(struct netcoll_hdr, tag), 2 },
	{ offsetof(struct netcoll_hdr, len), 2 },
	{ offsetof(struct netcoll_hdr, seq), 4 },
	{ offsetof(struct netcoll_hdr, frag_off), 4 },
	{ offsetof(struct netcoll_hdr, msg_len), 4 },
	{ offsetof(struct netcoll_hdr, frag_size), 2 },
	{ offsetof(struct netcoll_hdr, opcode), 2 },
};
#define NFIELDS	(sizeof(fields) / sizeof(fields[0]))

/* Big-endian value v into size bytes at p. */
static void put_be(unsigned char *p, unsigned int size, uint64_t v)
{
	while (size--) {
		p[size] = (unsigned char)v;
		v >>= 8;
	}
}

enum { M_FLIP, M_FIELD, M_TRUNCATE, M_HUGE, M_TYPE, M_REPLAY, M_CLASSES };

/* Mutation k of frame f into buf; returns the length to send. */
static size_t mutate(const struct frame *f, unsigned int k, unsigned char *buf)
{
	unsigned char *h = buf + ETH_HLEN;
	size_t body = f->len - ETH_HLEN, len = f->len;
	unsigned int round = k / M_CLASSES, i, n;
	static const uint64_t extremes[] = { 0, 1, ~0ULL };
	static const uint32_t huge[] = {
		0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xfffffff0, 0xffffffff,
	};

	memcpy(buf, f->data, f->len);
	switch (k % M_CLASSES) {
	case M_FLIP:
		n = 1 + rand() % 4;
		for (i = 0; i < n; i++) {
			size_t bit = (size_t)rand() % (body * 8);

			h[bit / 8] ^= (unsigned char)(1u << (bit % 8));
		}
		break;
	case M_FIELD:
		i = round % NFIELDS;
		put_be(h + fields[i].off, fields[i].size,
		       extremes[(round / NFIELDS) % 3]);
		break;
	case M_TRUNCATE:
		len = ETH_HLEN + round % body;
		break;
	case M_HUGE:
		i = round % 5;
		n = huge[(round / 5) % 6];
		if (i == 0)
			put_be(h + offsetof(struct netcoll_hdr, frag_off), 4, n);
		else if (i == 1)
			put_be(h + offsetof(struct netcoll_hdr, msg_len), 4, n);
		else if (i == 2)
			put_be(h + offsetof(struct netcoll_hdr, len), 2, n);
		else if (i == 3)
			put_be(h + offsetof(struct netcoll_hdr, seq), 4, n);
		else
			put_be(h + offsetof(struct netcoll_hdr, frag_size), 2, n);
		break;
	case M_TYPE:
		h[offsetof(struct netcoll_hdr, type)] = (unsigned char)(round % 10);
		break;
	case M_REPLAY:
		break;
	}
	return len;
}

static int fuzz(const struct opts *o)
{
	unsigned char buf[FRAME_MAX];
	unsigned int k;
	int fd, ifindex;

	load(o);
	fd = open_socket(o, &ifindex, o->ethertype);
	srand(o->seed);
	for (k = 0; k < o->count; k++) {
		const struct frame *f = &frames[(k / M_CLASSES) % nframes];
		size_t len = mutate(f, k, buf);

		if (send_frame(fd, ifindex, o, buf, len))
			return 1;
		/* do not outrun the receivers' backlog (netdev_max_backlog) */
		if (k % 256 == 255)
			usleep(2000);
	}
	printf("nc_replay: sent %u mutated frames of %u recorded\n", o->count,
	       nframes);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "dev", 1, NULL, 'd' }, { "out", 1, NULL, 'o' },
		{ "in", 1, NULL, 'i' }, { "count", 1, NULL, 'n' },
		{ "seconds", 1, NULL, 's' }, { "times", 1, NULL, 't' },
		{ "seed", 1, NULL, 'S' }, { "to", 1, NULL, 'T' },
		{ "outgoing", 0, NULL, 'O' }, { "ethertype", 1, NULL, 'e' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = {
		.count = MAX_FRAMES, .times = 1, .seconds = 30, .seed = 1,
		.ethertype = NETCOLL_ETHERTYPE,
	};
	int c;

	if (argc < 2)
		usage();
	o.mode = argv[1];
	optind = 2;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'd': o.dev = optarg; break;
		case 'o': case 'i': o.file = optarg; break;
		case 'n': o.count = strtoul(optarg, NULL, 0); break;
		case 's': o.seconds = strtoul(optarg, NULL, 0); break;
		case 't': o.times = strtoul(optarg, NULL, 0); break;
		case 'S': o.seed = strtoul(optarg, NULL, 0); break;
		case 'O': o.outgoing = 1; break;
		case 'e': o.ethertype = strtoul(optarg, NULL, 0); break;
		case 'T':
			if (sscanf(optarg, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx",
				   &o.to[0], &o.to[1], &o.to[2], &o.to[3],
				   &o.to[4], &o.to[5]) != 6)
				usage();
			o.have_to = 1;
			break;
		default: usage();
		}
	}
	if (!o.dev || !o.file)
		usage();
	if (!strcmp(o.mode, "record"))
		return record(&o);
	if (!strcmp(o.mode, "replay"))
		return replay(&o);
	if (!strcmp(o.mode, "fuzz"))
		return fuzz(&o);
	usage();
	return 2;
}

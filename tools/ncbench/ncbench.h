/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ncbench: state shared by its parts.
 *
 *   ncbench.c   options, main, barrier and alltoall (OSU-style loops)
 *   red.c       reductions: data, reference result, per-rank spread
 *   calib.c     --calibrate: the latency model of Yu et al. (SC'03)
 *   udp_tree.c  --transport udp: the same trees run by processes over UDP
 *   noise.c     --noise: CPU hogs competing with the benchmark
 *   stats.c     clock and percentiles
 */
#ifndef NCBENCH_H
#define NCBENCH_H

#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/netcoll.h>

#include "netcoll.h"
#include "netcoll_plan.h"

/* Operations of --op (a set: "all" is barrier and alltoall). */
#define OP_BARRIER	0x01
#define OP_ALLTOALL	0x02
#define OP_REDUCE	0x04
#define OP_ALLREDUCE	0x08
#define OP_TBARRIER	0x10	/* reduction of 0 elements: up and down a tree */
#define OP_BCAST	0x20	/* broadcast from --root (size bytes) */
#define OP_RED_MASK	(OP_REDUCE | OP_ALLREDUCE | OP_TBARRIER | OP_BCAST)

enum transport {
	XP_KERNEL,		/* /dev/netcoll */
	XP_UDP,			/* user processes over UDP sockets */
};

struct opts {
	uint32_t comm, rank;
	unsigned int ops;		/* OP_* */
	uint64_t min, max;
	int min_set, max_set;		/* defaults differ per operation */
	uint64_t iters, warmup;
	int iters_set;
	uint64_t budget;		/* bytes one rank sends per size, at most */
	enum nc_a2a_algo algo;
	uint32_t timeout_ms;
	int all_ranks, json;

	/* reductions */
	uint32_t root;
	enum nc_dtype dtype;
	enum nc_op red_op;
	enum nc_dist dist;
	uint32_t split;			/* 0: the library's choice */
	int per_rank;			/* spread of the ranks' mean latencies */
	int no_sync;			/* no barrier between iterations */
	int check_all;			/* check every iteration, not the first */

	/* transport */
	enum transport xp;
	const char *peers_file, *peers_list;
	uint32_t port, port_base;
	int port_base_set;
	uint32_t degree;		/* UDP tree degree */
	uint32_t udp_frag;		/* payload bytes per datagram */
	uint32_t udp_rto_ms;
	int busy_poll;
	uint32_t udp_loss_ppm;		/* loss injection, for tests */

	uint32_t noise;			/* CPU hogs on this host */

	int calibrate;
	uint64_t calib_size;		/* bytes */
	const char *calib_comms;	/* comma list of communicator ids */

	int tune_bcast;			/* nc_bcast_tune, on its own */
};

struct result {
	uint64_t iters;
	double min, p25, p50, p75, p99, max, mean;	/* microseconds */
};

struct udp_tree;

struct bench {
	struct opts o;
	nc_endpoint *ep;		/* kernel transport */
	nc_ctl *ctl;
	struct udp_tree *udp;		/* UDP transport */
	uint32_t nranks;
	uint32_t degree;		/* of the built-in trees */
	uint8_t *send, *recv;		/* alltoall */
	uint8_t *rsend, *rrecv;		/* reductions */
	double *lat;
	int print, rows;		/* this rank prints; rows printed */
	/* trees[j][rank]: parent of rank on tree j, where known */
	uint32_t *trees[NC_TREES_MAX];
	int tree_known[NC_TREES_MAX];
	size_t red_bytes;		/* size of rsend/rrecv */
	int json_open;			/* the top-level JSON object is open */
};

/* ncbench.c */
int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* stats.c */
double now_us(void);
double percentile(const double *sorted, uint64_t n, double p);
void summarize(double *lat, uint64_t n, struct result *r);

/* red.c */
void red_sizes(const struct opts *o, uint64_t *min, uint64_t *max);
int red_setup(struct bench *b);
const char *dist_name(enum nc_dist d);
int red_run(struct bench *b);
void red_cleanup(struct bench *b);
int xp_reduce(struct bench *b, const struct nc_red_args *a);
int xp_sync(struct bench *b);
int xp_tree_set(struct bench *b, const uint32_t *parents);
int red_measure(struct bench *b, unsigned int op, uint64_t count,
		uint32_t split, uint64_t iters, uint64_t warmup,
		struct result *r);
const char *op_name(unsigned int op);

/* calib.c */
int calib_run(struct bench *b);

/* tune.c */
int tune_bcast_run(struct bench *b);

/* udp_tree.c */
struct udp_cfg {
	uint32_t rank, size;
	const struct sockaddr_in *addrs;	/* size entries */
	uint32_t frag;				/* payload bytes per datagram */
	uint32_t rto_ms, timeout_ms;
	int busy_poll;
	uint32_t loss_ppm;			/* datagrams dropped on purpose */
};

int udp_peers(const char *file, const char *list, uint32_t port,
	      int port_base_set, uint32_t port_base,
	      struct sockaddr_in **addrs, uint32_t *n);
int udp_open(struct udp_tree **u, const struct udp_cfg *cfg);
int udp_set_tree(struct udp_tree *u, const uint32_t *parents);
int udp_reduce(struct udp_tree *u, const struct nc_red_args *a);
/* A broadcast from the root of the tree set by udp_set_tree(). */
int udp_bcast(struct udp_tree *u, void *buf, size_t bytes);
void udp_close(struct udp_tree *u, int linger);
void udp_counters(const struct udp_tree *u, uint64_t *sent, uint64_t *retx,
		  uint64_t *dups, uint64_t *dropped);

/* noise.c */
int noise_start(uint32_t n);
void noise_stop(void);

#endif /* NCBENCH_H */

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The rendezvous behind nc_comm_bootstrap(), private to the library and its
 * unit test.  It knows nothing of the kernel: what to do with the table
 * rank 0 hands out is a callback, so the protocol (timeouts, duplicate and
 * missing ranks, a hostile connection) is tested on the build host.
 */
#ifndef NC_BOOTSTRAP_H
#define NC_BOOTSTRAP_H

#include <stddef.h>
#include <stdint.h>

#include "netcoll.h"
#include "args.h"

/* What rank 0 hands out: equal on every rank but rank. */
struct nc_boot_plan {
	uint32_t id;
	uint32_t rank, size;
	uint64_t cookie;
	uint32_t timeout_ms, oso, tree_degree;	/* rank 0's, 0: defaults */
	uint8_t key[NC_KEY_MAX];
	uint32_t key_len;			/* 0: no authentication */
	uint32_t addr_len;
	struct nc_member *members;		/* size entries */
};

#define NC_BOOT_TOKEN_MAX	64
/*
 * A HELLO on the wire lets anybody who sees it test guesses of the token
 * offline: a short one is refused (128 bits, were it random).
 */
#define NC_BOOT_TOKEN_MIN	16

/* This rank's part. */
struct nc_boot_self {
	const char *store;		/* "HOST:PORT" rank 0 listens on */
	/*
	 * Rank 0: listen on this address instead of HOST
	 * (NETCOLL_STORE_LISTEN); "*": every address of the host; NULL or
	 * "": HOST.
	 */
	const char *listen;
	uint32_t rank, size;
	const uint8_t *addr;		/* this rank's bearer address */
	uint32_t addr_len;
	uint32_t wait_ms;		/* for every rank to arrive */
	uint32_t id;			/* rank 0: fixed id, 0: random */
	int auth;			/* rank 0: hand out a fresh key */
	/*
	 * The job's token (NETCOLL_STORE_TOKEN), NC_BOOT_TOKEN_MIN to
	 * NC_BOOT_TOKEN_MAX bytes; NULL or "": none.  Rank 0 takes in only ranks with its own,
	 * a member believes only a rank 0 with it; it never leaves the process.
	 */
	const char *token;
	uint32_t timeout_ms, oso, tree_degree;	/* rank 0's count */
};

struct nc_boot_ops {
	/* Make this rank's side of the plan: 0 or -errno. */
	int (*create)(void *arg, const struct nc_boot_plan *p);
	/* Undo a create that succeeded, when another rank's failed. */
	void (*destroy)(void *arg, const struct nc_boot_plan *p);
	/* Why the last create failed, in words; NULL: nothing to add. */
	const char *(*why)(void *arg);
	void *arg;
};

/*
 * Run the rendezvous: 0 and the plan's id in *id, or -errno and why in
 * msg.  -ETIMEDOUT: a rank (named in msg) never arrived, or no rank 0
 * answered at the store; -EADDRINUSE: this rank or its address was taken;
 * -EACCES: this rank's token is not rank 0's, or (a member) the rank 0
 * at the store does not know it;
 * -EINVAL: this rank disagrees with rank 0 on the size or the address
 * length; -EEXIST and the like: a rank could not create its side (every
 * rank then undoes its own).
 */
NC_INTERNAL int nc_boot_run(const struct nc_boot_self *s,
			    const struct nc_boot_ops *ops, uint32_t *id,
			    char *msg, size_t msg_size);

#endif /* NC_BOOTSTRAP_H */

/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Alltoall orders (sched.c).  A schedule is an object, not code: built-in
 * orders (linear, pairwise, ring) and installed contention-free slices are
 * the same thing to the executor (coll_alltoall.c).
 *
 * Ownership: an installed schedule belongs to its communicator
 * (c->a2a_sched, replaced under c->sched_lock); a built-in one to the
 * alltoall call that made it.  Either is freed by nck_sched_free() only.
 */
#ifndef NCK_SCHED_H
#define NCK_SCHED_H

#include <linux/types.h>

/* Message tags: data messages use their round/step; tokens this range. */
#define NCK_TAG_SYNC		0x8000
#define NCK_TAG_SYNC_MAX		0x7fff

/**
 * struct nck_phase - one phase of this rank's alltoall schedule
 * @index: phase number in the global plan
 * @send_to: the rank this phase sends to; NETCOLL_NONE: no send
 * @recv_from: the rank it receives from; NETCOLL_NONE: no receive
 * @in_first: first token to wait for (index into nck_sched.in)
 * @nin: tokens to wait for before sending
 * @out_first: first token to send once the block is acknowledged
 * @nout: tokens to send
 */
struct nck_phase {
	u32 index;
	u32 send_to;
	u32 recv_from;
	u32 in_first, nin;
	u32 out_first, nout;
};

/**
 * struct nck_sync_ref - a token of pairwise synchronisation
 * @rank: who sends it (in) or gets it (out)
 * @tag: NCK_TAG_SYNC | its number in phase order
 */
struct nck_sync_ref {
	u32 rank;
	u16 tag;
};

/**
 * struct nck_sched - the order in which an alltoall sends its messages
 * @nphases: entries of @phase
 * @phase: the phases, in order
 * @in: tokens waited for, @nin of them
 * @out: tokens sent, @nout of them
 * @nin: see @in
 * @nout: see @out
 * @installed: an installed slice (else built in)
 *
 * Immutable once built: readers need no lock.
 */
struct nck_sched {
	u32 nphases;
	struct nck_phase *phase;
	struct nck_sync_ref *in, *out;
	u32 nin, nout;
	bool installed;
};

struct nck_sched *nck_sched_builtin(u32 algo, u32 rank, u32 size);
void nck_sched_free(struct nck_sched *s);

int nck_u32x2_cmp(const void *a, const void *b);

#endif /* NCK_SCHED_H */

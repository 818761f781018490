/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * An anti-replay window of NC_REPLAY_BITS packet numbers, shared by the
 * module (auth.c) and its unit test, so the test runs the very code.
 *
 * A ring of 64-bit words (RFC 6479, as WireGuard's counter): moving the
 * top forward clears the words it enters instead of shifting the whole
 * bitmap, so a window of 1024 costs what one of 64 did.  Why 1024 and not
 * ESP's 64: a netem reorder of 25 % on an 8-host alltoall moves data
 * frames more than 64 numbers behind the top thousands of times per run;
 * each such frame was dropped as a replay and sent again after an RTO.
 *
 * Every number the window holds is at most NC_REPLAY_BITS - 64 behind the
 * top (the top's word is partly ahead of it); older ones are refused.
 * Pure code: the caller holds the lock that protects the window.
 */
#ifndef NC_REPLAY_H
#define NC_REPLAY_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <linux/types.h>
#endif

#define NC_REPLAY_BITS		1024
#define NC_REPLAY_WORDS		(NC_REPLAY_BITS / 64)
#define NC_REPLAY_SPAN		(NC_REPLAY_BITS - 64)

struct nc_replay {
	__u64 top;			/* highest packet number accepted */
	__u64 ring[NC_REPLAY_WORDS];	/* bit pn % 64 of word pn / 64 */
};

/* Accept pn once, if not too old; 0 is never valid (a zeroed window). */
static inline bool nc_replay_fresh(struct nc_replay *w, __u64 pn)
{
	__u64 word = pn / 64, bit = 1ULL << (pn % 64), n, i;

	if (!pn || (w->top > NC_REPLAY_SPAN && pn <= w->top - NC_REPLAY_SPAN))
		return false;
	if (pn > w->top) {
		n = word - w->top / 64;
		if (n > NC_REPLAY_WORDS)
			n = NC_REPLAY_WORDS;
		for (i = 1; i <= n; i++)
			w->ring[(w->top / 64 + i) % NC_REPLAY_WORDS] = 0;
		w->top = pn;
	}
	word %= NC_REPLAY_WORDS;
	if (w->ring[word] & bit)
		return false;
	w->ring[word] |= bit;
	return true;
}

#endif /* NC_REPLAY_H */

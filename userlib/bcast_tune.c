// SPDX-License-Identifier: BSD-2-Clause
/*
 * nc_bcast_tune: measure, on the bound communicator, whether a broadcast
 * of each size reaches every rank sooner down the tree or by multicast,
 * and set the size from which NC_DIST_AUTO multicasts.
 *
 * Why measured and not fixed: multicast costs the root one frame per
 * fragment where the tree costs it one per child, but whether that wins
 * depends on who copies the frame -- a hardware switch, or a software
 * bridge that copies it frame by frame on the same CPUs -- and on how
 * lost multicast frames get repaired.  docs/bcast-bench.md shows both
 * winning at different sizes on one emulated cluster.  MPI libraries
 * ship such decisions as tables tuned offline (Open MPI's coll/tuned
 * rules files); here the library measures where it runs.
 *
 * Every rank runs the same broadcasts in the same order (they depend on
 * the arguments only), so the collective stays in step.  Each set is
 * timed from a barrier to its last broadcast on each rank; one allreduce
 * (max) then gives every rank the slowest rank's times, so every rank
 * derives the same threshold from the same bits.
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/netcoll.h>

#include "netcoll.h"
#include "bcast_tune.h"

#define TUNE_ROUNDS	2
#define TUNE_ITERS_MAX	1000

static const size_t tune_default_sizes[] = {
	1024, 4096, 16384, 65536, 262144, 1048576,
};

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* The root's bytes for one size (the others' expectation). */
static void tune_fill(uint8_t *buf, size_t len, uint32_t salt)
{
	uint32_t x = salt * 2654435761u + 1;
	size_t i;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[i] = (uint8_t)x;
	}
}

static int tune_args_ok(const nc_endpoint *ep, const struct nc_bcast_tune *t)
{
	uint32_t i;

	if (t->comp_mask || t->nsizes > NC_BCAST_TUNE_SIZES_MAX ||
	    t->iters > TUNE_ITERS_MAX || t->root >= (uint32_t)nc_comm_size(ep))
		return 0;
	for (i = 0; i < t->nsizes; i++)
		if (!t->sizes[i] || t->sizes[i] > NETCOLL_REDUCE_MAX ||
		    (i && t->sizes[i] <= t->sizes[i - 1]))
			return 0;
	return 1;
}

/*
 * One set: iters broadcasts of len bytes with distribution dist, after a
 * barrier; *bad counts broadcasts whose bytes were wrong here.  Returns
 * the set's time on this rank in microseconds, or a negative error.
 */
static double tune_set(nc_endpoint *ep, const struct nc_bcast_tune *t,
		       uint8_t *buf, uint8_t *want, size_t len,
		       enum nc_dist dist, uint32_t *bad, int *err)
{
	struct nc_bcast_args a = {
		.buf = buf, .len = len, .root = t->root, .dist = dist,
	};
	int root = nc_comm_rank(ep) == (int)t->root;
	double t0;
	uint32_t it;

	tune_fill(root ? buf : want, len, (uint32_t)len);
	*err = nc_barrier(ep);
	if (*err)
		return 0;
	t0 = now_us();
	for (it = 0; it < t->iters; it++) {
		if (!root)	/* not the pattern: stale bytes show */
			memset(buf, 0, len);
		*err = nc_bcast_ex(ep, &a);
		if (*err)
			return 0;
		if (!root && memcmp(buf, want, len))
			(*bad)++;
	}
	return now_us() - t0;
}

/* Halfway between two sizes in log scale: floor(sqrt(a * b)). */
static size_t tune_between(size_t a, size_t b)
{
	uint64_t p = (uint64_t)a * b, lo = a, hi = b;	/* <= 2^48 */

	while (lo < hi) {	/* the largest x in [a, b] with x * x <= p */
		uint64_t mid = lo + (hi - lo + 1) / 2;

		if (mid * mid <= p)
			lo = mid;
		else
			hi = mid - 1;
	}
	return (size_t)lo;
}

/*
 * The sizes multicast gets: of the runs of consecutive sizes where it
 * was faster, the one with the largest summed gain, widened halfway to
 * its neighbours (to 0 and SIZE_MAX at the ends).  A table per size
 * would follow noise; one range is what the numbers show on the networks
 * measured so far (multicast winning from some size on, or up to one).
 */
void nc_bcast_tune_range(struct nc_bcast_tune *t)
{
	uint32_t i, first = 0, best_first = 0, best_last = 0;
	double gain = 0, best = 0;

	for (i = 0; i < t->nsizes; i++) {
		if (!(t->mcast_us[i] < t->tree_us[i])) {
			gain = 0;
			continue;
		}
		if (!gain)
			first = i;
		gain += 1 - t->mcast_us[i] / t->tree_us[i];
		if (gain > best) {
			best = gain;
			best_first = first;
			best_last = i;
		}
	}
	if (!best) {
		t->mcast_min = t->mcast_max = SIZE_MAX;
		return;
	}
	t->mcast_min = best_first ? tune_between(t->sizes[best_first - 1],
						  t->sizes[best_first]) + 1 : 0;
	t->mcast_max = best_last + 1 < t->nsizes ?
		       tune_between(t->sizes[best_last],
				    t->sizes[best_last + 1]) + 1 : SIZE_MAX;
}

int nc_bcast_tune(nc_endpoint *ep, struct nc_bcast_tune *t)
{
	/* [tree.., mcast.., bad]: one allreduce for everything */
	double times[2 * NC_BCAST_TUNE_SIZES_MAX + 1];
	uint8_t *buf = NULL, *want = NULL;
	uint32_t i, r, n, bad = 0;
	int err = 0;

	if (!ep || !t)
		return -EINVAL;
	if (nc_comm_size(ep) < 0)
		return -ENOTCONN;
	if (!tune_args_ok(ep, t))
		return -EINVAL;
	if (!t->nsizes) {
		t->nsizes = sizeof(tune_default_sizes) / sizeof(tune_default_sizes[0]);
		memcpy(t->sizes, tune_default_sizes, sizeof(tune_default_sizes));
	}
	if (!t->iters)
		t->iters = NC_BCAST_TUNE_ITERS;
	n = t->nsizes;
	buf = malloc(t->sizes[n - 1]);
	want = malloc(t->sizes[n - 1]);
	if (!buf || !want) {
		err = -ENOMEM;	/* the same sizes on every rank: rarely one */
		goto out;
	}
	for (i = 0; i < 2 * n; i++)
		times[i] = HUGE_VAL;
	for (r = 0; r < TUNE_ROUNDS; r++) {
		for (i = 0; i < n; i++) {
			/* alternate which goes first: drift hits both alike */
			enum nc_dist first = r % 2 ? NC_DIST_MCAST : NC_DIST_TREE;
			uint32_t d;

			for (d = 0; d < 2; d++) {
				enum nc_dist dist = d ? (first == NC_DIST_TREE ?
					NC_DIST_MCAST : NC_DIST_TREE) : first;
				double *slot = &times[(dist == NC_DIST_MCAST) * n + i];
				double us = tune_set(ep, t, buf, want, t->sizes[i],
						     dist, &bad, &err);

				if (err)
					goto out;
				if (us < *slot)
					*slot = us;
			}
		}
	}
	times[2 * n] = bad;
	err = nc_allreduce(ep, times, times, 2 * n + 1, NC_DT_DOUBLE,
			   NC_OP_MAX);
	if (err)
		goto out;
	if (times[2 * n]) {
		err = -EIO;
		goto out;
	}
	for (i = 0; i < n; i++) {
		t->tree_us[i] = times[i] / t->iters;
		t->mcast_us[i] = times[n + i] / t->iters;
	}
	nc_bcast_tune_range(t);
	nc_set_bcast_mcast(ep, t->mcast_min, t->mcast_max);
out:
	free(buf);
	free(want);
	return err;
}

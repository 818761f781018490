// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The anti-replay window, exactly as the module's receive path runs it
 * (kmod/shared/nc_replay.h is compiled into both), against a reference
 * that remembers every number it accepted.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nc_replay.h"
#include "harness.h"

/* A real first packet number: a sender's clock in nanoseconds. */
#define PN0	1764950000000000000ULL

TEST(zero_is_never_fresh)
{
	struct nc_replay w = { 0 };

	CHECK(!nc_replay_fresh(&w, 0));
	CHECK(nc_replay_fresh(&w, PN0));
	CHECK(!nc_replay_fresh(&w, 0));
}

TEST(each_number_once_in_any_order)
{
	struct nc_replay w = { 0 };
	__u64 i;

	for (i = 0; i < 3000; i += 2)
		CHECK(nc_replay_fresh(&w, PN0 + i));
	/* the odd ones within the window behind the top, late */
	for (i = 3001 - 2 * 400; i < 3000; i += 2)
		CHECK(nc_replay_fresh(&w, PN0 + i));
	for (i = 3000 - 2 * 400; i < 3000; i++)
		CHECK(!nc_replay_fresh(&w, PN0 + i));
}

TEST(span_behind_the_top)
{
	struct nc_replay w = { 0 };
	__u64 top = PN0 + 5000;

	CHECK(nc_replay_fresh(&w, top));
	/* NC_REPLAY_SPAN - 1 behind: held; NC_REPLAY_SPAN behind: too old */
	CHECK(nc_replay_fresh(&w, top - (NC_REPLAY_SPAN - 1)));
	CHECK(!nc_replay_fresh(&w, top - (NC_REPLAY_SPAN - 1)));
	CHECK(!nc_replay_fresh(&w, top - NC_REPLAY_SPAN));
	CHECK(!nc_replay_fresh(&w, PN0));
	CHECK(NC_REPLAY_SPAN >= 900);
}

TEST(a_jump_forgets_everything_older)
{
	struct nc_replay w = { 0 };
	__u64 i;

	for (i = 0; i < 100; i++)
		CHECK(nc_replay_fresh(&w, PN0 + i));
	CHECK(nc_replay_fresh(&w, PN0 + 1000000));
	CHECK(!nc_replay_fresh(&w, PN0 + 99));
	/* the ring's words were cleared, not left holding old bits */
	for (i = 1; i < 500; i++)
		CHECK(nc_replay_fresh(&w, PN0 + 1000000 - i));
}

/*
 * Random reordering within and beyond the span, with duplicates: the
 * window accepts a number exactly when it is new and not too old.
 */
TEST(matches_a_reference_under_random_order)
{
	enum { N = 200000 };
	static unsigned char seen[N + 4096];
	struct nc_replay w = { 0 };
	__u64 top = 0, k;
	unsigned int i;

	srand(7);
	for (i = 0; i < N; i++) {
		/* mostly forward, some far back, some repeats */
		long back = rand() % 8 ? rand() % 64 : rand() % 1500;
		__u64 n = i + 2048 > (__u64)back ? i + 2048 - back : 1;
		bool want = !seen[n] && !(top > NC_REPLAY_SPAN &&
					  PN0 + n <= PN0 + top - NC_REPLAY_SPAN);

		CHECK_EQ(nc_replay_fresh(&w, PN0 + n), want);
		if (want) {
			seen[n] = 1;
			if (n > top)
				top = n;
		}
	}
	for (k = top - 100; k <= top; k++)
		CHECK(!nc_replay_fresh(&w, PN0 + k) || !seen[k]);
}

int main(void)
{
	RUN(zero_is_never_fresh);
	RUN(each_number_once_in_any_order);
	RUN(span_behind_the_top);
	RUN(a_jump_forgets_everything_older);
	RUN(matches_a_reference_under_random_order);
	return DONE();
}

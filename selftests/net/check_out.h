/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the in-guest checkers (nc_red_check, nc_bcast_check, nc_rsag_check)
 * share: the hash their inputs are made from, their TAP lines without numbers ("ok - ..." / "not ok - ...", numbered by the
 * script that relays them, selftests/lib/tap.sh), the count of failed
 * ones, and --expect-error's errno names.  One copy per program: the state
 * is file-static.
 */
#ifndef NC_CHECK_OUT_H
#define NC_CHECK_OUT_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int failures;

/*
 * MurmurHash3's 64-bit finaliser: inputs every rank can compute from
 * (seed, rank, index) alone, so each checks what it receives.
 */
static __attribute__((unused)) uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

static void result(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void result(int ok, const char *fmt, ...)
{
	va_list ap;

	fputs(ok ? "ok - " : "not ok - ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
	failures += !ok;
}

/*
 * "ETIMEDOUT" -> ETIMEDOUT; "ANY" -> -1 (any error); unknown -> 0.  For
 * the checkers that take --expect-error.
 */
static __attribute__((unused)) int errno_of(const char *name)
{
	int i;

	if (!strcmp(name, "ANY"))
		return -1;
	for (i = 1; i < 4096; i++) {
		const char *n = strerrorname_np(i);

		if (n && !strcmp(n, name))
			return i;
	}
	return 0;
}

#endif /* NC_CHECK_OUT_H */

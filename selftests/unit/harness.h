/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A minimal unit-test harness.  Each TEST() is a function; RUN() runs it
 * and prints "ok - name" or "not ok - name (file:line: expr)" for its first
 * failed CHECK: TAP lines, numbered by the script that runs the binary
 * (selftests/lib/tap.sh).  DONE() prints "N passed, N failed" and gives the exit
 * status.  One test binary per source file, so the state is file-static.
 */
#ifndef NC_HARNESS_H
#define NC_HARNESS_H

#include <stdio.h>

static struct {
	unsigned int passed, failed;
	char why[512];			/* first failed check of this test */
} h;

#define TEST(name)	static void name(void)

/* Records the first failure and goes on, so one test reports one line. */
#define CHECK(expr) do {						\
	if (!(expr) && !h.why[0])					\
		snprintf(h.why, sizeof(h.why), "%s:%d: %s",		\
			 __FILE__, __LINE__, #expr);			\
} while (0)

/* Integer equality, with both values in the report. */
#define CHECK_EQ(a, b) do {						\
	long long h_a = (long long)(a), h_b = (long long)(b);		\
	if (h_a != h_b && !h.why[0])					\
		snprintf(h.why, sizeof(h.why), "%s:%d: %s == %s (%lld != %lld)", \
			 __FILE__, __LINE__, #a, #b, h_a, h_b);		\
} while (0)

#define RUN(name) do {							\
	h.why[0] = '\0';						\
	name();								\
	if (h.why[0]) {							\
		h.failed++;						\
		printf("not ok - %s (%s)\n", #name, h.why);		\
	} else {							\
		h.passed++;						\
		printf("ok - %s\n", #name);				\
	}								\
} while (0)

#define DONE() (printf("%u passed, %u failed\n", h.passed, h.failed),	\
		h.failed ? 1 : 0)

#endif /* NC_HARNESS_H */

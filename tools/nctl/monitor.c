// SPDX-License-Identifier: BSD-2-Clause
/*
 * nctl monitor: print events of the "events" group, one line each (one
 * JSON object per line with -j).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "nctl.h"

static int usage(void)
{
	printf("Usage: nctl monitor [ -n COUNT ] [ --timeout MS ]\n"
	       "\n"
	       "Prints netcoll events until COUNT events were seen or MS\n"
	       "milliseconds passed.  Running out of time before COUNT events\n"
	       "is an error; without -n it is the normal end.\n");
	return NCTL_OK;
}

static const char *errname(int e, char buf[16])
{
	const char *s = strerrorname_np(e);

	if (s)
		return s;
	snprintf(buf, 16, "%d", e);
	return buf;
}

static void print_event(const struct nc_event *ev)
{
	char name[16];
	const char *err = errname(ev->error, name);

	if (ev->type == NC_EVENT_OP_FAILED) {
		if (nctl_json) {
			printf("{\"event\":\"op-failed\",\"comm\":%" PRIu32
			       ",\"op_seq\":%" PRIu32 ",\"errno\":%d,", ev->comm_id,
			       ev->op_seq, ev->error);
			json_key("error");
			json_string(err);
			if (ev->peer_rank != UINT32_MAX)
				printf(",\"peer\":%" PRIu32, ev->peer_rank);
			puts("}");
		} else {
			printf("op-failed comm %" PRIu32 " op_seq %" PRIu32
			       " error %s (%s)", ev->comm_id, ev->op_seq, err,
			       nc_strerror(ev->error));
			if (ev->peer_rank != UINT32_MAX)
				printf(" peer %" PRIu32, ev->peer_rank);
			putchar('\n');
		}
	} else if (nctl_json) {
		fputs("{\"event\":\"dev-detached\",", stdout);
		json_key("dev");
		json_string(ev->ifname);
		printf(",\"ifindex\":%" PRIu32 ",\"errno\":%d,", ev->ifindex,
		       ev->error);
		json_key("error");
		json_string(err);
		puts("}");
	} else {
		printf("dev-detached dev %s ifindex %" PRIu32 " reason %s (%s)\n",
		       ev->ifname, ev->ifindex, err, nc_strerror(ev->error));
	}
	/* Whoever reads a pipe wants each event as it happens. */
	fflush(stdout);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int do_monitor(int argc, char **argv)
{
	uint32_t count = 0, timeout = 0, seen = 0;
	long long deadline = 0, left;
	struct nc_event ev;
	int have_timeout = 0, err, ret = NCTL_OK;
	nc_ctl *ctl;

	for (; argc > 0; argc--, argv++) {
		if (strcmp(argv[0], "-n") == 0) {
			if (nctl_next(&argc, &argv, "-n") ||
			    nctl_u32(argv[0], "count", &count))
				return NCTL_USAGE;
		} else if (strcmp(argv[0], "--timeout") == 0) {
			if (nctl_next(&argc, &argv, "--timeout") ||
			    nctl_u32(argv[0], "timeout", &timeout))
				return NCTL_USAGE;
			have_timeout = 1;
		} else if (matches(argv[0], "help")) {
			return usage();
		} else {
			return nctl_usage("monitor: unexpected argument \"%s\"", argv[0]);
		}
	}
	if (nctl_open(&ctl))
		return NCTL_ERR;
	err = nc_ctl_subscribe(ctl);
	if (err) {
		nctl_lib_fail(ctl, err, "cannot subscribe to events");
		nc_ctl_close(ctl);
		return NCTL_ERR;
	}
	deadline = now_ms() + timeout;
	while (count == 0 || seen < count) {
		left = -1;
		if (have_timeout) {
			left = deadline - now_ms();
			if (left < 0)
				left = 0;
		}
		err = nc_event_wait(ctl, &ev, (int)left);
		if (err == -ETIMEDOUT) {
			if (count)
				ret = nctl_fail("monitor: timed out after %" PRIu32
						" of %" PRIu32 " events", seen, count);
			break;
		}
		if (err == -ENOBUFS) {
			/* Not fatal: say so and keep listening. */
			fputs("nctl: events lost: receive buffer overrun\n", stderr);
			continue;
		}
		if (err == -EINTR)
			continue;
		if (err) {
			ret = nctl_lib_fail(ctl, err, "cannot receive events");
			break;
		}
		print_event(&ev);
		seen++;
	}
	nc_ctl_close(ctl);
	return ret;
}

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

enum { M_COUNT, M_TIMEOUT, M_HELP };

static const struct opt opts[] = {
	[M_COUNT] = { "-n", OPT_VAL, "COUNT" },
	[M_TIMEOUT] = { "--timeout", OPT_VAL, "MS" },
	[M_HELP] = { "help", OPT_HIDE, NULL },
	{ NULL }
};

static int usage(void)
{
	fputs("Usage: nctl monitor", stdout);
	opt_synopsis(stdout, opts);
	printf("\n"
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

	open_json_object(NULL);
	if (ev->type == NC_EVENT_OP_FAILED) {
		print_string(PRINT_ANY, "event", "%s", "op-failed");
		print_uint(PRINT_ANY, "comm", " comm %u", ev->comm_id);
		print_uint(PRINT_ANY, "op_seq", " op_seq %u", ev->op_seq);
		print_int(PRINT_JSON, "errno", NULL, ev->error);
		print_string(PRINT_ANY, "error", " error %s", err);
		print_text(" (%s)", nc_strerror(ev->error));
		if (ev->peer_rank != UINT32_MAX)
			print_uint(PRINT_ANY, "peer", " peer %u", ev->peer_rank);
	} else {
		print_string(PRINT_ANY, "event", "%s", "dev-detached");
		print_string(PRINT_ANY, "dev", " dev %s", ev->ifname);
		print_uint(PRINT_ANY, "ifindex", " ifindex %u", ev->ifindex);
		print_int(PRINT_JSON, "errno", NULL, ev->error);
		print_string(PRINT_ANY, "error", " reason %s", err);
		print_text(" (%s)", nc_strerror(ev->error));
	}
	print_nl();
	close_json_object();
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
	struct optv v[ARRAY_SIZE(opts)];
	struct nc_event ev;
	int have_timeout, err, ret = NCTL_OK;
	nc_ctl *ctl;

	if (opt_parse(opts, v, argc, argv))
		return NCTL_USAGE;
	if (v[M_HELP].val)
		return usage();
	if ((v[M_COUNT].val && nctl_u32(v[M_COUNT].val, "count", &count)) ||
	    (v[M_TIMEOUT].val && nctl_u32(v[M_TIMEOUT].val, "timeout", &timeout)))
		return NCTL_USAGE;
	have_timeout = v[M_TIMEOUT].val != NULL;
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

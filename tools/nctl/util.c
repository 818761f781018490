// SPDX-License-Identifier: BSD-2-Clause
/* nctl: error reporting and command-line values. */
#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nctl.h"

int matches(const char *arg, const char *word)
{
	size_t len = strlen(arg);

	return len && len <= strlen(word) && strncmp(arg, word, len) == 0;
}

static void vreport(const char *fmt, va_list ap)
{
	fputs("nctl: ", stderr);
	vfprintf(stderr, fmt, ap);
}

int nctl_usage(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	fputs(" (try \"nctl help\")\n", stderr);
	return NCTL_USAGE;
}

int nctl_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return NCTL_ERR;
}

int nctl_lib_fail(nc_ctl *ctl, int err, const char *fmt, ...)
{
	const char *why = nc_ctl_last_error(ctl);
	va_list ap;

	va_start(ap, fmt);
	vreport(fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s", nc_strerror(err));
	if (why)
		fprintf(stderr, ": %s", why);
	fputc('\n', stderr);
	return NCTL_ERR;
}

int nctl_open(nc_ctl **ctl)
{
	int err = nc_ctl_open(ctl);

	if (err)
		return nctl_fail("cannot talk to the netcoll module: %s",
				 nc_strerror(err));
	return 0;
}

int nctl_u64(const char *text, const char *what, uint64_t *v)
{
	unsigned long long x;
	char *end;

	/* strtoull accepts a sign and blanks; a count or id has neither. */
	if (text[0] < '0' || text[0] > '9')
		return nctl_usage("invalid %s \"%s\"", what, text);
	errno = 0;
	x = strtoull(text, &end, 0);
	if (errno || *end)
		return nctl_usage("invalid %s \"%s\"", what, text);
	*v = x;
	return 0;
}

int nctl_u32(const char *text, const char *what, uint32_t *v)
{
	uint64_t x;
	int err = nctl_u64(text, what, &x);

	if (err)
		return err;
	if (x > UINT32_MAX)
		return nctl_usage("invalid %s \"%s\"", what, text);
	*v = (uint32_t)x;
	return 0;
}

/* A u32 in decimal or hex, or -1 without a word: names may follow. */
int nctl_u32_quiet(const char *text, uint32_t *v)
{
	unsigned long long x;
	char *end;

	if (text[0] < '0' || text[0] > '9')
		return -1;
	errno = 0;
	x = strtoull(text, &end, 0);
	if (errno || *end || x > UINT32_MAX)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

const char *nctl_ifname(uint32_t ifindex, char buf[NC_IFNAMSIZ + 8])
{
	char name[IF_NAMESIZE];

	if (if_indextoname(ifindex, name))
		snprintf(buf, NC_IFNAMSIZ + 8, "%s", name);
	else
		snprintf(buf, NC_IFNAMSIZ + 8, "if%" PRIu32, ifindex);
	return buf;
}

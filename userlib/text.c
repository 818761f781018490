// SPDX-License-Identifier: BSD-2-Clause
/* Text forms of bearer addresses and member lists. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "netcoll.h"

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Bytes of one or two hex digits separated by ':', as ip-link prints them. */
int nc_parse_addr(const char *text, uint8_t *addr, size_t max)
{
	const char *p = text;
	size_t n = 0;

	if (!text || !addr)
		return -EINVAL;
	for (;;) {
		int hi = hexval(p[0]), lo;

		if (hi < 0 || n == max)
			return -NC_EPARSE;
		lo = hexval(p[1]);
		addr[n++] = lo < 0 ? hi : hi << 4 | lo;
		p += lo < 0 ? 1 : 2;
		if (*p == '\0')
			return (int)n;
		if (*p++ != ':')
			return -NC_EPARSE;
	}
}

char *nc_format_addr(const uint8_t *addr, size_t len, char *buf, size_t size)
{
	static const char digits[] = "0123456789abcdef";
	size_t i, pos = 0;

	if (!buf || size == 0)
		return buf;
	/* Whole bytes only: a cut address must not look like a shorter one. */
	for (i = 0; addr && i < len && pos + (i ? 3 : 2) < size; i++) {
		if (i)
			buf[pos++] = ':';
		buf[pos++] = digits[addr[i] >> 4];
		buf[pos++] = digits[addr[i] & 0xf];
	}
	buf[pos] = '\0';
	return buf;
}

static int is_sep(char c)
{
	return c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int nc_parse_members(const char *text, struct nc_member **members,
		     size_t *nmembers)
{
	/* Longest token that can still be a valid address: "xx:" per byte. */
	char tok[3 * NC_ADDR_MAX + 1];
	struct nc_member *m = NULL, *grown;
	size_t n = 0, cap = 0, len;
	const char *p = text;
	int err = -NC_EPARSE, alen;

	if (!text || !members || !nmembers)
		return -EINVAL;
	*members = NULL;
	*nmembers = 0;
	while (*p) {
		if (is_sep(*p)) {
			p++;
			continue;
		}
		if (*p == '#') {
			p += strcspn(p, "\n");
			continue;
		}
		len = strcspn(p, ", \t\r\n#");
		if (len >= sizeof(tok))
			goto fail;
		memcpy(tok, p, len);
		tok[len] = '\0';
		p += len;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			grown = realloc(m, cap * sizeof(*m));
			if (!grown) {
				err = -ENOMEM;
				goto fail;
			}
			m = grown;
		}
		memset(&m[n], 0, sizeof(m[n]));
		alen = nc_parse_addr(tok, m[n].addr, NC_ADDR_MAX);
		if (alen < 0 || (n && (uint32_t)alen != m[0].addr_len))
			goto fail;
		m[n++].addr_len = alen;
	}
	if (n == 0)
		goto fail;
	*members = m;
	*nmembers = n;
	return (int)n;
fail:
	free(m);
	return err;
}

static const char *const nc_algo_names[] = {
	[NC_A2A_DEFAULT] = "default",
	[NC_A2A_LINEAR] = "linear",
	[NC_A2A_PAIRWISE] = "pairwise",
	[NC_A2A_RING] = "ring",
	[NC_A2A_SCHED] = "sched",
};

int nc_a2a_algo_parse(const char *name)
{
	size_t i;

	for (i = 0; name && i < sizeof(nc_algo_names) / sizeof(nc_algo_names[0]); i++)
		if (strcmp(name, nc_algo_names[i]) == 0)
			return (int)i;
	return -NC_EPARSE;
}

const char *nc_a2a_algo_name(enum nc_a2a_algo algo)
{
	if ((unsigned int)algo >= sizeof(nc_algo_names) / sizeof(nc_algo_names[0]))
		return "unknown";
	return nc_algo_names[algo];
}

// SPDX-License-Identifier: BSD-2-Clause
/* nctl: the text and JSON printer (print.h), a small JSON writer on stdout. */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "print.h"

#define DEPTH_MAX	16

static int json;
/* Open containers; first[d]: nothing written yet at depth d. */
static int depth;
static bool first[DEPTH_MAX + 1] = { true };

void print_init(int on)
{
	json = on;
}

bool is_json_context(void)
{
	return json;
}

static bool in_json(enum output_type t)
{
	return json && (t & (PRINT_JSON | PRINT_ANY));
}

static bool in_text(enum output_type t)
{
	return !json && (t & (PRINT_FP | PRINT_ANY));
}

/* A string, escaped: raw bytes of any kind still give valid JSON. */
static void json_string(const char *s)
{
	const unsigned char *p;

	putchar('"');
	for (p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", stdout);
			break;
		case '\\':
			fputs("\\\\", stdout);
			break;
		case '\n':
			fputs("\\n", stdout);
			break;
		case '\t':
			fputs("\\t", stdout);
			break;
		default:
			if (*p < 0x20 || *p >= 0x7f)
				printf("\\u%04x", *p);
			else
				putchar(*p);
		}
	}
	putchar('"');
}

/* Before a value: the comma after its sibling, and its key. */
static void json_member(const char *key)
{
	if (!first[depth])
		putchar(',');
	first[depth] = false;
	if (key) {
		json_string(key);
		putchar(':');
	}
}

/* After a value: one at the top level is a line of its own. */
static void json_done(void)
{
	if (depth == 0) {
		putchar('\n');
		first[0] = true;
	}
}

static void json_open(const char *key, char c)
{
	if (!json)
		return;
	json_member(key);
	putchar(c);
	if (depth < DEPTH_MAX)
		depth++;
	first[depth] = true;
}

static void json_close(char c)
{
	if (!json)
		return;
	putchar(c);
	if (depth > 0)
		depth--;
	json_done();
}

void open_json_object(const char *key)
{
	json_open(key, '{');
}

void close_json_object(void)
{
	json_close('}');
}

void open_json_array(const char *key)
{
	json_open(key, '[');
}

void close_json_array(void)
{
	json_close(']');
}

void print_string(enum output_type t, const char *key, const char *fmt,
		  const char *value)
{
	if (in_json(t)) {
		json_member(key);
		json_string(value);
		json_done();
	} else if (in_text(t) && fmt) {
		printf(fmt, value);
	}
}

void print_bool(enum output_type t, const char *key, const char *fmt,
		bool value)
{
	if (in_json(t)) {
		json_member(key);
		fputs(value ? "true" : "false", stdout);
		json_done();
	} else if (in_text(t) && fmt) {
		printf(fmt, value ? "true" : "false");
	}
}

void print_uint(enum output_type t, const char *key, const char *fmt,
		unsigned int value)
{
	if (in_json(t)) {
		json_member(key);
		printf("%u", value);
		json_done();
	} else if (in_text(t) && fmt) {
		printf(fmt, value);
	}
}

void print_int(enum output_type t, const char *key, const char *fmt,
	       int value)
{
	if (in_json(t)) {
		json_member(key);
		printf("%d", value);
		json_done();
	} else if (in_text(t) && fmt) {
		printf(fmt, value);
	}
}

void print_u64(enum output_type t, const char *key, const char *fmt,
	       uint64_t value)
{
	if (in_json(t)) {
		json_member(key);
		printf("%" PRIu64, value);
		json_done();
	} else if (in_text(t) && fmt) {
		printf(fmt, value);
	}
}

void print_s64(enum output_type t, const char *key, const char *fmt,
	       int64_t value)
{
	if (in_json(t)) {
		json_member(key);
		printf("%" PRId64, value);
		json_done();
	} else if (in_text(t) && fmt) {
		printf(fmt, value);
	}
}

/*
 * The JSON form of a float: fmt's conversion without flags and width
 * ("%12.3f" gives "%.3f"), "%g" without one.  Flags such as ' ' or '+'
 * would not be JSON.
 */
static void json_float_fmt(const char *fmt, char out[16])
{
	const char *p = fmt ? strchr(fmt, '%') : NULL;
	size_t n;

	strcpy(out, "%g");
	if (!p)
		return;
	for (p++; *p && strchr("-+ #0123456789", *p); p++)
		;
	n = strspn(p, ".0123456789");
	if (n > 8 || !p[n] || !strchr("eEfFgG", p[n]))
		return;
	snprintf(out, 16, "%%%.*s%c", (int)n, p, p[n]);
}

void print_float(enum output_type t, const char *key, const char *fmt,
		 double value)
{
	char jfmt[16];

	if (in_json(t)) {
		json_member(key);
		if (isfinite(value)) {
			json_float_fmt(fmt, jfmt);
			printf(jfmt, value);
		} else {
			fputs("null", stdout);
		}
		json_done();
	} else if (in_text(t) && fmt) {
		printf(fmt, value);
	}
}

void print_nl(void)
{
	if (!json)
		putchar('\n');
}

void print_text(const char *fmt, ...)
{
	va_list ap;

	if (json)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

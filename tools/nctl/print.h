/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * nctl: one printer for text and JSON, in the manner of iproute2's
 * json_print.  A `show` writes each field once:
 *
 *	print_uint(PRINT_ANY, "mtu", " mtu %u", d->mtu);
 *
 * prints " mtu 1500" as text and "mtu":1500 under -j.  PRINT_FP writes
 * only in text, PRINT_JSON only in JSON (for the fields whose text and
 * JSON forms differ).  JSON values ignore text_fmt, except that a float
 * keeps its precision ("%.3f" in " in %8.3f ms").  Objects and arrays
 * only exist in JSON; a value at the top level ends with a newline.
 */
#ifndef NCTL_PRINT_H
#define NCTL_PRINT_H

#include <stdbool.h>
#include <stdint.h>

enum output_type {
	PRINT_FP = 1,		/* text only */
	PRINT_JSON = 2,		/* JSON only */
	PRINT_ANY = 4,		/* both */
};
#define PRINT_TEXT PRINT_FP

/* JSON (1) or text (0); before anything is printed. */
void print_init(int json);
bool is_json_context(void);

/* key: the member's name, NULL inside an array or at the top level. */
void open_json_object(const char *key);
void close_json_object(void);
void open_json_array(const char *key);
void close_json_array(void);

void print_string(enum output_type t, const char *key, const char *fmt,
		  const char *value);
/* Text gets "true" or "false" through fmt ("%s"), as in iproute2. */
void print_bool(enum output_type t, const char *key, const char *fmt,
		bool value);
void print_uint(enum output_type t, const char *key, const char *fmt,
		unsigned int value);
void print_int(enum output_type t, const char *key, const char *fmt,
	       int value);
void print_u64(enum output_type t, const char *key, const char *fmt,
	       uint64_t value);
void print_s64(enum output_type t, const char *key, const char *fmt,
	       int64_t value);
/* Not finite: null in JSON. */
void print_float(enum output_type t, const char *key, const char *fmt,
		 double value);

/* Text only: a newline; free-form text (tables, phase lists). */
void print_nl(void);
void print_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* NCTL_PRINT_H */

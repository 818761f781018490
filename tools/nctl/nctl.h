/* SPDX-License-Identifier: BSD-2-Clause */
/* nctl: what the object files share. */
#ifndef NCTL_H
#define NCTL_H

#include <stdint.h>

#include "netcoll.h"
#include "netcoll_plan.h"

#include "cmdl.h"
#include "print.h"

/* Exit statuses. */
#define NCTL_OK		0
#define NCTL_ERR	1	/* the request failed */
#define NCTL_USAGE	2	/* the command line is wrong */

/* Each object: argv[0] is the first word after the object name. */
int do_dev(int argc, char **argv);
int do_comm(int argc, char **argv);
int do_stats(int argc, char **argv);
int do_monitor(int argc, char **argv);
int do_sched(int argc, char **argv);
int do_tree(int argc, char **argv);
int do_topo(int argc, char **argv);

/* ip's rule: a non-empty arg that is a prefix of word selects it. */
int matches(const char *arg, const char *word);

/* Errors: one line "nctl: ..." on stderr; they return the exit status. */
int nctl_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int nctl_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "nctl: <what>: <reason>[: <kernel's message>]" for a library error. */
int nctl_lib_fail(nc_ctl *ctl, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int nctl_open(nc_ctl **ctl);

/* Command-line values; 0 on success, else the error is already printed. */
int nctl_u32(const char *text, const char *what, uint32_t *v);
int nctl_u32_quiet(const char *text, uint32_t *v);
int nctl_u64(const char *text, const char *what, uint64_t *v);

/* Interface name for an index in this namespace, or "if<N>". */
const char *nctl_ifname(uint32_t ifindex, char buf[NC_IFNAMSIZ + 8]);

#endif /* NCTL_H */

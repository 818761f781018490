/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The in-guest checkers' start line (nc_check, nc_red_check,
 * nc_bcast_check, nc_rsag_check): the ranks a test script starts at once
 * (lib.sh's nc_ranks, nc_check_all) post their first operation together,
 * as MPI ranks do after MPI_Init's fence.
 *
 * Why: each operation has a time budget (the communicator's, 5 s unless
 * the test gives --timeout), counted from when its rank posts it.  Eight
 * processes started one after the other through `ip netns exec` in a
 * 1-vCPU guest posted their first operation 3.5-4.7 s apart (measured:
 * the first fragment of each rank at the root), and on a slower CI host
 * the last came after the first rank's budget was spent: the whole
 * operation failed with ETIMEDOUT although every rank was alive.  The
 * kernel is right to fail it (that budget is what --timeout asks for);
 * the launcher's skew is not what the tests measure.
 *
 * How: NC_START_GATE="DIR N" (set by the script; absent: no gate).  Each
 * rank creates a file in DIR when it is ready -- or when it exits before
 * (atexit), so that a rank failing its setup does not hold the others --
 * and waits until N files are there, at most NC_START_GATE_MAX_S: a rank
 * killed before it got there lets the others go on after that.  Files,
 * not a collective: nothing the kernel counts changes.
 */
#ifndef NC_START_GATE_H
#define NC_START_GATE_H

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NC_START_GATE_MAX_S	120

static char start_gate_dir[PATH_MAX];
static unsigned int start_gate_n;
static int start_gate_arrived;

static void start_gate_arrive(void)
{
	char path[PATH_MAX + 32];
	int fd;

	if (!start_gate_n || start_gate_arrived)
		return;
	start_gate_arrived = 1;
	snprintf(path, sizeof(path), "%s/%ld", start_gate_dir, (long)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
}

/* Call first in main(): reads NC_START_GATE, arrives at exit if not before. */
static __attribute__((unused)) void start_gate_init(void)
{
	const char *env = getenv("NC_START_GATE");

	if (!env || sscanf(env, "%4095s %u", start_gate_dir, &start_gate_n) != 2)
		return;
	atexit(start_gate_arrive);
}

static unsigned int start_gate_count(void)
{
	unsigned int n = 0;
	struct dirent *d;
	DIR *dir = opendir(start_gate_dir);

	if (!dir)
		return 0;
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.')
			n++;
	closedir(dir);
	return n;
}

/* Ready for the first operation: wait for the other ranks of the gate. */
static __attribute__((unused)) void start_gate_wait(void)
{
	struct timespec t0, now;

	if (!start_gate_n)
		return;
	start_gate_arrive();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (start_gate_count() < start_gate_n) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - t0.tv_sec >= NC_START_GATE_MAX_S) {
			fprintf(stderr, "start gate: %u of %u ranks after %d s, going on\n",
				start_gate_count(), start_gate_n, NC_START_GATE_MAX_S);
			return;
		}
		usleep(20000);
	}
}

#endif

// SPDX-License-Identifier: BSD-2-Clause
/*
 * ncbench --noise N: N processes that only spin, at nice 0, for as long
 * as the benchmark runs, so that it competes for the CPU ("CPU noise" of
 * the consistency experiment: a reduction run by processes suffers when
 * they are descheduled, one run in the kernel's softirq path does not).
 *
 * The hogs die with the benchmark however it ends: PR_SET_PDEATHSIG
 * covers a kill, noise_stop() (atexit) a normal exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ncbench.h"

static pid_t *noise_pids;
static uint32_t noise_n;

static void __attribute__((noreturn)) noise_spin(pid_t parent)
{
	volatile uint64_t x = 1;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* The parent may have died before prctl() took effect. */
	if (getppid() != parent)
		_exit(0);
	/* nice 0 even under a niced benchmark (may fail unprivileged) */
	setpriority(PRIO_PROCESS, 0, 0);
	for (;;)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
}

void noise_stop(void)
{
	uint32_t i;

	for (i = 0; i < noise_n; i++)
		if (noise_pids[i] > 0)
			kill(noise_pids[i], SIGKILL);
	for (i = 0; i < noise_n; i++)
		if (noise_pids[i] > 0)
			while (waitpid(noise_pids[i], NULL, 0) < 0 && errno == EINTR)
				;
	free(noise_pids);
	noise_pids = NULL;
	noise_n = 0;
}

/* SIGINT/SIGTERM: take the hogs along, then die of the signal. */
static void noise_signal(int sig)
{
	uint32_t i;

	for (i = 0; i < noise_n; i++)
		if (noise_pids[i] > 0)
			kill(noise_pids[i], SIGKILL);
	signal(sig, SIG_DFL);
	raise(sig);
}

int noise_start(uint32_t n)
{
	pid_t parent = getpid(), pid;
	uint32_t i;

	if (!n)
		return 0;
	noise_pids = calloc(n, sizeof(*noise_pids));
	if (!noise_pids)
		return fail("no memory for %u noise processes", n);
	/* stdout may hold unwritten output that a child must not repeat */
	fflush(NULL);
	for (i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0) {
			fail("cannot start noise process: %s", strerror(errno));
			noise_stop();
			return 1;
		}
		if (pid == 0)
			noise_spin(parent);
		noise_pids[noise_n++] = pid;
	}
	atexit(noise_stop);
	signal(SIGINT, noise_signal);
	signal(SIGTERM, noise_signal);
	return 0;
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * The bootstrap rendezvous (userlib/bootstrap.c) on loopback, without the
 * module: every rank a process, "creating" its side means recording the
 * plan in shared memory.  Whole jobs, a rank that never comes, a rank
 * launched twice, two ranks at one address, a size that disagrees, no
 * rank 0, a store that drops SYNs, an id taken on one host, connections
 * that are not the protocol, a job token that never crosses the network,
 * a rank 0 that does not know it, a HELLO replayed from another run, and
 * a connection dropped before rank 0 answered.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../userlib/bootstrap.h"
#include "../../userlib/bootstrap_wire.h"
#include "harness.h"

#define PROCS_MAX	20
#define TEXT_MAX_TEST	512	/* more than an error's reason */
#define ADDR_LEN	6

enum fail_mode { FAIL_NONE, FAIL_EEXIST_ONCE, FAIL_EEXIST_ALWAYS };

struct proc {
	/* in */
	uint32_t rank, size, wait_ms, id, delay_ms;
	uint8_t addr[ADDR_LEN];
	enum fail_mode fail;
	int auth;
	const char *token;
	const char *store;		/* NULL: the job's */
	const char *listen;		/* rank 0: NETCOLL_STORE_LISTEN */
	/* out */
	int err;
	uint32_t got_id;
	uint64_t cookie;
	uint32_t key_len;
	uint8_t key[NC_KEY_MAX];
	uint8_t members[PROCS_MAX][ADDR_LEN];
	uint32_t plan_size, timeout_ms, oso, degree;
	int creates, failed_creates, destroys;
	char msg[256];
};

static struct proc *procs;	/* shared with the children */
static char store[64];

static void addr_of(uint8_t *addr, uint32_t rank)
{
	static const uint8_t base[ADDR_LEN] = { 0x02, 0, 0x0a, 0, 0, 0 };

	memcpy(addr, base, ADDR_LEN);
	addr[5] = (uint8_t)(rank + 1);
}

/* A port nobody listens on now (bound and released). */
static void pick_store(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&sin, sizeof(sin)) ||
	    getsockname(fd, (struct sockaddr *)&sin, &len)) {
		perror("pick_store");
		exit(2);
	}
	close(fd);
	snprintf(store, sizeof(store), "127.0.0.1:%u", ntohs(sin.sin_port));
}

static int fake_create(void *arg, const struct nc_boot_plan *p)
{
	struct proc *me = arg;
	uint32_t r;

	me->creates++;
	if (me->fail == FAIL_EEXIST_ALWAYS ||
	    (me->fail == FAIL_EEXIST_ONCE && me->creates == 1)) {
		me->failed_creates++;
		return -EEXIST;
	}
	me->got_id = p->id;
	me->cookie = p->cookie;
	me->key_len = p->key_len;
	memcpy(me->key, p->key, p->key_len);
	me->plan_size = p->size;
	me->timeout_ms = p->timeout_ms;
	me->oso = p->oso;
	me->degree = p->tree_degree;
	for (r = 0; r < p->size && r < PROCS_MAX; r++)
		memcpy(me->members[r], p->members[r].addr, ADDR_LEN);
	return 0;
}

static void fake_destroy(void *arg, const struct nc_boot_plan *p)
{
	struct proc *me = arg;

	(void)p;
	me->destroys++;
}

/* Run n processes as described in procs[0..n-1]; their results land there. */
static void run(int n)
{
	pid_t pids[PROCS_MAX];
	int i;

	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] == 0) {
			struct proc *me = &procs[i];
			struct nc_boot_ops ops = { fake_create, fake_destroy, NULL, me };
			struct nc_boot_self s = {
				.store = me->store ? me->store : store,
				.listen = me->listen,
				.rank = me->rank, .size = me->size,
				.addr = me->addr, .addr_len = ADDR_LEN,
				.wait_ms = me->wait_ms, .id = me->id, .auth = me->auth,
				.token = me->token,
				.timeout_ms = 700, .oso = 3, .tree_degree = 5,
			};
			uint32_t id = 0;

			usleep(me->delay_ms * 1000);
			me->err = nc_boot_run(&s, &ops, &id, me->msg, sizeof(me->msg));
			if (!me->err && id != me->got_id)
				me->err = -EBADMSG;	/* the id returned is the one made */
			_exit(0);
		}
	}
	for (i = 0; i < n; i++)
		waitpid(pids[i], NULL, 0);
}

/* procs[i] = rank i of size, all starting at once. */
static void job(int n, uint32_t size, uint32_t wait_ms)
{
	int i;

	memset(procs, 0, PROCS_MAX * sizeof(*procs));
	pick_store();
	for (i = 0; i < n; i++) {
		procs[i].rank = (uint32_t)i;
		procs[i].size = size;
		procs[i].wait_ms = wait_ms;
		addr_of(procs[i].addr, (uint32_t)i);
	}
}

TEST(sixteen_ranks_rank0_last)
{
	uint32_t r;
	int i;

	job(16, 16, 10000);
	procs[0].delay_ms = 400;	/* the others retry until it listens */
	for (i = 0; i < 16; i++)
		procs[i].auth = 1;	/* rank 0's choice counts */
	run(16);
	for (i = 0; i < 16; i++) {
		CHECK_EQ(procs[i].err, 0);
		CHECK(procs[i].got_id >= 1 && procs[i].got_id <= 0x7fffffff);
		CHECK_EQ(procs[i].got_id, procs[0].got_id);
		CHECK(procs[i].cookie == procs[0].cookie && (procs[i].cookie & 1));
		CHECK_EQ(procs[i].key_len, 32);
		CHECK(!memcmp(procs[i].key, procs[0].key, 32));
		CHECK_EQ(procs[i].plan_size, 16);
		CHECK_EQ(procs[i].timeout_ms, 700);
		CHECK_EQ(procs[i].oso, 3);
		CHECK_EQ(procs[i].degree, 5);
		CHECK_EQ(procs[i].creates, 1);
		CHECK_EQ(procs[i].destroys, 0);
		for (r = 0; r < 16; r++) {
			uint8_t want[ADDR_LEN];

			addr_of(want, r);
			CHECK(!memcmp(procs[i].members[r], want, ADDR_LEN));
		}
	}
}

TEST(two_jobs_differ)
{
	uint32_t id1;
	uint64_t cookie1;

	job(3, 3, 5000);
	run(3);
	CHECK_EQ(procs[2].err, 0);
	id1 = procs[2].got_id;
	cookie1 = procs[2].cookie;
	job(3, 3, 5000);
	run(3);
	CHECK_EQ(procs[2].err, 0);
	CHECK(procs[2].got_id != id1 || procs[2].cookie != cookie1);
	CHECK_EQ(procs[2].key_len, 0);	/* no auth asked */
}

TEST(single_rank)
{
	job(1, 1, 1000);
	run(1);
	CHECK_EQ(procs[0].err, 0);
	CHECK_EQ(procs[0].creates, 1);
}

TEST(missing_rank_times_out_naming_it)
{
	int i;

	job(4, 5, 1000);	/* ranks 0..3 of 5: rank 4 never comes */
	run(4);
	for (i = 0; i < 4; i++) {
		CHECK_EQ(procs[i].err, -ETIMEDOUT);
		CHECK(strstr(procs[i].msg, "rank 4 never arrived") != NULL);
		CHECK_EQ(procs[i].creates, 0);
	}
}

TEST(duplicate_rank_refused_job_goes_on)
{
	int i, refused = 0, ok = 0;

	job(4, 3, 5000);
	procs[3].rank = 1;	/* launched twice */
	addr_of(procs[3].addr, 9);
	procs[0].delay_ms = 300;	/* both copies are waiting when it listens, */
	procs[2].delay_ms = 1500;	/* and it still waits for rank 2 */
	run(4);
	for (i = 0; i < 4; i++) {
		if (procs[i].err == -EADDRINUSE &&
		    strstr(procs[i].msg, "rank 1 has arrived already"))
			refused++;
		else if (procs[i].err == 0)
			ok++;
	}
	CHECK_EQ(refused, 1);
	CHECK_EQ(ok, 3);
	CHECK(procs[1].err == 0 || procs[3].err == 0);
}

TEST(shared_address_accepted)
{
	uint32_t i;

	job(3, 3, 1200);
	addr_of(procs[2].addr, 1);	/* ranks 1 and 2 on one host */
	procs[2].delay_ms = 200;	/* after rank 1 */
	run(3);
	for (i = 0; i < 3; i++)
		CHECK_EQ(procs[i].err, 0);
}

TEST(size_disagreement_refused)
{
	job(3, 3, 1200);
	procs[1].size = 5;
	run(3);
	CHECK_EQ(procs[1].err, -EINVAL);
	CHECK(strstr(procs[1].msg, "counts 5 ranks, rank 0 counts 3") != NULL);
	CHECK_EQ(procs[0].err, -ETIMEDOUT);
	CHECK_EQ(procs[2].err, -ETIMEDOUT);
}

TEST(no_rank0_at_store)
{
	job(2, 2, 700);		/* only rank 1 runs */
	procs[0].rank = 1;
	addr_of(procs[0].addr, 1);
	run(1);
	CHECK_EQ(procs[0].err, -ETIMEDOUT);
	CHECK(strstr(procs[0].msg, "no rank 0 at 127.0.0.1:") != NULL);
}

/*
 * In a child: connect to the store's port at 127.0.0.2, another address
 * of this host (all of 127/8 is), while rank 0 waits for rank 1; exits
 * 0 if it connected, 1 if refused.
 */
static pid_t probe_other_address(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	pid_t pid = fork();
	int fd;

	if (pid)
		return pid;
	sin.sin_addr.s_addr = htonl(0x7f000002);
	sin.sin_port = htons((uint16_t)atoi(strrchr(store, ':') + 1));
	usleep(300 * 1000);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	_exit(fd >= 0 && !connect(fd, (struct sockaddr *)&sin, sizeof(sin)) ? 0 : 1);
}

/*
 * One job of two ranks, rank 0 listening on @listen (NULL: the store's
 * address), probed from 127.0.0.2 while it waits for rank 1; returns
 * whether the probe connected.
 */
static int other_address_reaches_store(const char *listen)
{
	int status;
	pid_t pid;

	job(2, 2, 4000);
	procs[0].listen = listen;
	procs[1].delay_ms = 1000;
	pid = probe_other_address();
	run(2);
	waitpid(pid, &status, 0);
	CHECK_EQ(procs[0].err, 0);
	CHECK_EQ(procs[1].err, 0);
	CHECK(WIFEXITED(status));
	return WEXITSTATUS(status) == 0;
}

/*
 * Rank 0 listens on the store's address only: whoever reaches the store
 * learns the job's members (and without a token its key), and the job's
 * network is not every network rank 0 is on.  With the store at
 * 127.0.0.1, 127.0.0.2 is refused; NETCOLL_STORE_LISTEN "*" (every
 * address, as before) takes it; a store address that is not this host's
 * fails at once, naming the way out.
 */
TEST(rank0_listens_on_the_store_address)
{
	CHECK(!other_address_reaches_store(NULL));
	CHECK(other_address_reaches_store("*"));

	job(1, 2, 4000);	/* TEST-NET-1: nobody's address */
	procs[0].store = "192.0.2.1:4000";
	run(1);
	CHECK_EQ(procs[0].err, -EADDRNOTAVAIL);
	CHECK(strstr(procs[0].msg, "rank 0 cannot listen on 192.0.2.1 port 4000") != NULL);
	CHECK(strstr(procs[0].msg, "NETCOLL_STORE_LISTEN") != NULL);
}

/*
 * A store whose address drops SYNs (here: a listener whose one-place
 * queue is full) ends the wait at the job's deadline with ETIMEDOUT, not
 * after the kernel's SYN retries (about 127 s).  The bound checked is a
 * hang check, generous against a loaded machine, not a timing.
 */
TEST(store_dropping_syns_times_out)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);
	int lfd = socket(AF_INET, SOCK_STREAM, 0), cfd = socket(AF_INET, SOCK_STREAM, 0);
	struct timespec t0, t1;

	CHECK(lfd >= 0 && cfd >= 0);
	CHECK_EQ(bind(lfd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	CHECK_EQ(listen(lfd, 0), 0);
	CHECK_EQ(getsockname(lfd, (struct sockaddr *)&sin, &len), 0);
	CHECK_EQ(connect(cfd, (struct sockaddr *)&sin, sizeof(sin)), 0);	/* fills it */
	job(2, 2, 1500);
	snprintf(store, sizeof(store), "127.0.0.1:%u", ntohs(sin.sin_port));
	procs[0].rank = 1;
	addr_of(procs[0].addr, 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	run(1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK_EQ(procs[0].err, -ETIMEDOUT);
	CHECK(strstr(procs[0].msg, "no rank 0 at 127.0.0.1:") != NULL);
	CHECK(t1.tv_sec - t0.tv_sec < 20);
	close(cfd);
	close(lfd);
}

TEST(unresolvable_store)
{
	job(2, 2, 700);
	snprintf(store, sizeof(store), "nosuchhost.invalid:4000");
	procs[0].rank = 1;
	run(1);
	CHECK_EQ(procs[0].err, -EADDRNOTAVAIL);
	snprintf(store, sizeof(store), "noport");
	run(1);
	CHECK_EQ(procs[0].err, -EINVAL);
}

TEST(random_id_taken_is_retried)
{
	int i;

	job(4, 4, 5000);
	procs[2].fail = FAIL_EEXIST_ONCE;
	run(4);
	for (i = 0; i < 4; i++) {
		CHECK_EQ(procs[i].err, 0);
		CHECK_EQ(procs[i].got_id, procs[0].got_id);
		CHECK_EQ(procs[i].creates, 2);
		/* the first round's side undone, except where it failed */
		CHECK_EQ(procs[i].destroys, i == 2 ? 0 : 1);
	}
}

TEST(fixed_id_taken_fails_everywhere)
{
	int i;

	job(4, 4, 5000);
	for (i = 0; i < 4; i++)
		procs[i].id = 77;
	procs[3].fail = FAIL_EEXIST_ALWAYS;
	run(4);
	for (i = 0; i < 4; i++) {
		CHECK_EQ(procs[i].err, -EEXIST);
		CHECK(strstr(procs[i].msg, "rank 3 could not create communicator 77") != NULL);
		CHECK_EQ(procs[i].creates, 1);
		CHECK_EQ(procs[i].destroys, i == 3 ? 0 : 1);
	}
}

/* In a child: once rank 0 listens, n connections to the store (or exit 1). */
static void connect_store(int *fds, int n)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int i;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons((uint16_t)atoi(strrchr(store, ':') + 1));
	usleep(300 * 1000);
	for (i = 0; i < n; i++) {
		fds[i] = socket(AF_INET, SOCK_STREAM, 0);
		if (connect(fds[i], (struct sockaddr *)&sin, sizeof(sin)))
			_exit(1);
	}
}

/* Connections to rank 0 that are not the protocol, while a job runs. */
TEST(hostile_connections_ignored)
{
	static const uint8_t huge[16] = { 0x4e, 0x43, 0x42, 0x53, 0, 1, 0, 1,
					  0, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff };
	int fds[3], i;
	pid_t pid;

	job(3, 3, 8000);
	procs[1].delay_ms = 2500;	/* after the hostile ones */
	procs[2].delay_ms = 2500;
	pid = fork();
	if (pid == 0) {
		connect_store(fds, 3);
		(void)!write(fds[0], "GET / HTTP/1.0\r\n\r\n", 18);	/* not the magic */
		(void)!write(fds[1], huge, sizeof(huge));		/* a 2 GB payload */
		/* fds[2] says nothing at all and stays open */
		sleep(4);
		_exit(0);
	}
	run(3);
	waitpid(pid, NULL, 0);
	for (i = 0; i < 3; i++)
		CHECK_EQ(procs[i].err, 0);
}

/*
 * Forty connections that say nothing, and one that sends its HELLO a
 * byte at a time, before the ranks come: rank 0 reads them side by side,
 * each for at most 2 s, so the job still meets well inside its 6 s.  Read
 * one at a time (2 s each) they took 80 s and every rank timed out.
 */
TEST(silent_connections_do_not_stall)
{
	int fds[41], i;
	pid_t pid;

	job(3, 3, 6000);
	procs[1].delay_ms = 1000;	/* after the silent ones */
	procs[2].delay_ms = 1000;
	pid = fork();
	if (pid == 0) {
		static const uint8_t hdr[4] = { 0x4e, 0x43, 0x42, 0x53 };

		connect_store(fds, 41);
		for (i = 0; i < 4; i++) {	/* the slow one: its magic */
			(void)!write(fds[40], &hdr[i], 1);
			usleep(500 * 1000);
		}
		sleep(30);	/* open all along: killed once the job ended */
		_exit(0);
	}
	run(3);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	for (i = 0; i < 3; i++)
		CHECK_EQ(procs[i].err, 0);
}

/*
 * A rank that arrived and died (its process killed before the WELCOME)
 * and is started again: the new one takes its place, whether it comes
 * while another rank is still missing (a duplicate whose first
 * connection is gone) or after all others (every rank counted, the dead
 * one dropped before the WELCOME).  Before, the first was refused
 * (EADDRINUSE) and the second sent the WELCOME to the dead rank: the job
 * failed either way (ECONNRESET).
 */
static void restart_rank1(uint32_t rank2_delay_ms)
{
	pid_t pid;
	int i;

	job(3, 3, 6000);
	procs[1].delay_ms = 2000;	/* the restarted one */
	procs[2].delay_ms = rank2_delay_ms;
	pid = fork();
	if (pid == 0) {		/* the first rank 1: dies at 1.2 s */
		struct nc_boot_ops ops = { fake_create, fake_destroy, NULL, &procs[3] };
		struct nc_boot_self self = {
			.store = store, .rank = 1, .size = 3, .addr = procs[1].addr,
			.addr_len = ADDR_LEN, .wait_ms = 6000,
		};
		uint32_t id;

		usleep(200 * 1000);
		alarm(1);
		nc_boot_run(&self, &ops, &id, NULL, 0);
		_exit(0);
	}
	run(3);
	waitpid(pid, NULL, 0);
	for (i = 0; i < 3; i++)
		CHECK_EQ(procs[i].err, 0);
}

TEST(restarted_rank_takes_the_place_of_a_dead_one)
{
	restart_rank1(2500);	/* rank 1 comes again while rank 2 is missing */
	restart_rank1(1500);	/* ... after rank 2: all counted, one dead */
}

/*
 * A job token (NETCOLL_STORE_TOKEN): a process with another token (or
 * none) that comes first for rank 1 is refused with EACCES and learns
 * nothing of the job (not its size); the ranks with the token meet.
 * Without the token it would have taken rank 1, and the key with it.
 */
TEST(job_token_keeps_others_out)
{
	int i;

	job(5, 3, 6000);
	for (i = 0; i < 3; i++)
		procs[i].token = "job-4711-secret-token";
	procs[1].delay_ms = 1000;	/* after the intruders */
	procs[2].delay_ms = 1000;
	procs[3].rank = 1;		/* another token */
	procs[3].token = "job-4711-guess-token";
	procs[3].delay_ms = 200;
	procs[4].rank = 1;		/* none */
	procs[4].size = 7;		/* and a size that would be told */
	procs[4].delay_ms = 200;
	run(5);
	for (i = 0; i < 3; i++)
		CHECK_EQ(procs[i].err, 0);
	for (i = 3; i < 5; i++) {
		CHECK_EQ(procs[i].err, -EACCES);
		CHECK(strstr(procs[i].msg, "job token") != NULL);
		CHECK(strstr(procs[i].msg, "counts") == NULL);
	}
}

/* A listening socket on 127.0.0.1:port of "127.0.0.1:port" (or exit 2). */
static int listen_at(const char *where)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons((uint16_t)atoi(strrchr(where, ':') + 1));
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) || listen(fd, 4)) {
		perror("listen_at");
		_exit(2);
	}
	return fd;
}

/* What a relay between a rank and its store saw, both ways. */
struct wiretap {
	size_t len;
	uint8_t bytes[65536];
};

/*
 * In a child: accept one connection at relay (drop_first: close the first
 * at once, as a rank 0 pushing it out of its pending ones would, and take
 * the next), connect it to the store and pass bytes both ways until both
 * sides are done, keeping a copy.
 */
static void relay(const char *relay_at, struct wiretap *tap, int drop_first)
{
	int lfd = listen_at(relay_at), fds[2], i;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	uint8_t buf[4096];
	ssize_t n;

	fds[0] = accept(lfd, NULL, NULL);
	if (drop_first) {
		close(fds[0]);
		fds[0] = accept(lfd, NULL, NULL);
	}
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons((uint16_t)atoi(strrchr(store, ':') + 1));
	fds[1] = socket(AF_INET, SOCK_STREAM, 0);
	while (connect(fds[1], (struct sockaddr *)&sin, sizeof(sin)))
		usleep(50 * 1000);	/* rank 0 is not listening yet */
	for (;;) {
		struct pollfd p[2] = { { fds[0], POLLIN, 0 }, { fds[1], POLLIN, 0 } };

		if (poll(p, 2, 10000) <= 0)
			break;
		for (i = 0; i < 2; i++) {
			if (!p[i].revents)
				continue;
			n = read(fds[i], buf, sizeof(buf));
			if (n <= 0)
				_exit(0);
			if (tap->len + (size_t)n <= sizeof(tap->bytes)) {
				memcpy(tap->bytes + tap->len, buf, (size_t)n);
				tap->len += (size_t)n;
			}
			(void)!write(fds[!i], buf, (size_t)n);
		}
	}
	_exit(0);
}

static int tap_has(const struct wiretap *tap, const void *what, size_t len)
{
	return memmem(tap->bytes, tap->len, what, len) != NULL;
}

/* A tap and an int after it, shared with the children. */
#define TAP_MAP_LEN	(sizeof(struct wiretap) + sizeof(int))

/*
 * A job of 2 ranks (6 s each) whose rank 1 reaches the store through a
 * relay at relay_at, which the caller starts; the tap it fills, or NULL.
 */
static struct wiretap *relayed_job(char relay_at[64])
{
	struct wiretap *tap = mmap(NULL, TAP_MAP_LEN, PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (tap == MAP_FAILED)
		return NULL;
	tap->len = 0;
	pick_store();
	memcpy(relay_at, store, 64);	/* rank 1 connects here */
	do
		job(2, 2, 6000);	/* and rank 0 listens here */
	while (!strcmp(store, relay_at));
	procs[1].store = relay_at;
	return tap;
}

/*
 * With a job token, neither it nor the key crosses the network: a relay
 * between rank 1 and the store sees the whole rendezvous and finds
 * neither in it, and the ranks still meet with the same key.  (Protocol 2
 * sent the token in every HELLO and the key in every WELCOME.)
 */
TEST(token_and_key_never_cross_the_network)
{
	static const char token[] = "job-4711-secret-token";
	struct wiretap *tap;
	char relay_at[64];
	pid_t pid;
	int i;

	tap = relayed_job(relay_at);
	CHECK(tap != NULL);
	if (!tap)
		return;
	for (i = 0; i < 2; i++) {
		procs[i].token = token;
		procs[i].auth = 1;
	}
	pid = fork();
	if (pid == 0)
		relay(relay_at, tap, 0);
	run(2);
	waitpid(pid, NULL, 0);
	for (i = 0; i < 2; i++)
		CHECK_EQ(procs[i].err, 0);
	CHECK_EQ(procs[1].key_len, 32);
	CHECK(!memcmp(procs[0].key, procs[1].key, 32));
	/* the relay saw the whole rendezvous: a HELLO, a WELCOME, ... */
	CHECK(tap->len > sizeof(struct boot_hdr) * 2 + sizeof(struct boot_hello) +
			 sizeof(struct boot_welcome));
	CHECK(!tap_has(tap, token, strlen(token)));
	CHECK(!tap_has(tap, procs[0].key, 16));
	munmap(tap, TAP_MAP_LEN);
}

/*
 * A "rank 0" that does not know the token (something else took the
 * store's port first) answers rank 1's HELLO with a WELCOME of its own
 * making: rank 1 does not believe it (EACCES), creates nothing, and says
 * why.
 */
TEST(rank0_without_the_token_is_not_believed)
{
	struct {
		struct boot_hdr h;
		struct boot_welcome w;
		uint8_t addrs[2][ADDR_LEN];
	} __attribute__((packed)) m;
	uint8_t in[sizeof(struct boot_hdr) + sizeof(struct boot_hello)];
	size_t got = 0;
	ssize_t n;
	pid_t pid;
	int lfd, c;

	job(1, 2, 4000);		/* procs[0] plays rank 1 */
	procs[0].rank = 1;
	addr_of(procs[0].addr, 1);
	procs[0].token = "job-4711-secret-token";
	lfd = listen_at(store);
	pid = fork();
	if (pid == 0) {
		struct {
			struct boot_hdr h;
			uint8_t challenge[BOOT_NONCE_LEN];
		} __attribute__((packed)) ch = {
			.h = { .magic = htonl(BOOT_MAGIC), .version = htons(BOOT_VERSION),
			       .type = htons(BOOT_CHALLENGE), .len = htonl(BOOT_NONCE_LEN) },
		};

		c = accept(lfd, NULL, NULL);
		(void)!write(c, &ch, sizeof(ch));
		while (got < sizeof(in) && (n = read(c, in + got, sizeof(in) - got)) > 0)
			got += (size_t)n;
		memset(&m, 0, sizeof(m));
		m.h.magic = htonl(BOOT_MAGIC);
		m.h.version = htons(BOOT_VERSION);
		m.h.type = htons(BOOT_WELCOME);
		m.h.len = htonl(sizeof(m.w) + sizeof(m.addrs));
		m.w.id = htonl(99);
		m.w.size = htonl(2);
		m.w.round = htonl(1);
		m.w.cookie_lo = htonl(1);
		m.w.addr_len = htonl(ADDR_LEN);
		memcpy(m.addrs[1], procs[0].addr, ADDR_LEN);
		(void)!write(c, &m, sizeof(m));
		sleep(5);
		_exit(0);
	}
	close(lfd);
	run(1);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	CHECK_EQ(procs[0].err, -EACCES);
	CHECK(strstr(procs[0].msg, "does not know this job's token") != NULL);
	CHECK_EQ(procs[0].creates, 0);
}

/* The tapped bytes' first HELLO message (header and payload), or NULL. */
static const uint8_t *tapped_hello(const struct wiretap *tap)
{
	struct boot_hdr h = { .magic = htonl(BOOT_MAGIC), .version = htons(BOOT_VERSION),
			      .type = htons(BOOT_HELLO) };
	const uint8_t *at = memmem(tap->bytes, tap->len, &h, 8);

	if (!at || at + sizeof(h) + sizeof(struct boot_hello) > tap->bytes + tap->len)
		return NULL;
	return at;
}

/*
 * A HELLO seen on the wire in one run and replayed to a later run of the
 * same job token, by a connection that comes before the true rank 1: it
 * answers another connection's challenge, so rank 0 refuses it (EACCES)
 * and the true rank 1 takes its place.  Protocol 3 took it in: the
 * replayer held rank 1 (the true one was refused, EADDRINUSE), and could
 * answer its RESULT for it.
 */
TEST(replayed_hello_is_refused)
{
	static const char token[] = "job-4711-secret-token";
	uint8_t hello[sizeof(struct boot_hdr) + sizeof(struct boot_hello)];
	uint8_t in[sizeof(struct boot_hdr) + TEXT_MAX_TEST];
	struct wiretap *tap;
	char relay_at[64];
	const uint8_t *at;
	int i, fd, *refused;
	pid_t pid;

	/* run 1, tapped between rank 1 and the store */
	tap = relayed_job(relay_at);
	CHECK(tap != NULL);
	if (!tap)
		return;
	refused = (int *)(tap + 1);
	for (i = 0; i < 2; i++)
		procs[i].token = token;
	pid = fork();
	if (pid == 0)
		relay(relay_at, tap, 0);
	run(2);
	waitpid(pid, NULL, 0);
	CHECK_EQ(procs[1].err, 0);
	at = tapped_hello(tap);
	CHECK(at != NULL);
	if (!at)
		goto out;
	memcpy(hello, at, sizeof(hello));
	/* run 2: the replayer connects first and sends that HELLO */
	job(2, 2, 6000);
	for (i = 0; i < 2; i++)
		procs[i].token = token;
	procs[1].delay_ms = 1200;
	*refused = 0;
	pid = fork();
	if (pid == 0) {
		struct boot_hdr *h = (struct boot_hdr *)in;
		size_t got = 0;
		ssize_t n;

		connect_store(&fd, 1);
		(void)!write(fd, hello, sizeof(hello));
		while (got < sizeof(in) && (n = read(fd, in + got, sizeof(in) - got)) > 0)
			got += (size_t)n;
		/* its CHALLENGE, then an error WELCOME */
		h = (struct boot_hdr *)(in + sizeof(*h) + BOOT_NONCE_LEN);
		*refused = got > sizeof(*h) * 2 + BOOT_NONCE_LEN &&
			   ntohs(h->type) == BOOT_WELCOME && ntohl(h->err) == EACCES &&
			   memmem(in, got, "another connection's challenge", 30);
		_exit(0);
	}
	run(2);
	waitpid(pid, NULL, 0);
	CHECK_EQ(*refused, 1);
	for (i = 0; i < 2; i++)
		CHECK_EQ(procs[i].err, 0);
out:
	munmap(tap, TAP_MAP_LEN);
}

/*
 * A connection that breaks before rank 0 answered (here a relay closes
 * the first one at once; a flood of connections pushing it out of rank
 * 0's pending ones did it before) is made again, with a fresh HELLO: the
 * job meets.  Before, rank 1 gave up ("hung up before answering").
 */
TEST(dropped_connection_is_made_again)
{
	struct wiretap *tap;
	char relay_at[64];
	pid_t pid;
	int i;

	tap = relayed_job(relay_at);
	CHECK(tap != NULL);
	if (!tap)
		return;
	pid = fork();
	if (pid == 0)
		relay(relay_at, tap, 1);
	run(2);
	waitpid(pid, NULL, 0);
	for (i = 0; i < 2; i++)
		CHECK_EQ(procs[i].err, 0);
	munmap(tap, TAP_MAP_LEN);
}

TEST(bad_arguments)
{
	struct nc_boot_ops ops = { fake_create, fake_destroy, NULL, &procs[0] };
	uint8_t addr[ADDR_LEN] = { 2 };
	struct nc_boot_self s = { .store = "127.0.0.1:1", .rank = 0, .size = 2,
				  .addr = addr, .addr_len = ADDR_LEN, .wait_ms = 100 };
	uint32_t id;
	char msg[64];

	s.size = 0;
	CHECK_EQ(nc_boot_run(&s, &ops, &id, msg, sizeof(msg)), -EINVAL);
	s.size = 2;
	s.rank = 2;
	CHECK_EQ(nc_boot_run(&s, &ops, &id, msg, sizeof(msg)), -EINVAL);
	s.rank = 0;
	s.addr_len = NC_ADDR_MAX + 1;
	CHECK_EQ(nc_boot_run(&s, &ops, &id, msg, sizeof(msg)), -EINVAL);
	s.addr_len = ADDR_LEN;
	s.wait_ms = 0;
	CHECK_EQ(nc_boot_run(&s, &ops, &id, msg, sizeof(msg)), -EINVAL);
	s.wait_ms = 100;
	s.id = 0x80000000U;
	CHECK_EQ(nc_boot_run(&s, &ops, &id, msg, sizeof(msg)), -EINVAL);
	s.id = 0;
	s.token = "0123456789012345678901234567890123456789012345678901234567890123x";
	CHECK_EQ(nc_boot_run(&s, &ops, &id, msg, sizeof(msg)), -EINVAL);	/* 65 bytes */
	s.token = "012345678901234";
	CHECK_EQ(nc_boot_run(&s, &ops, &id, msg, sizeof(msg)), -EINVAL);	/* 15 bytes */
	CHECK_EQ(nc_boot_run(NULL, &ops, &id, msg, sizeof(msg)), -EINVAL);
}

int main(void)
{
	procs = mmap(NULL, PROCS_MAX * sizeof(*procs), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (procs == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	RUN(sixteen_ranks_rank0_last);
	RUN(two_jobs_differ);
	RUN(single_rank);
	RUN(missing_rank_times_out_naming_it);
	RUN(duplicate_rank_refused_job_goes_on);
	RUN(shared_address_accepted);
	RUN(size_disagreement_refused);
	RUN(no_rank0_at_store);
	RUN(rank0_listens_on_the_store_address);
	RUN(store_dropping_syns_times_out);
	RUN(unresolvable_store);
	RUN(random_id_taken_is_retried);
	RUN(fixed_id_taken_fails_everywhere);
	RUN(hostile_connections_ignored);
	RUN(silent_connections_do_not_stall);
	RUN(restarted_rank_takes_the_place_of_a_dead_one);
	RUN(job_token_keeps_others_out);
	RUN(token_and_key_never_cross_the_network);
	RUN(rank0_without_the_token_is_not_believed);
	RUN(replayed_hello_is_refused);
	RUN(dropped_connection_is_made_again);
	RUN(bad_arguments);
	return DONE();
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * nc_bcast_check: broadcasts on one rank, every byte checked, for the VM
 * tests.  Every rank runs it at once with the same arguments but its own
 * --rank.
 *
 * The root's data is a function of (seed, root, size, iteration, byte), so
 * every rank knows what it must receive; the others fill their buffer
 * with a pattern that is never the expected one before each call.  For
 * each size of --bytes-list, each root of --roots (default: every rank in
 * turn) and each of --iters iterations one broadcast runs, blocking, or
 * with --concurrent N, N at a time posted (nc_ibcast_ex) and then waited.
 *
 * --wait-file PATH: post each broadcast, then do nothing until PATH
 * exists, then collect: the test that inner ranks forward without their
 * process.  --post-file PATH: do nothing until PATH exists, then post the
 * first broadcast: the test that they forward before their process posts.
 *
 * --dist auto: the library picks tree or multicast by size (its
 * range: NETCOLL_BCAST_MCAST_MIN/MAX, or --tune).  --tune N,...: first
 * nc_bcast_tune() over those sizes (--tune-iters each, root 0); its line
 * ("tune: multicast ...", with the times) must be the same on every
 * rank.
 *
 * Output: one "ok - ..." or "not ok - ..." line per size and root list;
 * exit 0 iff all ok.  --expect-error NAME: the run must end in that errno
 * (ANY: any), every broadcast before it still byte-exact.  Whatever a
 * call returns, nothing may be written past its buffer's length (GUARD
 * bytes after it are checked).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "netcoll.h"
#include "check_out.h"
#include "start_gate.h"

#define MAX_LIST	32
#define MAX_CONC	16
#define GUARD		64	/* bytes after each buffer nobody may write */
#define GUARD_BYTE	0x5c

struct opts {
	uint32_t comm, rank, size, iters, concurrent, timeout_ms, seed;
	uint64_t bytes[MAX_LIST];
	unsigned int nbytes;
	uint32_t roots[MAX_LIST];
	unsigned int nroots;
	enum nc_dist dist;
	int expect;
	const char *wait_file;	/* post, then wait for it to exist, then wait */
	const char *post_file;	/* wait for it to exist, then post */
	struct nc_bcast_tune tune;	/* nsizes: tune first */
};

static void fill(uint8_t *b, uint64_t n, uint64_t key)
{
	uint64_t i, v = 0;

	for (i = 0; i < n; i++) {
		if (i % 8 == 0)
			v = mix(key + i / 8);
		b[i] = (uint8_t)(v >> (8 * (i % 8)));
	}
}

static uint64_t key_of(const struct opts *o, uint32_t root, uint64_t bytes,
		       uint32_t it, uint32_t k)
{
	return mix(((uint64_t)o->seed << 48) ^ ((uint64_t)root << 32) ^
		   (bytes << 8) ^ ((uint64_t)it << 4) ^ k);
}

static int guard_broken(const uint8_t *g)
{
	unsigned int i;

	for (i = 0; i < GUARD; i++)
		if (g[i] != GUARD_BYTE)
			return 1;
	return 0;
}

/* One size, one root, every iteration; 0 or the first error. */
static int run(nc_endpoint *ep, const struct opts *o, uint64_t bytes,
	       uint32_t root, uint8_t **buf, uint8_t *exp, int *bad,
	       uint32_t *done)
{
	uint32_t n = o->concurrent ? o->concurrent : 1, it, k;
	int nb = n > 1 || o->wait_file;
	nc_request req[MAX_CONC];
	int err = 0;

	for (it = 0; it < o->iters && !err; it++) {
		for (k = 0; k < n && !err; k++) {
			struct nc_bcast_args a = {
				.buf = buf[k], .len = bytes, .root = root,
				.dist = o->dist,
			};

			if (o->rank == root)
				fill(buf[k], bytes, key_of(o, root, bytes, it, k));
			else
				memset(buf[k], 0xa5 ^ (int)k, bytes);
			memset(buf[k] + bytes, GUARD_BYTE, GUARD);
			err = nb ? nc_ibcast_ex(ep, &a, &req[k]) :
				   nc_bcast_ex(ep, &a);
		}
		/* posted: the kernel forwards for us while we are away */
		while (o->wait_file && !err && access(o->wait_file, F_OK))
			usleep(10000);
		for (k = 0; k < n && nb && !err; k++)
			err = nc_wait(ep, req[k]);
		/* written past its length: wrong, whatever the call returned */
		for (k = 0; k < n; k++)
			if (guard_broken(buf[k] + bytes))
				*bad = 1;
		for (k = 0; k < n && !err; k++) {
			fill(exp, bytes, key_of(o, root, bytes, it, k));
			if (memcmp(buf[k], exp, bytes))
				*bad = 1;
		}
		if (!err)
			*done += n;
	}
	return err;
}

/* nc_bcast_tune(), and its outcome as one line every rank must share. */
static int tune(nc_endpoint *ep, struct nc_bcast_tune *t)
{
	char line[1024], *p = line, *end = line + sizeof(line);
	struct nc_bcast_tune bad[4];
	int err, refused = 1;
	uint32_t i;

	/* bad arguments: refused on every rank alike, before any traffic */
	for (i = 0; i < 4; i++)
		bad[i] = *t;
	bad[0].comp_mask = 1;
	bad[1].root = (uint32_t)nc_comm_size(ep);
	bad[2].iters = 1001;
	bad[3].nsizes = 2;
	bad[3].sizes[0] = bad[3].sizes[1] = 4096;	/* not ascending */
	for (i = 0; i < 4; i++)
		refused &= nc_bcast_tune(ep, &bad[i]) == -EINVAL;
	result(refused, "tune: bad arguments are EINVAL");
	err = nc_bcast_tune(ep, t);
	if (err) {
		result(0, "tune: %s", nc_strerror(err));
		return err;
	}
	if (t->mcast_min >= t->mcast_max)
		p += snprintf(p, end - p, "never");
	else if (t->mcast_max == SIZE_MAX)
		p += snprintf(p, end - p, "from %zu", t->mcast_min);
	else
		p += snprintf(p, end - p, "from %zu below %zu", t->mcast_min,
			      t->mcast_max);
	for (i = 0; i < t->nsizes && p < end; i++)
		p += snprintf(p, end - p, "; %zu B tree %.3f mcast %.3f us",
			      t->sizes[i], t->tree_us[i], t->mcast_us[i]);
	result(1, "tune: multicast %s", line);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"Usage: nc_bcast_check --comm ID --rank R --size P [--bytes-list N,...]\n"
		"        [--roots R,...] [--dist tree|mcast|auto] [--iters N] [--concurrent N]\n"
		"        [--timeout MS] [--seed S] [--expect-error ERRNO_NAME|ANY]\n"
		"        [--wait-file PATH] [--post-file PATH] [--tune N,... [--tune-iters N]]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "comm", 1, 0, 'c' }, { "rank", 1, 0, 'r' }, { "size", 1, 0, 'P' },
		{ "bytes-list", 1, 0, 'b' }, { "roots", 1, 0, 'R' },
		{ "dist", 1, 0, 'D' }, { "iters", 1, 0, 'i' },
		{ "concurrent", 1, 0, 'C' }, { "timeout", 1, 0, 't' },
		{ "seed", 1, 0, 'S' }, { "expect-error", 1, 0, 'E' },
		{ "wait-file", 1, 0, 'W' }, { "tune", 1, 0, 'T' },
		{ "tune-iters", 1, 0, 'I' }, { "post-file", 1, 0, 'p' }, { 0 }
	};
	struct opts o = { .iters = 1, .seed = 1, .dist = NC_DIST_TREE };
	uint8_t *buf[MAX_CONC] = { 0 }, *exp = NULL;
	nc_endpoint *ep = NULL;
	uint64_t max = 0;
	unsigned int i, r;
	char *s, *save;
	int c, err;

	start_gate_init();
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'c': o.comm = strtoul(optarg, NULL, 0); break;
		case 'r': o.rank = strtoul(optarg, NULL, 0); break;
		case 'P': o.size = strtoul(optarg, NULL, 0); break;
		case 'b':
			for (s = strtok_r(optarg, ",", &save); s && o.nbytes < MAX_LIST;
			     s = strtok_r(NULL, ",", &save))
				o.bytes[o.nbytes++] = strtoull(s, NULL, 0);
			break;
		case 'R':
			for (s = strtok_r(optarg, ",", &save); s && o.nroots < MAX_LIST;
			     s = strtok_r(NULL, ",", &save))
				o.roots[o.nroots++] = strtoul(s, NULL, 0);
			break;
		case 'D':
			o.dist = !strcmp(optarg, "mcast") ? NC_DIST_MCAST :
				 !strcmp(optarg, "auto") ? NC_DIST_AUTO : NC_DIST_TREE;
			break;
		case 'T':
			for (s = strtok_r(optarg, ",", &save);
			     s && o.tune.nsizes < NC_BCAST_TUNE_SIZES_MAX;
			     s = strtok_r(NULL, ",", &save))
				o.tune.sizes[o.tune.nsizes++] = strtoull(s, NULL, 0);
			break;
		case 'I': o.tune.iters = strtoul(optarg, NULL, 0); break;
		case 'i': o.iters = strtoul(optarg, NULL, 0); break;
		case 'C': o.concurrent = strtoul(optarg, NULL, 0); break;
		case 't': o.timeout_ms = strtoul(optarg, NULL, 0); break;
		case 'S': o.seed = strtoul(optarg, NULL, 0); break;
		case 'W': o.wait_file = optarg; break;
		case 'p': o.post_file = optarg; break;
		case 'E':
			o.expect = errno_of(optarg);
			if (!o.expect)
				usage();
			break;
		default: usage();
		}
	}
	if (!o.size || o.rank >= o.size || o.concurrent > MAX_CONC)
		usage();
	if (!o.nbytes)
		o.bytes[o.nbytes++] = 1000;
	if (!o.nroots)
		for (r = 0; r < o.size && o.nroots < MAX_LIST; r++)
			o.roots[o.nroots++] = r;
	for (i = 0; i < o.nbytes; i++)
		max = o.bytes[i] > max ? o.bytes[i] : max;
	for (i = 0; i < (o.concurrent ? o.concurrent : 1); i++)
		if (!(buf[i] = malloc(max + GUARD)))
			return 1;
	exp = malloc(max + 1);
	if (!exp)
		return 1;

	err = nc_open(&ep, NULL);
	if (!err)
		err = nc_bind(ep, o.comm, o.rank);
	if (!err && o.timeout_ms)
		err = nc_set_timeout(ep, o.timeout_ms);
	if (err) {
		result(0, "rank %u: open/bind comm %u: %s", o.rank, o.comm, nc_strerror(err));
		return 1;
	}
	start_gate_wait();
	if (o.tune.nsizes && tune(ep, &o.tune))
		return 1;
	/* bound, but not posted: the kernel starts what its data brings */
	while (o.post_file && access(o.post_file, F_OK))
		usleep(10000);
	for (i = 0; i < o.nbytes; i++) {
		uint32_t done = 0;
		int bad = 0;

		for (r = 0, err = 0; r < o.nroots && !err; r++)
			err = run(ep, &o, o.bytes[i], o.roots[r], buf, exp, &bad, &done);
		if (o.expect) {
			result(err && (o.expect < 0 || err == -o.expect) && !bad,
			       "bcast %" PRIu64 " B: expected %s, got %s after %u broadcasts, those %s",
			       o.bytes[i], o.expect < 0 ? "an error" : strerror(o.expect),
			       err ? strerror(-err) : "success", done,
			       bad ? "WRONG" : "byte-exact");
			break;
		}
		result(!err && !bad, "bcast %" PRIu64 " B from %u root%s, %s, %u x %u: %s",
		       o.bytes[i], o.nroots, o.nroots > 1 ? "s" : "",
		       o.dist == NC_DIST_MCAST ? "mcast" :
		       o.dist == NC_DIST_AUTO ? "auto" : "tree", o.iters,
		       o.concurrent ? o.concurrent : 1,
		       err ? nc_strerror(err) : bad ? "data differs" : "byte-exact");
	}
	nc_close(ep);
	for (i = 0; i < MAX_CONC; i++)
		free(buf[i]);
	free(exp);
	return failures ? 1 : 0;
}

// SPDX-License-Identifier: BSD-2-Clause
/*
 * nc_comm_bootstrap() and nc_open_bootstrap(): the rendezvous (bootstrap.c)
 * wired to this host: rank and size from the arguments or the launcher's
 * environment, the device address from the module, and the communicator
 * created and deleted through netlink.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netcoll.h>

#include "bootstrap.h"
#include "nl.h"

#define WAIT_MS_DEFAULT	60000

/* The first of the variables that is set: 0 and its value, or -ENOENT. */
static int env_u32(const char *const *names, uint32_t *v, const char **which)
{
	unsigned long x;
	const char *s;
	char *end;

	for (; *names; names++) {
		s = getenv(*names);
		if (!s || !*s)
			continue;
		*which = *names;
		errno = 0;
		x = strtoul(s, &end, 10);
		if (errno || *end || s[0] == '-' || x > UINT32_MAX)
			return -EINVAL;
		*v = (uint32_t)x;
		return 0;
	}
	return -ENOENT;
}

static const char *const rank_vars[] = {
	"NETCOLL_RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID", NULL
};
static const char *const size_vars[] = {
	"NETCOLL_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS", NULL
};

/* The arguments with the environment's defaults filled in. */
static int fill_args(nc_ctl *ctl, const struct nc_bootstrap_args *in,
		     struct nc_bootstrap_args *a)
{
	static const char *const wait_vars[] = { "NETCOLL_WAIT_MS", NULL };
	const char *which = NULL;
	int err;

	*a = *in;
	if (a->flags & ~(uint32_t)(NC_BOOTSTRAP_AUTH | NC_BOOTSTRAP_TRANSIENT)) {
		nc_ctl_seterr(ctl, "unknown bootstrap flags 0x%x", a->flags);
		return -EINVAL;
	}
	if (!a->store)
		a->store = getenv("NETCOLL_STORE");
	if (!a->store || !*a->store) {
		nc_ctl_seterr(ctl, "no store: pass one or set NETCOLL_STORE=HOST:PORT");
		return -EINVAL;
	}
	if (!a->size) {
		err = env_u32(rank_vars, &a->rank, &which);
		if (!err)
			err = env_u32(size_vars, &a->size, &which);
		if (err == -ENOENT) {
			nc_ctl_seterr(ctl, "no rank and size: set NETCOLL_RANK and NETCOLL_SIZE");
			return -EINVAL;
		}
		if (err) {
			nc_ctl_seterr(ctl, "%s is not a number", which);
			return err;
		}
	}
	if (!a->size || a->size > NETCOLL_COMM_SIZE_MAX || a->rank >= a->size) {
		nc_ctl_seterr(ctl, "rank %u of %u: the size must be 1..%u and the rank below it",
			      a->rank, a->size, NETCOLL_COMM_SIZE_MAX);
		return -EINVAL;
	}
	if (!a->wait_ms) {
		err = env_u32(wait_vars, &a->wait_ms, &which);
		if (err == -EINVAL || (!err && !a->wait_ms)) {
			nc_ctl_seterr(ctl, "NETCOLL_WAIT_MS is not a positive number");
			return -EINVAL;
		}
		if (err)
			a->wait_ms = WAIT_MS_DEFAULT;
	}
	if (!a->ifname)
		a->ifname = getenv("NETCOLL_DEV");
	if (a->ifname && nc_check_ifname(a->ifname)) {
		nc_ctl_seterr(ctl, "no device name \"%s\"", a->ifname);
		return -EINVAL;
	}
	return 0;
}

/* The device (named, or the only one attached) and its address. */
static int find_device(nc_ctl *ctl, const char *ifname, struct nc_dev_info *dev)
{
	struct nc_dev_info *devs = NULL;
	size_t n = 0;
	int err;

	err = nc_dev_list(ctl, ifname, &devs, &n);
	if (err == -ENODEV || (!err && ifname && n == 0)) {
		nc_ctl_seterr(ctl, "device %s is not attached to netcoll", ifname);
		err = -ENODEV;
	} else if (!err && n != 1) {
		nc_ctl_seterr(ctl, n ? "%zu devices are attached: name one (NETCOLL_DEV)" :
			      "no device is attached to netcoll (nctl dev attach)", n);
		err = -ENODEV;
	} else if (!err) {
		*dev = devs[0];
	}
	free(devs);
	return err;
}

struct boot_ctx {
	nc_ctl *ctl;
	const char *ifname;
	uint32_t mem_max;
	bool transient;
};

static int boot_create(void *arg, const struct nc_boot_plan *p)
{
	const struct boot_ctx *c = arg;
	struct nc_comm_spec spec = {
		.id = p->id, .ifname = c->ifname, .rank = p->rank, .size = p->size,
		.members = p->members, .cookie = p->cookie,
		.timeout_ms = p->timeout_ms, .oso = p->oso,
		.tree_degree = p->tree_degree,
	};

	if (p->key_len) {
		spec.key = p->key;
		spec.key_len = p->key_len;
		spec.flags |= NC_COMM_SPEC_KEY;
	}
	if (c->transient)
		spec.flags |= NC_COMM_SPEC_TRANSIENT;
	return nc_comm_create(c->ctl, &spec);
}

static void boot_destroy(void *arg, const struct nc_boot_plan *p)
{
	const struct boot_ctx *c = arg;

	nc_comm_delete_rank(c->ctl, p->id, p->rank);	/* one rank of a host's */
}

static const char *boot_why(void *arg)
{
	const struct boot_ctx *c = arg;

	return nc_ctl_last_error(c->ctl);
}

int nc_comm_bootstrap(nc_ctl *ctl, const struct nc_bootstrap_args *in,
		      struct nc_bootstrap_result *r)
{
	static const struct nc_bootstrap_args from_env = { 0 };
	struct nc_bootstrap_args a;
	struct nc_dev_info dev;
	struct boot_ctx ctx;
	struct nc_boot_ops ops = { boot_create, boot_destroy, boot_why, &ctx };
	struct nc_boot_self self;
	const char *token;
	char msg[256];
	uint32_t id;
	int err;

	if (!ctl || !r)
		return -EINVAL;
	err = fill_args(ctl, in ? in : &from_env, &a);
	if (err)
		return err;
	if ((a.timeout_ms && nc_check_timeout(a.timeout_ms)) ||
	    (a.oso && a.oso > NETCOLL_OSO_MAX) ||
	    (a.tree_degree && (a.tree_degree < 2 || a.tree_degree > NETCOLL_TREE_DEGREE_MAX)) ||
	    (a.id && nc_check_comm_id(a.id))) {
		nc_ctl_seterr(ctl, "id, timeout, oso or degree out of range");
		return -EINVAL;
	}
	/* set but empty is refused too: the job would run unprotected */
	token = getenv("NETCOLL_STORE_TOKEN");
	if (token && (strlen(token) > NC_BOOT_TOKEN_MAX ||
		      strlen(token) < NC_BOOT_TOKEN_MIN)) {
		nc_ctl_seterr(ctl, "NETCOLL_STORE_TOKEN must have %d to %d bytes",
			      NC_BOOT_TOKEN_MIN, NC_BOOT_TOKEN_MAX);
		return -EINVAL;
	}
	err = find_device(ctl, a.ifname, &dev);
	if (err)
		return err;
	ctx = (struct boot_ctx){
		.ctl = ctl, .ifname = dev.ifname,
		.transient = !!(a.flags & NC_BOOTSTRAP_TRANSIENT),
	};
	self = (struct nc_boot_self){
		.store = a.store, .listen = getenv("NETCOLL_STORE_LISTEN"),
		.rank = a.rank, .size = a.size,
		.addr = dev.addr, .addr_len = dev.addr_len, .wait_ms = a.wait_ms,
		.id = a.id, .auth = !!(a.flags & NC_BOOTSTRAP_AUTH), .token = token,
		.timeout_ms = a.timeout_ms, .oso = a.oso, .tree_degree = a.tree_degree,
	};
	err = nc_boot_run(&self, &ops, &id, msg, sizeof(msg));
	if (err) {
		nc_ctl_seterr(ctl, "%s", msg);
		return err;
	}
	r->id = id;
	r->rank = a.rank;
	r->size = a.size;
	return 0;
}

int nc_open_bootstrap(nc_endpoint **ep, const struct nc_bootstrap_args *in)
{
	struct nc_bootstrap_args a = { 0 };	/* zeros: from the environment */
	struct nc_bootstrap_result r;
	nc_ctl *ctl;
	int err;

	if (!ep)
		return -EINVAL;
	*ep = NULL;
	err = nc_ctl_open(&ctl);
	if (err)
		return err;
	if (in)
		a = *in;
	/* the kernel ends it with the endpoint: a dead process leaves nothing */
	a.flags |= NC_BOOTSTRAP_TRANSIENT;
	err = nc_comm_bootstrap(ctl, &a, &r);
	if (err) {
		/* the reason would die with ctl: keep it where it is seen */
		if (nc_ctl_last_error(ctl) && getenv("NETCOLL_VERBOSE"))
			fprintf(stderr, "netcoll bootstrap: %s\n", nc_ctl_last_error(ctl));
		goto out;
	}
	err = nc_open(ep, NULL);
	if (!err) {
		err = nc_bind(*ep, r.id, r.rank);
		if (err) {
			nc_close(*ep);
			*ep = NULL;
		}
	}
	if (err)
		nc_comm_delete_rank(ctl, r.id, r.rank);
out:
	nc_ctl_close(ctl);
	return err;
}

// SPDX-License-Identifier: BSD-2-Clause
/* nctl dev: attach, detach and list the devices netcoll runs on. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netcoll.h>

#include "nctl.h"

/* "dev IFNAME", or IFNAME alone. */
static const struct opt dev_opts[] = {
	{ "dev", OPT_VAL | OPT_POS | OPT_REQ, "IFNAME" },
	{ NULL }
};

enum { S_DEV, S_USER_COMMS, S_USER_COMMS_MAX, S_USER_MEM };
static const struct opt set_opts[] = {
	[S_DEV] = { "dev", OPT_VAL | OPT_POS | OPT_REQ, "IFNAME" },
	[S_USER_COMMS] = { "user-comms", OPT_VAL, "{ on | off }" },
	[S_USER_COMMS_MAX] = { "user-comms-max", OPT_VAL, "N" },
	[S_USER_MEM] = { "user-mem", OPT_VAL, "BYTES" },
	{ NULL }
};

static const struct opt show_opts[] = {
	{ "dev", OPT_VAL | OPT_POS, "IFNAME" },
	{ NULL }
};

static int dev_attach(int argc, char **argv);
static int dev_detach(int argc, char **argv);
static int dev_show(int argc, char **argv);
static int dev_set(int argc, char **argv);
static int usage(int argc, char **argv);

static const struct cmd cmds[] = {
	{ "attach",	dev_attach,	dev_opts, NULL },
	{ "detach",	dev_detach,	dev_opts, NULL },
	{ "set",	dev_set,	set_opts, NULL },
	{ "show",	dev_show,	show_opts, NULL },
	{ "list",	dev_show,	NULL, NULL },
	{ "help",	usage,		NULL, NULL },
	{ NULL }
};

static int usage(int argc, char **argv)
{
	(void)argc;	/* help takes no further words */
	(void)argv;
	cmd_usage(stdout, "dev", cmds);
	printf("\n"
	       "attach lets netcoll use IFNAME as a bearer (needs CAP_NET_ADMIN);\n"
	       "detach stops it, failing the operations of its communicators.\n"
	       "set (the admin's): with user-comms on, any user may create\n"
	       "communicators it owns on IFNAME, within the module's default\n"
	       "memory limits, at most N (1..%u, default %u) per user on this\n"
	       "host, their memory limits summing to at most BYTES per user.\n",
	       NETCOLL_USER_COMMS_MAX, NETCOLL_USER_COMMS_DEFAULT);
	return NCTL_OK;
}

/* The device named on the command line; NULL when optional and absent. */
static int parse_dev(const struct opt *opts, int argc, char **argv,
		     const char **ifname)
{
	struct optv v[ARRAY_SIZE(dev_opts)];
	int ret = opt_parse(opts, v, argc, argv);

	if (ret)
		return ret;
	*ifname = v[0].val;
	if (*ifname && strlen(*ifname) >= NC_IFNAMSIZ)
		return nctl_usage("device name \"%s\" is too long", *ifname);
	return 0;
}

/* What users may do there; nothing from a module before it. */
static void print_dev_user(nc_ctl *ctl, const struct nc_dev_info *d)
{
	struct nc_dev_user u;

	if (nc_dev_get_user(ctl, d->ifname, &u))
		return;
	print_bool(PRINT_JSON, "user_comms", NULL, u.comms);
	print_text("    users: comms %s", u.comms ? "on" : "off");
	print_uint(PRINT_ANY, "user_comms_max", " max %u", u.comms_max);
	print_uint(PRINT_ANY, "user_mem_max", " mem %u", u.mem_max);
	print_nl();
}

static void print_dev(nc_ctl *ctl, const struct nc_dev_info *d)
{
	char addr[3 * NC_ADDR_MAX];

	nc_format_addr(d->addr, d->addr_len, addr, sizeof(addr));
	open_json_object(NULL);
	print_string(PRINT_ANY, "ifname", "%s:", d->ifname);
	print_uint(PRINT_ANY, "ifindex", " ifindex %u", d->ifindex);
	print_string(PRINT_ANY, "bearer", " bearer %s", d->bearer);
	print_uint(PRINT_ANY, "mtu", " mtu %u", d->mtu);
	print_string(PRINT_ANY, "address", " address %s", addr);
	print_nl();
	print_dev_user(ctl, d);
	close_json_object();
}

static int dev_show(int argc, char **argv)
{
	struct nc_dev_info *devs;
	const char *ifname;
	size_t i, n;
	nc_ctl *ctl;
	int err;

	err = parse_dev(show_opts, argc, argv, &ifname);
	if (err)
		return err;
	if (nctl_open(&ctl))
		return NCTL_ERR;
	err = nc_dev_list(ctl, ifname, &devs, &n);
	if (err) {
		err = ifname ? nctl_lib_fail(ctl, err, "cannot show device %s", ifname)
			     : nctl_lib_fail(ctl, err, "cannot list devices");
		nc_ctl_close(ctl);
		return err;
	}
	open_json_array(NULL);
	for (i = 0; i < n; i++)
		print_dev(ctl, &devs[i]);
	close_json_array();
	free(devs);
	nc_ctl_close(ctl);
	return NCTL_OK;
}

static int dev_set(int argc, char **argv)
{
	struct optv v[ARRAY_SIZE(set_opts)];
	struct nc_dev_user u = { 0 };
	uint32_t fields = 0;
	nc_ctl *ctl;
	int err;

	err = opt_parse(set_opts, v, argc, argv);
	if (err)
		return err;
	if (strlen(v[S_DEV].val) >= NC_IFNAMSIZ)
		return nctl_usage("device name \"%s\" is too long", v[S_DEV].val);
	if (v[S_USER_COMMS].val) {
		if (!strcmp(v[S_USER_COMMS].val, "on"))
			u.comms = 1;
		else if (strcmp(v[S_USER_COMMS].val, "off"))
			return nctl_usage("user-comms is on or off, not \"%s\"",
					  v[S_USER_COMMS].val);
		fields |= NC_DEV_USER_COMMS;
	}
	if (v[S_USER_COMMS_MAX].val) {
		if (nctl_u32(v[S_USER_COMMS_MAX].val, "user-comms-max", &u.comms_max))
			return NCTL_USAGE;
		if (u.comms_max < 1 || u.comms_max > NETCOLL_USER_COMMS_MAX)
			return nctl_usage("user-comms-max must be 1..%u", NETCOLL_USER_COMMS_MAX);
		fields |= NC_DEV_USER_COMMS_MAX;
	}
	if (v[S_USER_MEM].val) {
		if (nctl_u32(v[S_USER_MEM].val, "user-mem", &u.mem_max))
			return NCTL_USAGE;
		fields |= NC_DEV_USER_MEM_MAX;
	}
	if (!fields)
		return nctl_usage("dev set: nothing to set (user-comms, user-comms-max, user-mem)");
	if (nctl_open(&ctl))
		return NCTL_ERR;
	err = nc_dev_set_user(ctl, v[S_DEV].val, &u, fields);
	if (err)
		err = nctl_lib_fail(ctl, err, "cannot set %s", v[S_DEV].val);
	nc_ctl_close(ctl);
	return err ? NCTL_ERR : NCTL_OK;
}

static int dev_change(int argc, char **argv, int attach)
{
	const char *ifname;
	nc_ctl *ctl;
	int err;

	err = parse_dev(dev_opts, argc, argv, &ifname);
	if (err)
		return err;
	if (nctl_open(&ctl))
		return NCTL_ERR;
	err = attach ? nc_dev_attach(ctl, ifname) : nc_dev_detach(ctl, ifname);
	if (err)
		err = nctl_lib_fail(ctl, err, "cannot %s %s",
				    attach ? "attach" : "detach", ifname);
	nc_ctl_close(ctl);
	return err ? NCTL_ERR : NCTL_OK;
}

static int dev_attach(int argc, char **argv)
{
	return dev_change(argc, argv, 1);
}

static int dev_detach(int argc, char **argv)
{
	return dev_change(argc, argv, 0);
}

int do_dev(int argc, char **argv)
{
	return run_cmd("dev", cmds, argc, argv, "show");
}

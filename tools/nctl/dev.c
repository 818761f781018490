// SPDX-License-Identifier: BSD-2-Clause
/* nctl dev: attach, detach and list the devices netcoll runs on. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nctl.h"

static int usage(void)
{
	printf("Usage: nctl dev attach dev IFNAME\n"
	       "       nctl dev detach dev IFNAME\n"
	       "       nctl dev show [ dev IFNAME ]\n"
	       "\n"
	       "attach lets netcoll use IFNAME as a bearer (needs CAP_NET_ADMIN);\n"
	       "detach stops it, failing the operations of its communicators.\n");
	return NCTL_OK;
}

/* "dev IFNAME", or IFNAME alone; NULL ifname when optional and absent. */
static int parse_dev(int argc, char **argv, int required, const char **ifname)
{
	*ifname = NULL;
	if (argc > 0 && strcmp(argv[0], "dev") == 0) {
		if (nctl_next(&argc, &argv, "dev"))
			return NCTL_USAGE;
	}
	if (argc == 0)
		return required ? nctl_usage("device name missing") : 0;
	if (argc > 1)
		return nctl_usage("unexpected argument \"%s\"", argv[1]);
	if (strlen(argv[0]) >= NC_IFNAMSIZ)
		return nctl_usage("device name \"%s\" is too long", argv[0]);
	*ifname = argv[0];
	return 0;
}

static void print_dev(const struct nc_dev_info *d)
{
	char addr[3 * NC_ADDR_MAX];

	nc_format_addr(d->addr, d->addr_len, addr, sizeof(addr));
	if (!nctl_json) {
		printf("%s: ifindex %" PRIu32 " bearer %s mtu %" PRIu32
		       " address %s\n", d->ifname, d->ifindex, d->bearer,
		       d->mtu, addr);
		return;
	}
	printf("{\"ifindex\":%" PRIu32 ",", d->ifindex);
	json_key("ifname");
	json_string(d->ifname);
	putchar(',');
	json_key("bearer");
	json_string(d->bearer);
	printf(",\"mtu\":%" PRIu32 ",", d->mtu);
	json_key("address");
	json_string(addr);
	putchar('}');
}

static int dev_show(nc_ctl *ctl, const char *ifname)
{
	struct nc_dev_info *devs;
	size_t i, n;
	int err;

	err = nc_dev_list(ctl, ifname, &devs, &n);
	if (err)
		return ifname ? nctl_lib_fail(ctl, err, "cannot show device %s", ifname)
			      : nctl_lib_fail(ctl, err, "cannot list devices");
	if (nctl_json)
		putchar('[');
	for (i = 0; i < n; i++) {
		if (nctl_json && i)
			putchar(',');
		print_dev(&devs[i]);
	}
	if (nctl_json)
		puts("]");
	free(devs);
	return NCTL_OK;
}

int do_dev(int argc, char **argv)
{
	const char *verb = "show", *ifname;
	int ret, err, show;
	nc_ctl *ctl;

	if (argc > 0) {
		verb = argv[0];
		argc--;
		argv++;
	}
	if (matches(verb, "help"))
		return usage();
	show = matches(verb, "show") || matches(verb, "list");
	if (!show && !matches(verb, "attach") && !matches(verb, "detach"))
		return nctl_usage("command \"%s\" of dev is unknown", verb);
	ret = parse_dev(argc, argv, !show, &ifname);
	if (ret)
		return ret;
	if (nctl_open(&ctl))
		return NCTL_ERR;
	if (show) {
		ret = dev_show(ctl, ifname);
	} else if (matches(verb, "attach")) {
		err = nc_dev_attach(ctl, ifname);
		ret = err ? nctl_lib_fail(ctl, err, "cannot attach %s", ifname) : NCTL_OK;
	} else {
		err = nc_dev_detach(ctl, ifname);
		ret = err ? nctl_lib_fail(ctl, err, "cannot detach %s", ifname) : NCTL_OK;
	}
	nc_ctl_close(ctl);
	return ret;
}

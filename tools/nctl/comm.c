// SPDX-License-Identifier: BSD-2-Clause
/* nctl comm: create, delete and show communicators. */
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/netcoll.h>

#include "nctl.h"

static int usage(void)
{
	printf("Usage: nctl comm add id ID dev IFNAME rank RANK MEMBERS\n"
	       "                    [ cookie COOKIE ] [ timeout MS ]\n"
	       "                    [ oso N ] [ degree F ] [ mcast ADDR ]\n"
	       "                    [ owner USER ] [ group GROUP ] [ key FILE ]\n"
	       "                    [ mem BYTES ] [ rx-mem BYTES ]\n"
	       "       nctl comm del id ID\n"
	       "       nctl comm show [ id ID ]\n"
	       "MEMBERS := { members ADDR[,ADDR...] | members-file FILE }\n"
	       "\n"
	       "ID is 1..2147483647.  The members are the bearer addresses of all\n"
	       "hosts in rank order, RANK is this host's.  A members file holds the\n"
	       "same list, one address per line or comma separated; '#' starts a\n"
	       "comment, \"-\" reads standard input.  COOKIE (0 = none) must be the\n"
	       "same on every host; MS is the default time budget of an operation.\n"
	       "N (1..%u, default %u) reductions may be outstanding per rank, equal\n"
	       "on every host; F (2..%u, default %u) is the degree of the built-in\n"
	       "reduction trees; ADDR is the group address results are multicast to\n"
	       "(default 03:6e:63 and the low 24 bits of ID).\n"
	       "USER (name or uid, default: you) may bind to the communicator and\n"
	       "change or delete it; members of GROUP (default: your group) may\n"
	       "bind.  FILE holds %u to %u bytes of key, the same on every host:\n"
	       "frames then carry an HMAC-SHA256 tag (\"-\" reads standard input).\n"
	       "BYTES limit the memory operations may allocate (mem) and the\n"
	       "frames held on receive (rx-mem); default: the module parameters\n"
	       "comm_mem_max and rx_queue_max.\n",
	       NETCOLL_OSO_MAX, NETCOLL_OSO_DEFAULT, NETCOLL_TREE_DEGREE_MAX,
	       NETCOLL_TREE_DEGREE_DEFAULT, NC_KEY_MIN, NC_KEY_MAX);
	return NCTL_OK;
}

/* The whole of a file (or stdin for "-"), NUL-terminated. */
static char *read_file(const char *path)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	size_t len = 0, cap = 4096, got;
	char *buf = NULL, *grown;

	if (!f)
		return NULL;
	for (;;) {
		grown = realloc(buf, cap + 1);
		if (!grown) {
			free(buf);
			buf = NULL;
			errno = ENOMEM;
			break;
		}
		buf = grown;
		got = fread(buf + len, 1, cap - len, f);
		len += got;
		if (len < cap) {
			if (ferror(f)) {
				free(buf);
				buf = NULL;
				errno = EIO;
			} else {
				buf[len] = '\0';
			}
			break;
		}
		cap *= 2;
	}
	if (f != stdin)
		fclose(f);
	return buf;
}

/*
 * nc_parse_members() only says that a list is wrong; point at the entry,
 * walking the list by the same rules (separators, '#' comments).
 */
static int member_error(const char *list, const char *file, int err)
{
	const char *in = file ? " in " : "", *src = file ? file : "";
	uint8_t addr[NC_ADDR_MAX];
	const char *p = list;
	int len, first = -1;
	size_t n, idx = 0;
	char tok[128];

	while (*p) {
		if (*p == '#') {
			p += strcspn(p, "\n");
			continue;
		}
		n = strcspn(p, ", \t\r\n#");
		if (n == 0) {
			p++;
			continue;
		}
		snprintf(tok, sizeof(tok), "%.*s", (int)n, p);
		len = nc_parse_addr(tok, addr, sizeof(addr));
		if (len < 0)
			return nctl_fail("member %zu%s%s: invalid address \"%s\"",
					 idx, in, src, tok);
		if (first >= 0 && len != first)
			return nctl_fail("member %zu%s%s: address \"%s\" has %d bytes, member 0 has %d",
					 idx, in, src, tok, len, first);
		first = len;
		idx++;
		p += n;
	}
	if (idx == 0)
		return nctl_fail("member list%s%s is empty", in, src);
	return nctl_fail("invalid member list%s%s: %s", in, src, nc_strerror(err));
}

/* A user or group by name or number. */
static int parse_id_name(const char *arg, int group, uint32_t *id)
{
	struct passwd *pw;
	struct group *gr;

	if (nctl_u32_quiet(arg, id) == 0)
		return 0;
	if (group) {
		gr = getgrnam(arg);
		if (gr) {
			*id = gr->gr_gid;
			return 0;
		}
		return nctl_usage("no group \"%s\"", arg);
	}
	pw = getpwnam(arg);
	if (pw) {
		*id = pw->pw_uid;
		return 0;
	}
	return nctl_usage("no user \"%s\"", arg);
}

/* A key file: its raw bytes, NC_KEY_MIN .. NC_KEY_MAX of them. */
static int read_key(const char *path, uint8_t *key, uint32_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	size_t n;

	if (!f)
		return nctl_fail("cannot read key %s: %s", path, strerror(errno));
	n = fread(key, 1, NC_KEY_MAX + 1, f);
	if (f != stdin)
		fclose(f);
	if (n < NC_KEY_MIN || n > NC_KEY_MAX)
		return nctl_fail("key %s has %zu bytes, not %u..%u", path, n,
				 NC_KEY_MIN, NC_KEY_MAX);
	*len = (uint32_t)n;
	return 0;
}

static int comm_add(int argc, char **argv)
{
	uint8_t key[NC_KEY_MAX + 1];
	struct nc_comm_spec spec = { 0 };
	const char *list = NULL, *file = NULL;
	struct nc_member *members = NULL;
	uint8_t group[NC_ADDR_MAX];
	int have_id = 0, have_rank = 0, ret = NCTL_USAGE, err, glen;
	char *text = NULL;
	size_t n;
	nc_ctl *ctl;

	for (; argc > 0; argc--, argv++) {
		const char *kw = argv[0];

		if (strcmp(kw, "id") == 0) {
			if (nctl_next(&argc, &argv, kw) ||
			    nctl_u32(argv[0], "id", &spec.id))
				goto out;
			have_id = 1;
		} else if (strcmp(kw, "dev") == 0) {
			if (nctl_next(&argc, &argv, kw))
				goto out;
			spec.ifname = argv[0];
		} else if (strcmp(kw, "rank") == 0) {
			if (nctl_next(&argc, &argv, kw) ||
			    nctl_u32(argv[0], "rank", &spec.rank))
				goto out;
			have_rank = 1;
		} else if (strcmp(kw, "members") == 0) {
			if (nctl_next(&argc, &argv, kw))
				goto out;
			list = argv[0];
		} else if (strcmp(kw, "members-file") == 0) {
			if (nctl_next(&argc, &argv, kw))
				goto out;
			file = argv[0];
		} else if (strcmp(kw, "cookie") == 0) {
			if (nctl_next(&argc, &argv, kw) ||
			    nctl_u64(argv[0], "cookie", &spec.cookie))
				goto out;
		} else if (strcmp(kw, "timeout") == 0) {
			if (nctl_next(&argc, &argv, kw) ||
			    nctl_u32(argv[0], "timeout", &spec.timeout_ms))
				goto out;
		} else if (strcmp(kw, "oso") == 0) {
			if (nctl_next(&argc, &argv, kw) ||
			    nctl_u32(argv[0], "oso", &spec.oso))
				goto out;
			if (spec.oso < 1 || spec.oso > NETCOLL_OSO_MAX) {
				ret = nctl_usage("oso must be 1..%u", NETCOLL_OSO_MAX);
				goto out;
			}
		} else if (strcmp(kw, "degree") == 0) {
			if (nctl_next(&argc, &argv, kw) ||
			    nctl_u32(argv[0], "degree", &spec.tree_degree))
				goto out;
			if (spec.tree_degree < 2 ||
			    spec.tree_degree > NETCOLL_TREE_DEGREE_MAX) {
				ret = nctl_usage("degree must be 2..%u",
						 NETCOLL_TREE_DEGREE_MAX);
				goto out;
			}
		} else if (strcmp(kw, "mcast") == 0) {
			if (nctl_next(&argc, &argv, kw))
				goto out;
			glen = nc_parse_addr(argv[0], group, sizeof(group));
			if (glen < 0) {
				ret = nctl_usage("invalid multicast address \"%s\"",
						 argv[0]);
				goto out;
			}
			spec.mcast_addr = group;
			spec.mcast_addr_len = (uint32_t)glen;
		} else if (strcmp(kw, "owner") == 0) {
			if (nctl_next(&argc, &argv, kw) ||
			    parse_id_name(argv[0], 0, &spec.owner))
				goto out;
			spec.flags |= NC_COMM_SPEC_OWNER;
		} else if (strcmp(kw, "group") == 0) {
			if (nctl_next(&argc, &argv, kw) ||
			    parse_id_name(argv[0], 1, &spec.group))
				goto out;
			spec.flags |= NC_COMM_SPEC_GROUP;
		} else if (strcmp(kw, "key") == 0) {
			if (nctl_next(&argc, &argv, kw))
				goto out;
			if (read_key(argv[0], key, &spec.key_len)) {
				ret = NCTL_ERR;
				goto out;
			}
			spec.key = key;
			spec.flags |= NC_COMM_SPEC_KEY;
		} else if (strcmp(kw, "mem") == 0) {
			if (nctl_next(&argc, &argv, kw) ||
			    nctl_u32(argv[0], "mem", &spec.mem_max))
				goto out;
			spec.flags |= NC_COMM_SPEC_MEM;
		} else if (strcmp(kw, "rx-mem") == 0) {
			if (nctl_next(&argc, &argv, kw) ||
			    nctl_u32(argv[0], "rx-mem", &spec.rx_mem_max))
				goto out;
			spec.flags |= NC_COMM_SPEC_RX_MEM;
		} else {
			ret = nctl_usage("comm add: unexpected argument \"%s\"", kw);
			goto out;
		}
	}
	if (!have_id || !spec.ifname || !have_rank || (!list == !file)) {
		ret = nctl_usage("comm add needs id, dev, rank and one of members, members-file");
		goto out;
	}
	if (file) {
		text = read_file(file);
		if (!text) {
			ret = nctl_fail("cannot read %s: %s", file, strerror(errno));
			goto out;
		}
		list = text;
	}
	err = nc_parse_members(list, &members, &n);
	if (err < 0) {
		ret = member_error(list, file, err);
		goto out;
	}
	if (spec.id == 0 || spec.id > NETCOLL_COMM_ID_MAX) {
		ret = nctl_usage("id must be 1..%u", NETCOLL_COMM_ID_MAX);
		goto out;
	}
	if (spec.timeout_ms && (spec.timeout_ms < NETCOLL_TIMEOUT_MS_MIN ||
				spec.timeout_ms > NETCOLL_TIMEOUT_MS_MAX)) {
		ret = nctl_usage("timeout must be %u..%u ms", NETCOLL_TIMEOUT_MS_MIN,
				 NETCOLL_TIMEOUT_MS_MAX);
		goto out;
	}
	if (strlen(spec.ifname) >= NC_IFNAMSIZ) {
		ret = nctl_usage("device name \"%s\" is too long", spec.ifname);
		goto out;
	}
	if (spec.rank >= n) {
		ret = nctl_fail("rank %" PRIu32 " is not below the member count %zu",
				spec.rank, n);
		goto out;
	}
	if (spec.mcast_addr && spec.mcast_addr_len != members[0].addr_len) {
		ret = nctl_fail("multicast address has %" PRIu32 " bytes, members have %" PRIu32,
				spec.mcast_addr_len, members[0].addr_len);
		goto out;
	}
	spec.members = members;
	spec.size = (uint32_t)n;
	ret = NCTL_ERR;
	if (nctl_open(&ctl))
		goto out;
	err = nc_comm_create(ctl, &spec);
	ret = err ? nctl_lib_fail(ctl, err, "cannot add communicator %" PRIu32,
				  spec.id) : NCTL_OK;
	nc_ctl_close(ctl);
out:
	memset(key, 0, sizeof(key));
	free(members);
	free(text);
	return ret;
}

/* "id ID" as the only arguments; optional for show. */
static int parse_id(int argc, char **argv, int required, uint32_t *id)
{
	*id = 0;
	if (argc == 0)
		return required ? nctl_usage("communicator id missing") : 0;
	if (strcmp(argv[0], "id") == 0 && nctl_next(&argc, &argv, "id"))
		return NCTL_USAGE;
	if (argc > 1)
		return nctl_usage("unexpected argument \"%s\"", argv[1]);
	return nctl_u32(argv[0], "id", id);
}

static int comm_del(int argc, char **argv)
{
	uint32_t id;
	nc_ctl *ctl;
	int err, ret;

	ret = parse_id(argc, argv, 1, &id);
	if (ret)
		return ret;
	if (nctl_open(&ctl))
		return NCTL_ERR;
	err = nc_comm_delete(ctl, id);
	ret = err ? nctl_lib_fail(ctl, err, "cannot delete communicator %" PRIu32, id)
		  : NCTL_OK;
	nc_ctl_close(ctl);
	return ret;
}

static const char *const comm_states[] = {
	[NC_COMM_JOINING] = "joining",
	[NC_COMM_READY] = "ready",
	[NC_COMM_BROKEN] = "broken",
	[NC_COMM_DEAD] = "dead",
};

static const char *comm_state(enum nc_comm_state s)
{
	return (unsigned int)s < sizeof(comm_states) / sizeof(comm_states[0]) ?
	       comm_states[s] : "unknown";
}

static void print_comm_text(const struct nc_comm_info *c)
{
	char ifname[NC_IFNAMSIZ + 8], addr[3 * NC_ADDR_MAX];
	uint32_t r;

	printf("comm %" PRIu32 " dev %s rank %" PRIu32 " size %" PRIu32,
	       c->id, nctl_ifname(c->ifindex, ifname), c->rank, c->size);
	if (c->secrets)
		printf(" cookie 0x%" PRIx64, c->cookie);
	printf(" timeout %" PRIu32 " op_seq %" PRIu32 " %s%s\n",
	       c->timeout_ms, c->op_seq, comm_state(c->state),
	       c->bound ? " bound" : "");
	printf("    owner %" PRIu32, c->owner);
	if (c->group >= 0)
		printf(" group %" PRId64, c->group);
	printf(" auth %s mem %" PRIu32 " rx-mem %" PRIu32,
	       c->auth ? "hmac-sha256" : "none", c->mem_max, c->rx_mem_max);
	if (c->secrets)
		printf(" epoch 0x%016" PRIx64, c->epoch);
	putchar('\n');
	if (c->sched_phases)
		printf("    alltoall schedule: %" PRIu32 " phases, %" PRIu32
		       " tokens sent per alltoall\n", c->sched_phases, c->sched_syncs);
	else
		printf("    alltoall schedule: linear\n");
	/* a module without aggregation trees reports none of these */
	if (c->oso || c->tree_degree || c->mcast_addr_len)
		printf("    reductions: oso %" PRIu32 " degree %" PRIu32
		       " agg_seq %" PRIu32 " mcast %s\n",
		       c->oso, c->tree_degree, c->agg_seq,
		       c->mcast_addr_len ? nc_format_addr(c->mcast_addr,
							  c->mcast_addr_len, addr,
							  sizeof(addr)) : "-");
	for (r = 0; c->members && r < c->size; r++)
		printf("    %5" PRIu32 " %s%s\n", r,
		       nc_format_addr(c->members[r].addr, c->members[r].addr_len,
				      addr, sizeof(addr)),
		       r == c->rank ? " (this host)" : "");
}

static void print_comm_json(const struct nc_comm_info *c)
{
	char ifname[NC_IFNAMSIZ + 8], addr[3 * NC_ADDR_MAX];
	uint32_t r;

	printf("{\"id\":%" PRIu32 ",", c->id);
	json_key("dev");
	json_string(nctl_ifname(c->ifindex, ifname));
	printf(",\"ifindex\":%" PRIu32 ",\"rank\":%" PRIu32 ",\"size\":%" PRIu32,
	       c->ifindex, c->rank, c->size);
	if (c->secrets)
		printf(",\"cookie\":%" PRIu64 ",\"epoch\":%" PRIu64, c->cookie,
		       c->epoch);
	printf(",\"timeout_ms\":%" PRIu32
	       ",\"op_seq\":%" PRIu32 ",\"bound\":%s"
	       ",\"sched_phases\":%" PRIu32 ",\"sched_syncs\":%" PRIu32,
	       c->timeout_ms, c->op_seq, c->bound ? "true" : "false",
	       c->sched_phases, c->sched_syncs);
	printf(",\"state\":\"%s\",\"owner\":%" PRIu32, comm_state(c->state),
	       c->owner);
	if (c->group >= 0)
		printf(",\"group\":%" PRId64, c->group);
	printf(",\"auth\":%s,\"mem_max\":%" PRIu32 ",\"rx_mem_max\":%" PRIu32,
	       c->auth ? "true" : "false", c->mem_max, c->rx_mem_max);
	printf(",\"oso\":%" PRIu32 ",\"tree_degree\":%" PRIu32
	       ",\"agg_seq\":%" PRIu32, c->oso, c->tree_degree, c->agg_seq);
	if (c->mcast_addr_len) {
		putchar(',');
		json_key("mcast");
		json_string(nc_format_addr(c->mcast_addr, c->mcast_addr_len,
					   addr, sizeof(addr)));
	}
	if (c->members) {
		fputs(",\"members\":[", stdout);
		for (r = 0; r < c->size; r++) {
			printf("%s{\"rank\":%" PRIu32 ",", r ? "," : "", r);
			json_key("address");
			json_string(nc_format_addr(c->members[r].addr,
						   c->members[r].addr_len,
						   addr, sizeof(addr)));
			putchar('}');
		}
		putchar(']');
	}
	putchar('}');
}

static int comm_show(int argc, char **argv)
{
	struct nc_comm_info one, *comms = &one;
	size_t i, n = 1;
	uint32_t id;
	nc_ctl *ctl;
	int err, ret;

	ret = parse_id(argc, argv, 0, &id);
	if (ret)
		return ret;
	if (nctl_open(&ctl))
		return NCTL_ERR;
	/* One communicator comes with its members, a list without. */
	err = id ? nc_comm_get(ctl, id, &one) : nc_comm_list(ctl, &comms, &n);
	if (err) {
		ret = id ? nctl_lib_fail(ctl, err, "cannot show communicator %" PRIu32, id)
			 : nctl_lib_fail(ctl, err, "cannot list communicators");
		nc_ctl_close(ctl);
		return ret;
	}
	if (nctl_json)
		putchar('[');
	for (i = 0; i < n; i++) {
		if (nctl_json) {
			if (i)
				putchar(',');
			print_comm_json(&comms[i]);
		} else {
			print_comm_text(&comms[i]);
		}
	}
	if (nctl_json)
		puts("]");
	if (id)
		nc_comm_info_free(&one);
	else
		free(comms);
	nc_ctl_close(ctl);
	return NCTL_OK;
}

int do_comm(int argc, char **argv)
{
	const char *verb;

	if (argc == 0)
		return comm_show(0, argv);
	verb = argv[0];
	argc--;
	argv++;
	if (matches(verb, "add"))
		return comm_add(argc, argv);
	if (matches(verb, "delete"))
		return comm_del(argc, argv);
	if (matches(verb, "show") || matches(verb, "list"))
		return comm_show(argc, argv);
	if (matches(verb, "help"))
		return usage();
	return nctl_usage("command \"%s\" of comm is unknown", verb);
}

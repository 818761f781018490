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

enum {
	A_ID, A_DEV, A_RANK, A_MEMBERS, A_MEMBERS_FILE, A_COOKIE, A_TIMEOUT,
	A_OSO, A_DEGREE, A_MCAST, A_OWNER, A_GROUP, A_KEY, A_MEM, A_RX_MEM,
	A_BOOTSTRAP, A_SIZE, A_WAIT, A_AUTH, A_TRANSIENT,
};

static const struct opt add_opts[] = {
	/* required unless bootstrapping (checked in comm_add) */
	[A_ID] = { "id", OPT_VAL, "ID" },
	[A_DEV] = { "dev", OPT_VAL, "IFNAME" },
	[A_RANK] = { "rank", OPT_VAL, "RANK" },
	[A_MEMBERS] = { "members", OPT_VAL, "ADDR[,ADDR...]" },
	[A_MEMBERS_FILE] = { "members-file", OPT_VAL, "FILE" },
	[A_COOKIE] = { "cookie", OPT_VAL, "COOKIE" },
	[A_TIMEOUT] = { "timeout", OPT_VAL, "MS" },
	[A_OSO] = { "oso", OPT_VAL, "N" },
	[A_DEGREE] = { "degree", OPT_VAL, "F" },
	[A_MCAST] = { "mcast", OPT_VAL, "ADDR" },
	[A_OWNER] = { "owner", OPT_VAL, "USER" },
	[A_GROUP] = { "group", OPT_VAL, "GROUP" },
	[A_KEY] = { "key", OPT_VAL, "FILE" },
	[A_MEM] = { "mem", OPT_VAL, "BYTES" },
	[A_RX_MEM] = { "rx-mem", OPT_VAL, "BYTES" },
	[A_BOOTSTRAP] = { "bootstrap", OPT_VAL, "HOST:PORT" },
	[A_SIZE] = { "size", OPT_VAL, "N" },
	[A_WAIT] = { "wait", OPT_VAL, "MS" },
	[A_AUTH] = { "auth", 0, NULL },
	[A_TRANSIENT] = { "transient", 0, NULL },
	{ NULL }
};

/*
 * "id ID", or ID alone; "rank R" picks one of the ranks this host has of
 * it (needed when it has several).
 */
static const struct opt del_opts[] = {
	{ "id", OPT_VAL | OPT_POS | OPT_REQ, "ID" },
	{ "rank", OPT_VAL, "RANK" },
	{ NULL }
};

static const struct opt show_opts[] = {
	{ "id", OPT_VAL | OPT_POS, "ID" },
	{ "rank", OPT_VAL, "RANK" },
	{ NULL }
};

static int comm_add(int argc, char **argv);
static int comm_del(int argc, char **argv);
static int comm_show(int argc, char **argv);
static int usage(int argc, char **argv);

static const struct cmd cmds[] = {
	{ "add",	comm_add,	NULL,
	  "add id ID dev IFNAME rank RANK MEMBERS\n"
	  "                    [ cookie COOKIE ] [ timeout MS ]\n"
	  "                    [ oso N ] [ degree F ] [ mcast ADDR ]\n"
	  "                    [ owner USER ] [ group GROUP ] [ key FILE ]\n"
	  "                    [ mem BYTES ] [ rx-mem BYTES ] [ transient ]\n"
	  "       nctl comm add bootstrap HOST:PORT [ rank RANK size N ] [ dev IFNAME ]\n"
	  "                    [ id ID ] [ wait MS ] [ auth ]\n"
	  "                    [ timeout MS ] [ oso N ] [ degree F ]" },
	{ "del",	comm_del,	del_opts, NULL },
	{ "delete",	comm_del,	NULL, NULL },
	{ "show",	comm_show,	show_opts, NULL },
	{ "list",	comm_show,	NULL, NULL },
	{ "help",	usage,		NULL, NULL },
	{ NULL }
};

static int usage(int argc, char **argv)
{
	(void)argc;	/* help takes no further words */
	(void)argv;
	cmd_usage(stdout, "comm", cmds);
	printf("MEMBERS := { members ADDR[,ADDR...] | members-file FILE }\n"
	       "\n"
	       "ID is 1..2147483647.  The members are the bearer addresses of all\n"
	       "ranks in rank order (ranks on one host share its address), RANK is\n"
	       "the one made here.  A members file holds the\n"
	       "same list, one address per line or comma separated; '#' starts a\n"
	       "comment, \"-\" reads standard input.  COOKIE (0 = none) must be the\n"
	       "same on every host; MS is the default time budget of an operation.\n"
	       "N (1..%u, default %u) reductions may be outstanding per rank, equal\n"
	       "on every host; F (2..%u, default %u) is the degree of the built-in\n"
	       "reduction trees; ADDR is the group address results are multicast to\n"
	       "(default 03:6e:63 and the low 24 bits of ID).\n"
	       "USER (name or uid, default: you) may bind to the communicator and\n"
	       "change or delete it; members of GROUP (default: none) may\n"
	       "bind.  FILE holds %u to %u bytes of key, the same on every host:\n"
	       "frames then carry an HMAC-SHA256 tag (\"-\" reads standard input).\n"
	       "BYTES limit the memory operations may allocate (mem) and the\n"
	       "frames held on receive (rx-mem); default: the module parameters\n"
	       "comm_mem_max and rx_queue_max.  transient: deleted on this host\n"
	       "when the endpoint its owner (or an admin) bound to it closes.\n"
	       "\n"
	       "bootstrap: no member list; every rank runs the same command and\n"
	       "they meet over TCP at HOST:PORT, where rank 0 listens.  Rank 0 hands\n"
	       "out the members, a fresh cookie, the id (default: a random unused\n"
	       "one) and with auth a fresh key; its timeout, oso and degree count\n"
	       "for all.  RANK and N default to NETCOLL_RANK and NETCOLL_SIZE (or\n"
	       "the launcher's: OMPI_COMM_WORLD_*, PMI_*, SLURM_*); IFNAME to\n"
	       "NETCOLL_DEV, else the only attached device; MS (default 60000) is\n"
	       "how long to wait for every rank.  Prints the communicator made.\n",
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

/* A u32 option's value, if given; 0 or the usage error. */
static int opt_u32(const struct optv *v, const char *what, uint32_t *x)
{
	return v->val ? nctl_u32(v->val, what, x) : 0;
}

/* comm add bootstrap HOST:PORT ...: rank 0 hands out the rest. */
static int comm_bootstrap(const struct optv *v)
{
	static const int handed_out[] = {
		A_MEMBERS, A_MEMBERS_FILE, A_COOKIE, A_MCAST, A_KEY,
		A_OWNER, A_GROUP, A_MEM, A_RX_MEM,
	};
	struct nc_bootstrap_args a = { .store = v[A_BOOTSTRAP].val };
	struct nc_bootstrap_result r;
	size_t i;
	nc_ctl *ctl;
	int err;

	for (i = 0; i < ARRAY_SIZE(handed_out); i++)
		if (v[handed_out[i]].val)
			return nctl_usage("comm add bootstrap: %s is not for bootstrap (rank 0 hands out members, cookie and key; the rest are defaults)",
					  add_opts[handed_out[i]].name);
	if (!v[A_RANK].val != !v[A_SIZE].val)
		return nctl_usage("comm add bootstrap: rank and size go together (or both from the environment)");
	if ((v[A_RANK].val && (nctl_u32(v[A_RANK].val, "rank", &a.rank) ||
			       nctl_u32(v[A_SIZE].val, "size", &a.size))) ||
	    (v[A_ID].val && nctl_u32(v[A_ID].val, "id", &a.id)) ||
	    opt_u32(&v[A_WAIT], "wait", &a.wait_ms) ||
	    opt_u32(&v[A_TIMEOUT], "timeout", &a.timeout_ms) ||
	    opt_u32(&v[A_OSO], "oso", &a.oso) ||
	    opt_u32(&v[A_DEGREE], "degree", &a.tree_degree))
		return NCTL_USAGE;
	if (v[A_SIZE].val && a.size == 0)
		return nctl_usage("size must be 1..%u", NETCOLL_COMM_SIZE_MAX);
	a.ifname = v[A_DEV].val;
	if (v[A_AUTH].val)
		a.flags |= NC_BOOTSTRAP_AUTH;
	if (nctl_open(&ctl))
		return NCTL_ERR;
	err = nc_comm_bootstrap(ctl, &a, &r);
	if (err) {
		nctl_lib_fail(ctl, err, "bootstrap at %s failed", a.store);
		nc_ctl_close(ctl);
		return NCTL_ERR;
	}
	nc_ctl_close(ctl);
	open_json_object(NULL);
	print_uint(PRINT_ANY, "id", "comm %u", r.id);
	print_uint(PRINT_ANY, "rank", " rank %u", r.rank);
	print_uint(PRINT_ANY, "size", " size %u", r.size);
	close_json_object();
	print_nl();
	return NCTL_OK;
}

static int comm_add(int argc, char **argv)
{
	uint8_t key[NC_KEY_MAX + 1];
	struct optv v[ARRAY_SIZE(add_opts)];
	struct nc_comm_spec spec = { 0 };
	const char *list, *file;
	struct nc_member *members = NULL;
	uint8_t group[NC_ADDR_MAX];
	int ret = NCTL_USAGE, err, glen;
	char *text = NULL;
	size_t n;
	nc_ctl *ctl;

	ret = opt_parse(add_opts, v, argc, argv);
	if (ret)
		return ret;
	if (v[A_BOOTSTRAP].val)
		return comm_bootstrap(v);
	if (v[A_SIZE].val || v[A_WAIT].val || v[A_AUTH].val)
		return nctl_usage("comm add: size, wait and auth go with bootstrap");
	if (!v[A_ID].val || !v[A_DEV].val || !v[A_RANK].val)
		return nctl_usage("comm add needs id ID, dev IFNAME and rank RANK (or bootstrap HOST:PORT)");
	ret = NCTL_USAGE;
	list = v[A_MEMBERS].val;
	file = v[A_MEMBERS_FILE].val;
	if (!list && !file)
		return nctl_usage("comm add needs members ADDR[,ADDR...] or members-file FILE");
	if (list && file)
		return nctl_usage("comm add: members and members-file exclude each other");
	spec.ifname = v[A_DEV].val;
	if (nctl_u32(v[A_ID].val, "id", &spec.id) ||
	    nctl_u32(v[A_RANK].val, "rank", &spec.rank) ||
	    (v[A_COOKIE].val && nctl_u64(v[A_COOKIE].val, "cookie", &spec.cookie)) ||
	    opt_u32(&v[A_TIMEOUT], "timeout", &spec.timeout_ms) ||
	    opt_u32(&v[A_OSO], "oso", &spec.oso) ||
	    opt_u32(&v[A_DEGREE], "degree", &spec.tree_degree) ||
	    opt_u32(&v[A_MEM], "mem", &spec.mem_max) ||
	    opt_u32(&v[A_RX_MEM], "rx-mem", &spec.rx_mem_max))
		return NCTL_USAGE;
	if (v[A_OSO].val && (spec.oso < 1 || spec.oso > NETCOLL_OSO_MAX))
		return nctl_usage("oso must be 1..%u", NETCOLL_OSO_MAX);
	if (v[A_DEGREE].val && (spec.tree_degree < 2 ||
				spec.tree_degree > NETCOLL_TREE_DEGREE_MAX))
		return nctl_usage("degree must be 2..%u", NETCOLL_TREE_DEGREE_MAX);
	if (v[A_MCAST].val) {
		glen = nc_parse_addr(v[A_MCAST].val, group, sizeof(group));
		if (glen < 0)
			return nctl_usage("invalid multicast address \"%s\"",
					  v[A_MCAST].val);
		spec.mcast_addr = group;
		spec.mcast_addr_len = (uint32_t)glen;
	}
	if (v[A_OWNER].val) {
		if (parse_id_name(v[A_OWNER].val, 0, &spec.owner))
			return NCTL_USAGE;
		spec.flags |= NC_COMM_SPEC_OWNER;
	}
	if (v[A_GROUP].val) {
		if (parse_id_name(v[A_GROUP].val, 1, &spec.group))
			return NCTL_USAGE;
		spec.flags |= NC_COMM_SPEC_GROUP;
	}
	if (v[A_MEM].val)
		spec.flags |= NC_COMM_SPEC_MEM;
	if (v[A_RX_MEM].val)
		spec.flags |= NC_COMM_SPEC_RX_MEM;
	if (v[A_TRANSIENT].val)
		spec.flags |= NC_COMM_SPEC_TRANSIENT;
	if (v[A_KEY].val) {
		if (read_key(v[A_KEY].val, key, &spec.key_len)) {
			ret = NCTL_ERR;
			goto out;
		}
		spec.key = key;
		spec.flags |= NC_COMM_SPEC_KEY;
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

/*
 * The id named on the command line (0 when optional and absent) and the
 * rank (NC_RANK_NONE when absent).
 */
static int parse_id(const struct opt *opts, int argc, char **argv, uint32_t *id,
		    uint32_t *rank)
{
	struct optv v[ARRAY_SIZE(del_opts)];
	int ret = opt_parse(opts, v, argc, argv);

	*id = 0;
	*rank = NC_RANK_NONE;
	if (ret)
		return ret;
	if (v[1].val && !v[0].val)
		return nctl_usage("rank names one rank of communicator ID: give the id");
	return (v[0].val && nctl_u32(v[0].val, "id", id)) ||
	       (v[1].val && nctl_u32(v[1].val, "rank", rank)) ? NCTL_USAGE : 0;
}

static int comm_del(int argc, char **argv)
{
	uint32_t id, rank;
	nc_ctl *ctl;
	int err, ret;

	ret = parse_id(del_opts, argc, argv, &id, &rank);
	if (ret)
		return ret;
	if (nctl_open(&ctl))
		return NCTL_ERR;
	nc_ctl_set_rank(ctl, rank);
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

/* One engine's round-trip estimate: " NAME srtt X us rttvar Y us rto Z us". */
static void print_rtt(const char *key, const char *name, const struct nc_rtt *r)
{
	open_json_object(key);
	print_text(" %s", name);
	print_uint(PRINT_ANY, "srtt_us", " srtt %u us", r->srtt_us);
	print_uint(PRINT_ANY, "rttvar_us", " rttvar %u us", r->rttvar_us);
	print_uint(PRINT_ANY, "rto_us", " rto %u us", r->rto_us);
	close_json_object();
}

/*
 * Text: a line of identity and state, one of rights and limits, one for
 * each of alltoall and reductions, one of round trips (rtt: the
 * alltoall's and the reductions' estimates; NULL in lists: none), one per
 * member.  JSON: one object.
 */
static void print_comm(const struct nc_comm_info *c, const struct nc_rtt *rtt,
		       const struct nc_comm_mem *mem)
{
	char ifname[NC_IFNAMSIZ + 8], addr[3 * NC_ADDR_MAX];
	uint32_t r;

	open_json_object(NULL);
	print_uint(PRINT_ANY, "id", "comm %u", c->id);
	print_string(PRINT_ANY, "dev", " dev %s", nctl_ifname(c->ifindex, ifname));
	print_uint(PRINT_JSON, "ifindex", NULL, c->ifindex);
	print_uint(PRINT_ANY, "rank", " rank %u", c->rank);
	print_uint(PRINT_ANY, "size", " size %u", c->size);
	if (c->secrets)
		print_u64(PRINT_ANY, "cookie", " cookie 0x%" PRIx64, c->cookie);
	print_uint(PRINT_ANY, "timeout_ms", " timeout %u", c->timeout_ms);
	print_uint(PRINT_ANY, "op_seq", " op_seq %u", c->op_seq);
	print_string(PRINT_ANY, "state", " %s", comm_state(c->state));
	print_bool(PRINT_JSON, "bound", NULL, c->bound);
	if (c->bound)
		print_text(" bound");
	print_nl();

	if (c->owner != NC_OWNER_NONE)
		print_uint(PRINT_ANY, "owner", "    owner %u", c->owner);
	else
		print_text("    owner none");
	if (c->group >= 0)
		print_s64(PRINT_ANY, "group", " group %" PRId64, c->group);
	print_bool(PRINT_JSON, "auth", NULL, c->auth);
	print_text(" auth %s", c->auth ? "hmac-sha256" : "none");
	print_uint(PRINT_ANY, "mem_max", " mem %u", c->mem_max);
	print_uint(PRINT_ANY, "rx_mem_max", " rx-mem %u", c->rx_mem_max);
	if (c->secrets)
		print_u64(PRINT_ANY, "epoch", " epoch 0x%016" PRIx64, c->epoch);
	print_nl();

	print_uint(PRINT_JSON, "sched_phases", NULL, c->sched_phases);
	print_uint(PRINT_JSON, "sched_syncs", NULL, c->sched_syncs);
	if (c->sched_phases)
		print_text("    alltoall schedule: %u phases, %u tokens sent per alltoall\n",
			   c->sched_phases, c->sched_syncs);
	else
		print_text("    alltoall schedule: none installed (ring order)\n");

	/* a module without aggregation trees reports none of these */
	if (c->oso || c->tree_degree || c->mcast_addr_len) {
		print_uint(PRINT_ANY, "oso", "    reductions: oso %u", c->oso);
		print_uint(PRINT_ANY, "tree_degree", " degree %u", c->tree_degree);
		print_uint(PRINT_ANY, "agg_seq", " agg_seq %u", c->agg_seq);
		if (c->mcast_addr_len)
			print_string(PRINT_ANY, "mcast", " mcast %s",
				     nc_format_addr(c->mcast_addr, c->mcast_addr_len,
						    addr, sizeof(addr)));
		else
			print_text(" mcast -");
		print_nl();
	} else {
		print_uint(PRINT_JSON, "oso", NULL, c->oso);
		print_uint(PRINT_JSON, "tree_degree", NULL, c->tree_degree);
		print_uint(PRINT_JSON, "agg_seq", NULL, c->agg_seq);
	}

	if (rtt) {
		print_text("    round trips:");
		print_rtt("rtt_alltoall", "alltoall", &rtt[0]);
		print_text(";");
		print_rtt("rtt_agg", "reductions", &rtt[1]);
		print_nl();
	}

	if (mem) {
		print_u64(PRINT_ANY, "mem_used", "    memory in use: posted %" PRIu64,
			  mem->mem_used);
		print_u64(PRINT_ANY, "rx_mem_used", " received %" PRIu64,
			  mem->rx_mem_used);
		print_uint(PRINT_ANY, "installed", " installed %u", mem->installed);
		print_nl();
	}

	if (c->members) {
		open_json_array("members");
		for (r = 0; r < c->size; r++) {
			open_json_object(NULL);
			print_uint(PRINT_ANY, "rank", "    %5u", r);
			print_string(PRINT_ANY, "address", " %s",
				     nc_format_addr(c->members[r].addr,
						    c->members[r].addr_len,
						    addr, sizeof(addr)));
			if (r == c->rank)
				print_text(" (this host)");
			print_nl();
			close_json_object();
		}
		close_json_array();
	}
	close_json_object();
}

static int comm_show(int argc, char **argv)
{
	struct nc_comm_info one, *comms = &one;
	struct nc_rtt rtt[2];
	struct nc_comm_mem mem;
	bool have_rtt = false, have_mem = false;
	size_t i, n = 1;
	uint32_t id, rank;
	nc_ctl *ctl;
	int err, ret;

	ret = parse_id(show_opts, argc, argv, &id, &rank);
	if (ret)
		return ret;
	if (nctl_open(&ctl))
		return NCTL_ERR;
	nc_ctl_set_rank(ctl, rank);
	/* One communicator comes with its members, a list without. */
	err = id ? nc_comm_get(ctl, id, &one) : nc_comm_list(ctl, &comms, &n);
	if (err) {
		ret = id ? nctl_lib_fail(ctl, err, "cannot show communicator %" PRIu32, id)
			 : nctl_lib_fail(ctl, err, "cannot list communicators");
		nc_ctl_close(ctl);
		return ret;
	}
	/* timing is an extra: a module without it shows the rest */
	if (id) {
		have_rtt = !nc_comm_get_rtt(ctl, id, &rtt[0], &rtt[1]);
		have_mem = !nc_comm_get_mem(ctl, id, &mem);
	}
	open_json_array(NULL);
	for (i = 0; i < n; i++)
		print_comm(&comms[i], have_rtt ? rtt : NULL,
			   have_mem ? &mem : NULL);
	close_json_array();
	if (id)
		nc_comm_info_free(&one);
	else
		free(comms);
	nc_ctl_close(ctl);
	return NCTL_OK;
}

int do_comm(int argc, char **argv)
{
	return run_cmd("comm", cmds, argc, argv, "show");
}

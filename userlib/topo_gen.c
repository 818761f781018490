// SPDX-License-Identifier: BSD-2-Clause
/*
 * Topology generators: a star, a chain of switches (Faraj & Yuan's
 * Figure 5(c)), random trees, the ideal fat tree FT(L; M1..ML) and the
 * extended generalized fat tree XGFT(h; m1..mh; w1..wh) (Prisacari et al.,
 * after Ohring et al.), and the "kind:params[@rate]" specs naming them.
 *
 * Names follow cluster.sh's generators: hosts h1..hN (rank + 1), switches
 * s0, s1, ...; fat-tree switches are s<level>_<index>.  Every link is
 * created as (a = lower node, b = upper node): host to switch, child to
 * parent.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo.h"

/* Fat trees bigger than this are a mistake in the parameters. */
#define GEN_NODES_MAX	(1u << 22)

static int add_switch(struct nc_topo *t, const char *fmt, uint32_t x, uint32_t y)
{
	char name[NC_TOPO_NAME_MAX];

	snprintf(name, sizeof(name), fmt, x, y);
	return nc_topo_add_switch(t, name);
}

static int add_host(struct nc_topo *t, uint32_t rank)
{
	char name[NC_TOPO_NAME_MAX];

	snprintf(name, sizeof(name), "h%u", rank + 1);
	return nc_topo_add_host(t, name);
}

/* Ends a generator: finish what was built, or leave t empty. */
static int done(struct nc_topo *t, int ret)
{
	if (ret >= 0)
		ret = nc_topo_finish(t, NULL);
	if (ret < 0)
		nc_topo_free(t);
	return ret < 0 ? ret : 0;
}

int nc_topo_gen_star(struct nc_topo *t, uint32_t nhosts, double rate_mbit)
{
	uint32_t i;
	int s, h, ret;

	if (!t)
		return -EINVAL;
	nc_topo_init(t);
	if (nhosts == 0 || nhosts > NC_TOPO_HOSTS_MAX)
		return -EINVAL;
	ret = s = nc_topo_add_switch(t, "s0");
	for (i = 0; i < nhosts && ret >= 0; i++) {
		ret = h = add_host(t, i);
		if (h >= 0)
			ret = nc_topo_add_link(t, (uint32_t)h, (uint32_t)s, rate_mbit, 0);
	}
	return done(t, ret);
}

int nc_topo_gen_chain(struct nc_topo *t, uint32_t nswitches,
		      uint32_t hosts_per_switch, double rate_mbit)
{
	uint32_t i;
	int ret = 0, h;

	if (!t)
		return -EINVAL;
	nc_topo_init(t);
	if (nswitches == 0 || hosts_per_switch == 0 ||
	    (uint64_t)nswitches * hosts_per_switch > NC_TOPO_HOSTS_MAX)
		return -EINVAL;
	/* switches are nodes 0..nswitches-1 */
	for (i = 0; i < nswitches && ret >= 0; i++) {
		ret = add_switch(t, "s%u", i, 0);
		if (ret >= 0 && i > 0)
			ret = nc_topo_add_link(t, i, i - 1, rate_mbit, 0);
	}
	for (i = 0; i < nswitches * hosts_per_switch && ret >= 0; i++) {
		ret = h = add_host(t, i);
		if (h >= 0)
			ret = nc_topo_add_link(t, (uint32_t)h, i / hosts_per_switch,
					       rate_mbit, 0);
	}
	return done(t, ret);
}

/* splitmix64: tiny, fast, and the same sequence everywhere. */
static uint64_t splitmix64(uint64_t *s)
{
	uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Uniform in [0, n) up to a 2^-32 bias (multiply-shift). */
static uint32_t below(uint64_t *s, uint32_t n)
{
	return (uint32_t)(((splitmix64(s) >> 32) * n) >> 32);
}

int nc_topo_gen_random_tree(struct nc_topo *t, uint32_t nswitches,
			    uint32_t nhosts, uint64_t seed)
{
	uint32_t i;
	int ret = 0, h;

	if (!t)
		return -EINVAL;
	nc_topo_init(t);
	if (nswitches == 0 || nswitches > GEN_NODES_MAX || nhosts == 0 ||
	    nhosts > NC_TOPO_HOSTS_MAX)
		return -EINVAL;
	/* a random recursive tree: switch i hangs off an earlier switch, so
	 * every switch is reached from s0 */
	for (i = 0; i < nswitches && ret >= 0; i++) {
		ret = add_switch(t, "s%u", i, 0);
		if (ret >= 0 && i > 0)
			ret = nc_topo_add_link(t, i, below(&seed, i), 0, 0);
	}
	for (i = 0; i < nhosts && ret >= 0; i++) {
		ret = h = add_host(t, i);
		if (h >= 0)
			ret = nc_topo_add_link(t, (uint32_t)h,
					       below(&seed, nswitches), 0, 0);
	}
	return done(t, ret);
}

/*
 * Checks XGFT parameters; on error, why says which.  w1 must be 1: a host
 * is a leaf with a single link.
 */
static int xgft_check(uint32_t h, const uint32_t *m, const uint32_t *w,
		      char *why, size_t size)
{
	uint64_t hosts = 1, nodes, links = 0, level;
	uint32_t l, i;

	if (h < 1 || h > 8) {
		snprintf(why, size, "want 1 to 8 levels, not %u", h);
		return -EINVAL;
	}
	for (l = 0; l < h; l++) {
		if (m[l] < 1 || w[l] < 1) {
			snprintf(why, size, "level %u: m and w must be >= 1", l + 1);
			return -EINVAL;
		}
		hosts *= m[l];
		if (hosts > NC_TOPO_HOSTS_MAX) {
			snprintf(why, size, "more than %u hosts", NC_TOPO_HOSTS_MAX);
			return -E2BIG;
		}
	}
	if (w[0] != 1) {
		snprintf(why, size, "w1 must be 1 (a host has one link)");
		return -EINVAL;
	}
	nodes = hosts;
	for (l = 1; l <= h; l++) {
		/* S(l) = w1..wl * m(l+1)..mh; E(l) = S(l) * ml */
		for (level = 1, i = 0; i < h; i++) {
			level *= i < l ? w[i] : m[i];
			if (level > GEN_NODES_MAX)
				break;
		}
		nodes += level;
		links += level * m[l - 1];
		if (level > GEN_NODES_MAX || nodes > GEN_NODES_MAX ||
		    links > GEN_NODES_MAX) {
			snprintf(why, size, "more than %u nodes or links", GEN_NODES_MAX);
			return -E2BIG;
		}
	}
	return 0;
}

/*
 * XGFT(h; m; w) after Ohring et al.: a level-l node is labelled
 * (a_h..a_{l+1}, b_l..b_1), a_i < m_i, b_i < w_i; its parents replace
 * a_{l+1} by each b_{l+1} < w_{l+1}.  Numbered A * W_l + B, A and B mixed
 * radix with the lowest level least significant (W_l = w_1..w_l), so
 * hosts (level 0) are ranked with m1 least significant.
 * ideal_ft: the uplink of a level-l node carries its whole subtree,
 * rate * m1..ml (the ideal fat tree); else every link has rate.
 */
static int build_xgft(struct nc_topo *t, uint32_t h, const uint32_t *m,
		      const uint32_t *w, double rate_mbit, int ideal_ft)
{
	uint32_t first[9], count[9], W[9], l, i, b;
	uint64_t below_l = 1;			/* hosts under a level-l node */
	int ret = 0;

	/* counts and first node of each level; switches top level first */
	W[0] = 1;
	for (l = 0; l <= h; l++) {
		count[l] = 1;
		for (i = 0; i < h; i++)
			count[l] *= i < l ? w[i] : m[i];
		if (l)
			W[l] = W[l - 1] * w[l - 1];
	}
	for (l = h; l >= 1 && ret >= 0; l--) {
		first[l] = t->nnodes;
		for (i = 0; i < count[l] && ret >= 0; i++) {
			ret = add_switch(t, "s%u_%u", l, i);
			if (ret >= 0)
				t->nodes[ret].level = l;
		}
	}
	first[0] = t->nnodes;
	for (i = 0; i < count[0] && ret >= 0; i++)
		ret = add_host(t, i);
	/* links between level l-1 (child, a) and level l (parent, b) */
	for (l = 1; l <= h && ret >= 0; l++) {
		double rate = ideal_ft ? rate_mbit * (double)below_l : rate_mbit;

		for (i = 0; i < count[l - 1] && ret >= 0; i++) {
			uint32_t A = i / W[l - 1], B = i % W[l - 1];

			for (b = 0; b < w[l - 1] && ret >= 0; b++) {
				ret = nc_topo_add_link(t, first[l - 1] + i,
						       first[l] + A / m[l - 1] * W[l] +
						       B + W[l - 1] * b, rate, 0);
				if (ret >= 0 && ideal_ft)
					t->links[ret].lanes = (uint32_t)below_l;
			}
		}
		below_l *= m[l - 1];
	}
	if (ret >= 0) {
		t->ft_levels = h;
		memcpy(t->ft_m, m, h * sizeof(*m));
		memcpy(t->ft_w, w, h * sizeof(*w));
	}
	return ret;
}

int nc_topo_gen_xgft(struct nc_topo *t, uint32_t h, const uint32_t *m,
		     const uint32_t *w, double rate_mbit)
{
	char why[80];
	int ret;

	if (!t || !m || !w)
		return -EINVAL;
	nc_topo_init(t);
	ret = xgft_check(h, m, w, why, sizeof(why));
	if (ret)
		return ret;
	return done(t, build_xgft(t, h, m, w, rate_mbit, 0));
}

int nc_topo_gen_ft(struct nc_topo *t, uint32_t L, const uint32_t *M,
		   double rate_mbit)
{
	static const uint32_t ones[8] = { 1, 1, 1, 1, 1, 1, 1, 1 };
	char why[80];
	int ret;

	if (!t || !M)
		return -EINVAL;
	nc_topo_init(t);
	/* FT(L; M) is XGFT(L; M; 1..1): one parent each, a single root */
	ret = xgft_check(L, M, ones, why, sizeof(why));
	if (ret)
		return ret;
	return done(t, build_xgft(t, L, M, ones, rate_mbit, 1));
}

/* --- specs ----------------------------------------------------------------- */

__attribute__((format(printf, 2, 3)))
static int spec_fail(struct nc_topo_err *err, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->line = 0;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* A decimal uint32 ending at one of the stop characters (or the end). */
static int num32(const char **s, const char *stops, uint32_t *v)
{
	const char *p = *s;
	uint64_t x = 0;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		x = x * 10 + (uint64_t)(*p - '0');
		if (x > UINT32_MAX)
			return -EINVAL;
	}
	if (*p && !strchr(stops, *p))
		return -EINVAL;
	*v = (uint32_t)x;
	*s = p;
	return 0;
}

static int num64(const char *s, uint64_t *v)
{
	uint64_t x = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' ||
		    x > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -EINVAL;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = x;
	return 0;
}

/* "a,b,c" with exactly n numbers, then the end or ':'. */
static int num_list(const char **s, uint32_t n, uint32_t *v)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (num32(s, i + 1 < n ? "," : ":", &v[i]))
			return -EINVAL;
		if (i + 1 < n && *(*s)++ != ',')
			return -EINVAL;
	}
	return 0;
}

/* Rate suffix: Mbit/s as a number (decimals allowed), or N{bit,kbit,mbit,gbit}. */
static int spec_rate(const char *s, double *mbit)
{
	static const struct { const char *unit; double mbit; } u[] = {
		{ "", 1 }, { "bit", 1e-6 }, { "kbit", 1e-3 }, { "mbit", 1 },
		{ "gbit", 1e3 },
	};
	uint64_t mant = 0;
	double div = 1;
	int digits = 0, frac = -1;
	size_t i;

	for (; (*s >= '0' && *s <= '9') || (*s == '.' && frac < 0); s++) {
		if (*s == '.') {
			frac = 0;
			continue;
		}
		if (mant > UINT64_MAX / 100)
			return -EINVAL;
		mant = mant * 10 + (uint64_t)(*s - '0');
		digits++;
		if (frac >= 0) {
			frac++;
			div *= 10;
		}
	}
	if (!digits || frac == 0)
		return -EINVAL;
	for (i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		if (strcmp(s, u[i].unit) == 0) {
			*mbit = (double)mant / div * u[i].mbit;
			return *mbit > 0 ? 0 : -EINVAL;
		}
	}
	return -EINVAL;
}

/* The generators nc_topo_gen_spec() knows, by the word before ':'. */
static const char *const spec_names[] = { "star", "chain", "ft", "xgft", "random" };

int nc_topo_spec_like(const char *text)
{
	size_t i, n = strcspn(text, ":");

	if (!text[n])
		return 0;
	for (i = 0; i < sizeof(spec_names) / sizeof(spec_names[0]); i++)
		if (strlen(spec_names[i]) == n && strncmp(text, spec_names[i], n) == 0)
			return 1;
	return 0;
}

int nc_topo_gen_spec(struct nc_topo *t, const char *spec,
		     struct nc_topo_err *err)
{
	char buf[256], why[80], *at;
	const char *s;
	uint32_t a, b, c, m[8], w[8], i;
	uint64_t seed;
	double rate = 0;
	int ret;

	if (err) {
		err->line = 0;
		err->msg[0] = '\0';
	}
	if (!t || !spec)
		return -EINVAL;
	nc_topo_init(t);
	if (strlen(spec) >= sizeof(buf))
		return spec_fail(err, "topology spec too long");
	strcpy(buf, spec);
	at = strchr(buf, '@');
	if (at) {
		*at++ = '\0';
		if (spec_rate(at, &rate))
			return spec_fail(err, "bad rate '%s' in '%s' (want Mbit/s, e.g. 100, 2.5 or 1gbit)",
					 at, spec);
	}
	s = strchr(buf, ':');
	if (!s)
		return spec_fail(err, "bad topology spec '%s' (want star:N, chain:SxH, ft:L:M1,..,ML, xgft:H:M1,..:W1,.., random:S:H:SEED)",
				 spec);
	s++;
	if (strncmp(buf, "star:", 5) == 0) {
		if (num32(&s, "", &a) || a == 0 || a > NC_TOPO_HOSTS_MAX)
			return spec_fail(err, "bad spec '%s' (want star:N, 1 <= N <= %u)",
					 spec, NC_TOPO_HOSTS_MAX);
		ret = nc_topo_gen_star(t, a, rate);
	} else if (strncmp(buf, "chain:", 6) == 0) {
		if (num32(&s, "x", &a) || *s++ != 'x' || num32(&s, "", &b) ||
		    a == 0 || b == 0 || (uint64_t)a * b > NC_TOPO_HOSTS_MAX)
			return spec_fail(err, "bad spec '%s' (want chain:SWITCHESxHOSTS, at most %u hosts)",
					 spec, NC_TOPO_HOSTS_MAX);
		ret = nc_topo_gen_chain(t, a, b, rate);
	} else if (strncmp(buf, "ft:", 3) == 0) {
		if (num32(&s, ":", &a) || a < 1 || a > 8 || *s++ != ':' ||
		    num_list(&s, a, m) || *s)
			return spec_fail(err, "bad spec '%s' (want ft:L:M1,...,ML, 1 <= L <= 8)",
					 spec);
		for (i = 0; i < a; i++)
			w[i] = 1;
		if (xgft_check(a, m, w, why, sizeof(why)))
			return spec_fail(err, "bad spec '%s': %s", spec, why);
		ret = nc_topo_gen_ft(t, a, m, rate);
	} else if (strncmp(buf, "xgft:", 5) == 0) {
		if (num32(&s, ":", &a) || a < 1 || a > 8 || *s++ != ':' ||
		    num_list(&s, a, m) || *s++ != ':' || num_list(&s, a, w) || *s)
			return spec_fail(err, "bad spec '%s' (want xgft:H:M1,...,MH:W1,...,WH, 1 <= H <= 8)",
					 spec);
		if (xgft_check(a, m, w, why, sizeof(why)))
			return spec_fail(err, "bad spec '%s': %s", spec, why);
		ret = nc_topo_gen_xgft(t, a, m, w, rate);
	} else if (strncmp(buf, "random:", 7) == 0) {
		if (num32(&s, ":", &a) || *s++ != ':' || num32(&s, ":", &b) ||
		    *s++ != ':' || num64(s, &seed) || a == 0 || a > GEN_NODES_MAX ||
		    b == 0 || b > NC_TOPO_HOSTS_MAX)
			return spec_fail(err, "bad spec '%s' (want random:SWITCHES:HOSTS:SEED)",
					 spec);
		ret = nc_topo_gen_random_tree(t, a, b, seed);
		/* the generator has no rate: every link gets the spec's */
		for (c = 0; !ret && c < t->nlinks; c++)
			t->links[c].rate_mbit = rate;
	} else {
		return spec_fail(err, "unknown topology kind in '%s' (want star, chain, ft, xgft or random)",
				 spec);
	}
	if (ret)
		spec_fail(err, "cannot build '%s': %s", spec, strerror(-ret));
	return ret;
}

// SPDX-License-Identifier: BSD-2-Clause
/* Unit tests of the text helpers: addresses and member lists. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "netcoll.h"
#include "harness.h"

static const uint8_t mac1[6] = { 0x02, 0x00, 0x0a, 0x00, 0x00, 0x01 };

TEST(parse_addr_ethernet)
{
	uint8_t a[NC_ADDR_MAX];

	CHECK_EQ(nc_parse_addr("02:00:0a:00:00:01", a, sizeof(a)), 6);
	CHECK(memcmp(a, mac1, 6) == 0);
	CHECK_EQ(nc_parse_addr("02:00:0A:00:00:01", a, sizeof(a)), 6);
	CHECK(memcmp(a, mac1, 6) == 0);
}

TEST(parse_addr_short_bytes)
{
	uint8_t a[NC_ADDR_MAX];

	/* One digit per byte, as "ip link" accepts. */
	CHECK_EQ(nc_parse_addr("2:0:a:0:0:1", a, sizeof(a)), 6);
	CHECK(memcmp(a, mac1, 6) == 0);
	CHECK_EQ(nc_parse_addr("ff", a, sizeof(a)), 1);
	CHECK_EQ(a[0], 0xff);
}

TEST(parse_addr_bad_text)
{
	static const char *const bad[] = {
		"", ":", "02:", ":02", "02::03", "0g:00", "123", "02:00 ",
		" 02", "02-00-0a-00-00-01", "0x02", "02:00:0a:00:00:01\n",
	};
	uint8_t a[NC_ADDR_MAX];
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_EQ(nc_parse_addr(bad[i], a, sizeof(a)), -NC_EPARSE);
	CHECK_EQ(nc_parse_addr(NULL, a, sizeof(a)), -EINVAL);
	CHECK_EQ(nc_parse_addr("02", NULL, 6), -EINVAL);
}

TEST(parse_addr_length_limit)
{
	uint8_t a[8];

	CHECK_EQ(nc_parse_addr("01:02:03:04:05:06", a, 6), 6);
	CHECK_EQ(nc_parse_addr("01:02:03:04:05:06:07", a, 6), -NC_EPARSE);
	CHECK_EQ(nc_parse_addr("01", a, 0), -NC_EPARSE);
}

TEST(format_addr)
{
	char buf[3 * NC_ADDR_MAX];
	uint8_t big[NC_ADDR_MAX], back[NC_ADDR_MAX];
	int i;

	CHECK(strcmp(nc_format_addr(mac1, 6, buf, sizeof(buf)),
		     "02:00:0a:00:00:01") == 0);
	CHECK(strcmp(nc_format_addr(mac1, 0, buf, sizeof(buf)), "") == 0);
	for (i = 0; i < NC_ADDR_MAX; i++)
		big[i] = (uint8_t)(i * 37 + 5);
	nc_format_addr(big, NC_ADDR_MAX, buf, sizeof(buf));
	CHECK_EQ(strlen(buf), 3 * NC_ADDR_MAX - 1);
	CHECK_EQ(nc_parse_addr(buf, back, sizeof(back)), NC_ADDR_MAX);
	CHECK(memcmp(big, back, NC_ADDR_MAX) == 0);
}

TEST(format_addr_small_buffer)
{
	char buf[18];

	/* Only whole bytes: a cut address must not look like another one. */
	CHECK(strcmp(nc_format_addr(mac1, 6, buf, 17), "02:00:0a:00:00") == 0);
	CHECK(strcmp(nc_format_addr(mac1, 6, buf, 18), "02:00:0a:00:00:01") == 0);
	CHECK(strcmp(nc_format_addr(mac1, 6, buf, 2), "") == 0);
	CHECK(nc_format_addr(mac1, 6, buf, 0) == buf);
	CHECK(nc_format_addr(mac1, 6, NULL, 8) == NULL);
}

TEST(members_comma_list)
{
	struct nc_member *m;
	size_t n;

	CHECK_EQ(nc_parse_members("02:00:0a:00:00:01,02:00:0a:00:00:02,02:00:0a:00:00:03",
				  &m, &n), 3);
	CHECK_EQ(n, 3);
	if (n != 3)
		return;
	CHECK_EQ(m[0].addr_len, 6);
	CHECK(memcmp(m[0].addr, mac1, 6) == 0);
	CHECK_EQ(m[2].addr[5], 3);
	CHECK_EQ(m[2].addr_len, 6);
	free(m);
}

TEST(members_whitespace)
{
	struct nc_member *m;
	size_t n;

	CHECK_EQ(nc_parse_members("  02:00:0a:00:00:01 ,\t02:00:0a:00:00:02\r\n"
				  "\n02:00:0a:00:00:03,,  \n", &m, &n), 3);
	CHECK_EQ(n, 3);
	if (n == 3)
		CHECK_EQ(m[1].addr[5], 2);
	free(m);
}

TEST(members_comments)
{
	const char *text =
		"# members of communicator 7, in rank order\n"
		"02:00:0a:00:00:01   # rank 0\n"
		"#02:00:0a:00:00:99 commented out\n"
		"02:00:0a:00:00:02#rank 1, no blank before the comment\n"
		"02:00:0a:00:00:03 # last line has no newline";
	struct nc_member *m;
	size_t n;

	CHECK_EQ(nc_parse_members(text, &m, &n), 3);
	CHECK_EQ(n, 3);
	if (n == 3) {
		CHECK_EQ(m[1].addr[5], 2);
		CHECK_EQ(m[2].addr[5], 3);
	}
	free(m);
}

TEST(members_bad_hex)
{
	struct nc_member *m = (struct nc_member *)1;
	size_t n = 99;

	CHECK_EQ(nc_parse_members("02:00:0a:00:00:01,02:00:0a:00:0z:02", &m, &n),
		 -NC_EPARSE);
	CHECK(m == NULL);
	CHECK_EQ(n, 0);
}

TEST(members_wrong_lengths)
{
	struct nc_member *m;
	size_t n;
	char longaddr[3 * (NC_ADDR_MAX + 1)];
	int i;

	/* One byte more than any bearer address may have. */
	for (i = 0; i <= NC_ADDR_MAX; i++)
		memcpy(longaddr + 3 * i, i == NC_ADDR_MAX ? "01" : "01:", 3);
	CHECK_EQ(nc_parse_members(longaddr, &m, &n), -NC_EPARSE);
	CHECK_EQ(nc_parse_members("02:00:0a:00:00:01:, 02:00:0a:00:00:02", &m, &n),
		 -NC_EPARSE);
	CHECK_EQ(nc_parse_members("02:00:0a:00:00:001", &m, &n), -NC_EPARSE);
}

TEST(members_mixed_lengths)
{
	struct nc_member *m;
	size_t n;

	CHECK_EQ(nc_parse_members("02:00:0a:00:00:01,02:00:0a:00:00:02:03:04",
				  &m, &n), -NC_EPARSE);
	CHECK(m == NULL);
	CHECK_EQ(nc_parse_members("01:02:03:04:05:06:07:08\n02:00:0a:00:00:02",
				  &m, &n), -NC_EPARSE);
}

TEST(members_empty)
{
	struct nc_member *m;
	size_t n;

	CHECK_EQ(nc_parse_members("", &m, &n), -NC_EPARSE);
	CHECK_EQ(nc_parse_members(" ,\n\t, ", &m, &n), -NC_EPARSE);
	CHECK_EQ(nc_parse_members("# nothing but a comment\n#\n", &m, &n),
		 -NC_EPARSE);
	CHECK(m == NULL);
	CHECK_EQ(n, 0);
}

TEST(members_null_args)
{
	struct nc_member *m;
	size_t n;

	CHECK_EQ(nc_parse_members(NULL, &m, &n), -EINVAL);
	CHECK_EQ(nc_parse_members("02", NULL, &n), -EINVAL);
	CHECK_EQ(nc_parse_members("02", &m, NULL), -EINVAL);
}

TEST(members_large_list)
{
	const size_t count = 4096;
	struct nc_member *m;
	char *text, *p;
	size_t i, n;

	text = malloc(count * 18 + 1);
	if (!text) {
		CHECK(text != NULL);
		return;
	}
	for (p = text, i = 0; i < count; i++)
		p += sprintf(p, "02:00:00:00:%02zx:%02zx\n", i >> 8, i & 0xff);
	CHECK_EQ(nc_parse_members(text, &m, &n), (int)count);
	CHECK_EQ(n, count);
	if (n == count) {
		CHECK_EQ(m[count - 1].addr[4], (count - 1) >> 8);
		CHECK_EQ(m[count - 1].addr[5], (count - 1) & 0xff);
	}
	free(m);
	free(text);
}

int main(void)
{
	RUN(parse_addr_ethernet);
	RUN(parse_addr_short_bytes);
	RUN(parse_addr_bad_text);
	RUN(parse_addr_length_limit);
	RUN(format_addr);
	RUN(format_addr_small_buffer);
	RUN(members_comma_list);
	RUN(members_whitespace);
	RUN(members_comments);
	RUN(members_bad_hex);
	RUN(members_wrong_lengths);
	RUN(members_mixed_lengths);
	RUN(members_empty);
	RUN(members_null_args);
	RUN(members_large_list);
	return DONE();
}

/* The recording order memo (session/order_memo.c): what is written reads back the same; another
 * file's or a changed file's memo, every truncation and byte flip, and pulls crafted out of order
 * or outside the data section (checksum made right) are refused without reading outside the
 * buffer; the cache file is found, and not trusted when others can write it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "damage_test.h"
#include "session/order_memo.h"
#include "symbols/buildid_cache.h"
#include "util/error.h"
#include "util/xalloc.h"

#define HDR 80
#define CRC_OFF 12

static const struct order_memo_key key = { 0x803, 1234567, 90000000, 4096, 80000000, 1764000000123456789,
					   1764000000223456789 };
static const struct ordered_pull pulls[] = { { 8192, 9000 }, { 8192, 12000 }, { 20000, 30000 } };
#define NPULLS (sizeof(pulls) / sizeof(pulls[0]))

static int parse_copy(const char *buf, size_t len)
{
	char *c = xmalloc(len ? len : 1);
	memcpy(c, buf, len);
	struct ordered_pull *p = NULL;
	size_t n = 0;
	int rc = order_memo_parse(c, len, &key, &p, &n);
	free(p);
	free(c);
	return rc;
}

static void test_round_trip(void **state)
{
	size_t len, n;
	char *buf = order_memo_build(&key, pulls, NPULLS, &len);
	assert_int_equal(len, HDR + NPULLS * 16);
	struct ordered_pull *p;
	assert_int_equal(order_memo_parse(buf, len, &key, &p, &n), 0);
	assert_int_equal(n, NPULLS);
	assert_memory_equal(p, pulls, sizeof(pulls));
	free(p);
	/* none: a file in time order */
	free(buf);
	buf = order_memo_build(&key, NULL, 0, &len);
	assert_int_equal(order_memo_parse(buf, len, &key, &p, &n), 0);
	assert_int_equal(n, 0);
	free(p);
	/* another file, or this one written since */
	struct order_memo_key k = key;
	k.ctime_ns++;
	assert_int_equal(order_memo_parse(buf, len, &k, &p, &n), -1);
	assert_non_null(strstr(err_msg(), "changed"));
	free(buf);
}

static void test_damaged(void **state)
{
	size_t len;
	char *buf = order_memo_build(&key, pulls, NPULLS, &len);
	damage_refused(buf, len, parse_copy, 5000);
	free(buf);
}

static void test_crafted(void **state)
{
	size_t len;
	char *buf = order_memo_build(&key, pulls, NPULLS, &len);
	char *c = xmalloc(len);
	struct { size_t off; uint64_t v; } cases[] = {
		{ 72, NPULLS + 1 },             /* more pulls than bytes */
		{ 72, UINT64_MAX / 16 + 2 },    /* pulls * 16 overflows */
		{ HDR + 0, 100 },               /* a place before the data section */
		{ HDR + 8, 90000000 },          /* a record past it */
		{ HDR + 8, 8192 },              /* a record pulled to its own place */
		{ HDR + 32, 8000 },             /* places out of order */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memcpy(c, buf, len);
		memcpy(c + cases[i].off, &cases[i].v, 8);
		damage_recrc(c, len, CRC_OFF);
		if (parse_copy(c, len) != -1)
			fail_msg("crafted case %zu accepted", i);
		assert_non_null(strstr(err_msg(), "offset"));
	}
	damage_hostile(buf, len, HDR, CRC_OFF, parse_copy, 5000);
	free(c);
	free(buf);
}

static void test_cache_file(void **state)
{
	char dir[] = "/tmp/lperf-order-memo-XXXXXX";
	assert_non_null(mkdtemp(dir));
	buildid_cache_set_dir(dir);
	struct ordered_pull *p;
	size_t n;
	assert_false(order_memo_load(&key, &p, &n));
	order_memo_save(&key, pulls, NPULLS);
	assert_true(order_memo_load(&key, &p, &n));
	assert_int_equal(n, NPULLS);
	free(p);
	struct order_memo_key k = key;
	k.mtime_ns++;
	assert_false(order_memo_load(&k, &p, &n)); /* another name, none there */
	char *cmd = xasprintf("chmod 666 %s/.lperf/order/*", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	assert_false(order_memo_load(&key, &p, &n)); /* others could have written it */
	cmd = xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	buildid_cache_set_dir(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_crafted),
		cmocka_unit_test(test_cache_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

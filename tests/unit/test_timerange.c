/* perf 6.1's --time grammar (util/timerange.h): ranges in seconds, several separated by blanks,
 * percentages of the recording (slices, spans, lists of them, one P%), what perf refuses, and the
 * accidents of perf's parser that lperf refuses; which times a parsed spec keeps. The percent
 * cases use a recording from 100 s to 100 s + 1000 ns, so that P% of it is 10 x P ns. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/error.h"
#include "util/strbuf.h"
#include "util/timerange.h"

#define S 1000000000ULL
#define FIRST (100 * S)
#define LAST (FIRST + 1000)

/* spec parsed against FIRST..LAST: its ranges, "start-end" in ns less base, blank-separated. */
static const char *parsed(const char *spec, uint64_t base)
{
	static char buf[512];
	struct time_ranges r;
	if (timerange_parse(spec, FIRST, LAST, &r) < 0)
		return "refused";
	size_t len = 0;
	buf[0] = 0;
	for (size_t i = 0; i < r.n && len < sizeof(buf) - 50; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%llu-%llu", i ? " " : "",
					(unsigned long long)(r.v[i].start - base),
					(unsigned long long)(r.v[i].end - base));
	timerange_free(&r);
	return buf;
}

static const char *ranges(const char *spec)
{
	return parsed(spec, 0);
}

/* Percentages: the ranges as offsets from FIRST. */
static const char *pranges(const char *spec)
{
	return parsed(spec, FIRST);
}

static void test_seconds_one_range(void **state)
{
	assert_string_equal(ranges("1.5,2.25"), "1500000000-2250000000");
	assert_string_equal(ranges("1234.5,"), "1234500000000-0");        /* open end */
	assert_string_equal(ranges(",1235"), "0-1235000000000");           /* open start */
	assert_string_equal(ranges(","), "0-0");                           /* every sample, as perf */
	assert_string_equal(ranges("1,1"), "1000000000-1000000000");       /* one instant */
	assert_string_equal(ranges(".5,1"), "500000000-1000000000");
	assert_string_equal(ranges("1.,2"), "1000000000-2000000000");
	assert_string_equal(ranges("1.123456789,2"), "1123456789-2000000000");
	assert_string_equal(ranges("0.000000001,0.000000002"), "1-2");
	assert_string_equal(ranges(" 1,+2"), "1000000000-2000000000");    /* strtoul's blanks, '+' */
	assert_string_equal(ranges("18446744073.709551615,"), "18446744073709551615-0"); /* u64's top */
}

static void test_seconds_refused(void **state)
{
	const char *bad[] = {
		"", "1", "abc", "1.5", "2,1", "1.1234567891,2", "1 ,2", "1,2 ", "1,2x", "x,2", "1.2.3,4",
		"-1,2", "1,-2", "+-1,2", "+,2", " ,2", " .5,1", "+.5,1", "1,2,3,4", "1,2,3",
		"18446744073.709551616,", "18446744074,", "99999999999999999999,", "1,99999999999999999999",
		"1e3,2", "0x10,20", "1.-5,2", "1. 5,2", "1,2\n3,4,",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct time_ranges r = { (void *)1, 7 };
		if (timerange_parse(bad[i], FIRST, LAST, &r) == 0)
			fail_msg("'%s' was accepted", bad[i]);
		assert_int_equal(r.n, 0);
		assert_null(r.v);
		assert_non_null(strstr(err_msg(), bad[i]));
	}
}

/* Several ranges, separated by blanks; each must end before the next starts. */
static void test_seconds_several(void **state)
{
	assert_string_equal(ranges("1,2 3,4"), "1000000000-2000000000 3000000000-4000000000");
	assert_string_equal(ranges("1,2 \t  3,4"), "1000000000-2000000000 3000000000-4000000000");
	assert_string_equal(ranges("1, 2 3,"), "1000000000-2000000000 3000000000-0");
	assert_string_equal(ranges(",1 2,3 4,5"), "0-1000000000 2000000000-3000000000 4000000000-5000000000");
	assert_string_equal(ranges("1,2 2.000000001,3"), "1000000000-2000000000 2000000001-3000000000");
	assert_string_equal(ranges("1,2 2,3"), "refused");    /* touching: perf calls it overlap */
	assert_string_equal(ranges("1,2 ,3"), "refused");     /* an open start after a range */
	assert_string_equal(ranges("1,3 2,4"), "refused");
	assert_string_equal(ranges("1,2 4,5 3,6"), "refused"); /* out of order */
	assert_string_equal(ranges("1, 3,4"), "refused");     /* a range before another needs a STOP */
	assert_string_equal(ranges("1,2 3,4,5"), "refused");
	assert_string_equal(ranges("1,2  x,4"), "refused");
	/* a thousand ranges */
	struct strbuf sb = STRBUF_INIT;
	for (int i = 0; i < 1000; i++)
		sb_addf(&sb, "%s%d.1,%d.2", i ? " " : "", i, i);
	struct time_ranges r;
	assert_int_equal(timerange_parse(sb.buf, FIRST, LAST, &r), 0);
	assert_int_equal(r.n, 1000);
	assert_int_equal(r.v[999].start, 999 * S + 100000000);
	assert_true(timerange_keeps(&r, 500 * S + 150000000));
	assert_false(timerange_keeps(&r, 500 * S + 250000000));
	timerange_free(&r);
	sb_release(&sb);
}

/* Percentages of FIRST..LAST (1000 ns): a range ends a nanosecond short of the next one, unless
 * it ends at the last sample. */
static void test_percent(void **state)
{
	assert_string_equal(pranges("10%/1"), "0-99");
	assert_string_equal(pranges("10%/2"), "100-199");
	assert_string_equal(pranges("10%/10"), "900-1000");
	assert_string_equal(pranges("10%/1,10%/3"), "0-99 200-299");
	assert_string_equal(pranges("10%/1,"), "0-99");          /* a trailing comma, as perf */
	assert_string_equal(pranges("1e1%/2"), "100-199");       /* strtod's numbers */
	assert_string_equal(pranges("10% /2"), "100-199");
	assert_string_equal(pranges("10%/ 2"), "100-199");
	assert_string_equal(pranges("33.3%/3"), "666-998");      /* round(0.666 x 1000), round(0.999 x 1000) - 1 */
	assert_string_equal(pranges("100%/1"), "0-1000");
	assert_string_equal(pranges("0%-10%"), "0-99");
	assert_string_equal(pranges("0%-10%,30%-40%"), "0-99 300-399");
	assert_string_equal(pranges("90%-100%"), "900-1000");
	assert_string_equal(pranges("0%-100%"), "0-1000");
	assert_string_equal(pranges("0%-0%"), "0-0");
	assert_string_equal(pranges("10%-10%"), "100-100");
	assert_string_equal(pranges("20%-10%"), "200-100");      /* accepted, keeps nothing, as perf */
	assert_string_equal(pranges("0%-10%, 30%-40%"), "0-99 300-399");
	assert_string_equal(pranges("50%"), "0-499");            /* the first half */
	assert_string_equal(pranges("100%"), "0-1000");
	assert_string_equal(pranges("0.05%"), "0-0");            /* round(0.5) = 1, less the last ns */
	assert_string_equal(pranges("0%-10%,5%-20%"), "0-99 50-199"); /* overlaps: perf checks none */
}

static void test_percent_refused(void **state)
{
	const char *bad[] = {
		"0%", "-10%", "101%", "10% ", "10%,20%", "%", "10%x", "10%/0", "10%/-1", "10%/", "10%/11",
		"10%/1.5", "10%/2/3", "10%/2 ", "0%/1", "-10%/1", "%/1", "10%abc/2", "nan%/1", "inf%/1",
		"nan%", "10%/99999999999", "10%/2147483648", "0%-101%", "-5%-10%", "%-10%", "0%-", "0%-x",
		"0%-10%,,20%-30%", ",0%-10%", "0%-10%,30%", "10%/1,0%-10%", "10%/1,,10%/2", "0%-10%abc",
		"0%-10%-20%", "1e-1%-10%", "520.3,10%", "10%/1 10%/2",
		"1000000000000000000000000000000000000000000000000000000000000000000000000%",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		struct time_ranges r;
		if (timerange_parse(bad[i], FIRST, LAST, &r) == 0)
			fail_msg("'%s' was accepted", bad[i]);
		assert_int_equal(r.n, 0);
	}
	/* whether a spec parses does not depend on the recording */
	struct time_ranges r;
	assert_int_equal(timerange_parse("10%/2,10%/4", 0, 0, &r), 0);
	assert_int_equal(r.n, 2);
	timerange_free(&r);
	assert_int_equal(timerange_parse("0%", 0, 0, &r), -1);
}

/* perf's doubles: start + round(p x span), at any size of timestamps. */
static void test_percent_arithmetic(void **state)
{
	struct time_ranges r;
	uint64_t first = 123456789012345ULL, last = first + 987654321ULL;
	assert_int_equal(timerange_parse("10%/3", first, last, &r), 0);
	double span = (double)(last - first);
	assert_int_equal(r.v[0].start, (uint64_t)((double)first + __builtin_round(0.1 * 2 * span)));
	assert_int_equal(r.v[0].end, (uint64_t)((double)first + __builtin_round(0.1 * 3 * span)) - 1);
	timerange_free(&r);
	/* at the top of u64: no overflow of the conversion */
	assert_int_equal(timerange_parse("100%", UINT64_MAX - 10, UINT64_MAX, &r), 0);
	assert_true(r.v[0].start >= UINT64_MAX - 4096);
	timerange_free(&r);
	/* no sample times: every range is the one instant 0 */
	assert_int_equal(timerange_parse("10%/2", 0, 0, &r), 0);
	assert_int_equal(r.v[0].start, 0);
	assert_int_equal(r.v[0].end, 0);
	timerange_free(&r);
}

static void test_keeps(void **state)
{
	struct time_ranges none = { 0 }, r;
	assert_true(timerange_keeps(&none, 5));
	assert_int_equal(timerange_parse("1,2 3,4", 0, 0, &r), 0);
	assert_true(timerange_keeps(&r, 0));              /* a sample without a time, as perf */
	assert_false(timerange_keeps(&r, S - 1));
	assert_true(timerange_keeps(&r, S));
	assert_true(timerange_keeps(&r, 2 * S));
	assert_false(timerange_keeps(&r, 2 * S + 1));
	assert_false(timerange_keeps(&r, 2500000000ULL));
	assert_true(timerange_keeps(&r, 3 * S));
	assert_true(timerange_keeps(&r, 4 * S));
	assert_false(timerange_keeps(&r, 4 * S + 1));
	timerange_free(&r);
	assert_int_equal(timerange_parse("3,", 0, 0, &r), 0);
	assert_false(timerange_keeps(&r, 3 * S - 1));
	assert_true(timerange_keeps(&r, UINT64_MAX));
	timerange_free(&r);
	assert_int_equal(timerange_parse("20%-10%", FIRST, LAST, &r), 0);
	for (uint64_t t = FIRST; t <= LAST; t++)
		assert_false(timerange_keeps(&r, t));
	timerange_free(&r);
	/* slices 1..10 of 10% cover every time once */
	struct time_ranges sl[10];
	for (int i = 0; i < 10; i++) {
		char spec[16];
		snprintf(spec, sizeof(spec), "10%%/%d", i + 1);
		assert_int_equal(timerange_parse(spec, FIRST, LAST, &sl[i]), 0);
	}
	for (uint64_t t = FIRST; t <= LAST; t++) {
		int in = 0;
		for (int i = 0; i < 10; i++)
			in += timerange_keeps(&sl[i], t);
		assert_int_equal(in, 1);
	}
	for (int i = 0; i < 10; i++)
		timerange_free(&sl[i]);
	assert_true(timerange_is_percent("10%/2"));
	assert_false(timerange_is_percent("1,2"));
}

/* sched timehist's one range: START alone is from START on. */
static void test_parse_one(void **state)
{
	struct time_range r;
	assert_int_equal(timerange_parse_one("1.5,2", &r), 0);
	assert_int_equal(r.start, 1500000000);
	assert_int_equal(r.end, 2 * S);
	assert_int_equal(timerange_parse_one("1.5", &r), 0);
	assert_int_equal(r.start, 1500000000);
	assert_int_equal(r.end, 0);
	assert_int_equal(timerange_parse_one(",2", &r), 0);
	assert_int_equal(r.start, 0);
	assert_int_equal(timerange_parse_one("", &r), 0);
	assert_int_equal(r.start + r.end, 0);
	const char *bad[] = { "2,1", "1,2,3", "x", "1,x", "-1", "10%", "1.1234567891", "1,2 3,4" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		if (timerange_parse_one(bad[i], &r) == 0)
			fail_msg("'%s' was accepted", bad[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seconds_one_range), cmocka_unit_test(test_seconds_refused),
		cmocka_unit_test(test_seconds_several), cmocka_unit_test(test_percent),
		cmocka_unit_test(test_percent_refused), cmocka_unit_test(test_percent_arithmetic),
		cmocka_unit_test(test_keeps), cmocka_unit_test(test_parse_one),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

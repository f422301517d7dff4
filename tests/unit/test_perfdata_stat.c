/* perf stat record's records (perfdata/perfdata_stat.c): the CPU_MAP layouts perf 6.1 writes
 * (a list, a range, a mask), STAT_CONFIG, STAT and STAT_ROUND, and records too short for their
 * kind refused with their offset. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "perfdata/perfdata_stat.h"
#include "util/error.h"

/* A record of type with body bytes (n of them) after its header, in buf. */
static const struct perf_event_header *rec(uint8_t *buf, uint32_t type, const void *body, size_t n)
{
	struct perf_event_header h = { type, 0, (uint16_t)(8 + n) };
	memcpy(buf, &h, 8);
	memcpy(buf + 8, body, n);
	return (const struct perf_event_header *)buf;
}

static void test_cpu_maps(void **state)
{
	uint8_t buf[64];
	struct perfdata_stat s = { 0 };
	/* perf's -1 map of a per-task count: a list of one CPU, 0xffff. */
	const uint16_t list[] = { 0, 1, 0xffff };
	assert_int_equal(perfdata_stat_read(&s, rec(buf, 74, list, sizeof(list)), 0), 0);
	assert_int_equal(s.ncpus, 1);
	assert_int_equal(s.cpus[0], -1);
	/* perf stat -a on two CPUs: the range 0-1. */
	const uint8_t range[] = { 2, 0, 0, 0, 0, 0, 1, 0 };
	assert_int_equal(perfdata_stat_read(&s, rec(buf, 74, range, sizeof(range)), 0), 0);
	assert_int_equal(s.ncpus, 2);
	assert_int_equal(s.cpus[1], 1);
	/* A 64-bit mask of CPUs 0, 2 and 3. */
	uint8_t mask[18] = { 1, 0, 1, 0, 8, 0, 0, 0, 0, 0, 0x0d };
	assert_int_equal(perfdata_stat_read(&s, rec(buf, 74, mask, sizeof(mask)), 0), 0);
	assert_int_equal(s.ncpus, 3);
	assert_int_equal(s.cpus[0], 0);
	assert_int_equal(s.cpus[2], 3);
	perfdata_stat_free(&s);
}

static void test_counts_and_rounds(void **state)
{
	uint8_t buf[64];
	struct perfdata_stat s = { 0 };
	const uint64_t config[] = { 3, 0, 4, 1, 1000, 2, 1 };
	assert_int_equal(perfdata_stat_read(&s, rec(buf, 75, config, sizeof(config)), 0), 0);
	assert_int_equal(s.aggr_mode, 4);
	assert_int_equal(s.interval_ms, 1000);
	uint8_t stat[40] = { 0 };
	uint64_t id = 7, val = 100, ena = 200, run = 150;
	uint32_t cpu = 0xffffffff;
	memcpy(stat, &id, 8);
	memcpy(stat + 8, &cpu, 4);
	memcpy(stat + 16, &val, 8);
	memcpy(stat + 24, &ena, 8);
	memcpy(stat + 32, &run, 8);
	assert_int_equal(perfdata_stat_read(&s, rec(buf, 76, stat, sizeof(stat)), 0), 0);
	const uint64_t round[] = { 0, 1000000000 };
	assert_int_equal(perfdata_stat_read(&s, rec(buf, 77, round, sizeof(round)), 0), 0);
	/* The next round's counts replace the previous round's. */
	assert_int_equal(perfdata_stat_read(&s, rec(buf, 76, stat, sizeof(stat)), 0), 0);
	assert_int_equal(perfdata_stat_read(&s, rec(buf, 76, stat, sizeof(stat)), 0), 0);
	assert_int_equal(s.ncounts, 2);
	assert_int_equal(s.counts[0].cpu, 0xffffffff);
	assert_int_equal(s.counts[1].run, 150);
	assert_int_equal(s.time_ns, 1000000000);
	perfdata_stat_free(&s);
}

static void test_short_records(void **state)
{
	uint8_t buf[64];
	struct perfdata_stat s = { 0 };
	const uint64_t stat[2] = { 1, 2 };
	assert_int_equal(perfdata_stat_read(&s, rec(buf, 76, stat, sizeof(stat)), 0x40), -1);
	assert_non_null(strstr(err_msg(), "STAT record at offset 0x40"));
	const uint64_t threads[2] = { 5, 0 };
	assert_int_equal(perfdata_stat_read(&s, rec(buf, 73, threads, sizeof(threads)), 0), -1);
	const uint8_t backwards[] = { 2, 0, 0, 0, 3, 0, 1, 0 };
	assert_int_equal(perfdata_stat_read(&s, rec(buf, 74, backwards, sizeof(backwards)), 8), -1);
	perfdata_stat_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_maps),
		cmocka_unit_test(test_counts_and_rounds),
		cmocka_unit_test(test_short_records),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* record_trim_stack: a dwarf sample's stack copy cut to what the kernel filled, the fields after
 * it moved along, and the result parses as the same sample (perf's layout). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "record/record.h"

static struct evsel_set set;

/* SAMPLE: ip, tid, time, regs_user (abi + 1 reg), stack_user (size, data, dyn_size), weight. */
static size_t build(uint8_t *buf, uint64_t stack_size, uint64_t dyn)
{
	uint64_t w[2048];
	size_t n = 1;
	w[n++] = 0x401000;                     /* ip */
	w[n++] = (uint64_t)77 << 32 | 77;      /* pid, tid */
	w[n++] = 123456789;                    /* time */
	w[n++] = PERF_SAMPLE_REGS_ABI_64;
	w[n++] = 0x7ffd0000;                   /* sp */
	w[n++] = stack_size;
	for (uint64_t i = 0; i < stack_size / 8; i++)
		w[n++] = 0x1111111100000000ull + i;
	w[n++] = dyn;
	w[n++] = 42;                           /* weight */
	struct perf_event_header h = { PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, (uint16_t)(n * 8) };
	memcpy(&w[0], &h, sizeof(h));
	memcpy(buf, w, n * 8);
	return n * 8;
}

static int setup(void **state)
{
	struct perf_event_attr a = { 0 };
	a.type = PERF_TYPE_SOFTWARE;
	a.size = sizeof(a);
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_REGS_USER |
			PERF_SAMPLE_STACK_USER | PERF_SAMPLE_WEIGHT;
	a.sample_regs_user = 1ull << 7;
	a.sample_stack_user = 8192;
	evsel_set_add(&set, &a, "cpu-clock", NULL, 0);
	return 0;
}

static int teardown(void **state)
{
	evsel_set_free(&set);
	return 0;
}

static void test_trim(void **state)
{
	static uint8_t rec[16384], out[16384];
	size_t size = build(rec, 8192, 300);
	struct perf_sample s;
	assert_int_equal(sample_parse(&set, (void *)rec, &s), 0);
	size_t n = record_trim_stack((void *)rec, &s, out);
	assert_int_equal(n, size - 8192 + 304);
	struct perf_sample t;
	assert_int_equal(sample_parse(&set, (void *)out, &t), 0);
	assert_int_equal(((struct perf_event_header *)out)->size, n);
	assert_int_equal(t.ip, s.ip);
	assert_int_equal(t.time, s.time);
	assert_int_equal(t.user_stack_size, 304);
	assert_int_equal(t.user_stack_dyn_size, 300);
	assert_memory_equal(t.user_stack, s.user_stack, 300);
	assert_int_equal(t.weight, 42);
	assert_int_equal(t.user_regs[0], 0x7ffd0000);
}

static void test_nothing_to_trim(void **state)
{
	static uint8_t rec[16384], out[16384];
	struct perf_sample s;
	build(rec, 4096, 4096);
	assert_int_equal(sample_parse(&set, (void *)rec, &s), 0);
	assert_int_equal(record_trim_stack((void *)rec, &s, out), 0);
	build(rec, 4096, 4090);   /* rounds up to the whole copy */
	assert_int_equal(sample_parse(&set, (void *)rec, &s), 0);
	assert_int_equal(record_trim_stack((void *)rec, &s, out), 0);
	build(rec, 4096, 0);      /* nothing filled: 8 bytes stay, so dyn_size keeps its place */
	assert_int_equal(sample_parse(&set, (void *)rec, &s), 0);
	size_t n = record_trim_stack((void *)rec, &s, out);
	struct perf_sample t;
	assert_int_equal(sample_parse(&set, (void *)out, &t), 0);
	assert_int_equal(n, ((struct perf_event_header *)out)->size);
	assert_int_equal(t.user_stack_size, 8);
	assert_int_equal(t.user_stack_dyn_size, 0);
	assert_int_equal(t.weight, 42);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trim),
		cmocka_unit_test(test_nothing_to_trim),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

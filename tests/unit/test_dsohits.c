/* Which DSOs a stream's samples hit: the sample IP and every call-chain entry, a forked child
 * seeing its parent's maps, the newest map at an address winning, kernel addresses hitting
 * [kernel.kallsyms], first_hit called once per DSO; data maps and anonymous memory never hit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "perfdata/dsohits.h"
#include "record/record.h"

static struct perf_event_attr attr;
static struct evsel_set evs;
static uint64_t buf[512];

static void setup_events(void)
{
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CALLCHAIN;
	attr.sample_id_all = 1;
	memset(&evs, 0, sizeof(evs));
	evsel_set_add(&evs, &attr, "cpu-clock", NULL, 0);
}

static void feed_mmap(struct dsohits *d, uint32_t pid, uint64_t start, uint64_t len, const char *file, uint32_t prot)
{
	struct rec_mmap m = { 0 };
	m.pid = m.tid = pid;
	m.start = start;
	m.len = len;
	m.prot = prot;
	m.filename = file;
	m.cpumode = PERF_RECORD_MISC_USER;
	size_t n = record_build_mmap2(buf, sizeof(buf), &attr, &m);
	assert_true(n > 0);
	assert_int_equal(dsohits_record(d, &evs, (const struct perf_event_header *)buf), 0);
}

static void feed_sample(struct dsohits *d, uint32_t pid, uint64_t ip, const uint64_t *chain, size_t nchain,
			uint8_t cpumode)
{
	struct perf_sample s = { 0 };
	s.pid = s.tid = pid;
	s.ip = ip;
	s.time = 1;
	s.callchain = chain;
	s.callchain_nr = nchain;
	s.cpumode = cpumode;
	size_t n = record_build_sample(buf, sizeof(buf), &attr, &s);
	assert_true(n > 0);
	struct perf_event_header h;
	memcpy(&h, buf, sizeof(h));
	h.misc = cpumode;
	memcpy(buf, &h, sizeof(h));
	assert_int_equal(dsohits_record(d, &evs, (const struct perf_event_header *)(void *)buf), 0);
}

static bool hit(const struct dsohits *d, const char *name)
{
	for (size_t i = 0; i < d->ndsos; i++)
		if (!strcmp(d->dsos[i].name, name))
			return d->dsos[i].hit;
	return false;
}

static int firsts;
static int count_first(void *arg, const struct dsohit_dso *dso)
{
	(void)arg;
	(void)dso;
	firsts++;
	return 0;
}

static void test_hits(void **state)
{
	setup_events();
	struct dsohits d = { 0 };
	d.first_hit = count_first;
	feed_mmap(&d, 10, 0x400000, 0x1000, "/bin/prog", 5);
	feed_mmap(&d, 10, 0x7f0000, 0x10000, "/lib/libc.so.6", 5);
	feed_mmap(&d, 10, 0x900000, 0x1000, "/lib/data.bin", 1);      /* not executable */
	feed_mmap(&d, 10, 0xa00000, 0x1000, "//anon", 5);             /* no file */
	feed_mmap(&d, 10, 0xb00000, 0x1000, "/lib/never.so", 5);
	feed_mmap(&d, 10, 0xc00000, 0x1000, "/lib/chain.so", 5);
	uint64_t chain[] = { PERF_CONTEXT_USER, 0x400010, 0xc00010 };
	feed_sample(&d, 10, 0x400010, chain, 3, PERF_RECORD_MISC_USER);
	feed_sample(&d, 10, 0x400020, NULL, 0, PERF_RECORD_MISC_USER);
	assert_true(hit(&d, "/bin/prog"));
	assert_true(hit(&d, "/lib/chain.so"));
	assert_false(hit(&d, "/lib/libc.so.6"));
	assert_false(hit(&d, "/lib/never.so"));
	assert_false(hit(&d, "/lib/data.bin"));
	assert_int_equal(firsts, 2);

	/* a child sees its parent's maps; a later map at the same address wins */
	uint64_t fork_rec[32];
	struct rec_task t = { 11, 10, 11, 10, 1 };
	assert_true(record_build_task(fork_rec, sizeof(fork_rec), &attr, PERF_RECORD_FORK, &t) > 0);
	assert_int_equal(dsohits_record(&d, &evs, (const struct perf_event_header *)fork_rec), 0);
	feed_sample(&d, 11, 0x7f0100, NULL, 0, PERF_RECORD_MISC_USER);
	assert_true(hit(&d, "/lib/libc.so.6"));
	feed_mmap(&d, 11, 0xb00000, 0x1000, "/lib/newer.so", 5);
	feed_sample(&d, 11, 0xb00010, NULL, 0, PERF_RECORD_MISC_USER);
	assert_true(hit(&d, "/lib/newer.so"));
	assert_false(hit(&d, "/lib/never.so"));

	/* kernel addresses: the kernel, in the IP and in a chain's kernel part */
	assert_false(hit(&d, "[kernel.kallsyms]"));
	uint64_t kchain[] = { PERF_CONTEXT_KERNEL, 0xffffffff81000000ull, PERF_CONTEXT_USER, 0x400010 };
	feed_sample(&d, 10, 0x400010, kchain, 4, PERF_RECORD_MISC_USER);
	assert_true(hit(&d, "[kernel.kallsyms]"));
	int before = firsts;
	feed_sample(&d, 10, 0xffffffff81000010ull, NULL, 0, PERF_RECORD_MISC_KERNEL);
	assert_int_equal(firsts, before); /* once per DSO */
	dsohits_free(&d);
	evsel_set_free(&evs);
}

/* --call-graph dwarf: a sample with a stack copy counts every DSO of its process as hit. */
static void test_stack_copies(void **state)
{
	setup_events();
	struct perf_event_attr a2 = attr;
	a2.sample_type |= PERF_SAMPLE_STACK_USER;
	a2.sample_stack_user = 64;
	struct evsel_set ev2 = { 0 };
	evsel_set_add(&ev2, &a2, "cpu-clock", NULL, 0);
	struct dsohits d = { 0 };
	feed_mmap(&d, 20, 0x400000, 0x1000, "/bin/prog2", 5);
	feed_mmap(&d, 20, 0x7f0000, 0x10000, "/lib/libunwound.so", 5);
	feed_mmap(&d, 21, 0x7f0000, 0x10000, "/lib/other.so", 5);
	uint8_t stack[64] = { 0 };
	struct perf_sample s = { 0 };
	s.pid = s.tid = 20;
	s.ip = 0x400010;
	s.time = 1;
	s.cpumode = PERF_RECORD_MISC_USER;
	s.user_stack = stack;
	s.user_stack_size = sizeof(stack);
	s.user_stack_dyn_size = sizeof(stack);
	size_t n = record_build_sample(buf, sizeof(buf), &a2, &s);
	assert_true(n > 0);
	assert_int_equal(dsohits_record(&d, &ev2, (const struct perf_event_header *)(void *)buf), 0);
	assert_true(hit(&d, "/bin/prog2"));
	assert_true(hit(&d, "/lib/libunwound.so"));
	assert_false(hit(&d, "/lib/other.so"));
	/* a later dlopen is counted at the next sample with a stack */
	feed_mmap(&d, 20, 0x900000, 0x1000, "/lib/dlopened.so", 5);
	n = record_build_sample(buf, sizeof(buf), &a2, &s);
	assert_int_equal(dsohits_record(&d, &ev2, (const struct perf_event_header *)(void *)buf), 0);
	assert_true(hit(&d, "/lib/dlopened.so"));
	dsohits_free(&d);
	evsel_set_free(&ev2);
	evsel_set_free(&evs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hits),
		cmocka_unit_test(test_stack_copies),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The sample written for a paused thread (python/pysample.h): read back by the record parser
 * with the recording's own sample layout, every field where the kernel puts it, registers in
 * perf's order from ptrace's, the stack copy cut to the attr's size, and layouts it cannot
 * give refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "python/pysample.h"
#include "record/record.h"
#include "util/error.h"

/* ptrace's x86-64 user_regs_struct, in its order */
/* x86-64's registers only: elsewhere pysample_regs gives none */
#if defined(__x86_64__)
#define X86_ONLY() ((void)0)
#else
#define X86_ONLY() skip()
#endif

enum { R15, R14, R13, R12, RBP, RBX, R11, R10, R9, R8, RAX, RCX, RDX, RSI, RDI, ORIG_RAX, RIP, CS, EFLAGS, RSP,
       SS, FS_BASE, GS_BASE, DS, ES, FS, GS };

static struct perf_event_attr dwarf_attr(uint64_t extra, uint32_t stack)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_CPU_CLOCK;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CPU |
			PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER | extra;
	a.sample_regs_user = 0xff0fffULL; /* AX..SS, R8-R15: lperf's (and perf's) DWARF mask */
	a.sample_stack_user = stack;
	a.exclude_callchain_user = 1;
	a.sample_id_all = 1;
	return a;
}

static void fill_in(struct pysample_in *in, const uint8_t *stack, size_t len)
{
	memset(in, 0, sizeof(*in));
	for (int i = 0; i < PYSAMPLE_NREGS; i++)
		in->regs[i] = 0x1000 + (uint64_t)i;
	in->pid = 4242;
	in->tid = 4243;
	in->cpu = 1;
	in->time = 123456789012ull;
	in->period = 3999000;
	in->id = 77;
	in->stack = stack;
	in->stack_len = len;
}

static void test_round_trip(void **state)
{
	(void)state;
	X86_ONLY();
	struct perf_event_attr a = dwarf_attr(0, 64);
	uint8_t stack[100];
	for (size_t i = 0; i < sizeof(stack); i++)
		stack[i] = (uint8_t)i;
	struct pysample_in in;
	fill_in(&in, stack, sizeof(stack));
	uint64_t buf[8192 / 8];
	size_t n = pysample_build(buf, sizeof(buf), &a, &in);
	assert_true(n > 0 && n % 8 == 0);
	assert_int_equal(pysample_build(NULL, 0, &a, &in), n); /* sizing alone */
	struct evsel_set s = { 0 };
	evsel_set_add(&s, &a, "cpu-clock", NULL, 0);
	struct perf_sample p;
	const struct perf_event_header *h = (const void *)buf;
	assert_int_equal(h->type, PERF_RECORD_SAMPLE);
	assert_int_equal(h->misc, PERF_RECORD_MISC_USER);
	assert_int_equal(h->size, n);
	assert_int_equal(sample_parse(&s, h, &p), 0);
	assert_int_equal(p.pid, 4242);
	assert_int_equal(p.tid, 4243);
	assert_int_equal(p.cpu, 1);
	assert_true(p.time == 123456789012ull);
	assert_int_equal(p.period, 3999000);
	assert_int_equal(p.ip, 0x1000 + RIP);
	assert_int_equal(p.callchain_nr, 0);
	assert_int_equal(p.user_abi, PERF_SAMPLE_REGS_ABI_64);
	assert_int_equal(p.user_nregs, 20);
	/* perf's order: AX BX CX DX SI DI BP SP IP FLAGS CS SS, then R8..R15 */
	static const int want[20] = { RAX, RBX, RCX, RDX, RSI, RDI, RBP, RSP, RIP, EFLAGS, CS, SS,
				      R8, R9, R10, R11, R12, R13, R14, R15 };
	for (int i = 0; i < 20; i++)
		assert_int_equal(p.user_regs[i], 0x1000 + want[i]);
	/* cut to the attr's 64 bytes */
	assert_int_equal(p.user_stack_size, 64);
	assert_int_equal(p.user_stack_dyn_size, 64);
	assert_memory_equal(p.user_stack, stack, 64);
	evsel_set_free(&s);
}

/* Near the top of the stack less than the attr's size can be read: the copy is what was read
 * (8-byte aligned), and an empty one has no dyn_size, as the kernel writes it. */
static void test_short_stack(void **state)
{
	(void)state;
	X86_ONLY();
	struct perf_event_attr a = dwarf_attr(PERF_SAMPLE_IDENTIFIER, 16384);
	uint8_t stack[44];
	memset(stack, 0xab, sizeof(stack));
	struct pysample_in in;
	fill_in(&in, stack, sizeof(stack));
	uint64_t buf[8192 / 8];
	struct evsel_set s = { 0 };
	uint64_t id = 77;
	evsel_set_add(&s, &a, "cpu-clock", &id, 1);
	struct perf_sample p;
	assert_true(pysample_build(buf, sizeof(buf), &a, &in) > 0);
	assert_int_equal(sample_parse(&s, (const void *)buf, &p), 0);
	assert_int_equal(p.id, 77);
	assert_int_equal(p.user_stack_size, 40);
	assert_int_equal(p.user_stack_dyn_size, 40);
	in.stack_len = 0;
	assert_true(pysample_build(buf, sizeof(buf), &a, &in) > 0);
	assert_int_equal(sample_parse(&s, (const void *)buf, &p), 0);
	assert_int_equal(p.user_stack_size, 0);
	assert_int_equal(p.tid, 4243); /* what follows the empty copy still parses */
	evsel_set_free(&s);
}

/* Fields a paused thread cannot give: no record. A buffer too small: the size needed, nothing
 * written. */
static void test_refused(void **state)
{
	(void)state;
	X86_ONLY();
	struct pysample_in in;
	fill_in(&in, NULL, 0);
	uint64_t buf[512];
	static const uint64_t bad[] = { PERF_SAMPLE_READ, PERF_SAMPLE_RAW, PERF_SAMPLE_BRANCH_STACK,
					PERF_SAMPLE_REGS_INTR, PERF_SAMPLE_AUX };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct perf_event_attr a = dwarf_attr(bad[i], 64);
		assert_int_equal(pysample_build(buf, sizeof(buf), &a, &in), 0);
	}
	struct perf_event_attr a = dwarf_attr(0, 64);
	memset(buf, 0x5a, sizeof(buf));
	size_t need = pysample_build(buf, 16, &a, &in);
	assert_true(need > 16);
	assert_int_equal(((uint8_t *)buf)[0], 0x5a);
}

/* A mask with registers beyond R15 (none on x86-64) reads them as 0; an empty mask gives none. */
static void test_regs(void **state)
{
	(void)state;
	X86_ONLY();
	uint64_t regs[PYSAMPLE_NREGS], out[64];
	for (int i = 0; i < PYSAMPLE_NREGS; i++)
		regs[i] = 100 + (uint64_t)i;
	assert_int_equal(pysample_regs(regs, (1ULL << 7) | (1ULL << 8) | (1ULL << 40), out), 3);
	assert_int_equal(out[0], 100 + RSP);
	assert_int_equal(out[1], 100 + RIP);
	assert_int_equal(out[2], 0);
	assert_int_equal(pysample_regs(regs, 0, out), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_short_stack),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_regs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

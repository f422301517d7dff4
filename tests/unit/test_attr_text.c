/* perf_event_attr in perf 6.1's words: fields set only, perf's order, bit sets by name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "output/attr_text.h"
#include "util/strbuf.h"

static void collect(const char *name, const char *value, void *arg)
{
	struct strbuf *sb = arg;
	sb_addf(sb, "%s%s: %s", sb->len ? ", " : "", name, value);
}

static void test_tracepoint_attr(void **state)
{
	struct perf_event_attr a = { 0 };
	a.type = PERF_TYPE_TRACEPOINT;
	a.size = 128;
	a.config = 0x30e;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_RAW | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			PERF_SAMPLE_PERIOD;
	a.read_format = PERF_FORMAT_ID | (1 << 4);
	a.disabled = a.inherit = a.mmap = a.comm = a.enable_on_exec = a.task = a.sample_id_all = 1;
	a.exclude_guest = a.mmap2 = a.comm_exec = a.ksymbol = a.bpf_event = 1;
	struct strbuf sb = STRBUF_INIT;
	attr_for_each_field(&a, collect, &sb);
	assert_string_equal(sb.buf, "type: 2, size: 128, config: 0x30e, { sample_period, sample_freq }: 1, "
			    "sample_type: IP|TID|TIME|CPU|PERIOD|RAW, read_format: ID|LOST, disabled: 1, "
			    "inherit: 1, mmap: 1, comm: 1, enable_on_exec: 1, task: 1, sample_id_all: 1, "
			    "exclude_guest: 1, mmap2: 1, comm_exec: 1, ksymbol: 1, bpf_event: 1");
	sb_release(&sb);
}

static void test_order_and_signed(void **state)
{
	char buf[256];
	/* perf's order puts IDENTIFIER before REGS_INTR and DATA_SRC before WEIGHT */
	attr_sample_type_str(PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC | PERF_SAMPLE_IDENTIFIER |
			     PERF_SAMPLE_REGS_INTR, buf, sizeof(buf));
	assert_string_equal(buf, "IDENTIFIER|REGS_INTR|DATA_SRC|WEIGHT");
	attr_sample_type_str(0, buf, sizeof(buf));
	assert_string_equal(buf, "");
	struct perf_event_attr a = { 0 };
	a.use_clockid = 1;
	a.clockid = -2;
	a.branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_ANY;
	a.sample_regs_user = 0xff0fff;
	a.sample_stack_user = 8192;
	struct strbuf sb = STRBUF_INIT;
	attr_for_each_field(&a, collect, &sb);
	assert_string_equal(sb.buf, "use_clockid: 1, branch_sample_type: USER|ANY, sample_regs_user: 0xff0fff, "
			    "sample_stack_user: 8192, clockid: -2");
	sb_release(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tracepoint_attr),
		cmocka_unit_test(test_order_and_signed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* analysis/stacks_load.c's stacks_command_start: the profiled command in a recorder's command
 * line (perf's cmdline feature), with or without "--", after options that take values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "analysis/stacks_load.h"

#define START(...)                                                              \
	({                                                                      \
		char *const v_[] = { __VA_ARGS__ };                             \
		stacks_command_start((int)(sizeof(v_) / sizeof(v_[0])), v_);    \
	})

static void test_command_start(void **state)
{
	assert_int_equal(START("/b/lperf", "record", "-g", "-o", "x.data", "./P", "-o", "y"), 5);
	assert_int_equal(START("perf", "record", "-g", "--", "./P"), 4);
	assert_int_equal(START("perf", "record", "-F", "999", "-e", "cpu-clock", "--call-graph", "dwarf", "./P"), 8);
	assert_int_equal(START("perf", "record", "-F999", "--call-graph=dwarf", "-ag", "./P"), 5);
	assert_int_equal(START("lperf", "record", "-qgo", "x.data", "./P"), 4);
	assert_int_equal(START("lperf", "record", "-z", "3", "./P"), 4);
	assert_int_equal(START("perf", "record", "-z", "./P"), 3);
	assert_int_equal(START("lperf", "sample", "-e", "task-clock", "sleep", "1"), 4);
	/* no command (-a, -p): none; not a recorder's line: all of it */
	assert_int_equal(START("perf", "record", "-a", "-o", "x.data"), 5);
	assert_int_equal(START("./P", "arg"), 0);
	assert_int_equal(START("perf", "record", "-e", "sched:sched_switch", "-a", "--", "sleep", "1"), 6);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_command_start) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}

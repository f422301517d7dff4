/* mounts_has: which mount points a /proc/self/mounts table has, by type (tracefs_denied asks it
 * whether a denied kernel/debug/tracing is a tracefs or only behind a 0700 debugfs). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "util/fileio.h"

#define FIX "tests/fixtures/mounts/"

static void test_tracefs_mounted(void **state)
{
	assert_true(mounts_has(FIX "both-tracefs", "/sys/kernel/tracing", "tracefs"));
	assert_true(mounts_has(FIX "both-tracefs", "/sys/kernel/debug/tracing", "tracefs"));
	assert_false(mounts_has(FIX "both-tracefs", "/sys/kernel/debug", "tracefs"));
	assert_true(mounts_has(FIX "both-tracefs", "/sys/kernel/debug", "debugfs"));
	assert_true(mounts_has(FIX "both-tracefs", "/mnt/with\\040space", "ext4"));
}

static void test_debugfs_alone(void **state)
{
	/* a debugfs of mode 0700 denies kernel/debug/tracing: no tracefs there all the same */
	assert_false(mounts_has(FIX "debugfs-no-tracefs", "/sys/kernel/debug/tracing", "tracefs"));
	assert_false(mounts_has(FIX "debugfs-no-tracefs", "/sys/kernel/tracing", "tracefs"));
	assert_false(mounts_has(FIX "debugfs-no-tracefs", "/sys", "proc"));
}

static void test_unreadable_table(void **state)
{
	/* nothing known against it: as before the check, the denial stands */
	assert_true(mounts_has(FIX "no-such-table", "/sys/kernel/tracing", "tracefs"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tracefs_mounted),
		cmocka_unit_test(test_debugfs_alone),
		cmocka_unit_test(test_unreadable_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

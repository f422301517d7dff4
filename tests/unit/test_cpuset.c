/* CPU sets: "0,3-5" lists as -C/-c and sysfs write them (sorted, repeats dropped, bad text named
 * in one line) and the CPUs online, read under LPERF_SYSFS_ROOT. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/cpuset.h"
#include "util/error.h"

static void parse_lists(void **state)
{
	struct cpuset s;
	assert_int_equal(cpuset_parse("5,0,3-4,4", &s), 0);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.cpu[0], 0);
	assert_int_equal(s.cpu[1], 3);
	assert_int_equal(s.cpu[3], 5);
	assert_true(cpuset_has(&s, 4));
	assert_false(cpuset_has(&s, 1));
	cpuset_free(&s);
	assert_int_equal(s.n, 0);

	assert_int_equal(cpuset_parse("4095", &s), 0);
	assert_int_equal(s.cpu[0], 4095);
	cpuset_free(&s);
}

static void parse_refuses(void **state)
{
	static const char *const bad[] = { "", "a", "1-", "3-1", "4096", "1,,2", "1;2", "-1", "0-2x" };
	struct cpuset s;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(cpuset_parse(bad[i], &s), -1);
		assert_null(s.cpu);
		assert_int_equal(s.n, 0);
	}
	assert_int_equal(cpuset_parse("3-1", &s), -1);
	assert_non_null(strstr(err_msg(), "invalid CPU list '3-1'"));
	assert_int_equal(cpuset_parse(NULL, &s), -1);
	assert_string_equal(err_msg(), "empty CPU list");
}

static void online_from_sysfs(void **state)
{
	const char *dir = getenv("FIXTURES");
	char root[512];
	snprintf(root, sizeof(root), "%s/sysfs-arm", dir && *dir ? dir : "tests/fixtures");
	setenv("LPERF_SYSFS_ROOT", root, 1);
	struct cpuset s;
	assert_int_equal(cpuset_online(&s), 0);
	assert_int_equal(s.n, 4);
	assert_int_equal(s.cpu[3], 3);
	cpuset_free(&s);
	/* No sysfs at all: the configured CPUs, at least one. */
	setenv("LPERF_SYSFS_ROOT", "/nonexistent-lperf-sysfs", 1);
	assert_int_equal(cpuset_online(&s), 0);
	assert_true(s.n >= 1);
	assert_int_equal(s.cpu[0], 0);
	cpuset_free(&s);
	unsetenv("LPERF_SYSFS_ROOT");
}

/* report -j's default: the online CPUs the other running tasks leave, at least one, at most the
 * bound. */
static void spare_threads(void **state)
{
	assert_int_equal(cpuset_spare(2, 0, 64), 2);
	assert_int_equal(cpuset_spare(2, 1, 64), 1);
	assert_int_equal(cpuset_spare(2, 30, 64), 1);
	assert_int_equal(cpuset_spare(8, 3, 64), 5);
	assert_int_equal(cpuset_spare(128, 0, 64), 64);
	assert_int_equal(cpuset_spare(0, 0, 64), 1);
	assert_int_equal(cpuset_spare(-1, 0, 64), 1);
	assert_int_equal(cpuset_spare(4, -1, 64), 4);
	unsigned now = cpuset_spare_now(64);
	assert_true(now >= 1 && now <= 64);
}

/* /proc/loadavg's running tasks: the first number of the fourth field. */
static void loadavg_running(void **state)
{
	assert_int_equal(cpuset_loadavg_running("0.52 0.58 0.59 3/712 1234\n"), 3);
	assert_int_equal(cpuset_loadavg_running("14.57 12.39 7.27 10/160 27725\n"), 10);
	assert_int_equal(cpuset_loadavg_running("0.00 0.00 0.00 1/95 7"), 1);
	assert_int_equal(cpuset_loadavg_running("  1.00  2.00  3.00  2/50 9\n"), 2);
	/* not that shape: -1 */
	assert_int_equal(cpuset_loadavg_running(""), -1);
	assert_int_equal(cpuset_loadavg_running("0.52 0.58 0.59\n3/712 1234\n"), -1);
	assert_int_equal(cpuset_loadavg_running("0.52 0.58 0.59 3 1234\n"), -1);
	assert_int_equal(cpuset_loadavg_running("0.52 0.58 0.59 x/712 1234\n"), -1);
	assert_int_equal(cpuset_loadavg_running("0.52 0.58 0.59 3/ 1234\n"), -1);
	assert_int_equal(cpuset_loadavg_running("0.52 0.58 0.59 -3/712 1234\n"), -1);
	assert_int_equal(cpuset_loadavg_running("0.52 0.58 0.59 99999999999999999999999/7 1\n"), -1);
}

/* /proc/pressure/cpu's "some avg10=": the share of the last 10 s some task waited for a CPU. */
static void psi_some10(void **state)
{
	(void)state;
	const char *t = "some avg10=0.49 avg60=8.73 avg300=41.52 total=8554279334\n"
			"full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
	assert_true(cpuset_psi_some10(t) == 0.49);
	assert_true(cpuset_psi_some10("some avg10=100.00 avg60=1 avg300=1 total=1") == 100.0);
	assert_true(cpuset_psi_some10("full avg10=0.00 avg60=0.00\nsome avg10=12.50 avg60=0") == 12.5);
	/* not that shape: -1 */
	assert_true(cpuset_psi_some10("") == -1);
	assert_true(cpuset_psi_some10("full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n") == -1);
	assert_true(cpuset_psi_some10("xsome avg10=1.00 avg60=0") == -1);
	assert_true(cpuset_psi_some10("some avg10=-1.00 avg60=0") == -1);
	assert_true(cpuset_psi_some10("some avg10=nan avg60=0") == -1);
	assert_true(cpuset_psi_some10("some avg10=101.0 avg60=0") == -1);
	assert_true(cpuset_psi_some10("some avg10=1e999 avg60=0") == -1);
	assert_true(cpuset_psi_some10("some avg10=1.5x avg60=0") == -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_lists),
		cmocka_unit_test(parse_refuses),
		cmocka_unit_test(online_from_sysfs),
		cmocka_unit_test(spare_threads),
		cmocka_unit_test(loadavg_running),
		cmocka_unit_test(psi_some10),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

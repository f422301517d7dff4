/* perf stat's layouts (output/stat_perf.c) and the models under them (stat/stat_aggr.c,
 * stat/stat_shadow.c): exact text, CSV and JSON lines for a hand-built result, as perf 6.1
 * prints them. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/counter.h"
#include "output/stat_perf.h"
#include "stat/stat_shadow.h"
#include "stat_fixture.h"

/* task-clock, page-faults, instructions, cycles (the last two: hardware) on two CPUs:
 * task-clock 250 ms each; page-faults 100/300; instructions 3e6/1e6; cycles 2e6/1e6. */
static struct stat_fixture *make_fixture(void)
{
	static const int cpus[] = { 0, 1 };
	static const struct sf_event evs[] = {
		{ "task-clock", "software", EV_SRC_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, -1, NULL, false,
		  { 250000000, 250000000 }, { 250000000, 250000000 }, { 250000000, 250000000 } },
		{ "page-faults", "software", EV_SRC_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, -1, NULL, false,
		  { 100, 300 }, { 250000000, 250000000 }, { 250000000, 250000000 } },
		{ "instructions", "cpu", EV_SRC_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, -1, NULL, false,
		  { 3000000, 1000000 }, { 250000000, 250000000 }, { 250000000, 250000000 } },
		{ "cycles", "cpu", EV_SRC_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, -1, NULL, false,
		  { 2000000, 1000000 }, { 250000000, 250000000 }, { 250000000, 250000000 } },
	};
	struct stat_fixture *f = malloc(sizeof(*f));
	sf_build(f, cpus, 2, evs, 4, NULL, 0, 0.5);
	return f;
}

static void set(struct stat_value *v, uint64_t val, uint64_t ena, uint64_t run)
{
	sf_value(v, val, ena, run);
}


static void free_fixture(struct stat_fixture *f)
{
	sf_free(f);
	free(f);
}

static char *render(struct stat_fixture *f, const struct statperf_opts *o, bool interval)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (interval)
		statperf_interval(m, &f->r, o, 0);
	else
		statperf_print(m, &f->r, o);
	fclose(m);
	/* a copy: aarch64 GCC 12's -Wdangling-pointer takes open_memstream's buffer for the local */
	char *out = strdup(buf);
	free(buf);
	return out;
}

static void test_text_global(void **state)
{
	struct stat_fixture *f = make_fixture();
	struct statperf_opts o = { .layout = STATPERF_TEXT, .target = "'true'" };
	char *out = render(f, &o, false);
	const char *want =
		"\n Performance counter stats for 'true':\n\n"
		"            500.00 msec task-clock                       #    1.000 CPUs utilized          \n"
		"               400      page-faults                      #  800.000 /sec                   \n"
		"           4000000      instructions                     #    1.33  insn per cycle         \n"
		"           3000000      cycles                           #    0.006 GHz                    \n"
		"\n       0.500000000 seconds time elapsed\n\n";
	assert_string_equal(out, want);
	free(out);
	free_fixture(f);
}

static void test_text_not_supported_and_rusage(void **state)
{
	struct stat_fixture *f = make_fixture();
	f->r.ev[3].total.status = COUNTER_NOT_SUPPORTED;
	f->r.user_s = 0.25;
	f->r.sys_s = 0.125;
	struct statperf_opts o = { .layout = STATPERF_TEXT, .target = "'x'", .rusage = true };
	char *out = render(f, &o, false);
	/* Without cycles, instructions has no shadow metric: blank to perf's width. */
	assert_non_null(strstr(out, "           4000000      instructions                                                       \n"));
	assert_non_null(strstr(out, "   <not supported>      cycles                                                      \n"));
	assert_non_null(strstr(out, "       0.250000000 seconds user\n       0.125000000 seconds sys\n\n\n"));
	free(out);
	free_fixture(f);
}

static void test_csv_per_cpu_and_core(void **state)
{
	struct stat_fixture *f = make_fixture();
	struct statperf_opts o = { .layout = STATPERF_CSV, .sep = ",", .aggr = STAT_AGGR_NONE };
	char *out = render(f, &o, false);
	/* Per CPU: an event's rows together; the rate within the CPU's own task-clock. */
	const char *want = "CPU0,250.00,msec,task-clock,250000000,100.00,0.500,CPUs utilized\n"
			   "CPU1,250.00,msec,task-clock,250000000,100.00,0.500,CPUs utilized\n"
			   "CPU0,100,,page-faults,250000000,100.00,400.000,/sec\n"
			   "CPU1,300,,page-faults,250000000,100.00,1.200,K/sec\n";
	assert_true(!strncmp(out, want, strlen(want)));
	free(out);
	o.aggr = STAT_AGGR_CORE;
	out = render(f, &o, false);
	/* No sysfs topology for these CPUs here: each is its own core, in socket 0. */
	assert_non_null(strstr(out, ",1,250.00,msec,task-clock,250000000,100.00,0.500,CPUs utilized\n"));
	free(out);
	free_fixture(f);
}

static void test_json_interval(void **state)
{
	struct stat_fixture *f = make_fixture();
	f->r.timestamp = 1.0;
	struct statperf_opts o = { .layout = STATPERF_JSON };
	char *out = render(f, &o, true);
	const char *first = "{\"interval\" : 1.000000000, \"counter-value\" : \"500.000000\", \"unit\" : \"msec\", "
			    "\"event\" : \"task-clock\", \"event-runtime\" : 500000000, \"pcnt-running\" : 100.00, "
			    "\"metric-value\" : 1.000000, \"metric-unit\" : \"CPUs utilized\"}\n";
	assert_true(!strncmp(out, first, strlen(first)));
	free(out);
	free_fixture(f);
}

static void test_rate_units(void **state)
{
	struct stat_fixture *f = make_fixture();
	/* 2e9 faults in 0.5 s of task-clock: 4 G/sec. */
	set(&f->r.ev[1].total, 2000000000, 500000000, 500000000);
	struct stat_aggr_units us;
	stat_aggr_build(&us, &f->r, STAT_AGGR_GLOBAL);
	struct stat_shadow sh;
	stat_shadow_of(&f->r, &us.u[0], 1, 0.5, &sh);
	assert_int_equal(sh.kind, STAT_SHADOW_RATIO);
	assert_string_equal(sh.unit, "G/sec");
	assert_true(fabs(sh.value - 4.0) < 1e-9);
	stat_aggr_free(&us);
	free_fixture(f);
}

/* --per-thread: an event's threads busiest first; system-wide, the idle ones left out. */
static void test_per_thread(void **state)
{
	static const int cpus[] = { -1, -1, -1 };
	static const struct sf_event evs[] = {
		{ "task-clock", "software", EV_SRC_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, -1, NULL, false,
		  { 1000000, 0, 3000000 }, { 1000000, 1000000, 3000000 }, { 1000000, 0, 3000000 } },
	};
	struct stat_fixture f;
	sf_build(&f, cpus, 3, evs, 1, NULL, 0, 1.0);
	const char *names[] = { "a-10", "b-11", "c-12" };
	f.r.tids = calloc(3, sizeof(int));
	f.r.tnames = calloc(3, sizeof(char *));
	for (int i = 0; i < 3; i++)
		f.r.tnames[i] = strdup(names[i]);
	struct statperf_opts o = { .layout = STATPERF_CSV, .sep = ",", .aggr = STAT_AGGR_THREAD };
	char *out = render(&f, &o, false);
	assert_string_equal(out, "c-12,3.00,msec,task-clock,3000000,100.00,0.003,CPUs utilized\n"
				 "a-10,1.00,msec,task-clock,1000000,100.00,0.001,CPUs utilized\n"
				 "b-11,<not counted>,msec,task-clock,0,100.00,,\n");
	free(out);
	o.hide_idle = true;
	out = render(&f, &o, false);
	assert_null(strstr(out, "b-11"));
	free(out);
	sf_free(&f);
}

int main(void)
{
	setenv("LPERF_SYSFS_ROOT", "/nonexistent", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_global),
		cmocka_unit_test(test_text_not_supported_and_rusage),
		cmocka_unit_test(test_csv_per_cpu_and_core),
		cmocka_unit_test(test_json_interval),
		cmocka_unit_test(test_rate_units),
		cmocka_unit_test(test_per_thread),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

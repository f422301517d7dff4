/* lperf stat's renderers from stat_results built by hand (no kernel): perf's text table (plain,
 * per CPU, multiplexed, over -r runs), interval rows and -x CSV (output/stat_perf.c), lperf's
 * JSON document and --dry-run's encoding table, each against a golden file
 * (tests/fixtures/golden/stat_*). These pin the layouts; a deliberate change regenerates them
 * (LPERF_UPDATE_GOLDEN=1). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "output/stat_out.h"
#include "output/stat_perf.h"
#include "stat_fixture.h"

/* A started command counted per task: software events, an unsupported hardware one, the tool
 * event and perf's default metric. */
static void per_task(struct stat_fixture *f)
{
	static const int cpus[] = { -1 };
	static const struct sf_event evs[] = {
		{ "task-clock", "software", EV_SRC_SOFTWARE, 1, -1, NULL, false, { 250123456 } },
		{ "context-switches", "software", EV_SRC_SOFTWARE, 3, -1, NULL, false, { 12 } },
		{ "page-faults", "software", EV_SRC_SOFTWARE, 2, -1, NULL, false, { 3456789 } },
		{ "cycles", "cpu", EV_SRC_HARDWARE, 0, -1, NULL, true, { 0 } },
		{ "duration_time", "tool", EV_SRC_TOOL, 0, -1, NULL, false, { 0 } },
	};
	static const struct sf_metric mets[] = {
		{ "cpus_utilized", "task-clock / (duration_time * 1e9)", "CPUs" },
		{ "ipc", "instructions / cycles", "per cycle" },
	};
	sf_build(f, cpus, 1, evs, ARRAY_SIZE(evs), mets, 2, 0.5);
	f->r.user_s = 0.2;
	f->r.sys_s = 0.05;
}

/* Two CPUs counted system-wide: a multiplexed group asked for by a metric. */
static void two_cpus_mux(struct stat_fixture *f)
{
	static const int cpus[] = { 0, 1 };
	static const struct sf_event evs[] = {
		{ "cpu-clock", "software", EV_SRC_SOFTWARE, 0, -1, NULL, false, { 1000000000, 999000000 } },
		{ "inst_retired", "armv8_pmuv3_0", EV_SRC_SYSFS, 0x8, 0, "ipc", false, { 3000, 1000 },
		  { 4000000, 4000000 }, { 1000000, 2000000 } },
		{ "cpu_cycles", "armv8_pmuv3_0", EV_SRC_SYSFS, 0x11, 0, "ipc", false, { 1500, 1000 },
		  { 4000000, 4000000 }, { 1000000, 2000000 } },
	};
	static const struct sf_metric mets[] = {
		{ "ipc", "inst_retired / cpu_cycles", "per cycle" },
	};
	sf_build(f, cpus, 2, evs, ARRAY_SIZE(evs), mets, 1, 1.0);
}

static struct statout_opts opts(const char *target, const char *modes, bool per_cpu)
{
	struct statout_opts o = { .target = target, .modes = modes, .per_cpu = per_cpu, .big_num = true, .sep = "," };
	return o;
}

/* perf's layouts: text (or CSV with sep) in aggregation mode aggr, the C locale's numbers. */
static struct statperf_opts popts(const char *target, const char *sep, enum stat_aggr aggr)
{
	struct statperf_opts o = { .layout = sep ? STATPERF_CSV : STATPERF_TEXT, .aggr = aggr,
				   .target = target, .sep = sep, .big_num = true, .rusage = true };
	return o;
}

static void test_text(void **state)
{
	struct stat_fixture a, b;
	per_task(&a);
	two_cpus_mux(&b);
	struct statperf_opts oa = popts("'./faults 1000'", NULL, STAT_AGGR_GLOBAL);
	struct statperf_opts ob = popts("'system wide'", NULL, STAT_AGGR_GLOBAL);
	char *s;
	SF_CAPTURE(s, statperf_print(mf, &a.r, &oa));
	golden_check("stat_per_task.txt", s);
	free(s);
	SF_CAPTURE(s, statperf_print(mf, &b.r, &ob));
	golden_check("stat_two_cpus_mux.txt", s);
	free(s);
	ob.aggr = STAT_AGGR_NONE;
	SF_CAPTURE(s, statperf_print(mf, &b.r, &ob));
	golden_check("stat_two_cpus_mux_per_cpu.txt", s);
	free(s);
	sf_free(&a);
	sf_free(&b);
}

/* -r 3: means, the +- column and the elapsed time's spread. */
static void test_text_runs(void **state)
{
	struct stat_fixture f;
	per_task(&f);
	f.r.runs = 3;
	double xs[] = { 240e6, 250e6, 260e6 };
	f.r.ev[0].mean = 250e6;
	f.r.ev[0].m2 = (xs[0] - 250e6) * (xs[0] - 250e6) + (xs[2] - 250e6) * (xs[2] - 250e6);
	f.r.ev[1].mean = 12;
	f.r.ev[2].mean = 3456789;
	f.r.ev[2].m2 = 18;
	f.r.dur_mean = 0.5;
	f.r.dur_m2 = 0.0002;
	/* The mean times each counted event ran and was enabled (perf's CSV shows them). */
	for (size_t e = 0; e < 3; e++)
		f.r.ev[e].run_mean = f.r.ev[e].ena_mean = 1000000;
	struct statout_opts o = opts("'./faults 1000'", "user", false);
	struct statperf_opts po = popts("'./faults 1000'", NULL, STAT_AGGR_GLOBAL);
	char *s;
	SF_CAPTURE(s, statperf_print(mf, &f.r, &po));
	golden_check("stat_runs.txt", s);
	free(s);
	po = popts("'./faults 1000'", ",", STAT_AGGR_GLOBAL);
	SF_CAPTURE(s, statperf_print(mf, &f.r, &po));
	golden_check("stat_runs.csv", s);
	free(s);
	SF_CAPTURE(s, statout_json(mf, &f.r, NULL, 0, &o));
	golden_check("stat_runs.json", s);
	free(s);
	sf_free(&f);
}

static void test_interval_rows(void **state)
{
	struct stat_fixture a, b;
	per_task(&a);
	two_cpus_mux(&b);
	a.r.timestamp = 1.000123;
	b.r.timestamp = 2.5;
	struct statperf_opts oa = popts("'./faults 1000'", NULL, STAT_AGGR_GLOBAL);
	struct statperf_opts ob = popts("'system wide'", NULL, STAT_AGGR_NONE);
	char *s;
	SF_CAPTURE(s, {
		statperf_interval(mf, &a.r, &oa, 0);
		statperf_interval(mf, &a.r, &oa, 1);
		statperf_interval(mf, &b.r, &ob, 0);
	});
	golden_check("stat_interval.txt", s);
	free(s);
	oa.layout = ob.layout = STATPERF_CSV;
	oa.sep = ob.sep = ",";
	SF_CAPTURE(s, {
		statperf_interval(mf, &a.r, &oa, 0);
		statperf_interval(mf, &b.r, &ob, 1);
	});
	golden_check("stat_interval.csv", s);
	free(s);
	sf_free(&a);
	sf_free(&b);
}

static void test_csv(void **state)
{
	struct stat_fixture a, b;
	per_task(&a);
	two_cpus_mux(&b);
	struct statperf_opts oa = popts("'./faults 1000'", ",", STAT_AGGR_GLOBAL);
	struct statperf_opts ob = popts("'system wide'", ",", STAT_AGGR_NONE);
	char *s;
	SF_CAPTURE(s, {
		statperf_print(mf, &a.r, &oa);
		oa.sep = ";";
		statperf_print(mf, &a.r, &oa);
		statperf_print(mf, &b.r, &ob);
	});
	golden_check("stat.csv", s);
	free(s);
	sf_free(&a);
	sf_free(&b);
}

static void test_json(void **state)
{
	struct stat_fixture a, b, i1, i2;
	per_task(&a);
	two_cpus_mux(&b);
	per_task(&i1);
	per_task(&i2);
	i1.r.timestamp = 0.25;
	i1.r.duration = 0.25;
	i2.r.timestamp = 0.5;
	i2.r.duration = 0.25;
	struct stat_result iv[2] = { i1.r, i2.r };
	struct statout_opts oa = opts("'./faults 1000'", "user", false);
	struct statout_opts ob = opts("system-wide", "user and kernel", true);
	char *s;
	SF_CAPTURE(s, statout_json(mf, &a.r, iv, 2, &oa));
	golden_check("stat_per_task.json", s);
	free(s);
	SF_CAPTURE(s, statout_json(mf, &b.r, NULL, 0, &ob));
	golden_check("stat_two_cpus_mux.json", s);
	free(s);
	sf_free(&a);
	sf_free(&b);
	sf_free(&i1);
	sf_free(&i2);
}

static void test_dry_run(void **state)
{
	struct stat_fixture f;
	two_cpus_mux(&f);
	f.l.ev[0].encoding = (char *)"software/config=0/";
	f.l.ev[1].period = 100000;
	f.l.ev[1].attr.exclude_kernel = 1;
	f.l.ev[1].attr.exclude_hv = 1;
	char *s;
	SF_CAPTURE(s, statout_dry_run(mf, &f.l));
	golden_check("stat_dry_run.txt", s);
	free(s);
	sf_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_text_runs),
		cmocka_unit_test(test_interval_rows),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_dry_run),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

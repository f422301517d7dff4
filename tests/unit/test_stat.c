/* The counting model: scaling of multiplexed counters, interval deltas, repeat statistics and
 * metrics evaluated over scaled values. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/counter.h"
#include "stat/stat_result.h"
#include "stat/stat_plan.h"
#include "util/error.h"
#include "util/xalloc.h"

#include "stat_fixture.h"

static void test_scale_full_time(void **state)
{
	struct counter_val v = { 1000, 5000, 5000 };
	double s;
	assert_int_equal(counter_scale(&v, &s), COUNTER_COUNTED);
	assert_true(s == 1000.0);
}

static void test_scale_multiplexed(void **state)
{
	/* Counted a quarter of the time it was enabled: the estimate is four times the count. */
	struct counter_val v = { 250, 4000, 1000 };
	double s;
	assert_int_equal(counter_scale(&v, &s), COUNTER_MULTIPLEXED);
	assert_true(fabs(s - 1000.0) < 1e-9);
}

static void test_scale_never_running(void **state)
{
	struct counter_val v = { 0, 4000, 0 };
	double s = 1;
	assert_int_equal(counter_scale(&v, &s), COUNTER_NOT_COUNTED);
	assert_true(s == 0);
}

static void test_rel_stddev(void **state)
{
	/* Values 10, 12, 14: mean 12, sample variance 4, stddev of the mean sqrt(4/3),
	 * as a percentage of 12. */
	double mean = 0, m2 = 0;
	double xs[] = { 10, 12, 14 };
	for (int i = 0; i < 3; i++) {
		double d = xs[i] - mean;
		mean += d / (i + 1);
		m2 += d * (xs[i] - mean);
	}
	assert_true(fabs(mean - 12) < 1e-12);
	assert_true(fabs(stat_rel_stddev(mean, m2, 3) - 100.0 * sqrt(4.0 / 3.0) / 12.0) < 1e-9);
	assert_true(stat_rel_stddev(mean, m2, 1) == 0);
}

/* A stat_result built by hand (no kernel): two events, two CPUs. */
struct fixture {
	struct evlist l;
	struct counters c;
	struct stat_result r;
	struct metric m;
};

static struct fixture *make_fixture(const char *formula)
{
	struct fixture *f = calloc(1, sizeof(*f));
	f->l.n = 2;
	f->l.ev = calloc(2, sizeof(struct ev));
	const char *names[] = { "inst_retired", "cpu_cycles" };
	for (int i = 0; i < 2; i++) {
		f->l.ev[i].name = (char *)names[i];
		f->l.ev[i].base = (char *)names[i];
		f->l.ev[i].group = -1;
		f->l.ev[i].leader = (size_t)i;
		f->l.ev[i].source = EV_SRC_SYSFS;
	}
	static int cpus[] = { 0, 1 };
	static bool supported[] = { true, true };
	static char *why[2];
	f->c.evl = &f->l;
	f->c.cpus = cpus;
	f->c.ncpus = 2;
	f->c.npids = 1;
	f->c.supported = supported;
	f->c.why = why;
	f->m.name = (char *)"ipc";
	f->m.formula = (char *)formula;
	f->m.expr = metric_parse(formula);
	assert_non_null(f->m.expr);
	const struct metric *ms[] = { &f->m };
	stat_result_init(&f->r, &f->c, ms, 1);
	return f;
}

static void free_fixture(struct fixture *f)
{
	stat_result_free(&f->r);
	metric_expr_free(f->m.expr);
	free(f->l.ev);
	free(f);
}

static void set(struct stat_value *v, uint64_t val, uint64_t ena, uint64_t run)
{
	v->raw = (struct counter_val){ val, ena, run };
	v->status = counter_scale(&v->raw, &v->scaled);
}

static void test_metric_over_multiplexed_inputs(void **state)
{
	struct fixture *f = make_fixture("inst_retired / cpu_cycles");
	/* inst_retired ran half the time (raw 1,000 → 2,000); cpu_cycles all the time (1,000). */
	set(&f->r.ev[0].total, 1000, 2000, 1000);
	set(&f->r.ev[1].total, 1000, 2000, 2000);
	set(&f->r.ev[0].cpu[0], 1000, 2000, 1000);
	set(&f->r.ev[1].cpu[0], 1000, 2000, 2000);
	set(&f->r.ev[0].cpu[1], 0, 0, 0);
	set(&f->r.ev[1].cpu[1], 0, 0, 0);
	stat_compute_metrics(&f->r);
	assert_true(fabs(f->r.met[0].total - 2.0) < 1e-12);
	assert_true(fabs(f->r.met[0].cpu[0] - 2.0) < 1e-12);
	/* CPU 1 never counted: n/a, not zero or a crash. */
	assert_true(isnan(f->r.met[0].cpu[1]));
	assert_true(stat_multiplexed(&f->r));
	free_fixture(f);
}

static void test_metric_division_by_zero_is_na(void **state)
{
	struct fixture *f = make_fixture("inst_retired / cpu_cycles");
	set(&f->r.ev[0].total, 5, 10, 10);
	set(&f->r.ev[1].total, 0, 10, 10);
	stat_compute_metrics(&f->r);
	assert_true(isnan(f->r.met[0].total));
	free_fixture(f);
}

static void test_duration_time_in_metrics(void **state)
{
	struct fixture *f = make_fixture("cpu_cycles / duration_time");
	set(&f->r.ev[1].total, 3000, 10, 10);
	f->r.duration = 1.5;
	stat_compute_metrics(&f->r);
	assert_true(fabs(f->r.met[0].total - 2000.0) < 1e-9);
	free_fixture(f);
}

static void test_interval_diff(void **state)
{
	struct fixture *a = make_fixture("inst_retired / cpu_cycles");
	struct fixture *b = make_fixture("inst_retired / cpu_cycles");
	struct fixture *d = make_fixture("inst_retired / cpu_cycles");
	set(&a->r.ev[0].total, 100, 1000, 1000);
	set(&b->r.ev[0].total, 350, 3000, 2000);
	a->r.duration = 1.0;
	b->r.duration = 2.0;
	stat_diff(&d->r, &b->r, &a->r);
	/* 250 counted in 1000 of the 2000 ns enabled since the last reading → 500 estimated. */
	assert_int_equal(d->r.ev[0].total.raw.val, 250);
	assert_int_equal(d->r.ev[0].total.status, COUNTER_MULTIPLEXED);
	assert_true(fabs(d->r.ev[0].total.scaled - 500.0) < 1e-9);
	assert_true(fabs(d->r.duration - 1.0) < 1e-12);
	assert_true(fabs(d->r.timestamp - 2.0) < 1e-12);
	free_fixture(a);
	free_fixture(b);
	free_fixture(d);
}

static void test_accumulate_runs(void **state)
{
	struct fixture *acc = make_fixture("inst_retired / cpu_cycles");
	struct fixture *run = make_fixture("inst_retired / cpu_cycles");
	double xs[] = { 90, 100, 110 };
	for (int i = 0; i < 3; i++) {
		set(&run->r.ev[0].total, (uint64_t)xs[i], 10, 10);
		run->r.duration = xs[i] / 100.0;
		stat_accumulate(&acc->r, &run->r);
	}
	assert_int_equal(acc->r.runs, 3);
	assert_true(fabs(acc->r.ev[0].mean - 100.0) < 1e-9);
	assert_true(fabs(acc->r.ev[0].m2 - 200.0) < 1e-9);
	assert_true(fabs(acc->r.dur_mean - 1.0) < 1e-9);
	free_fixture(acc);
	free_fixture(run);
}

/* -r: the first run becomes the accumulator, later ones fold in; the means replace the totals. */
static void test_repeat_fold_and_means(void **state)
{
	struct fixture *f = make_fixture("inst_retired / cpu_cycles");
	struct stat_result acc, run;
	double xs[] = { 90, 100, 110 };
	for (int i = 0; i < 3; i++) {
		stat_result_init(&run, &f->c, NULL, 0);
		set(&run.ev[0].total, (uint64_t)xs[i], 10, 10);
		run.duration = xs[i] / 100.0;
		stat_repeat_fold(&acc, &run, i == 0);
		assert_null(run.ev);
	}
	assert_int_equal(acc.runs, 3);
	assert_int_equal(acc.ev[0].total.raw.val, 110); /* the last run's values */
	assert_true(fabs(acc.ev[0].mean - 100.0) < 1e-9);
	assert_true(fabs(acc.ev[0].m2 - 200.0) < 1e-9);
	stat_repeat_means(&acc);
	assert_true(fabs(acc.ev[0].total.scaled - 100.0) < 1e-9);
	assert_true(fabs(acc.duration - 1.0) < 1e-9);
	stat_result_free(&acc);
	free_fixture(f);
}

/* An interval row kept for --json is a copy of its own: the source is reused and freed. */
static void test_result_dup(void **state)
{
	struct fixture *f = make_fixture("inst_retired / cpu_cycles");
	set(&f->r.ev[0].cpu[1], 7, 10, 5);
	f->r.why[1] = xstrdup("why not");
	f->r.met[0].cpu[1] = 3.5;
	f->r.timestamp = 4;
	struct stat_result d;
	stat_result_dup(&d, &f->r);
	assert_ptr_not_equal(d.ev, f->r.ev);
	assert_ptr_not_equal(d.ev[0].cpu, f->r.ev[0].cpu);
	assert_int_equal(d.ev[0].cpu[1].raw.val, 7);
	assert_int_equal(d.ev[0].cpu[1].status, COUNTER_MULTIPLEXED);
	assert_string_equal(d.why[1], "why not");
	assert_ptr_not_equal(d.why[1], f->r.why[1]);
	assert_true(d.met[0].cpu[1] == 3.5 && d.met[0].m == &f->m);
	assert_true(d.timestamp == 4 && d.cpus[1] == 1);
	free_fixture(f);
	assert_int_equal(d.ev[0].cpu[1].raw.val, 7);
	stat_result_free(&d);
}

static void plan_env(void)
{
	const char *dir = getenv("FIXTURES");
	char *root = xasprintf("%s/sysfs-arm", dir && *dir ? dir : "tests/fixtures");
	setenv("LPERF_SYSFS_ROOT", root, 1);
	free(root);
}

/* -e first, then each metric's events not already there, as one {} group per -m name. */
static void test_plan_groups(void **state)
{
	plan_env();
	struct stat_plan p;
	struct stat_plan_req req = { .events = "ld_spec", .metrics = "imix,l1d_cache_miss_ratio" };
	assert_int_equal(stat_plan_build(&p, &req), 0);
	const char *want[] = { "ld_spec", "dp_spec", "inst_spec", "vfp_spec", "ase_spec", "st_spec",
			       "l1d_cache_refill", "l1d_cache" };
	assert_int_equal(p.l.n, ARRAY_SIZE(want));
	for (size_t e = 0; e < p.l.n; e++) {
		assert_string_equal(p.l.ev[e].name, want[e]);
		assert_int_equal(p.l.ev[e].group, e == 0 ? -1 : e < 6 ? 0 : 1);
	}
	assert_string_equal(p.l.ev[1].metric, "imix");
	assert_string_equal(p.l.ev[7].metric, "l1d_cache_miss_ratio");
	assert_true(p.nmetrics >= 2);
	assert_string_equal(p.metrics[p.nmetrics - 1]->name, "l1d_cache_miss_ratio");
	assert_string_equal(stat_plan_modes(&p.l), "user and kernel");
	evlist_set_default_excludes(&p.l, true);
	assert_string_equal(stat_plan_modes(&p.l), "user");
	stat_plan_free(&p);
	unsetenv("LPERF_SYSFS_ROOT");
}

/* -G as perf's: the Nth cgroup the Nth event's, one for every event named before it. */
static void test_plan_cgroups(void **state)
{
	struct stat_plan p;
	/* "-e task-clock -G a,,b -e ..." with three events: positions */
	struct stat_plan_req pos = { .events = "task-clock,page-faults,minor-faults", .cgroups = "a,,b",
				     .cg_prefix = 10 };
	assert_int_equal(stat_plan_build(&p, &pos), 0);
	assert_string_equal(p.l.ev[0].cgroup, "a");
	assert_null(p.l.ev[1].cgroup);
	assert_string_equal(p.l.ev[2].cgroup, "b");
	stat_plan_free(&p);
	/* "-e task-clock,page-faults -G a -e minor-faults": the two before it */
	struct stat_plan_req one = { .events = "task-clock,page-faults,minor-faults", .cgroups = "a",
				     .cg_prefix = strlen("task-clock,page-faults") };
	assert_int_equal(stat_plan_build(&p, &one), 0);
	assert_string_equal(p.l.ev[0].cgroup, "a");
	assert_string_equal(p.l.ev[1].cgroup, "a");
	assert_null(p.l.ev[2].cgroup);
	stat_plan_free(&p);
	struct stat_plan_req many = { .events = "task-clock", .cgroups = "a,b", .cg_prefix = 10 };
	assert_int_equal(stat_plan_build(&p, &many), STAT_PLAN_USAGE);
	assert_non_null(strstr(err_msg(), "2 cgroups for 1 events"));
}

static void test_plan_errors(void **state)
{
	plan_env();
	struct stat_plan p;
	struct stat_plan_req bad = { .metrics = "no_such_metric" };
	assert_int_equal(stat_plan_build(&p, &bad), STAT_PLAN_USAGE);
	assert_non_null(strstr(err_msg(), "no_such_metric"));
	struct stat_plan_req badev = { .events = "no_such_event" };
	assert_int_equal(stat_plan_build(&p, &badev), STAT_PLAN_USAGE);
	/* An x86 metric on an Arm PMU: not a typo, and --dry-run still plans the rest. */
	struct stat_plan_req x86 = { .metrics = "ghz" };
	int r = stat_plan_build(&p, &x86);
	if (r != STAT_PLAN_USAGE) {
		assert_int_equal(r, STAT_PLAN_UNAVAILABLE);
		x86.keep_unavailable = true;
		assert_int_equal(stat_plan_build(&p, &x86), 0);
		stat_plan_free(&p);
	}
	/* Neither -e nor -m: perf's eight defaults (its shadow metrics need no -m metric). */
	struct stat_plan_req none = { 0 };
	assert_int_equal(stat_plan_build(&p, &none), 0);
	assert_string_equal(p.l.ev[0].name, "task-clock");
	assert_int_equal(p.l.n, 8);
	assert_string_equal(p.l.ev[7].name, "branch-misses");
	assert_int_equal(p.nmetrics, 0);
	stat_plan_free(&p);
	/* --null: nothing at all. */
	struct stat_plan_req null = { .null_run = true };
	assert_int_equal(stat_plan_build(&p, &null), 0);
	assert_int_equal(p.l.n, 0);
	stat_plan_free(&p);
	unsetenv("LPERF_SYSFS_ROOT");
}

/* Uncore metrics per unit (a DSU cluster) and over all units; n/a per CPU and where an input
 * was not counted. */
static void test_unit_metrics(void **state)
{
	static const int cpus[] = { 0, 1 };
	static const struct sf_event evs[] = {
		{ "inst_spec", "armv8_pmuv3_0", EV_SRC_SYSFS, 0x1b, -1, NULL, false, { 10, 20 } },
		{ "arm_dsu_0/l3d_cache/", "arm_dsu_0", EV_SRC_SYSFS, 0x2b, -1, "l3_cache", false, { 1000000, 0 } },
		{ "arm_dsu_0/l3d_cache_refill/", "arm_dsu_0", EV_SRC_SYSFS, 0x2a, -1, "l3_cache", false, { 100000, 0 } },
		{ "arm_dsu_1/l3d_cache/", "arm_dsu_1", EV_SRC_SYSFS, 0x2b, -1, "l3_cache", false, { 0, 3000000 } },
		{ "arm_dsu_1/l3d_cache_refill/", "arm_dsu_1", EV_SRC_SYSFS, 0x2a, -1, "l3_cache", true, { 0 } },
	};
	static const struct sf_metric mets[] = {
		{ "l3_read_bandwidth", "l3d_cache * 64 / 1e6", "MB", "arm_dsu_" },
	};
	struct stat_fixture f;
	sf_build(&f, cpus, 2, evs, ARRAY_SIZE(evs), mets, 1, 1.0);
	assert_int_equal(f.r.nunits, 2);
	assert_string_equal(f.r.units[0].pmu, "arm_dsu_0");
	assert_string_equal(f.r.units[1].pmu, "arm_dsu_1");
	assert_true(fabs(stat_unit_metric(&f.r, 0, "l3_read_bandwidth") - 64) < 1e-9);
	assert_true(fabs(stat_unit_metric(&f.r, 1, "l3_read_bandwidth") - 192) < 1e-9);
	assert_true(fabs(stat_unit_metric(&f.r, -1, "l3_read_bandwidth") - 256) < 1e-9);
	assert_true(fabs(stat_unit_metric(&f.r, 0, "l3_miss_rate") - 10) < 1e-9);
	/* Cluster 1's refills could not be counted: its miss rate is n/a, the total covers cluster 0. */
	assert_true(isnan(stat_unit_metric(&f.r, 1, "l3_miss_rate")));
	assert_true(fabs(stat_unit_metric(&f.r, -1, "l3_miss_rate") - 100.0 * 100000 / 4000000) < 1e-9);
	assert_true(isnan(stat_unit_metric(&f.r, 0, "ddr_rw_bandwidth")));
	assert_true(isnan(stat_unit_metric(&f.r, 0, "no_such_metric")));
	/* As a -m metric (lperf stat's table): over every cluster, n/a per CPU. */
	assert_true(fabs(f.r.met[0].total - 256) < 1e-9);
	assert_true(isnan(f.r.met[0].cpu[0]) && isnan(f.r.met[0].cpu[1]));
	struct stat_result d;
	stat_result_dup(&d, &f.r);
	assert_int_equal(d.nunits, 2);
	assert_ptr_not_equal(d.units, f.r.units);
	assert_true(fabs(stat_unit_metric(&d, 1, "l3_read_bandwidth") - 192) < 1e-9);
	stat_result_free(&d);
	sf_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scale_full_time),
		cmocka_unit_test(test_scale_multiplexed),
		cmocka_unit_test(test_scale_never_running),
		cmocka_unit_test(test_rel_stddev),
		cmocka_unit_test(test_metric_over_multiplexed_inputs),
		cmocka_unit_test(test_metric_division_by_zero_is_na),
		cmocka_unit_test(test_duration_time_in_metrics),
		cmocka_unit_test(test_interval_diff),
		cmocka_unit_test(test_accumulate_runs),
		cmocka_unit_test(test_repeat_fold_and_means),
		cmocka_unit_test(test_result_dup),
		cmocka_unit_test(test_plan_groups),
		cmocka_unit_test(test_plan_errors),
		cmocka_unit_test(test_plan_cgroups),
		cmocka_unit_test(test_unit_metrics),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

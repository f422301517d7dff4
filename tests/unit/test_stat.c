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
#include "stat/stat.h"

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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

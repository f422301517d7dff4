/* output/prom_out and output/prom_rw: the series of stat --prometheus/--textfile/--remote-write
 * from hand-built results. The text page (labels escaped, cpu labels when counting CPUs, IPC
 * gauges where instructions and cycles were counted, an Arm PMU's names too), and a remote-write
 * request read back with libsnappy and protobuf-c: labels sorted with __name__ first, the extra
 * labels, every snapshot in time order, NaN left out. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "output/prom_out.h"
#include "output/prom_rw.h"
#include "stat_fixture.h"

#ifdef LPERF_HAVE_RW
#include <snappy-c.h>

#include "prom_rw.pb-c.h"
#endif


/* Two CPUs of an x86 machine: instructions and cycles (IPC 2.0 and 0.5), a fault counter and an
 * event that could not be opened. */
static void x86(struct stat_fixture *f)
{
	static const struct sf_event evs[] = {
		{ "instructions", "cpu", EV_SRC_HARDWARE, 1, -1, NULL, false, { 4000, 500 } },
		{ "cycles", "cpu", EV_SRC_HARDWARE, 0, -1, NULL, false, { 2000, 1000 } },
		{ "page-faults", "software", EV_SRC_SOFTWARE, 2, -1, NULL, false, { 7, 3 } },
		{ "branch-misses", "cpu", EV_SRC_HARDWARE, 5, -1, NULL, true, { 0 } },
	};
	static const int cpus[] = { 0, 3 };
	sf_build(f, cpus, 2, evs, ARRAY_SIZE(evs), NULL, 0, 1.5);
}

static void test_text_per_cpu(void **state)
{
	struct stat_fixture f;
	x86(&f);
	char *t = prom_format(&f.r, 0);
	const char *want =
		"# HELP lperf_event_total Events counted by lperf stat since it started (task-clock and "
		"cpu-clock in nanoseconds).\n"
		"# TYPE lperf_event_total counter\n"
		"lperf_event_total{cpu=\"0\",event=\"instructions\",pmu=\"cpu\"} 4000\n"
		"lperf_event_total{cpu=\"3\",event=\"instructions\",pmu=\"cpu\"} 500\n"
		"lperf_event_total{cpu=\"0\",event=\"cycles\",pmu=\"cpu\"} 2000\n"
		"lperf_event_total{cpu=\"3\",event=\"cycles\",pmu=\"cpu\"} 1000\n"
		"lperf_event_total{cpu=\"0\",event=\"page-faults\",pmu=\"software\"} 7\n"
		"lperf_event_total{cpu=\"3\",event=\"page-faults\",pmu=\"software\"} 3\n"
		"# HELP lperf_ipc Instructions per cycle since lperf stat started.\n"
		"# TYPE lperf_ipc gauge\n"
		"lperf_ipc{cpu=\"0\"} 2\n"
		"lperf_ipc{cpu=\"3\"} 0.5\n"
		"# HELP lperf_up_seconds Seconds lperf stat has been counting.\n"
		"# TYPE lperf_up_seconds gauge\n"
		"lperf_up_seconds 1.500\n";
	assert_string_equal(t, want);
	free(t);
	assert_true(fabs(prom_ipc(&f.r, -1) - 4500.0 / 3000.0) < 1e-12);
	sf_free(&f);
}

/* An Arm PMU's names (inst_retired, cpu_cycles), per task; a name that needs escaping. */
static void test_text_arm_task(void **state)
{
	static const struct sf_event evs[] = {
		{ "armv8_pmuv3_0/inst_retired/", "armv8_pmuv3_0", EV_SRC_SYSFS, 0x8, -1, NULL, false, { 3000 } },
		{ "armv8_pmuv3_0/cpu_cycles/", "armv8_pmuv3_0", EV_SRC_SYSFS, 0x11, -1, NULL, false, { 1500 } },
		{ "a\"b\\c", "x", EV_SRC_SOFTWARE, 9, -1, NULL, false, { 1 } },
	};
	static const int cpus[] = { -1 };
	struct stat_fixture f;
	sf_build(&f, cpus, 1, evs, ARRAY_SIZE(evs), NULL, 0, 2.0);
	char *t = prom_format(&f.r, 0);
	assert_non_null(strstr(t, "\nlperf_event_total{event=\"armv8_pmuv3_0/inst_retired/\",pmu=\"armv8_pmuv3_0\"} 3000\n"));
	assert_non_null(strstr(t, "\nlperf_event_total{event=\"a\\\"b\\\\c\",pmu=\"x\"} 1\n"));
	assert_non_null(strstr(t, "\nlperf_ipc 2\n"));
	assert_null(strstr(t, "cpu=\""));
	free(t);
	sf_free(&f);
}

/* Without both events there is no IPC family; with cycles still zero it is NaN. */
static void test_ipc_absent_or_nan(void **state)
{
	static const struct sf_event no_cycles[] = {
		{ "instructions", "cpu", EV_SRC_HARDWARE, 1, -1, NULL, false, { 10 } },
		{ "cycles", "cpu", EV_SRC_HARDWARE, 0, -1, NULL, true, { 0 } },
	};
	static const struct sf_event zero[] = {
		{ "instructions", "cpu", EV_SRC_HARDWARE, 1, -1, NULL, false, { 0 } },
		{ "cycles", "cpu", EV_SRC_HARDWARE, 0, -1, NULL, false, { 0 } },
	};
	static const int cpus[] = { -1 };
	struct stat_fixture f;
	sf_build(&f, cpus, 1, no_cycles, 2, NULL, 0, 1.0);
	char *t = prom_format(&f.r, 0);
	assert_null(strstr(t, "lperf_ipc"));
	free(t);
	sf_free(&f);
	sf_build(&f, cpus, 1, zero, 2, NULL, 0, 1.0);
	t = prom_format(&f.r, 0);
	assert_non_null(strstr(t, "\nlperf_ipc NaN\n"));
	free(t);
	sf_free(&f);
}

/* -G: the cgroup label on an event's series, and IPC per cgroup from that cgroup's events. */
static void test_cgroups(void **state)
{
	static const struct sf_event evs[] = {
		{ "instructions", "cpu", EV_SRC_HARDWARE, 1, -1, NULL, false, { 900 } },
		{ "cycles", "cpu", EV_SRC_HARDWARE, 0, -1, NULL, false, { 300 } },
		{ "instructions", "cpu", EV_SRC_HARDWARE, 1, -1, NULL, false, { 100 } },
		{ "cycles", "cpu", EV_SRC_HARDWARE, 0, -1, NULL, false, { 400 } },
		{ "page-faults", "software", EV_SRC_SOFTWARE, 2, -1, NULL, false, { 5 } },
	};
	static const int cpus[] = { 1 };
	struct stat_fixture f;
	sf_build(&f, cpus, 1, evs, ARRAY_SIZE(evs), NULL, 0, 1.0);
	f.l.ev[0].cgroup = f.l.ev[1].cgroup = (char *)"web";
	f.l.ev[2].cgroup = f.l.ev[3].cgroup = (char *)"db";
	char *t = prom_format(&f.r, 0);
	assert_non_null(strstr(t, "\nlperf_event_total{cgroup=\"web\",cpu=\"1\",event=\"instructions\",pmu=\"cpu\"} 900\n"));
	assert_non_null(strstr(t, "\nlperf_event_total{cgroup=\"db\",cpu=\"1\",event=\"cycles\",pmu=\"cpu\"} 400\n"));
	assert_non_null(strstr(t, "\nlperf_event_total{cpu=\"1\",event=\"page-faults\",pmu=\"software\"} 5\n"));
	assert_non_null(strstr(t, "\nlperf_ipc{cgroup=\"web\",cpu=\"1\"} 3\n"));
	assert_non_null(strstr(t, "\nlperf_ipc{cgroup=\"db\",cpu=\"1\"} 0.25\n"));
	free(t);
	for (size_t i = 0; i < 4; i++)
		f.l.ev[i].cgroup = NULL;
	sf_free(&f);
}

/* --per-thread: totals unless --labels asks for comm and/or pid; names escaped. */
static void test_threads(void **state)
{
	static const struct sf_event evs[] = {
		{ "page-faults", "software", EV_SRC_SOFTWARE, 2, -1, NULL, false, { 7, 3 } },
	};
	static const int cols[] = { -1, -1 };
	struct stat_fixture f;
	sf_build(&f, cols, 2, evs, 1, NULL, 0, 1.0);
	int tids[] = { 101, 102 };
	char *names[] = { (char *)"web-server-101", (char *)"a\"b-102" };
	f.r.tids = tids;
	f.r.tnames = names;
	char *t = prom_format(&f.r, 0);
	assert_non_null(strstr(t, "\nlperf_event_total{event=\"page-faults\",pmu=\"software\"} 10\n"));
	assert_null(strstr(t, "pid="));
	assert_null(strstr(t, "web"));
	free(t);
	t = prom_format(&f.r, PROM_LABEL_PID);
	assert_non_null(strstr(t, "\nlperf_event_total{event=\"page-faults\",pid=\"101\",pmu=\"software\"} 7\n"));
	assert_null(strstr(t, "web"));
	free(t);
	t = prom_format(&f.r, PROM_LABEL_PID | PROM_LABEL_COMM);
	assert_non_null(strstr(t, "\nlperf_event_total{comm=\"web-server\",event=\"page-faults\",pid=\"101\",pmu=\"software\"} 7\n"));
	assert_non_null(strstr(t, "\nlperf_event_total{comm=\"a\\\"b\",event=\"page-faults\",pid=\"102\",pmu=\"software\"} 3\n"));
	free(t);
	f.r.tids = NULL;
	f.r.tnames = NULL;
	sf_free(&f);
}

#ifdef LPERF_HAVE_RW
static const char *label_of(const Lperf__Rw__TimeSeries *ts, const char *name)
{
	for (size_t i = 0; i < ts->n_labels; i++)
		if (!strcmp(ts->labels[i]->name, name))
			return ts->labels[i]->value;
	return NULL;
}

static void test_remote_write(void **state)
{
	struct stat_fixture f;
	x86(&f);
	struct prom_rw rw;
	const char *extra[] = { "job", "lperf", "instance", "host1", NULL };
	prom_rw_init(&rw, &f.r, 0, extra);
	/* 6 event series, 2 IPC, 1 up */
	assert_int_equal(rw.n, 9);
	struct pushq q;
	pushq_init(&q, rw.n, 1 << 20, 1000);
	double v[9];
	prom_rw_values(&f.r, 0, v, rw.n);
	assert_true(v[0] == 4000 && v[7] == 0.5 && v[8] == 1.5);
	pushq_add(&q, 1000, v);
	v[0] = 5000;
	v[6] = NAN; /* no sample for this series in this snapshot */
	pushq_add(&q, 2000, v);

	char *body;
	size_t len, ulen;
	assert_int_equal(prom_rw_encode(&rw, &q, 2, &body, &len), 0);
	assert_int_equal(snappy_uncompressed_length(body, len, &ulen), SNAPPY_OK);
	char *raw = malloc(ulen);
	assert_int_equal(snappy_uncompress(body, len, raw, &ulen), SNAPPY_OK);
	Lperf__Rw__WriteRequest *req = lperf__rw__write_request__unpack(NULL, ulen, (uint8_t *)raw);
	assert_non_null(req);
	assert_int_equal(req->n_timeseries, 9);
	for (size_t i = 0; i < req->n_timeseries; i++) {
		const Lperf__Rw__TimeSeries *ts = req->timeseries[i];
		assert_string_equal(ts->labels[0]->name, "__name__");
		for (size_t k = 1; k < ts->n_labels; k++)
			assert_true(strcmp(ts->labels[k - 1]->name, ts->labels[k]->name) < 0);
		assert_string_equal(label_of(ts, "job"), "lperf");
		assert_string_equal(label_of(ts, "instance"), "host1");
		assert_int_equal(ts->n_samples, i == 6 ? 1 : 2);
		assert_int_equal(ts->samples[0]->timestamp, 1000);
	}
	const Lperf__Rw__TimeSeries *t0 = req->timeseries[0];
	assert_string_equal(label_of(t0, "__name__"), "lperf_event_total");
	assert_string_equal(label_of(t0, "event"), "instructions");
	assert_string_equal(label_of(t0, "cpu"), "0");
	assert_int_equal(t0->n_labels, 6);
	assert_true(t0->samples[0]->value == 4000 && t0->samples[1]->value == 5000);
	assert_int_equal(t0->samples[1]->timestamp, 2000);
	assert_string_equal(label_of(req->timeseries[6], "__name__"), "lperf_ipc");
	assert_int_equal(req->timeseries[6]->n_labels, 4); /* __name__, cpu, instance, job */
	assert_string_equal(label_of(req->timeseries[8], "__name__"), "lperf_up_seconds");
	lperf__rw__write_request__free_unpacked(req, NULL);
	free(raw);
	free(body);
	pushq_free(&q);
	prom_rw_free(&rw);
	sf_free(&f);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_per_cpu),
		cmocka_unit_test(test_text_arm_task),
		cmocka_unit_test(test_ipc_absent_or_nan),
		cmocka_unit_test(test_cgroups),
		cmocka_unit_test(test_threads),
#ifdef LPERF_HAVE_RW
		cmocka_unit_test(test_remote_write),
#endif
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

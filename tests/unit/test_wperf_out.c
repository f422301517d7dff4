/* WindowsPerf's counting output from a stat_result built by hand (no kernel): the per-core
 * table, and the DSU (L3 cache metrics) and DMC (ddr metrics) sections wperf prints for
 * /dsu/ and /dmc_clkdiv2/ events, text and JSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "kernel/counter.h"
#include "output/wperf_out.h"
#include "stat/stat_result.h"
#include "stat_fixture.h"

struct fixture {
	struct stat_fixture sf;
	struct stat_result r;
};

static void make(struct fixture *f)
{
	static const int cpus[] = { 0, 1 };
	/* The uncore counters read on CPU 0 (their cpumask); CPU 1's readings are zero. */
	static const struct sf_event evs[] = {
		{ "inst_spec", "armv8_pmuv3_0", EV_SRC_SYSFS, 0x1b, -1, NULL, false, { 1000, 2000 } },
		{ "arm_dsu_0/l3d_cache/", "arm_dsu_0", EV_SRC_SYSFS, 0x2b, -1, NULL, false, { 1000000, 0 } },
		{ "arm_dsu_0/l3d_cache_refill/", "arm_dsu_0", EV_SRC_SYSFS, 0x2a, -1, NULL, false, { 250000, 0 } },
		{ "arm_dmc620_10008c000/clkdiv2_rdwr/", "arm_dmc620_10008c000", EV_SRC_SYSFS, 0x32, -1, NULL, false,
		  { 2000000, 0 } },
	};
	sf_build(&f->sf, cpus, 2, evs, ARRAY_SIZE(evs), NULL, 0, 1.5);
	f->r = f->sf.r;
}

/* The caller owns the memstream's buffer (GCC 12's aarch64 build calls a local one dangling). */
static char *render(struct fixture *f, bool json, char **buf, size_t *len)
{
	*buf = NULL;
	FILE *m = open_memstream(buf, len);
	struct wperf_stat_view v = { "Arm Limited", "neoverse-n1", false, false, true };
	if (json) {
		struct json j;
		json_init(&j, m, false);
		wperf_stat_json(&j, NULL, &f->r, &v);
		json_finish(&j);
	} else {
		wperf_stat_text(m, &f->r, &v);
	}
	fclose(m);
	return *buf;
}

static void test_text_sections(void **state)
{
	struct fixture f;
	make(&f);
	char *buf;
	size_t len;
	char *s = render(&f, false, &buf, &len);
	assert_non_null(strstr(s, "Performance counter stats for core 0, no multiplexing, kernel mode "
				  "excluded, on Arm Limited core implementation:"));
	assert_non_null(strstr(s, "System-wide Overall:"));
	assert_non_null(strstr(s, "Performance counter stats for DSU cluster 0,"));
	/* l3d_cache x 64 B = 64 MB, 250000 / 1000000 refills = 25% */
	assert_non_null(strstr(s, "L3 cache metrics:"));
	assert_non_null(strstr(s, "64.00MB"));
	assert_non_null(strstr(s, "25.00%"));
	/* rdwr x 128 B = 256 MB, per channel and for all */
	assert_non_null(strstr(s, "ddr metrics:"));
	assert_non_null(strstr(s, "256.00MB"));
	assert_non_null(strstr(s, "dmc 0"));
	/* Uncore events are not in the core tables. */
	char *core = strstr(s, "System-wide Overall:");
	char *dsu = strstr(s, "DSU cluster");
	assert_true(core < dsu);
	*dsu = 0;
	assert_null(strstr(s, "l3d_cache"));
	assert_null(strstr(s, "rdwr"));
	free(s);
	sf_free(&f.sf);
}

static void test_json_sections(void **state)
{
	struct fixture f;
	make(&f);
	char *buf;
	size_t len;
	char *s = render(&f, true, &buf, &len);
	assert_non_null(strstr(s, "\"dsu\":{\"0\":{\"Performance_counter\":[{\"counter_value\":1000000,"
				  "\"event_name\":\"l3d_cache\""));
	assert_non_null(strstr(s, "\"L3_Cache_Metrics\":[{\"cluster\":\"0\""));
	assert_non_null(strstr(s, "\"PMU_Performance_Counters\":[{\"pmu_id\":\"dmc 0\",\"counter_value\":2000000,"
				  "\"event_name\":\"rdwr\""));
	assert_non_null(strstr(s, "{\"channel\":\"all\",\"rw_bandwidth\":\"256.00MB\"}"));
	assert_non_null(strstr(s, "\"Time_elapsed\":1.5"));
	free(s);
	sf_free(&f.sf);
}

/* ---- Golden outputs: today's tables, JSON and timeline CSV, byte for byte ---- */

static const struct wperf_stat_view arm_view = { "Arm Limited", "neoverse-n1", false, false, true };

/* Two cores, a {} group asked for by a metric, the cycle counter, a DSU cluster and a DMC. */
static void two_cores(struct stat_fixture *f)
{
	static const int cpus[] = { 0, 1 };
	static const struct sf_event evs[] = {
		{ "cycles", "armv8_pmuv3_0", EV_SRC_HARDWARE, 0, -1, NULL, false, { 2000000, 3000000 } },
		{ "inst_spec", "armv8_pmuv3_0", EV_SRC_SYSFS, 0x1b, 0, "scalar_fp_percentage", false,
		  { 1500000, 2500000 } },
		{ "vfp_spec", "armv8_pmuv3_0", EV_SRC_SYSFS, 0x75, 0, "scalar_fp_percentage", false,
		  { 150000, 125000 } },
		{ "duration_time", "tool", EV_SRC_TOOL, 0, -1, NULL, false, { 0 } },
		{ "arm_dsu_0/l3d_cache/", "arm_dsu_0", EV_SRC_SYSFS, 0x2b, -1, NULL, false, { 1000000, 0 } },
		{ "arm_dsu_0/l3d_cache_refill/", "arm_dsu_0", EV_SRC_SYSFS, 0x2a, -1, NULL, false, { 250000, 0 } },
		{ "arm_dmc620_10008c000/clkdiv2_rdwr/", "arm_dmc620_10008c000", EV_SRC_SYSFS, 0x32, -1, NULL, false,
		  { 2000000, 0 } },
		{ "arm_dmc620_10028c000/clkdiv2_rdwr/", "arm_dmc620_10028c000", EV_SRC_SYSFS, 0x32, -1, NULL, false,
		  { 0, 1000000 } },
	};
	static const struct sf_metric mets[] = {
		{ "scalar_fp_percentage", "vfp_spec / inst_spec * 100", "percent of operations" },
	};
	sf_build(f, cpus, 2, evs, ARRAY_SIZE(evs), mets, 1, 1.25);
}

/* One core, multiplexed, an event the PMU could not count, no uncore. */
static void one_core_mux(struct stat_fixture *f)
{
	static const int cpus[] = { 2 };
	static const struct sf_event evs[] = {
		{ "cycles", "armv8_pmuv3_0", EV_SRC_HARDWARE, 0, -1, NULL, false, { 5000000 } },
		{ "ld_spec", "armv8_pmuv3_0", EV_SRC_SYSFS, 0x70, -1, NULL, false, { 250000 }, { 4000000 }, { 1000000 } },
		{ "br_mis_pred", "armv8_pmuv3_0", EV_SRC_SYSFS, 0x10, -1, NULL, true, { 0 } },
	};
	static const struct sf_metric mets[] = {
		{ "load_per_cycle", "ld_spec / cycles", "per cycle" },
		{ "mispred_rate", "br_mis_pred / ld_spec", "per load" },
	};
	sf_build(f, cpus, 1, evs, ARRAY_SIZE(evs), mets, 2, 0.5);
}

static void check_text_json(void (*make_fixture)(struct stat_fixture *), const char *name)
{
	struct stat_fixture f;
	make_fixture(&f);
	char *text, *json, *compact;
	SF_CAPTURE(text, wperf_stat_text(mf, &f.r, &arm_view));
	SF_CAPTURE(json, {
		struct json j;
		json_init(&j, mf, true);
		wperf_stat_json(&j, NULL, &f.r, &arm_view);
		json_finish(&j);
	});
	SF_CAPTURE(compact, {
		struct json j;
		json_init(&j, mf, false);
		wperf_stat_json(&j, NULL, &f.r, &arm_view);
		json_finish(&j);
	});
	char *tn = xasprintf("%s.txt", name), *jn = xasprintf("%s.json", name), *cn = xasprintf("%s.min.json", name);
	golden_check(tn, text);
	golden_check(jn, json);
	golden_check(cn, compact);
	free(tn);
	free(jn);
	free(cn);
	free(text);
	free(json);
	free(compact);
	sf_free(&f);
}

static void test_golden_two_cores(void **state)
{
	check_text_json(two_cores, "wperf_stat_two_cores");
}

static void test_golden_one_core_mux(void **state)
{
	check_text_json(one_core_mux, "wperf_stat_one_core_mux");
}

/* The -t timeline file: the header block once, then one row per count. */
static void test_golden_timeline_csv(void **state)
{
	struct stat_fixture a, b;
	two_cores(&a);
	one_core_mux(&b);
	char *csv;
	SF_CAPTURE(csv, {
		wperf_timeline_csv_header(mf, &a.r, &arm_view, 0.5, stat_multiplexed(&a.r));
		wperf_timeline_csv_row(mf, &a.r, stat_multiplexed(&a.r));
		wperf_timeline_csv_row(mf, &a.r, stat_multiplexed(&a.r));
	});
	golden_check("wperf_timeline_two_cores.csv", csv);
	free(csv);
	SF_CAPTURE(csv, {
		wperf_timeline_csv_header(mf, &b.r, &arm_view, 60, true);
		wperf_timeline_csv_row(mf, &b.r, true);
	});
	golden_check("wperf_timeline_one_core_mux.csv", csv);
	free(csv);
	/* --json: the count duration and interval, then each count's stat object. */
	struct stat_result runs[2] = { b.r, b.r };
	SF_CAPTURE(csv, wperf_timeline_json(mf, runs, 2, 1, 0.5, &arm_view));
	golden_check("wperf_timeline_one_core_mux.json", csv);
	free(csv);
	sf_free(&a);
	sf_free(&b);
}

/* wperf -m l3_cache: the uncore metrics have their own table, not the per-core one. */
static void test_uncore_metric_asked(void **state)
{
	static const int cpus[] = { 0 };
	static const struct sf_event evs[] = {
		{ "arm_dsu_0/l3d_cache/", "arm_dsu_0", EV_SRC_SYSFS, 0x2b, -1, "l3_cache", false, { 2000000 } },
		{ "arm_dsu_0/l3d_cache_refill/", "arm_dsu_0", EV_SRC_SYSFS, 0x2a, -1, "l3_cache", false, { 500000 } },
	};
	static const struct sf_metric mets[] = {
		{ "l3_read_bandwidth", "l3d_cache * 64 / 1e6", "MB", "arm_dsu_" },
		{ "l3_miss_rate", "l3d_cache_refill / l3d_cache * 100", "percent of L3 accesses", "arm_dsu_" },
	};
	struct stat_fixture f;
	sf_build(&f, cpus, 1, evs, ARRAY_SIZE(evs), mets, 2, 1);
	char *text, *csv;
	SF_CAPTURE(text, wperf_stat_text(mf, &f.r, &arm_view));
	assert_null(strstr(text, "Telemetry Solution Metrics"));
	assert_non_null(strstr(text, "              0               128.00MB     25.00%\n"));
	SF_CAPTURE(csv, wperf_timeline_csv_header(mf, &f.r, &arm_view, 1, false));
	assert_null(strstr(csv, "M@"));
	free(text);
	free(csv);
	sf_free(&f);
}

/* wperf -m imix: an event set, counted as one group in wperf's order and noted "g0,imix";
 * no Telemetry table, no M@ column, no ts_metric entry (it has no formula). */
static void test_imix_event_set(void **state)
{
	static const int cpus[] = { 1 };
	static const char *const names[] = { "inst_spec", "dp_spec", "vfp_spec", "ase_spec", "ld_spec",
					     "st_spec" };
	static const uint64_t codes[] = { 0x1b, 0x73, 0x75, 0x74, 0x70, 0x71 };
	struct sf_event evs[7] = {
		{ "cycles", "armv8_pmuv3_0", EV_SRC_HARDWARE, 0, -1, NULL, false, { 9000 } },
	};
	for (int i = 0; i < 6; i++)
		evs[i + 1] = (struct sf_event){ names[i], "armv8_pmuv3_0", EV_SRC_SYSFS, codes[i], 0,
						"imix", false, { 100u * (unsigned)(i + 1) } };
	static const struct sf_metric mets[] = { { "imix", NULL, "" } };
	struct stat_fixture f;
	sf_build(&f, cpus, 1, evs, ARRAY_SIZE(evs), mets, 1, 3);
	char *text, *csv, *json;
	SF_CAPTURE(text, wperf_stat_text(mf, &f.r, &arm_view));
	assert_null(strstr(text, "Telemetry Solution Metrics"));
	const char *c = strstr(text, " cycle ");
	const char *a = strstr(text, " inst_spec "), *b = strstr(text, " dp_spec ");
	const char *s = strstr(text, " st_spec ");
	assert_non_null(c);
	assert_true(a && b && s && c < a && a < b && b < s);
	assert_non_null(strstr(text, "0x1b       g0,imix\n"));
	SF_CAPTURE(csv, wperf_timeline_csv_header(mf, &f.r, &arm_view, 1, false));
	assert_non_null(strstr(csv, "cycle,inst_spec,dp_spec,vfp_spec,ase_spec,ld_spec,st_spec,\n"));
	assert_null(strstr(csv, "M@"));
	SF_CAPTURE(json, {
		struct json j;
		json_init(&j, mf, false);
		wperf_stat_json(&j, NULL, &f.r, &arm_view);
		json_finish(&j);
	});
	assert_null(strstr(json, "\"imix\":"));
	free(text);
	free(csv);
	free(json);
	sf_free(&f);
}

/* An event typed in capitals is shown by its canonical (sysfs) name, as wperf shows it. */
static void test_canonical_names(void **state)
{
	static const int cpus[] = { 0 };
	static const struct sf_event evs[] = {
		{ "LD_SPEC", "armv8_pmuv3_0", EV_SRC_SYSFS, 0x70, -1, NULL, false, { 10 } },
		{ "Ase_Spec", "armv8_pmuv3_0", EV_SRC_SYSFS, 0x74, -1, NULL, false, { 20 } },
	};
	struct stat_fixture f;
	sf_build(&f, cpus, 1, evs, ARRAY_SIZE(evs), NULL, 0, 1);
	f.l.ev[0].base = (char *)"ld_spec";   /* as events/ resolves a sysfs name */
	f.l.ev[1].base = (char *)"ase_spec";
	char *text, *csv;
	SF_CAPTURE(text, wperf_stat_text(mf, &f.r, &arm_view));
	assert_non_null(strstr(text, " ld_spec "));
	assert_non_null(strstr(text, " ase_spec "));
	assert_null(strstr(text, "LD_SPEC"));
	SF_CAPTURE(csv, wperf_timeline_csv_header(mf, &f.r, &arm_view, 1, false));
	assert_non_null(strstr(csv, "\nld_spec,ase_spec,\n"));
	free(text);
	free(csv);
	sf_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_sections),
		cmocka_unit_test(test_json_sections),
		cmocka_unit_test(test_golden_two_cores),
		cmocka_unit_test(test_golden_one_core_mux),
		cmocka_unit_test(test_golden_timeline_csv),
		cmocka_unit_test(test_uncore_metric_asked),
		cmocka_unit_test(test_imix_event_set),
		cmocka_unit_test(test_canonical_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

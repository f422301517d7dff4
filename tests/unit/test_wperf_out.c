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
#include "stat/stat.h"

struct fixture {
	struct evlist l;
	struct counters c;
	struct stat_result r;
};

static void set(struct stat_value *v, uint64_t val)
{
	v->raw = (struct counter_val){ val, 1000000, 1000000 };
	v->status = counter_scale(&v->raw, &v->scaled);
}

static void make(struct fixture *f)
{
	memset(f, 0, sizeof(*f));
	static const struct {
		const char *name, *pmu;
		uint64_t config;
	} evs[] = {
		{ "inst_spec", "armv8_pmuv3_0", 0x1b },
		{ "arm_dsu_0/l3d_cache/", "arm_dsu_0", 0x2b },
		{ "arm_dsu_0/l3d_cache_refill/", "arm_dsu_0", 0x2a },
		{ "arm_dmc620_10008c000/clkdiv2_rdwr/", "arm_dmc620_10008c000", 0x32 },
	};
	f->l.n = 4;
	f->l.ev = calloc(4, sizeof(struct ev));
	for (size_t i = 0; i < 4; i++) {
		f->l.ev[i].name = (char *)evs[i].name;
		f->l.ev[i].base = (char *)evs[i].name;
		f->l.ev[i].pmu = (char *)evs[i].pmu;
		f->l.ev[i].attr.config = evs[i].config;
		f->l.ev[i].group = -1;
		f->l.ev[i].leader = i;
		f->l.ev[i].source = EV_SRC_SYSFS;
	}
	static int cpus[] = { 0, 1 };
	static bool supported[] = { true, true, true, true };
	static char *why[4];
	f->c.evl = &f->l;
	f->c.cpus = cpus;
	f->c.ncpus = 2;
	f->c.npids = 1;
	f->c.supported = supported;
	f->c.why = why;
	stat_result_init(&f->r, &f->c, NULL, 0);
	set(&f->r.ev[0].cpu[0], 1000);
	set(&f->r.ev[0].cpu[1], 2000);
	set(&f->r.ev[0].total, 3000);
	/* The uncore counters read on CPU 0 (their cpumask); CPU 1's readings are zero. */
	set(&f->r.ev[1].cpu[0], 1000000);
	set(&f->r.ev[2].cpu[0], 250000);
	set(&f->r.ev[3].cpu[0], 2000000);
	f->r.duration = 1.5;
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
	stat_result_free(&f.r);
	free(f.l.ev);
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
	stat_result_free(&f.r);
	free(f.l.ev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_sections),
		cmocka_unit_test(test_json_sections),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

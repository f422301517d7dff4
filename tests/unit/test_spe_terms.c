/* SPE filters in the -e grammar against the Arm fixture's arm_spe_0 (Linux 6.1's format and
 * caps files): WindowsPerf's and Linux's spellings, widths, the attr record opens, the version
 * sysfs implies, and the line for a machine without SPE. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "events/evlist.h"
#include "events/pmu.h"
#include "events/spe_terms.h"
#include "spe/spe.h"
#include "util/error.h"
#include "util/xalloc.h"

#include "events_test.h"

static int setup_arm(void **state)
{
	use_sysfs("sysfs-arm");
	pmu_table_reset();
	return 0;
}

static void encode(const char *terms, struct perf_event_attr *a)
{
	const struct pmu *p = pmu_find("arm_spe_0");
	assert_non_null(p);
	memset(a, 0, sizeof(*a));
	if (pmu_encode(p, terms, a, NULL) < 0)
		fail_msg("%s: %s", terms, err_msg());
}

static void test_spellings(void **state)
{
	struct perf_event_attr a, b;
	encode("ld=1,min_latency=64", &a);
	assert_int_equal(a.config, 1ULL << 33);
	assert_int_equal(a.config1, 0);
	assert_int_equal(a.config2, 64);
	encode("st=1,b=1,ts=1,pa=1,pct=1,j=1,ev=0x2a,min=4095", &a);
	encode("store_filter=1,branch_filter=1,ts_enable=1,pa_enable=1,pct_enable=1,jitter=1,"
	       "event_filter=0x2a,min_latency=4095", &b);
	assert_memory_equal(&a, &b, sizeof(a));
	assert_int_equal(a.config, (1ULL << 34) | (1ULL << 32) | (1ULL << 16) | 7);
	assert_string_equal(spe_term_alias("arm_spe_0", "LD"), "load_filter");
	assert_null(spe_term_alias("armv8_pmuv3_0", "ld"));
	assert_null(spe_term_alias("arm_spe_0", "load"));
	/* min_latency is 12 bits here (config2:0-11) */
	const struct pmu *p = pmu_find("arm_spe_0");
	memset(&a, 0, sizeof(a));
	assert_int_equal(pmu_encode(p, "min=4096", &a, NULL), -1);
	assert_non_null(strstr(err_msg(), "12 bits"));
}

static void test_attr_and_caps(void **state)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.freq = 1;
	a.sample_freq = 4000;
	assert_int_equal(spe_cap("arm_spe_0", "min_interval"), 256);
	assert_int_equal(spe_cap("arm_spe_0", "count_size"), 12);
	assert_int_equal(spe_cap("arm_spe_0", "nope"), -1);
	assert_int_equal(spe_attr_prepare(&a, "arm_spe_0", 0), 0);
	assert_int_equal(a.freq, 0);
	assert_int_equal(a.sample_period, 256);
	assert_true(a.sample_type & PERF_SAMPLE_CPU);
	assert_int_equal(spe_attr_prepare(&a, "arm_spe_0", 100), -1);
	assert_non_null(strstr(err_msg(), "min_interval (256)"));
	assert_non_null(spe_term_info("min_latency"));
	assert_string_equal(spe_term_info("load_filter")->alias, "ld");
}

static void test_version_infer(void **state)
{
	char *f61[] = { "branch_filter", "event_filter", "jitter", "load_filter" };
	char *caps0[] = { "arch_inst=1", "count_size=12", "ernd=0", "min_interval=256" };
	char *caps1[] = { "ernd=1" };
	char *f64[] = { "discard", "inv_event_filter" };
	assert_int_equal(spe_version_infer(f61, 4, caps0, 4), SPE_V1);
	assert_int_equal(spe_version_infer(f61, 4, caps1, 1), SPE_V1P1);
	assert_int_equal(spe_version_infer(f64, 2, caps1, 1), SPE_V1P2);
}

static void test_absent(void **state)
{
	use_sysfs("sysfs-amd");
	pmu_table_reset();
	struct evlist l = { 0 };
	assert_int_equal(evlist_parse(&l, "arm_spe_0/ld=1/"), -1);
	assert_non_null(strstr(err_msg(), "no Arm SPE PMU"));
	evlist_free(&l);
	use_sysfs("sysfs-arm");
	pmu_table_reset();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_spellings, setup_arm),
		cmocka_unit_test_setup(test_attr_and_caps, setup_arm),
		cmocka_unit_test(test_version_infer),
		cmocka_unit_test_setup(test_absent, setup_arm),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* sysfs PMUs: reading the fixture trees, the Arm architectural event numbers, format files
 * (multi-range fields, overflow), term lists, and trees that are broken on purpose. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/evlist.h"
#include "events/pmu.h"
#include "util/error.h"
#include "util/xalloc.h"

#include "events_test.h"

static int setup_arm(void **state)
{
	use_sysfs("sysfs-arm");
	return 0;
}

static int setup_amd(void **state)
{
	use_sysfs("sysfs-amd");
	return 0;
}

static int setup_bad(void **state)
{
	use_sysfs("sysfs-bad");
	return 0;
}

static void test_arm_tree(void **state)
{
	const struct pmu_table *t = pmu_table();
	assert_int_equal(t->n, 5);
	/* core PMU first, then by name */
	assert_string_equal(t->p[0].name, "armv8_pmuv3_0");
	assert_string_equal(t->p[1].name, "arm_spe_0");
	assert_string_equal(t->p[4].name, "tracepoint");
	const struct pmu *p = pmu_find("armv8_pmuv3_0");
	assert_ptr_equal(p, &t->p[0]);
	assert_int_equal(p->type, 10);
	assert_true(p->is_core);
	assert_true(p->is_arm);
	assert_string_equal(p->cpus, "0-3");
	assert_int_equal(pmu_find_format(p, "event")->field, PMU_CONFIG);
	assert_int_equal(pmu_find_format(p, "event")->mask, 0xffff);
	assert_int_equal(pmu_find_format(p, "long")->field, PMU_CONFIG1);
	assert_int_equal(pmu_find_format(p, "long")->mask, 1);
	assert_ptr_equal(pmu_single_core(), p);
	assert_true(pmu_have_core());
	assert_int_equal(pmu_find("software")->type, 1);
	assert_int_equal(pmu_find("tracepoint")->type, 2);
	assert_false(pmu_find("software")->is_core);
	assert_true(pmu_is_software("software"));
	assert_true(pmu_is_software("kprobe"));
	assert_false(pmu_is_software("arm_spe_0"));
	/* cached: the same table until the root changes */
	assert_ptr_equal(pmu_table(), t);
	assert_ptr_equal(pmu_find("armv8_pmuv3_0"), p);
}

/* The numbers of include/linux/perf/arm_pmuv3.h (ARMV8_PMUV3_PERFCTR_* and, for the _spec
 * events, ARMV8_IMPDEF_PERFCTR_*), which the fixture must carry and lperf must encode. */
static const struct { const char *name; uint16_t code; } arm_arch[] = {
	{ "sw_incr", 0x00 }, { "l1i_cache_refill", 0x01 }, { "l1i_tlb_refill", 0x02 },
	{ "l1d_cache_refill", 0x03 }, { "l1d_cache", 0x04 }, { "l1d_tlb_refill", 0x05 },
	{ "ld_retired", 0x06 }, { "st_retired", 0x07 }, { "inst_retired", 0x08 },
	{ "exc_taken", 0x09 }, { "exc_return", 0x0a }, { "br_mis_pred", 0x10 },
	{ "cpu_cycles", 0x11 }, { "br_pred", 0x12 }, { "mem_access", 0x13 },
	{ "l1i_cache", 0x14 }, { "l1d_cache_wb", 0x15 }, { "l2d_cache", 0x16 },
	{ "l2d_cache_refill", 0x17 }, { "l2d_cache_wb", 0x18 }, { "bus_access", 0x19 },
	{ "inst_spec", 0x1b }, { "bus_cycles", 0x1d }, { "br_retired", 0x21 },
	{ "br_mis_pred_retired", 0x22 }, { "stall_frontend", 0x23 },
	{ "stall_backend", 0x24 }, { "l1d_tlb", 0x25 }, { "l1i_tlb", 0x26 },
	{ "l2i_cache", 0x27 }, { "l2i_cache_refill", 0x28 }, { "l3d_cache_refill", 0x2a },
	{ "l3d_cache", 0x2b }, { "l2d_tlb_refill", 0x2d }, { "l2i_tlb_refill", 0x2e },
	{ "l2d_tlb", 0x2f }, { "l2i_tlb", 0x30 }, { "ll_cache", 0x32 },
	{ "ll_cache_miss", 0x33 }, { "dtlb_walk", 0x34 }, { "itlb_walk", 0x35 },
	{ "ll_cache_rd", 0x36 }, { "ll_cache_miss_rd", 0x37 }, { "op_retired", 0x3a },
	{ "op_spec", 0x3b }, { "stall_slot_backend", 0x3d }, { "stall_slot_frontend", 0x3e },
	{ "stall_slot", 0x3f }, { "ld_spec", 0x70 }, { "st_spec", 0x71 },
	{ "ldst_spec", 0x72 }, { "dp_spec", 0x73 }, { "ase_spec", 0x74 },
	{ "vfp_spec", 0x75 }, { "pc_write_spec", 0x76 }, { "crypto_spec", 0x77 },
	{ "br_immed_spec", 0x78 }, { "br_return_spec", 0x79 }, { "br_indirect_spec", 0x7a },
	{ "isb_spec", 0x7c }, { "dsb_spec", 0x7d }, { "dmb_spec", 0x7e },
	{ "sample_pop", 0x4000 },
};

static void test_arm_numbers(void **state)
{
	const struct pmu *p = pmu_find("armv8_pmuv3_0");
	for (size_t i = 0; i < sizeof(arm_arch) / sizeof(arm_arch[0]); i++) {
		const struct pmu_event *e = pmu_find_event(p, arm_arch[i].name);
		if (!e || e->builtin)
			fail_msg("%s: not in the fixture's events/", arm_arch[i].name);
		char want[32];
		snprintf(want, sizeof(want), "event=0x%04x", arm_arch[i].code);
		assert_string_equal(e->terms, want); /* the kernel's "event=0x%04llx" */
		struct ev ev;
		resolve_ok(arm_arch[i].name, &ev);
		assert_int_equal(ev.source, EV_SRC_SYSFS);
		assert_int_equal(ev.attr.type, 10);
		assert_int_equal(ev.attr.config, arm_arch[i].code);
		assert_int_equal(ev.attr.config1, 0);
		assert_string_equal(ev.pmu, "armv8_pmuv3_0");
		assert_true(ev.needs_hw);
		ev_free(&ev);
	}
	struct ev ev;
	resolve_ok("ld_spec", &ev);
	assert_string_equal(ev.encoding, "armv8_pmuv3_0/event=0x70/");
	ev_free(&ev);
	resolve_ok("sw_incr", &ev);
	assert_string_equal(ev.encoding, "armv8_pmuv3_0/event=0/");
	ev_free(&ev);
}

static void test_arm_builtin(void **state)
{
	/* recommended events the kernel leaves out of sysfs come from lperf's table */
	const struct pmu *p = pmu_find("armv8_pmuv3_0");
	const struct pmu_event *e = pmu_find_event(p, "l1d_cache_rd");
	assert_non_null(e);
	assert_true(e->builtin);
	expect_type_config("l1d_cache_rd", 10, 0x40);
	expect_type_config("rc_st_spec", 10, 0x91);
	expect_type_config("l3d_cache_inval", 10, 0xa8);
	/* the kernel's own entry wins over the table */
	assert_false(pmu_find_event(p, "ld_spec")->builtin);
	/* no table for PMUs that are not Arm PMUv3 */
	use_sysfs("sysfs-amd");
	struct ev ev;
	assert_int_equal(ev_resolve("l1d_cache_rd", &ev), -1);
}

static void test_case_and_qualified(void **state)
{
	struct ev ev;
	resolve_ok("LD_SPEC", &ev);
	assert_string_equal(ev.base, "ld_spec");
	assert_string_equal(ev.name, "LD_SPEC");
	assert_int_equal(ev.attr.config, 0x70);
	ev_free(&ev);
	resolve_ok("Inst_Spec", &ev);
	assert_int_equal(ev.attr.config, 0x1b);
	ev_free(&ev);

	resolve_ok("armv8_pmuv3_0/ld_spec/", &ev);
	assert_string_equal(ev.base, "ld_spec");
	assert_string_equal(ev.name, "armv8_pmuv3_0/ld_spec/");
	assert_int_equal(ev.attr.type, 10);
	assert_int_equal(ev.attr.config, 0x70);
	ev_free(&ev);
	resolve_ok("armv8_pmuv3_0/LD_SPEC/", &ev);
	assert_int_equal(ev.attr.config, 0x70);
	ev_free(&ev);

	struct evlist l = { 0 };
	assert_int_equal(evlist_parse(&l, "armv8_pmuv3_0/ld_spec/u,armv8_pmuv3_0/st_spec/:k:1000,"
				      "armv8_pmuv3_0/inst_spec,period=5000/,"
				      "armv8_pmuv3_0/event=0x11,name=cyc/"), 0);
	assert_int_equal(l.n, 4);
	assert_string_equal(l.ev[0].name, "armv8_pmuv3_0/ld_spec/u");
	assert_int_equal(l.ev[0].attr.exclude_kernel, 1);
	assert_true(l.ev[0].user_mods);
	assert_string_equal(l.ev[1].name, "armv8_pmuv3_0/st_spec/:k");
	assert_int_equal(l.ev[1].attr.exclude_user, 1);
	assert_int_equal(l.ev[1].period, 1000);
	assert_int_equal(l.ev[2].period, 5000);
	assert_int_equal(l.ev[2].attr.config, 0x1b);
	assert_string_equal(l.ev[3].name, "cyc");
	assert_int_equal(l.ev[3].attr.config, 0x11);
	assert_int_equal(evlist_find(&l, "cyc"), 3);
	assert_int_equal(evlist_find(&l, "st_spec"), 1);
	evlist_free(&l);

	/* WindowsPerf's period spelling on a sysfs name */
	assert_int_equal(evlist_parse(&l, "{ld_spec:100000,st_spec:0x8000}"), 0);
	assert_int_equal(l.ev[0].period, 100000);
	assert_int_equal(l.ev[1].period, 0x8000);
	assert_int_equal(l.ngroups, 1);
	evlist_free(&l);
}

static void test_arm_terms(void **state)
{
	struct ev ev;
	resolve_ok("armv8_pmuv3_0/event=0x70,long=1/", &ev);
	assert_int_equal(ev.attr.config, 0x70);
	assert_int_equal(ev.attr.config1, 1);
	assert_string_equal(ev.encoding, "armv8_pmuv3_0/event=0x70,long=0x1/");
	assert_string_equal(ev.base, "armv8_pmuv3_0/event=0x70,long=1/");
	ev_free(&ev);
	/* a named event inside the list, then more terms; bare terms mean 1 */
	resolve_ok("armv8_pmuv3_0/inst_retired,long/", &ev);
	assert_int_equal(ev.attr.config, 8);
	assert_int_equal(ev.attr.config1, 1);
	assert_string_equal(ev.base, "inst_retired");
	ev_free(&ev);
	/* later terms override earlier bits */
	expect_type_config("armv8_pmuv3_0/ld_spec,event=0x71/", 10, 0x71);
	expect_type_config("armv8_pmuv3_0/event=0xffff/", 10, 0xffff);
	expect_type_config("armv8_pmuv3_0/event=010/", 10, 10); /* decimal, as perf */
	expect_type_config("armv8_pmuv3_0/config=0x1234/", 10, 0x1234);
	expect_type_config("armv8_pmuv3_0/ event=0x70 /", 10, 0x70);

	assert_int_equal(ev_resolve("armv8_pmuv3_0/event=0x10000/", &ev), -1);
	expect_in(err_msg(), "value 0x10000 of term 'event' is too wide");
	expect_in(err_msg(), "16 bits");
	assert_int_equal(ev_resolve("armv8_pmuv3_0/long=2/", &ev), -1);
	expect_in(err_msg(), "term 'long'");
	expect_in(err_msg(), "1 bit,");
	assert_int_equal(ev_resolve("armv8_pmuv3_0/evnt=1/", &ev), -1);
	expect_in(err_msg(), "no term or event 'evnt'; did you mean 'event'?");
	expect_in(err_msg(), "valid terms: event, long, rdpmc, config, config1, config2, period");
	assert_int_equal(ev_resolve("armv8_pmuv3_0/ld_specc/", &ev), -1);
	expect_in(err_msg(), "did you mean 'ld_spec'");
	assert_int_equal(ev_resolve("armv8_pmuv3_0/ld_spec=1/", &ev), -1);
	expect_in(err_msg(), "takes no value");
	assert_int_equal(ev_resolve("armv8_pmuv3_0/event=zz/", &ev), -1);
	expect_in(err_msg(), "'zz' is not a number");
	assert_int_equal(ev_resolve("armv8_pmuv3_0/event=/", &ev), -1);
	assert_int_equal(ev_resolve("armv8_pmuv3_0/event=1,,long=1/", &ev), -1);
	expect_in(err_msg(), "empty term");
	assert_int_equal(ev_resolve("armv8_pmuv3_0/event=1,/", &ev), -1);
	assert_int_equal(ev_resolve("armv8_pmuv3_0/event=0x1ffffffffffffffff/", &ev), -1);
	assert_int_equal(ev_resolve("armv8_pmuv3_0/period=0/", &ev), -1);
	assert_int_equal(ev_resolve("armv8_pmuv3_0/name=/", &ev), -1);
	assert_int_equal(ev_resolve("armv8pmu/ld_spec/", &ev), -1);
	expect_in(err_msg(), "unknown PMU 'armv8pmu'");
	expect_in(err_msg(), "PMUs here: armv8_pmuv3_0, arm_spe_0");
	assert_int_equal(ev_resolve("armv8_pmu3_0/ld_spec/", &ev), -1);
	expect_in(err_msg(), "did you mean 'armv8_pmuv3_0'");
}

static void test_spe(void **state)
{
	const struct pmu *p = pmu_find("arm_spe_0");
	assert_non_null(p);
	assert_false(p->is_core);
	assert_string_equal(p->cpus, "0-3");
	/* drivers/perf/arm_spe_pmu.c */
	static const struct { const char *name; int field; uint64_t mask; } f[] = {
		{ "ts_enable", PMU_CONFIG, 1ULL << 0 }, { "pa_enable", PMU_CONFIG, 1ULL << 1 },
		{ "pct_enable", PMU_CONFIG, 1ULL << 2 }, { "jitter", PMU_CONFIG, 1ULL << 16 },
		{ "branch_filter", PMU_CONFIG, 1ULL << 32 },
		{ "load_filter", PMU_CONFIG, 1ULL << 33 },
		{ "store_filter", PMU_CONFIG, 1ULL << 34 },
		{ "event_filter", PMU_CONFIG1, ~0ULL }, { "min_latency", PMU_CONFIG2, 0xfff },
	};
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		const struct pmu_format *fmt = pmu_find_format(p, f[i].name);
		assert_non_null(fmt);
		assert_null(fmt->bad);
		assert_int_equal(fmt->field, f[i].field);
		assert_int_equal(fmt->mask, f[i].mask);
	}
	struct ev ev;
	resolve_ok("arm_spe_0/ts_enable=1,pa_enable=1,load_filter=1,store_filter,jitter=1,"
		   "event_filter=0x8000000000000002,min_latency=20/", &ev);
	assert_int_equal(ev.attr.type, 11);
	assert_int_equal(ev.attr.config, 0x600010003ULL);
	assert_int_equal(ev.attr.config1, 0x8000000000000002ULL);
	assert_int_equal(ev.attr.config2, 20);
	assert_true(ev.needs_hw);
	ev_free(&ev);
	resolve_ok("arm_spe_0//", &ev);
	assert_int_equal(ev.attr.type, 11);
	assert_int_equal(ev.attr.config, 0);
	ev_free(&ev);
	assert_int_equal(ev_resolve("arm_spe_0/min_latency=4096/", &ev), -1);
	expect_in(err_msg(), "min_latency has 12 bits, at most 0xfff");
	assert_int_equal(ev_resolve("arm_spe_0/ts_enable=2/", &ev), -1);
}

/* AMD's event field is split over two ranges: config:0-7,32-35. */
static void test_multi_range(void **state)
{
	const struct pmu *p = pmu_find("cpu");
	assert_non_null(p);
	assert_true(p->is_core); /* by name: x86 "cpu" has no cpus file */
	assert_false(p->is_arm);
	assert_int_equal(p->type, 4);
	assert_int_equal(pmu_find_format(p, "event")->mask, 0xf000000ffULL);
	expect_type_config("cpu/event=0xc0/", 4, 0xc0);
	expect_type_config("cpu/event=0x1c0/", 4, 0x1000000c0ULL);
	expect_type_config("cpu/event=0xfff/", 4, 0xf000000ffULL);
	expect_type_config("cpu/event=0x776,umask=0x3,edge,inv=1,cmask=0x2/", 4,
			   0x702840376ULL);
	struct ev ev;
	resolve_ok("cpu/event=0x1c0,umask=1/", &ev);
	assert_string_equal(ev.encoding, "cpu/event=0x1c0,umask=0x1/");
	ev_free(&ev);
	assert_int_equal(ev_resolve("cpu/event=0x1000/", &ev), -1);
	expect_in(err_msg(), "event has 12 bits, at most 0xfff");
	/* sysfs events keep working through the formats, generic names stay generic */
	resolve_ok("cpu-cycles", &ev);
	assert_int_equal(ev.source, EV_SRC_HARDWARE);
	ev_free(&ev);
	expect_type_config("cpu/cpu-cycles/", 4, 0x76);
	expect_type_config("cpu/instructions,umask=0x1/", 4, 0x1c0);
	expect_type_config("aperf", 9, 1);
	/* config= wins over the formats' bits it covers */
	expect_type_config("cpu/event=0xff,config=0x12/", 4, 0x12);
}

static void test_broken_tree(void **state)
{
	const struct pmu_table *t = pmu_table();
	/* badtype (type "xyz") and notype are skipped */
	assert_null(pmu_find("badtype"));
	assert_null(pmu_find("notype"));
	const struct pmu *p = pmu_find("weird");
	assert_non_null(p);
	assert_int_equal(t->n, 1);
	assert_false(p->is_core);
	assert_false(pmu_have_core());
	assert_null(pmu_single_core());
	assert_non_null(pmu_find_format(p, "event")->bad);
	expect_in(pmu_find_format(p, "event")->bad, "format/event");
	assert_non_null(pmu_find_format(p, "umask")->bad);
	expect_in(pmu_find_format(p, "umask")->bad, "configX");
	assert_non_null(pmu_find_format(p, "backwards")->bad);
	assert_non_null(pmu_find_format(p, "empty")->bad);
	assert_null(pmu_find_format(p, "ok")->bad);
	assert_null(pmu_find_event(p, ".hidden"));
	assert_null(pmu_find_event(p, "fine.scale"));
	const struct pmu_event *e = pmu_find_event(p, "fine");
	assert_non_null(e);
	assert_string_equal(e->unit, "MiB");
	assert_true(e->scale > 1.49 && e->scale < 1.51);

	struct ev ev;
	expect_type_config("fine", 12, 3);
	assert_int_equal(ev_resolve("uses_bad", &ev), -1);
	expect_in(err_msg(), "cannot use term 'event'");
	expect_in(err_msg(), "format/event");
	assert_int_equal(ev_resolve("too_wide", &ev), -1);
	expect_in(err_msg(), "too wide");
	expect_in(err_msg(), "too_wide");
	assert_int_equal(ev_resolve("needs_value", &ev), -1);
	expect_in(err_msg(), "needs a value");
	assert_int_equal(ev_resolve("unknown_term", &ev), -1);
	expect_in(err_msg(), "'nosuch'");
	expect_in(err_msg(), "valid terms: ok");
	expect_type_config("empty", 12, 0);
	assert_int_equal(ev_resolve("weird/event=1/", &ev), -1);
	expect_in(err_msg(), "bad bit range");

	/* an absent tree is an empty table */
	use_sysfs(NULL);
	assert_int_equal(pmu_table()->n, 0);
	assert_null(pmu_find("cpu"));
	expect_type_config("cycles", 0, 0);
}

static void test_terms_list(void **state)
{
	char *s = pmu_terms_list(pmu_find("arm_spe_0"));
	assert_string_equal(s, "ts_enable, pa_enable, pct_enable, jitter, branch_filter, "
			       "load_filter, store_filter, event_filter, min_latency, config, "
			       "config1, config2, period, name");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_arm_tree, setup_arm),
		cmocka_unit_test_setup(test_arm_numbers, setup_arm),
		cmocka_unit_test_setup(test_arm_builtin, setup_arm),
		cmocka_unit_test_setup(test_case_and_qualified, setup_arm),
		cmocka_unit_test_setup(test_arm_terms, setup_arm),
		cmocka_unit_test_setup(test_spe, setup_arm),
		cmocka_unit_test_setup(test_terms_list, setup_arm),
		cmocka_unit_test_setup(test_multi_range, setup_amd),
		cmocka_unit_test_setup(test_broken_tree, setup_bad),
	};
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	pmu_table_reset();
	return r;
}

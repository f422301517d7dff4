/* Built-in metrics: every formula evaluated against hand-computed values, the Neoverse-N1
 * Telemetry Solution set and groups, and WindowsPerf's simple metrics as event sets. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "events/metric.h"
#include "util/error.h"
#include "util/xalloc.h"

#include "metric_test.h"

struct case_ {
	const char *name;
	enum metric_arch arch;
	const char *values;  /* every input the formula needs, nothing more */
	double want;
};

static const struct case_ cases[] = {
	{ "backend_stalled_cycles", METRIC_ARM, "stall_backend=250,cpu_cycles=1000", 25 },
	{ "frontend_stalled_cycles", METRIC_ARM, "stall_frontend=100,cpu_cycles=400", 25 },
	{ "ipc", METRIC_ARM, "inst_retired=2000000,cpu_cycles=1000000", 2.0 },
	/* Uncore (DSU clusters, DMC-620 channels): WindowsPerf's l3_cache and ddr_bw. */
	{ "l3_read_bandwidth", METRIC_ARM, "l3d_cache=1000000", 64 },
	{ "l3_miss_rate", METRIC_ARM, "l3d_cache_refill=250,l3d_cache=1000", 25 },
	{ "ddr_rw_bandwidth", METRIC_ARM, "clkdiv2_rdwr=2000000", 256 },
	{ "branch_misprediction_ratio", METRIC_ARM, "br_mis_pred_retired=5,br_retired=200", 0.025 },
	{ "branch_mpki", METRIC_ARM, "br_mis_pred_retired=30,inst_retired=10000", 3 },
	{ "branch_percentage", METRIC_ARM, "br_immed_spec=100,br_indirect_spec=50,inst_spec=1000",
	  15 },
	{ "crypto_percentage", METRIC_ARM, "crypto_spec=20,inst_spec=800", 2.5 },
	{ "integer_dp_percentage", METRIC_ARM, "dp_spec=400,inst_spec=1000", 40 },
	{ "load_percentage", METRIC_ARM, "ld_spec=300,inst_spec=1200", 25 },
	{ "store_percentage", METRIC_ARM, "st_spec=150,inst_spec=1000", 15 },
	{ "simd_percentage", METRIC_ARM, "ase_spec=1,inst_spec=8", 12.5 },
	{ "scalar_fp_percentage", METRIC_ARM, "vfp_spec=3,inst_spec=4", 75 },
	{ "dtlb_mpki", METRIC_ARM, "dtlb_walk=7,inst_retired=2000", 3.5 },
	{ "itlb_mpki", METRIC_ARM, "itlb_walk=1,inst_retired=4000", 0.25 },
	{ "dtlb_walk_ratio", METRIC_ARM, "dtlb_walk=5,l1d_tlb=1000", 0.005 },
	{ "itlb_walk_ratio", METRIC_ARM, "itlb_walk=2,l1i_tlb=50", 0.04 },
	{ "l1d_tlb_mpki", METRIC_ARM, "l1d_tlb_refill=12,inst_retired=3000", 4 },
	{ "l1i_tlb_mpki", METRIC_ARM, "l1i_tlb_refill=9,inst_retired=6000", 1.5 },
	{ "l2_tlb_mpki", METRIC_ARM, "l2d_tlb_refill=1,inst_retired=500", 2 },
	{ "l1d_tlb_miss_ratio", METRIC_ARM, "l1d_tlb_refill=30,l1d_tlb=120", 0.25 },
	{ "l1i_tlb_miss_ratio", METRIC_ARM, "l1i_tlb_refill=1,l1i_tlb=20", 0.05 },
	{ "l2_tlb_miss_ratio", METRIC_ARM, "l2d_tlb_refill=3,l2d_tlb=4", 0.75 },
	{ "l1d_cache_miss_ratio", METRIC_ARM, "l1d_cache_refill=50,l1d_cache=1000", 0.05 },
	{ "l1i_cache_miss_ratio", METRIC_ARM, "l1i_cache_refill=1,l1i_cache=8", 0.125 },
	{ "l1d_cache_mpki", METRIC_ARM, "l1d_cache_refill=50,inst_retired=10000", 5 },
	{ "l1i_cache_mpki", METRIC_ARM, "l1i_cache_refill=7,inst_retired=1000", 7 },
	{ "l2_cache_mpki", METRIC_ARM, "l2d_cache_refill=2,inst_retired=8000", 0.25 },
	{ "l2_cache_miss_ratio", METRIC_ARM, "l2d_cache_refill=10,l2d_cache=40", 0.25 },
	{ "ll_cache_read_hit_ratio", METRIC_ARM, "ll_cache_rd=200,ll_cache_miss_rd=50", 0.75 },
	{ "ll_cache_read_miss_ratio", METRIC_ARM, "ll_cache_miss_rd=50,ll_cache_rd=200", 0.25 },
	{ "ll_cache_read_mpki", METRIC_ARM, "ll_cache_miss_rd=3,inst_retired=1500", 2 },
	{ "l2i_cache_miss_ratio", METRIC_ARM, "l2i_cache_refill=6,l2i_cache=24", 0.25 },
	{ "l2i_cache_mpki", METRIC_ARM, "l2i_cache_refill=6,inst_retired=3000", 2 },
	{ "l2i_tlb_miss_ratio", METRIC_ARM, "l2i_tlb_refill=1,l2i_tlb=5", 0.2 },
	{ "l2i_tlb_mpki", METRIC_ARM, "l2i_tlb_refill=4,inst_retired=1000", 4 },
	/* 100 * 1000 / (8 * 1000) */
	{ "frontend_bound", METRIC_ARM, "stall_slot_frontend=1000,cpu_cycles=1000,#slots=8",
	  12.5 },
	{ "backend_bound", METRIC_ARM, "stall_slot_backend=2000,cpu_cycles=1000,#slots=8", 25 },
	/* 100 * 0.9 * (1 - 3000 / 5000) and 100 * 0.1 * 0.4 */
	{ "retiring", METRIC_ARM,
	  "op_retired=900,op_spec=1000,stall_slot=3000,cpu_cycles=1000,#slots=5", 36 },
	{ "bad_speculation", METRIC_ARM,
	  "op_retired=900,op_spec=1000,stall_slot=3000,cpu_cycles=1000,#slots=5", 4 },

	{ "ipc", METRIC_X86, "instructions=3000,cycles=1000", 3 },
	{ "cpi", METRIC_X86, "cycles=1000,instructions=4000", 0.25 },
	{ "ghz", METRIC_X86, "cycles=3000000000,task-clock=1000000000", 3 },
	{ "frontend_stalled_cycles", METRIC_X86, "stalled-cycles-frontend=10,cycles=200", 5 },
	{ "backend_stalled_cycles", METRIC_X86, "stalled-cycles-backend=60,cycles=200", 30 },
	{ "branch_miss_ratio", METRIC_X86, "branch-misses=2,branches=100", 0.02 },
	{ "branch_mpki", METRIC_X86, "branch-misses=25,instructions=5000", 5 },
	{ "cache_miss_ratio", METRIC_X86, "cache-misses=30,cache-references=120", 0.25 },
	{ "cache_mpki", METRIC_X86, "cache-misses=1,instructions=1000", 1 },
	{ "l1d_miss_ratio", METRIC_X86, "L1-dcache-load-misses=4,L1-dcache-loads=100", 0.04 },
	{ "l1d_mpki", METRIC_X86, "L1-dcache-load-misses=40,instructions=10000", 4 },
	{ "l1i_mpki", METRIC_X86, "L1-icache-load-misses=3,instructions=2000", 1.5 },
	{ "llc_miss_ratio", METRIC_X86, "LLC-load-misses=5,LLC-loads=20", 0.25 },
	{ "llc_mpki", METRIC_X86, "LLC-load-misses=9,instructions=3000", 3 },
	{ "dtlb_miss_ratio", METRIC_X86, "dTLB-load-misses=1,dTLB-loads=1000", 0.001 },
	{ "dtlb_mpki", METRIC_X86, "dTLB-load-misses=2,instructions=1000", 2 },
	{ "itlb_miss_ratio", METRIC_X86, "iTLB-load-misses=3,iTLB-loads=12", 0.25 },
	{ "itlb_mpki", METRIC_X86, "iTLB-load-misses=5,instructions=2000", 2.5 },

	/* 3e9 ns of task time in 2 s of wall time */
	{ "cpus_utilized", METRIC_ANY, "task-clock=3000000000,duration_time=2", 1.5 },
	{ "context_switches_per_sec", METRIC_ANY, "context-switches=500,duration_time=2", 250 },
	{ "cpu_migrations_per_sec", METRIC_ANY, "cpu-migrations=3,duration_time=0.5", 6 },
	{ "page_faults_per_sec", METRIC_ANY, "page-faults=1000,duration_time=4", 250 },
	{ "minor_faults_per_sec", METRIC_ANY, "minor-faults=90,duration_time=3", 30 },
	{ "major_faults_per_sec", METRIC_ANY, "major-faults=1,duration_time=0.25", 4 },
};

static const struct metric *find_arch(const struct metric_set *s, const char *name,
				      enum metric_arch arch)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->m[i].name, name) && s->m[i].arch == arch)
			return &s->m[i];
	return NULL;
}

static bool has_event(const struct metric *m, const char *ev)
{
	for (size_t i = 0; i < m->nevents; i++)
		if (!strcmp(m->events[i], ev))
			return true;
	return false;
}

static void test_builtin_formulas(void **state)
{
	struct metric_set s = { 0 };
	metric_set_builtin(&s);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct case_ *c = &cases[i];
		const struct metric *m = find_arch(&s, c->name, c->arch);
		if (!m)
			fail_msg("no %s metric '%s'", metric_arch_name(c->arch), c->name);
		assert_non_null(m->expr);
		assert_non_null(m->formula);
		assert_true(m->unit && *m->unit && m->desc && *m->desc);
		struct vars v;
		vars_set(&v, c->values);
		double got = metric_eval(m->expr, vars_lookup, &v);
		if (!(fabs(got - c->want) <= fabs(c->want) * 1e-12))
			fail_msg("%s (%s): got %.17g, want %.17g", c->name, m->formula, got,
				 c->want);
		/* events = exactly the inputs, without duration_time and #slots */
		size_t want_n = 0;
		for (int k = 0; k < v.n; k++) {
			if (v.name[k][0] == '#' || !strcmp(v.name[k], "duration_time"))
				continue;
			want_n++;
			if (!has_event(m, v.name[k]))
				fail_msg("%s: events lack '%s'", c->name, v.name[k]);
		}
		assert_int_equal(m->nevents, want_n);
	}
	/* ...and every built-in metric has a case above. */
	for (size_t i = 0; i < s.n; i++) {
		bool covered = false;
		for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]) && !covered; k++)
			covered = !strcmp(cases[k].name, s.m[i].name) &&
				  cases[k].arch == s.m[i].arch;
		if (!covered)
			fail_msg("built-in metric '%s' (%s) has no test case", s.m[i].name,
				 metric_arch_name(s.m[i].arch));
	}
	assert_int_equal(s.n, sizeof(cases) / sizeof(cases[0]));
	metric_set_free(&s);
}

static void test_telemetry_set(void **state)
{
	static const char *const ts[] = {
		"backend_stalled_cycles", "frontend_stalled_cycles", "branch_misprediction_ratio",
		"branch_mpki", "branch_percentage", "crypto_percentage", "integer_dp_percentage",
		"load_percentage", "store_percentage", "simd_percentage", "scalar_fp_percentage",
		"ipc", "dtlb_mpki", "itlb_mpki", "dtlb_walk_ratio", "itlb_walk_ratio",
		"l1d_cache_miss_ratio", "l1i_cache_miss_ratio", "l1d_cache_mpki", "l1i_cache_mpki",
		"l1d_tlb_mpki", "l1i_tlb_mpki", "l2_cache_mpki", "l2_tlb_mpki",
		"l1d_tlb_miss_ratio", "l1i_tlb_miss_ratio", "l2_tlb_miss_ratio",
		"l2_cache_miss_ratio", "ll_cache_read_hit_ratio", "ll_cache_read_miss_ratio",
		"ll_cache_read_mpki",
	};
	static const char *const groups[] = {
		"Cycle_Accounting", "General", "MPKI", "Miss_Ratio", "Branch_Effectiveness",
		"ITLB_Effectiveness", "DTLB_Effectiveness", "L1I_Cache_Effectiveness",
		"L1D_Cache_Effectiveness", "L2_Cache_Effectiveness", "LL_Cache_Effectiveness",
		"Operation_Mix", "Topdown_L1",
	};
	assert_int_equal(sizeof(ts) / sizeof(ts[0]), 31);
	struct metric_set s = { 0 };
	metric_set_builtin(&s);
	for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++)
		if (!find_arch(&s, ts[i], METRIC_ARM))
			fail_msg("missing Arm metric %s", ts[i]);
	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]); i++) {
		const struct metric_group *g = metric_group_find(&s, groups[i]);
		if (!g)
			fail_msg("missing group %s", groups[i]);
		assert_int_equal(g->arch, METRIC_ARM);
	}
	assert_int_equal(metric_group_find(&s, "MPKI")->nmetrics, 10);
	assert_int_equal(metric_group_find(&s, "Miss_Ratio")->nmetrics, 10);
	assert_int_equal(metric_group_find(&s, "Operation_Mix")->nmetrics, 7);
	assert_int_equal(metric_group_find(&s, "Topdown_L1")->nmetrics, 4);
	assert_string_equal(metric_group_find(&s, "General")->metrics[0], "ipc");
	/* Every member of every built-in group exists for the group's architecture. */
	for (size_t i = 0; i < s.ng; i++)
		for (size_t j = 0; j < s.g[i].nmetrics; j++)
			if (!find_arch(&s, s.g[i].metrics[j], s.g[i].arch))
				fail_msg("group %s: no %s metric %s", s.g[i].name,
					 metric_arch_name(s.g[i].arch), s.g[i].metrics[j]);
	metric_set_free(&s);
}

/* The union of the events of a -m list, as a sorted comma-separated string. */
static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static char *events_of(const struct metric_set *s, const char *list)
{
	const struct metric **m;
	long n = metric_expand(s, list, &m);
	if (n < 0)
		fail_msg("%s: %s", list, err_msg());
	const char *ev[64];
	size_t nev = 0;
	for (long i = 0; i < n; i++)
		for (size_t j = 0; j < m[i]->nevents; j++) {
			bool seen = false;
			for (size_t k = 0; k < nev && !seen; k++)
				seen = !strcmp(ev[k], m[i]->events[j]);
			if (!seen && nev < 64)
				ev[nev++] = m[i]->events[j];
		}
	qsort(ev, nev, sizeof(ev[0]), cmp_str);
	char buf[1024] = "";
	for (size_t k = 0; k < nev; k++) {
		strcat(buf, k ? "," : "");
		strcat(buf, ev[k]);
	}
	free(m);
	return xstrdup(buf);
}

static void test_windowsperf_sets(void **state)
{
	static const struct {
		const char *list, *events;  /* WindowsPerf's set, sorted */
	} wp[] = {
		{ "imix", "ase_spec,dp_spec,inst_spec,ld_spec,st_spec,vfp_spec" },
		{ "icache", "inst_retired,l1i_cache,l1i_cache_refill,l2i_cache,l2i_cache_refill" },
		{ "dcache", "inst_retired,l1d_cache,l1d_cache_refill,l2d_cache,l2d_cache_refill" },
		{ "itlb", "inst_retired,l1i_tlb,l1i_tlb_refill,l2i_tlb,l2i_tlb_refill" },
		{ "dtlb", "inst_retired,l1d_tlb,l1d_tlb_refill,l2d_tlb,l2d_tlb_refill" },
	};
	struct metric_set s = { 0 };
	metric_set_builtin(&s);
	for (size_t i = 0; i < sizeof(wp) / sizeof(wp[0]); i++) {
		char *got = events_of(&s, wp[i].list);
		if (strcmp(got, wp[i].events))
			fail_msg("%s counts {%s}, WindowsPerf counts {%s}", wp[i].list, got,
				 wp[i].events);
		free(got);
	}
	/* imix yields values: each a share of inst_spec. */
	const struct metric **m;
	assert_int_equal(metric_expand(&s, "imix", &m), 5);
	static const char *const order[] = { "integer_dp_percentage", "scalar_fp_percentage",
					     "simd_percentage", "load_percentage",
					     "store_percentage" };
	struct vars v;
	vars_set(&v, "inst_spec=1000,dp_spec=400,vfp_spec=50,ase_spec=100,ld_spec=250,st_spec=200");
	static const double want[] = { 40, 5, 10, 25, 20 };
	for (int i = 0; i < 5; i++) {
		assert_string_equal(m[i]->name, order[i]);
		assert_string_equal(m[i]->unit, "percent of operations");
		assert_near(metric_eval(m[i]->expr, vars_lookup, &v), want[i]);
	}
	free(m);
	metric_set_free(&s);
}

/* The wperf personality's meaning: each is one event set in WindowsPerf's order, cut to the
 * counters, in place of lperf's group; the other metrics stay. */
static void test_windowsperf_simple(void **state)
{
	struct metric_set s = { 0 };
	metric_set_builtin(&s);
	metric_set_wperf_simple(&s, 0);
	const struct metric **m;
	assert_int_equal(metric_expand(&s, "imix", &m), 1);
	assert_null(m[0]->expr);
	assert_int_equal(m[0]->nevents, 6);
	static const char *const order[] = { "inst_spec", "dp_spec", "vfp_spec", "ase_spec", "ld_spec",
					     "st_spec" };
	for (int i = 0; i < 6; i++)
		assert_string_equal(m[0]->events[i], order[i]);
	free(m);
	assert_null(metric_group_find(&s, "imix"));
	assert_null(metric_group_find(&s, "dtlb"));
	assert_non_null(metric_find(&s, "load_percentage"));
	assert_non_null(metric_group_find(&s, "Operation_Mix"));
	metric_set_free(&s);
	/* Four counters: the first four events, as wperf's metric_gen_metric_based_on_gpc_num. */
	metric_set_builtin(&s);
	metric_set_wperf_simple(&s, 4);
	assert_int_equal(metric_expand(&s, "icache", &m), 1);
	assert_int_equal(m[0]->nevents, 4);
	assert_string_equal(m[0]->events[3], "l2i_cache_refill");
	free(m);
	metric_set_free(&s);
}

/* l3_cache and ddr_bw are groups of uncore metrics, each naming the PMUs it is counted on. */
static void test_uncore_metrics(void **state)
{
	struct metric_set s = { 0 };
	metric_set_builtin(&s);
	const struct metric_group *l3 = metric_group_find(&s, "l3_cache"), *ddr = metric_group_find(&s, "ddr_bw");
	assert_non_null(l3);
	assert_non_null(ddr);
	assert_int_equal(l3->nmetrics, 2);
	assert_string_equal(l3->metrics[0], "l3_read_bandwidth");
	assert_string_equal(l3->metrics[1], "l3_miss_rate");
	assert_string_equal(ddr->metrics[0], "ddr_rw_bandwidth");
	assert_string_equal(find_arch(&s, "l3_miss_rate", METRIC_ARM)->pmu, "arm_dsu_");
	assert_string_equal(find_arch(&s, "ddr_rw_bandwidth", METRIC_ARM)->pmu, "arm_dmc620_");
	assert_null(find_arch(&s, "ipc", METRIC_ARM)->pmu);
	metric_set_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin_formulas),
		cmocka_unit_test(test_telemetry_set),
		cmocka_unit_test(test_windowsperf_sets),
		cmocka_unit_test(test_windowsperf_simple),
		cmocka_unit_test(test_uncore_metrics),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* The -e grammar and name resolution: perf's generic names and encodings, modifiers, periods,
 * groups, raw codes, tracepoints, suggestions, malformed input, the catalog. sysfs PMU parsing
 * has its own file (test_pmu.c), libpfm4 too (test_pfm.c). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "events/evlist.h"
#include "util/error.h"
#include "util/xalloc.h"

#include "events_test.h"

static int setup_vm(void **state)
{
	use_sysfs("sysfs-vm");
	return 0;
}

/* ---- generic names ---- */

static void test_hardware_names(void **state)
{
	static const struct { const char *name; uint64_t config; } t[] = {
		{ "cycles", 0 }, { "cpu-cycles", 0 }, { "instructions", 1 },
		{ "cache-references", 2 }, { "cache-misses", 3 }, { "branches", 4 },
		{ "branch-instructions", 4 }, { "branch-misses", 5 }, { "bus-cycles", 6 },
		{ "stalled-cycles-frontend", 7 }, { "idle-cycles-frontend", 7 },
		{ "stalled-cycles-backend", 8 }, { "idle-cycles-backend", 8 }, { "ref-cycles", 9 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct ev ev;
		resolve_ok(t[i].name, &ev);
		assert_int_equal(ev.attr.type, PERF_TYPE_HARDWARE);
		assert_int_equal(ev.attr.config, t[i].config);
		assert_int_equal(ev.source, EV_SRC_HARDWARE);
		assert_true(ev.needs_hw);
		assert_string_equal(ev.base, t[i].name);
		assert_string_equal(ev.pmu, "cpu");
		assert_int_equal(ev.attr.size, sizeof(ev.attr));
		ev_free(&ev);
	}
	/* perf's spellings are case-sensitive; WindowsPerf users type any case */
	expect_type_config("CYCLES", PERF_TYPE_HARDWARE, 0);
}

static void test_software_names(void **state)
{
	static const struct { const char *name; uint64_t config; } t[] = {
		{ "cpu-clock", 0 }, { "task-clock", 1 }, { "page-faults", 2 }, { "faults", 2 },
		{ "context-switches", 3 }, { "cs", 3 }, { "cpu-migrations", 4 },
		{ "migrations", 4 }, { "minor-faults", 5 }, { "major-faults", 6 },
		{ "alignment-faults", 7 }, { "emulation-faults", 8 }, { "dummy", 9 },
		{ "bpf-output", 10 }, { "cgroup-switches", 11 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct ev ev;
		resolve_ok(t[i].name, &ev);
		assert_int_equal(ev.attr.type, PERF_TYPE_SOFTWARE);
		assert_int_equal(ev.attr.config, t[i].config);
		assert_int_equal(ev.source, EV_SRC_SOFTWARE);
		assert_false(ev.needs_hw);
		assert_string_equal(ev.pmu, "software");
		ev_free(&ev);
	}
}

static void test_duration_time(void **state)
{
	struct ev ev;
	resolve_ok("duration_time", &ev);
	assert_int_equal(ev.source, EV_SRC_TOOL);
	assert_false(ev.needs_hw);
	assert_string_equal(ev.pmu, "tool");
	ev_free(&ev);
}

static void test_cache_names(void **state)
{
	static const struct { const char *name; uint64_t config; } t[] = {
		{ "L1-dcache-loads", 0x0 }, { "L1-dcache-load-misses", 0x10000 },
		{ "L1-dcache-stores", 0x100 }, { "L1-dcache-store-misses", 0x10100 },
		{ "L1-dcache-prefetches", 0x200 }, { "L1-dcache-prefetch-misses", 0x10200 },
		{ "L1-icache-loads", 0x1 }, { "L1-icache-load-misses", 0x10001 },
		{ "L1-icache-prefetches", 0x201 }, { "LLC-loads", 0x2 },
		{ "LLC-load-misses", 0x10002 }, { "LLC-stores", 0x102 },
		{ "LLC-store-misses", 0x10102 }, { "LLC-prefetches", 0x202 },
		{ "dTLB-loads", 0x3 }, { "dTLB-load-misses", 0x10003 }, { "dTLB-stores", 0x103 },
		{ "dTLB-store-misses", 0x10103 }, { "iTLB-loads", 0x4 },
		{ "iTLB-load-misses", 0x10004 }, { "branch-loads", 0x5 },
		{ "branch-load-misses", 0x10005 }, { "node-loads", 0x6 },
		{ "node-load-misses", 0x10006 }, { "node-stores", 0x106 },
		{ "node-store-misses", 0x10106 }, { "node-prefetches", 0x206 },
		/* perf's aliases and word orders */
		{ "L1-data-speculative-read-miss", 0x10200 }, { "l1d-misses-loads", 0x10000 },
		{ "L2-write", 0x102 }, { "bpu", 0x5 }, { "dTLB-load-refs", 0x3 },
		{ "Instruction-TLB-read-access", 0x4 }, { "L1-dcache", 0x0 },
		{ "L1-dcache-misses-misses", 0x10000 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct ev ev;
		resolve_ok(t[i].name, &ev);
		assert_int_equal(ev.attr.type, PERF_TYPE_HW_CACHE);
		if (ev.attr.config != t[i].config)
			fail_msg("%s: config %#llx, expected %#llx", t[i].name,
				 (unsigned long long)ev.attr.config, (unsigned long long)t[i].config);
		assert_int_equal(ev.source, EV_SRC_HWCACHE);
		assert_true(ev.needs_hw);
		ev_free(&ev);
	}
}

static void test_cache_invalid(void **state)
{
	struct ev ev;
	assert_int_equal(ev_resolve("iTLB-stores", &ev), -1);
	expect_in(err_msg(), "iTLB does not support stores");
	assert_int_equal(ev_resolve("L1-icache-store-misses", &ev), -1);
	expect_in(err_msg(), "L1-icache");
	assert_int_equal(ev_resolve("branch-prefetches", &ev), -1);
	/* perf's lexer reads these as a hardware name followed by junk */
	assert_int_equal(ev_resolve("branches-loads", &ev), -1);
	expect_in(err_msg(), "unknown event 'branches-loads'");
	assert_int_equal(ev_resolve("L1-dcache-", &ev), -1);
	assert_int_equal(ev_resolve("L1-dcache-loads-misses-refs", &ev), -1);
}

/* Every generic and cache spelling (all alias combinations, 3,000 names) against what
 * perf 6.1 put into perf_event_attr for it, or its refusal. */
static void test_perf61_table(void **state)
{
	char *path = fixture_path("events/perf61-generic.txt");
	FILE *f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s", path);
	char line[256];
	size_t n = 0, bad = 0;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		char name[128], type[16];
		unsigned long long config = 0;
		int k = sscanf(line, "%127s %15s %llx", name, type, &config);
		assert_true(k >= 2);
		struct ev ev;
		int r = ev_resolve(name, &ev);
		n++;
		if (!strcmp(type, "ERR")) {
			if (r == 0) {
				print_error("%s: perf rejects it, lperf gives type %u config %#llx\n",
					    name, ev.attr.type, (unsigned long long)ev.attr.config);
				ev_free(&ev);
				bad++;
			}
			continue;
		}
		if (r < 0) {
			print_error("%s: %s\n", name, err_msg());
			bad++;
			continue;
		}
		if (ev.attr.type != strtoul(type, NULL, 10) || ev.attr.config != config) {
			print_error("%s: type %u config %#llx, perf: %s %#llx\n", name, ev.attr.type,
				    (unsigned long long)ev.attr.config, type, config);
			bad++;
		}
		ev_free(&ev);
	}
	fclose(f);
	free(path);
	assert_true(n > 3000);
	assert_int_equal(bad, 0);
}

/* ---- modifiers and periods ---- */

static void parse_one(const char *spec, struct evlist *l)
{
	memset(l, 0, sizeof(*l));
	if (evlist_parse(l, spec) < 0)
		fail_msg("'%s': %s", spec, err_msg());
}

static void expect_levels(const char *spec, int eu, int ek, int eh)
{
	struct evlist l;
	parse_one(spec, &l);
	assert_int_equal(l.n, 1);
	const struct perf_event_attr *a = &l.ev[0].attr;
	if (a->exclude_user != eu || a->exclude_kernel != ek || a->exclude_hv != eh)
		fail_msg("%s: exclude user/kernel/hv %d%d%d, expected %d%d%d", spec,
			 a->exclude_user, a->exclude_kernel, a->exclude_hv, eu, ek, eh);
	assert_int_equal(l.ev[0].user_mods, eu | ek | eh);
	evlist_free(&l);
}

static void test_modifiers(void **state)
{
	expect_levels("cycles", 0, 0, 0);
	expect_levels("cycles:u", 0, 1, 1);
	expect_levels("cycles:k", 1, 0, 1);
	expect_levels("cycles:h", 1, 1, 0);
	expect_levels("cycles:uk", 0, 0, 1);
	expect_levels("cycles:ku", 0, 0, 1);
	expect_levels("cycles:uh", 0, 1, 0);
	expect_levels("cycles:kh", 1, 0, 0);
	expect_levels("task-clock:u", 0, 1, 1);
	expect_levels("L1-dcache-load-misses:k", 1, 0, 1);

	struct evlist l;
	parse_one("cycles:u,instructions:pp", &l);
	assert_string_equal(l.ev[0].name, "cycles:u");
	assert_string_equal(l.ev[0].base, "cycles");
	assert_int_equal(l.ev[1].attr.precise_ip, 2);
	assert_false(l.ev[1].user_mods);
	evlist_free(&l);

	parse_fails("cycles:x", "invalid modifier 'x'", "cycles:uk");
	parse_fails("cycles:u:k", "invalid modifier 'u'", NULL);
	parse_fails("cycles:pppp", "invalid modifier 'pppp'", NULL);
	parse_fails("cycles:", "empty modifier", NULL);
	parse_fails("cycles:U", "invalid modifier 'U'", NULL);
	parse_fails(":u", "event name missing", NULL);
}

static void test_period(void **state)
{
	struct evlist l;
	parse_one("cpu-clock:100000,task-clock:0x10,cycles:u:5000,instructions:7:k", &l);
	assert_int_equal(l.n, 4);
	assert_int_equal(l.ev[0].period, 100000);
	assert_string_equal(l.ev[0].name, "cpu-clock");
	assert_int_equal(l.ev[0].attr.sample_period, 0); /* the period is the caller's to use */
	assert_int_equal(l.ev[1].period, 16);
	assert_int_equal(l.ev[2].period, 5000);
	assert_string_equal(l.ev[2].name, "cycles:u");
	assert_int_equal(l.ev[2].attr.exclude_kernel, 1);
	assert_int_equal(l.ev[3].period, 7);
	assert_string_equal(l.ev[3].name, "instructions:k");
	evlist_free(&l);

	parse_fails("cycles:0", "invalid modifier '0'", NULL);
	parse_fails("cycles:100:200", "invalid modifier '100'", NULL);
	parse_fails("cycles:99999999999999999999999", "invalid modifier", NULL);
}

/* ---- groups ---- */

static void test_groups(void **state)
{
	struct evlist l;
	parse_one("{cycles,instructions},cpu-clock,{task-clock,page-faults:u,cs}", &l);
	assert_int_equal(l.n, 6);
	assert_int_equal(l.ngroups, 2);
	assert_int_equal(l.ev[0].group, 0);
	assert_int_equal(l.ev[0].leader, 0);
	assert_int_equal(l.ev[1].group, 0);
	assert_int_equal(l.ev[1].leader, 0);
	assert_int_equal(l.ev[2].group, -1);
	assert_int_equal(l.ev[2].leader, 2);
	for (size_t i = 3; i < 6; i++) {
		assert_int_equal(l.ev[i].group, 1);
		assert_int_equal(l.ev[i].leader, 3);
	}
	assert_int_equal(l.ev[4].attr.exclude_kernel, 1);
	/* read_format is the counting code's business */
	assert_int_equal(l.ev[1].attr.read_format, 0);
	evlist_free(&l);

	/* group modifiers apply to every member, with perf's union semantics */
	parse_one(" { cycles:k , instructions }:u , cs", &l);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.ev[0].name, "cycles:k:u");
	assert_int_equal(l.ev[0].attr.exclude_user, 0);
	assert_int_equal(l.ev[0].attr.exclude_kernel, 0);
	assert_int_equal(l.ev[0].attr.exclude_hv, 1);
	assert_int_equal(l.ev[1].attr.exclude_kernel, 1);
	assert_true(l.ev[1].user_mods);
	assert_false(l.ev[2].user_mods);
	evlist_free(&l);

	/* duration_time is never opened, so it cannot lead or join a group */
	parse_one("{duration_time,cycles,instructions}", &l);
	assert_int_equal(l.ev[0].group, -1);
	assert_int_equal(l.ev[0].leader, 0);
	assert_int_equal(l.ev[1].group, 0);
	assert_int_equal(l.ev[2].leader, 1);
	evlist_free(&l);

	/* parsing appends: group numbers continue */
	parse_one("{cycles}", &l);
	assert_int_equal(evlist_parse(&l, "{instructions,cs}"), 0);
	assert_int_equal(l.ngroups, 2);
	assert_int_equal(l.ev[1].group, 1);
	assert_int_equal(l.ev[2].leader, 1);
	evlist_free(&l);
}

/* perf's NAME//MODIFIERS (an empty term list after any event) and weak groups {a,b}:W */
static void test_empty_terms_and_weak(void **state)
{
	struct evlist l;
	parse_one("task-clock//u,cycles//,page-faults//k:1000", &l);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.ev[0].name, "task-clock//u");
	assert_int_equal(l.ev[0].attr.type, PERF_TYPE_SOFTWARE);
	assert_int_equal(l.ev[0].attr.config, PERF_COUNT_SW_TASK_CLOCK);
	assert_int_equal(l.ev[0].attr.exclude_user, 0);
	assert_int_equal(l.ev[0].attr.exclude_kernel, 1);
	assert_string_equal(l.ev[1].name, "cycles//");
	assert_int_equal(l.ev[1].attr.type, PERF_TYPE_HARDWARE);
	assert_false(l.ev[1].user_mods);
	assert_string_equal(l.ev[2].name, "page-faults//k");
	assert_int_equal(l.ev[2].attr.exclude_user, 1);
	assert_int_equal(l.ev[2].period, 1000);
	evlist_free(&l);

	/* W marks the group weak; the name keeps only the level modifiers */
	parse_one("{task-clock,page-faults}:W,cs,{cycles,instructions}:uW", &l);
	assert_int_equal(l.n, 5);
	assert_true(l.ev[0].weak && l.ev[1].weak);
	assert_false(l.ev[2].weak);
	assert_string_equal(l.ev[0].name, "task-clock");
	assert_string_equal(l.ev[4].name, "instructions:u");
	assert_true(l.ev[4].weak);
	assert_int_equal(l.ev[4].attr.exclude_kernel, 1);
	assert_int_equal(l.ev[4].group, 1);
	evlist_free(&l);
	parse_fails("{cycles}:WW", "invalid modifier 'WW'", NULL);
	parse_fails("nosuchevent//u", "nosuchevent", NULL);
}

static void test_group_errors(void **state)
{
	parse_fails("{cycles,{instructions}}", "nested groups", NULL);
	parse_fails("{a,{b}}", "nested groups", NULL);
	parse_fails("{cycles,instructions", "missing '}'", NULL);
	parse_fails("cycles}", "unexpected '}'", NULL);
	parse_fails("{}", "empty group", NULL);
	parse_fails("{cycles,}", "empty event", NULL);
	parse_fails("cycles{instructions}", "unexpected '{'", NULL);
	parse_fails("{cycles}x", "unexpected 'x' after '}'", NULL);
	parse_fails("{cycles}:q", "invalid modifier 'q'", NULL);
	parse_fails("{cycles}:", "empty modifier", NULL);
	parse_fails("{cycles} instructions", "unexpected 'i'", NULL);
}

/* ---- list syntax ---- */

static void test_malformed(void **state)
{
	struct evlist l = { 0 };
	assert_int_equal(evlist_parse(&l, NULL), -1);
	assert_int_equal(evlist_parse(&l, ""), -1);
	expect_in(err_msg(), "empty event list");
	assert_int_equal(evlist_parse(&l, "   "), -1);
	parse_fails(",", "empty event", NULL);
	parse_fails("cycles,,instructions", "empty event", "offset 7");
	parse_fails("cycles,", "trailing comma", NULL);
	parse_fails(",cycles", "empty event", NULL);
	parse_fails("/", "malformed PMU event", NULL);
	parse_fails("a/b", "malformed PMU event", NULL);
	parse_fails("//", "malformed PMU event", NULL);
	parse_fails("/msr/tsc", "WindowsPerf", NULL);
	parse_fails("msr/tsc/x", "invalid modifier 'x'", NULL);
	parse_fails("msr/a/b/", "'/' inside the term list", NULL);
	parse_fails(":::", "empty modifier", NULL);
	parse_fails("::u", "unknown event", NULL);
	parse_fails("a:b:c:d:e:f:g:h:i:j:k:l:m:n:o:p:q:r", "too many ':'", NULL);

	char *big = xmalloc(5000);
	memset(big, 'a', 4999);
	big[4999] = 0;
	parse_fails(big, "too long", NULL);
	char *spec = xasprintf("cycles,{%s}", big);
	parse_fails(spec, "too long", NULL);
	free(spec);
	free(big);
	evlist_free(&l);
}

/* Random strings over the grammar's alphabet: every one gives a result or a one-line error. */
static void test_fuzz(void **state)
{
	static const char *const atoms[] = {
		"cycles", "cs", "{", "}", ",", ":", "u", "k", "/", "msr", "tsc", "event=", "0x",
		"1", "=", "r1b", "sched", "L1-dcache", "-load", "-misses", " ", "::", "?", "\"",
	};
	unsigned seed = 12345;
	for (int round = 0; round < 3000; round++) {
		char buf[256] = "";
		int parts = 1 + (int)((seed = seed * 1103515245 + 12345) >> 16) % 8;
		for (int i = 0; i < parts; i++) {
			seed = seed * 1103515245 + 12345;
			strncat(buf, atoms[(seed >> 16) % (sizeof(atoms) / sizeof(atoms[0]))],
				sizeof(buf) - strlen(buf) - 1);
		}
		struct evlist l = { 0 };
		err_clear();
		if (evlist_parse(&l, buf) < 0) {
			assert_int_equal(l.n, 0);
			assert_true(strlen(err_msg()) > 0);
			assert_null(strchr(err_msg(), '\n'));
		}
		evlist_free(&l);
	}
}

/* ---- raw events ---- */

static void test_raw(void **state)
{
	struct ev ev;
	resolve_ok("r1b", &ev);
	assert_int_equal(ev.source, EV_SRC_RAW);
	assert_int_equal(ev.attr.type, PERF_TYPE_RAW);
	assert_int_equal(ev.attr.config, 0x1b);
	assert_true(ev.needs_hw);
	ev_free(&ev);
	expect_type_config("r00c0", PERF_TYPE_RAW, 0xc0);
	expect_type_config("r0x1b", PERF_TYPE_RAW, 0x1b);
	expect_type_config("0x1b", PERF_TYPE_RAW, 0x1b); /* WindowsPerf's plain number */
	expect_type_config("rffffffffffffffff", PERF_TYPE_RAW, 0xffffffffffffffffULL);
	expect_type_config("r0000000000000000001", PERF_TYPE_RAW, 1);
	assert_int_equal(ev_resolve("r1ffffffffffffffff", &ev), -1);
	expect_in(err_msg(), "64 bits");
	assert_int_equal(ev_resolve("r1g", &ev), -1);
	expect_in(err_msg(), "unknown event 'r1g'");

	/* one core PMU: its own type, as perf does on Arm */
	use_sysfs("sysfs-arm");
	resolve_ok("r1b", &ev);
	assert_int_equal(ev.attr.type, 10);
	assert_string_equal(ev.pmu, "armv8_pmuv3_0");
	ev_free(&ev);
	use_sysfs("sysfs-amd");
	expect_type_config("r76", 4, 0x76);
	use_sysfs("sysfs-vm");
}

/* ---- tracepoints ---- */

static void test_tracepoints(void **state)
{
	use_sysfs("sysfs-arm");
	struct ev ev;
	resolve_ok("sched:sched_switch", &ev);
	assert_int_equal(ev.source, EV_SRC_TRACEPOINT);
	assert_int_equal(ev.attr.type, PERF_TYPE_TRACEPOINT);
	assert_int_equal(ev.attr.config, 316);
	assert_string_equal(ev.pmu, "tracepoint");
	assert_false(ev.needs_hw);
	ev_free(&ev);
	expect_type_config("raw_syscalls:sys_enter", PERF_TYPE_TRACEPOINT, 22);

	assert_int_equal(ev_resolve("sched:sched_swtch", &ev), -1);
	expect_in(err_msg(), "unknown tracepoint 'sched:sched_swtch'");
	expect_in(err_msg(), "kernel/tracing/events/sched/sched_swtch/id");
	expect_in(err_msg(), "did you mean 'sched:sched_switch'");

	assert_int_equal(ev_resolve("shced:sched_switch", &ev), -1);
	expect_in(err_msg(), "'sched:sched_switch'");

	/* modifiers and a period after a tracepoint */
	struct evlist l;
	parse_one("sched:sched_switch:u,sched:sched_wakeup:1", &l);
	assert_string_equal(l.ev[0].base, "sched:sched_switch");
	assert_int_equal(l.ev[0].attr.exclude_kernel, 1);
	assert_int_equal(l.ev[1].period, 1);
	evlist_free(&l);

	/* names that would leave tracefs are not tracepoints */
	assert_int_equal(ev_resolve("..:id", &ev), -1);
	assert_int_equal(ev_resolve("sched:..", &ev), -1);

	use_sysfs("sysfs-vm"); /* no tracefs */
	assert_int_equal(ev_resolve("sched:sched_switch", &ev), -1);
	expect_in(err_msg(), "mount -t tracefs");
}

/* ---- suggestions ---- */

static void expect_suggestion(const char *typo, const char *want)
{
	struct ev ev;
	if (ev_resolve(typo, &ev) == 0)
		fail_msg("'%s' resolved", typo);
	char *frag = xasprintf("unknown event '%s'", typo);
	expect_in(err_msg(), frag);
	free(frag);
	frag = xasprintf("'%s'", want);
	const char *dym = strstr(err_msg(), "did you mean");
	if (!dym || !strstr(dym, frag))
		fail_msg("expected a suggestion of %s: %s", want, err_msg());
	free(frag);
}

static void test_suggestions(void **state)
{
	struct ev ev;
	assert_int_equal(ev_resolve("cylces", &ev), -1);
	assert_string_equal(err_msg(), "unknown event 'cylces'; did you mean 'cycles'?");
	expect_suggestion("instrutions", "instructions");
	expect_suggestion("task-clok", "task-clock");
	expect_suggestion("L1-dcache-load-mises", "L1-dcache-load-misses");
	expect_suggestion("context-switch", "context-switches");
	parse_fails("cycles,cylces:u", "unknown event 'cylces'", "did you mean 'cycles'");
	use_sysfs("sysfs-arm");
	expect_suggestion("ld_spc", "ld_spec");
	expect_suggestion("INST_SPECC", "inst_spec");
	use_sysfs("sysfs-vm");
	assert_int_equal(ev_resolve("zzzzqqqq", &ev), -1);
	expect_in(err_msg(), "lperf list");
}

/* A known name whose PMU is absent resolves: opening it is the counting code's job. */
static void test_known_without_pmu(void **state)
{
	assert_false(ev_have_hw_pmu());
	struct ev ev;
	resolve_ok("cycles", &ev);
	assert_true(ev.needs_hw);
	ev_free(&ev);
	resolve_ok("tsc", &ev); /* msr, present in the VM */
	assert_string_equal(ev.pmu, "msr");
	assert_true(ev.needs_hw);
	ev_free(&ev);
	resolve_ok("software/config=3/", &ev);
	assert_int_equal(ev.attr.type, 1);
	assert_int_equal(ev.attr.config, 3);
	assert_false(ev.needs_hw);
	ev_free(&ev);
}

static void test_have_hw_pmu(void **state)
{
	use_sysfs("sysfs-arm");
	assert_true(ev_have_hw_pmu());
	use_sysfs("sysfs-amd");
	assert_true(ev_have_hw_pmu());
	use_sysfs("sysfs-bad");
	assert_false(ev_have_hw_pmu());
	use_sysfs(NULL);
	assert_false(ev_have_hw_pmu());
	use_sysfs("sysfs-vm");
	assert_false(ev_have_hw_pmu());
}

/* ---- list operations ---- */

static void test_default_excludes(void **state)
{
	struct evlist l;
	parse_one("cycles,instructions:k,duration_time,cs", &l);
	evlist_set_default_excludes(&l, true);
	assert_int_equal(l.ev[0].attr.exclude_kernel, 1);
	assert_int_equal(l.ev[0].attr.exclude_hv, 1);
	assert_int_equal(l.ev[0].attr.exclude_user, 0);
	assert_int_equal(l.ev[1].attr.exclude_kernel, 0); /* the user's :k stays */
	assert_int_equal(l.ev[1].attr.exclude_user, 1);
	assert_int_equal(l.ev[2].attr.exclude_kernel, 0); /* tool: never opened */
	assert_int_equal(l.ev[3].attr.exclude_kernel, 1);
	evlist_set_default_excludes(&l, false);
	assert_int_equal(l.ev[0].attr.exclude_kernel, 0);
	assert_int_equal(l.ev[0].attr.exclude_hv, 0);
	assert_int_equal(l.ev[1].attr.exclude_user, 1);
	evlist_free(&l);

	use_sysfs("sysfs-arm");
	parse_one("sched:sched_switch", &l);
	evlist_set_default_excludes(&l, true);
	assert_int_equal(l.ev[0].attr.exclude_kernel, 0); /* it fires in the kernel */
	evlist_free(&l);
	use_sysfs("sysfs-vm");
}

static void test_find_and_metrics(void **state)
{
	struct evlist l;
	parse_one("cycles:u,task-clock", &l);
	static const char *const names[] = { "instructions", "CYCLES", "duration_time" };
	assert_int_equal(evlist_add_metric_events(&l, names, 3, "ipc", true), 0);
	assert_int_equal(l.n, 5);
	assert_int_equal(l.ngroups, 1);
	assert_null(l.ev[0].metric);
	assert_string_equal(l.ev[2].metric, "ipc");
	assert_int_equal(l.ev[2].group, 0);
	assert_int_equal(l.ev[3].leader, 2);
	assert_int_equal(l.ev[4].group, -1);
	/* reusing nothing: cycles appears twice */
	assert_int_equal(evlist_find(&l, "cycles"), 0);
	assert_int_equal(evlist_find(&l, "cycles:u"), 0);
	assert_int_equal(evlist_find(&l, "TASK-CLOCK"), 1);
	assert_int_equal(evlist_find(&l, "instructions"), 2);
	assert_int_equal(evlist_find(&l, "ref-cycles"), -1);

	static const char *const bad[] = { "cs", "cylces" };
	assert_int_equal(evlist_add_metric_events(&l, bad, 2, "broken", false), -1);
	expect_in(err_msg(), "metric 'broken'");
	expect_in(err_msg(), "did you mean 'cycles'");
	assert_int_equal(l.n, 5);
	assert_int_equal(evlist_add_metric_events(&l, bad, 1, "solo", false), 0);
	assert_int_equal(l.ev[5].group, -1);
	assert_int_equal(l.ngroups, 1);
	evlist_free(&l);
	assert_int_equal(l.n, 0);
	assert_null(l.ev);
}

/* ---- catalog ---- */

static const struct ev_info *find_info(const struct ev_catalog *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->info[i].name, name))
			return &c->info[i];
	return NULL;
}

static void test_catalog(void **state)
{
	struct ev_catalog c;
	assert_int_equal(ev_catalog_build(&c, false, false), 0);
	const struct ev_info *i = find_info(&c, "cpu-cycles");
	assert_non_null(i);
	assert_string_equal(i->alias, "cycles");
	assert_string_equal(i->section, "hardware");
	assert_false(i->usable); /* the VM has no core PMU */
	i = find_info(&c, "L1-dcache-load-misses");
	assert_non_null(i);
	assert_string_equal(i->section, "hardware cache");
	assert_int_equal(i->config, 0x10000);
	assert_false(i->usable);
	i = find_info(&c, "page-faults");
	assert_string_equal(i->alias, "faults");
	assert_true(i->usable);
	assert_string_equal(i->section, "software");
	i = find_info(&c, "duration_time");
	assert_string_equal(i->pmu, "tool");
	i = find_info(&c, "tsc");
	assert_string_equal(i->section, "sysfs");
	assert_string_equal(i->pmu, "msr");
	assert_null(find_info(&c, "uprobe//")); /* probes are not counted by name */
	size_t ncache = 0;
	for (size_t k = 0; k < c.n; k++)
		ncache += !strcmp(c.info[k].section, "hardware cache");
	assert_int_equal(ncache, 32);
	ev_catalog_free(&c);

	use_sysfs("sysfs-arm");
	assert_int_equal(ev_catalog_build(&c, false, true), 0);
	i = find_info(&c, "cycles");
	assert_null(i); /* listed once, under its first spelling */
	i = find_info(&c, "cpu-cycles");
	assert_true(i->usable);
	assert_string_equal(i->pmu, "armv8_pmuv3_0");
	i = find_info(&c, "ld_spec");
	assert_non_null(i);
	assert_string_equal(i->pmu, "armv8_pmuv3_0");
	assert_int_equal(i->type, 10);
	assert_int_equal(i->config, 0x70);
	assert_true(i->usable);
	i = find_info(&c, "l1d_cache_rd"); /* from lperf's Arm table */
	assert_non_null(i);
	assert_int_equal(i->config, 0x40);
	assert_non_null(i->desc);
	i = find_info(&c, "arm_spe_0//");
	assert_non_null(i);
	expect_in(i->desc, "min_latency");
	i = find_info(&c, "sched:sched_switch");
	assert_non_null(i);
	assert_string_equal(i->section, "tracepoint");
	assert_int_equal(i->config, 316);
	/* the core PMU's events come before any other PMU's */
	size_t first_sysfs = c.n;
	for (size_t k = 0; k < c.n && first_sysfs == c.n; k++)
		if (!strcmp(c.info[k].section, "sysfs"))
			first_sysfs = k;
	assert_string_equal(c.info[first_sysfs].pmu, "armv8_pmuv3_0");
	ev_catalog_free(&c);
	use_sysfs("sysfs-vm");
}

static void test_rollback(void **state)
{
	struct evlist l;
	parse_one("{cycles,instructions}", &l);
	assert_int_equal(evlist_parse(&l, "{cs,migrations},{task-clock,cylces}"), -1);
	assert_int_equal(l.n, 2);
	assert_int_equal(l.ngroups, 1);
	assert_int_equal(evlist_parse(&l, "cs"), 0);
	assert_int_equal(l.n, 3);
	evlist_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_hardware_names, setup_vm),
		cmocka_unit_test_setup(test_software_names, setup_vm),
		cmocka_unit_test_setup(test_duration_time, setup_vm),
		cmocka_unit_test_setup(test_cache_names, setup_vm),
		cmocka_unit_test_setup(test_cache_invalid, setup_vm),
		cmocka_unit_test_setup(test_perf61_table, setup_vm),
		cmocka_unit_test_setup(test_modifiers, setup_vm),
		cmocka_unit_test_setup(test_period, setup_vm),
		cmocka_unit_test_setup(test_groups, setup_vm),
		cmocka_unit_test_setup(test_group_errors, setup_vm),
		cmocka_unit_test_setup(test_empty_terms_and_weak, setup_vm),
		cmocka_unit_test_setup(test_malformed, setup_vm),
		cmocka_unit_test_setup(test_fuzz, setup_vm),
		cmocka_unit_test_setup(test_raw, setup_vm),
		cmocka_unit_test_setup(test_tracepoints, setup_vm),
		cmocka_unit_test_setup(test_suggestions, setup_vm),
		cmocka_unit_test_setup(test_known_without_pmu, setup_vm),
		cmocka_unit_test_setup(test_have_hw_pmu, setup_vm),
		cmocka_unit_test_setup(test_default_excludes, setup_vm),
		cmocka_unit_test_setup(test_find_and_metrics, setup_vm),
		cmocka_unit_test_setup(test_catalog, setup_vm),
		cmocka_unit_test_setup(test_rollback, setup_vm),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

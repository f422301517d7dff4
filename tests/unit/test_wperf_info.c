/* wperf's informational pages without the commands: what `man` looks up (wperf/wperf_man.c) for
 * a named Arm CPU and for this machine's sysfs (the Arm fixture), its refusals with their
 * messages, and the tables output/wperf_info_out.c lays out (man, list, detect, version), byte
 * for byte. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "events/pmu.h"
#include "output/wperf_out.h"
#include "sysinfo/buildinfo.h"
#include "sysinfo/sysinfo.h"
#include "util/error.h"
#include "util/fileio.h"
#include "wperf/wperf_man.h"

#include "events_test.h"

/* What f wrote, as one string (freed by the caller). */
static char *text_of(void (*draw)(FILE *f, const void *arg), const void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	draw(f, arg);
	fclose(f);
	/* a copy: aarch64 GCC 12's -Wdangling-pointer takes open_memstream's buffer for the local */
	char *out = strdup(buf);
	free(buf);
	return out;
}

static void draw_man(FILE *f, const void *arg) { wperf_man_text(f, arg); }
static void draw_tab(FILE *f, const void *arg) { wperf_tab_print(f, arg); }
static void draw_json(FILE *f, const void *arg) { wperf_tabs_json(f, arg, 1); }

/* Arm's data: the fixture in the shape of Linux's arm64 pmu-events files. */
static void use_armdata(void)
{
	char *p = fixture_path("armdata");
	setenv("LPERF_ARM_DATA", p, 1);
	free(p);
}

static void man_group_for_a_named_cpu(void **state)
{
	use_armdata();
	struct wperf_man m;
	assert_int_equal(wperf_man_lookup("neoverse-n1/Operation_Mix,ld_spec", NULL, &m), WPERF_MAN_FOUND);
	assert_int_equal(m.n, 4);
	assert_string_equal(m.field[0], "CPU");
	assert_string_equal(m.value[0], "neoverse-n1");
	assert_string_equal(m.value[1], "Operation_Mix - Operation Mix");
	assert_string_equal(m.field[3], "METRICS");
	assert_string_equal(m.value[3], "load_percentage, ld_mpki");
	struct wperf_tab t;
	wperf_man_tab(&t, m.field, (const char *const *)m.value, m.n);
	char *s = text_of(draw_man, &t);
	assert_string_equal(s, "CPU\n    neoverse-n1\nNAME\n    Operation_Mix - Operation Mix\n"
			    "DESCRIPTION\n    The metrics Arm's data for neoverse-n1 puts in the "
			    "Operation_Mix group.\nMETRICS\n    load_percentage, ld_mpki\n");
	free(s);
	wperf_tab_free(&t);
	wperf_man_free(&m);

	/* A metric: its events, formula and unit too. */
	assert_int_equal(wperf_man_lookup("neoverse-n1/load_percentage", NULL, &m), WPERF_MAN_FOUND);
	assert_int_equal(m.n, 6);
	assert_string_equal(m.value[1], "load_percentage");
	assert_string_equal(m.field[2], "EVENTS");
	assert_string_equal(m.value[2], "ld_spec, inst_spec");
	assert_string_equal(m.field[4], "FORMULA");
	assert_string_equal(m.value[4], "((LD_SPEC / INST_SPEC) * 100)");
	assert_string_equal(m.value[5], "percent of operations");
	wperf_man_free(&m);

	/* An event through a CPU's alias: the canonical CPU, the title, the CPU's description. */
	assert_int_equal(wperf_man_lookup("neoverse-n2-r0p1/LD_SPEC", NULL, &m), WPERF_MAN_FOUND);
	assert_string_equal(m.value[0], "neoverse-n2");
	assert_string_equal(m.value[1], "ld_spec - Test load speculatively executed");
	assert_string_equal(m.value[2], "Test load, long");
	wperf_man_free(&m);
	assert_int_equal(wperf_man_lookup("armv9-a/trcextout0", NULL, &m), WPERF_MAN_FOUND);
	wperf_man_free(&m);
	unsetenv("LPERF_ARM_DATA");
}

static void man_refusals(void **state)
{
	use_armdata();
	struct wperf_man m;
	assert_int_equal(wperf_man_lookup("pentium/imix", NULL, &m), WPERF_MAN_BAD_CPU);
	assert_string_equal(err_msg(), "CPU name: \"pentium\" not found, use armv8-a, armv9-a, "
			    "neoverse-n1, neoverse-n2, neoverse-v2, neoverse-v3.");
	assert_int_equal(m.n, 0);
	assert_int_equal(wperf_man_lookup("neoverse-n1/no_such_thing", NULL, &m), WPERF_MAN_NOT_FOUND);
	assert_string_equal(err_msg(), "\"no_such_thing\" not found! Ensure it is compatible with the specified CPU");
	/* The architectures have no metrics; armv8-a not Armv9's trace events. */
	assert_int_equal(wperf_man_lookup("armv8-a/Operation_Mix", NULL, &m), WPERF_MAN_NOT_FOUND);
	assert_int_equal(wperf_man_lookup("armv8-a/trcextout0", NULL, &m), WPERF_MAN_NOT_FOUND);
	/* After the first '/', the rest is the name. */
	assert_int_equal(wperf_man_lookup("neoverse-n1/neoverse-n1/ld_spec", NULL, &m), WPERF_MAN_NOT_FOUND);
	assert_string_equal(err_msg(), "\"neoverse-n1/ld_spec\" not found! Ensure it is compatible with the specified CPU");
	assert_int_equal(wperf_man_lookup("imix", "/nonexistent/metrics.txt", &m), WPERF_MAN_BAD_FILE);
	assert_non_null(strstr(err_msg(), "/nonexistent/metrics.txt"));
	setenv("LPERF_ARM_DATA", "/nonexistent-armdata", 1);
	assert_int_equal(wperf_man_lookup("neoverse-n1/ld_spec", NULL, &m), WPERF_MAN_NO_DATA);
	assert_non_null(strstr(err_msg(), "linux-source"));
	unsetenv("LPERF_ARM_DATA");
}

/* Values are filled to 81 columns under a 4-space indent, paragraphs kept, a word longer than a
 * line cut. */
static void man_text_is_filled(void **state)
{
	static const char *const fields[] = { "DESCRIPTION", "NAME" };
	const char *values[2] = {
		"one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
		"fifteen sixteen seventeen\n\nnext",
		"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz0123" };
	struct wperf_tab t;
	wperf_man_tab(&t, fields, values, 2);
	char *s = text_of(draw_man, &t);
	assert_string_equal(s,
		"DESCRIPTION\n"
		"    one two three four five six seven eight nine ten eleven twelve thirteen\n"
		"    fourteen fifteen sixteen seventeen\n"
		"\n"
		"    next\n"
		"NAME\n"
		"    abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxy\n"
		"    z0123\n");
	free(s);
	wperf_tab_free(&t);
}

/* This machine's Arm core (sysinfo reads the real /proc/cpuinfo, not the fixture): its product
 * name, "armv8-a" for a core the data does not name (QEMU's max CPU), NULL on other machines. */
static char *arm_core_here(void)
{
	struct sysinfo_cpu cpu;
	sysinfo_read_cpu(&cpu, NULL);
	char *r = !cpu.have_midr ? NULL
		  : cpu.product && (!strcmp(cpu.product, "neoverse-n1") || !strcmp(cpu.product, "neoverse-n2") ||
				    !strcmp(cpu.product, "neoverse-v2")) ? strdup(cpu.product)
		  : strdup("armv8-a");
	sysinfo_cpu_free(&cpu);
	return r;
}

/* An event NAME without CPU/: on an Arm machine from Arm's data for its core (here the
 * fixture's), elsewhere from this machine's sysfs (here the Arm fixture's). Both are checked
 * where they apply: the Arm suite runs this test in an emulated Arm64 machine. */
static void man_event_of_this_machine(void **state)
{
	use_sysfs("sysfs-arm");
	pmu_table_reset();
	char *core = arm_core_here();
	if (core)
		use_armdata();
	struct wperf_man m;
	assert_int_equal(wperf_man_lookup("inst_spec", NULL, &m), WPERF_MAN_FOUND);
	assert_int_equal(m.n, 3);
	if (core) {
		assert_string_equal(m.value[0], core);
		if (!strcmp(core, "armv8-a")) {
			assert_string_equal(m.value[1], "inst_spec - Test operations speculatively executed");
			assert_string_equal(m.value[2], "Test operations speculatively executed");
		}
		unsetenv("LPERF_ARM_DATA");
	} else {
		assert_string_equal(m.value[0], "x86-64");
		assert_string_equal(m.value[1], "inst_spec - sysfs event 0x1b (armv8_pmuv3_0)");
		/* sysfs has no description: said so; an empty value would show as "-". */
		assert_string_equal(m.value[2], "(no description in sysfs)");
	}
	free(core);
	free(m.value[2]);
	m.value[2] = strdup("");
	struct wperf_tab t;
	wperf_man_tab(&t, m.field, (const char *const *)m.value, m.n);
	char *s = text_of(draw_json, &t);
	assert_non_null(strstr(s, "\"Manual_Results\": ["));
	assert_non_null(strstr(s, "\"Field_Type\": \"DESCRIPTION\",\n      \"Result\": \"-\""));
	free(s);
	wperf_tab_free(&t);
	wperf_man_free(&m);
	use_sysfs(NULL);
	pmu_table_reset();
}

static void list_tables(void **state)
{
	struct ev_info info[] = {
		{ .name = "inst_spec", .pmu = "armv8_pmuv3_0", .section = "sysfs", .desc = "Operation speculatively executed",
		  .config = 0x1b, .usable = true },
		{ .name = "page-faults", .pmu = "software", .section = "software", .config = 2, .usable = true },
		{ .name = "cycles", .pmu = "cpu", .section = "hardware", .config = 0, .usable = false },
	};
	struct ev_catalog cat = { .info = info, .n = 3 };
	struct metric_set ms = { 0 };
	struct wperf_list_view v = { .cat = &cat, .metrics = &ms, .arch_present = { true, true, false },
				     .extra_events = "myev:0x12", .spe_pmu = "arm_spe_0" };
	struct wperf_tab t[3];
	wperf_list_tabs(t, &v);
	char *s = text_of(draw_tab, &t[0]);
	assert_string_equal(s,
		"        Alias Name                Raw Index  Event Type\n"
		"        ==========                =========  ==========\n"
		"        inst_spec                 0x1b       [core PMU event]\n"
		"        page-faults               0x2        [software event]\n"
		"        myev                      0x12       [core PMU event*]\n"
		"        arm_spe_0/load_filter/    -          [SPE filter]\n"
		"        arm_spe_0/store_filter/   -          [SPE filter]\n"
		"        arm_spe_0/branch_filter/  -          [SPE filter]\n"
		"        arm_spe_0/ts_enable/      -          [SPE filter]\n"
		"        arm_spe_0/min_latency/    -          [SPE filter]\n"
		"        arm_spe_0/jitter/         -          [SPE filter]\n");
	free(s);
	assert_int_equal(t[1].t.nrows, 0);
	for (int i = 0; i < 3; i++)
		wperf_tab_free(&t[i]);
	assert_string_equal(wperf_list_titles[0], "List of pre-defined events (to be used in -e)");
}

static void detect_and_version(void **state)
{
	use_sysfs("sysfs-arm");
	pmu_table_reset();
	struct wperf_tab t;
	wperf_detect_tab(&t, pmu_table(), "/sys");
	assert_true(t.t.nrows >= 2);
	char *s = text_of(draw_tab, &t);
	assert_non_null(strstr(s, "        Device Instance ID"));
	assert_non_null(strstr(s, "/sys/bus/event_source/devices/armv8_pmuv3_0  perf_event type "));
	free(s);
	wperf_tab_free(&t);
	use_sysfs(NULL);
	pmu_table_reset();

	wperf_version_tab(&t, "6.1.0-test", true);
	s = text_of(draw_json, &t);
	char want[256];
	snprintf(want, sizeof(want), "\"Component\": \"wperf\",\n      \"Version\": \"%s\",\n      \"GitVer\": \"%s\"",
		 sysinfo_version(), sysinfo_gitrev());
	assert_non_null(strstr(s, want));
	assert_non_null(strstr(s, "\"Version\": \"6.1.0-test\",\n      \"GitVer\": \"linux\",\n      \"FeatureString\": \"+perf_event+spe\""));
	free(s);
	wperf_tab_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(man_group_for_a_named_cpu),
		cmocka_unit_test(man_refusals),
		cmocka_unit_test(man_text_is_filled),
		cmocka_unit_test(man_event_of_this_machine),
		cmocka_unit_test(list_tables),
		cmocka_unit_test(detect_and_version),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* WindowsPerf's personality, the parts without a machine: its command-line grammar (one or two
 * dashes, sleep N, --, unknown words), its durations, -E custom events, and the rewriting of
 * SPE/DSU/DMC spellings into Linux's PMU terms. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/pmu.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "wperf/wperf.h"
#include "wperf/wperf_extra.h"
#include "events/wperf_spell.h"

#include "events_test.h"

static int parse(struct wperf_args *a, const char *const *args)
{
	char *argv[64];
	int argc = 0;
	argv[argc++] = (char *)"wperf";
	for (; *args; args++)
		argv[argc++] = (char *)*args;
	argv[argc] = NULL;
	return wperf_parse_args(a, argc, argv);
}

static void test_seed_sample_line(void **state)
{
	struct wperf_args a;
	const char *args[] = { "sample", "-e", "ld_spec:10000", "-pe_file", "python_d.exe", "-pdb_file",
			       "python_d.pdb", "-image_name", "python_d.exe", "-c", "1", NULL };
	assert_int_equal(parse(&a, args), 0);
	assert_string_equal(a.cmd, "sample");
	assert_string_equal(sb_str(&a.events), "ld_spec:10000");
	assert_string_equal(a.pe_file, "python_d.exe");
	assert_string_equal(a.pdb_file, "python_d.pdb");
	assert_string_equal(a.image_name, "python_d.exe");
	assert_string_equal(a.cores, "1");
	assert_null(a.command);
	wperf_args_free(&a);
}

static void test_record_command_and_flags(void **state)
{
	struct wperf_args a;
	const char *args[] = { "record", "-e", "ld_spec:100000", "-c", "1", "--timeout", "30",
			       "--annotate", "-k", "--record_spawn_delay", "250", "--", "python_d.exe",
			       "-c", "10**10**100", NULL };
	assert_int_equal(parse(&a, args), 0);
	assert_string_equal(a.cmd, "record");
	assert_true(a.annotate && a.kernel);
	assert_true(fabs(a.timeout_s - 30) < 1e-9);
	assert_true(fabs(a.spawn_delay_s - 0.25) < 1e-9);
	assert_non_null(a.command);
	assert_string_equal(a.command[0], "python_d.exe");
	assert_string_equal(a.command[1], "-c"); /* after --, nothing is wperf's */
	assert_string_equal(a.command[2], "10**10**100");
	wperf_args_free(&a);
}

static void test_stat_timeline_and_sleep(void **state)
{
	struct wperf_args a;
	const char *args[] = { "stat", "-m", "imix", "-c", "1", "-t", "-i", "2", "-n", "3",
			       "--output-csv", "x_{core}.csv", "--cwd", "out", "sleep", "5", NULL };
	assert_int_equal(parse(&a, args), 0);
	assert_true(a.timeline);
	assert_true(fabs(a.interval_s - 2) < 1e-9);
	assert_int_equal(a.count, 3);
	assert_true(fabs(a.timeout_s - 5) < 1e-9);
	assert_string_equal(a.output_csv, "x_{core}.csv");
	assert_string_equal(a.output_prefix, "out");
	assert_null(a.command);
	char *p = wperf_out_path(&a, "f.csv");
	assert_string_equal(p, "out/f.csv");
	free(p);
	wperf_args_free(&a);
	const char *l[] = { "-l", "-v", NULL };
	assert_int_equal(parse(&a, l), 0);
	assert_string_equal(a.cmd, "list");
	assert_int_equal(a.verbose, 1);
	wperf_args_free(&a);
	const char *v[] = { "--version", "--json", NULL };
	assert_int_equal(parse(&a, v), 0);
	assert_string_equal(a.cmd, "version");
	assert_true(a.json);
	wperf_args_free(&a);
	const char *bad[] = { "stat", "--timeout", NULL };
	assert_int_equal(parse(&a, bad), -1);
	wperf_args_free(&a);
}

static void test_durations(void **state)
{
	double s;
	assert_int_equal(wperf_parse_duration("10.5", &s), 0);
	assert_true(fabs(s - 10.5) < 1e-9);
	assert_int_equal(wperf_parse_duration("100ms", &s), 0);
	assert_true(fabs(s - 0.1) < 1e-9);
	assert_int_equal(wperf_parse_duration("2.25m", &s), 0);
	assert_true(fabs(s - 135) < 1e-9);
	assert_int_equal(wperf_parse_duration("0", &s), 0);
	assert_true(s == 0);
	/* wperf's regex refuses these */
	const char *bad[] = { "1m30s", ".5", "01h", "1.234", "", "-1", "1x", "1.", NULL };
	for (const char *const *b = bad; *b; b++)
		assert_int_equal(wperf_parse_duration(*b, &s), -1);
}

static void test_extra_events(void **state)
{
	struct strbuf out = STRBUF_INIT;
	wperf_apply_extra("{myev,inst_spec},other:u,myev:1000", "myev:0x1b, other:0xABCD", &out);
	assert_string_equal(sb_str(&out), "{r1b,inst_spec},rABCD:u,r1b:1000");
	sb_release(&out);
}

static void test_spe_spellings(void **state)
{
	use_sysfs("sysfs-arm");
	int failed;
	/* SPE spellings are the -e grammar's own (events/spe_terms.c): left as typed. */
	assert_null(wperf_spell_rewrite("arm_spe_0/ld=1,min_latency=64/", &failed));
	assert_int_equal(failed, 0);
	assert_null(wperf_spell_rewrite("cycles,{arm_spe_0/st=0,ld=0,b=1,ts=1,min=1024/}", &failed));
	assert_int_equal(failed, 0);
	/* Nothing to do: NULL, no error. */
	assert_null(wperf_spell_rewrite("armv8_pmuv3_0/event=0x70/,ld_spec", &failed));
	assert_int_equal(failed, 0);
	assert_null(wperf_spell_rewrite("arm_spe_0/load_filter=1/", &failed));
	/* /dsu/ without a DSU PMU: a clear error. */
	assert_null(wperf_spell_rewrite("/dsu/l3d_cache", &failed));
	assert_int_equal(failed, 1);
	assert_non_null(strstr(err_msg(), "no DSU"));
	assert_string_equal(wperf_spe_version_name(), "FEAT_SPE");
	assert_string_equal(wperf_spe_term("min"), "min_latency");
	assert_null(wperf_spe_term("load_filter"));
	/* The -e grammar takes the spellings directly. */
	struct evlist l = { 0 };
	assert_int_equal(evlist_parse(&l, "arm_spe_0/ld=1,min=64/"), 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.ev[0].attr.config2, 64);
	evlist_free(&l);
	use_sysfs("sysfs-amd");
	assert_null(wperf_spe_version_name());
}

/* err_msg() after a failing check is exactly want. */
static void check_fails(int r, const char *want)
{
	assert_int_equal(r, -1);
	assert_string_equal(err_msg(), want);
}

static void test_spe_filter_checks(void **state)
{
	use_sysfs("sysfs-arm");
	struct wperf_args a = { .cmd = "record" };
	/* A filter is NAME=VALUE: a bare name (perf's ld meaning ld=1) is refused in wperf's grammar. */
	check_fails(wperf_check_events(&a, "arm_spe_0/ld/", 0), "incorrect SPE filter: 'ld' in ld");
	check_fails(wperf_check_events(&a, "arm_spe_0/load_filter=0,branch_filter/", 0),
		    "incorrect SPE filter: 'branch_filter' in load_filter=0,branch_filter");
	check_fails(wperf_check_events(&a, "arm_spe_0/load_filter=0,=1/", 0),
		    "incorrect SPE filter name: '=1'");
	check_fails(wperf_check_events(&a, "arm_spe_0/b=/", 0), "incorrect SPE filter value: b=''.");
	check_fails(wperf_check_events(&a, "arm_spe_0/ts_enable=one/", 0),
		    "incorrect SPE filter value: ts_enable='one'.");
	check_fails(wperf_check_events(&a, "arm_spe_0/store_filter=-0x2/", 0),
		    "incorrect SPE filter value: store_filter='-0x2'.");
	check_fails(wperf_check_events(&a, "arm_spe_0/branch_filter=0xf1da/", 0),
		    "SPE filter 'branch_filter' value out of range, use: 0-1");
	check_fails(wperf_check_events(&a, "arm_spe_0/ld=1,min=0x10000/", 0),
		    "SPE filter 'min' value out of range, use: 0-65535");
	assert_int_equal(wperf_check_events(&a, "arm_spe_0/ld=1,min_latency=64,ts=0x1/", 0), 0);
	assert_int_equal(wperf_check_events(&a, "arm_spe_0//", 0), 0);
	/* Linux's other terms are lperf's; an unknown name lists wperf's. */
	assert_int_equal(wperf_check_events(&a, "arm_spe_0/pa_enable=1,jitter=1/", 0), 0);
	check_fails(wperf_check_events(&a, "arm_spe_0/x=1/", 0),
		    "SPE filter 'x' unknown, use: load_filter, store_filter, branch_filter, "
		    "ts_enable, min_latency (ld, st, b, ts, min)");
	use_sysfs("sysfs-amd");
	check_fails(wperf_check_events(&a, "arm_spe_0/ld=1/", 0),
		    "SPE is not supported by your hardware: arm_spe_0/ld=1/");
	/* lperf's own grammar keeps perf's rule. */
	use_sysfs("sysfs-arm");
	struct evlist l = { 0 };
	assert_int_equal(evlist_parse(&l, "arm_spe_0/ld/"), 0);
	evlist_free(&l);
}

static void test_sampling_checks(void **state)
{
	struct wperf_args a = { .cmd = "sample" };
	const char *bad[] = { "a", "text", "_123", "x1", "0xp", "0xp123", "", "-1", "12ab", NULL };
	char spec[64], want[96];
	for (const char *const *b = bad; *b; b++) {
		snprintf(spec, sizeof(spec), "ld_spec:%s", *b);
		snprintf(want, sizeof(want), "event interval: %s is invalid!", *b);
		check_fails(wperf_check_events(&a, spec, 0), want);
	}
	check_fails(wperf_check_events(&a, "ld_spec:8589934590", 0),
		    "event interval: 8589934590 is out of range!");
	check_fails(wperf_check_events(&a, "cycles,ld_spec:0x1FFFFFFFF", 0),
		    "event interval: 0x1FFFFFFFF is out of range!");
	assert_int_equal(wperf_check_events(&a, "ld_spec:0xFFFFFFFF,cycles,r1b:010,"
					    "armv8_pmuv3_0/event=0x70/:1000", 0), 0);
	/* stat's -e takes no intervals */
	struct wperf_args st = { .cmd = "stat" };
	assert_int_equal(wperf_check_events(&st, "ld_spec:u", 6), 0);
	/* No multiplexing while sampling: at most one event a counter. */
	assert_int_equal(wperf_check_events(&a, "a:1,b:1,c:1", 3), 0);
	check_fails(wperf_check_events(&a, "v:100000,a:1,b:1,c:1", 3),
		    "number of events requested exceeds the number of hardware PMU counters(3)");
	assert_int_equal(wperf_check_events(&a, "v:100000,a:1,b:1,c:1", 0), 0);

	/* After the line: a process, one core, cores that exist. */
	char *cmd[] = { (char *)"true", NULL };
	struct wperf_args r = { .cmd = "record" };
	check_fails(wperf_check_request(&r, 2),
		    "no pid or process name specified, sample address are not de-ASLRed");
	r.command = cmd;
	check_fails(wperf_check_request(&r, 2), "you can specify only one core for sampling");
	r.cores = "1,1";
	assert_int_equal(wperf_check_request(&r, 2), 0);
	r.cores = "7,6,5,4,3,2,1";
	check_fails(wperf_check_request(&r, 2), "you can specify only one core for sampling");
	r.cores = "3";
	check_fails(wperf_check_request(&r, 2), "core index 3 not allowed. Use 0-1, see option -c <n>");
	r.dry_run = true; /* --dry-run opens nothing: the Arm fixture's lines on any machine */
	assert_int_equal(wperf_check_request(&r, 2), 0);
	r.cores = NULL;
	r.pe_file = "prog";
	assert_int_equal(wperf_check_request(&r, 1), 0);
}

static void test_stat_checks(void **state)
{
	struct wperf_args a;
	const char *args[] = { "stat", "-c", "0", "sleep", "1", NULL };
	assert_int_equal(parse(&a, args), 0);
	check_fails(wperf_check_request(&a, 2), "no event specified");
	sb_adds(&a.metrics, "imix");
	assert_int_equal(wperf_check_request(&a, 2), 0);
	a.cores = "1,2,3";
	check_fails(wperf_check_request(&a, 2), "core index 2 not allowed. Use 0-1, see option -c <n>");
	a.cores = "0-0,3-1";
	assert_int_equal(wperf_check_request(&a, 4), 0);
	a.cores = "0,x";
	assert_int_equal(wperf_check_request(&a, 4), -1);
	wperf_args_free(&a);
	static const char *const lists[][2] = { { "0-0,3-1", "0,1,2,3" }, { "2-5,0-1,4", "0,1,2,3,4,5" },
						{ "1,1,2", "1,2" } };
	for (size_t k = 0; k < sizeof(lists) / sizeof(lists[0]); k++) {
		char *l = wperf_cores_list(lists[k][0]);
		assert_string_equal(l, lists[k][1]);
		free(l);
	}

	/* Durations name their option as wperf does; checks at -e follow the line's order. */
	const char *t[] = { "stat", "-m", "imix", "--timeout", "2d30m", NULL };
	check_fails(parse(&a, t), "input: \"2d30m\" to argument '--timeout' is invalid");
	wperf_args_free(&a);
	const char *i[] = { "stat", "-m", "imix", "-t", "-i", ".2m", NULL };
	check_fails(parse(&a, i), "input: \".2m\" to argument '-i' is invalid");
	wperf_args_free(&a);
	const char *s[] = { "stat", "-e", "cpu-clock", "sleep", "1m30s", NULL };
	check_fails(parse(&a, s), "input: \"1m30s\" to argument '--timeout' is invalid");
	wperf_args_free(&a);
	const char *e[] = { "sample", "-e", "ld_spec:0xp", "--timeout", "x", NULL };
	check_fails(parse(&a, e), "event interval: 0xp is invalid!");
	wperf_args_free(&a);
	assert_int_equal(wperf_arg_index(&(struct wperf_args){ .argc = 5, .argv = (char *[]){
		"wperf", "--pdb-file", "x", "-pe_file", "y" } }, "pe_file"), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed_sample_line),
		cmocka_unit_test(test_record_command_and_flags),
		cmocka_unit_test(test_stat_timeline_and_sleep),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_extra_events),
		cmocka_unit_test(test_spe_spellings),
		cmocka_unit_test(test_spe_filter_checks),
		cmocka_unit_test(test_sampling_checks),
		cmocka_unit_test(test_stat_checks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

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
	char *r = wperf_spell_rewrite("arm_spe_0/ld=1,min_latency=64/", &failed);
	assert_int_equal(failed, 0);
	assert_string_equal(r, "arm_spe_0/load_filter=1,min_latency=64/");
	free(r);
	r = wperf_spell_rewrite("cycles,{arm_spe_0/st=0,ld=0,b=1,ts=1,min=1024/}", &failed);
	assert_string_equal(r, "cycles,{arm_spe_0/store_filter=0,load_filter=0,branch_filter=1,"
			       "ts_enable=1,min_latency=1024/}");
	free(r);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed_sample_line),
		cmocka_unit_test(test_record_command_and_flags),
		cmocka_unit_test(test_stat_timeline_and_sleep),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_extra_events),
		cmocka_unit_test(test_spe_spellings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

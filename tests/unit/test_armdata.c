/* sysinfo/armdata.c on a small fixture in the shape of Linux's arm64 pmu-events data
 * (tests/fixtures/armdata): the CPUs of mapfile.csv and their aliases, a core's events taking
 * the architecture's titles with its own descriptions, metrics (their events from the formula,
 * their unit without the scale, sbsa.json's through ArchStdEvent), armv8-a without Armv9's
 * events; and hostile files (truncated, too large, invalid UTF-8, wrong types), each refused
 * with one line naming the file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sysinfo/armdata.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include "events_test.h"

static void cpus_and_aliases(void **state)
{
	char *dir = fixture_path("armdata");
	struct armdata_cpus c;
	assert_int_equal(armdata_cpus(dir, &c), 0);
	char *names = armdata_cpu_names(&c);
	/* The uncore row and the part sysinfo does not name are left out; a directory named as a
	 * core (arm/neoverse-v3, under the V3AE's MIDR as Linux files it) is that core's. */
	assert_string_equal(names, "armv8-a, armv9-a, neoverse-n1, neoverse-n2, neoverse-v2, neoverse-v3");
	assert_string_equal(armdata_cpu_find(&c, "neoverse-v3")->dir, "arm/neoverse-v3");
	free(names);
	const struct armdata_cpu *n2 = armdata_cpu_find(&c, "neoverse-n2");
	assert_non_null(n2);
	assert_string_equal(n2->dir, "arm/neoverse-n2-v2");
	assert_ptr_equal(armdata_cpu_find(&c, "neoverse-n2-r0p3"), n2);
	assert_ptr_equal(armdata_cpu_find(&c, "neoverse-n2-r12p0"), n2);
	assert_null(armdata_cpu_find(&c, "neoverse-n2-r0"));
	assert_null(armdata_cpu_find(&c, "neoverse-n2-r0p"));
	assert_null(armdata_cpu_find(&c, "neoverse-n2-"));
	assert_null(armdata_cpu_find(&c, "never-verse-n1"));
	assert_null(armdata_cpu_find(&c, ""));
	assert_true(armdata_cpu_find(&c, "armv9-a")->armv9);
	assert_null(armdata_cpu_find(&c, "armv8-a")->dir);
	armdata_cpus_free(&c);
	free(dir);
}

static void a_core_events_and_metrics(void **state)
{
	char *dir = fixture_path("armdata");
	struct armdata_cpus c;
	struct armdata d;
	assert_int_equal(armdata_cpus(dir, &c), 0);
	assert_int_equal(armdata_load(dir, armdata_cpu_find(&c, "neoverse-n1"), &d), 0);
	assert_int_equal(d.nev, 3);
	const struct armdata_event *e = armdata_event(&d, "LD_SPEC");
	assert_non_null(e);
	assert_string_equal(e->name, "ld_spec");
	assert_string_equal(e->title, "Test load speculatively executed");
	assert_string_equal(e->desc, "Test N1 load description.\n\nA second paragraph.");
	assert_int_equal(e->code, 0x70);
	/* No description of its own: the architecture's. */
	assert_string_equal(armdata_event(&d, "sw_incr")->desc, "Test software increment, long");
	e = armdata_event(&d, "n1_own");
	assert_string_equal(e->title, "Test an event of the N1 only");
	assert_int_equal(e->code, 0x1f0);
	assert_null(armdata_event(&d, "trb_wrap"));

	assert_int_equal(d.nm, 2);
	const struct armdata_metric *m = armdata_metric(&d, "load_percentage");
	assert_string_equal(m->events, "ld_spec,inst_spec");
	assert_string_equal(m->formula, "((LD_SPEC / INST_SPEC) * 100)");
	assert_string_equal(m->unit, "percent of operations");
	assert_true(armdata_in_group(m, "operation_mix"));
	assert_false(armdata_in_group(m, "Operation"));
	m = armdata_metric(&d, "ld_mpki");
	assert_string_equal(m->events, "ld_spec,inst_spec");
	assert_string_equal(m->unit, "MPKI");
	assert_true(armdata_in_group(m, "MPKI"));
	assert_true(armdata_in_group(m, "Operation_Mix"));
	armdata_free(&d);

	/* A metric through ArchStdEvent takes sbsa.json's description, group and unit. */
	assert_int_equal(armdata_load(dir, armdata_cpu_find(&c, "neoverse-v2"), &d), 0);
	m = armdata_metric(&d, "frontend_bound");
	assert_non_null(m);
	assert_string_equal(m->desc, "Test frontend bound.");
	assert_string_equal(m->unit, "percent of slots");
	assert_string_equal(m->events, "stall_slot_frontend,cpu_cycles");
	assert_true(armdata_in_group(m, "TopdownL1"));
	assert_non_null(armdata_event(&d, "trb_wrap"));
	armdata_free(&d);
	armdata_cpus_free(&c);
	free(dir);
}

static void the_architectures(void **state)
{
	char *dir = fixture_path("armdata");
	struct armdata_cpus c;
	struct armdata d;
	assert_int_equal(armdata_cpus(dir, &c), 0);
	assert_int_equal(armdata_load(dir, armdata_cpu_find(&c, "armv8-a"), &d), 0);
	assert_non_null(armdata_event(&d, "ld_spec"));
	assert_non_null(armdata_event(&d, "inst_spec"));
	assert_null(armdata_event(&d, "trb_wrap"));
	assert_null(armdata_event(&d, "trcextout0"));
	assert_int_equal(d.nm, 0);
	armdata_free(&d);
	assert_int_equal(armdata_load(dir, armdata_cpu_find(&c, "armv9-a"), &d), 0);
	assert_string_equal(armdata_event(&d, "trcextout0")->title, "Test trace output 0");
	assert_non_null(armdata_event(&d, "trb_wrap"));
	armdata_free(&d);
	armdata_cpus_free(&c);
	free(dir);
}

/* Loads text written to a temporary file; returns the error (one line, naming the file) or
 * NULL when it loaded. */
static char *load_text(const char *text, size_t len)
{
	char path[] = "/tmp/lperf-armdata-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
	struct armdata d = { 0 };
	int rc = armdata_load_file(path, NULL, &d);
	armdata_free(&d);
	unlink(path);
	if (rc == 0)
		return NULL;
	assert_int_equal(rc, -1);
	assert_non_null(strstr(err_msg(), path));
	assert_null(strchr(err_msg(), '\n'));
	return xstrdup(err_msg());
}

static void expect_refused(const char *text, const char *words)
{
	char *msg = load_text(text, strlen(text));
	if (!msg)
		fail_msg("loaded: %s", text);
	if (!strstr(msg, words))
		fail_msg("'%s' lacks '%s'", msg, words);
	free(msg);
}

static void hostile_files(void **state)
{
	assert_null(load_text("[]", 2));
	const char *ok = "[ {\"EventName\": \"X\", \"EventCode\": \"0x1\"} ]\n";
	assert_null(load_text(ok, strlen(ok)));
	expect_refused("[{\"EventName\": \"X\"", "ends early");
	expect_refused("[{\"EventName\": \"\xff\xfe\"}]", "invalid JSON");
	expect_refused("[{\"EventName\": \"X\"}] [1]", "offset 21");
	expect_refused("{\"EventName\": \"X\"}", "expected an array");
	expect_refused("[42]", "entry 0 is not an object");
	expect_refused("[{\"EventName\": 7}]", "not a string");
	expect_refused("[{\"EventName\": \"X\", \"EventCode\": \"zz\"}]", "not an event number");
	expect_refused("[{\"EventName\": \"X\", \"EventCode\": \"0x123456\"}]", "not an event number");
	expect_refused("[{\"BriefDescription\": \"nameless\"}]", "without a name");
	expect_refused("[{\"MetricExpr\": \"A / B\"}]", "without a name");
	expect_refused("[{\"EventName\": \"X\",}]", "invalid JSON");
	/* Far more than Arm's data has: a formula of 9000 bytes, 4097 entries. */
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "[{\"MetricName\": \"m\", \"MetricExpr\": \"");
	for (int i = 0; i < 1000; i++)
		sb_addf(&sb, "A%05d + ", i);
	sb_addf(&sb, "B\"}]");
	expect_refused(sb_str(&sb), "entry 0: a formula longer than 8192 bytes");
	sb_release(&sb);
	sb_addf(&sb, "[");
	for (int i = 0; i < 4097; i++)
		sb_addf(&sb, "%s{\"EventName\": \"E%d\"}", i ? "," : "", i);
	sb_addf(&sb, "]");
	expect_refused(sb_str(&sb), "4097 entries");
	sb_release(&sb);
	/* Larger than any of Arm's files. */
	size_t big = (5u << 20);
	char *huge = xmalloc(big);
	memset(huge, ' ', big);
	huge[0] = '[';
	huge[big - 1] = ']';
	char *msg = load_text(huge, big);
	assert_non_null(msg);
	assert_non_null(strstr(msg, "larger than"));
	free(msg);
	free(huge);
	/* A NUL inside: the parser stops there, what follows is refused. */
	msg = load_text("[]\0[]", 5);
	assert_non_null(msg);
	assert_non_null(strstr(msg, "offset 2: text after the JSON"));
	free(msg);
}

static void missing_or_damaged_data(void **state)
{
	struct armdata_cpus c;
	assert_int_equal(armdata_cpus("/nonexistent-lperf-armdata", &c), -1);
	assert_non_null(strstr(err_msg(), "/nonexistent-lperf-armdata/mapfile.csv"));
	assert_non_null(strstr(err_msg(), "linux-source"));
	char dir[] = "/tmp/lperf-armdata-dir-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *map = xasprintf("%s/mapfile.csv", dir);
	static const char *const bad[] = { "0x410fd0c0,v1\n", "zz,v1,arm/x,core\n",
					   "0x410fd0c0,v1,../etc,core\n", "0x410fd0c0,v1,/etc,core\n",
					   "\n# a comment\n\n0x410fd0c0,v1,arm/x y,core\r\n" };
	static const char *const where[] = { "mapfile.csv:1: expected 4", "mapfile.csv:1: 'zz'",
					     "mapfile.csv:1: '../etc'", "mapfile.csv:1: '/etc'",
					     "mapfile.csv:4: 'arm/x y'" };
	for (size_t i = 0; i < 5; i++) {
		FILE *f = fopen(map, "w");
		fputs(bad[i], f);
		fclose(f);
		assert_int_equal(armdata_cpus(dir, &c), -1);
		if (!strstr(err_msg(), where[i]))
			fail_msg("'%s' lacks '%s'", err_msg(), where[i]);
	}
	/* An empty mapfile: the architectures only. */
	FILE *f = fopen(map, "w");
	fclose(f);
	assert_int_equal(armdata_cpus(dir, &c), 0);
	assert_int_equal(c.n, 2);
	armdata_cpus_free(&c);
	unlink(map);
	rmdir(dir);
	free(map);
	/* LPERF_ARM_DATA names the data. */
	setenv("LPERF_ARM_DATA", "/somewhere", 1);
	assert_string_equal(armdata_dir(), "/somewhere");
	unsetenv("LPERF_ARM_DATA");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cpus_and_aliases),
		cmocka_unit_test(a_core_events_and_metrics),
		cmocka_unit_test(the_architectures),
		cmocka_unit_test(hostile_files),
		cmocka_unit_test(missing_or_damaged_data),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Metrics: the formula language, set lookups and -m expansion, architecture detection over
 * throwaway sysfs trees, metric files. The built-in tables are in test_metric_builtin.c. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "events/metric.h"
#include "util/error.h"
#include "util/xalloc.h"

#include "metric_test.h"

/* ---- helpers ---- */

/* Parses and evaluates formula with the given values. */
static double calc(const char *formula, const char *values)
{
	struct metric_expr *e = metric_parse(formula);
	if (!e)
		fail_msg("'%s' did not parse: %s", formula, err_msg());
	struct vars v;
	vars_set(&v, values ? values : "");
	double r = metric_eval(e, vars_lookup, &v);
	metric_expr_free(e);
	return r;
}

/* Asserts that formula fails to parse with a one-line message containing each fragment. */
static void parse_fails(const char *formula, const char *frag1, const char *frag2)
{
	err_clear();
	struct metric_expr *e = metric_parse(formula);
	if (e) {
		metric_expr_free(e);
		fail_msg("'%s' parsed but should not", formula);
	}
	const char *msg = err_msg();
	assert_non_null(msg);
	assert_null(strchr(msg, '\n'));
	if (frag1 && !strstr(msg, frag1))
		fail_msg("error '%s' lacks '%s'", msg, frag1);
	if (frag2 && !strstr(msg, frag2))
		fail_msg("error '%s' lacks '%s'", msg, frag2);
}

/* Multiplexed counters: the kernel counted for `running` of `enabled` ns, so the estimate of
 * the full count is raw * enabled / running (NAN when it never ran). */
static double scale(double raw, double enabled, double running)
{
	return running > 0 ? raw * enabled / running : NAN;
}

static char *fixture(const char *name)
{
	const char *dir = getenv("FIXTURES");
	return xasprintf("%s/metrics/%s", dir && *dir ? dir : "tests/fixtures", name);
}

/* A throwaway sysfs tree holding the given PMU directories (and files, "dir/file=text"). */
static char sysroot[64];

static void mkpath(const char *rel, const char *content)
{
	char *path = xasprintf("%s/%s", sysroot, rel);
	for (char *p = path + strlen(sysroot) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		mkdir(path, 0755);
		*p = '/';
	}
	if (content) {
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		fputs(content, f);
		fclose(f);
	} else {
		mkdir(path, 0755);
	}
	free(path);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(p);
}

static void sys_begin(void)
{
	strcpy(sysroot, "/tmp/lperf-metric-XXXXXX");
	assert_non_null(mkdtemp(sysroot));
	mkpath("bus/event_source/devices/software", NULL);
	setenv("LPERF_SYSFS_ROOT", sysroot, 1);
}

static void sys_end(void)
{
	nftw(sysroot, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	unsetenv("LPERF_SYSFS_ROOT");
}

/* ---- the formula language ---- */

static void test_operators(void **state)
{
	assert_near(calc("2 + 3", NULL), 5);
	assert_near(calc("7 - 10", NULL), -3);
	assert_near(calc("6 * 7", NULL), 42);
	assert_near(calc("1 / 4", NULL), 0.25);
	assert_near(calc("a + b", "a=1.5,b=2"), 3.5);
	assert_near(calc("a*b", "a=3,b=4"), 12);
	assert_near(calc("a/b", "a=3,b=4"), 0.75);
}

static void test_precedence(void **state)
{
	assert_near(calc("2 + 3 * 4", NULL), 14);
	assert_near(calc("2 * 3 + 4", NULL), 10);
	assert_near(calc("10 - 4 - 3", NULL), 3);  /* left to right, not 10 - (4 - 3) */
	assert_near(calc("64 / 4 / 2", NULL), 8);
	assert_near(calc("2 + 12 / 4 * 3", NULL), 11);
	assert_near(calc("a / b * 100", "a=1,b=8"), 12.5);
	assert_near(calc("(2 + 3) * 4", NULL), 20);
	assert_near(calc("2 * (3 + 4) - (10 - 2) / (1 + 1)", NULL), 10);
	assert_near(calc("((((7))))", NULL), 7);
}

static void test_unary_minus(void **state)
{
	assert_near(calc("-3 + 5", NULL), 2);
	assert_near(calc("- -3", NULL), 3);
	assert_near(calc("--3", NULL), 3);
	assert_near(calc("2 * -3", NULL), -6);
	assert_near(calc("-(2 + 3)", NULL), -5);
	assert_near(calc("+4", NULL), 4);
	assert_near(calc("-2 - -2", NULL), 0);
	assert_near(calc("-a * b", "a=2,b=5"), -10);
	assert_near(calc("1 - -a", "a=4"), 5);
	/* A long sign chain is counted, not recursed: 2001 minus signs flip the sign. */
	char buf[2100];
	memset(buf, '-', 2001);
	strcpy(buf + 2001, "7");
	assert_near(calc(buf, NULL), -7);
}

static void test_constants(void **state)
{
	assert_near(calc("1e9", NULL), 1e9);
	assert_near(calc("0.5 * 4", NULL), 2);
	assert_near(calc(".5 + 1", NULL), 1.5);
	assert_near(calc("2.5E-3 * 1000", NULL), 2.5);
	assert_near(calc("1e+2", NULL), 100);
	assert_near(calc("3.", NULL), 3);
	assert_near(calc("  42  ", NULL), 42);
	assert_near(calc("\t1\t+\t1", NULL), 2);
}

static void test_names(void **state)
{
	/* '-' between letters belongs to the name: perf's generic names work... */
	assert_near(calc("context-switches / duration_time", "context-switches=50,duration_time=2"),
		    25);
	assert_near(calc("L1-dcache-load-misses / L1-dcache-loads",
			 "L1-dcache-load-misses=1,L1-dcache-loads=4"), 0.25);
	/* ...so "a-b" is one event, while "a - b" subtracts and "a-1" subtracts a number. */
	assert_true(isnan(calc("a-b", "a=5,b=3")));
	assert_near(calc("a-b", "a-b=9"), 9);
	assert_near(calc("a - b", "a=5,b=3"), 2);
	assert_near(calc("a -b", "a=5,b=3"), 2);
	assert_near(calc("a-1", "a=5"), 4);
	/* Tracepoints and modifiers use ':', dots are allowed inside names. */
	assert_near(calc("sched:sched_switch / 2", "sched:sched_switch=8"), 4);
	assert_near(calc("ev.x * 2", "ev.x=8"), 16);

	struct metric_expr *e = metric_parse("a / b + A * duration_time + #slots - c-d + b");
	assert_non_null(e);
	char **names = xmalloc(sizeof(char *));
	names[0] = xstrdup("c-d");
	size_t n = 1;
	metric_expr_events(e, &names, &n);
	assert_int_equal(n, 3);  /* c-d was there; a (= A), b added once; specials left out */
	assert_string_equal(names[0], "c-d");
	assert_string_equal(names[1], "a");
	assert_string_equal(names[2], "b");
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	metric_expr_free(e);
}

static void test_nan(void **state)
{
	assert_true(isnan(calc("1 / 0", NULL)));
	assert_true(isnan(calc("0 / 0", NULL)));
	assert_true(isnan(calc("a / b", "a=5,b=0")));
	assert_true(isnan(calc("1 / (a - a)", "a=3")));
	assert_true(isnan(calc("a + 1", "")));           /* missing input */
	assert_true(isnan(calc("a * 0", "b=1")));        /* missing input even when times 0 */
	assert_true(isnan(calc("1e300 * 1e300", NULL))); /* not finite */
	assert_near(calc("0 / a", "a=4"), 0);

	struct metric_expr *e = metric_parse("x + 1");
	assert_true(isnan(metric_eval(e, NULL, NULL)));
	metric_expr_free(e);
	assert_true(isnan(metric_eval(NULL, vars_lookup, NULL)));
}

static void test_parse_errors(void **state)
{
	parse_fails("", "formula ''", "empty");
	parse_fails("   ", "column", "empty");
	parse_fails("(a + b", "column 7", "expected ')' to close the '(' at column 1");
	parse_fails("((a) + b", "column 9", "expected ')'");
	parse_fails("a + b)", "column 6", "unexpected ')'");
	parse_fails("a +", "column 4", "found the end of the formula");
	parse_fails("a *", "column 4", "expected an event name, a number or '('");
	parse_fails("* a", "column 1", "found '*'");
	parse_fails("a + * b", "formula 'a + * b'", "column 5");
	parse_fails("a $ b", "column 3", "unexpected character '$'");
	parse_fails("a & b", "column 3", "'&'");
	parse_fails("a b", "column 3", "expected an operator");
	parse_fails("2 (a)", "column 3", "expected an operator");
	parse_fails("()", "column 2", "before ')'");
	parse_fails("1.2.3", "column 4", "after the number");
	parse_fails("0x10", "column 2", "after the number");
	parse_fails("1e999", "out of range", NULL);
	parse_fails("#foo * 2", "unknown constant '#foo'", NULL);
	parse_fails("a \x01 b", "byte 0x01", NULL);
	parse_fails("a\n+ b", "column 2", "byte 0x0a");
	parse_fails(NULL, "no formula", NULL);
}

static void test_deep_and_long(void **state)
{
	/* 10,000-deep nesting must fail cleanly (it is also longer than the limit). */
	size_t depth = 10000;
	char *s = xmalloc(2 * depth + 2);
	memset(s, '(', depth);
	s[depth] = 'a';
	memset(s + depth + 1, ')', depth);
	s[2 * depth + 1] = 0;
	parse_fails(s, "longer than 4096", NULL);
	/* Within the length limit, the nesting limit applies. */
	depth = 1000;
	memset(s, '(', depth);
	s[depth] = 'a';
	memset(s + depth + 1, ')', depth);
	s[2 * depth + 1] = 0;
	parse_fails(s, "nested deeper than 64", NULL);
	/* An unclosed deep prefix too. */
	memset(s, '(', 2000);
	s[2000] = 0;
	parse_fails(s, "nested deeper than 64", NULL);
	free(s);
	/* 64 levels is fine. */
	char ok[200];
	memset(ok, '(', 64);
	ok[64] = '3';
	memset(ok + 65, ')', 64);
	ok[129] = 0;
	assert_near(calc(ok, NULL), 3);

	/* A long flat chain is evaluated without recursion: a + a + ... (1000 terms). */
	char *chain = xmalloc(5000);
	chain[0] = 0;
	for (int i = 0; i < 1000; i++)
		strcat(chain, i ? "+a" : "a");
	assert_near(calc(chain, "a=0.5"), 500);
	free(chain);

	/* An over-long event name. */
	char name[400];
	memset(name, 'x', 300);
	name[300] = 0;
	parse_fails(name, "longer than 256", NULL);
}

static void test_multiplexed_inputs(void **state)
{
	/* inst_retired ran half the time: 500 raw counts stand for 1000. */
	assert_near(scale(500, 1000, 500), 1000);
	assert_near(scale(1000, 1000, 1000), 1000);
	char values[128];
	snprintf(values, sizeof(values), "inst_retired=%.17g,cpu_cycles=%.17g",
		 scale(500, 1000, 500), scale(1000, 1000, 1000));
	assert_near(calc("inst_retired / cpu_cycles", values), 1.0);  /* raw would give 0.5 */
	/* A counter that never ran has no estimate, and neither has the metric. */
	snprintf(values, sizeof(values), "inst_retired=%.17g,cpu_cycles=1000",
		 scale(500, 1000, 0));
	assert_true(isnan(calc("inst_retired / cpu_cycles", values)));
}

static void test_slots_from_sysfs(void **state)
{
	sys_begin();
	const char *f = "100 * stall_slot_frontend / (#slots * cpu_cycles)";
	/* No Arm PMU: no slot count, no value. */
	assert_true(isnan(calc(f, "stall_slot_frontend=1000,cpu_cycles=1000")));
	mkpath("bus/event_source/devices/armv8_pmuv3_0/caps/slots", "0x00000008\n");
	assert_near(calc(f, "stall_slot_frontend=1000,cpu_cycles=1000"), 12.5);
	/* The caller's lookup wins over sysfs. */
	assert_near(calc(f, "stall_slot_frontend=1000,cpu_cycles=1000,#slots=4"), 25);
	sys_end();
}

/* ---- lookups and expansion ---- */

static void test_expand(void **state)
{
	struct metric_set s = { 0 };
	metric_set_builtin(&s);
	const struct metric **m;

	assert_int_equal(metric_expand(&s, "load_percentage", &m), 1);
	assert_string_equal(m[0]->name, "load_percentage");
	free(m);

	/* groups expand, duplicates go, first-seen order stays, case does not matter */
	assert_int_equal(metric_expand(&s, " IMIX , Load_Percentage,branch_mpki,imix ", &m), 6);
	assert_string_equal(m[0]->name, "integer_dp_percentage");
	assert_string_equal(m[3]->name, "load_percentage");
	assert_string_equal(m[4]->name, "store_percentage");
	assert_string_equal(m[5]->name, "branch_mpki");
	free(m);

	assert_int_equal(metric_expand(&s, "operation_mix,imix", &m), 7);
	free(m);
	assert_int_equal(metric_expand(&s, "software", &m), 6);
	assert_string_equal(m[0]->name, "cpus_utilized");
	free(m);

	/* unknown names: an error with suggestions */
	err_clear();
	assert_int_equal(metric_expand(&s, "ipc,imx", &m), -1);
	assert_null(m);
	assert_non_null(strstr(err_msg(), "unknown metric or metric group 'imx'"));
	assert_non_null(strstr(err_msg(), "did you mean"));
	assert_non_null(strstr(err_msg(), "'imix'"));
	assert_int_equal(metric_expand(&s, "operation_mx", &m), -1);
	assert_non_null(strstr(err_msg(), "'Operation_Mix'"));
	assert_int_equal(metric_expand(&s, "zzzzzzzzzzzz", &m), -1);
	assert_non_null(strstr(err_msg(), "lperf list"));
	assert_int_equal(metric_expand(&s, "", &m), -1);
	assert_non_null(strstr(err_msg(), "empty metric list"));
	assert_int_equal(metric_expand(&s, "ipc,,cpi", &m), -1);
	assert_non_null(strstr(err_msg(), "empty name"));

	assert_null(metric_find(&s, "nosuch"));
	assert_null(metric_group_find(&s, "nosuch"));
	assert_non_null(metric_group_find(&s, "mpki"));
	metric_set_free(&s);
}

static void test_arch_detection(void **state)
{
	assert_string_equal(metric_arch_name(METRIC_ANY), "any");
	assert_string_equal(metric_arch_name(METRIC_ARM), "arm");
	assert_string_equal(metric_arch_name(METRIC_X86), "x86");
	struct metric_set s = { 0 };
	metric_set_builtin(&s);
	const struct metric **m;

	sys_begin();
	mkpath("bus/event_source/devices/arm_spe_0", NULL);  /* not a core PMU */
	assert_true(metric_arch_present(METRIC_ANY));
	assert_false(metric_arch_present(METRIC_ARM));
	assert_false(metric_arch_present(METRIC_X86));
	/* Nothing present: the architecture lperf was built for wins. */
#if defined(__x86_64__) || defined(__i386__)
	assert_int_equal(metric_find(&s, "ipc")->arch, METRIC_X86);
#elif defined(__aarch64__)
	assert_int_equal(metric_find(&s, "ipc")->arch, METRIC_ARM);
#endif

	mkpath("bus/event_source/devices/armv8_pmuv3_0", NULL);
	assert_true(metric_arch_present(METRIC_ARM));
	assert_false(metric_arch_present(METRIC_X86));
	assert_int_equal(metric_find(&s, "IPC")->arch, METRIC_ARM);
	assert_string_equal(metric_find(&s, "ipc")->formula, "inst_retired / cpu_cycles");
	/* A group's members come from the group's architecture, whatever is present. */
	assert_int_equal(metric_expand(&s, "x86_General", &m), 3);
	assert_int_equal(m[0]->arch, METRIC_X86);
	free(m);
	sys_end();

	sys_begin();
	mkpath("bus/event_source/devices/cpu_core", NULL);
	mkpath("bus/event_source/devices/cpu_atom", NULL);
	assert_true(metric_arch_present(METRIC_X86));
	assert_false(metric_arch_present(METRIC_ARM));
	assert_int_equal(metric_find(&s, "ipc")->arch, METRIC_X86);
	assert_int_equal(metric_expand(&s, "General", &m), 1);
	assert_int_equal(m[0]->arch, METRIC_ARM);
	free(m);
	sys_end();

	sys_begin();
	mkpath("bus/event_source/devices/cpu", NULL);
	assert_true(metric_arch_present(METRIC_X86));
	sys_end();

	/* A vendor-named Arm core PMU is recognised by its architected events. */
	sys_begin();
	mkpath("bus/event_source/devices/vendor_pmu/cpus", "0-3\n");
	mkpath("bus/event_source/devices/vendor_pmu/events/inst_retired", "event=0x08\n");
	assert_false(metric_arch_present(METRIC_ARM));
	mkpath("bus/event_source/devices/vendor_pmu/events/cpu_cycles", "event=0x11\n");
	assert_true(metric_arch_present(METRIC_ARM));
	sys_end();

	/* No sysfs at all. */
	setenv("LPERF_SYSFS_ROOT", "/nonexistent-lperf-root", 1);
	assert_false(metric_arch_present(METRIC_ARM));
	assert_false(metric_arch_present(METRIC_X86));
	unsetenv("LPERF_SYSFS_ROOT");
	metric_set_free(&s);
}

/* ---- metric files ---- */

static size_t count_named(const struct metric_set *s, const char *name)
{
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++)
		n += !strcasecmp(s->m[i].name, name);
	return n;
}

static void test_file_good(void **state)
{
	struct metric_set s = { 0 };
	metric_set_builtin(&s);
	assert_int_equal(count_named(&s, "ipc"), 2);  /* Arm and x86 */
	size_t before = s.n;
	char *path = fixture("good.txt");
	if (metric_set_load_file(&s, path) < 0)
		fail_msg("%s", err_msg());

	/* ipc replaced for every architecture; 6 new metrics */
	assert_int_equal(count_named(&s, "ipc"), 1);
	assert_int_equal(s.n, before - 1 + 6);
	const struct metric *m = metric_find(&s, "ipc");
	assert_true(m->user);
	assert_int_equal(m->arch, METRIC_ANY);
	assert_string_equal(m->formula, "instructions / cycles * 2");
	assert_string_equal(m->unit, "per cycle");
	assert_string_equal(m->desc, "deliberately doubled to show the override");
	struct vars v;
	vars_set(&v, "instructions=300,cycles=100");
	assert_near(metric_eval(m->expr, vars_lookup, &v), 6);

	m = metric_find(&s, "branch_rate");
	assert_non_null(m);
	assert_string_equal(m->unit, "per branch");
	assert_non_null(strstr(m->desc, "good.txt"));
	assert_int_equal(m->nevents, 2);

	m = metric_find(&s, "sw_rate");
	assert_int_equal(m->nevents, 1);  /* duration_time is not an event to open */
	assert_string_equal(m->events[0], "task-clock");

	m = metric_find(&s, "customizedmetric");
	assert_null(m->formula);
	assert_null(m->expr);
	assert_int_equal(m->nevents, 4);
	assert_string_equal(m->events[0], "inst_spec");
	assert_string_equal(m->events[3], "ld_spec");
	assert_true(isnan(metric_eval(m->expr, vars_lookup, &v)));

	m = metric_find(&s, "noformula");
	assert_int_equal(m->nevents, 2);  /* CYCLES repeats cycles */
	assert_string_equal(m->events[1], "instructions");

	/* -e spellings with PMU terms keep their commas */
	m = metric_find(&s, "rawset");
	assert_int_equal(m->nevents, 3);
	assert_string_equal(m->events[0], "armv8_pmuv3_0/event=0x70/");
	assert_string_equal(m->events[1], "cpu/event=0x3c,umask=0x0/");
	assert_string_equal(m->events[2], "r1b");

	m = metric_find(&s, "descs");
	assert_string_equal(m->unit, "GHz");
	assert_string_equal(m->desc, "text with ; a semicolon and # a hash");

	const struct metric **list;
	assert_int_equal(metric_expand(&s, "mine", &list), 3);
	assert_string_equal(list[0]->name, "branch_rate");
	assert_string_equal(list[2]->name, "ipc");
	free(list);
	/* the built-in General group was replaced */
	assert_int_equal(metric_expand(&s, "general", &list), 1);
	assert_string_equal(list[0]->name, "sw_rate");
	assert_true(metric_group_find(&s, "General")->user);
	free(list);
	assert_int_equal(metric_expand(&s, "customizedmetric,imix", &list), 6);
	free(list);

	free(path);
	metric_set_free(&s);
}

static void bad_file(const char *name, const char *where, const char *what)
{
	struct metric_set s = { 0 };
	metric_set_builtin(&s);
	size_t n = s.n, ng = s.ng;
	char *path = fixture(name);
	err_clear();
	assert_int_equal(metric_set_load_file(&s, path), -1);
	const char *msg = err_msg();
	char *loc = xasprintf("%s:%s", path, where);
	if (!strstr(msg, loc) || !strstr(msg, what))
		fail_msg("error '%s' lacks '%s' or '%s'", msg, loc, what);
	assert_null(strchr(msg, '\n'));
	/* all or nothing: the set is as it was */
	assert_int_equal(s.n, n);
	assert_int_equal(s.ng, ng);
	assert_false(metric_find(&s, "ipc")->user);
	free(loc);
	free(path);
	metric_set_free(&s);
}

static void test_file_bad(void **state)
{
	bad_file("bad_formula.txt", "3: ", "metric 'x': formula 'a + * b': column 5");
	bad_file("bad_syntax.txt", "2: ", "expected '=' (name = formula) or ':'");
	bad_file("bad_group.txt", "4: ", "group 'g': unknown metric 'nosuch_metric'");
	bad_file("bad_dup.txt", "3: ", "metric 'DUP' is already defined at line 1");
	bad_file("bad_eventset.txt", "1: ", "missing '}'");
	bad_file("bad_name.txt", "3: ", "'9lives' is not a valid metric name");
	bad_file("bad_groupline.txt", "3: ", "expected '=' after group name 'grp'");

	struct metric_set s = { 0 };
	char *path = fixture("no-such-file.txt");
	assert_int_equal(metric_set_load_file(&s, path), -1);
	assert_non_null(strstr(err_msg(), path));
	assert_non_null(strstr(err_msg(), "cannot open"));
	free(path);
}

static void test_file_limits(void **state)
{
	char path[] = "/tmp/lperf-metric-file-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs("a = x / y\n", f);
	fputs("b = ", f);
	for (int i = 0; i < 3000; i++)
		fputs("x + ", f);
	fputs("y\n", f);
	fclose(f);
	struct metric_set s = { 0 };
	assert_int_equal(metric_set_load_file(&s, path), -1);
	assert_non_null(strstr(err_msg(), ":2: "));
	assert_non_null(strstr(err_msg(), "longer than"));
	assert_int_equal(s.n, 0);

	f = fopen(path, "w");
	fwrite("a = x\0y\n", 1, 8, f);
	fclose(f);
	assert_int_equal(metric_set_load_file(&s, path), -1);
	assert_non_null(strstr(err_msg(), "NUL byte"));

	/* A file with only comments and CRLF line ends loads nothing and succeeds. */
	f = fopen(path, "w");
	fputs("# nothing\r\n\r\n  \r\nc = x * 2 ; u\r\n", f);
	fclose(f);
	assert_int_equal(metric_set_load_file(&s, path), 0);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.m[0].unit, "u");
	unlink(path);
	metric_set_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_operators),
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_unary_minus),
		cmocka_unit_test(test_constants),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_nan),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_deep_and_long),
		cmocka_unit_test(test_multiplexed_inputs),
		cmocka_unit_test(test_slots_from_sysfs),
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_arch_detection),
		cmocka_unit_test(test_file_good),
		cmocka_unit_test(test_file_bad),
		cmocka_unit_test(test_file_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Option parsing (util/opt.c) as the commands use it: long and short spellings, --opt=value and
 * -xVALUE, bundled flags, the optional-argument kinds (numeric, word, =only), "--", positional
 * words, stopping at the profiled command; and the usage errors, which exit 2 with one line
 * naming the option (checked in a child process, since they exit). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "util/error.h"
#include "util/opt.h"

struct vals {
	bool all, quiet, flag;
	int verbose, count;
	const char *events, *output, *tid, *graph, *regs;
	int cb_calls;
	const char *cb_arg;
};

static struct vals V;

static int cb_period(const struct option *opt, const char *arg)
{
	struct vals *v = opt->value;
	v->cb_calls++;
	v->cb_arg = arg;
	if (arg && !strcmp(arg, "bad"))
		return err_set("'%s' is not a period", arg);
	return 0;
}

static const struct option opts[] = {
	{ OPT_BOOL, 'a', "all-cpus", &V.all, NULL, "system-wide", NULL, 0 },
	{ OPT_BOOL, 'q', "quiet", &V.quiet, NULL, "quiet", NULL, 0 },
	{ OPT_COUNT, 'v', "verbose", &V.verbose, NULL, "more detail", NULL, 0 },
	{ OPT_STRING, 'e', "event", &V.events, "EVENTS", "events to count", NULL, 0 },
	{ OPT_STRING, 'o', "output", &V.output, "FILE", "output file", NULL, 0 },
	{ OPT_INT, 'r', "repeat", &V.count, "N", "repeat N times", NULL, 0 },
	{ OPT_STRING, 't', "tid", &V.tid, "TID", "threads", NULL, OPT_NUMERIC_OPT },
	{ OPT_STRING, 'g', "call-graph", &V.graph, "MODE", "call graphs", NULL, OPT_WORD_OPT },
	{ OPT_STRING, 0, "intr-regs", &V.regs, "REGS", "registers", NULL, OPT_EQ_OPT },
	{ OPT_GROUP, 0, NULL, NULL, NULL, "Other options:", NULL, 0 },
	{ OPT_CALLBACK, 'c', "count", &V, "PERIOD", "sampling period", cb_period, 0 },
	{ OPT_CALLBACK, 0, "no-flag", &V, NULL, "a callback without argument", cb_period, OPT_NOARG },
	{ OPT_BOOL, 0, "secret", &V.flag, NULL, "hidden", NULL, OPT_HIDDEN },
	OPT_END_(),
};

static const char *const usage[] = { "lperf x [<options>] [<command>]", NULL };

static int parse(bool stop, char **argv)
{
	memset(&V, 0, sizeof(V));
	int argc = 0;
	while (argv[argc])
		argc++;
	struct opt_ctx ctx = { "x", usage, opts, stop };
	return opt_parse(&ctx, argc, argv);
}

#define ARGV(...) ((char *[]){ "x", __VA_ARGS__, NULL })

static void long_and_short(void **state)
{
	assert_int_equal(parse(true, ARGV("--event=cycles", "--output", "f.data", "-r", "3")), 6);
	assert_string_equal(V.events, "cycles");
	assert_string_equal(V.output, "f.data");
	assert_int_equal(V.count, 3);

	assert_int_equal(parse(true, ARGV("-ecycles,instructions", "-of", "-r5")), 4);
	assert_string_equal(V.events, "cycles,instructions");
	assert_string_equal(V.output, "f");
	assert_int_equal(V.count, 5);

	/* An empty --opt= value is a value; the last spelling wins. */
	assert_int_equal(parse(true, ARGV("--event=", "-e", "b")), 4);
	assert_string_equal(V.events, "b");
	assert_int_equal(parse(true, ARGV("--event=")), 2);
	assert_string_equal(V.events, "");
}

static void bundles(void **state)
{
	assert_int_equal(parse(true, ARGV("-aqvv", "-v")), 3);
	assert_true(V.all);
	assert_true(V.quiet);
	assert_int_equal(V.verbose, 3);
	/* A value-taking letter ends the bundle and takes the rest, or the next word. */
	assert_int_equal(parse(true, ARGV("-aecycles", "-qo", "out")), 4);
	assert_true(V.all);
	assert_string_equal(V.events, "cycles");
	assert_true(V.quiet);
	assert_string_equal(V.output, "out");
}

static void command_and_positionals(void **state)
{
	/* record: the first non-option starts the command; its options stay its own. */
	char **argv = ARGV("-a", "sleep", "-e", "1");
	assert_int_equal(parse(true, argv), 2);
	assert_true(V.all);
	assert_null(V.events);
	assert_string_equal(argv[2], "sleep");
	/* "--" ends the options even before a word starting with '-'. */
	argv = ARGV("-q", "--", "-e", "x");
	assert_int_equal(parse(true, argv), 3);
	assert_null(V.events);
	assert_string_equal(argv[3], "-e");
	/* A lone "-" is a word, not an option. */
	argv = ARGV("-q", "-", "x");
	assert_int_equal(parse(true, argv), 2);
	assert_string_equal(argv[2], "-");

	/* list: words between options are moved behind them, in order, before what follows "--". */
	argv = ARGV("cache", "-v", "sw", "-q", "--", "-z");
	int i = parse(false, argv);
	assert_int_equal(i, 4);
	assert_int_equal(V.verbose, 1);
	assert_true(V.quiet);
	assert_string_equal(argv[4], "cache");
	assert_string_equal(argv[5], "sw");
	assert_string_equal(argv[6], "-z");
}

static void optional_arguments(void **state)
{
	/* -t takes the next word only when it is a number list (perf's TID; wperf's -t is a flag). */
	assert_int_equal(parse(true, ARGV("-t", "12,14-15", "-q")), 4);
	assert_string_equal(V.tid, "12,14-15");
	assert_int_equal(parse(true, ARGV("-t", "sleep")), 2);
	assert_null(V.tid);
	assert_int_equal(parse(true, ARGV("-t7")), 2);
	assert_string_equal(V.tid, "7");
	assert_int_equal(parse(true, ARGV("--tid", "9")), 3);
	assert_string_equal(V.tid, "9");

	/* -g takes a plain word ("caller", "dwarf,4096"), not a path or an option. */
	assert_int_equal(parse(true, ARGV("-g", "dwarf,4096", "./prog")), 3);
	assert_string_equal(V.graph, "dwarf,4096");
	assert_int_equal(parse(true, ARGV("-g", "./prog")), 2);
	assert_null(V.graph);
	assert_int_equal(parse(true, ARGV("-g", "-q")), 3);
	assert_null(V.graph);
	assert_true(V.quiet);
	/* perf's ambiguity, kept: a bare command name after -g is taken as its mode. */
	assert_int_equal(parse(true, ARGV("-g", "true")), 3);
	assert_string_equal(V.graph, "true");

	/* --intr-regs takes a value only after '='. */
	assert_int_equal(parse(true, ARGV("--intr-regs", "ax")), 2);
	assert_null(V.regs);
	assert_int_equal(parse(true, ARGV("--intr-regs=ax,bx")), 2);
	assert_string_equal(V.regs, "ax,bx");
}

/* perf's parse-options: a unique prefix of a long option is that option. */
static void long_prefixes(void **state)
{
	assert_int_equal(parse(true, ARGV("--eve", "x", "--outp=f", "--verb")), 5);
	assert_string_equal(V.events, "x");
	assert_string_equal(V.output, "f");
	assert_int_equal(V.verbose, 1);
	assert_int_equal(parse(true, ARGV("--co=7")), 2); /* --count: --call-graph starts --ca */
	assert_string_equal(V.cb_arg, "7");
}

static void callbacks(void **state)
{
	assert_int_equal(parse(true, ARGV("-c", "1000", "--no-flag")), 4);
	assert_int_equal(V.cb_calls, 2);
	assert_null(V.cb_arg); /* --no-flag takes none */
	assert_int_equal(parse(true, ARGV("--count=7")), 2);
	assert_string_equal(V.cb_arg, "7");
}

/* Runs parse() in a child: its exit status, and what it wrote to stdout and stderr. */
static int child(char **argv, char *out, size_t outsz, char *err, size_t errsz)
{
	int po[2], pe[2];
	assert_int_equal(pipe(po), 0);
	assert_int_equal(pipe(pe), 0);
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(po[1], 1);
		dup2(pe[1], 2);
		close(po[0]);
		close(pe[0]);
		parse(true, argv);
		fflush(NULL);
		_exit(99);
	}
	close(po[1]);
	close(pe[1]);
	ssize_t n = read(po[0], out, outsz - 1), m;
	out[n > 0 ? n : 0] = 0;
	size_t got = 0;
	while (got < errsz - 1 && (m = read(pe[0], err + got, errsz - 1 - got)) > 0)
		got += (size_t)m;
	err[got] = 0;
	close(po[0]);
	close(pe[0]);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static void usage_errors(void **state)
{
	char out[4096], err[1024];
	const struct {
		char **argv;
		const char *first_line;
	} cases[] = {
		{ ARGV("--evnt=x"), "lperf x: unknown option '--evnt'; did you mean '--event'?\n" },
		{ ARGV("-z"), "lperf x: unknown option '-z'" },
		{ ARGV("-aZ"), "lperf x: unknown option '-Z'" },
		{ ARGV("--secrt"), "lperf x: unknown option '--secrt'\n" }, /* hidden: not suggested */
		{ ARGV("--event"), "lperf x: option '--event' needs a value (EVENTS)\n" },
		{ ARGV("-q", "-o"), "lperf x: option '-o' needs a value (FILE)\n" },
		{ ARGV("--quiet=yes"), "lperf x: option '--quiet' takes no value\n" },
		{ ARGV("-r", "three"), "lperf x: option '-r': " },
		{ ARGV("--count=bad"), "lperf x: option '--count': 'bad' is not a period\n" },
		/* a prefix of several long options */
		{ ARGV("--c", "1"), "lperf x: ambiguous option '--c' (could be --call-graph, --count)\n" },
		{ ARGV("--sec"), "lperf x: unknown option '--sec'" }, /* hidden options need their full name */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(child(cases[i].argv, out, sizeof(out), err, sizeof(err)), EXIT_USAGE);
		assert_string_equal(out, "");
		if (strncmp(err, cases[i].first_line, strlen(cases[i].first_line)))
			fail_msg("case %zu: got '%s'", i, err);
		assert_non_null(strstr(err, "Run 'lperf x --help' for the list of options.\n"));
	}
}

static void help_exits_zero(void **state)
{
	char out[4096], err[1024];
	assert_int_equal(child(ARGV("-q", "--help"), out, sizeof(out), err, sizeof(err)), 0);
	assert_string_equal(err, "");
	assert_non_null(strstr(out, "usage: lperf x [<options>] [<command>]\n"));
	assert_non_null(strstr(out, "    -e, --event EVENTS        events to count\n"));
	assert_non_null(strstr(out, "    -t, --tid [TID]           threads\n"));
	assert_non_null(strstr(out, "\nOther options:\n"));
	assert_null(strstr(out, "secret"));
	assert_int_equal(child(ARGV("-h"), out, sizeof(out), err, sizeof(err)), 0);
	assert_non_null(strstr(out, "--intr-regs [REGS]"));
}

/* The whole command line main hands over: empty before, the same strings after. */
static void command_line(void **state)
{
	(void)state;
	int argc = -1;
	char **v = opt_command_line(&argc);
	assert_int_equal(argc, 0);
	assert_non_null(v);
	assert_null(v[0]);
	char *line[] = { (char *)"lperf", (char *)"record", (char *)"-o", (char *)"x.data", NULL };
	opt_set_command_line(4, line);
	v = opt_command_line(&argc);
	assert_int_equal(argc, 4);
	assert_ptr_equal(v, line);
	assert_string_equal(v[1], "record");
}

/* Subcommand abbreviations, as perf takes "rec" for "record". */
static void test_abbrev(void **state)
{
	assert_true(opt_abbrev("record", "record", 3));
	assert_true(opt_abbrev("rec", "record", 3));
	assert_true(opt_abbrev("reco", "record", 3));
	assert_false(opt_abbrev("re", "record", 3));
	assert_false(opt_abbrev("records", "record", 3));
	assert_false(opt_abbrev("rep", "record", 3));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_abbrev),
		cmocka_unit_test(long_and_short),
		cmocka_unit_test(bundles),
		cmocka_unit_test(command_and_positionals),
		cmocka_unit_test(optional_arguments),
		cmocka_unit_test(long_prefixes),
		cmocka_unit_test(callbacks),
		cmocka_unit_test(usage_errors),
		cmocka_unit_test(help_exits_zero),
		cmocka_unit_test(command_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

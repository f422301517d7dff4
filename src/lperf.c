/* lperf: the command table and dispatch. Everything else lives in src/cmd (one thin file per
 * command) and the library modules under src/. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "symbols/buildid_cache.h"
#include "util/error.h"
#include "util/opt.h"
#include "util/pager.h"
#include "util/suggest.h"
#include "util/xalloc.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
	const char *perf;  /* the perf command it stands for */
	const char *wperf; /* the WindowsPerf command it stands for */
};

static int cmd_help(int argc, char **argv);

static const struct command commands[] = {
	{ "stat", cmd_stat, "count events and compute metrics for a command, process, CPUs or the system",
	  "perf stat", "wperf stat" },
	{ "record", cmd_record, "sample a command or process into a perf.data file", "perf record",
	  "wperf record" },
	{ "report", cmd_report, "show where samples fall, from a perf.data file", "perf report", "" },
	{ "diff", cmd_diff, "compare two recordings: the functions or stacks whose share changed most",
	  "perf diff", "" },
	{ "top", cmd_top, "live: the hottest functions system-wide (or -p PID, a command), refreshed",
	  "perf top", "" },
	{ "sample", cmd_sample, "sample live and print the hottest functions", "", "wperf sample" },
	{ "script", cmd_script, "print every sample of a perf.data file as text", "perf script", "" },
	{ "inject", cmd_inject, "rewrite a recording so Linux perf resolves JIT code (perf inject --jit)",
	  "perf inject", "" },
	{ "annotate", cmd_annotate, "show samples per source line and instruction", "perf annotate",
	  "wperf --annotate" },
	{ "evlist", cmd_evlist, "list the events of a perf.data file", "perf evlist", "" },
	{ "list", cmd_list, "list events, metrics and metric groups usable here", "perf list",
	  "wperf list" },
	{ "man", cmd_man, "describe an event, metric or metric group (CPU/NAME for another CPU)", "",
	  "wperf man" },
	{ "wperf", cmd_wperf, "WindowsPerf's command line (stat, sample, record, list, test, man...)",
	  "", "wperf" },
	{ "test", cmd_test, "report what this machine can profile", "", "wperf test" },
	{ "version", cmd_version, "show the version and the features built in", "perf version",
	  "wperf --version" },
	{ "buildid-cache", cmd_buildid_cache, "manage the build-id cache (~/.debug) of binaries recordings name",
	  "perf buildid-cache", "" },
	{ "buildid-list", cmd_buildid_list, "list the build-ids a recording carries", "perf buildid-list", "" },
	{ "daemon", cmd_daemon, "always-on record sessions from a config file (start, stop, signal, ping)",
	  "perf daemon", "" },
	{ "probe", cmd_probe, "add, list and delete uprobes (-x BIN) and kprobes, as perf probe", "perf probe", "" },
	{ "lock", cmd_lock, "kernel lock contention: record, and contention (waits per caller)",
	  "perf lock", "" },
	{ "sched", cmd_sched, "record the scheduler's tracepoints as perf sched record (perf sched "
	  "latency/timehist/map read it)", "perf sched", "" },
	{ "dump", cmd_dump, "every thread's Python stack of a running CPython, now (py-spy dump)", "", "" },
	{ "mem", cmd_mem, "profile memory accesses from Arm SPE: record, and report (loads and stores "
	  "with their data source and latency)", "perf mem", "" },
	{ "c2c", cmd_c2c, "shared data cache lines from Arm SPE (false sharing): record, and report "
	  "(lines, offsets, functions)", "perf c2c", "" },
	{ "bench", cmd_bench, "perf bench's loads: sched messaging (hackbench)", "perf bench", "" },
	{ "help", cmd_help, "show help for lperf or one command", "perf help", "wperf --help" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: lperf [--version] [--help] COMMAND [ARGS]\n\n"
		   "lperf counts and samples hardware and software events (Linux perf and\n"
		   "WindowsPerf spellings both work). The commands are:\n\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "   %-14s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\nSee 'lperf help COMMAND' or 'lperf COMMAND --help' for one command.\n");
}

static const struct command *find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/* Run under the name perf (a symlink or a shim): perf's own words, which scripts look for. */
static bool perf_personality;

static void unknown_command(const char *name)
{
	if (perf_personality) {
		fprintf(stderr, "perf: '%s' is not a perf-command. See 'perf --help'.\n", name);
		exit(1);
	}
	/* perf's commands lperf does not have: say so, and where lperf does part of the job */
	static const char *const perf_only[][2] = {
		{ "trace", "count system calls with 'lperf stat -e raw_syscalls:sys_enter' or "
			   "'lperf stat -e syscalls:sys_enter_*', record them with 'lperf record -e ...'" },
		{ "kmem", NULL }, { "kvm", NULL },
		{ "ftrace", NULL }, { "timechart", NULL }, { "archive", NULL },
		{ "config", NULL }, { "data", NULL }, { "iostat", NULL }, { "kallsyms", NULL },
		{ "kwork", NULL },
	};
	for (size_t i = 0; i < ARRAY_SIZE(perf_only); i++)
		if (!strcmp(name, perf_only[i][0]))
			err_die(EXIT_USAGE, "'%s' is a perf command that lperf does not have%s%s\nRun 'lperf help' "
				"for the list of commands.", name, perf_only[i][1] ? "; " : "",
				perf_only[i][1] ? perf_only[i][1] : "");
	struct suggest s;
	char buf[256];
	suggest_init(&s, name);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		suggest_offer(&s, commands[i].name);
	err_die(EXIT_USAGE, "'%s' is not an lperf command%s\nRun 'lperf help' for the list of commands.",
		name, suggest_format(&s, buf, sizeof(buf)));
}

/* What `lperf CMD --help` prints (in roff when opt_set_roff was called), run in a child since
 * --help ends the process. NULL when it could not be run. */
static char *help_output(const struct command *c)
{
	FILE *tmp = tmpfile();
	if (!tmp)
		return NULL;
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		pager_disable();
		dup2(fileno(tmp), STDOUT_FILENO);
		char *args[] = { (char *)c->name, (char *)"--help", NULL };
		int rc = c->fn == cmd_help ? (usage(stdout), 0) : c->fn(2, args);
		fflush(stdout);
		_exit(rc);
	}
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fclose(tmp);
		return NULL;
	}
	long n = ftell(tmp);
	char *text = xcalloc(1, n > 0 ? (size_t)n + 1 : 1);
	rewind(tmp);
	if (n > 0 && fread(text, 1, (size_t)n, tmp) != (size_t)n)
		text[0] = 0;
	fclose(tmp);
	return text;
}

/* The manual page lperf-CMD(1) (lperf(1) for help itself): the option table's page, or the
 * command's own help text as a page. */
static int man_page(FILE *f, const struct command *c)
{
	opt_set_roff(c->summary);
	char *text = help_output(c);
	opt_set_roff(NULL);
	if (!text)
		return -1;
	if (!strncmp(text, ".TH ", 4))
		fputs(text, f);
	else
		opt_roff_text_page(f, c->fn == cmd_help ? "" : c->name, c->fn == cmd_help ?
				   "count and sample events, a Linux perf and WindowsPerf drop-in" : c->summary, text);
	free(text);
	return 0;
}

/* lperf help CMD on a terminal: the manual page through man(1); elsewhere, or without man, the
 * short form (CMD --help). */
static int show_page(const struct command *c)
{
	if (!isatty(STDOUT_FILENO) || access("/usr/bin/man", X_OK) < 0)
		return -1;
	FILE *p = popen("man -l - 2>/dev/null", "w");
	if (!p)
		return -1;
	int rc = man_page(p, c);
	int st = pclose(p);
	return rc == 0 && st == 0 ? 0 : -1;
}

static int cmd_help(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--commands")) { /* for the man page generator (Makefile) */
		for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
			printf("%s\n", commands[i].name);
		return 0;
	}
	bool roff = !strcmp(argv[1], "--man");
	const char *name = roff ? (argc > 2 ? argv[2] : "help") : argv[1];
	const struct command *c = find(name);
	if (!c)
		unknown_command(name);
	if (roff)
		return man_page(stdout, c) < 0 ? EXIT_RUNTIME : 0;
	if (c->fn == cmd_help) {
		usage(stdout);
		return 0;
	}
	if (show_page(c) == 0)
		return 0;
	char *args[] = { (char *)c->name, (char *)"--help", NULL };
	return c->fn(2, args);
}

/* As git's run_builtin: output that never reached its file is a failure. Runs at exit, so it
 * also covers commands that end through exit(). A closed stdout is left alone. */
static void check_stdout(void)
{
	struct stat st;
	if (fstat(fileno(stdout), &st) < 0)
		return;
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout) && fclose(stdout) == 0)
		return;
	if (!errno) {
		/* The failed write was earlier and its errno is gone: write again what is buffered, or
		 * a byte-less probe, to learn why (ENOSPC, EPIPE, EFBIG, EIO...). */
		clearerr(stdout);
		if (fflush(stdout) == 0 && !errno && write(fileno(stdout), "\n", 1) < 0 && !errno)
			errno = EIO;
	}
	fprintf(stderr, "lperf: write error on standard output: %s\n", strerror(errno ? errno : EIO));
	_exit(EXIT_RUNTIME);
}

/* Invoked as `wperf` (a link to lperf): WindowsPerf's command line, which is the table's "wperf"
 * command, as `lperf wperf ARGS` is (git runs git-xxx as `git xxx`). */
static bool wperf_personality(const char *argv0)
{
	const char *base = strrchr(argv0, '/');
	base = base ? base + 1 : argv0;
	return !strcmp(base, "wperf") || !strcmp(base, "wperf.exe");
}

static bool is_perf_name(const char *argv0)
{
	const char *base = strrchr(argv0, '/');
	return !strcmp(base ? base + 1 : argv0, "perf");
}

/* perf's options before the command: --buildid-dir DIR (the build-id cache) and --no-pager
 * (long text output is not paged on a terminal, util/pager.h). Returns how many words they took. */
static int global_options(int argc, char **argv)
{
	int i = 1;
	while (i < argc) {
		const char *a = argv[i];
		if (!strcmp(a, "--no-pager")) {
			pager_disable();
			i++;
		} else if (!strncmp(a, "--buildid-dir=", 14)) {
			buildid_cache_set_dir(a + 14);
			i++;
		} else if (!strcmp(a, "--buildid-dir")) {
			if (i + 1 >= argc)
				err_die(EXIT_USAGE, "option '--buildid-dir' needs a directory");
			buildid_cache_set_dir(argv[i + 1]);
			i += 2;
		} else {
			break;
		}
	}
	return i - 1;
}

int main(int argc, char **argv)
{
	atexit(check_stdout);
	if (argc > 0 && wperf_personality(argv[0])) {
		opt_set_command_line(argc, argv);
		return find("wperf")->fn(argc, argv);
	}
	perf_personality = argc > 0 && is_perf_name(argv[0]);
	err_perf_name = perf_personality;
	int skip = global_options(argc, argv);
	if (skip) {
		argv[skip] = argv[0];
		argc -= skip;
		argv += skip;
	}
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	const char *name = argv[1];
	if (!strcmp(name, "--help") || !strcmp(name, "-h"))
		name = "help";
	else if (!strcmp(name, "--version") || !strcmp(name, "-V"))
		name = "version";
	else if (name[0] == '-')
		err_die(EXIT_USAGE, "unknown option '%s'; options go after the command, e.g. 'lperf stat %s'\n"
			"Run 'lperf help' for the list of commands.", name, name);
	const struct command *c = find(name);
	if (!c)
		unknown_command(name);
	if (c->fn == cmd_man && argc == 3 && find(argv[2]))
		/* a perf user's `man perf-record` reflex: man is WindowsPerf's, for events */
		err_die(EXIT_USAGE, "'lperf man' describes events, metrics and metric groups; '%s' is a "
			"command: see 'lperf help %s' (the manual page lperf-%s(1)) or 'lperf %s --help'",
			argv[2], argv[2], argv[2], argv[2]);
	argv[1] = (char *)c->name;
	opt_set_command_line(argc, argv);
	return c->fn(argc - 1, argv + 1);
}

/* `wperf` (a link to lperf named wperf) and `lperf wperf`: WindowsPerf's command line on lperf's
 * engine. The line is parsed once by WindowsPerf's grammar (wperf/wperf_args.c), then its command
 * is found in one table, as lperf.c finds lperf's. The informational commands (--help, --version,
 * list, test, detect) are here: they gather through the library and render through
 * output/wperf_info_out.c; stat, sample/record and man have their own files. */
#include "cmd/cmd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "events/evlist.h"
#include "events/metric.h"
#include "events/pmu.h"
#include "events/wperf_spell.h"
#include "output/wperf_out.h"
#include "sysinfo/buildinfo.h"
#include "sysinfo/sysinfo.h"
#include "util/error.h"
#include "util/outfile.h"
#include "util/fileio.h"
#include "util/xalloc.h"
#include "wperf/wperf.h"
#include "wperf/wperf_extra.h"

/* wperf --help: WindowsPerf's sections (NAME, SYNOPSIS, OPTIONS one a line with its text
 * below, OPTIONS aliases, EXAMPLES) in lperf's words; the SPE example where an SPE PMU exists. */
static const char *const help_options[][2] = {
	{ "-h, --help", "This text." },
	{ "--version", "The versions of wperf (lperf) and of its \"driver\" (the kernel's perf_event)." },
	{ "-v, --verbose", "More detail: the events to be counted, the timeline file, sampling statistics." },
	{ "-q", "Quiet: no tables, progress or notes." },
	{ "-e", "Events, comma separated: names from `wperf list`, raw `r1b` or `0x1b`, {a,b}\n"
		"        for a group; NAME:PERIOD to sample; /dsu/EV, /dmc_clk/EV, arm_spe_0/ld=1,min=64/." },
	{ "-m", "Metrics, comma separated (`wperf list` shows them); imix, icache, dcache, itlb\n"
		"        and dtlb are event groups." },
	{ "--timeout", "How long to count or sample: a number with up to 2 decimals and an optional unit\n"
		       "        ms, s, m, h or d (seconds by default). Without it, until Ctrl-C." },
	{ "-t", "Timeline: count -n times, -i apart, each count --timeout long, into a CSV file." },
	{ "-i", "Timeline: the sleep after each count (same units as --timeout; 60 s by default)." },
	{ "-n", "Timeline: the number of counts (0, the default: until Ctrl-C)." },
	{ "--annotate", "Sampling: the source lines where the samples of each hot function fall." },
	{ "--disassemble", "Sampling: the instructions too (implies --annotate)." },
	{ "--image_name", "Sampling: the process or module name, when it differs from --pe_file's." },
	{ "--pe_file", "Sampling: the program (path or name) whose running process is sampled." },
	{ "--pdb_file", "Sampling: a separate debug file (ELF .debug) for a stripped --pe_file." },
	{ "--sample-display-long", "Sampling: symbol names as linked (mangled)." },
	{ "--sample-display-row", "Sampling: how many hot functions to show (50 by default)." },
	{ "--symbol", "Sampling: only symbols matching this regular expression (any case)." },
	{ "--record_spawn_delay", "Record: milliseconds to wait after starting the command (1000 by default)." },
	{ "--force-lock", "Accepted; Linux has no driver lock (perf_event is shared by every tool)." },
	{ "-c, --cpu", "Cores, comma separated or ranges (0,3-5): all to count on, one to sample on." },
	{ "-k", "Count kernel mode too (user mode only by default)." },
	{ "--dmc", "Accepted; every DMC-620 PMU is counted." },
	{ "-C", "A file of custom metrics, one name:{ev1,ev2} (or name = formula) a line." },
	{ "-E", "Custom events, name:0xHEX,... on the command line or in a file." },
	{ "--json", "JSON on standard output instead of the tables." },
	{ "--output, -o", "Write the JSON to this file (the tables are still printed)." },
	{ "--output-csv", "Timeline: the CSV file name; {timestamp}, {class} and {core} are replaced." },
	{ "--output-prefix, --cwd", "The directory for the JSON and CSV files." },
	{ "--config", "NAME=VALUE driver settings: accepted and shown; the kernel multiplexes on its own." },
	{ "--dry-run", "(lperf) Show how the events resolve; open nothing." },
};

static int wperf_help(struct wperf_args *a)
{
	printf("WindowsPerf ver. %s (%s/Release+lperf) WOA profiling with performance counters.\n"
	       "Report bugs to: the lperf project (README.md); this is lperf's WindowsPerf personality "
	       "on Linux (docs/wperf.md)\n\n"
	       "NAME:\n"
	       "    wperf - counting and sampling with the CPU's performance counters, run by lperf\n\n"
	       "SYNOPSIS:\n"
	       "    wperf [--version] [--help] [OPTIONS]\n\n"
	       "    wperf stat [-e] [-m] [-t] [-i] [-n] [-c] [-C] [-E] [-k] [--dmc] [-q] [--json]\n"
	       "               [--output] [--config] [--force-lock] [--output-csv] [--output-prefix]\n"
	       "               [--timeout | sleep N] [-- COMMAND [ARGS]]\n"
	       "    wperf sample [-e] [--timeout] [-c] [-C] [-E] [-q] [--json] [--output] [--config]\n"
	       "                 [--image_name] [--pe_file] [--pdb_file] [--sample-display-long]\n"
	       "                 [--force-lock] [--sample-display-row] [--symbol] [--annotate]\n"
	       "                 [--disassemble]\n"
	       "    wperf record [the options of sample] [--record_spawn_delay] [-- COMMAND [ARGS]]\n"
	       "    wperf list [-v] [--json] [--force-lock]\n"
	       "    wperf test [-v] [--json] [-e] [-m] [--config]\n"
	       "    wperf detect [--json]\n"
	       "    wperf man [--json] NAME | CPU/NAME\n\n"
	       "OPTIONS:\n", sysinfo_version(), sysinfo_gitrev());
	for (size_t i = 0; i < ARRAY_SIZE(help_options); i++)
		printf("    %s\n        %s\n\n", help_options[i][0], help_options[i][1]);
	printf("OPTIONS aliases:\n"
	       "    -l\n        The same as `list`.\n\n"
	       "    sleep\n        The same as `--timeout`.\n\n"
	       "    -s\n        The same as `--symbol`.\n\n"
	       "EXAMPLES:\n\n"
	       "    > wperf stat -m imix -c 1 sleep 3\n"
	       "    The imix event group on core 1 for 3 seconds.\n\n"
	       "    > wperf stat -e inst_spec,ld_spec -c 0 -t -i 2 -n 3 --timeout 5\n"
	       "    Three 5-second counts on core 0, 2 seconds apart, into a timeline CSV file.\n\n"
	       "    > wperf sample -e ld_spec:100000 --pe_file python3 -c 1\n"
	       "    Sample the running python3 on core 1 every 100000 ld_spec events, until Ctrl-C.\n\n"
	       "    > wperf record -e ld_spec:100000 -c 1 --timeout 30 -- python3 -c 10**10**100\n"
	       "    Start the command on core 1 and sample it for up to 30 seconds.\n");
	char spe[64];
	if (wperf_spe_pmu(spe) == 0)
		printf("\n    > wperf record -e %s/ld=1,min_latency=64/ -c 1 -- python3 -c 10**10**100\n"
		       "    Sample loads taking at least 64 cycles with the Statistical Profiling Extension.\n",
		       spe);
	return 0;
}

/* Prints the tables (unless --json or -q) and writes their JSON to stdout (--json) and/or
 * the -o file. 1 when the file cannot be written. */
static int emit(const struct wperf_args *a, struct wperf_tab *tabs, const char *const *titles,
		size_t n)
{
	int ret = 0;
	if (a->json)
		wperf_tabs_json(stdout, tabs, n);
	if (a->output) {
		char *path = wperf_out_path(a, a->output);
		struct outfile of;
		FILE *f = outfile_fopen(&of, path);
		if (f)
			wperf_tabs_json(f, tabs, n);
		if (!f || outfile_commit(&of, false) < 0) {
			err_warn("%s", err_msg());
			ret = 1;
		}
		free(path);
	}
	if (!a->json && !a->quiet)
		wperf_tabs_print(stdout, tabs, titles, n);
	for (size_t i = 0; i < n; i++)
		wperf_tab_free(&tabs[i]);
	return ret;
}

static int wperf_banner(struct wperf_args *a)
{
	printf("WindowsPerf ver. %s (%s/Release+lperf) WOA profiling with performance counters.\n"
	       "Report bugs to: the lperf project (README.md)\n"
	       "Use --help for help.\n", sysinfo_version(), sysinfo_gitrev());
	return 0;
}

static int wperf_version(struct wperf_args *a)
{
	struct utsname u;
	char rel[sizeof(u.release)] = "unknown";
	if (uname(&u) == 0)
		snprintf(rel, sizeof(rel), "%s", u.release);
	struct wperf_tab t;
	wperf_version_tab(&t, rel, wperf_spe_pmu(NULL) == 0);
	return emit(a, &t, NULL, 1);
}

static int wperf_list(struct wperf_args *a)
{
	struct ev_catalog cat = { 0 };
	if (ev_catalog_build(&cat, false, false) < 0)
		err_die_last(EXIT_USAGE);
	struct metric_set ms = { 0 };
	metric_set_builtin(&ms);
	metric_set_wperf_simple(&ms, wperf_counters());
	if (a->metric_file && metric_set_load_file(&ms, a->metric_file) < 0)
		err_die_last(EXIT_USAGE);
	char spe[64] = "";
	if (wperf_spe_pmu(spe) < 0)
		spe[0] = 0;
	struct wperf_list_view v = { .cat = &cat, .metrics = &ms, .extra_events = a->extra_events,
				     .spe_pmu = spe, .verbose = a->verbose > 0 };
	for (int arch = METRIC_ANY; arch <= METRIC_X86; arch++)
		v.arch_present[arch] = metric_arch_present(arch);
	struct wperf_tab t[3];
	wperf_list_tabs(t, &v);
	int r = emit(a, t, wperf_list_titles, 3);
	ev_catalog_free(&cat);
	metric_set_free(&ms);
	return r;
}

static int wperf_test(struct wperf_args *a)
{
	struct evlist sched = { 0 };
	bool requested = a->events.len || a->metrics.len;
	struct sysinfo si;
	sysinfo_collect(&si, 0);
	if (requested && wperf_schedule(a, si.gpc_num, &sched) < 0)
		err_die_last(EXIT_USAGE);
	const struct pmu_table *pt = pmu_table();
	struct wperf_test_view v = { .si = &si, .hw_pmu = ev_have_hw_pmu(),
				     .spe_version = wperf_spe_version_name(),
				     .schedule = requested ? &sched : NULL, .pmus = pt };
	/* --config count.period=N is shown as set (the kernel's multiplexing is not changed). */
	if (a->config && !strncmp(a->config, "count.period=", 13)) {
		v.count_period = a->config + 13;
		if (!*v.count_period || strspn(v.count_period, "0123456789") != strlen(v.count_period))
			err_die(EXIT_USAGE, "--config %s: count.period takes a number of milliseconds",
				a->config);
	}
	for (size_t i = 0; i < pt->n; i++)
		if (pt->p[i].is_core)
			v.core_events += pt->p[i].nev;
	struct wperf_tab t;
	wperf_test_tab(&t, &v);
	emit(a, &t, NULL, 1);
	evlist_free(&sched);
	sysinfo_free(&si);
	return 0;
}

static int wperf_detect(struct wperf_args *a)
{
	struct wperf_tab t;
	wperf_detect_tab(&t, pmu_table(), sysfs_root());
	return emit(a, &t, NULL, 1);
}

static int wperf_record(struct wperf_args *a) { return wperf_sample(a, true); }
static int wperf_sample_only(struct wperf_args *a) { return wperf_sample(a, false); }

/* WindowsPerf's commands; "" is wperf alone (the banner). */
static const struct {
	const char *name;
	int (*fn)(struct wperf_args *a);
} wperf_commands[] = {
	{ "", wperf_banner },
	{ "help", wperf_help },
	{ "version", wperf_version },
	{ "stat", wperf_stat },
	{ "sample", wperf_sample_only },
	{ "record", wperf_record },
	{ "list", wperf_list },
	{ "test", wperf_test },
	{ "detect", wperf_detect },
	{ "man", wperf_man },
};

int cmd_wperf(int argc, char **argv)
{
	struct wperf_args a;
	int parsed = wperf_parse_args(&a, argc, argv);
	for (size_t i = 0; i < a.warnings.n; i++)
		fprintf(stderr, "warning: %s\n", a.warnings.v[i]);
	if (parsed < 0) {
		/* wperf's own words, alone on the line, and its exit status (EXIT_FAILURE) */
		fprintf(stderr, "%s\n", err_msg());
		wperf_args_free(&a);
		return EXIT_RUNTIME;
	}
	err_quiet = a.quiet;
	if (a.force_lock)
		err_note("--force-lock: nothing to lock on Linux (perf_event is shared by every tool); "
			 "accepted");
	const char *name = a.help ? "help" : a.cmd;
	int r = 0;
	for (size_t i = 0; i < ARRAY_SIZE(wperf_commands); i++)
		if (!strcmp(wperf_commands[i].name, name)) {
			r = wperf_commands[i].fn(&a);
			break;
		}
	wperf_args_free(&a);
	return r;
}

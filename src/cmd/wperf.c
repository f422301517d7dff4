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
#include "util/fileio.h"
#include "util/xalloc.h"
#include "wperf/wperf.h"
#include "wperf/wperf_extra.h"

static int wperf_help(struct wperf_args *a)
{
	printf(		"WindowsPerf ver. %s (%s/Release+lperf) WOA profiling with performance counters.\n"
		"Report bugs to: https://gitlab.com/Linaro/WindowsPerf/windowsperf/-/issues\n"
		"(this is lperf's WindowsPerf personality on Linux: see docs/wperf.md)\n\n"
		"NAME:\n"
		"    wperf - Performance analysis tools for Windows on Arm, run by lperf on Linux\n\n"
		"SYNOPSIS:\n"
		"    wperf [--version] [--help] [OPTIONS]\n\n"
		"    wperf stat [-e] [-m] [-t] [-i] [-n] [-c] [-C] [-E] [-k] [--dmc] [-q] [--json]\n"
		"               [--output] [--config] [--force-lock] [--output-csv] [--output-prefix]\n"
		"               [--timeout | sleep N] [-- COMMAND [ARGS]]\n"
		"    wperf sample [-e] [--timeout] [-c] [-C] [-E] [-q] [--json] [--output] [--config]\n"
		"                 [--image_name] [--pe_file] [--pdb_file] [--sample-display-long]\n"
		"                 [--force-lock] [--sample-display-row] [--symbol] [--record_spawn_delay]\n"
		"                 [--annotate] [--disassemble] [--export_perf_data FILE]\n"
		"    wperf record [same as sample] [-- COMMAND [ARGS]]\n"
		"    wperf list [-v] [--json] [--force-lock]\n"
		"    wperf test [-v] [--json] [-e] [-m] [--config]\n"
		"    wperf detect [--json]\n"
		"    wperf man [--json] NAME | CPU/NAME\n\n"
		"OPTIONS:\n"
		"    -e EVENTS          events, comma separated; {a,b} groups; EVENT:PERIOD for sampling;\n"
		"                       /dsu/EVENT, /dmc_clk/EVENT, arm_spe_0/ld=1,min=64/\n"
		"    -m METRICS         metrics or metric groups (imix, Operation_Mix, ...)\n"
		"    -c, --cpu CORES    cores, 0,3-5 (default: all cores; sampling takes one core)\n"
		"    -k                 count kernel mode too (default: user mode only)\n"
		"    -C FILE            custom metrics, one name:{ev1,ev2} per line\n"
		"    -E FILE|LIST       custom events, name:0xHEX,...\n"
		"    --timeout DUR      count for DUR (ms, s, m, h, d; default s); also 'sleep DUR'\n"
		"    -t                 timeline: count repeatedly into a CSV file\n"
		"    -i DUR             timeline: sleep between counts (default 60)\n"
		"    -n N               timeline: number of counts (default 0 = until Ctrl-C)\n"
		"    --output-csv TMPL  timeline CSV name, {timestamp} {class} {core} replaced\n"
		"    --output-prefix, --cwd DIR  where JSON and CSV files go\n"
		"    --json             JSON output; -o/--output FILE writes it to FILE\n"
		"    -q                 quiet; -v, --verbose more detail\n"
		"    --pe_file PATH     the executable to sample; --image_name NAME; --pdb_file PATH\n"
		"    --record_spawn_delay MS  wait after starting the command (default 1000)\n"
		"    --dry-run          (lperf) show how events resolve; open nothing\n",
		sysinfo_version(), sysinfo_gitrev());
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
		FILE *f = fopen(path, "w");
		if (!f) {
			err_warn("cannot write '%s': %s", path, strerror(errno));
			ret = 1;
		} else {
			wperf_tabs_json(f, tabs, n);
			fclose(f);
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
				     .schedule = requested ? &sched : NULL, .pmus = pmu_table() };
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
		fprintf(stderr, "error: %s\n", err_msg());
		wperf_args_free(&a);
		return EXIT_USAGE;
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

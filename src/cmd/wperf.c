/* `wperf`: WindowsPerf's commands on lperf's engine. Dispatch, help, --version, detect, test
 * and list live here; stat, sample/record and man in their own files. */
#include "wperf/wperf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "sysinfo/buildinfo.h"
#include "util/error.h"
#include "util/xalloc.h"
#include "wperf/wperf_info.h"

static void help(FILE *f)
{
	fprintf(f,
		"WindowsPerf ver. %s (%s/Release+lperf) WOA profiling with performance counters.\n"
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
}

static int run_list(struct wperf_args *a)
{
	int r = wperf_list(a);
	if (r < 0)
		err_die_last(EXIT_USAGE);
	return r;
}

static int run_test(struct wperf_args *a)
{
	if (wperf_test(a) < 0)
		err_die_last(EXIT_USAGE);
	return 0;
}

int wperf_main(int argc, char **argv)
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
	int r = 0;
	if (!strcmp(a.cmd, "help") || a.help) {
		help(stdout);
	} else if (!*a.cmd) {
		printf("WindowsPerf ver. %s (%s/Release+lperf) WOA profiling with performance counters.\n"
		       "Use --help for help.\n", sysinfo_version(), sysinfo_gitrev());
	} else if (!strcmp(a.cmd, "version")) {
		r = wperf_version(&a);
	} else if (!strcmp(a.cmd, "stat")) {
		r = wperf_stat(&a);
	} else if (!strcmp(a.cmd, "sample") || !strcmp(a.cmd, "record")) {
		r = wperf_sample(&a, !strcmp(a.cmd, "record"));
	} else if (!strcmp(a.cmd, "list")) {
		r = run_list(&a);
	} else if (!strcmp(a.cmd, "test")) {
		r = run_test(&a);
	} else if (!strcmp(a.cmd, "detect")) {
		r = wperf_detect(&a);
	} else if (!strcmp(a.cmd, "man")) {
		r = wperf_man(&a);
	}
	wperf_args_free(&a);
	return r;
}

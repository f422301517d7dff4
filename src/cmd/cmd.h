/* Entry points of the commands. Each takes argv with argv[0] = the command name and returns
 * the exit status (0, 1 runtime error, 2 usage, or the profiled command's own status). */
#ifndef LPERF_CMD_CMD_H
#define LPERF_CMD_CMD_H

#include <stdbool.h>

int cmd_stat(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_daemon(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_inject(int argc, char **argv);
int cmd_evlist(int argc, char **argv);
int cmd_sample(int argc, char **argv);
int cmd_script(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_test(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_buildid_cache(int argc, char **argv);
int cmd_buildid_list(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_man(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_lock(int argc, char **argv);
int cmd_sched(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_mem(int argc, char **argv);
int cmd_c2c(int argc, char **argv);
/* WindowsPerf's command line (cmd/wperf.c): argv[0] is "wperf" or what it was invoked as. */
int cmd_wperf(int argc, char **argv);

/* WindowsPerf's commands, given the line wperf/wperf_args.c parsed; each returns the exit
 * status. */
struct wperf_args;
int wperf_stat(struct wperf_args *a);
/* WindowsPerf's checks of a stat/sample/record line after parsing (wperf_check_request on this
 * machine's cores); on failure its message alone on stderr and exit 1, as wperf. */
void wperf_check_or_die(const struct wperf_args *a);
int wperf_sample(struct wperf_args *a, bool record);
int wperf_man(struct wperf_args *a);

/* After session_open failed on input (report.c): prints the error and, where the file does
 * not exist, the hint to record one first (perf's "try 'perf record' first"); exits 1. */
void cmd_open_failed(const char *input) __attribute__((noreturn));
/* --time of report and script (report.c): the spec into the filter's time_spec. Under the name
 * perf a spec perf refuses ends the run with perf's line and status (234, its -EINVAL); else
 * -1 after err_set, for the option parser's usage error. */
struct sample_filter;
int cmd_time_opt(struct sample_filter *f, const char *spec);
/* After session_open failed: when a percent --time met a recording without sample times and
 * lperf runs as perf, perf's hint and status; otherwise nothing (cmd_open_failed follows). */
struct session;
void cmd_time_unreadable(const struct session *ss);
struct session;
struct spe_data;
/* lperf mem's and c2c's reports (mem.c): opens input and loads its memory samples into *d: Arm
 * SPE records, or the samples of memory events with data sources (x86, AMD IBS), warning of what
 * the load noted; exits 2 when the file holds neither (what names the command), 1 when it cannot
 * be read. */
void mem_open_samples(struct session *ss, const char *input, bool force, const char *what, struct spe_data *d);

/* lperf top (cmd/top.c). */
int cmd_top(int argc, char **argv);

#endif

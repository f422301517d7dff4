/* lperf stat's options: perf's spellings and WindowsPerf's, reconciled into one struct. */
#ifndef LPERF_CMD_STAT_OPTS_H
#define LPERF_CMD_STAT_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdio.h>

#include "util/cpuset.h"
#include "util/strbuf.h"

struct stat_opts {
	struct strbuf events;      /* every -e, comma-joined */
	struct strbuf metrics;     /* every -m/-M, comma-joined */
	const char **metric_files;
	size_t nmetric_files;
	const char *pid_list, *tid_list;
	bool system_wide;          /* -a */
	struct cpuset cpus;        /* -C/-c/-a: CPUs to count (empty: per task) */
	char *cpu_list;            /* as given, for messages */
	bool wperf_pin;            /* -c: also pin the command to those CPUs (WindowsPerf) */
	bool task_per_cpu;         /* -A with a command: count the command itself on each CPU */
	bool per_cpu;              /* -A, --per-core */
	bool kernel;               /* -k: kernel mode asked for explicitly */
	double timeout_s;          /* --timeout or the `sleep N` pseudo-command; 0 = none */
	int interval_ms;           /* -I MS, or -t with -i DUR */
	int interval_count;        /* -n N / --interval-count */
	const char *csv_sep;       /* -x SEP */
	const char *output;        /* -o FILE */
	bool json;
	int repeat;                /* -r N */
	bool quiet, dry_run, big_num, no_inherit, noted_user_only;
	/* Parser state: WindowsPerf's -t (timeline) and -i (its interval, seconds; < 0 unset). */
	bool wperf_timeline;
	double wperf_interval_s;
	int verbose;
	bool user_only;            /* WindowsPerf: user mode only unless -k (no note printed) */
	const struct cpuset *pin_cpus; /* pin a started command here instead (not owned), or NULL */
	/* Repeated runs with a pause between them (WindowsPerf's timeline, -t -i -n): repeat runs
	 * (0: until Ctrl-C), pause_s seconds apart. */
	bool pause;
	double pause_s;
	const struct stat_view *view; /* another personality's renderer (wperf), or NULL */
};

/* How another personality shows what stat counts (wperf's tables, timeline file, JSON): after
 * sees each run's result (metrics computed), paused marks the pauses of a timeline, final
 * replaces the text, CSV and JSON renderers. Any may be NULL. They render; the counting is
 * stat's. */
struct stat_result;
struct stat_view {
	void (*after)(const struct stat_result *run, int index, void *arg);
	void (*paused)(bool begin, void *arg);
	void (*final)(const struct stat_result *r, void *arg);
	void *arg;
};

/* Parses argv; exits 2 on a usage error. Returns the profiled command (NULL-terminated argv)
 * or NULL when none is to run. */
char **stat_parse_options(struct stat_opts *o, int argc, char **argv);
/* Counts what o asks for (cmd or NULL) and renders it; consumes and frees o. Returns the exit
 * status. The body of `lperf stat`, shared by `wperf stat`. */
int stat_command(struct stat_opts *o, char **cmd);
void stat_opts_free(struct stat_opts *o);

#endif

/* lperf stat's options: perf's spellings and WindowsPerf's, reconciled into one struct. */
#ifndef LPERF_CMD_STAT_OPTS_H
#define LPERF_CMD_STAT_OPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "util/parse.h"
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
};

/* Parses argv; exits 2 on a usage error. Returns the profiled command (NULL-terminated argv)
 * or NULL when none is to run. */
char **stat_parse_options(struct stat_opts *o, int argc, char **argv);
void stat_opts_free(struct stat_opts *o);

#endif

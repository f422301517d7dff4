/* lperf stat's options: perf's, with perf's meanings (WindowsPerf's own parser, src/wperf, fills
 * the same struct). */
#ifndef LPERF_CMD_STAT_OPTS_H
#define LPERF_CMD_STAT_OPTS_H

#include <stdbool.h>
#include <stddef.h>
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
	struct cpuset cpus;        /* -C/-a: CPUs to count (empty: per task) */
	char *cpu_list;            /* as given, for messages */
	bool per_cpu;              /* lperf's own tables: a row per CPU (--json-doc with -A) */
	int aggr;                  /* enum stat_aggr: -A, --per-core/die/socket/node/thread */
	bool kernel;               /* -k: kernel mode asked for explicitly */
	double timeout_s;          /* --timeout; 0 = none */
	int interval_ms;           /* -I MS */
	struct strbuf cgroups;     /* every -G, comma-joined (empty names kept) */
	size_t cg_prefix;          /* the length of events at the first -G */
	bool have_cgroups;
	const char *prometheus;    /* --prometheus ADDR:PORT: serve /metrics while counting */
	const char *remote_write;  /* --remote-write URL: push the counts (Prometheus remote write) */
	const char *textfile;      /* --textfile DIR: DIR/lperf.prom for node_exporter */
	int push_ms;               /* --push-interval MS: how often the two above (10 s) */
	unsigned prom_labels;      /* --labels comm,pid: PROM_LABEL_* for --per-thread's series */
	int interval_count;        /* --interval-count N */
	const char *csv_sep;       /* -x SEP */
	const char *output;        /* -o FILE */
	bool json;                 /* -j: perf's one object per line */
	bool json_doc;             /* --json-doc: lperf's document (docs/schemas/stat.schema.json) */
	bool summary, no_csv_summary, metric_only, null_run, no_merge;
	int repeat;                /* -r N */
	bool quiet, dry_run, big_num, no_inherit, noted_user_only;
	bool stdout_to_stderr;     /* stat record -o -: the command's output stays out of the pipe */
	bool sync, append, no_scale; /* -S, --append, --no-scale */
	int log_fd;                /* --log-fd N: the counts to fd N; 0 or -1: none */
	bool allow_none;           /* perf's stat: no event supported here still counts (the rows say
				    * <not supported>); wperf's stops with the reason */
	int verbose;
	bool user_only;            /* WindowsPerf: user mode only unless -k (no note printed) */
	const struct cpuset *pin_cpus; /* pin a started command here instead (not owned), or NULL */
	/* Repeated runs with a pause between them (WindowsPerf's timeline, -t -i -n): repeat runs
	 * (0: until Ctrl-C), pause_s seconds apart. */
	bool pause;
	double pause_s;
	const struct stat_view *view; /* another personality's renderer (wperf), or NULL */
	int wperf_simple;          /* WindowsPerf's imix...: see struct stat_plan_req */
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
	/* Each -I row (counts since the previous row), instead of perf's interval rows. */
	void (*interval)(const struct stat_result *delta, void *arg);
};

/* Parses argv; exits 2 on a usage error. Returns the profiled command (NULL-terminated argv)
 * or NULL when none is to run. */
char **stat_parse_options(struct stat_opts *o, int argc, char **argv);
/* Counts what o asks for (cmd or NULL) and renders it; consumes and frees o. Returns the exit
 * status. The body of `lperf stat`, shared by `wperf stat`. */
int stat_command(struct stat_opts *o, char **cmd);
void stat_opts_free(struct stat_opts *o);
/* `lperf stat` without `record`/`report` (cmd_stat, in src/cmd/stat_record.c, picks). */
int stat_main(int argc, char **argv);

#endif

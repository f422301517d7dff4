/* One counting run (stat): start or attach the target, open the counters, count through the run
 * engine (target/run.h) until the command ends, the timeout, the interval count or a signal,
 * handing each interval's delta to the caller, and read the totals. */
#ifndef LPERF_STAT_STAT_RUN_H
#define LPERF_STAT_STAT_RUN_H

#include <stdbool.h>

#include "stat/stat_result.h"
#include "util/cpuset.h"

struct stat_run_opts {
	char **cmd;                  /* a command to start, or NULL */
	const char *pid_list, *tid_list;
	const struct cpuset *cpus;   /* CPUs to count on (empty: per task) */
	const struct cpuset *pin_to; /* pin the command here instead (wperf: the first core), or NULL */
	bool no_inherit;
	bool allow_none;             /* run even when no event is supported here (perf's rows) */
	bool stdout_to_stderr;       /* the command's stdout goes to lperf's stderr (stat record -o -) */
	bool per_thread;             /* a column per thread (perf's --per-thread); with neither a
				      * command's CPUs nor -p/-t: every thread of the system */
	double timeout_s;            /* 0: none */
	int interval_ms;             /* 0: no interval rows */
	int interval_count;          /* end after this many rows; 0: no limit */
	const struct metric **metrics;
	size_t nmetrics;
	const struct metric **unit_metrics; /* evaluated per uncore PMU (stat_result_set_units) */
	size_t nunit_metrics;
	/* Called once the counters are open (kernel_excluded: kernel mode had to be dropped). */
	void (*opened)(bool kernel_excluded, void *arg);
	/* Each interval row: delta holds the counts since the previous row, metrics computed. */
	void (*interval)(struct stat_result *delta, bool first, void *arg);
	void *arg;
};

struct stat_run_info {
	bool ran_command;            /* the command was started (status is its exit status) */
	int status;
	int stop_signal;             /* the signal that ended the run, 0 if none */
};

/* Runs one after another: -r N (the statistics over them) or WindowsPerf's timeline (-t -i -n:
 * count, pause, count...). The callbacks show progress and results; they compute nothing. */
struct stat_series {
	int runs;                    /* how many; 0: until a stop signal (Ctrl-C) */
	bool pause;                  /* pause between two runs (a timeline)... */
	double pause_s;              /* ...for this long; a stop signal ends the series instead */
	void (*before)(int index, void *arg);                               /* a run starts */
	void (*after)(const struct stat_result *run, int index, void *arg); /* metrics computed */
	void (*paused)(bool begin, void *arg);                              /* a pause begins, ends */
	void *arg;
};

/* Runs the series over the events of l (o's target and counting options; o's interval rows
 * within each run). acc gets the statistics over all runs (stat_repeat_fold), its totals the
 * means over more than one run, its metrics computed (free with stat_result_free); info is the
 * last run's, ran_command set when any run started the command. -1 with err_set() as stat_run. */
int stat_run_series(const struct stat_run_opts *o, struct evlist *l, const struct stat_series *s,
		    struct stat_result *acc, struct stat_run_info *info);

/* One run over the events of l. Fills res (initialised here; free with stat_result_free).
 * -1 with err_set() when the target or the counters could not be set up or read. */
int stat_run(const struct stat_run_opts *o, struct evlist *l, struct stat_result *res, struct stat_run_info *info);

#endif

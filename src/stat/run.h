/* One counting run (stat): start or attach the target, open the counters, count through the run
 * engine (target/run.h) until the command ends, the timeout, the interval count or a signal,
 * handing each interval's delta to the caller, and read the totals. */
#ifndef LPERF_STAT_RUN_H
#define LPERF_STAT_RUN_H

#include <stdbool.h>

#include "stat/stat.h"
#include "util/parse.h"

struct stat_run_opts {
	char **cmd;                  /* a command to start, or NULL */
	const char *pid_list, *tid_list;
	const struct cpuset *cpus;   /* CPUs to count on (empty: per task) */
	bool pin;                    /* pin the command to cpus (WindowsPerf's -c) */
	const struct cpuset *pin_to; /* pin the command here instead (wperf: the first core), or NULL */
	bool task_per_cpu;           /* with a command and CPUs: count the command on each CPU */
	bool no_inherit;
	double timeout_s;            /* 0: none */
	int interval_ms;             /* 0: no interval rows */
	int interval_count;          /* end after this many rows; 0: no limit */
	const struct metric **metrics;
	size_t nmetrics;
	/* Called once the counters are open (kernel_excluded: kernel mode had to be dropped). */
	void (*opened)(bool kernel_excluded, void *arg);
	/* Each interval row: delta holds the counts since the previous row (metrics not computed). */
	void (*interval)(struct stat_result *delta, bool first, void *arg);
	void *arg;
};

struct stat_run_info {
	bool ran_command;            /* the command was started (status is its exit status) */
	int status;
	int stop_signal;             /* the signal that ended the run, 0 if none */
};

/* One run over the events of l. Fills res (initialised here; free with stat_result_free).
 * -1 with err_set() when the target or the counters could not be set up or read. */
int stat_run(const struct stat_run_opts *o, struct evlist *l, struct stat_result *res, struct stat_run_info *info);

#endif

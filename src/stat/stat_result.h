/* The counting model between the counters and the renderers: per-event totals and per-CPU
 * values, scaled; metrics evaluated over them; statistics over repeated runs; deltas for
 * interval (timeline) rows. Renderers read a stat_result and never touch the kernel. */
#ifndef LPERF_STAT_STAT_RESULT_H
#define LPERF_STAT_STAT_RESULT_H

#include <stdbool.h>
#include <stddef.h>

#include "events/evlist.h"
#include "events/metric.h"
#include "kernel/counter.h"

struct stat_value {
	struct counter_val raw;
	double scaled;
	enum counter_status status;
};

struct stat_event {
	struct stat_value total;
	struct stat_value *cpu;   /* per CPU column (ncpus) */
	/* Over repeated runs (-r): running mean and sum of squared differences (Welford). */
	double mean, m2;
	double run_mean, ena_mean;  /* -r: the mean running and enabled nanoseconds (perf's CSV) */
	/* An uncore PMU's event (events/pmu.h): every CPU reads the one unit, so the total is
	 * one reading (the largest), not the sum. */
	bool one_reading;
};

struct stat_metric {
	const struct metric *m;
	double total;             /* NAN when n/a */
	double *cpu;              /* per CPU column */
};

/* One uncore PMU counted (a DSU cluster, a DMC-620 memory channel): the uncore metrics over
 * its own events. */
struct stat_unit {
	char *pmu;                   /* "arm_dsu_0" */
	char *cpus;                  /* the CPUs it serves (sysfs cpus/cpumask), "" when unknown */
	double *met;                 /* per unit metric (stat_result.umet): NAN when n/a */
};

struct stat_result {
	const struct evlist *evl;
	size_t nev, ncpus;
	int *cpus;                   /* CPU number per column, -1 for per-task counting */
	char **why;                  /* per event: why it could not be opened, or NULL */
	struct stat_event *ev;
	struct stat_metric *met;
	size_t nmet;
	int *tids;                   /* per-thread counting: the thread of each column, else NULL */
	char **tnames;               /* ...and its "comm-tid" (perf's --per-thread rows) */
	double duration;             /* seconds of wall time covered */
	double user_s, sys_s;        /* CPU time of a started command (rusage), <0 when unknown */
	double timestamp;            /* interval rows: seconds since counting began */
	int runs;                    /* -r: how many runs the means cover */
	double dur_mean, dur_m2;     /* -r: elapsed time over the runs */
	/* Uncore metrics (metric.pmu set) evaluated per uncore PMU counted, whether or not -m
	 * asked for them (stat_result_set_units): WindowsPerf's L3 and DDR tables. */
	const struct metric **umet;
	size_t numet;
	double *umet_total;          /* per unit metric: over every unit of its PMUs together */
	struct stat_unit *units;     /* one per PMU among the events that some umet applies to */
	size_t nunits;
};

void stat_result_init(struct stat_result *r, const struct counters *c, const struct metric **metrics,
		      size_t nmetrics);
/* A result of l's events over ncpus columns (cpus[]: -1 for per-task counting), zeroed, with no
 * metrics: for counts read back from a file (perf stat report). */
void stat_result_init_shape(struct stat_result *r, const struct evlist *l, const int *cpus, size_t ncpus);
/* A result whose columns are c's tasks, one per thread (perf's --per-thread), named from
 * /proc/TID/comm now. */
void stat_result_init_threads(struct stat_result *r, const struct counters *c, const struct metric **metrics,
			      size_t nmetrics);
/* Reads every counter: cumulative counts since counting began. */
int stat_read(struct stat_result *r, const struct counters *c);
/* dst = cur - prev (the interval rows of a timeline), rescaled. All three share one shape. */
void stat_diff(struct stat_result *dst, const struct stat_result *cur, const struct stat_result *prev);
/* Evaluates every metric over the totals and per CPU (duration_time = r->duration), and the
 * unit metrics per unit. An uncore metric is n/a per CPU. */
void stat_compute_metrics(struct stat_result *r);
/* The uncore metrics to evaluate per uncore PMU (those of ms that apply to r's events). */
void stat_result_set_units(struct stat_result *r, const struct metric *const *ms, size_t n);
/* The value of unit metric `name` for unit u (u < 0: over all units), NAN when n/a. */
double stat_unit_metric(const struct stat_result *r, long u, const char *name);
/* Folds one run's totals into the running mean/stddev of `acc` (Welford). */
void stat_accumulate(struct stat_result *acc, const struct stat_result *run);
/* perf's "+- x%": the standard deviation of the mean, as a percentage of the mean. */
double stat_rel_stddev(double mean, double m2, int runs);
/* Copies counts and metrics between results of one shape (for keeping the previous interval). */
void stat_copy_values(struct stat_result *dst, const struct stat_result *src);
/* A deep copy of src into dst (a result of its own: an interval row kept for --json). */
void stat_result_dup(struct stat_result *dst, const struct stat_result *src);
void stat_result_free(struct stat_result *r);

/* Repeated runs (-r, a timeline): the first run's result becomes acc (moved; *run is left
 * empty); later runs are folded into the statistics, acc takes their values and *run is freed.
 * acc->runs counts the runs. */
void stat_repeat_fold(struct stat_result *acc, struct stat_result *run, bool first);
/* Over more than one run: the totals become the means and the duration the mean duration. */
void stat_repeat_means(struct stat_result *acc);

/* The event a metric refers to by name: prefers the copy added for that metric. -1 if none. */
long stat_metric_event(const struct stat_result *r, const struct metric *m, const char *name);
/* True when any counted event was multiplexed (running < enabled). */
bool stat_multiplexed(const struct stat_result *r);

#endif

/* What a count counts: the events of -e, then each -m metric's events (a metric group's
 * members together) as one {} group when small enough for a PMU's counters, so a ratio compares
 * counts of the same time slices; perf's default events when neither is given. */
#ifndef LPERF_STAT_STAT_PLAN_H
#define LPERF_STAT_STAT_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "events/evlist.h"
#include "events/metric.h"

/* A metric's events beyond this many are counted ungrouped (the kernel multiplexes them). */
#define STAT_PLAN_MAX_GROUP 6

enum stat_plan_error {
	STAT_PLAN_USAGE = -1,       /* an unknown event or metric, a bad metric file */
	STAT_PLAN_UNAVAILABLE = -2, /* a metric needs a PMU this machine lacks (not a typo) */
};

struct stat_plan {
	struct metric_set set;      /* built-ins and the metric files' */
	struct evlist l;
	const struct metric **metrics; /* every -m metric, groups expanded, in order */
	size_t nmetrics;
	/* The uncore metrics of this machine's architecture, evaluated per uncore PMU counted
	 * whether or not -m names them (stat_run_opts.unit_metrics). */
	const struct metric **unit_metrics;
	size_t nunit_metrics, unit_cap;
};

struct stat_plan_req {
	const char *events;         /* the -e list ("" or NULL: none) */
	const char *metrics;        /* the -m list */
	const char *const *metric_files;
	size_t nmetric_files;
	bool keep_unavailable;      /* plan a metric whose PMU is missing (--dry-run shows it) */
	bool null_run;              /* no events at all when none are named (perf's --null) */
	/* WindowsPerf's imix, icache, dcache, itlb, dtlb: event sets cut to this many counters
	 * (metric_set_wperf_simple; < 0: all of them); 0: lperf's metric groups. */
	int wperf_simple;
	bool cpu_wide;              /* CPUs are counted (-a, -C): perf's default clock is cpu-clock */
	/* -G: the cgroups of the -e events, in order (NAME,,NAME: an empty one counts
	 * everywhere); a single one goes to every event of the first cg_prefix bytes of events
	 * (those named before it), as perf's. NULL: none. */
	const char *cgroups;
	size_t cg_prefix;
};

/* Fills p (zeroed here). 0, or an enum stat_plan_error with err_set(); p is freed on error. */
int stat_plan_build(struct stat_plan *p, const struct stat_plan_req *req);
/* Adds the events of one -m name (a metric or group) to l, except those already there. */
int stat_plan_add_metric(struct evlist *l, const struct metric_set *set, const char *name);
void stat_plan_free(struct stat_plan *p);
/* The privilege modes the opened events count: "user and kernel", "kernel" or "user". */
const char *stat_plan_modes(const struct evlist *l);

#endif

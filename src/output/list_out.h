/* Renderers of lperf list: one table per event source and PMU, the metric and metric-group
 * tables, or JSON with WindowsPerf's keys (docs/schemas/list.schema.json). */
#ifndef LPERF_OUTPUT_LIST_OUT_H
#define LPERF_OUTPUT_LIST_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "events/evlist.h"
#include "events/metric.h"

/* What to show: per catalog entry, metric and group, whether the filters selected it. */
struct list_selection {
	const bool *ev, *metric, *group;
	size_t nevents, nmetrics, ngroups; /* how many are selected */
	bool show_metrics;                 /* the metric sections (not with --events) */
	bool have_hw;                      /* a hardware PMU exists (reasons for unusable events) */
	int verbose;                       /* -v: the descriptions and event columns */
};

/* The text tables: the events' (one per source and PMU), then the metrics' and groups'. */
void list_print_events_text(FILE *f, const struct ev_catalog *c, const struct list_selection *ls);
void list_print_metrics_text(FILE *f, const struct metric_set *s, const struct list_selection *ls);
void list_print_json(FILE *f, const struct ev_catalog *c, const struct metric_set *s, const struct list_selection *ls);
/* perf list --raw-dump [WHAT]: names separated by spaces on one line, as perf 6.1 prints them
 * (scripts loop over them). WHAT: hw, sw, cache, pmu, tracepoint, sdt, metric(s),
 * metricgroup(s), a glob ("sched:*", or a word matched anywhere in a name), or NULL for all.
 * Only what this machine can open or compute. */
int list_print_raw(FILE *f, const struct ev_catalog *c, const struct metric_set *s, const char *what);

#endif

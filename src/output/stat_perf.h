/* perf stat's own layouts (perf 6.1): the text table on one stream with the shadow metric after
 * each count, the -x CSV rows (value,unit,event,run_time,pcnt,metric_value,metric_unit after any
 * interval/aggregation prefix) and -j's one JSON object per line, in every aggregation mode. */
#ifndef LPERF_OUTPUT_STAT_PERF_H
#define LPERF_OUTPUT_STAT_PERF_H

#include <stdbool.h>
#include <stdio.h>

#include "stat/stat_result.h"
#include "stat/stat_aggr.h"

enum statperf_layout { STATPERF_TEXT, STATPERF_CSV, STATPERF_JSON };

struct statperf_opts {
	enum statperf_layout layout;
	enum stat_aggr aggr;
	const char *target;        /* "'true'", "'system wide'", "'CPU(s) 0'", "process id '12'" */
	const char *sep;           /* CSV separator */
	bool big_num;              /* text: thousands separators of the locale */
	bool metric_only;
	bool summary;              /* the totals after interval rows: CSV rows say "summary" */
	bool csv_summary;          /* with summary: prefix CSV rows with "summary" */
	bool rusage;               /* the footer shows the command's user and sys time */
	bool no_scale;             /* multiplexed counts as read, not scaled (--no-scale) */
	bool hide_idle;            /* per thread: leave out the threads that counted nothing (-a) */
};

/* The totals: text gets the heading and footer, CSV and JSON the rows only. */
void statperf_print(FILE *f, const struct stat_result *r, const struct statperf_opts *o);
/* One interval's rows (r holds the deltas; r->timestamp the time since the start); index
 * counts intervals from 0 (text repeats its column header every 25). */
void statperf_interval(FILE *f, const struct stat_result *r, const struct statperf_opts *o, unsigned index);

#endif

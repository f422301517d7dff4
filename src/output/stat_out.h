/* Renderers of counting results (lperf stat): perf-like text tables with WindowsPerf's columns,
 * CSV (perf's -x layout) and JSON (docs/schemas/stat.schema.json). */
#ifndef LPERF_OUTPUT_STAT_OUT_H
#define LPERF_OUTPUT_STAT_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "stat/stat.h"

struct statout_opts {
	const char *target;      /* "'sleep 1'", "process 1234", "CPUs 0-1", "system-wide" */
	const char *modes;       /* "user and kernel", "user" */
	bool per_cpu;            /* -A: a row per CPU plus the total */
	bool big_num;            /* thousands separators */
	const char *sep;         /* CSV separator */
	bool verbose;
	bool show_formula;       /* metric formulas in the text table */
};

/* Counting-mode units: clock events are shown in msec, like perf. */
bool statout_is_clock(const struct ev *ev);
/* The value in display units (msec for clocks, the tool's ns for duration_time). */
double statout_display_value(const struct stat_result *r, size_t e, const struct stat_value *v);
const char *statout_unit(const struct ev *ev);
/* "e", "g0", "g0,imix" */
void statout_note(const struct ev *ev, char *buf, size_t size);

void statout_text(FILE *f, const struct stat_result *r, const struct statout_opts *o);
/* Interval rows: one block per interval, the header before the first. */
void statout_text_interval(FILE *f, const struct stat_result *r, const struct statout_opts *o,
			   bool header);
/* perf -x layout: value,unit,event,run-time,running%,metric-value,metric-unit; with per-CPU
 * rows prefixed by CPUn and interval rows by the timestamp. */
void statout_csv(FILE *f, const struct stat_result *r, const struct statout_opts *o, bool interval);
void statout_json(FILE *f, const struct stat_result *r, const struct stat_result *intervals,
		  size_t nintervals, const struct statout_opts *o);

/* --dry-run: how each event is encoded (type, config words, modifiers, group, period). */
void statout_dry_run(FILE *f, const struct evlist *l);

#endif

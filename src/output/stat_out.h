/* Shared pieces of the counting renderers and lperf's own JSON document (--json-doc,
 * docs/schemas/stat.schema.json). perf's layouts are in stat_perf.h, WindowsPerf's in
 * wperf_out.h. */
#ifndef LPERF_OUTPUT_STAT_OUT_H
#define LPERF_OUTPUT_STAT_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "stat/stat_result.h"

struct statout_opts {
	const char *target;      /* "'sleep 1'", "process 1234", "CPUs 0-1", "system-wide" */
	const char *modes;       /* "user and kernel", "user" */
	bool per_cpu;            /* -A: a row per CPU plus the total */
	bool big_num;            /* thousands separators */
	const char *sep;         /* CSV separator */
	bool verbose;
	bool show_formula;       /* metric formulas in the text table */
};

/* The value in display units (msec for clocks, the tool's ns for duration_time). */
double statout_display_value(const struct stat_result *r, size_t e, const struct stat_value *v);
const char *statout_unit(const struct ev *ev);
/* "e", "g0", "g0,imix" */
void statout_note(const struct ev *ev, char *buf, size_t size);

void statout_json(FILE *f, const struct stat_result *r, const struct stat_result *intervals,
		  size_t nintervals, const struct statout_opts *o);

/* --dry-run: how each event is encoded (type, config words, modifiers, group, period). */
void statout_dry_run(FILE *f, const struct evlist *l);

#endif

/* lperf top's table (perf top's columns; py-spy top's for --python) and status line. */
#ifndef LPERF_OUTPUT_TOP_OUT_H
#define LPERF_OUTPUT_TOP_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis/topview.h"
#include "util/strbuf.h"

struct top_status {
	const char *event;       /* "cpu-clock" */
	uint64_t freq;           /* samples per second asked (0: a period) */
	const char *target;      /* "system-wide", "pid 123", "command", "CPUs 0-1" */
	double samples_per_s;    /* over the last refresh */
	uint64_t lost;           /* samples lost since the start */
	double self_cpu;         /* lperf top's own CPU time over the last refresh, percent of one CPU */
	double interval_s;       /* the refresh period */
};

/* perf top's header lines: "Samples: ... of event '...', ... Hz, lost: ...", then lperf's line
 * with samples/s, the target and top's own CPU cost. */
void top_status_line(struct strbuf *sb, const struct top_view *t, const struct top_status *st);
void top_status_cost(struct strbuf *sb, const struct top_status *st);
/* The column titles, and row i, as they appear in the table (no newline; width: the screen's, 0
 * for no limit). */
void top_table_title(struct strbuf *sb, const struct top_view *t);
void top_table_row(struct strbuf *sb, const struct top_view *t, size_t i);
/* --stdio: the whole refresh as text: the status lines, the titles, up to max_rows rows with
 * weight, and a blank line. */
void top_print(FILE *f, const struct top_view *t, const struct top_status *st, size_t max_rows);

#endif

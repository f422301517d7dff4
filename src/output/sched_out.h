/* perf sched's text (sched_out.c): latency's table, timehist's lines and summary, map's lines,
 * with perf 6.1's columns and widths. */
#ifndef LPERF_OUTPUT_SCHED_OUT_H
#define LPERF_OUTPUT_SCHED_OUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/sched.h"

/* What perf adds below its tables: lost events and context switch bugs. */
struct sched_bad {
	uint64_t nr_events, lost, lost_chunks;
};

void sched_print_latency(FILE *f, const struct sched_lat *l, const struct sched_bad *bad);
/* The INFO lines of latency and map. */
void sched_print_bad(FILE *f, const struct sched_lat *l, const struct sched_bad *bad);

/* timehist: its options and the name column's width, which grows with the names met. */
struct sched_hist_out {
	FILE *f;
	bool visual, state, next, wakeups;
	bool callchain;              /* -g: each switch's call chain, perf's one line */
	int max_stack;               /* frames looked at: --max-stack + 2, as perf resolves them */
	int comm_width;
};

void sched_hist_header(struct sched_hist_out *o, uint32_t ncpus);
void sched_hist_line(struct sched_hist_out *o, const struct sched_hist_row *r);
/* A LOST record's line: the kernel dropped events on that CPU. */
void sched_hist_lost(struct sched_hist_out *o, uint64_t time, uint32_t cpu, uint64_t lost);
void sched_hist_summary(struct sched_hist_out *o, const struct sched_hist *h);

void sched_map_line(FILE *f, const struct sched_map_row *r);

#endif

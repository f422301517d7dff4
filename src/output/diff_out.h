/* lperf diff's renderers: per function as perf diff prints it (diff_text.c) and its JSON; per
 * stack (-g) a table of shares and JSON (diff_out.c); docs/schemas/diff.schema.json. */
#ifndef LPERF_OUTPUT_DIFF_OUT_H
#define LPERF_OUTPUT_DIFF_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis/histdiff.h"
#include "analysis/stackdiff.h"

/* What diff_print_perf shows. */
struct diff_view {
	const char *event;       /* only this event (NULL: every event with samples in both) */
	bool period;             /* --period: Base period and Period columns */
	bool samples;            /* -n: Base samples and Samples columns */
	double percent_limit;    /* hide rows under this share in both recordings */
	size_t limit;            /* at most this many rows (0: all) */
	bool quiet;              /* no note of the hidden rows */
};

void diff_print_perf(FILE *f, const struct histdiff *d, const struct diff_view *v);
void diff_print_perf_json(FILE *f, const struct histdiff *d, const struct diff_view *v, const char *old_path,
			  const char *new_path);

/* limit: rows to show (0: all). */
void diff_print_text(FILE *f, const struct stack_diff *d, const char *old_path, const char *new_path, size_t limit);
void diff_print_json(FILE *f, const struct stack_diff *d, const char *old_path, const char *new_path, size_t limit);

#endif

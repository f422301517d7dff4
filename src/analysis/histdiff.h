/* lperf diff per function, as perf diff 6.1 compares two recordings: each recording's flat
 * profile keyed by shared object and symbol (report's, analysis/hist.h), entries matched by
 * their names, and one of perf's computations per pair: the change of share (delta, sorted by
 * its value or by its size: delta-abs), the ratio of periods (NEW / OLD) or the weighted
 * difference of periods (NEW * W2 - OLD * W1). Shares are of each recording's total period, so
 * a function whose own work did not change shows a ratio near 1 even when its share grew because
 * another function's work went away. */
#ifndef LPERF_ANALYSIS_HISTDIFF_H
#define LPERF_ANALYSIS_HISTDIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "session/session.h"
#include "util/notes.h"

enum histdiff_compute { HD_DELTA, HD_DELTA_ABS, HD_RATIO, HD_WDIFF };

struct histdiff_row {
	char *dso, *sym;         /* the shared object's short name; the symbol or 0x%016x address */
	bool kernel;
	bool in_old, in_new;     /* an entry in the old (baseline) recording, in the new one */
	uint64_t old_period, new_period, old_samples, new_samples;
	double old_pct, new_pct; /* shares of each recording's total period */
	double delta;            /* new_pct - old_pct */
	double ratio;            /* new_period / old_period (rows in both) */
	int64_t wdiff;           /* new_period * w2 - old_period * w1 (rows in both) */
};

struct histdiff_event {
	char *name;
	uint64_t old_period, new_period, old_samples, new_samples;
	struct histdiff_row *rows;
	size_t n, cap;
};

struct histdiff {
	struct histdiff_event *ev;
	size_t n, cap;
	enum histdiff_compute compute;
	long w1, w2;             /* wdiff's weights */
};

/* Parses perf's -c value (delta, delta-abs, ratio, wdiff:W1,W2) into d; -1 with err_set(). */
int histdiff_parse_compute(struct histdiff *d, const char *spec);
/* Reads a recording's profile into d as the old (baseline) or the new side, only the samples in
 * time_spec (--time, util/timerange.h; NULL: all). -1 after err_set() when it cannot be read; 1
 * when read only in part (said says where); else 0. */
int histdiff_load(struct histdiff *d, const char *input, bool is_new, const char *time_spec,
		  const struct session_opts *o, struct notes *said);
/* Computes every row's values and sorts each event's rows as perf diff does for d->compute. */
void histdiff_finish(struct histdiff *d);
void histdiff_free(struct histdiff *d);

#endif

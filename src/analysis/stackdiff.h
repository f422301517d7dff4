/* lperf diff's analysis: two stack trees (analysis/stacks.h) compared by share of one event's
 * samples, per function (self samples, as report's flat profile) or per stack (the folded
 * paths), sorted by the size of the change, largest first; and per-node changes for a
 * differential flame graph. Shares, not counts, are compared, so runs of different lengths
 * compare fairly. Stacks are compared without their command frame, so a program rebuilt under
 * another name still matches. */
#ifndef LPERF_ANALYSIS_STACKDIFF_H
#define LPERF_ANALYSIS_STACKDIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/stacks.h"

struct diff_row {
	char *key;               /* function name, or folded stack */
	double old_pct, new_pct; /* shares of the event's samples */
	uint64_t old_n, new_n;
};

struct stack_diff {
	const char *event;
	size_t old_e, new_e;     /* event indices in each tree */
	uint64_t old_total, new_total;
	bool by_stack;
	struct diff_row *rows;
	size_t n, cap;
};

/* Compares event `event` (NULL: the new tree's first event with samples) of two trees. -1 with err_set()
 * when either tree lacks it. */
int stack_diff_compute(struct stack_diff *d, const struct stacks *old, const struct stacks *new_,
		       const char *event, bool by_stack);
void stack_diff_free(struct stack_diff *d);

/* Per node of `new_`: its share in new minus the share of the same path in old, in percentage
 * points (events matched by name; a path old lacks counts as 0 there). Caller frees. */
double *stack_diff_nodes(const struct stacks *old, const struct stacks *new_);

#endif

/* Collapsed ("folded") stacks: one line per distinct stack, "comm;root;...;leaf COUNT", the input
 * of flamegraph.pl, speedscope and the Firefox Profiler. */
#ifndef LPERF_ANALYSIS_FOLDED_H
#define LPERF_ANALYSIS_FOLDED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "resolve/resolve.h"
#include "util/hashmap.h"

struct folded {
	char **stacks;
	uint64_t *counts;
	size_t n, cap;
	struct hashmap index;  /* stack -> its index in stacks (as a pointer-sized integer) */
	bool with_comm;        /* the command as the root frame, as stackcollapse-perf.pl does */
	bool by_period;        /* weight lines by period instead of samples */
};

void folded_init(struct folded *f, bool with_comm, bool by_period);
void folded_add(struct folded *f, const struct resolved_sample *rs);
/* The stacks' indexes sorted by stack, so output is stable across runs (free the array). */
size_t *folded_order(const struct folded *f);
void folded_free(struct folded *f);

#endif

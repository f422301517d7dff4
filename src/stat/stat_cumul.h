/* Counting continuously (stat --prometheus): the interval deltas added up into running totals, as
 * a counter that only grows (a Prometheus counter). */
#ifndef LPERF_STAT_STAT_CUMUL_H
#define LPERF_STAT_STAT_CUMUL_H

#include "stat/stat_result.h"

/* dst += delta, per event's total and per CPU (same shape; dst a stat_result_dup of the first
 * delta). Negative deltas (a rescaled multiplexed count) are not added: totals never go down. */
void stat_cumul_add(struct stat_result *dst, const struct stat_result *delta);

#endif

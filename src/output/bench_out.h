/* lperf bench's lines, as perf bench prints them. */
#ifndef LPERF_OUTPUT_BENCH_OUT_H
#define LPERF_OUTPUT_BENCH_OUT_H

#include <stdbool.h>
#include <stdio.h>

/* "# Running 'sched/messaging' benchmark:" and the workers it starts. */
void bench_messaging_header(FILE *f, int groups, int per_group, bool threads);
/* "     Total time: 0.553 [sec]", or the bare seconds with simple (-f simple). */
void bench_total_time(FILE *f, double secs, bool simple);

#endif

/* lperf bench's lines, as perf bench prints them. */
#ifndef LPERF_OUTPUT_BENCH_OUT_H
#define LPERF_OUTPUT_BENCH_OUT_H

#include <stdbool.h>
#include <stdio.h>

/* "# Running 'sched/messaging' benchmark:", before a benchmark runs. */
void bench_running(FILE *f, const char *collection, const char *bench);
/* The workers sched messaging ran ("# 20 sender and receiver processes per group", ...), printed
 * after the run as perf does. */
void bench_messaging_header(FILE *f, int groups, int per_group, bool threads);
/* "     Total time: 0.553 [sec]" (milliseconds truncated, as perf), or the bare seconds with simple (-f simple). */
void bench_total_time(FILE *f, double secs, bool simple);

#endif

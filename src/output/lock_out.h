/* perf lock contention's and lock report's tables (lock_out.c): perf 6.1's columns and widths,
 * its time units. */
#ifndef LPERF_OUTPUT_LOCK_OUT_H
#define LPERF_OUTPUT_LOCK_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "analysis/lockstat.h"

/* The rows of ls (sorted) with the columns fields[0..nfields) (enum lock_sort values), at most
 * entries rows; the header unless quiet. */
void lock_print_contention(FILE *f, const struct lockstat *ls, const int *fields, size_t nfields,
			   size_t entries, bool quiet);

/* perf lock report's table: the rows' names (a lock's first caller, or per thread the thread's
 * name) cut to 20 columns as perf cuts them, then the columns fields[0..nfields). */
void lock_print_report(FILE *f, const struct lockstat *ls, const int *fields, size_t nfields, size_t entries);
/* perf lock info's lists: per thread (ls->per_thread) "tid: comm", else each lock's address and
 * name, in the rows' order. */
void lock_print_info(FILE *f, const struct lockstat *ls);

#endif

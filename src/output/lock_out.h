/* perf lock contention's table (lock_out.c): perf 6.1's columns and widths, its time units. */
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

#endif

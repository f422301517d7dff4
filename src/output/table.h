/* Text tables: columns sized to their widest cell, numbers right-aligned, an optional header
 * underlined with '=' (WindowsPerf's look) or plain (perf's look). */
#ifndef LPERF_OUTPUT_TABLE_H
#define LPERF_OUTPUT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum table_align { TABLE_LEFT, TABLE_RIGHT };

struct table {
	size_t ncols;
	char **header;           /* ncols names, may be NULL for no header */
	enum table_align *align;
	char **cells;            /* nrows * ncols strings */
	size_t nrows, cap;
	int indent;              /* spaces before each row */
	int gap;                 /* spaces between columns */
	bool underline;          /* '=' line under the header */
};

/* Column specs "name" (left) or ">name" (right-aligned). */
void table_init(struct table *t, size_t ncols, const char *const *cols);
/* Appends a row of ncols cells; each printf-style pair is given as already formatted strings. */
void table_row(struct table *t, const char *const *cells);
/* Appends a row from ncols string arguments. */
void table_rowv(struct table *t, ...);
void table_print(const struct table *t, FILE *f);
void table_free(struct table *t);

/* Formats an integer with thousands separators into buf. */
const char *fmt_thousands(unsigned long long v, char *buf, size_t size);

#endif

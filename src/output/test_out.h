/* Renderers of lperf test: the facts sysinfo collected, as rows and as JSON. */
#ifndef LPERF_OUTPUT_TEST_OUT_H
#define LPERF_OUTPUT_TEST_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sysinfo/sysinfo.h"

struct test_rows {
	struct test_row {
		char *name, *result;
	} *row;
	size_t n, cap;
};

/* The rows for si (verbose: one per PMU with its caps). py_stacks: per Python of si, how
 * --python gets its stacks (python/pymethod.h's description; NULL for one that failed to
 * probe), or NULL when the Pythons were not searched. */
void test_rows_build(struct test_rows *r, const struct sysinfo *si, int verbose, const char *const *py_stacks);
void test_rows_free(struct test_rows *r);
void test_print_table(FILE *f, const struct test_rows *r);
void test_print_json(FILE *f, const struct test_rows *r, const struct sysinfo *si);
/* The JSON, written to path atomically. -1 with err_set(). */
int test_write_json_file(const char *path, const struct test_rows *r, const struct sysinfo *si);

#endif

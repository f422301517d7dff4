/* lperf diff's renderers: a text table and JSON (docs/schemas/diff.schema.json). */
#ifndef LPERF_OUTPUT_DIFF_OUT_H
#define LPERF_OUTPUT_DIFF_OUT_H

#include <stdio.h>

#include "analysis/stackdiff.h"

/* limit: rows to show (0: all). */
void diff_print_text(FILE *f, const struct stack_diff *d, const char *old_path, const char *new_path, size_t limit);
void diff_print_json(FILE *f, const struct stack_diff *d, const char *old_path, const char *new_path, size_t limit);

#endif

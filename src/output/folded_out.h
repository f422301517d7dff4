/* Collapsed stacks as text: "comm;root;...;leaf COUNT" lines, sorted by stack. */
#ifndef LPERF_OUTPUT_FOLDED_OUT_H
#define LPERF_OUTPUT_FOLDED_OUT_H

#include <stdio.h>

#include "analysis/folded.h"

void folded_print(FILE *out, const struct folded *f);

#endif

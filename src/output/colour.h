/* Colour of hot percentages, as perf colours them: red from 5%, green from 0.5%, plain below
 * (SGR codes on a terminal or a pager that shows them; util/pager.h decides when). */
#ifndef LPERF_OUTPUT_COLOUR_H
#define LPERF_OUTPUT_COLOUR_H

#include <stdbool.h>
#include <stdio.h>

#define COLOUR_HOT_RED 5.0
#define COLOUR_HOT_GREEN 0.5

/* The escape that starts a percentage's colour ("" when off or cold), and the one that ends it. */
const char *colour_pct_begin(bool on, double pct);
const char *colour_pct_end(bool on, double pct);
/* fprintf(f, fmt, pct) in pct's colour: fmt holds one double conversion (e.g. "%7.2f%%"). */
void colour_pct_print(FILE *f, bool on, const char *fmt, double pct);

#endif

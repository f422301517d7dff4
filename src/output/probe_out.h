/* perf probe's text (output/probe_out.c): the added events and how to use them, the -l list. */
#ifndef LPERF_OUTPUT_PROBE_OUT_H
#define LPERF_OUTPUT_PROBE_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One line of -l or of "Added new event": "  GROUP:EVENT   (on WHERE in BIN with ARGS)"; bin
 * and args may be NULL/empty. */
void probe_print_event(FILE *f, const char *group, const char *event, const char *where, const char *bin,
		       const char *args);
/* "Added new event:" (or "events:") ahead of the lines, and perf's hint after them. */
void probe_print_added_head(FILE *f, size_t n);
void probe_print_added_tail(FILE *f, const char *group, const char *event);

/* perf probe -V: "Available variables at POINT", "\t@<WHERE>", then "\t\tTYPE\tNAME" lines. */
void probe_print_vars(FILE *f, const char *point, const char *where, char *const *lines, size_t n);

/* perf probe -L: "<FUNC@FILE:0>", then each line from start to end, "%7d  TEXT" (numbered from
 * start) where it has code, "         TEXT" where not, and up to 3 lines after, unnumbered. */
void probe_print_lines(FILE *f, const char *func, const char *file, const char *text, int start, int end,
		       const uint8_t *numbered);

#endif

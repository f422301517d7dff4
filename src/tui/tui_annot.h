/* The annotate view's text for report's and top's browser (tui/tui_annot.c). */
#ifndef LPERF_TUI_TUI_ANNOT_H
#define LPERF_TUI_TUI_ANNOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/annot.h"

struct tui_annot_req {
	int ev;                  /* the event's index */
	const struct dso *dso;
	const struct symbol *sym; /* the function; NULL: the one holding addr */
	uint64_t addr;
	bool fresh;              /* disassemble anew: the hits grew since (top) */
	const char *event;       /* for the header: the event's name and totals */
	uint64_t event_samples, event_period;
};

/* The function's annotation as annotate --stdio prints it (malloc'ed), its name in name; NULL
 * with err_set() when it has no samples. */
char *tui_annot_text(struct annot *a, const struct tui_annot_req *q, char *name, size_t size);

#endif

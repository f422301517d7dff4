/* lperf report's browser (cmd/report_tui.c). */
#ifndef LPERF_CMD_REPORT_TUI_H
#define LPERF_CMD_REPORT_TUI_H

#include <stdbool.h>

#include "analysis/profile.h"
#include "session/session.h"

struct annot_view;
struct report_browse {
	struct profile *p;       /* sorted */
	struct annot_view *av;   /* the walk's per-instruction counts ('a'); NULL: none */
	bool children;
	bool caller;             /* caller-order graphs: the flame graph as an icicle */
	bool python;
	const char *input;
	const struct session_opts *so;
};

/* Until the user quits; -1 with err_set() when the browser cannot start (no terminal). */
int report_browse(const struct report_browse *b);
/* --tui, or a terminal on both ends and no --stdio. */
bool report_browse_wanted(bool forced, bool stdio);

#endif

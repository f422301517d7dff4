/* lperf report's browser (tui/report_browse.c): the walk it needs and the hooks it hands tui/. */
#ifndef LPERF_TUI_REPORT_BROWSE_H
#define LPERF_TUI_REPORT_BROWSE_H

#include <stdbool.h>

#include "analysis/profile.h"
#include "session/session.h"

struct annot_view;

/* The browser's walk: every sample to the annotation counts (and through them the profile) and
 * to a second profile with the other call-graph order, for the browser's 'c'. */
struct report_walk {
	struct annot_view *av;
	struct profile other;
	bool have_other;
};
void report_walk_init(struct report_walk *w, struct annot_view *av, const struct profile *p);
/* A session tool callback (arg: the report_walk). */
int report_walk_sample(const struct resolved_sample *rs, void *arg);
void report_walk_free(struct report_walk *w);

struct report_browse {
	struct profile *p;       /* sorted */
	struct annot_view *av;   /* the walk's per-instruction counts ('a'); NULL: none */
	struct profile *other;   /* the other call-graph order ('c'); NULL: none */
	bool children;
	bool caller;             /* caller-order graphs: the flame graph as an icicle */
	bool python;
	double graph_min;        /* -g graph,MIN: call-graph nodes under MIN percent are hidden */
	const char *input;
	const struct session_opts *so;
};

/* Until the user quits; -1 with err_set() when the browser cannot start (no terminal). */
int report_browse(const struct report_browse *b);
/* --tui, or a terminal on both ends and no --stdio. */
bool report_browse_wanted(bool forced, bool stdio);

#endif

/* What report and sample share on the command side: the view options and the rendering of a
 * finished profile (perf's text, WindowsPerf's tables, or JSON). */
#ifndef LPERF_CMD_REPORT_VIEW_H
#define LPERF_CMD_REPORT_VIEW_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis/profile.h"
#include "output/report_out.h"
#include "session/session.h"

struct annot_view;

struct report_view {
	enum report_style style;
	struct report_opts ro;
	const char *sort;       /* "comm,dso,sym" */
	enum hist_graph graph;
	bool graph_given;       /* -g, -G or --call-graph was given (none included) */
	struct annot_view *annot; /* --annotate / --disassemble: tables after the report; NULL: none */
};

/* Renders every event's profile (output/report_view.c). `source` names the file (or "live"). */
void report_view_print(FILE *f, const struct report_view *v, const struct profile *p,
		       const struct session *ss, const char *source);

/* After a walk: lost samples, unparsable samples, build-id mismatches, hidden kernel symbols. */
/* verbose: also the notes perf gives only with -v (a JIT process that never wrote a perf map). */
void report_warnings(struct session *ss, bool quiet, int verbose);

#endif

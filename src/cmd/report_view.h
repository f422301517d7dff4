/* What report and sample share on the command side: the view options and the rendering of a
 * finished profile (perf's text, WindowsPerf's tables, or JSON). */
#ifndef LPERF_CMD_REPORT_VIEW_H
#define LPERF_CMD_REPORT_VIEW_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis/profile.h"
#include "output/report_out.h"
#include "stream/session.h"

struct annot_view;

enum report_style { STYLE_PERF, STYLE_WPERF, STYLE_JSON };

struct report_view {
	enum report_style style;
	struct report_opts ro;
	const char *sort;       /* "comm,dso,sym" */
	enum hist_graph graph;
	bool graph_given;       /* -g, -G or --call-graph was given (none included) */
	bool want_children;     /* -g defaults to children mode, as perf */
	bool no_children;
	struct annot_view *annot; /* --annotate / --disassemble: tables after the report; NULL: none */
};

/* Renders every event's profile. `source` names the file (or "live") for JSON. */
void report_view_print(FILE *f, const struct report_view *v, const struct profile *p,
		       const struct session *ss, const char *source);

/* Hands the JIT symbol sources stored in a recording to the session's model, with the ownership
 * policy for the /tmp files it may still read. */
void report_load_jit_sources(struct session *ss, const struct perfdata_reader *r, bool force);

/* -v: notes perf gives only with -v too (a JIT process that never wrote a perf map). */
extern int report_verbose;

/* After a walk: lost samples, unparsable samples, build-id mismatches, hidden kernel symbols. */
void report_warnings(const struct session *ss, bool quiet);

#endif

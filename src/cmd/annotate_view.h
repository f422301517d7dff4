/* WindowsPerf's --annotate and --disassemble for report and sample: the samples of every event
 * are also counted per instruction (src/analysis/annotate.c), and after the hot-function tables
 * each hot function gets a "line_number  hits  filename" table (with --disassemble, each hot
 * line's instructions), in text or inside the report's JSON ("annotate"). */
#ifndef LPERF_CMD_ANNOTATE_VIEW_H
#define LPERF_CMD_ANNOTATE_VIEW_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis/annotate.h"
#include "analysis/profile.h"
#include "output/json.h"
#include "session/session.h"

struct annot_view {
	struct profile *p;       /* the profile the samples also go to (its filter applies) */
	struct annot a;
	bool disassemble;
	size_t max_funcs;        /* hot functions per event (0: 50) */
};

void annot_view_init(struct annot_view *av, struct profile *p, struct machine *m, bool disassemble,
		     size_t max_funcs);
/* A session tool callback: the profile's, and the per-instruction counts. */
int annot_view_sample(const struct resolved_sample *rs, void *arg);
/* The tables, after the report (text). */
void annot_view_print(FILE *f, struct annot_view *av, const struct evsel_set *evsels);
/* The "annotate" array inside the report's open JSON object. */
void annot_view_json(struct json *j, struct annot_view *av, const struct evsel_set *evsels);
void annot_view_free(struct annot_view *av);

#endif

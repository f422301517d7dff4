/* lperf top's live profile: functions (or Python functions with their line) with self and
 * total weights that decay at each refresh, so what ran in the last seconds leads. Fed with
 * resolved samples by the live session (session/live_session.h); rendered by output/top_text.c
 * and the browser. */
#ifndef LPERF_ANALYSIS_TOPVIEW_H
#define LPERF_ANALYSIS_TOPVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "resolve/resolve.h"
#include "util/hashmap.h"

struct top_row {
	struct dso *dso;
	const struct symbol *sym;
	uint64_t addr;           /* without a symbol: the DSO address */
	int32_t line;            /* Python rows: the line of the own frame (0: none) */
	char *pyname;            /* Python rows: "py::func:/path/file.py" (a copy: top's Python
				  * stores are replaced as it runs, so the row never reads sym) */
	bool kernel;
	double self, total;      /* decayed weights (periods) */
	uint64_t stamp;          /* the last sample that counted it in total */
};

struct top_view {
	bool python;             /* rows are py:: frames, keyed by function and line */
	bool children;           /* total: anywhere on the stack (-g, --python) */
	double decay;            /* weights are multiplied by this at each refresh; 0: zeroed (-z) */
	struct hashmap index;    /* custom key -> row */
	struct top_row **rows;
	size_t n, cap;
	double sum;              /* the decayed weight of all samples */
	uint64_t samples;        /* samples since the start */
	uint64_t interval_samples; /* since the last refresh */
	uint64_t stamp;
};

/* The decay perf top uses is 7/8 per refresh; lperf halves, so a moved hot spot leads within
 * two refreshes. */
#define TOP_DECAY 0.5

void top_view_init(struct top_view *t, bool python, bool children, bool zero);
/* A session tool's sample callback (arg: the top_view). */
int top_view_sample(const struct resolved_sample *rs, void *arg);
/* Sorts the rows for display (by total with children, else by self); call before showing. */
void top_view_sort(struct top_view *t);
/* After showing: decays (or zeroes) the weights and starts a new interval. */
void top_view_age(struct top_view *t);
/* A row's name: "func" or "func (file.py:LINE)" for Python rows, "0x..." without a symbol. */
void top_row_name(const struct top_row *r, bool python, char *buf, size_t size);
void top_view_free(struct top_view *t);

#endif

/* The annotation of a profile's hot functions, for report, sample (both personalities) and SPE:
 * every kept sample is also counted per instruction (analysis/annot.h), and at the end the
 * hottest functions of each event are disassembled, ready for a renderer (WindowsPerf's
 * --annotate / --disassemble tables and JSON in output/annotate_*.c). The sampled addresses
 * also give wperf -v's per-PC counts. */
#ifndef LPERF_ANALYSIS_ANNOT_VIEW_H
#define LPERF_ANALYSIS_ANNOT_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/annot.h"
#include "analysis/profile.h"

struct annot_view {
	struct profile *p;       /* the profile the samples also go to (its filter applies) */
	struct annot a;
	bool disassemble;
	size_t max_funcs;        /* hot functions per event (0: 50) */
	/* after annot_view_prepare: the functions to show, event by event, hottest first */
	struct annot_func **hot;
	size_t nhot;
	bool prepared;
};

void annot_view_init(struct annot_view *av, struct profile *p, struct machine *m, bool disassemble,
		     size_t max_funcs);
/* A session tool callback: the profile's, and the per-instruction counts. */
int annot_view_sample(const struct resolved_sample *rs, void *arg);
/* Picks and disassembles the hot functions (once; later calls do nothing). Kernel code that
 * cannot be read is kept once (its note), not per function. */
void annot_view_prepare(struct annot_view *av);

/* One sampled address of event ev and how often it was sampled. */
struct annot_pc {
	uint64_t addr;           /* the DSO's address space */
	uint64_t count;
	const struct annot_func *f;
};
/* Every sampled address of event ev, most sampled first (then by address). *out is allocated. */
size_t annot_view_pcs(struct annot_view *av, int ev, struct annot_pc **out);
void annot_view_free(struct annot_view *av);

#endif

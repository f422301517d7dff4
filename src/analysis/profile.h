/* A profile: one histogram per event of a recording, fed by the session's samples through a
 * filter. Shared by report (file source) and sample (live source). */
#ifndef LPERF_ANALYSIS_PROFILE_H
#define LPERF_ANALYSIS_PROFILE_H

#include "analysis/filter.h"
#include "analysis/hist.h"
#include "resolve/resolve.h"

struct profile {
	const struct evsel_set *evsels;
	struct hist *hists;        /* one per evsel */
	size_t n;
	struct sample_filter filter;
	uint64_t kept, filtered_out;
	enum hist_key keys[HK_NKEYS];  /* to set up histograms of events declared later (pipe mode) */
	size_t nkeys;
	enum hist_graph graph;
	bool children;
	char *(*trace_text)(void *arg, const struct perf_sample *s); /* HK_TRACE (hist.h) */
	void *trace_arg;
};

void profile_init(struct profile *p, const struct evsel_set *evsels, const enum hist_key *keys,
		  size_t nkeys, enum hist_graph graph, bool children);
/* A session_tool.sample callback (arg = the profile). */
int profile_sample(const struct resolved_sample *rs, void *arg);
/* profile_sample takes frames whose kernel symbol is left for later (session_tool.ksyms_later):
 * neither its filter nor its keys look at a symbol before profile_sort, which finds them
 * (hist.h). Not with symbol patterns, nor the srcline and srcfile keys. */
bool profile_ksyms_later(const struct profile *p);
void profile_sort(struct profile *p, bool by_children);
void profile_free(struct profile *p);

#endif

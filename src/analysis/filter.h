/* Which samples a report keeps: --comm, --pid, --tid, --dso and symbol patterns in
 * WindowsPerf's spelling ("x_mul" exact, "^x_" prefix, "mul$" suffix, case-insensitive). */
#ifndef LPERF_ANALYSIS_FILTER_H
#define LPERF_ANALYSIS_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "resolve/resolve.h"

struct sample_filter {
	char **comms, **dsos, **syms;
	size_t ncomms, ndsos, nsyms;
	int *pids, *tids;
	size_t npids, ntids;
	char *time_spec; /* --time (util/timerange.h), checked; the session applies it (session.h) */
};

/* Each adds a comma-separated list; -1 with err_set() on a malformed one. */
int filter_add_comms(struct sample_filter *f, const char *list);
int filter_add_dsos(struct sample_filter *f, const char *list);
int filter_add_syms(struct sample_filter *f, const char *list);
int filter_add_pids(struct sample_filter *f, const char *list);
int filter_add_tids(struct sample_filter *f, const char *list);
/* perf's --time spec (util/timerange.h: ranges in seconds, percentages): kept as given for the
 * session, which needs the recording's sample times for percentages; -1 with err_set() on a
 * spec perf refuses. */
int filter_set_time(struct sample_filter *f, const char *spec);
/* The sample's own location (frame 0) decides dso and symbol. --time is not looked at: the
 * session never hands over a sample outside the window. */
bool filter_match(const struct sample_filter *f, const struct resolved_sample *rs);
/* WindowsPerf's symbol pattern. */
bool filter_symbol_matches(const char *pattern, const char *name);
void filter_free(struct sample_filter *f);

#endif

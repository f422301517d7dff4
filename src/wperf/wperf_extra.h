/* The event list of a wperf command line: -E custom names (name:0xHEX, inline or from a file)
 * replaced by raw codes, and wperf's always-counted cycle counter added where a hardware PMU
 * exists. The metrics (the uncore l3_cache and ddr_bw too) are lperf stat's. */
#ifndef LPERF_WPERF_WPERF_EXTRA_H
#define LPERF_WPERF_WPERF_EXTRA_H

#include <stdbool.h>

#include "events/evlist.h"
#include "util/strbuf.h"
#include "wperf/wperf.h"

/* Fills events and metrics (appending) from a. -1 with err_set() for a bad -E list/file. */
int wperf_build_events(const struct wperf_args *a, struct strbuf *events, struct strbuf *metrics);
/* Rewrites -E names in spec ("a,{b,c}:u") into raw codes; extra is "n1:0x12,n2:0x34". */
int wperf_apply_extra(const char *spec, const char *extra, struct strbuf *out);
/* The events of a's -e and -m as `wperf stat` would count them (each metric's events as one
 * group; imix... cut to `counters`) into l, which the caller frees with evlist_free; -1 with err_set() for a bad name. */
int wperf_schedule(const struct wperf_args *a, int counters, struct evlist *l);
/* The general-purpose counters of this machine's core PMU (sysinfo's gpc_num), 0 when unknown:
 * WindowsPerf cuts imix and its kin to them (metric_set_wperf_simple). */
int wperf_counters(void);

#endif

/* lperf evlist: the events of a recording, one line each, as perf 6.1's evlist prints them. */
#ifndef LPERF_OUTPUT_EVLIST_OUT_H
#define LPERF_OUTPUT_EVLIST_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "perfdata/perfdata.h"

struct tep_handle;

struct evlist_show {
	bool verbose;       /* -v: every attr field set ("type: 2, size: 128, ...") */
	bool freq;          /* -F: " sample_freq=4000" or " sample_period=1" */
	bool group;         /* -g: groups as "{a,b}", members not on their own lines */
	bool trace_fields;  /* --trace-fields: a tracepoint's fields from its format */
};

/* tep: the recording's tracepoint formats (--trace-fields), or NULL. */
void evlist_print(FILE *f, const struct perfdata_reader *r, const struct evlist_show *o, struct tep_handle *tep);

#endif

/* The tracepoint formats of a recording, for the commands that print tracepoint fields (script,
 * evlist --trace-fields): the recording's own TRACING_DATA, else the live tracefs. */
#ifndef LPERF_CMD_TRACE_FORMATS_H
#define LPERF_CMD_TRACE_FORMATS_H

#include <stdbool.h>

#include "perfdata/perfdata.h"

struct tep_handle;

/* NULL when the recording has no tracepoint event, or (after one warning naming the file and
 * offset, unless quiet) when its tracing data is damaged and tracefs cannot stand in. Free with
 * tep_free. */
struct tep_handle *trace_formats_load(const struct perfdata_reader *r, bool quiet);

#endif

/* The tracepoint formats of a recording, for the commands that print tracepoint fields (script,
 * report's trace key, evlist --trace-fields): the recording's own TRACING_DATA, else the live
 * tracefs. */
#ifndef LPERF_SESSION_TRACE_FORMATS_H
#define LPERF_SESSION_TRACE_FORMATS_H

#include <stdbool.h>

#include "perfdata/perfdata.h"

struct notes;
struct tep_handle;

/* NULL when the recording has no tracepoint event, or when its tracing data is damaged and
 * tracefs cannot stand in. Damaged tracing data adds one warning to said, naming the file and
 * offset (the command prints it unless -q). Free with tep_free. */
struct tep_handle *trace_formats_load(const struct perfdata_reader *r, struct notes *said);

#endif

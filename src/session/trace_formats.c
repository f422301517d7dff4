#include "session/trace_formats.h"

#include <stdlib.h>
#include <traceevent/event-parse.h>

#include "events/tracedata.h"
#include "util/error.h"
#include "util/notes.h"
#include "util/xalloc.h"

struct tep_handle *trace_formats_load(const struct perfdata_reader *r, struct notes *said)
{
	uint64_t *ids = xcalloc(r->evsels.n ? r->evsels.n : 1, sizeof(uint64_t));
	size_t n = 0;
	for (size_t e = 0; e < r->evsels.n; e++)
		if (r->evsels.v[e].attr.type == PERF_TYPE_TRACEPOINT)
			ids[n++] = r->evsels.v[e].attr.config;
	struct tep_handle *tep = NULL;
	if (n && r->info.tracing_data) {
		tep = tracedata_parse(r->info.tracing_data, r->info.tracing_size, r->path, r->info.tracing_off, NULL);
		if (!tep)
			notes_add_level(said, NOTES_WARNING, "%s; tracepoint fields are read with this machine's formats",
					err_msg());
	}
	/* perf needs the recording's formats; lperf falls back to this machine's (older lperf
	 * recordings have none), which fit when the kernel is the same. */
	if (n && !tep)
		tep = tracedata_live(ids, n);
	free(ids);
	return tep;
}

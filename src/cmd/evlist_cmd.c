/* lperf evlist: the events of a recording (perf evlist): names, -v every attr field, -F the
 * sampling frequency or period, -g the groups, --trace-fields a tracepoint's fields. */
#include <stdio.h>
#include <traceevent/event-parse.h>

#include "cmd/cmd.h"
#include "output/evlist_out.h"
#include "perfdata/perfdata.h"
#include "session/trace_formats.h"
#include "util/error.h"
#include "util/notes.h"
#include "util/opt.h"

/* A pipe names its events in records ahead of the data: read up to the first kernel record. */
static int until_data(const struct perf_event_header *h, void *arg)
{
	(void)arg;
	return h->type < REC_HEADER_ATTR;
}

int cmd_evlist(int argc, char **argv)
{
	const char *input = "perf.data";
	bool force = false;
	struct evlist_show show = { 0 };
	static const char *const usage[] = { "lperf evlist [-i FILE] [-v] [-F] [-g] [--trace-fields]", NULL };
	const struct option opts[] = {
		{ OPT_STRING, 'i', "input", &input, "FILE", "the recording (default perf.data; - reads standard input)" },
		{ OPT_BOOL, 'f', "force", &force, NULL, "read the input whoever owns it" },
		{ OPT_BOOL, 'F', "freq", &show.freq, NULL, "show the sample frequency (or period)" },
		{ OPT_BOOL, 'g', "group", &show.group, NULL, "show the event groups" },
		{ OPT_BOOL, 'v', "verbose", &show.verbose, NULL, "show every attr field set" },
		{ OPT_BOOL, 0, "trace-fields", &show.trace_fields, NULL, "show the fields of tracepoint events" },
		OPT_END_(),
	};
	struct opt_ctx ctx = { "evlist", usage, opts, false };
	int i = opt_parse(&ctx, argc, argv);
	if (i < argc)
		opt_usage_error(&ctx, "unexpected argument '%s'", argv[i]);
	struct perfdata_reader r;
	if (perfdata_open_force(&r, input, force) < 0)
		err_die_last(EXIT_RUNTIME);
	if (r.pipe && perfdata_for_each(&r, until_data, NULL) < 0)
		err_die_last(EXIT_RUNTIME);
	for (size_t k = 0; k < r.info.notes.n; k++)
		err_warn("%s", r.info.notes.v[k]);
	struct notes said = NOTES_INIT;
	struct tep_handle *tep = show.trace_fields ? trace_formats_load(&r, &said) : NULL;
	err_print_notes(&said);
	notes_clear(&said);
	evlist_print(stdout, &r, &show, tep);
	if (tep)
		tep_free(tep);
	perfdata_close(&r);
	return 0;
}

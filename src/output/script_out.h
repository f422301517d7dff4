/* perf script's text: one line per sample (or a header line and one line per stack frame, then a
 * blank line), the layout FlameGraph's stackcollapse-perf.pl and profilers' importers parse. */
#ifndef LPERF_OUTPUT_SCRIPT_OUT_H
#define LPERF_OUTPUT_SCRIPT_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "resolve/resolve.h"

enum script_field {
	SF_COMM = 1 << 0, SF_PID = 1 << 1, SF_TID = 1 << 2, SF_CPU = 1 << 3, SF_TIME = 1 << 4,
	SF_EVENT = 1 << 5, SF_PERIOD = 1 << 6, SF_IP = 1 << 7, SF_SYM = 1 << 8, SF_SYMOFF = 1 << 9,
	SF_DSO = 1 << 10, SF_SRCLINE = 1 << 11, SF_TRACE = 1 << 12, SF_IREGS = 1 << 13,
	SF_BRSTACK = 1 << 14, SF_BRSTACKSYM = 1 << 15,
};

struct tep_handle;
/* What a line needs beyond the sample: the tracepoints' formats (NULL: no fields printed) and
 * the width perf pads event names to (the longest name of the recording's events). */
struct script_style {
	struct tep_handle *tep;
	int name_width;
	unsigned regs_machine;          /* ELF machine of the recording, for register names (iregs) */
	const struct addr_loc *br_locs; /* brstacksym: from and to of each branch entry, resolved
					 * (2 per entry), NULL: printed as [unknown] */
};

/* Parses perf's -F list ("comm,tid,time,ip,sym"); -1 with err_set() on an unknown field.
 * Leading commas are skipped, as perf does (its "-F,-time"). */
int script_parse_fields(const char *spec, unsigned *fields);
/* The same, with perf's relative form: "+srcline" or "-period,+srcline" (a list whose first item
 * has a sign) adds to or removes from the defaults: *relative is set and *add / *del hold them. */
int script_parse_fields_rel(const char *spec, unsigned *fields, bool *relative, unsigned *add, unsigned *del);
/* perf's default for a recording: comm,tid,[cpu],time,period,event,ip,sym,symoff,dso; for a
 * tracepoint comm,tid,cpu,time,event,trace (and ip,sym,symoff,dso for its call chains). */
unsigned script_default_fields(const struct perf_event_attr *attr);
void script_print_sample(FILE *f, const struct resolved_sample *rs, unsigned fields, bool callchain);
/* The same with a style (st may be NULL): tracepoint fields as perf 6.1 prints them
 * ("prev_comm=sh prev_pid=1 ... ==> next_comm=..."), by libtraceevent from the formats. */
void script_print_sample_style(FILE *f, const struct resolved_sample *rs, unsigned fields, bool callchain,
			       const struct script_style *st);

#endif

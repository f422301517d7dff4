/* What report and script show of an Arm SPE recording (and sample's SPE path): the records decoded
 * over the session the command opened, --itrace's selection, report's tables, and with
 * --annotate/--disassemble the selected records counted per instruction of their functions
 * (analysis/annot_view.h), as samples are. Rendered by output/spe_report.c. */
#ifndef LPERF_SPE_SPE_VIEW_H
#define LPERF_SPE_SPE_VIEW_H

#include <stdbool.h>

#include "analysis/annot_view.h"
#include "analysis/profile.h"
#include "session/session.h"
#include "spe/spe_load.h"
#include "spe/spe_stats.h"

struct spe_view_opts {
	const char *itrace;      /* --itrace, or NULL */
	int version;             /* --spe-version 1..4, 0: v1p3 (accept everything) */
	bool report;             /* report's tables (else script's records only) */
	bool annotate;           /* report: per hot function, records per source line (WindowsPerf's
				  * --annotate), with disassemble each hot line's instructions */
	bool disassemble;
	unsigned rows;           /* entries per table (report), 0: 50 */
};

struct spe_view {
	struct spe_itrace it;
	struct spe_data d;
	struct spe_report rep;   /* with opts.report */
	bool have_rep;
	struct profile p;        /* with annotate: the selected records' profile and annotation */
	struct annot_view *av;
	unsigned rows;
	const struct evsel_set *evsels;
	bool bad_itrace;         /* spe_view_load failed on --itrace (a usage error) */
};

/* Walks the session (from session_open, not yet run). What the decoder met goes to ss->notes as
 * warnings, and so does the reason of a failure: -1 for a bad --itrace (v->bad_itrace) or a
 * recording that could not be read. v needs spe_view_free either way. */
int spe_view_load(struct session *ss, const struct spe_view_opts *o, struct spe_view *v);
void spe_view_free(struct spe_view *v);

#endif

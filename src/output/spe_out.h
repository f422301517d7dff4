/* SPE renderers: record --dry-run rows, decoded records for script, and the report views
 * (operation x events tables, latency percentiles, data sources, cache lines). */
#ifndef LPERF_OUTPUT_SPE_OUT_H
#define LPERF_OUTPUT_SPE_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "spe/spe_stats.h"
#include "spe/spe_view.h"

struct spe_dry_row {
	const char *name, *pmu, *encoding;
	uint32_t type;
	uint64_t config, config1, config2;
	uint64_t period;        /* 0: frequency mode */
	uint64_t freq;
	bool spe;
};
void spe_print_dry_run(FILE *f, const struct spe_dry_row *rows, size_t n, size_t aux_pages,
		       size_t page_size, size_t data_pages);


struct spe_filter_row {
	const char *term, *alias, *field, *desc;
};
/* `list`: the SPE PMU's filter terms, WindowsPerf's "[SPE filter]" rows. */
void spe_print_filters(FILE *f, const char *pmu, long type, const struct spe_filter_row *rows,
		       size_t n);
/* `list`: the filter terms of every SPE PMU of the PMU table (nothing without one). */
void spe_print_pmu_filters(FILE *f);
/* report: the views of spe_stats.h, `rows` entries per table. */
void spe_print_report(FILE *f, const struct spe_data *d, const struct spe_report *r, size_t rows);
struct json;
/* av (may be NULL) adds report's --annotate as "annotate" before the document is closed. */
void spe_print_report_json(FILE *f, const struct spe_data *d, const struct spe_report *r,
			   struct annot_view *av, const struct evsel_set *evsels);
/* A loaded spe_view: report's tables then the annotation, or one JSON document; script's
 * records when the view has no report (spe_print_view_script). */
void spe_print_view(FILE *f, struct spe_view *v, bool json);
/* script's: every record (or the events --itrace selects), as text or JSON. */
void spe_print_view_script(FILE *f, const struct spe_view *v, bool json);
/* script: one line per record with every decoded field; with --itrace, one line per event perf
 * synthesises (its layout: comm tid [cpu] period event: ip sym+off (dso)), fields after. */
void spe_print_script(FILE *f, const struct spe_data *d, const struct spe_itrace *it);
struct json;
/* The "spe" object of both JSON documents: the recording's SPE totals (selected: report's). */
void spe_json_summary(struct json *j, const struct spe_data *d, const uint64_t *selected);
/* The same records as one JSON document (docs/schemas/spe-script.schema.json). */
void spe_print_script_json(FILE *f, const struct spe_data *d, const struct spe_itrace *it);

#endif

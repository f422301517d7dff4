/* Renderers of sampling profiles (report, sample): perf's --stdio layout, WindowsPerf's
 * "hot functions" tables, and JSON (docs/schemas/report.schema.json). */
#ifndef LPERF_OUTPUT_REPORT_OUT_H
#define LPERF_OUTPUT_REPORT_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis/hist.h"
#include "analysis/profile.h"
#include "output/json.h"

/* One event's profile. */
struct report_section {
	const char *event;       /* "cpu-clock" */
	struct hist *hist;
	uint64_t samples;
	uint64_t period;
	uint64_t sample_period;  /* the recording's fixed period (0 with -F) for wperf's "interval" */
};

enum report_graph_style { RG_GRAPH, RG_FRACTAL, RG_FLAT, RG_FOLDED };

struct report_opts {
	bool show_nr;            /* -n: a Samples column */
	bool no_overhead;        /* -F without overhead: no Overhead (Children/Self) column */
	enum report_graph_style graph_style; /* perf's -g graph (default), fractal, flat, folded */
	bool no_header;          /* -q: the entries only, no '#' lines (perf report -q) */
	const char *field_sep;   /* -t SEP: columns separated by SEP, no dotted line (NULL: aligned) */
	double percent_limit;    /* hide entries under this overhead (percent) */
	bool children;           /* Children and Self columns */
	double graph_min;        /* hide call-graph branches under this percent */
	size_t max_rows;         /* wperf: top N (0 = all) */
	bool long_names;         /* wperf --sample-display-long: mangled names */
	bool colour;             /* hot percentages in perf's colours (output/colour.h) */
	bool by_period;          /* wperf view: overhead by period, not by samples (sample --wall:
				  * nanoseconds on and off a CPU) */
	const char *time_slices; /* --time as given: perf adds "(time slices: SPEC)" to the Samples
				  * line; NULL: none */
};

void report_text(FILE *f, const struct report_section *s, const struct report_opts *o);
void report_text_header(FILE *f, uint64_t lost_samples, uint64_t lost_replaced);
/* perf's count of a section's samples ("# Samples: %s of event"): divided by 1000 while over 1000
 * (three times at most), with its unit K, M or G, else a blank: "405 ", "1000 ", "1K", "1000K". */
const char *report_sample_count(uint64_t n, char *buf, size_t size);
/* The header's line for Python stacks read between the samples rather than at each sample. */
void report_text_python_approx(FILE *f);
void report_text_python_paused(FILE *f);
void report_text_python_own(FILE *f);
void report_wperf(FILE *f, const struct report_section *s, const struct report_opts *o);
/* wperf groups by function: the hist's entries merged per "symbol:module" ("unknown" where no
 * symbol covers the address), most samples first. *out is allocated; free each name. */
struct report_wperf_row {
	char *name;
	uint64_t count;
	uint64_t weight;         /* what the overhead is of: count, or with by_period the period */
};
/* The overhead of a row in percent of its section. */
double report_wperf_overhead(const struct report_section *s, const struct report_opts *o,
			     const struct report_wperf_row *r);
size_t report_wperf_rows(const struct report_section *s, const struct report_opts *o,
			 struct report_wperf_row **out);
/* Writes one section object into an open JSON array. */
void report_json_section(struct json *j, const struct report_section *s, const struct report_opts *o);

enum report_style { STYLE_PERF, STYLE_WPERF, STYLE_JSON };

/* What the whole walk counted, for headers and JSON. */
struct report_totals {
	uint64_t samples, lost_records, lost_samples;
	uint64_t lost_replaced;  /* of those lost, the kernel's samples of paused Python processes,
				  * which lperf wrote itself (session_lost) */
	bool python_approx;      /* Python stacks read between the samples, not at each sample */
	bool python_paused;      /* without BPF, exact: the threads paused at each sample */
	bool python_own;         /* the approximate ones named their frames themselves (-X perf) */
};

/* What report shows of a profile: the style, the columns and limits, the call-graph order, and
 * the annotation after the tables (report's and sample's options fill it). */
struct annot_view;
struct report_view {
	enum report_style style;
	struct report_opts ro;
	const char *sort;       /* "comm,dso,sym" */
	enum hist_graph graph;
	bool graph_given;       /* -g, -G or --call-graph was given (none included) */
	struct annot_view *annot; /* --annotate / --disassemble: tables after the report; NULL: none */
};

/* Renders every event's profile (report_view.c). source names the file (or "live") for JSON;
 * annot (may be NULL: --annotate/--disassemble not asked) adds the hot functions' annotation
 * after the tables, or the "annotate" array after the JSON events. */
struct annot_view;
/* Event i of a profile as a report section. */
struct report_section report_section_of(const struct profile *p, size_t i);
void report_print(FILE *f, enum report_style style, const struct report_opts *o, const struct profile *p,
		  const struct report_totals *tot, const char *source, struct annot_view *annot);

/* perf report --header: the recording's header and features as perf prints them
 * (report_header.c). */
struct perfdata_reader;
void report_print_header(FILE *f, const struct perfdata_reader *r);
/* perf report --stats and --task (report_stats.c). */
struct perfdata_stats;
struct perfdata_tasks;
struct evsel_set;
void report_print_stats(FILE *f, const struct perfdata_stats *st, const struct evsel_set *evs);
void report_print_tasks(FILE *f, const struct perfdata_tasks *t);

#endif

/* Renderers of annotations (src/analysis/annot.h): perf annotate's --stdio layout (samples
 * or percentages per instruction, source lines interleaved), a per-line table, WindowsPerf's
 * --annotate / --disassemble tables, and JSON (docs/schemas/annotate.schema.json). */
#ifndef LPERF_OUTPUT_ANNOTATE_OUT_H
#define LPERF_OUTPUT_ANNOTATE_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "analysis/annot_view.h"
#include "analysis/annot.h"
#include "output/json.h"

struct annot_opts {
	bool show_nr;            /* -n: sample counts instead of percentages */
	bool source_only;        /* per source line, no instructions */
	bool color;              /* highlight hot rows (a terminal) */
	bool no_source;          /* instructions only, no source rows */
	const char *event;       /* the event's name */
	uint64_t event_samples;  /* the event's total, for each function's share */
	uint64_t event_period;
	size_t max_lines;        /* wperf tables: rows per function (0: all) */
	bool disassemble;        /* wperf tables: each hot line's instructions too */
	bool wperf_schema;       /* wperf JSON: WindowsPerf's keys only (wperf sample/record) */
};

/* One function (annot_func_disassemble done; a function with a note prints the note). */
void annotate_text_func(FILE *f, const struct annot_func *fn, const struct annot_opts *o);
/* WindowsPerf's per-function table: "line_number  hits  filename", by hits, and with
 * o->disassemble each line's instructions. */
void annotate_wperf_func(FILE *f, const struct annot_func *fn, const struct annot_opts *o);
/* WindowsPerf's "annotate" element for one function (keys function_name, source_code[
 * line_number, hits, filename, instruction_address, disassembled_line.disassemble[address,
 * instruction]]) inside an open JSON array; lperf's report JSON adds event, dso, samples, a
 * note and per-instruction hits unless o->wperf_schema. */
void annotate_wperf_json(struct json *j, const struct annot_func *fn, const struct annot_opts *o);

/* The hot functions of an annotation view (annot_view_prepare is called): the options for one
 * function; after the report's tables, "sample source code annotation" and a table per function
 * (text); the "annotate" array of event ev (-1: every event) inside an open JSON object. */
void annotate_view_opts(const struct annot_view *av, const struct evsel_set *evsels,
			const struct annot_func *fn, struct annot_opts *o);
void annotate_view_print(FILE *f, struct annot_view *av, const struct evsel_set *evsels);
void annotate_view_json(struct json *j, struct annot_view *av, const struct evsel_set *evsels, int ev,
			bool wperf_schema);
/* One function object inside an open JSON array. */
void annotate_json_func(struct json *j, const struct annot_func *fn, const struct annot_opts *o);

/* The JSON document around annotate_json_func's objects (docs/schemas/annotate.schema.json). */
void annotate_json_begin(struct json *j, FILE *f, const char *source);
void annotate_json_end(struct json *j);

#endif

/* WindowsPerf's sampling JSON (wperf sample/record --json): {"sampling": {pe_file, pdb_file,
 * sample_display_row, samples_generated, samples_dropped, base_address, runtime_delta,
 * events: [{type, samples: [{overhead, count, symbol}], interval, printed_sample_num,
 * annotate: []}]}}. */
#include "output/wperf_out.h"

#include <stdio.h>
#include <stdlib.h>

#include "output/report_out.h"

void wperf_sample_json_begin(struct json *j, const struct wperf_sample_info *in)
{
	json_begin_object(j, NULL);
	json_begin_object(j, "sampling");
	json_str(j, "pe_file", in->pe_file ? in->pe_file : "");
	json_str(j, "pdb_file", in->pdb_file ? in->pdb_file : "");
	json_u64(j, "sample_display_row", in->display_rows);
	json_u64(j, "samples_generated", in->generated);
	json_u64(j, "samples_dropped", in->dropped);
	json_u64(j, "base_address", in->base_address);
	json_u64(j, "runtime_delta", in->runtime_delta);
	json_begin_array(j, "events");
}

static void annotate_json(struct json *j, const struct wperf_annot_fn *fns, size_t nfns, bool disasm)
{
	json_begin_array(j, "annotate");
	for (size_t i = 0; i < nfns; i++) {
		json_begin_object(j, NULL);
		json_str(j, "function_name", fns[i].name);
		json_begin_array(j, "source_code");
		for (size_t k = 0; k < fns[i].n; k++) {
			const struct wperf_annot_line *l = &fns[i].lines[k];
			json_begin_object(j, NULL);
			json_str(j, "filename", l->file);
			json_u64(j, "line_number", l->line);
			json_u64(j, "hits", l->hits);
			if (disasm) {
				json_str(j, "instruction_address", l->inst_addr ? l->inst_addr : "");
				json_begin_object(j, "disassembled_line");
				json_begin_array(j, "disassemble");
				for (size_t d = 0; d < l->ndasm; d++) {
					json_begin_object(j, NULL);
					json_str(j, "address", l->dasm_addr[d]);
					json_str(j, "instruction", l->dasm_text[d]);
					json_end_object(j);
				}
				json_end_array(j);
				json_end_object(j);
			}
			json_end_object(j);
		}
		json_end_array(j);
		json_end_object(j);
	}
	json_end_array(j);
}

void wperf_annotate_text(FILE *f, const struct wperf_annot_fn *fn, bool disasm)
{
	fprintf(f, "%s\n", fn->name);
	const char *cols[] = { "line_number", "hits", "filename", "instruction_address",
			       "disassembled_line" };
	struct table t;
	table_init(&t, disasm ? 5 : 3, cols);
	t.indent = 8;
	t.underline = true;
	for (size_t k = 0; k < fn->n; k++) {
		const struct wperf_annot_line *l = &fn->lines[k];
		char line[16], hits[32];
		snprintf(line, sizeof(line), "%u", l->line);
		snprintf(hits, sizeof(hits), "%llu", (unsigned long long)l->hits);
		/* The nested table's first row goes beside the line; the rest below it. */
		const char *cells[] = { line, hits, l->file, l->inst_addr ? l->inst_addr : "",
					disasm ? "address  instruction" : "" };
		table_row(&t, cells);
		if (!disasm)
			continue;
		const char *u[] = { "", "", "", "", "=======  ===========" };
		table_row(&t, u);
		for (size_t d = 0; d < l->ndasm; d++) {
			char *row = NULL;
			size_t len = 0;
			FILE *m = open_memstream(&row, &len);
			fprintf(m, "%-7s  %s", l->dasm_addr[d], l->dasm_text[d]);
			fclose(m);
			const char *c[] = { "", "", "", "", row };
			table_row(&t, c);
			free(row);
		}
	}
	table_print(&t, f);
	table_free(&t);
	fputc('\n', f);
}

void wperf_sample_json_event(struct json *j, const struct report_section *s,
			     const struct report_opts *o, const struct wperf_event_extra *x)
{
	struct report_wperf_row *rows;
	size_t n = report_wperf_rows(s, o, &rows);
	size_t shown = o->max_rows && o->max_rows < n ? o->max_rows : n;
	uint64_t total = s->hist->total_samples;
	json_begin_object(j, NULL);
	json_str(j, "type", s->event);
	json_begin_array(j, "samples");
	for (size_t i = 0; i < shown; i++) {
		json_begin_object(j, NULL);
		json_double(j, "overhead", total ? 100.0 * (double)rows[i].count / (double)total : 0.0);
		json_u64(j, "count", rows[i].count);
		json_str(j, "symbol", rows[i].name);
		json_end_object(j);
	}
	json_end_array(j);
	json_u64(j, "interval", s->sample_period);
	json_u64(j, "printed_sample_num", shown);
	annotate_json(j, x->fns, x->nfns, x->disasm);
	if (x->verbose) {
		json_begin_array(j, "pcs");
		for (size_t i = 0; i < x->npcs; i++) {
			json_begin_object(j, NULL);
			json_u64(j, "address", x->pcs[i].address);
			json_u64(j, "count", x->pcs[i].count);
			json_str(j, "in_symbol", x->pcs[i].in_symbol);
			json_end_object(j);
		}
		json_end_array(j);
	}
	json_end_object(j);
	for (size_t i = 0; i < n; i++)
		free(rows[i].name);
	free(rows);
}

void wperf_sample_json_end(struct json *j)
{
	json_end_array(j);
	json_end_object(j);
	json_end_object(j);
	json_finish(j);
}

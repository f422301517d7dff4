/* lperf annotate --json (docs/schemas/annotate.schema.json): per function, its lines by samples
 * and its instructions with source lines, inline functions and jump targets. */
#include <inttypes.h>
#include <stdio.h>

#include "output/annotate_out.h"

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

void annotate_json_func(struct json *j, const struct annot_func *fn, const struct annot_opts *o)
{
	char buf[32];
	json_begin_object(j, NULL);
	json_str(j, "event", o->event ? o->event : "?");
	json_str(j, "symbol", fn->sym->name);
	json_str(j, "dso", fn->dso->short_name ? fn->dso->short_name : "[unknown]");
	json_str(j, "dso_path", fn->dso->path);
	snprintf(buf, sizeof(buf), "0x%" PRIx64, fn->sym->start);
	json_str(j, "start", buf);
	json_u64(j, "size", fn->sym->size);
	json_u64(j, "samples", fn->samples);
	json_u64(j, "period", fn->period);
	json_double(j, "percent", pct(fn->period, o->event_period));
	if (fn->note)
		json_str(j, "note", fn->note);
	json_begin_array(j, "lines");
	for (size_t i = 0; i < fn->nlines; i++) {
		const struct annot_line *l = &fn->lines[i];
		if (!l->samples && o->max_lines)
			break;
		json_begin_object(j, NULL);
		json_str(j, "file", l->file);
		json_u64(j, "line", l->line);
		json_u64(j, "samples", l->samples);
		json_double(j, "percent", pct(l->period, fn->period));
		json_end_object(j);
	}
	json_end_array(j);
	if (!o->source_only && (!o->max_lines || o->disassemble)) {
		json_begin_array(j, "instructions");
		for (size_t i = 0; i < fn->ninsns; i++) {
			const struct annot_insn *in = &fn->insns[i];
			if (o->max_lines && !in->samples)
				continue;
			json_begin_object(j, NULL);
			snprintf(buf, sizeof(buf), "0x%" PRIx64, in->addr);
			json_str(j, "addr", buf);
			json_u64(j, "size", in->size);
			json_str(j, "text", in->text);
			json_u64(j, "samples", in->samples);
			json_double(j, "percent", pct(in->period, fn->period));
			if (in->file) {
				json_str(j, "file", in->file);
				json_u64(j, "line", in->line);
			}
			if (in->inlined)
				json_str(j, "inlined", in->inlined);
			if (in->has_target) {
				snprintf(buf, sizeof(buf), "0x%" PRIx64, in->target);
				json_str(j, "target", buf);
			}
			json_bool(j, "jump_target", in->is_target);
			json_end_object(j);
		}
		json_end_array(j);
	}
	json_end_object(j);
}

void annotate_wperf_json(struct json *j, const struct annot_func *fn, const struct annot_opts *o)
{
	char buf[32];
	json_begin_object(j, NULL);
	if (!o->wperf_schema)
		json_str(j, "event", o->event ? o->event : "?");
	json_str(j, "function_name", fn->sym->name);
	if (!o->wperf_schema) {
		json_str(j, "dso", fn->dso->short_name ? fn->dso->short_name : "[unknown]");
		json_u64(j, "samples", fn->samples);
		if (fn->note)
			json_str(j, "note", fn->note);
	}
	json_begin_array(j, "source_code");
	for (size_t i = 0; i < fn->nlines && fn->lines[i].samples; i++) {
		const struct annot_line *l = &fn->lines[i];
		if (o->wperf_schema && !l->file)
			continue; /* WindowsPerf's rows always name a file */
		json_begin_object(j, NULL);
		json_u64(j, "line_number", l->line);
		json_u64(j, "hits", l->samples);
		json_str(j, "filename", l->file);
		if (o->disassemble) {
			bool first = true;
			for (size_t k = 0; k < fn->ninsns; k++) {
				const struct annot_insn *in = &fn->insns[k];
				if (in->file != l->file || in->line != l->line)
					continue;
				if (first) {
					snprintf(buf, sizeof(buf), "%" PRIx64, in->addr);
					json_str(j, "instruction_address", buf);
					json_begin_object(j, "disassembled_line");
					json_begin_array(j, "disassemble");
					first = false;
				}
				json_begin_object(j, NULL);
				snprintf(buf, sizeof(buf), "%" PRIx64, in->addr);
				json_str(j, "address", buf);
				json_str(j, "instruction", in->text);
				if (!o->wperf_schema)
					json_u64(j, "hits", in->samples);
				json_end_object(j);
			}
			if (!first) {
				json_end_array(j);
				json_end_object(j);
			}
		}
		json_end_object(j);
	}
	json_end_array(j);
	json_end_object(j);
}

void annotate_view_json(struct json *j, struct annot_view *av, const struct evsel_set *evsels, int ev,
			bool wperf_schema)
{
	annot_view_prepare(av);
	json_begin_array(j, "annotate");
	for (size_t i = 0; i < av->nhot; i++) {
		if (ev >= 0 && av->hot[i]->evidx != ev)
			continue;
		struct annot_opts o;
		annotate_view_opts(av, evsels, av->hot[i], &o);
		o.wperf_schema = wperf_schema;
		annotate_wperf_json(j, av->hot[i], &o);
	}
	json_end_array(j);
}

void annotate_json_begin(struct json *j, FILE *f, const char *source)
{
	json_init(j, f, true);
	json_begin_object(j, NULL);
	json_str(j, "schema", "lperf-annotate-1");
	json_str(j, "source", source);
	json_begin_array(j, "functions");
}

void annotate_json_end(struct json *j)
{
	json_end_array(j);
	json_end_object(j);
	json_finish(j);
}

/* WindowsPerf's sampling JSON (wperf sample/record --json): {"sampling": {pe_file, pdb_file,
 * sample_display_row, samples_generated, samples_dropped, base_address, runtime_delta,
 * events: [{type, samples: [{overhead, count, symbol}], interval, printed_sample_num,
 * annotate: [], pcs: [] with -v}]}}. */
#include "output/wperf_out.h"

#include <stdio.h>
#include <stdlib.h>

#include "analysis/annot_view.h"
#include "analysis/hist.h"
#include "output/annotate_out.h"
#include "output/report_out.h"
#include "util/xalloc.h"

/* -v's "pcs": every sampled PC of the event with its count and "sym:module", most first. */
static void pcs_json(struct json *j, struct annot_view *av, int ev, bool long_names)
{
	struct annot_pc *pcs;
	size_t n = annot_view_pcs(av, ev, &pcs);
	json_begin_array(j, "pcs");
	for (size_t i = 0; i < n; i++) {
		const struct symbol *sym = pcs[i].f->sym;
		char *name = xasprintf("%s:%s", long_names && sym->mangled ? sym->mangled : sym->name,
				       hist_dso_name(pcs[i].f->dso));
		json_begin_object(j, NULL);
		json_u64(j, "address", pcs[i].addr);
		json_u64(j, "count", pcs[i].count);
		json_str(j, "in_symbol", name);
		json_end_object(j);
		free(name);
	}
	json_end_array(j);
	free(pcs);
}

static void event_json(struct json *j, const struct report_section *s, const struct report_opts *o,
		       struct annot_view *annot, struct annot_view *pcs, int ev)
{
	struct report_wperf_row *rows;
	size_t n = report_wperf_rows(s, o, &rows);
	size_t shown = o->max_rows && o->max_rows < n ? o->max_rows : n;
	json_begin_object(j, NULL);
	json_str(j, "type", s->event);
	json_begin_array(j, "samples");
	for (size_t i = 0; i < shown; i++) {
		json_begin_object(j, NULL);
		json_double(j, "overhead", report_wperf_overhead(s, o, &rows[i]));
		json_u64(j, "count", rows[i].count);
		json_str(j, "symbol", rows[i].name);
		json_end_object(j);
	}
	json_end_array(j);
	json_u64(j, "interval", s->sample_period);
	json_u64(j, "printed_sample_num", shown);
	if (annot) {
		annotate_view_json(j, annot, annot->p->evsels, ev, true);
	} else {
		json_begin_array(j, "annotate");
		json_end_array(j);
	}
	if (pcs)
		pcs_json(j, pcs, ev, o->long_names);
	json_end_object(j);
	for (size_t i = 0; i < n; i++)
		free(rows[i].name);
	free(rows);
}

void wperf_sample_json(FILE *f, const struct wperf_sample_info *in, const struct profile *p,
		       const struct report_opts *o, struct annot_view *annot, struct annot_view *pcs)
{
	struct json j;
	json_init(&j, f, true);
	json_begin_object(&j, NULL);
	json_begin_object(&j, "sampling");
	json_str(&j, "pe_file", in->pe_file ? in->pe_file : "");
	json_str(&j, "pdb_file", in->pdb_file ? in->pdb_file : "");
	json_u64(&j, "sample_display_row", in->display_rows);
	json_u64(&j, "samples_generated", in->generated);
	json_u64(&j, "samples_dropped", in->dropped);
	json_u64(&j, "base_address", in->base_address);
	json_u64(&j, "runtime_delta", in->runtime_delta);
	json_begin_array(&j, "events");
	for (size_t i = 0; i < p->n; i++) {
		struct report_section s = report_section_of(p, i);
		if (!s.samples && p->n > 1)
			continue;
		event_json(&j, &s, o, annot, pcs, (int)i);
	}
	json_end_array(&j);
	json_end_object(&j);
	json_end_object(&j);
	json_finish(&j);
}

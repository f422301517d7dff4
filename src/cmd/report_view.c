#include "cmd/report_view.h"

#include "cmd/annotate_view.h"
#include "output/json.h"

void report_view_print(FILE *f, const struct report_view *v, const struct profile *p,
		       const struct session *ss, const char *source)
{
	struct report_opts ro = v->ro;
	ro.lost = ss->lost_records;
	ro.lost_samples = ss->lost_samples;
	struct json j;
	if (v->style == STYLE_JSON) {
		json_init(&j, f, true);
		json_begin_object(&j, NULL);
		json_str(&j, "schema", "lperf-report/1");
		json_str(&j, "source", source);
		json_u64(&j, "samples", ss->nsamples);
		json_u64(&j, "lost_records", ss->lost_records);
		json_u64(&j, "lost_samples", ss->lost_samples);
		json_u64(&j, "filtered_out", p->filtered_out);
		json_begin_array(&j, "events");
	} else if (v->style == STYLE_PERF) {
		report_text_header(f, ss->lost_samples);
	}
	for (size_t i = 0; i < p->n; i++) {
		struct report_section s = {
			.event = i < p->evsels->n ? p->evsels->v[i].name : "?",
			.hist = &p->hists[i],
			.samples = p->hists[i].total_samples,
			.period = p->hists[i].total_period,
			.sample_period = i < p->evsels->n && !p->evsels->v[i].attr.freq
						 ? p->evsels->v[i].attr.sample_period : 0,
		};
		/* perf prints a section for every event; skip empty ones only when others have data. */
		if (!s.samples && p->n > 1)
			continue;
		if (v->style == STYLE_JSON)
			report_json_section(&j, &s, &ro);
		else if (v->style == STYLE_WPERF)
			report_wperf(f, &s, &ro);
		else
			report_text(f, &s, &ro);
	}
	if (v->style == STYLE_JSON) {
		json_end_array(&j);
		if (v->annot)
			annot_view_json(&j, v->annot, p->evsels);
		json_end_object(&j);
		json_finish(&j);
	}
	if (v->annot && v->style != STYLE_JSON)
		annot_view_print(f, v->annot, p->evsels);
	fflush(f);
}

/* A finished profile in the style asked for: perf's text, WindowsPerf's tables or JSON. */
#include "output/report_out.h"

#include "output/annotate_out.h"
#include "output/json.h"

struct report_section report_section_of(const struct profile *p, size_t i)
{
	struct report_section s = {
		.event = i < p->evsels->n ? p->evsels->v[i].name : "?",
		.hist = &p->hists[i],
		.samples = p->hists[i].total_samples,
		.period = p->hists[i].total_period,
		.sample_period = i < p->evsels->n && !p->evsels->v[i].attr.freq
					 ? p->evsels->v[i].attr.sample_period : 0,
	};
	return s;
}

void report_print(FILE *f, enum report_style style, const struct report_opts *opts, const struct profile *p,
		  const struct report_totals *tot, const char *source, struct annot_view *annot)
{
	struct report_opts ro = *opts;
	struct json j;
	if (style == STYLE_JSON) {
		json_init(&j, f, true);
		json_begin_object(&j, NULL);
		json_str(&j, "schema", "lperf-report/1");
		json_str(&j, "source", source);
		json_u64(&j, "samples", tot->samples);
		json_u64(&j, "lost_records", tot->lost_records);
		json_u64(&j, "lost_samples", tot->lost_samples);
		if (tot->lost_replaced)
			json_u64(&j, "lost_replaced", tot->lost_replaced);
		json_u64(&j, "filtered_out", p->filtered_out);
		json_begin_array(&j, "events");
	} else if (style == STYLE_PERF && !ro.no_header) {
		report_text_header(f, tot->lost_samples, tot->lost_replaced);
		if (tot->python_own)
			report_text_python_own(f);
		else if (tot->python_approx)
			report_text_python_approx(f);
		else if (tot->python_paused)
			report_text_python_paused(f);
	}
	for (size_t i = 0; i < p->n; i++) {
		struct report_section s = report_section_of(p, i);
		/* perf prints a section for every event; skip empty ones only when others have data. */
		if (!s.samples && p->n > 1)
			continue;
		if (style == STYLE_JSON)
			report_json_section(&j, &s, &ro);
		else if (style == STYLE_WPERF)
			report_wperf(f, &s, &ro);
		else
			report_text(f, &s, &ro);
	}
	if (style == STYLE_JSON) {
		json_end_array(&j);
		if (annot)
			annotate_view_json(&j, annot, p->evsels, -1, false);
		json_end_object(&j);
		json_finish(&j);
	} else if (annot) {
		annotate_view_print(f, annot, p->evsels);
	}
	fflush(f);
}

#include <math.h>
#include <stdio.h>

#include "output/stat_out.h"

/* perf stat -x layout, per event:
 *   [time,][CPUn,]value,unit,event,run-time-ns,running-percent,metric-value,metric-unit
 * and, per metric, the same columns with event = "metric:NAME", value and unit the metric's. */
static void value_cell(FILE *f, const struct stat_result *r, size_t e, const struct stat_value *v)
{
	if (v->status == COUNTER_NOT_SUPPORTED)
		fputs("<not supported>", f);
	else if (v->status == COUNTER_NOT_COUNTED && r->evl->ev[e].source != EV_SRC_TOOL)
		fputs("<not counted>", f);
	else if (statout_is_clock(&r->evl->ev[e]))
		fprintf(f, "%.2f", statout_display_value(r, e, v));
	else
		fprintf(f, "%.0f", statout_display_value(r, e, v));
}

static void prefix(FILE *f, const struct stat_result *r, const char *sep, bool interval, long col)
{
	if (interval)
		fprintf(f, "%.6f%s", r->timestamp, sep);
	if (col >= 0)
		fprintf(f, "CPU%d%s", r->cpus[col], sep);
}

void statout_csv(FILE *f, const struct stat_result *r, const struct statout_opts *o, bool interval)
{
	const char *s = o->sep;
	bool per = o->per_cpu && r->ncpus > 1;
	for (long col = per ? 0 : -1; col < (per ? (long)r->ncpus : 0); col++) {
		for (size_t e = 0; e < r->nev; e++) {
			const struct ev *ev = &r->evl->ev[e];
			const struct stat_value *v = col < 0 ? &r->ev[e].total : &r->ev[e].cpu[col];
			prefix(f, r, s, interval, col);
			value_cell(f, r, e, v);
			double pct = v->raw.ena ? 100.0 * (double)v->raw.run / (double)v->raw.ena
						: 100.0;
			fprintf(f, "%s%s%s%s%s%llu%s%.2f%s%s\n", s, statout_unit(ev), s, ev->name, s,
				(unsigned long long)v->raw.run, s, pct, s, s);
		}
		for (size_t i = 0; i < r->nmet; i++) {
			const struct stat_metric *sm = &r->met[i];
			if (!sm->m->formula)
				continue;
			double v = col < 0 ? sm->total : sm->cpu[col];
			prefix(f, r, s, interval, col);
			if (isfinite(v))
				fprintf(f, "%.6g", v);
			else
				fputs("n/a", f);
			fprintf(f, "%s%s%smetric:%s%s%s%s%s", s, sm->m->unit ? sm->m->unit : "", s,
				sm->m->name, s, s, s, s);
			fputc('\n', f);
		}
	}
	fflush(f);
}

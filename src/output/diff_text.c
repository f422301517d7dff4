/* lperf diff per function: perf diff 6.1's --stdio layout (Baseline, the computed column, the
 * periods with --period, Shared Object, Symbol) and its JSON. */
#include <inttypes.h>
#include <string.h>

#include "output/diff_out.h"
#include "output/json.h"
#include "util/strbuf.h"

/* Whether a row is shown: --percent-limit hides a row under the limit in both recordings. */
static bool shown(const struct histdiff_row *r, const struct diff_view *v)
{
	return r->old_pct >= v->percent_limit || r->new_pct >= v->percent_limit;
}

static const char *compute_title(const struct histdiff *d)
{
	switch (d->compute) {
	case HD_DELTA: return "Delta";
	case HD_DELTA_ABS: return "Delta Abs";
	case HD_RATIO: return "Ratio";
	default: return "Weighted diff";
	}
}

/* The computed column's text for a row (empty for a baseline row alone). */
static void compute_cell(char *buf, size_t size, const struct histdiff *d, const struct histdiff_row *r)
{
	buf[0] = 0;
	if (!r->in_new)
		return;
	switch (d->compute) {
	case HD_DELTA:
	case HD_DELTA_ABS: snprintf(buf, size, "%+4.2f%%", r->delta); break;
	case HD_RATIO:
		if (!r->in_old)
			snprintf(buf, size, "N/A");
		else if (r->ratio > 0.0)
			snprintf(buf, size, "%14.6f", r->ratio);
		break;
	default:
		if (!r->in_old)
			snprintf(buf, size, "N/A");
		else
			snprintf(buf, size, "%14" PRId64, r->wdiff);
		break;
	}
}

struct cols {
	size_t compute, dso, sym;
};

static void header(FILE *f, const struct histdiff *d, const struct diff_view *v, const struct cols *w)
{
	struct strbuf h = STRBUF_INIT, dots = STRBUF_INIT;
#define COL(title, width, right)                                                        \
	do {                                                                           \
		sb_addf(&h, (right) ? "%*s  " : "%-*s  ", (int)(width), title);        \
		for (size_t d_ = 0; d_ < (size_t)(width); d_++)                       \
			sb_addc(&dots, '.');                                           \
		sb_adds(&dots, "  ");                                                  \
	} while (0)
	COL("Baseline", 8, true);
	if (v->period)
		COL("Base period", 14, true);
	if (v->samples)
		COL("Base samples", 12, true);
	COL(compute_title(d), w->compute, true);
	if (v->period)
		COL("Period", 14, true);
	if (v->samples)
		COL("Samples", 12, true);
	COL("Shared Object", w->dso, false);
	COL("Symbol", w->sym, false);
#undef COL
	h.buf[h.len -= 2] = 0;
	dots.buf[dots.len -= 2] = 0;
	fprintf(f, "# %s\n# %s\n#\n", sb_str(&h), sb_str(&dots));
	sb_release(&h);
	sb_release(&dots);
}

static void row(FILE *f, const struct histdiff *d, const struct diff_view *v, const struct cols *w,
		const struct histdiff_row *r)
{
	char cell[64];
	if (r->in_old)
		snprintf(cell, sizeof(cell), "%.2f%%", r->old_pct);
	else
		cell[0] = 0;
	fprintf(f, "  %8s  ", cell);
	if (v->period)
		fprintf(f, "%14" PRIu64 "  ", r->old_period);
	if (v->samples)
		fprintf(f, "%12" PRIu64 "  ", r->old_samples);
	compute_cell(cell, sizeof(cell), d, r);
	fprintf(f, "%*s  ", (int)w->compute, cell);
	if (v->period) {
		if (r->in_new)
			fprintf(f, "%14" PRIu64 "  ", r->new_period);
		else
			fprintf(f, "%14s  ", "");
	}
	if (v->samples) {
		if (r->in_new)
			fprintf(f, "%12" PRIu64 "  ", r->new_samples);
		else
			fprintf(f, "%12s  ", "");
	}
	fprintf(f, "%-*s  [%c] %s\n", (int)w->dso, r->dso, r->kernel ? 'k' : '.', r->sym);
}

void diff_print_perf(FILE *f, const struct histdiff *d, const struct diff_view *v)
{
	bool first = true;
	for (size_t i = 0; i < d->n; i++) {
		const struct histdiff_event *e = &d->ev[i];
		if (v->event && strcmp(v->event, e->name))
			continue;
		if (!e->new_samples || !e->old_samples)
			continue;
		struct cols w = { strlen(compute_title(d)), strlen("Shared Object"), strlen("Symbol") };
		if (d->compute == HD_DELTA && w.compute < 7)
			w.compute = 7;
		if (d->compute == HD_RATIO || d->compute == HD_WDIFF)
			w.compute = 14;
		size_t hidden = 0, n = 0;
		for (size_t k = 0; k < e->n; k++) {
			const struct histdiff_row *r = &e->rows[k];
			if (strlen(r->dso) > w.dso)
				w.dso = strlen(r->dso);
			if (strlen(r->sym) + 4 > w.sym)
				w.sym = strlen(r->sym) + 4;
		}
		if (!first)
			fputc('\n', f);
		first = false;
		fprintf(f, "# Event '%s'\n#\n", e->name);
		header(f, d, v, &w);
		for (size_t k = 0; k < e->n; k++) {
			if (!shown(&e->rows[k], v) || (v->limit && n >= v->limit)) {
				hidden++;
				continue;
			}
			n++;
			row(f, d, v, &w, &e->rows[k]);
		}
		if (hidden && !v->quiet)
			fprintf(f, "#\n# %zu more rows not shown (under %.2f%% in both recordings or past --limit; "
				   "--percent-limit 0 shows all)\n", hidden, v->percent_limit);
	}
	fflush(f);
}

void diff_print_perf_json(FILE *f, const struct histdiff *d, const struct diff_view *v, const char *old_path,
			  const char *new_path)
{
	struct json j;
	json_init(&j, f, true);
	for (size_t i = 0; i < d->n; i++) {
		const struct histdiff_event *e = &d->ev[i];
		if ((v->event && strcmp(v->event, e->name)) || !e->new_samples || !e->old_samples)
			continue;
		json_begin_object(&j, NULL);
		json_str(&j, "old", old_path);
		json_str(&j, "new", new_path);
		json_str(&j, "event", e->name);
		json_u64(&j, "old_samples", e->old_samples);
		json_u64(&j, "new_samples", e->new_samples);
		json_str(&j, "by", "symbol");
		static const char *const names[] = { "delta", "delta-abs", "ratio", "wdiff" };
		json_str(&j, "compute", names[d->compute]);
		json_begin_array(&j, "rows");
		size_t n = 0;
		for (size_t k = 0; k < e->n; k++) {
			const struct histdiff_row *r = &e->rows[k];
			if (!shown(r, v) || (v->limit && n >= v->limit))
				continue;
			n++;
			json_begin_object(&j, NULL);
			json_str(&j, "symbol", r->sym);
			json_str(&j, "dso", r->dso);
			json_double(&j, "old_percent", r->old_pct);
			json_double(&j, "new_percent", r->new_pct);
			json_double(&j, "change", r->delta);
			json_u64(&j, "old_samples", r->old_samples);
			json_u64(&j, "new_samples", r->new_samples);
			json_u64(&j, "old_period", r->old_period);
			json_u64(&j, "new_period", r->new_period);
			if (r->in_old && r->in_new) {
				json_double(&j, "ratio", r->ratio);
				json_i64(&j, "wdiff", r->wdiff);
			}
			json_end_object(&j);
		}
		json_end_array(&j);
		json_end_object(&j);
		break; /* one event: the schema's document */
	}
	json_finish(&j);
}

/* SPE text renderers (see spe_out.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "events/pmu.h"
#include "events/spe_terms.h"
#include "output/annotate_out.h"
#include "output/spe_out.h"
#include "output/table.h"
#include "util/xalloc.h"

void spe_print_dry_run(FILE *f, const struct spe_dry_row *rows, size_t n, size_t aux_pages,
		       size_t page_size, size_t data_pages)
{
	const char *cols[] = { "event", "pmu", ">type", ">config", ">config1", ">config2",
			       ">period", "encoding" };
	struct table t;
	table_init(&t, sizeof(cols) / sizeof(cols[0]), cols);
	t.indent = 8;
	t.underline = true;
	for (size_t i = 0; i < n; i++) {
		const struct spe_dry_row *r = &rows[i];
		char type[16], c0[32], c1[32], c2[32], per[40];
		snprintf(type, sizeof(type), "%u", r->type);
		snprintf(c0, sizeof(c0), "%#" PRIx64, r->config);
		snprintf(c1, sizeof(c1), "%#" PRIx64, r->config1);
		snprintf(c2, sizeof(c2), "%#" PRIx64, r->config2);
		if (r->period)
			snprintf(per, sizeof(per), "%" PRIu64, r->period);
		else
			snprintf(per, sizeof(per), "%" PRIu64 " Hz", r->freq);
		const char *cells[] = { r->name, r->pmu, type, c0, c1, c2, per, r->encoding };
		table_row(&t, cells);
	}
	fprintf(f, "\n Events record would open (nothing opened):\n\n");
	table_print(&t, f);
	table_free(&t);
	if (aux_pages)
		fprintf(f, "\n        AUX area: %zu pages (%zu KiB) per CPU", aux_pages,
			aux_pages * page_size / 1024);
	if (aux_pages && data_pages)
		fprintf(f, ", data ring buffer %zu pages", data_pages);
	if (aux_pages)
		fprintf(f, "\n");
}

void spe_print_filters(FILE *f, const char *pmu, long type, const struct spe_filter_row *rows,
		       size_t n)
{
	const char *cols[] = { "Filter", "Alias", "Field", "Event Type", "Description" };
	struct table t;
	table_init(&t, sizeof(cols) / sizeof(cols[0]), cols);
	t.indent = 8;
	t.underline = true;
	for (size_t i = 0; i < n; i++) {
		const char *cells[] = { rows[i].term, rows[i].alias ? rows[i].alias : "-",
					rows[i].field ? rows[i].field : "?", "[SPE filter]",
					rows[i].desc ? rows[i].desc : "" };
		table_row(&t, cells);
	}
	fprintf(f, "\nList of SPE filters of %s (type %ld), as -e %s/ld=1,min_latency=64/\n\n", pmu,
		type, pmu);
	table_print(&t, f);
	table_free(&t);
}

/* "config:0-7", "config1:12" */
static void field_text(const struct pmu_format *f, char *buf, size_t n)
{
	static const char *const names[] = { "config", "config1", "config2" };
	int lo = -1, hi = -1;
	for (int b = 0; b < 64; b++)
		if (f->mask & (1ULL << b)) {
			if (lo < 0)
				lo = b;
			hi = b;
		}
	if (lo < 0)
		snprintf(buf, n, "%s:?", names[f->field]);
	else if (lo == hi)
		snprintf(buf, n, "%s:%d", names[f->field], lo);
	else
		snprintf(buf, n, "%s:%d-%d", names[f->field], lo, hi);
}

void spe_print_pmu_filters(FILE *out)
{
	const struct pmu_table *t = pmu_table();
	for (size_t i = 0; i < t->n; i++) {
		const struct pmu *p = &t->p[i];
		if (!spe_pmu_name(p->name) || !p->nfmt)
			continue;
		struct spe_filter_row *rows = xcalloc(p->nfmt, sizeof(*rows));
		char (*fields)[40] = xcalloc(p->nfmt, sizeof(*fields));
		for (size_t k = 0; k < p->nfmt; k++) {
			const struct spe_term_info *in = spe_term_info(p->fmt[k].name);
			field_text(&p->fmt[k], fields[k], sizeof(fields[k]));
			rows[k].term = p->fmt[k].name;
			rows[k].alias = in ? in->alias : NULL;
			rows[k].field = p->fmt[k].bad ? p->fmt[k].bad : fields[k];
			rows[k].desc = in ? in->desc : NULL;
		}
		spe_print_filters(out, p->name, (long)p->type, rows, p->nfmt);
		free(fields);
		free(rows);
	}
}

/* The views of spe_out.h. */
void spe_print_view_script(FILE *f, const struct spe_view *v, bool json)
{
	if (json)
		spe_print_script_json(f, &v->d, &v->it);
	else
		spe_print_script(f, &v->d, &v->it);
}

void spe_print_view(FILE *f, struct spe_view *v, bool json)
{
	if (!v->have_rep) {
		spe_print_view_script(f, v, json);
		return;
	}
	if (json) {
		spe_print_report_json(f, &v->d, &v->rep, v->av, v->evsels);
		return;
	}
	spe_print_report(f, &v->d, &v->rep, v->rows);
	if (v->av)
		annotate_view_print(f, v->av, v->evsels);
}

/* WindowsPerf's sample/record view: per event, "top N hot functions" with overhead, count and
 * symbol:module ("unknown" for addresses no symbol covers). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/report_out.h"
#include "output/table.h"
#include "util/xalloc.h"

#define row report_wperf_row

static int cmp_rows(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(((const struct row *)a)->name, ((const struct row *)b)->name);
}

size_t report_wperf_rows(const struct report_section *s, const struct report_opts *o,
			 struct report_wperf_row **out)
{
	const struct hist *h = s->hist;
	struct row *rows = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < h->n; i++) {
		const struct hist_entry *e = h->v[i];
		char *name;
		if (e->sym)
			name = xasprintf("%s:%s", o->long_names && e->sym->mangled ? e->sym->mangled : e->sym->name,
					 hist_dso_name(e->dso));
		else
			name = xstrdup("unknown");
		ALLOC_GROW(rows, n + 1, cap);
		rows[n++] = (struct row){ name, e->samples, o->by_period ? e->period : e->samples };
	}
	/* Entries that name one function (other commands, threads, unresolved addresses) become one
	 * row: sorted by name, neighbours merge. */
	if (n > 1)
		qsort(rows, n, sizeof(*rows), cmp_names);
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (m && !strcmp(rows[m - 1].name, rows[i].name)) {
			rows[m - 1].count += rows[i].count;
			rows[m - 1].weight += rows[i].weight;
			free(rows[i].name);
		} else {
			rows[m++] = rows[i];
		}
	}
	n = m;
	if (n > 1)
		qsort(rows, n, sizeof(*rows), cmp_rows);
	*out = rows;
	return n;
}

double report_wperf_overhead(const struct report_section *s, const struct report_opts *o,
			     const struct report_wperf_row *r)
{
	uint64_t total = o->by_period ? s->hist->total_period : s->hist->total_samples;
	return total ? 100.0 * (double)r->weight / (double)total : 0.0;
}

void report_wperf(FILE *f, const struct report_section *s, const struct report_opts *o)
{
	const struct hist *h = s->hist;
	struct row *rows;
	size_t n = report_wperf_rows(s, o, &rows);
	size_t shown = o->max_rows && o->max_rows < n ? o->max_rows : n;
	fprintf(f, "======================== sample source: %s, top %zu hot functions ========================\n",
		s->event, o->max_rows ? o->max_rows : n);
	const char *cols[] = { ">overhead", ">count", "symbol" };
	struct table t;
	table_init(&t, 3, cols);
	t.indent = 8;
	t.underline = true;
	uint64_t total = o->by_period ? h->total_period : h->total_samples, sum = 0, wsum = 0;
	for (size_t i = 0; i < shown; i++) {
		char ov[32], cnt[32];
		snprintf(ov, sizeof(ov), "%.2f", report_wperf_overhead(s, o, &rows[i]));
		snprintf(cnt, sizeof(cnt), "%" PRIu64, rows[i].count);
		const char *cells[] = { ov, cnt, rows[i].name };
		table_row(&t, cells);
		sum += rows[i].count;
		wsum += rows[i].weight;
	}
	table_print(&t, f);
	table_free(&t);
	fprintf(f, "%6.2f%%  %8" PRIu64 "  top %zu in total\n\n", total ? 100.0 * (double)wsum / (double)total : 0.0,
		sum, shown);
	for (size_t i = 0; i < n; i++)
		free(rows[i].name);
	free(rows);
}

/* SPE analysis (see spe_stats.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spe/spe_stats.h"
#include "util/error.h"
#include "util/xalloc.h"

static const char *const kind_names[SPE_K_N] = {
	"l1d-miss", "l1d-access", "llc-miss", "llc-access", "tlb-miss", "tlb-access",
	"branch-miss", "remote-access", "memory", "instructions",
};

const char *spe_kind_name(enum spe_kind k)
{
	return k < SPE_K_N ? kind_names[k] : "?";
}

int spe_itrace_parse(const char *s, struct spe_itrace *it)
{
	memset(it, 0, sizeof(*it));
	it->period = 1;
	if (!s || !*s) {
		for (int k = 0; k < SPE_K_N; k++)
			it->kind[k] = k != SPE_K_INSTRUCTIONS;
		return 0;
	}
	it->given = true;
	for (const char *p = s; *p;) {
		char c = *p++;
		switch (c) {
		case 'i': it->kind[SPE_K_INSTRUCTIONS] = true; break;
		case 'f': it->kind[SPE_K_L1D_MISS] = it->kind[SPE_K_L1D_ACCESS] = true; break;
		case 'm': it->kind[SPE_K_LLC_MISS] = it->kind[SPE_K_LLC_ACCESS] = true; break;
		case 't': it->kind[SPE_K_TLB_MISS] = it->kind[SPE_K_TLB_ACCESS] = true; break;
		case 'b': it->kind[SPE_K_BRANCH_MISS] = true; break;
		case 'a': it->kind[SPE_K_REMOTE] = true; break;
		case 'M': it->kind[SPE_K_MEMORY] = true; break;
		case 'l': case 'o': case 'e': case 'd': case 'x': case 'w': case 'p': case 'c':
		case 'r': case 'g': case 'L': case 'y': case 'q': case 'A': case 'Z': case 's':
			return err_set("--itrace '%c': perf has it, but Arm SPE records produce no such "
				       "events (SPE: i, f, m, t, b, a, M)", c);
		default:
			if (isdigit((unsigned char)c)) {
				/* a period: digits then a unit; SPE counts instructions only */
				char *end;
				unsigned long long v = strtoull(p - 1, &end, 10);
				p = end;
				if (*p == 'i')
					p++;
				else if (*p)
					return err_set("--itrace period '%s': Arm SPE periods count "
						       "instructions (write it as 1i)", p - 1);
				it->period = v ? v : 1;
				break;
			}
			return err_set("--itrace: unknown option '%c' (SPE: i, f, m, t, b, a, M)", c);
		}
	}
	return 0;
}

unsigned spe_record_kinds(const struct spe_record *r, const struct spe_itrace *it)
{
	uint64_t e = r->events;
	unsigned m = 0;
#define EV(b) ((e >> (b)) & 1)
	if (EV(SPE_EV_L1D_REFILL))
		m |= 1u << SPE_K_L1D_MISS;
	if (EV(SPE_EV_L1D_ACCESS))
		m |= 1u << SPE_K_L1D_ACCESS;
	if (EV(SPE_EV_LLC_MISS))
		m |= 1u << SPE_K_LLC_MISS;
	if (EV(SPE_EV_LLC_ACCESS))
		m |= 1u << SPE_K_LLC_ACCESS;
	if (EV(SPE_EV_TLB_WALK))
		m |= 1u << SPE_K_TLB_MISS;
	if (EV(SPE_EV_TLB_ACCESS))
		m |= 1u << SPE_K_TLB_ACCESS;
	if (EV(SPE_EV_REMOTE))
		m |= 1u << SPE_K_REMOTE;
	if (m)
		m |= 1u << SPE_K_MEMORY; /* perf: any cache, TLB or remote event is a memory event */
	if (EV(SPE_EV_MISPRED))
		m |= 1u << SPE_K_BRANCH_MISS;
#undef EV
	m |= 1u << SPE_K_INSTRUCTIONS;
	unsigned sel = 0;
	for (int k = 0; k < SPE_K_N; k++)
		if (it->kind[k])
			sel |= 1u << k;
	return m & sel;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* nearest rank: the smallest value with at least p% of the values at or below it */
static uint32_t rank(const uint32_t *v, size_t n, unsigned p)
{
	size_t k = (n * p + 99) / 100;
	return v[k ? k - 1 : 0];
}

void spe_lat_of(uint32_t *v, size_t n, struct spe_lat *out)
{
	memset(out, 0, sizeof(*out));
	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_u32);
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	out->n = n;
	out->mean = sum / (double)n;
	out->p50 = rank(v, n, 50);
	out->p90 = rank(v, n, 90);
	out->p99 = rank(v, n, 99);
	out->max = v[n - 1];
}

/* Selected samples, sorted by a key; groups are runs of equal keys. */
struct sel {
	const struct spe_sample *s;
	char key[160];
	uint64_t k64;
};

static int cmp_key(const void *a, const void *b)
{
	const struct sel *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	return c ? c : (x->k64 < y->k64 ? -1 : x->k64 > y->k64);
}

static int cmp_k64(const void *a, const void *b)
{
	const struct sel *x = a, *y = b;
	return x->k64 < y->k64 ? -1 : x->k64 > y->k64;
}

static void sym_key(const struct spe_sample *s, char *buf, size_t n)
{
	snprintf(buf, n, "%s\x1f%s", s->sym ? s->sym : "", s->dso ? s->dso : "");
}

/* Latency rows per symbol over sel[0..n) (any order); sorted by count. */
static struct spe_sym_row *sym_rows(struct sel *v, size_t n, size_t *nrows)
{
	for (size_t i = 0; i < n; i++) {
		sym_key(v[i].s, v[i].key, sizeof(v[i].key));
		v[i].k64 = 0;
	}
	qsort(v, n, sizeof(*v), cmp_key);
	struct spe_sym_row *rows = xcalloc(n ? n : 1, sizeof(*rows));
	uint32_t *a = xcalloc(n ? n : 1, sizeof(*a)), *b = xcalloc(n ? n : 1, sizeof(*b)),
		 *c = xcalloc(n ? n : 1, sizeof(*c));
	size_t nr = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i, na = 0, nb = 0, nc = 0;
		while (j < n && !strcmp(v[j].key, v[i].key)) {
			const struct spe_record *r = &v[j].s->r;
			if (r->valid & SPE_HAS_LAT_TOTAL)
				a[na++] = r->lat_total;
			if (r->valid & SPE_HAS_LAT_ISSUE)
				b[nb++] = r->lat_issue;
			if (r->valid & SPE_HAS_LAT_XLAT)
				c[nc++] = r->lat_xlat;
			j++;
		}
		struct spe_sym_row *row = &rows[nr++];
		row->sym = v[i].s->sym;
		row->dso = v[i].s->dso;
		row->n = j - i;
		spe_lat_of(a, na, &row->tot);
		spe_lat_of(b, nb, &row->iss);
		spe_lat_of(c, nc, &row->xlat);
		i = j;
	}
	free(a);
	free(b);
	free(c);
	/* by count, then by name for a stable order */
	for (size_t i = 1; i < nr; i++) {
		struct spe_sym_row t = rows[i];
		size_t j = i;
		while (j > 0 && rows[j - 1].n < t.n)
			rows[j] = rows[j - 1], j--;
		rows[j] = t;
	}
	*nrows = nr;
	return rows;
}

static void build_sources(struct sel *v, size_t n, struct spe_report *out)
{
	for (size_t i = 0; i < n; i++) {
		char op[64], ev[96];
		const struct spe_record *r = &v[i].s->r;
		if (r->valid & SPE_HAS_OP)
			spe_op_name(r->op_class, r->op, op, sizeof(op));
		else
			snprintf(op, sizeof(op), "UNKNOWN");
		spe_events_str(r->events, ev, sizeof(ev));
		snprintf(v[i].key, sizeof(v[i].key), "%s/%s", op, ev);
	}
	qsort(v, n, sizeof(*v), cmp_key);
	out->src = xcalloc(n ? n : 1, sizeof(*out->src));
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && !strcmp(v[j].key, v[i].key))
			j++;
		struct spe_source *g = &out->src[out->nsrc++];
		snprintf(g->key, sizeof(g->key), "%s", v[i].key);
		g->n = j - i;
		g->rows = sym_rows(v + i, j - i, &g->nrows);
		i = j;
	}
	for (size_t i = 1; i < out->nsrc; i++) {
		struct spe_source t = out->src[i];
		size_t j = i;
		while (j > 0 && out->src[j - 1].n < t.n)
			out->src[j] = out->src[j - 1], j--;
		out->src[j] = t;
	}
}

static void build_ds(struct sel *v, size_t n, struct spe_report *out, bool by_line)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		const struct spe_record *r = &v[i].s->r;
		if (by_line ? !(r->valid & SPE_HAS_VA) : !(r->valid & SPE_HAS_DS))
			continue;
		v[m] = v[i];
		v[m].k64 = by_line ? (r->data_va & ~63ULL) : r->data_source;
		m++;
	}
	qsort(v, m, sizeof(*v), cmp_k64);
	uint32_t *lat = xcalloc(m ? m : 1, sizeof(*lat));
	for (size_t i = 0; i < m;) {
		size_t j = i, nl = 0;
		uint64_t loads = 0, stores = 0;
		while (j < m && v[j].k64 == v[i].k64) {
			const struct spe_record *r = &v[j].s->r;
			if (r->valid & SPE_HAS_LAT_TOTAL)
				lat[nl++] = r->lat_total;
			if (r->op_class == SPE_OP_LDST)
				(r->op & 1) ? stores++ : loads++;
			j++;
		}
		if (by_line) {
			out->lines = xrealloc(out->lines, (out->nlines + 1) * sizeof(*out->lines));
			struct spe_line_row *l = &out->lines[out->nlines++];
			memset(l, 0, sizeof(*l));
			l->line = v[i].k64;
			l->n = j - i;
			l->loads = loads;
			l->stores = stores;
			spe_lat_of(lat, nl, &l->tot);
			size_t nr;
			struct spe_sym_row *rows = sym_rows(v + i, j - i, &nr);
			l->top_sym = rows[0].sym;
			l->top_n = rows[0].n;
			free(rows);
		} else {
			out->ds = xrealloc(out->ds, (out->nds + 1) * sizeof(*out->ds));
			struct spe_ds_row *d = &out->ds[out->nds++];
			memset(d, 0, sizeof(*d));
			d->ds = v[i].k64;
			d->name = spe_data_source_name(d->ds);
			d->n = j - i;
			d->loads = loads;
			d->stores = stores;
			spe_lat_of(lat, nl, &d->tot);
		}
		i = j;
	}
	free(lat);
}

static int cmp_line_n(const void *a, const void *b)
{
	const struct spe_line_row *x = a, *y = b;
	if (x->n != y->n)
		return x->n > y->n ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

void spe_report_build(const struct spe_data *d, const struct spe_itrace *it, struct spe_report *out)
{
	memset(out, 0, sizeof(*out));
	struct sel *v = xcalloc(d->n ? d->n : 1, sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; i < d->n; i++)
		if (!it->given || spe_record_kinds(&d->v[i].r, it))
			v[n++].s = &d->v[i];
	out->total = n;
	build_sources(v, n, out);
	out->syms = sym_rows(v, n, &out->nsyms);
	build_ds(v, n, out, false);
	/* build_ds compacts v: rebuild the selection for the cache-line view */
	n = 0;
	for (size_t i = 0; i < d->n; i++)
		if (!it->given || spe_record_kinds(&d->v[i].r, it))
			v[n++].s = &d->v[i];
	build_ds(v, n, out, true);
	if (out->nlines)
		qsort(out->lines, out->nlines, sizeof(*out->lines), cmp_line_n);
	free(v);
}

void spe_report_free(struct spe_report *r)
{
	for (size_t i = 0; i < r->nsrc; i++)
		free(r->src[i].rows);
	free(r->src);
	free(r->syms);
	free(r->ds);
	free(r->lines);
	memset(r, 0, sizeof(*r));
}

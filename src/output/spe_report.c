/* SPE report and script renderers: text (WindowsPerf's "sample source" tables, then lperf's
 * latency, data-source and cache-line views), JSON (docs/schemas/spe-report.schema.json), and
 * script lines (one per record, or perf's one per synthesised event with --itrace). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "output/json.h"
#include "output/annotate_out.h"
#include "output/spe_out.h"
#include "output/table.h"

static const char *base(const char *path)
{
	if (!path)
		return "[unknown]";
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static const char *symname(const char *sym)
{
	return sym ? sym : "[unknown]";
}

static void header(FILE *f, const struct spe_data *d, const struct spe_report *r)
{
	fprintf(f, "# Arm SPE: %zu records (%" PRIu64 " selected) in %" PRIu64 " AUX buffers, %" PRIu64
		" bytes; SPE PMU type %u\n", d->n, r->total, d->buffers, d->bytes, d->info.pmu_type);
	if (d->errors || d->truncated || d->aux_truncated || d->aux_collision)
		fprintf(f, "# %" PRIu64 " malformed packets (%" PRIu64 " bytes skipped), %" PRIu64
			" buffers ending inside a record, %" PRIu64 " truncated and %" PRIu64
			" collided AUX records\n", d->errors, d->skipped, d->truncated,
			d->aux_truncated, d->aux_collision);
}

static void sources(FILE *f, const struct spe_report *r, size_t rows)
{
	for (size_t g = 0; g < r->nsrc; g++) {
		const struct spe_source *s = &r->src[g];
		fprintf(f, "\n======================== sample source: %s, top %zu hot functions "
			"========================\n", s->key, rows);
		const char *cols[] = { ">overhead", ">count", "symbol" };
		struct table t;
		table_init(&t, 3, cols);
		t.indent = 8;
		t.underline = false;
		for (size_t i = 0; i < s->nrows && i < rows; i++) {
			char pct[32], cnt[32], sym[512];
			snprintf(pct, sizeof(pct), "%.2f", 100.0 * (double)s->rows[i].n / (double)s->n);
			snprintf(cnt, sizeof(cnt), "%" PRIu64, s->rows[i].n);
			snprintf(sym, sizeof(sym), "%s:%s", symname(s->rows[i].sym), base(s->rows[i].dso));
			const char *cells[] = { pct, cnt, sym };
			table_row(&t, cells);
		}
		table_print(&t, f);
		table_free(&t);
	}
}

static void lat_cells(const struct spe_lat *l, char (*c)[24])
{
	if (!l->n) {
		for (int i = 0; i < 5; i++)
			snprintf(c[i], 24, "-");
		return;
	}
	snprintf(c[0], 24, "%.1f", l->mean);
	snprintf(c[1], 24, "%u", l->p50);
	snprintf(c[2], 24, "%u", l->p90);
	snprintf(c[3], 24, "%u", l->p99);
	snprintf(c[4], 24, "%u", l->max);
}

static void latency(FILE *f, const struct spe_report *r, size_t rows)
{
	fprintf(f, "\n# Latency per symbol, cycles (total: issue to complete; issue: dispatch to "
		"issue; xlat: address translation)\n");
	const char *cols[] = { ">count", ">tot.mean", ">p50", ">p90", ">p99", ">max", ">iss.mean",
			       ">p50", ">p99", ">xlat.mean", ">p50", ">p99", ">max", "symbol" };
	struct table t;
	table_init(&t, 14, cols);
	t.indent = 8;
	for (size_t i = 0; i < r->nsyms && i < rows; i++) {
		const struct spe_sym_row *s = &r->syms[i];
		char cnt[32], tc[5][24], ic[5][24], xc[5][24], sym[512];
		snprintf(cnt, sizeof(cnt), "%" PRIu64, s->n);
		lat_cells(&s->tot, tc);
		lat_cells(&s->iss, ic);
		lat_cells(&s->xlat, xc);
		snprintf(sym, sizeof(sym), "%s:%s", symname(s->sym), base(s->dso));
		const char *cells[] = { cnt, tc[0], tc[1], tc[2], tc[3], tc[4], ic[0], ic[1], ic[3],
					xc[0], xc[1], xc[3], xc[4], sym };
		table_row(&t, cells);
	}
	table_print(&t, f);
	table_free(&t);
}

static void data_sources(FILE *f, const struct spe_report *r)
{
	if (!r->nds)
		return;
	fprintf(f, "\n# Data sources (IMPLEMENTATION DEFINED values; names are Arm Neoverse's), "
		"total latency in cycles\n");
	const char *cols[] = { "source", ">value", ">count", ">loads", ">stores", ">mean", ">p50",
			       ">p90", ">p99", ">max" };
	struct table t;
	table_init(&t, 10, cols);
	t.indent = 8;
	for (size_t i = 0; i < r->nds; i++) {
		const struct spe_ds_row *d = &r->ds[i];
		char val[32], cnt[32], ld[32], st[32], c[5][24];
		snprintf(val, sizeof(val), "%#" PRIx64, d->ds);
		snprintf(cnt, sizeof(cnt), "%" PRIu64, d->n);
		snprintf(ld, sizeof(ld), "%" PRIu64, d->loads);
		snprintf(st, sizeof(st), "%" PRIu64, d->stores);
		lat_cells(&d->tot, c);
		const char *cells[] = { d->name ? d->name : "?", val, cnt, ld, st, c[0], c[1], c[2],
					c[3], c[4] };
		table_row(&t, cells);
	}
	table_print(&t, f);
	table_free(&t);
}

static void cache_lines(FILE *f, const struct spe_report *r, size_t rows)
{
	if (!r->nlines)
		return;
	fprintf(f, "\n# Hot data addresses by 64-byte cache line\n");
	const char *cols[] = { "cache line", ">count", ">loads", ">stores", ">lat.mean", ">max",
			       "top symbol" };
	struct table t;
	table_init(&t, 7, cols);
	t.indent = 8;
	for (size_t i = 0; i < r->nlines && i < rows; i++) {
		const struct spe_line_row *l = &r->lines[i];
		char line[32], cnt[32], ld[32], st[32], c[5][24], top[512];
		snprintf(line, sizeof(line), "%#" PRIx64, l->line);
		snprintf(cnt, sizeof(cnt), "%" PRIu64, l->n);
		snprintf(ld, sizeof(ld), "%" PRIu64, l->loads);
		snprintf(st, sizeof(st), "%" PRIu64, l->stores);
		lat_cells(&l->tot, c);
		snprintf(top, sizeof(top), "%s (%" PRIu64 ")", symname(l->top_sym), l->top_n);
		const char *cells[] = { line, cnt, ld, st, c[0], c[4], top };
		table_row(&t, cells);
	}
	table_print(&t, f);
	table_free(&t);
}

void spe_print_report(FILE *f, const struct spe_data *d, const struct spe_report *r, size_t rows)
{
	header(f, d, r);
	sources(f, r, rows);
	latency(f, r, rows);
	data_sources(f, r);
	cache_lines(f, r, rows);
}

static void json_lat(struct json *j, const char *key, const struct spe_lat *l)
{
	if (!l->n) {
		json_null(j, key);
		return;
	}
	json_begin_object(j, key);
	json_u64(j, "n", l->n);
	json_double(j, "mean", l->mean);
	json_u64(j, "p50", l->p50);
	json_u64(j, "p90", l->p90);
	json_u64(j, "p99", l->p99);
	json_u64(j, "max", l->max);
	json_end_object(j);
}

static void json_sym(struct json *j, const struct spe_sym_row *s)
{
	json_begin_object(j, NULL);
	json_str(j, "symbol", s->sym);
	json_str(j, "dso", s->dso);
	json_u64(j, "count", s->n);
	json_lat(j, "total", &s->tot);
	json_lat(j, "issue", &s->iss);
	json_lat(j, "translation", &s->xlat);
	json_end_object(j);
}

void spe_json_summary(struct json *j, const struct spe_data *d, const uint64_t *selected)
{
	json_begin_object(j, "spe");
	json_u64(j, "pmu_type", d->info.pmu_type);
	json_u64(j, "records", d->n);
	if (selected)
		json_u64(j, "selected", *selected);
	json_u64(j, "buffers", d->buffers);
	json_u64(j, "bytes", d->bytes);
	json_u64(j, "malformed_packets", d->errors);
	json_u64(j, "truncated_buffers", d->truncated);
	json_u64(j, "aux_truncated", d->aux_truncated);
	json_end_object(j);
}

void spe_print_report_json(FILE *f, const struct spe_data *d, const struct spe_report *r,
			   struct annot_view *av, const struct evsel_set *evsels)
{
	struct json j;
	json_init(&j, f, true);
	json_begin_object(&j, NULL);
	spe_json_summary(&j, d, &r->total);
	json_begin_array(&j, "sample_sources");
	for (size_t g = 0; g < r->nsrc; g++) {
		json_begin_object(&j, NULL);
		json_str(&j, "source", r->src[g].key);
		json_u64(&j, "count", r->src[g].n);
		json_begin_array(&j, "symbols");
		for (size_t i = 0; i < r->src[g].nrows; i++)
			json_sym(&j, &r->src[g].rows[i]);
		json_end_array(&j);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_begin_array(&j, "latency");
	for (size_t i = 0; i < r->nsyms; i++)
		json_sym(&j, &r->syms[i]);
	json_end_array(&j);
	json_begin_array(&j, "data_sources");
	for (size_t i = 0; i < r->nds; i++) {
		json_begin_object(&j, NULL);
		json_u64(&j, "value", r->ds[i].ds);
		json_str(&j, "name", r->ds[i].name);
		json_u64(&j, "count", r->ds[i].n);
		json_u64(&j, "loads", r->ds[i].loads);
		json_u64(&j, "stores", r->ds[i].stores);
		json_lat(&j, "total", &r->ds[i].tot);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_begin_array(&j, "cache_lines");
	for (size_t i = 0; i < r->nlines; i++) {
		json_begin_object(&j, NULL);
		json_u64(&j, "line", r->lines[i].line);
		json_u64(&j, "count", r->lines[i].n);
		json_u64(&j, "loads", r->lines[i].loads);
		json_u64(&j, "stores", r->lines[i].stores);
		json_lat(&j, "total", &r->lines[i].tot);
		json_str(&j, "top_symbol", r->lines[i].top_sym);
		json_end_object(&j);
	}
	json_end_array(&j);
	if (av)
		annotate_view_json(&j, av, evsels, -1, false);
	json_end_object(&j);
	json_finish(&j);
}


static void where(FILE *f, const struct spe_sample *s)
{
	fprintf(f, "%16" PRIx64 " %s", s->r.pc, symname(s->sym));
	if (s->sym)
		fprintf(f, "+0x%" PRIx64, s->sym_off);
	fprintf(f, " (%s)", s->dso ? s->dso : "[unknown]");
}

/* The decoded fields of one record: op, events, latencies, addresses, source. */
static void fields(FILE *f, const struct spe_record *r)
{
	char op[64], ev[256];
	if (r->valid & SPE_HAS_OP)
		fprintf(f, " op=%s", spe_op_name(r->op_class, r->op, op, sizeof(op)));
	fprintf(f, " ev=%s", spe_events_str(r->events, ev, sizeof(ev)));
	if (r->valid & SPE_HAS_LAT_TOTAL)
		fprintf(f, " tot=%u", r->lat_total);
	if (r->valid & SPE_HAS_LAT_ISSUE)
		fprintf(f, " issue=%u", r->lat_issue);
	if (r->valid & SPE_HAS_LAT_XLAT)
		fprintf(f, " xlat=%u", r->lat_xlat);
	if (r->valid & SPE_HAS_VA)
		fprintf(f, " va=%#" PRIx64, r->data_va);
	if (r->valid & SPE_HAS_PA)
		fprintf(f, " pa=%#" PRIx64, r->data_pa);
	if (r->valid & SPE_HAS_DS) {
		const char *n = spe_data_source_name(r->data_source);
		fprintf(f, " ds=%s(%#" PRIx64 ")", n ? n : "?", r->data_source);
	}
	if (r->valid & SPE_HAS_BR_TGT)
		fprintf(f, " target=%#" PRIx64, r->br_target);
	if (r->valid & SPE_HAS_PREV_BR)
		fprintf(f, " prev=%#" PRIx64, r->prev_branch);
	if (r->valid & SPE_HAS_TS)
		fprintf(f, " ts=%" PRIu64, r->timestamp);
	fprintf(f, " el=%u", r->el);
}

void spe_print_script(FILE *f, const struct spe_data *d, const struct spe_itrace *it)
{
	uint64_t insn = 0;
	for (size_t i = 0; i < d->n; i++) {
		const struct spe_sample *s = &d->v[i];
		if (!it->given) {
			fprintf(f, "%16s %6u [%03u] ", s->comm, s->tid, s->cpu);
			where(f, s);
			fields(f, &s->r);
			fputc('\n', f);
			continue;
		}
		unsigned kinds = spe_record_kinds(&s->r, it);
		for (int k = 0; k < SPE_K_N; k++) {
			if (!(kinds & (1u << k)))
				continue;
			if (k == SPE_K_INSTRUCTIONS && insn++ % it->period)
				continue;
			fprintf(f, "%16s %6u [%03u] %10" PRIu64 " %24s: ", s->comm, s->tid, s->cpu,
				k == SPE_K_INSTRUCTIONS ? it->period : 1, spe_kind_name((enum spe_kind)k));
			where(f, s);
			fields(f, &s->r);
			fputc('\n', f);
		}
	}
}

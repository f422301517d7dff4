#include <math.h>
#include <stdio.h>
#include <string.h>

#include "output/stat_out.h"
#include "output/table.h"
#include "util/xalloc.h"

static const char *fmt_value(const struct stat_result *r, size_t e, const struct stat_value *v,
			     bool big, char *buf, size_t size)
{
	if (v->status == COUNTER_NOT_SUPPORTED)
		return "<not supported>";
	if (v->status == COUNTER_NOT_COUNTED && r->evl->ev[e].source != EV_SRC_TOOL)
		return "<not counted>";
	double x = statout_display_value(r, e, v);
	if (statout_is_clock(&r->evl->ev[e])) {
		snprintf(buf, size, "%.2f", x);
		return buf;
	}
	if (big)
		return fmt_thousands((unsigned long long)llround(x), buf, size);
	snprintf(buf, size, "%.0f", x);
	return buf;
}

static void fmt_metric(double v, char *buf, size_t size)
{
	if (!isfinite(v))
		snprintf(buf, size, "n/a");
	else if (fabs(v) >= 100)
		snprintf(buf, size, "%.2f", v);
	else
		snprintf(buf, size, "%.3f", v);
}

/* One events table for CPU column col (or the totals when col < 0). Returns the number of
 * unsupported events, whose reasons are printed as notes. */
static void events_table(FILE *f, const struct stat_result *r, const struct statout_opts *o, long col)
{
	bool mux = stat_multiplexed(r);
	bool runs = r->runs > 1;
	const char *cols_plain[] = { ">counter value", "unit", "event", "note" };
	const char *cols_mux[] = { ">counter value", "unit", "event", "note", ">running", ">scaled value" };
	const char *cols_runs[] = { ">counter value", "unit", "event", "note", ">+- stddev" };
	struct table t;
	if (mux)
		table_init(&t, 6, cols_mux);
	else if (runs)
		table_init(&t, 5, cols_runs);
	else
		table_init(&t, 4, cols_plain);
	t.indent = 8;
	t.underline = true;
	for (size_t e = 0; e < r->nev; e++) {
		const struct ev *ev = &r->evl->ev[e];
		const struct stat_value *v = col < 0 ? &r->ev[e].total : &r->ev[e].cpu[col];
		char val[64], note[128], run[32] = "", scaled[64] = "", dev[32] = "";
		struct stat_value shown = *v;
		if (runs && col < 0)
			shown.scaled = r->ev[e].mean;
		statout_note(ev, note, sizeof(note));
		const char *vs;
		if (mux && v->status == COUNTER_MULTIPLEXED) {
			/* The raw count, then the estimate over the whole enabled time. */
			struct stat_value raw = *v;
			raw.scaled = (double)v->raw.val;
			vs = fmt_value(r, e, &raw, o->big_num, val, sizeof(val));
			fmt_value(r, e, v, o->big_num, scaled, sizeof(scaled));
			snprintf(run, sizeof(run), "%.2f%%",
				 v->raw.ena ? 100.0 * (double)v->raw.run / (double)v->raw.ena : 0.0);
		} else {
			vs = fmt_value(r, e, &shown, o->big_num, val, sizeof(val));
			if (mux && v->status == COUNTER_COUNTED) {
				snprintf(run, sizeof(run), "100.00%%");
				snprintf(scaled, sizeof(scaled), "%s", vs);
			}
		}
		if (runs && col < 0 && v->status != COUNTER_NOT_SUPPORTED)
			snprintf(dev, sizeof(dev), "( +- %5.2f%% )",
				 stat_rel_stddev(r->ev[e].mean, r->ev[e].m2, r->runs));
		const char *cells[6] = { vs, statout_unit(ev), ev->name, note, mux ? run : dev, scaled };
		table_row(&t, cells);
	}
	table_print(&t, f);
	table_free(&t);
}

static void metrics_table(FILE *f, const struct stat_result *r, const struct statout_opts *o)
{
	if (!r->nmet)
		return;
	bool per = o->per_cpu && r->ncpus > 1;
	const char *cols[] = { ">cpu", "metric", ">value", "unit", "formula" };
	struct table t;
	size_t skip = per ? 0 : 1;
	size_t n = o->show_formula ? 5 : 4;
	table_init(&t, n - skip, cols + skip);
	t.indent = 8;
	t.underline = true;
	for (size_t i = 0; i < r->nmet; i++) {
		const struct stat_metric *sm = &r->met[i];
		if (!sm->m->formula)
			continue;
		char val[64], cpu[16];
		for (size_t col = 0; per && col < r->ncpus; col++) {
			fmt_metric(sm->cpu[col], val, sizeof(val));
			snprintf(cpu, sizeof(cpu), "%d", r->cpus[col]);
			const char *cells[] = { cpu, sm->m->name, val, sm->m->unit ? sm->m->unit : "",
						sm->m->formula };
			table_row(&t, cells + skip);
		}
		fmt_metric(sm->total, val, sizeof(val));
		const char *cells[] = { "all", sm->m->name, val, sm->m->unit ? sm->m->unit : "", sm->m->formula };
		table_row(&t, cells + skip);
	}
	if (t.nrows) {
		fprintf(f, "\n Metrics:\n\n");
		table_print(&t, f);
	}
	table_free(&t);
}

static void notes(FILE *f, const struct stat_result *r)
{
	bool any_group = false, any_metric = false, any_why = false;
	for (size_t e = 0; e < r->nev; e++) {
		any_group |= r->evl->ev[e].group >= 0;
		any_metric |= r->evl->ev[e].metric != NULL;
		any_why |= r->why[e] != NULL;
	}
	if (any_group || any_metric || any_why || stat_multiplexed(r))
		fputc('\n', f);
	if (any_group || any_metric)
		fprintf(f, "note: 'e' - normal event, 'gN' - grouped event with group number N, metric "
			   "name appended if 'e' or 'g' comes from it\n");
	for (size_t e = 0; e < r->nev; e++)
		if (r->why[e])
			fprintf(f, "note: %s\n", r->why[e]);
	if (stat_multiplexed(r))
		fprintf(f, "note: more events than counters: the kernel multiplexed them; 'running' is the "
			   "share of time each was counted and 'scaled value' estimates the full count\n");
}

static void times(FILE *f, const struct stat_result *r)
{
	fputc('\n', f);
	if (r->runs > 1)
		fprintf(f, "%18.9f +- %.9f seconds time elapsed  ( +- %5.2f%% )\n", r->dur_mean,
			r->runs > 1 ? sqrt(r->dur_m2 / (r->runs - 1)) : 0.0,
			stat_rel_stddev(r->dur_mean, r->dur_m2, r->runs));
	else
		fprintf(f, "%18.9f seconds time elapsed\n", r->duration);
	if (r->user_s >= 0) {
		fprintf(f, "\n%18.9f seconds user\n", r->user_s);
		fprintf(f, "%18.9f seconds sys\n", r->sys_s);
	}
}

void statout_text(FILE *f, const struct stat_result *r, const struct statout_opts *o)
{
	fprintf(f, "\n Performance counter stats for %s (%s mode%s)", o->target, o->modes,
		strchr(o->modes, ' ') ? "s" : "");
	if (r->runs > 1)
		fprintf(f, " (%d runs)", r->runs);
	fprintf(f, ":\n\n");
	if (o->per_cpu && r->ncpus > 1) {
		for (size_t col = 0; col < r->ncpus; col++) {
			fprintf(f, " CPU %d:\n", r->cpus[col]);
			events_table(f, r, o, (long)col);
			fputc('\n', f);
		}
		fprintf(f, " System-wide overall:\n");
	}
	events_table(f, r, o, -1);
	metrics_table(f, r, o);
	times(f, r);
	notes(f, r);
	fflush(f);
}

void statout_text_interval(FILE *f, const struct stat_result *r, const struct statout_opts *o,
			   bool header)
{
	bool per = o->per_cpu && r->ncpus > 1;
	if (header) {
		if (per)
			fprintf(f, "#%14s %6s %18s %-5s %s\n", "time", "cpu", "counts", "unit", "events");
		else
			fprintf(f, "#%14s %18s %-5s %s\n", "time", "counts", "unit", "events");
	}
	for (size_t e = 0; e < r->nev; e++) {
		const struct ev *ev = &r->evl->ev[e];
		char val[64];
		for (long col = per ? 0 : -1; col < (per ? (long)r->ncpus : 0); col++) {
			const struct stat_value *v = col < 0 ? &r->ev[e].total : &r->ev[e].cpu[col];
			const char *vs = fmt_value(r, e, v, o->big_num, val, sizeof(val));
			if (per)
				fprintf(f, "%15.6f %6d %18s %-5s %s\n", r->timestamp, r->cpus[col], vs,
					statout_unit(ev), ev->name);
			else
				fprintf(f, "%15.6f %18s %-5s %s\n", r->timestamp, vs, statout_unit(ev), ev->name);
		}
	}
	for (size_t i = 0; i < r->nmet; i++) {
		const struct stat_metric *sm = &r->met[i];
		if (!sm->m->formula)
			continue;
		char val[64];
		fmt_metric(sm->total, val, sizeof(val));
		if (per)
			fprintf(f, "%15.6f %6s %18s %-5s %s (%s)\n", r->timestamp, "all", val, "", sm->m->name,
				sm->m->unit ? sm->m->unit : "");
		else
			fprintf(f, "%15.6f %18s %-5s %s (%s)\n", r->timestamp, val, "", sm->m->name,
				sm->m->unit ? sm->m->unit : "");
	}
	fflush(f);
}

void statout_dry_run(FILE *f, const struct evlist *l)
{
	const char *cols[] = { "event", "pmu", ">type", ">config", ">config1", ">config2", "modifiers",
			       "group", ">period", "encoding" };
	struct table t;
	table_init(&t, ARRAY_SIZE(cols), cols);
	t.indent = 8;
	t.underline = true;
	for (size_t e = 0; e < l->n; e++) {
		const struct ev *ev = &l->ev[e];
		const struct perf_event_attr *a = &ev->attr;
		char type[16], c0[32], c1[32], c2[32], mods[16] = "", group[48], period[32];
		snprintf(type, sizeof(type), "%u", a->type);
		snprintf(c0, sizeof(c0), "%#llx", (unsigned long long)a->config);
		snprintf(c1, sizeof(c1), "%#llx", (unsigned long long)a->config1);
		snprintf(c2, sizeof(c2), "%#llx", (unsigned long long)a->config2);
		if (!a->exclude_user)
			strcat(mods, "u");
		if (!a->exclude_kernel)
			strcat(mods, "k");
		if (!a->exclude_hv)
			strcat(mods, "h");
		if (ev->group >= 0)
			snprintf(group, sizeof(group), "g%d%s", ev->group, ev->leader == e ? " (leader)" : "");
		else
			snprintf(group, sizeof(group), "-");
		snprintf(period, sizeof(period), "%llu", (unsigned long long)ev->period);
		const char *cells[] = { ev->name, ev->pmu ? ev->pmu : "", type, c0, c1, c2, mods, group,
					ev->period ? period : "-", ev->encoding ? ev->encoding : "" };
		table_row(&t, cells);
	}
	fprintf(f, "\n Events resolved (nothing opened):\n\n");
	table_print(&t, f);
	table_free(&t);
}

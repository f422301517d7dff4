/* perf stat's text, CSV and JSON-lines layouts. See stat_perf.h. */
#include "output/stat_perf.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/stat_out.h"
#include "stat/stat_shadow.h"
#include "util/xalloc.h"

/* A row's extra line for a -M metric, or its shadow metric. */
struct row {
	const struct stat_result *r;
	const struct statperf_opts *o;
	const struct stat_aggr_unit *u;
	size_t e;
	struct stat_value v;
	bool have;                 /* counted: a number to show */
	double shown;              /* in display units (msec, ns, count) */
};

static const char *value_label(const struct stat_value *v)
{
	return v->status == COUNTER_NOT_SUPPORTED ? "<not supported>" : "<not counted>";
}

/* perf's number: two decimals for a scaled unit (msec), none for counts. */
static void fmt_value(char *buf, size_t size, const struct ev *ev, double x, bool big, int width)
{
	bool whole = !stat_ev_is_clock(ev);
	if (big)
		snprintf(buf, size, whole ? "%'*.0f" : "%'*.2f", width, x);
	else
		snprintf(buf, size, whole ? "%*.0f" : "%*.2f", width, x);
}

static void fmt_shadow(char *buf, size_t size, const struct stat_shadow *s)
{
	switch (s->kind) {
	case STAT_SHADOW_IPC:
		snprintf(buf, size, "%7.2f ", s->value);
		break;
	case STAT_SHADOW_PERCENT:
		snprintf(buf, size, "%7.2f%%", s->value);
		break;
	default:
		snprintf(buf, size, "%8.3f", s->value);
		break;
	}
}

static const char *trim(const char *s)
{
	while (*s == ' ')
		s++;
	return s;
}

static void unit_id(char *buf, size_t size, const struct statperf_opts *o, const struct stat_result *r,
		    const struct stat_aggr_unit *u)
{
	const struct stat_cpu_topo *t = &u->id;
	switch (o->aggr) {
	case STAT_AGGR_CORE:
		snprintf(buf, size, "S%d-D%d-C%d", t->socket, t->die, t->core);
		break;
	case STAT_AGGR_DIE:
		snprintf(buf, size, "S%d-D%d", t->socket, t->die);
		break;
	case STAT_AGGR_SOCKET:
		snprintf(buf, size, "S%d", t->socket);
		break;
	case STAT_AGGR_NODE:
		snprintf(buf, size, "N%d", t->node);
		break;
	case STAT_AGGR_THREAD:
		snprintf(buf, size, "%s", r->tnames ? r->tnames[u->cols[0]] : "-1");
		break;
	default:
		snprintf(buf, size, "%d", u->cpu);
		break;
	}
}

/* How many CPUs perf says the unit aggregates (1 for an event not opened). */
static unsigned unit_nr(const struct row *w)
{
	return w->v.status == COUNTER_NOT_SUPPORTED ? 1 : (unsigned)w->u->ncols;
}

static void text_prefix(FILE *f, const struct row *w)
{
	const struct statperf_opts *o = w->o;
	char id[64];
	unit_id(id, sizeof(id), o, w->r, w->u);
	switch (o->aggr) {
	case STAT_AGGR_NONE:
		fprintf(f, "CPU%-7d ", w->u->cpu);
		break;
	case STAT_AGGR_CORE:
		fprintf(f, "%-15s %4u ", id, unit_nr(w));
		break;
	case STAT_AGGR_DIE:
		fprintf(f, "%-12s %4u ", id, unit_nr(w));
		break;
	case STAT_AGGR_SOCKET:
	case STAT_AGGR_NODE:
		fprintf(f, "%-6s %4u ", id, unit_nr(w));
		break;
	case STAT_AGGR_THREAD: {
		const char *dash = strrchr(id, '-');
		int n = dash ? (int)(dash - id) : (int)strlen(id);
		fprintf(f, "%16.*s-%-8s ", n, id, dash ? dash + 1 : "");
		break;
	}
	default:
		break;
	}
}

static void csv_prefix(FILE *f, const struct row *w)
{
	const struct statperf_opts *o = w->o;
	const char *s = o->sep;
	char id[64];
	unit_id(id, sizeof(id), o, w->r, w->u);
	switch (o->aggr) {
	case STAT_AGGR_NONE:
		fprintf(f, "CPU%d%s", w->u->cpu, s);
		break;
	case STAT_AGGR_THREAD:
		fprintf(f, "%s%s", id, s);
		break;
	case STAT_AGGR_GLOBAL:
		break;
	default:
		fprintf(f, "%s%s%u%s", id, s, unit_nr(w), s);
		break;
	}
}

static void json_str(FILE *f, const char *key, const char *val)
{
	fprintf(f, "\"%s\" : \"", key);
	for (const char *p = val; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if ((unsigned char)*p < 0x20)
			fprintf(f, "\\u%04x", (unsigned char)*p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

static void json_prefix(FILE *f, const struct row *w)
{
	const struct statperf_opts *o = w->o;
	char id[64];
	unit_id(id, sizeof(id), o, w->r, w->u);
	static const char *const keys[] = {
		[STAT_AGGR_CORE] = "core", [STAT_AGGR_DIE] = "die", [STAT_AGGR_SOCKET] = "socket",
		[STAT_AGGR_NODE] = "node", [STAT_AGGR_THREAD] = "thread", [STAT_AGGR_NONE] = "cpu",
	};
	if (o->aggr == STAT_AGGR_GLOBAL)
		return;
	json_str(f, keys[o->aggr], id);
	fputs(", ", f);
	if (o->aggr != STAT_AGGR_THREAD && o->aggr != STAT_AGGR_NONE)
		fprintf(f, "\"aggregate-number\" : %u, ", unit_nr(w));
}

static double noise_pct(const struct row *w)
{
	const struct stat_result *r = w->r;
	if (r->runs < 2 || !w->u->total)
		return 0;
	return stat_rel_stddev(r->ev[w->e].mean, r->ev[w->e].m2, r->runs);
}

static double pcnt_running(const struct stat_value *v)
{
	return v->raw.ena && v->raw.run ? 100.0 * (double)v->raw.run / (double)v->raw.ena : 100.0;
}

/* The -M metrics shown on event e's line: those whose first event is e. */
static bool metric_on(const struct stat_result *r, size_t i, size_t e)
{
	const struct metric *m = r->met[i].m;
	if (!m->expr)
		return false;
	if (m->nevents)
		return stat_metric_event(r, m, m->events[0]) == (long)e;
	/* No event list: the first event counted for the metric. */
	for (size_t k = 0; k < r->nev; k++)
		if (r->evl->ev[k].metric && !strcmp(r->evl->ev[k].metric, m->name))
			return k == e;
	return false;
}

static double metric_value(const struct row *w, size_t i)
{
	const struct stat_metric *sm = &w->r->met[i];
	if (w->u->total)
		return sm->total;
	if (w->u->ncols == 1)
		return sm->cpu[w->u->cols[0]];
	return NAN;
}

static const char *metric_label(const struct metric *m, char *buf, size_t size)
{
	if (m->unit && *m->unit)
		snprintf(buf, size, "%s  %s", m->unit, m->name);
	else
		snprintf(buf, size, "%s", m->name);
	return buf;
}

/* -G: perf's cgroup column, on every row once any event has a cgroup ("" for those without);
 * NULL when none has. */
static const char *cgroup_col(const struct stat_result *r, size_t e)
{
	for (size_t i = 0; i < r->evl->n; i++)
		if (r->evl->ev[i].cgroup)
			return r->evl->ev[e].cgroup ? r->evl->ev[e].cgroup : "";
	return NULL;
}

static void text_row(FILE *f, const struct row *w, const char *ts)
{
	const struct stat_result *r = w->r;
	const struct ev *ev = &r->evl->ev[w->e];
	char val[64];
	if (ts)
		fprintf(f, "%s ", ts);
	text_prefix(f, w);
	if (w->have)
		fmt_value(val, sizeof(val), ev, w->shown, w->o->big_num, 18);
	else
		snprintf(val, sizeof(val), "%18s", value_label(&w->v));
	/* perf narrows the name to 25 columns on a row without a count when it adds -G's cgroup */
	const char *cg = cgroup_col(r, w->e);
	fprintf(f, "%s %-4s %-*s", val, statout_unit(ev), cg && !w->have ? 25 : 32, ev->name);
	if (cg)
		fprintf(f, " %s", cg);
	struct stat_shadow sh;
	stat_shadow_of(r, w->u, w->e, r->duration, &sh);
	if (!w->have) {
		fprintf(f, "%-28s\n", "");
		return;
	}
	if (sh.kind != STAT_SHADOW_NONE) {
		char num[32];
		fmt_shadow(num, sizeof(num), &sh);
		fprintf(f, " # %s %-23s", num, sh.unit);
	} else {
		fprintf(f, "%-35s", "");
	}
	double pct = noise_pct(w);
	if (pct != 0)
		fprintf(f, "  ( +-%6.2f%% )", pct);
	if (w->v.raw.run != w->v.raw.ena && w->v.raw.ena)
		fprintf(f, "  (%.2f%%)", pcnt_running(&w->v));
	fputc('\n', f);
	for (size_t i = 0; i < r->nmet; i++) {
		if (!metric_on(r, i, w->e) || !isfinite(metric_value(w, i)))
			continue;
		char label[160];
		metric_label(r->met[i].m, label, sizeof(label));
		if (ts)
			fprintf(f, "%s ", ts);
		text_prefix(f, w);
		/* perf: one decimal for a metric with a unit ("unit  name"), two for a bare name. */
		const struct metric *m = r->met[i].m;
		fprintf(f, "%18s %-4s %-32s # ", "", "", "");
		fprintf(f, m->unit && *m->unit ? "%8.1f" : "%8.2f", metric_value(w, i));
		fprintf(f, " %-23s\n", label);
	}
}

static void csv_row(FILE *f, const struct row *w, const char *ts)
{
	const struct stat_result *r = w->r;
	const struct ev *ev = &r->evl->ev[w->e];
	const char *s = w->o->sep;
	char val[64], num[32] = "";
	if (ts)
		fprintf(f, "%s%s", ts, s);
	csv_prefix(f, w);
	if (w->have)
		fmt_value(val, sizeof(val), ev, w->shown, false, 0);
	else
		snprintf(val, sizeof(val), "%s", value_label(&w->v));
	fprintf(f, "%s%s%s%s%s%s", val, s, statout_unit(ev), s, ev->name, s);
	const char *cg = cgroup_col(r, w->e);
	if (cg)
		fprintf(f, "%s%s", cg, s);
	if (r->runs > 1)
		fprintf(f, "%.2f%%%s", noise_pct(w), s);
	struct stat_shadow sh;
	stat_shadow_of(r, w->u, w->e, r->duration, &sh);
	if (sh.kind != STAT_SHADOW_NONE && w->have)
		fmt_shadow(num, sizeof(num), &sh);
	fprintf(f, "%llu%s%.2f%s%s%s%s\n", (unsigned long long)w->v.raw.run, s, pcnt_running(&w->v), s,
		trim(num), s, num[0] ? sh.unit : "");
	for (size_t i = 0; i < r->nmet; i++) {
		if (!metric_on(r, i, w->e) || !isfinite(metric_value(w, i)))
			continue;
		char label[160];
		if (ts)
			fprintf(f, "%s%s", ts, s);
		csv_prefix(f, w);
		const struct metric *m = r->met[i].m;
		fprintf(f, "%s%s%s%s%s%s", s, s, s, s, s, s);
		fprintf(f, m->unit && *m->unit ? "%.1f" : "%.2f", metric_value(w, i));
		fprintf(f, "%s%s\n", s,
			metric_label(r->met[i].m, label, sizeof(label)));
	}
}

static void json_row(FILE *f, const struct row *w, const char *ts)
{
	const struct stat_result *r = w->r;
	const struct ev *ev = &r->evl->ev[w->e];
	char val[64];
	fputc('{', f);
	if (ts)
		fprintf(f, "\"interval\" : %s, ", ts);
	json_prefix(f, w);
	if (w->have)
		snprintf(val, sizeof(val), "%f", w->shown);
	else
		snprintf(val, sizeof(val), "%s", value_label(&w->v));
	json_str(f, "counter-value", val);
	fputs(", ", f);
	json_str(f, "unit", statout_unit(ev));
	fputs(", ", f);
	json_str(f, "event", ev->name);
	const char *cg = cgroup_col(r, w->e);
	if (cg) {
		fputs(", ", f);
		json_str(f, "cgroup", cg);
	}
	if (r->runs > 1)
		fprintf(f, ", \"variance\" : %.2f", noise_pct(w));
	struct stat_shadow sh;
	stat_shadow_of(r, w->u, w->e, r->duration, &sh);
	bool met = sh.kind != STAT_SHADOW_NONE && w->have;
	fprintf(f, ", \"event-runtime\" : %llu, \"pcnt-running\" : %.2f, \"metric-value\" : %f, ",
		(unsigned long long)w->v.raw.run, pcnt_running(&w->v), met ? sh.value : 0.0);
	json_str(f, "metric-unit", met ? sh.unit : "");
	fputs("}\n", f);
	for (size_t i = 0; i < r->nmet; i++) {
		if (!metric_on(r, i, w->e) || !isfinite(metric_value(w, i)))
			continue;
		char label[160];
		fputc('{', f);
		if (ts)
			fprintf(f, "\"interval\" : %s, ", ts);
		json_prefix(f, w);
		fprintf(f, "\"metric-value\" : %f, ", metric_value(w, i));
		json_str(f, "metric-unit", metric_label(r->met[i].m, label, sizeof(label)));
		fputs("}\n", f);
	}
}

static void one_row(FILE *f, const struct stat_result *r, const struct statperf_opts *o,
		    const struct stat_aggr_unit *u, size_t e, const char *ts)
{
	struct row w = { .r = r, .o = o, .u = u, .e = e };
	stat_aggr_value(r, e, u, &w.v);
	if (r->runs > 1 && u->total) { /* perf's run time and share over -r runs: the means */
		w.v.raw.run = (uint64_t)llround(r->ev[e].run_mean);
		w.v.raw.ena = (uint64_t)llround(r->ev[e].ena_mean);
	}
	if (o->no_scale && w.v.status == COUNTER_MULTIPLEXED)
		w.v.scaled = (double)w.v.raw.val;
	const struct ev *ev = &r->evl->ev[e];
	w.have = ev->source == EV_SRC_TOOL ||
		 (w.v.status != COUNTER_NOT_SUPPORTED && w.v.status != COUNTER_NOT_COUNTED);
	w.shown = statout_display_value(r, e, &w.v);
	/* perf leaves idle threads out of the text table, and out of every layout system-wide. */
	if (o->aggr == STAT_AGGR_THREAD && r->ncpus > 1 &&
	    (((o->layout == STATPERF_TEXT || o->hide_idle) && !w.have) || (o->hide_idle && !w.v.raw.val)))
		return;
	if (o->layout == STATPERF_CSV)
		csv_row(f, &w, ts);
	else if (o->layout == STATPERF_JSON)
		json_row(f, &w, ts);
	else
		text_row(f, &w, ts);
}

/* The units in their order: as built, or (sorted) by event e's value, largest first. */
static void thread_order(const struct stat_result *r, const struct stat_aggr_units *us, size_t e, bool sorted,
			 size_t *order)
{
	for (size_t i = 0; i < us->n; i++) {
		size_t k = i;
		double v = r->ev[e].cpu[us->u[i].cols[0]].scaled;
		while (sorted && k > 0 && r->ev[e].cpu[us->u[order[k - 1]].cols[0]].scaled < v) {
			order[k] = order[k - 1];
			k--;
		}
		order[k] = i;
	}
}

static void rows(FILE *f, const struct stat_result *r, const struct statperf_opts *o, const char *ts)
{
	if (o->metric_only)
		return;
	struct stat_aggr_units us;
	stat_aggr_build(&us, r, o->aggr);
	/* Per CPU and per thread, perf lists an event's rows together (threads busiest first);
	 * other modes a unit's. */
	if (o->aggr == STAT_AGGR_NONE || o->aggr == STAT_AGGR_THREAD) {
		size_t *order = xmalloc((us.n ? us.n : 1) * sizeof(size_t));
		for (size_t e = 0; e < r->nev; e++) {
			thread_order(r, &us, e, o->aggr == STAT_AGGR_THREAD, order);
			for (size_t i = 0; i < us.n; i++)
				one_row(f, r, o, &us.u[order[i]], e, ts);
		}
		free(order);
	} else {
		for (size_t i = 0; i < us.n; i++)
			for (size_t e = 0; e < r->nev; e++)
				one_row(f, r, o, &us.u[i], e, ts);
	}
	stat_aggr_free(&us);
}

static void footer(FILE *f, const struct stat_result *r, const struct statperf_opts *o)
{
	fputc('\n', f);
	if (r->runs > 1) {
		double sd = r->dur_m2 > 0 ? sqrt(r->dur_m2 / (r->runs - 1) / r->runs) : 0;
		int prec = sd > 0 ? (int)-floor(log10(sd)) + 2 : 0;
		if (prec < 0)
			prec = 0;
		fprintf(f, "%18.*f +- %.*f seconds time elapsed", prec, r->dur_mean, prec, sd);
		fprintf(f, "  ( +-%6.2f%% )\n", stat_rel_stddev(r->dur_mean, r->dur_m2, r->runs));
	} else {
		fprintf(f, "%18.9f seconds time elapsed\n", r->duration);
	}
	fputc('\n', f);
	if (o->rusage && r->runs <= 1 && r->user_s >= 0) {
		fprintf(f, "%18.9f seconds user\n", r->user_s);
		fprintf(f, "%18.9f seconds sys\n\n\n", r->sys_s);
	}
}

void statperf_print(FILE *f, const struct stat_result *r, const struct statperf_opts *o)
{
	if (o->layout == STATPERF_TEXT) {
		fprintf(f, "\n Performance counter stats for %s", o->target);
		if (r->runs > 1)
			fprintf(f, " (%d runs)", r->runs);
		fprintf(f, ":\n\n");
		rows(f, r, o, NULL);
		if (o->metric_only)
			fputs("\n\n", f);
		footer(f, r, o);
	} else if (o->metric_only) {
		/* perf's metric-only totals without -M metrics: an empty header and row. */
		fputs(o->layout == STATPERF_JSON ? "{}\n\n" : "\n\n", f);
	} else {
		bool tag = o->summary && o->csv_summary && o->layout == STATPERF_CSV;
		rows(f, r, o, tag ? "         summary" : NULL);
	}
	fflush(f);
}

static const char *interval_header(enum stat_aggr aggr)
{
	switch (aggr) {
	case STAT_AGGR_NONE: return "#           time CPU                    counts unit events\n";
	case STAT_AGGR_CORE: return "#           time core            cpus             counts unit events\n";
	case STAT_AGGR_DIE: return "#           time die          cpus             counts unit events\n";
	case STAT_AGGR_SOCKET: return "#           time socket cpus             counts unit events\n";
	case STAT_AGGR_NODE: return "#           time node   cpus             counts unit events\n";
	case STAT_AGGR_THREAD: return "#           time             comm-pid                  counts unit events\n";
	default: return "#           time             counts unit events\n";
	}
}

void statperf_interval(FILE *f, const struct stat_result *r, const struct statperf_opts *o, unsigned index)
{
	char ts[32];
	if (o->layout == STATPERF_JSON)
		snprintf(ts, sizeof(ts), "%.9f", r->timestamp);
	else
		snprintf(ts, sizeof(ts), "%16.9f", r->timestamp);
	if (o->layout == STATPERF_TEXT && index % 25 == 0)
		fputs(o->metric_only ? "#           time \n" : interval_header(o->aggr), f);
	/* perf's metric-only rows: the time, then each -M metric's value (none here). */
	if (o->metric_only && o->layout == STATPERF_TEXT)
		fprintf(f, "%s \n", ts);
	if (o->metric_only && o->layout == STATPERF_CSV) {
		if (index == 0)
			fprintf(f, " time%s\n", o->sep);
		fprintf(f, "%s%s\n", ts, o->sep);
	}
	if (o->metric_only && o->layout == STATPERF_JSON)
		fprintf(f, "%s{\"interval\" : %s}\n", index == 0 ? "{}\n" : "", ts);
	rows(f, r, o, ts);
	fflush(f);
}

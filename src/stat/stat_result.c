#include "stat/stat_result.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "events/pmu.h"
#include "target/target.h"
#include "util/xalloc.h"

/* Allocates r's arrays for its evl, nev, ncpus and nmet, the CPU numbers and reasons copied. */
static void alloc_shape(struct stat_result *r, const int *cpus, char *const *why)
{
	r->cpus = xmalloc((r->ncpus ? r->ncpus : 1) * sizeof(int));
	memcpy(r->cpus, cpus, r->ncpus * sizeof(int));
	r->why = xcalloc(r->nev ? r->nev : 1, sizeof(char *));
	r->ev = xcalloc(r->nev ? r->nev : 1, sizeof(*r->ev));
	for (size_t e = 0; e < r->nev; e++) {
		r->why[e] = why[e] ? xstrdup(why[e]) : NULL;
		r->ev[e].cpu = xcalloc(r->ncpus ? r->ncpus : 1, sizeof(struct stat_value));
	}
	r->met = xcalloc(r->nmet ? r->nmet : 1, sizeof(*r->met));
	for (size_t i = 0; i < r->nmet; i++)
		r->met[i].cpu = xcalloc(r->ncpus ? r->ncpus : 1, sizeof(double));
}

void stat_result_init(struct stat_result *r, const struct counters *c, const struct metric **metrics,
		      size_t nmetrics)
{
	memset(r, 0, sizeof(*r));
	r->evl = c->evl;
	r->nev = c->evl->n;
	r->ncpus = c->ncpus;
	r->nmet = nmetrics;
	alloc_shape(r, c->cpus, c->why);
	for (size_t e = 0; e < r->nev; e++) {
		const struct ev *ev = &r->evl->ev[e];
		const struct pmu *p = ev->source == EV_SRC_SYSFS && ev->pmu ? pmu_find(ev->pmu) : NULL;
		r->ev[e].one_reading = p && p->uncore;
	}
	for (size_t i = 0; i < nmetrics; i++)
		r->met[i].m = metrics[i];
	r->user_s = r->sys_s = -1;
	r->runs = 0;
}

void stat_result_init_shape(struct stat_result *r, const struct evlist *l, const int *cpus, size_t ncpus)
{
	memset(r, 0, sizeof(*r));
	r->evl = l;
	r->nev = l->n;
	r->ncpus = ncpus;
	char **why = xcalloc(l->n ? l->n : 1, sizeof(char *));
	alloc_shape(r, cpus, why);
	free(why);
	r->user_s = r->sys_s = -1;
}

void stat_result_init_threads(struct stat_result *r, const struct counters *c, const struct metric **metrics,
			      size_t nmetrics)
{
	struct counters per_task = *c;
	per_task.ncpus = c->npids;
	per_task.cpus = xmalloc((c->npids ? c->npids : 1) * sizeof(int));
	for (size_t i = 0; i < c->npids; i++)
		per_task.cpus[i] = -1;
	stat_result_init(r, &per_task, metrics, nmetrics);
	free(per_task.cpus);
	r->tids = xmalloc((c->npids ? c->npids : 1) * sizeof(int));
	r->tnames = xcalloc(c->npids ? c->npids : 1, sizeof(char *));
	for (size_t i = 0; i < c->npids; i++) {
		r->tids[i] = (int)c->pids[i];
		char *comm = target_comm(c->pids[i]);
		r->tnames[i] = xasprintf("%s-%d", comm ? comm : "", (int)c->pids[i]);
		free(comm);
	}
}

static void threads_dup(struct stat_result *dst, const struct stat_result *src)
{
	if (!src->tids)
		return;
	dst->tids = xmalloc(src->ncpus * sizeof(int));
	memcpy(dst->tids, src->tids, src->ncpus * sizeof(int));
	dst->tnames = xcalloc(src->ncpus, sizeof(char *));
	for (size_t i = 0; i < src->ncpus; i++)
		dst->tnames[i] = xstrdup(src->tnames[i]);
}

/* One column: a CPU (its tasks summed), or one task of a per-thread result. */
static int read_column(const struct stat_result *r, const struct counters *c, size_t e, size_t col,
		       struct counter_val *v)
{
	return r->tids ? counters_read_task(c, e, 0, col, v) : counters_read(c, e, col, v);
}

int stat_read(struct stat_result *r, const struct counters *c)
{
	for (size_t e = 0; e < r->nev; e++) {
		struct stat_event *se = &r->ev[e];
		memset(&se->total, 0, sizeof(se->total));
		if (!c->supported[e] || r->evl->ev[e].source == EV_SRC_TOOL) {
			se->total.status = r->evl->ev[e].source == EV_SRC_TOOL ? COUNTER_COUNTED
									      : COUNTER_NOT_SUPPORTED;
			for (size_t col = 0; col < r->ncpus; col++)
				se->cpu[col] = se->total;
			continue;
		}
		for (size_t col = 0; col < r->ncpus; col++) {
			struct stat_value *v = &se->cpu[col];
			if (read_column(r, c, e, col, &v->raw) < 0)
				return -1;
			if (se->one_reading) {
				if (v->raw.val >= se->total.raw.val)
					se->total.raw = v->raw;
				continue;
			}
			se->total.raw.val += v->raw.val;
			se->total.raw.ena += v->raw.ena;
			se->total.raw.run += v->raw.run;
		}
		/* Each CPU scales on its own; the total scales the summed times, as perf does. */
		for (size_t col = 0; col < r->ncpus; col++)
			se->cpu[col].status = counter_scale(&se->cpu[col].raw, &se->cpu[col].scaled);
		se->total.status = counter_scale(&se->total.raw, &se->total.scaled);
	}
	return 0;
}

static void sub(struct stat_value *d, const struct stat_value *cur, const struct stat_value *prev)
{
	d->raw.val = cur->raw.val - (prev->raw.val < cur->raw.val ? prev->raw.val : cur->raw.val);
	d->raw.ena = cur->raw.ena - (prev->raw.ena < cur->raw.ena ? prev->raw.ena : cur->raw.ena);
	d->raw.run = cur->raw.run - (prev->raw.run < cur->raw.run ? prev->raw.run : cur->raw.run);
	if (cur->status == COUNTER_NOT_SUPPORTED)
		d->status = COUNTER_NOT_SUPPORTED;
	else
		d->status = counter_scale(&d->raw, &d->scaled);
}

void stat_diff(struct stat_result *dst, const struct stat_result *cur, const struct stat_result *prev)
{
	for (size_t e = 0; e < cur->nev; e++) {
		sub(&dst->ev[e].total, &cur->ev[e].total, &prev->ev[e].total);
		if (cur->evl->ev[e].source == EV_SRC_TOOL)
			dst->ev[e].total.status = COUNTER_COUNTED;
		for (size_t col = 0; col < cur->ncpus; col++) {
			sub(&dst->ev[e].cpu[col], &cur->ev[e].cpu[col], &prev->ev[e].cpu[col]);
			if (cur->evl->ev[e].source == EV_SRC_TOOL)
				dst->ev[e].cpu[col].status = COUNTER_COUNTED;
		}
	}
	dst->duration = cur->duration - prev->duration;
	dst->timestamp = cur->duration;
}

long stat_metric_event(const struct stat_result *r, const struct metric *m, const char *name)
{
	long any = -1;
	for (size_t e = 0; e < r->nev; e++) {
		const struct ev *ev = &r->evl->ev[e];
		if (strcasecmp(ev->base, name) && strcasecmp(ev->name, name))
			continue;
		if (ev->metric && m && !strcmp(ev->metric, m->name))
			return (long)e;
		if (any < 0)
			any = (long)e;
	}
	return any;
}

struct lookup_ctx {
	const struct stat_result *r;
	const struct metric *m;
	long col;        /* -1 for totals */
	const char *pmu; /* an uncore metric over one unit's events, or NULL for all units */
};

/* An uncore metric's input: the event's one reading, summed over the units asked for. */
static double lookup_uncore(const struct lookup_ctx *lc, const char *name)
{
	const struct stat_result *r = lc->r;
	size_t plen = strlen(lc->m->pmu);
	double sum = 0;
	bool any = false;
	for (size_t e = 0; e < r->nev; e++) {
		const struct ev *ev = &r->evl->ev[e];
		const struct stat_value *v = &r->ev[e].total;
		if (!ev->pmu || strncmp(ev->pmu, lc->m->pmu, plen) || strcasecmp(ev->base, name) ||
		    (lc->pmu && strcmp(ev->pmu, lc->pmu)))
			continue;
		if (v->status == COUNTER_NOT_SUPPORTED || v->status == COUNTER_NOT_COUNTED)
			continue;
		sum += v->scaled;
		any = true;
	}
	return any ? sum : NAN;
}

static double lookup(const char *name, void *arg)
{
	const struct lookup_ctx *lc = arg;
	if (!strcmp(name, "duration_time"))
		return lc->r->duration;
	if (lc->m && lc->m->pmu)
		return lc->col < 0 ? lookup_uncore(lc, name) : NAN;
	long e = stat_metric_event(lc->r, lc->m, name);
	if (e < 0)
		return NAN;
	const struct stat_value *v = lc->col < 0 ? &lc->r->ev[e].total : &lc->r->ev[e].cpu[lc->col];
	if (v->status == COUNTER_NOT_SUPPORTED || v->status == COUNTER_NOT_COUNTED)
		return NAN;
	return v->scaled;
}

void stat_compute_metrics(struct stat_result *r)
{
	for (size_t i = 0; i < r->nmet; i++) {
		struct stat_metric *sm = &r->met[i];
		if (!sm->m->expr) {
			sm->total = NAN;
			continue;
		}
		struct lookup_ctx lc = { r, sm->m, -1, NULL };
		sm->total = metric_eval(sm->m->expr, lookup, &lc);
		for (size_t col = 0; col < r->ncpus; col++) {
			lc.col = (long)col;
			sm->cpu[col] = metric_eval(sm->m->expr, lookup, &lc);
		}
	}
	for (size_t i = 0; i < r->numet; i++) {
		const struct metric *m = r->umet[i];
		struct lookup_ctx lc = { r, m, -1, NULL };
		r->umet_total[i] = m->expr ? metric_eval(m->expr, lookup, &lc) : NAN;
		for (size_t u = 0; u < r->nunits; u++) {
			lc.pmu = r->units[u].pmu;
			bool mine = !strncmp(lc.pmu, m->pmu, strlen(m->pmu));
			r->units[u].met[i] = mine && m->expr ? metric_eval(m->expr, lookup, &lc) : NAN;
		}
	}
}

void stat_result_set_units(struct stat_result *r, const struct metric *const *ms, size_t n)
{
	r->umet = xcalloc(n ? n : 1, sizeof(*r->umet));
	r->umet_total = xcalloc(n ? n : 1, sizeof(double));
	for (size_t i = 0; i < n; i++)
		if (ms[i]->pmu)
			r->umet[r->numet++] = ms[i];
	for (size_t e = 0; e < r->nev; e++) {
		const char *pmu = r->evl->ev[e].pmu;
		bool applies = false, have = false;
		for (size_t i = 0; pmu && i < r->numet && !applies; i++)
			applies = !strncmp(pmu, r->umet[i]->pmu, strlen(r->umet[i]->pmu));
		for (size_t u = 0; applies && u < r->nunits && !have; u++)
			have = !strcmp(r->units[u].pmu, pmu);
		if (!applies || have)
			continue;
		r->units = xrealloc(r->units, (r->nunits + 1) * sizeof(*r->units));
		struct stat_unit *su = &r->units[r->nunits++];
		const struct pmu *p = pmu_find(pmu);
		su->pmu = xstrdup(pmu);
		su->cpus = xstrdup(p && p->cpus ? p->cpus : "");
		su->met = xcalloc(r->numet ? r->numet : 1, sizeof(double));
		for (size_t i = 0; i < r->numet; i++)
			su->met[i] = NAN;
	}
}

double stat_unit_metric(const struct stat_result *r, long u, const char *name)
{
	for (size_t i = 0; i < r->numet; i++)
		if (!strcmp(r->umet[i]->name, name))
			return u < 0 ? r->umet_total[i] : r->units[u].met[i];
	return NAN;
}

static void *memdup(const void *p, size_t n)
{
	void *q = xmalloc(n);
	memcpy(q, p, n);
	return q;
}

static void units_dup(struct stat_result *dst, const struct stat_result *src)
{
	if (!src->umet) {
		dst->umet = NULL;
		dst->umet_total = NULL;
		dst->units = NULL;
		dst->numet = dst->nunits = 0;
		return;
	}
	dst->umet = memdup(src->umet, (src->numet ? src->numet : 1) * sizeof(*src->umet));
	dst->umet_total = memdup(src->umet_total, (src->numet ? src->numet : 1) * sizeof(double));
	dst->units = src->nunits ? xcalloc(src->nunits, sizeof(*dst->units)) : NULL;
	for (size_t u = 0; u < src->nunits; u++) {
		dst->units[u].pmu = xstrdup(src->units[u].pmu);
		dst->units[u].cpus = xstrdup(src->units[u].cpus);
		dst->units[u].met = memdup(src->units[u].met, (src->numet ? src->numet : 1) * sizeof(double));
	}
}

static void units_free(struct stat_result *r)
{
	for (size_t u = 0; u < r->nunits; u++) {
		free(r->units[u].pmu);
		free(r->units[u].cpus);
		free(r->units[u].met);
	}
	free(r->units);
	free(r->umet);
	free(r->umet_total);
}

void stat_accumulate(struct stat_result *acc, const struct stat_result *run)
{
	acc->runs++;
	double n = acc->runs;
	for (size_t e = 0; e < acc->nev; e++) {
		struct stat_event *a = &acc->ev[e];
		double x = run->ev[e].total.scaled;
		double d = x - a->mean;
		a->mean += d / n;
		a->m2 += d * (x - a->mean);
		a->run_mean += ((double)run->ev[e].total.raw.run - a->run_mean) / n;
		a->ena_mean += ((double)run->ev[e].total.raw.ena - a->ena_mean) / n;
	}
	double d = run->duration - acc->dur_mean;
	acc->dur_mean += d / n;
	acc->dur_m2 += d * (run->duration - acc->dur_mean);
}

double stat_rel_stddev(double mean, double m2, int runs)
{
	if (runs < 2 || mean == 0)
		return 0;
	double variance = m2 / (runs - 1);
	return 100.0 * sqrt(variance / runs) / fabs(mean);
}

void stat_copy_values(struct stat_result *dst, const struct stat_result *src)
{
	for (size_t e = 0; e < src->nev; e++) {
		dst->ev[e].total = src->ev[e].total;
		memcpy(dst->ev[e].cpu, src->ev[e].cpu, src->ncpus * sizeof(struct stat_value));
	}
	for (size_t i = 0; i < src->nmet; i++) {
		dst->met[i].total = src->met[i].total;
		memcpy(dst->met[i].cpu, src->met[i].cpu, src->ncpus * sizeof(double));
	}
	for (size_t i = 0; i < src->numet && i < dst->numet; i++) {
		dst->umet_total[i] = src->umet_total[i];
		for (size_t u = 0; u < src->nunits && u < dst->nunits; u++)
			dst->units[u].met[i] = src->units[u].met[i];
	}
	dst->duration = src->duration;
	dst->timestamp = src->timestamp;
	dst->user_s = src->user_s;
	dst->sys_s = src->sys_s;
}

void stat_result_dup(struct stat_result *dst, const struct stat_result *src)
{
	*dst = *src;
	alloc_shape(dst, src->cpus, src->why);
	for (size_t e = 0; e < src->nev; e++) {
		struct stat_value *cpu = dst->ev[e].cpu;
		dst->ev[e] = src->ev[e];
		dst->ev[e].cpu = cpu;
	}
	for (size_t i = 0; i < src->nmet; i++)
		dst->met[i].m = src->met[i].m;
	units_dup(dst, src);
	threads_dup(dst, src);
	stat_copy_values(dst, src);
}

void stat_repeat_fold(struct stat_result *acc, struct stat_result *run, bool first)
{
	if (first) {
		*acc = *run;
		memset(run, 0, sizeof(*run));
		acc->runs = 0;
		for (size_t e = 0; e < acc->nev; e++)
			acc->ev[e].mean = acc->ev[e].m2 = acc->ev[e].run_mean = acc->ev[e].ena_mean = 0;
		acc->dur_mean = acc->dur_m2 = 0;
		stat_accumulate(acc, acc);
		return;
	}
	stat_accumulate(acc, run);
	stat_copy_values(acc, run);
	stat_result_free(run);
}

void stat_repeat_means(struct stat_result *acc)
{
	if (acc->runs <= 1)
		return;
	for (size_t e = 0; e < acc->nev; e++)
		acc->ev[e].total.scaled = acc->ev[e].mean;
	acc->duration = acc->dur_mean;
}

bool stat_multiplexed(const struct stat_result *r)
{
	for (size_t e = 0; e < r->nev; e++)
		if (r->ev[e].total.status == COUNTER_MULTIPLEXED)
			return true;
	return false;
}

void stat_result_free(struct stat_result *r)
{
	for (size_t e = 0; e < r->nev; e++) {
		free(r->ev[e].cpu);
		free(r->why[e]);
	}
	for (size_t i = 0; i < r->nmet; i++)
		free(r->met[i].cpu);
	free(r->why);
	free(r->cpus);
	free(r->ev);
	free(r->met);
	for (size_t i = 0; r->tnames && i < r->ncpus; i++)
		free(r->tnames[i]);
	free(r->tnames);
	free(r->tids);
	units_free(r);
	memset(r, 0, sizeof(*r));
}

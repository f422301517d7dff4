#include "analysis/histdiff.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/profile.h"
#include "analysis/stacks_load.h"
#include "util/error.h"
#include "util/xalloc.h"

int histdiff_parse_compute(struct histdiff *d, const char *spec)
{
	d->w1 = d->w2 = 1;
	if (!strcmp(spec, "delta"))
		d->compute = HD_DELTA;
	else if (!strcmp(spec, "delta-abs"))
		d->compute = HD_DELTA_ABS;
	else if (!strcmp(spec, "ratio"))
		d->compute = HD_RATIO;
	else if (!strncmp(spec, "wdiff", 5)) {
		d->compute = HD_WDIFF;
		const char *p = spec + 5;
		char *end;
		if (*p++ != ':')
			return err_set("wdiff needs weights: wdiff:W1,W2");
		errno = 0;
		d->w1 = strtol(p, &end, 10);
		if (end == p || *end != ',' || errno)
			return err_set("wdiff: bad weights '%s' (wdiff:W1,W2)", spec + 5);
		p = end + 1;
		d->w2 = strtol(p, &end, 10);
		if (end == p || *end || errno)
			return err_set("wdiff: bad weights '%s' (wdiff:W1,W2)", spec + 5);
		if (!d->w1 || !d->w2)
			return err_set("wdiff: the weights must not be 0");
	} else {
		return err_set("unknown compute '%s' (use delta, delta-abs, ratio or wdiff:W1,W2)", spec);
	}
	return 0;
}

static struct histdiff_event *event_for(struct histdiff *d, const char *name)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->ev[i].name, name))
			return &d->ev[i];
	ALLOC_GROW(d->ev, d->n + 1, d->cap);
	struct histdiff_event *e = &d->ev[d->n++];
	memset(e, 0, sizeof(*e));
	e->name = xstrdup(name);
	return e;
}

/* Rows are matched by name (a rebuilt program's symbols move): a few hundred per event, so a
 * linear search is enough. */
static struct histdiff_row *row_for(struct histdiff_event *e, const char *dso, const char *sym, bool kernel)
{
	for (size_t i = 0; i < e->n; i++) {
		struct histdiff_row *r = &e->rows[i];
		if (r->kernel == kernel && !strcmp(r->dso, dso) && !strcmp(r->sym, sym))
			return r;
	}
	ALLOC_GROW(e->rows, e->n + 1, e->cap);
	struct histdiff_row *r = &e->rows[e->n++];
	memset(r, 0, sizeof(*r));
	r->dso = xstrdup(dso);
	r->sym = xstrdup(sym);
	r->kernel = kernel;
	return r;
}

struct load_ctx {
	struct profile p;
	bool ready;
};

static int load_ready(struct session *ss, void *arg)
{
	struct load_ctx *c = arg;
	static const enum hist_key keys[] = { HK_DSO, HK_SYM };
	profile_init(&c->p, ss->evsels, keys, 2, HIST_GRAPH_NONE, false);
	c->ready = true;
	ss->tool.callchains = false;
	ss->tool.sample = profile_sample;
	ss->tool.arg = &c->p;
	return 0;
}

/* The profile's entries into d's rows, one side. */
static void take(struct histdiff *d, const struct profile *p, bool is_new)
{
	char sym[512];
	for (size_t h = 0; h < p->n; h++) {
		const struct hist *hi = &p->hists[h];
		if (!hi->total_samples || h >= p->evsels->n || !p->evsels->v[h].name)
			continue;
		struct histdiff_event *e = event_for(d, p->evsels->v[h].name);
		*(is_new ? &e->new_period : &e->old_period) += hi->total_period;
		*(is_new ? &e->new_samples : &e->old_samples) += hi->total_samples;
		for (size_t i = 0; i < hi->n; i++) {
			const struct hist_entry *he = hi->v[i];
			hist_sym_name(he->sym, he->addr, sym, sizeof(sym));
			struct histdiff_row *r = row_for(e, hist_dso_name(he->dso), sym, he->kernel);
			if (is_new) {
				r->in_new = true;
				r->new_period += he->period;
				r->new_samples += he->samples;
			} else {
				r->in_old = true;
				r->old_period += he->period;
				r->old_samples += he->samples;
			}
		}
	}
}

struct take_ctx {
	struct load_ctx *c;
	struct histdiff *d;
	bool is_new;
};

/* Before the session closes: the entries' DSOs and symbols are the session's. */
static void load_done(struct session *ss, void *arg)
{
	struct take_ctx *t = arg;
	(void)ss;
	if (!t->c->ready)
		return;
	profile_sort(&t->c->p, false);
	take(t->d, &t->c->p, t->is_new);
	profile_free(&t->c->p);
	t->c->ready = false;
}

int histdiff_load(struct histdiff *d, const char *input, bool is_new, const char *time_spec,
		  const struct session_opts *o, struct notes *said)
{
	struct load_ctx c = { .ready = false };
	struct session_tool tool = { .ready = load_ready, .arg = &c, .time_spec = time_spec };
	struct take_ctx t = { &c, d, is_new };
	int status = stacks_walk(input, o, &tool, "the rows", load_done, &t, said);
	if (c.ready)
		profile_free(&c.p);
	return status;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static int cmp_u64_desc(uint64_t a, uint64_t b)
{
	return a == b ? 0 : a > b ? -1 : 1;
}

static int cmp_double_desc(double a, double b)
{
	return a == b ? 0 : a > b ? -1 : 1;
}

/* perf diff's order: rows of the baseline alone last; with ratio and wdiff the new recording's
 * alone (no baseline: "N/A") just before them; the rest by the computed value, largest first
 * (delta-abs: by its size); equal values by the baseline's period, the new period, then by
 * name. */
static int cmp_rows(const void *a, const void *b, void *arg)
{
	const struct histdiff_row *x = a, *y = b;
	const struct histdiff *d = arg;
	int c;
	if (x->in_new != y->in_new)
		return x->in_new ? -1 : 1;
	if (x->in_new) {
		bool rw = d->compute == HD_RATIO || d->compute == HD_WDIFF;
		if (rw && x->in_old != y->in_old)
			return x->in_old ? -1 : 1;
		if (!rw || x->in_old) {
			switch (d->compute) {
			case HD_DELTA: c = cmp_double_desc(x->delta, y->delta); break;
			case HD_DELTA_ABS: c = cmp_double_desc(x->delta < 0 ? -x->delta : x->delta,
							       y->delta < 0 ? -y->delta : y->delta); break;
			case HD_RATIO: c = cmp_double_desc(x->ratio, y->ratio); break;
			default: c = x->wdiff == y->wdiff ? 0 : x->wdiff > y->wdiff ? -1 : 1; break;
			}
			if (c)
				return c;
		}
	}
	if ((c = cmp_u64_desc(x->old_period, y->old_period)) || (c = cmp_u64_desc(x->new_period, y->new_period)))
		return c;
	if ((c = strcmp(x->dso, y->dso)))
		return c;
	return strcmp(x->sym, y->sym);
}

/* A program rebuilt under another name: a function only in OLD and the one of the same name
 * only in NEW, each the only one of its name on its side, are one row (under NEW's object).
 * perf diff shows them apart; every other row is matched as perf matches it. */
static void join_renamed(struct histdiff_event *e)
{
	for (size_t i = 0; i < e->n; i++) {
		struct histdiff_row *nr = &e->rows[i];
		if (!nr->in_new || nr->in_old)
			continue;
		size_t other = SIZE_MAX, nnew = 0, nold = 0;
		for (size_t k = 0; k < e->n; k++) {
			const struct histdiff_row *r = &e->rows[k];
			if (r->kernel != nr->kernel || strcmp(r->sym, nr->sym))
				continue;
			nnew += r->in_new && !r->in_old;
			if (r->in_old && !r->in_new) {
				nold++;
				other = k;
			}
		}
		if (nnew != 1 || nold != 1)
			continue;
		struct histdiff_row *or_ = &e->rows[other];
		nr->in_old = true;
		nr->old_period = or_->old_period;
		nr->old_samples = or_->old_samples;
		or_->in_old = false; /* joined: dropped below */
	}
	size_t out = 0;
	for (size_t i = 0; i < e->n; i++) {
		if (!e->rows[i].in_old && !e->rows[i].in_new) {
			free(e->rows[i].dso);
			free(e->rows[i].sym);
			continue;
		}
		e->rows[out++] = e->rows[i];
	}
	e->n = out;
}

void histdiff_finish(struct histdiff *d)
{
	for (size_t i = 0; i < d->n; i++) {
		struct histdiff_event *e = &d->ev[i];
		join_renamed(e);
		for (size_t k = 0; k < e->n; k++) {
			struct histdiff_row *r = &e->rows[k];
			r->old_pct = pct(r->old_period, e->old_period);
			r->new_pct = pct(r->new_period, e->new_period);
			r->delta = r->new_pct - r->old_pct;
			r->ratio = r->old_period ? (double)r->new_period / (double)r->old_period : 0.0;
			r->wdiff = (int64_t)r->new_period * d->w2 - (int64_t)r->old_period * d->w1;
		}
		if (e->n > 1)
			qsort_r(e->rows, e->n, sizeof(*e->rows), cmp_rows, d);
	}
}

void histdiff_free(struct histdiff *d)
{
	for (size_t i = 0; i < d->n; i++) {
		struct histdiff_event *e = &d->ev[i];
		for (size_t k = 0; k < e->n; k++) {
			free(e->rows[k].dso);
			free(e->rows[k].sym);
		}
		free(e->rows);
		free(e->name);
	}
	free(d->ev);
	memset(d, 0, sizeof(*d));
}

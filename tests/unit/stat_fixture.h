/* Helpers shared by the counting unit tests: a stat_result built by hand from a table of events
 * and per-CPU readings (no kernel), and golden files. A golden file holds what a renderer
 * printed for a fixture, byte for byte, under tests/fixtures/golden/ (or $FIXTURES/golden);
 * with LPERF_UPDATE_GOLDEN=1 the test writes it instead of comparing (a deliberate layout
 * change regenerates it, and the diff is reviewed like code). */
#ifndef LPERF_TESTS_STAT_FIXTURE_H
#define LPERF_TESTS_STAT_FIXTURE_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/metric.h"
#include "kernel/counter.h"
#include "stat/stat_result.h"
#include "util/xalloc.h"

#define SF_MAX_EV 12
#define SF_MAX_CPU 4
#define SF_MAX_MET 4

struct sf_event {
	const char *name, *pmu;
	enum ev_source source;
	uint64_t config;
	int group;                 /* -1: none */
	const char *metric;        /* the metric that asked for it, or NULL */
	bool unsupported;
	/* Per CPU column: count, enabled and running nanoseconds (ena 0: 1,000,000 each). */
	uint64_t val[SF_MAX_CPU], ena[SF_MAX_CPU], run[SF_MAX_CPU];
};

struct sf_metric {
	const char *name, *formula, *unit;
	const char *pmu;           /* an uncore metric's PMU prefix, or NULL */
};

struct stat_fixture {
	struct evlist l;
	struct counters c;
	struct metric m[SF_MAX_MET];
	const struct metric *mp[SF_MAX_MET];
	int cpus[SF_MAX_CPU];
	bool supported[SF_MAX_EV];
	char *why[SF_MAX_EV];
	char base[SF_MAX_EV][64];
	struct metric_set set;     /* the built-in uncore metrics come from here */
	struct stat_result r;
};

static inline void sf_value(struct stat_value *v, uint64_t val, uint64_t ena, uint64_t run)
{
	v->raw = (struct counter_val){ val, ena, run };
	v->status = counter_scale(&v->raw, &v->scaled);
}

/* Builds f over ncpus columns (cpus[]), the events and metrics given; totals are the per-CPU
 * sums scaled as stat_read scales them; metrics are computed. */
static inline void sf_build(struct stat_fixture *f, const int *cpus, size_t ncpus, const struct sf_event *evs,
			    size_t nev, const struct sf_metric *mets, size_t nmet, double duration)
{
	memset(f, 0, sizeof(*f));
	assert_true(nev <= SF_MAX_EV && ncpus <= SF_MAX_CPU && nmet <= SF_MAX_MET);
	f->l.n = nev;
	f->l.ev = xcalloc(nev, sizeof(struct ev));
	for (size_t i = 0; i < nev; i++) {
		struct ev *ev = &f->l.ev[i];
		ev->name = (char *)evs[i].name;
		/* "pmu/event/": the sysfs event name is the base, as events/resolve.c sets it. */
		const char *slash = strchr(evs[i].name, '/');
		if (slash && slash[1]) {
			snprintf(f->base[i], sizeof(f->base[i]), "%.*s", (int)strcspn(slash + 1, "/"), slash + 1);
			ev->base = f->base[i];
		} else {
			ev->base = (char *)evs[i].name;
		}
		ev->pmu = (char *)evs[i].pmu;
		ev->source = evs[i].source;
		ev->attr.type = evs[i].source == EV_SRC_SOFTWARE ? 1 : evs[i].source == EV_SRC_HARDWARE ? 0 : 8;
		ev->attr.config = evs[i].config;
		ev->group = evs[i].group;
		ev->leader = i;
		if (ev->group >= 0)
			for (size_t k = 0; k < i; k++)
				if (f->l.ev[k].group == ev->group) {
					ev->leader = k;
					break;
				}
		ev->metric = (char *)evs[i].metric;
		f->supported[i] = !evs[i].unsupported;
		if (evs[i].unsupported)
			f->why[i] = (char *)"cannot open event: not supported here";
	}
	for (size_t c = 0; c < ncpus; c++)
		f->cpus[c] = cpus[c];
	f->c.evl = &f->l;
	f->c.cpus = f->cpus;
	f->c.ncpus = ncpus;
	f->c.npids = 1;
	f->c.supported = f->supported;
	f->c.why = f->why;
	for (size_t i = 0; i < nmet; i++) {
		f->m[i].name = (char *)mets[i].name;
		f->m[i].formula = (char *)mets[i].formula;
		f->m[i].unit = (char *)mets[i].unit;
		f->m[i].pmu = (char *)mets[i].pmu;
		f->m[i].expr = mets[i].formula ? metric_parse(mets[i].formula) : NULL;
		f->mp[i] = &f->m[i];
	}
	stat_result_init(&f->r, &f->c, f->mp, nmet);
	metric_set_builtin(&f->set);
	const struct metric *um[8];
	size_t nu = 0;
	for (size_t i = 0; i < f->set.n && nu < 8; i++)
		if (f->set.m[i].pmu)
			um[nu++] = &f->set.m[i];
	stat_result_set_units(&f->r, um, nu);
	for (size_t e = 0; e < nev; e++) {
		struct stat_event *se = &f->r.ev[e];
		if (evs[e].unsupported || evs[e].source == EV_SRC_TOOL) {
			se->total.status = evs[e].unsupported ? COUNTER_NOT_SUPPORTED : COUNTER_COUNTED;
			for (size_t c = 0; c < ncpus; c++)
				se->cpu[c] = se->total;
			continue;
		}
		struct counter_val t = { 0, 0, 0 };
		for (size_t c = 0; c < ncpus; c++) {
			uint64_t ena = evs[e].ena[c] ? evs[e].ena[c] : 1000000;
			uint64_t run = evs[e].ena[c] ? evs[e].run[c] : 1000000;
			sf_value(&se->cpu[c], evs[e].val[c], ena, run);
			t.val += evs[e].val[c];
			t.ena += ena;
			t.run += run;
		}
		sf_value(&se->total, t.val, t.ena, t.run);
	}
	f->r.duration = duration;
	stat_compute_metrics(&f->r);
}

static inline void sf_free(struct stat_fixture *f)
{
	stat_result_free(&f->r);
	metric_set_free(&f->set);
	for (size_t i = 0; i < SF_MAX_MET; i++)
		metric_expr_free(f->m[i].expr);
	free(f->l.ev);
}

/* Compares text with the golden file NAME (or writes it under LPERF_UPDATE_GOLDEN=1). On a
 * difference both are printed, so the failing test shows what moved. */
static inline void golden_check(const char *name, const char *text)
{
	const char *dir = getenv("FIXTURES");
	char *path = xasprintf("%s/golden/%s", dir && *dir ? dir : "tests/fixtures", name);
	const char *upd = getenv("LPERF_UPDATE_GOLDEN");
	if (upd && *upd == '1') {
		FILE *f = fopen(path, "w");
		assert_non_null(f);
		fputs(text, f);
		assert_int_equal(fclose(f), 0);
		free(path);
		return;
	}
	FILE *f = fopen(path, "r");
	if (!f)
		fprintf(stderr, "golden file %s is missing (LPERF_UPDATE_GOLDEN=1 writes it)\n", path);
	assert_non_null(f);
	char *want = xmalloc(1 << 16);
	size_t n = fread(want, 1, (1 << 16) - 1, f);
	want[n] = 0;
	fclose(f);
	if (strcmp(want, text))
		fprintf(stderr, "%s differs.\n--- expected:\n%s--- got:\n%s---\n", path, want, text);
	assert_string_equal(want, text);
	free(want);
	free(path);
}

/* What a renderer writes into a FILE, as a string (the caller frees it). */
#define SF_CAPTURE(out, stmt)                                         \
	do {                                                          \
		size_t sf_len_ = 0;                                   \
		(out) = NULL;                                         \
		FILE *sf_m_ = open_memstream(&(out), &sf_len_);       \
		assert_non_null(sf_m_);                               \
		{ FILE *mf = sf_m_; stmt; }                           \
		fclose(sf_m_);                                        \
	} while (0)

#endif

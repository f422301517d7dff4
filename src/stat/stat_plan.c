#include "stat/stat_plan.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "events/pmu.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* Why the metric cannot be counted here, or 0 when every member's architecture is present. */
static int check_arch(const struct metric *const *ms, long n, const char *name)
{
	for (long i = 0; i < n; i++) {
		if (metric_arch_present(ms[i]->arch))
			continue;
		const char *arch = ms[i]->arch == METRIC_ARM ? "Arm" : metric_arch_name(ms[i]->arch);
		const char *first = ms[i]->nevents ? ms[i]->events[0] : "";
		if (!ev_have_hw_pmu())
			err_set("metric '%s' needs %s PMU events (%s...): this machine exposes no hardware "
				"PMU (virtual machine?); software metrics such as 'cpus_utilized' still work",
				name, arch, first);
		else
			err_set("metric '%s' needs %s PMU events (%s...), which this machine's PMU does not "
				"have; see 'lperf list --metrics' for the metrics available here", name, arch, first);
		return STAT_PLAN_UNAVAILABLE;
	}
	return 0;
}

/* Appends to *names the events of uncore metric m on every PMU of its kind ("arm_dsu_0/l3d_cache/"
 * per DSU cluster), except those already in l; STAT_PLAN_UNAVAILABLE when there is no such PMU. */
static int uncore_events(const struct evlist *l, const struct metric *m, const char *name, char ***names,
			 size_t *nn, size_t *cap)
{
	const struct pmu_table *t = pmu_table();
	size_t found = 0;
	for (size_t i = 0; i < t->n; i++) {
		const struct pmu *p = &t->p[i];
		if (strncmp(p->name, m->pmu, strlen(m->pmu)))
			continue;
		found++;
		for (size_t k = 0; k < m->nevents; k++) {
			char *ev = xasprintf("%s/%s/", p->name, m->events[k]);
			bool have = false;
			for (size_t e = 0; e < l->n && !have; e++)
				have = !strcasecmp(l->ev[e].name, ev);
			for (size_t j = 0; j < *nn && !have; j++)
				have = !strcasecmp((*names)[j], ev);
			if (have) {
				free(ev);
				continue;
			}
			ALLOC_GROW(*names, *nn + 1, *cap);
			(*names)[(*nn)++] = ev;
		}
	}
	if (found)
		return 0;
	err_set("metric '%s' needs %s* PMUs (%s...), which this machine does not have", name, m->pmu,
		m->nevents ? m->events[0] : "");
	return STAT_PLAN_UNAVAILABLE;
}

static int add_names(struct evlist *l, char **names, size_t n, const char *metric, bool group)
{
	int r = 0;
	if (n && evlist_add_metric_events(l, (const char *const *)names, n, metric, group) < 0)
		r = STAT_PLAN_USAGE;
	return r;
}

int stat_plan_add_metric(struct evlist *l, const struct metric_set *set, const char *name)
{
	const struct metric **ms;
	long n = metric_expand(set, name, &ms);
	if (n < 0)
		return STAT_PLAN_USAGE;
	int r = check_arch(ms, n, name);
	char **names = NULL, **unames = NULL;
	size_t nn = 0, cap = 0, nu = 0, ucap = 0;
	for (long i = 0; i < n && !r; i++) {
		if (ms[i]->pmu) {
			r = uncore_events(l, ms[i], name, &unames, &nu, &ucap);
			continue;
		}
		for (size_t k = 0; k < ms[i]->nevents; k++) {
			const char *ev = ms[i]->events[k];
			bool have = evlist_find(l, ev) >= 0;
			for (size_t j = 0; j < nn && !have; j++)
				have = !strcasecmp(names[j], ev);
			if (have)
				continue;
			ALLOC_GROW(names, nn + 1, cap);
			names[nn++] = (char *)ev;
		}
	}
	if (!r)
		r = add_names(l, names, nn, name, nn > 1 && nn <= STAT_PLAN_MAX_GROUP);
	/* An uncore PMU's events are not grouped with the CPUs' (nor across PMUs). */
	if (!r)
		r = add_names(l, unames, nu, name, false);
	for (size_t i = 0; i < nu; i++)
		free(unames[i]);
	free(unames);
	free(names);
	free(ms);
	return r;
}

/* perf stat's defaults: the software events and the hardware ones (perf lists those as
 * <not supported> where no PMU has them); perf's shadow metrics replace a default metric. */
static void default_events(struct strbuf *ev, bool cpu_wide)
{
	sb_adds(ev, cpu_wide ? "cpu-clock" : "task-clock");
	sb_adds(ev, ",context-switches,cpu-migrations,page-faults,cycles,instructions,branches,branch-misses");
}

static int add_metrics(struct stat_plan *p, const char *list, bool keep_unavailable)
{
	char *copy = xstrdup(list), *save = NULL;
	int r = 0;
	for (char *tok = strtok_r(copy, ",", &save); tok && !r; tok = strtok_r(NULL, ",", &save)) {
		r = stat_plan_add_metric(&p->l, &p->set, tok);
		if (r == STAT_PLAN_UNAVAILABLE && keep_unavailable)
			r = 0;
	}
	free(copy);
	if (r)
		return r;
	long n = metric_expand(&p->set, list, &p->metrics);
	p->nmetrics = n > 0 ? (size_t)n : 0;
	return 0;
}

/* -G: the Nth name to the Nth event; one name to every event named before it. */
static int assign_cgroups(struct evlist *l, const struct stat_plan_req *req)
{
	char **names = NULL;
	size_t n = 0, cap = 0;
	for (const char *s = req->cgroups;;) {
		size_t len = strcspn(s, ",");
		ALLOC_GROW(names, n + 1, cap);
		names[n++] = xstrndup(s, len);
		if (!s[len])
			break;
		s += len + 1;
	}
	size_t nev = l->n, before = l->n;
	if (n == 1 && req->cg_prefix < strlen(req->events)) {
		struct evlist pre = { 0 };
		char *prefix = xstrndup(req->events, req->cg_prefix);
		before = evlist_parse(&pre, prefix) == 0 ? pre.n : 1;
		evlist_free(&pre);
		free(prefix);
	}
	int r = 0;
	if (n > nev)
		r = err_set("-G names %zu cgroups for %zu events (the Nth cgroup is the Nth event's)", n, nev);
	for (size_t e = 0; !r && e < (n == 1 ? before : n); e++) {
		const char *name = names[n == 1 ? 0 : e];
		if (*name)
			l->ev[e].cgroup = xstrdup(name);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return r;
}

int stat_plan_build(struct stat_plan *p, const struct stat_plan_req *req)
{
	memset(p, 0, sizeof(*p));
	metric_set_builtin(&p->set);
	if (req->wperf_simple)
		metric_set_wperf_simple(&p->set, req->wperf_simple);
	int r = 0;
	for (size_t i = 0; i < req->nmetric_files && !r; i++)
		if (metric_set_load_file(&p->set, req->metric_files[i]) < 0)
			r = STAT_PLAN_USAGE;
	struct strbuf ev = STRBUF_INIT, met = STRBUF_INIT;
	sb_adds(&ev, req->events ? req->events : "");
	sb_adds(&met, req->metrics ? req->metrics : "");
	if (!ev.len && !met.len && !req->null_run)
		default_events(&ev, req->cpu_wide);
	if (!r && ev.len && evlist_parse(&p->l, sb_str(&ev)) < 0)
		r = STAT_PLAN_USAGE;
	if (!r && req->cgroups && assign_cgroups(&p->l, req) < 0)
		r = STAT_PLAN_USAGE;
	if (!r && met.len)
		r = add_metrics(p, sb_str(&met), req->keep_unavailable);
	for (size_t i = 0; !r && i < p->set.n; i++) {
		const struct metric *m = &p->set.m[i];
		if (!m->pmu || !metric_arch_present(m->arch))
			continue;
		ALLOC_GROW(p->unit_metrics, p->nunit_metrics + 1, p->unit_cap);
		p->unit_metrics[p->nunit_metrics++] = m;
	}
	sb_release(&ev);
	sb_release(&met);
	if (r)
		stat_plan_free(p);
	return r;
}

void stat_plan_free(struct stat_plan *p)
{
	free(p->metrics);
	free(p->unit_metrics);
	evlist_free(&p->l);
	metric_set_free(&p->set);
	memset(p, 0, sizeof(*p));
}

const char *stat_plan_modes(const struct evlist *l)
{
	bool user = false, kernel = false;
	for (size_t e = 0; e < l->n; e++) {
		if (l->ev[e].source == EV_SRC_TOOL)
			continue;
		user |= !l->ev[e].attr.exclude_user;
		kernel |= !l->ev[e].attr.exclude_kernel;
	}
	return user && kernel ? "user and kernel" : kernel ? "kernel" : "user";
}

#include "stat/stat_plan.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

int stat_plan_add_metric(struct evlist *l, const struct metric_set *set, const char *name)
{
	const struct metric **ms;
	long n = metric_expand(set, name, &ms);
	if (n < 0)
		return STAT_PLAN_USAGE;
	int r = check_arch(ms, n, name);
	char **names = NULL;
	size_t nn = 0, cap = 0;
	for (long i = 0; i < n && !r; i++) {
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
	if (!r && nn && evlist_add_metric_events(l, (const char *const *)names, nn, name,
						 nn > 1 && nn <= STAT_PLAN_MAX_GROUP) < 0)
		r = STAT_PLAN_USAGE;
	free(names);
	free(ms);
	return r;
}

/* perf stat's defaults: the software events, the hardware ones where a PMU exists. */
static void default_events(struct strbuf *ev, struct strbuf *met)
{
	sb_adds(ev, "task-clock,context-switches,cpu-migrations,page-faults");
	if (ev_have_hw_pmu())
		sb_adds(ev, ",cycles,instructions,branches,branch-misses");
	sb_adds(met, "cpus_utilized");
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

int stat_plan_build(struct stat_plan *p, const struct stat_plan_req *req)
{
	memset(p, 0, sizeof(*p));
	metric_set_builtin(&p->set);
	int r = 0;
	for (size_t i = 0; i < req->nmetric_files && !r; i++)
		if (metric_set_load_file(&p->set, req->metric_files[i]) < 0)
			r = STAT_PLAN_USAGE;
	struct strbuf ev = STRBUF_INIT, met = STRBUF_INIT;
	sb_adds(&ev, req->events ? req->events : "");
	sb_adds(&met, req->metrics ? req->metrics : "");
	if (!ev.len && !met.len)
		default_events(&ev, &met);
	if (!r && ev.len && evlist_parse(&p->l, sb_str(&ev)) < 0)
		r = STAT_PLAN_USAGE;
	if (!r && met.len)
		r = add_metrics(p, sb_str(&met), req->keep_unavailable);
	sb_release(&ev);
	sb_release(&met);
	if (r)
		stat_plan_free(p);
	return r;
}

void stat_plan_free(struct stat_plan *p)
{
	free(p->metrics);
	evlist_free(&p->l);
	metric_set_free(&p->set);
	memset(p, 0, sizeof(*p));
}

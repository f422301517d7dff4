/* lperf list [FILTER...]: the events, metrics and metric groups usable here (perf list and
 * wperf list), grouped by where each event comes from, marking what this machine cannot open. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "output/spe_out.h"
#include "events/evlist.h"
#include "events/metric.h"
#include "output/list_out.h"
#include "util/error.h"
#include "util/opt.h"
#include "util/pager.h"
#include "util/strbuf.h"
#include "util/suggest.h"
#include "util/xalloc.h"

struct list_opts {
	bool json, pfm, tracepoints, only_metrics, only_events, raw_dump;
	int verbose;
	char **filters;
	size_t nfilters;
	const char **metric_files;
	size_t nmetric_files;
	const char *sections[8];  /* perf's keywords (hw, sw, ...): only these sections */
	size_t nsections;
	bool keywords;            /* a keyword was given (sdt may select nothing) */
};

/* perf list's keywords name a kind of event rather than filter names: hw, sw, cache, pmu,
 * tracepoint, sdt (lperf has none), metric(s), metricgroup(s). They leave the filters. */
static void keyword_sections(struct list_opts *O)
{
	static const struct { const char *word, *section; } kw[] = {
		{ "hw", "hardware" }, { "sw", "software" }, { "cache", "hardware cache" }, { "pmu", "sysfs" },
		{ "tracepoint", "tracepoint" }, { "sdt", "" },
	};
	size_t n = 0;
	for (size_t f = 0; f < O->nfilters; f++) {
		const char *s = O->filters[f];
		bool taken = false;
		for (size_t k = 0; k < ARRAY_SIZE(kw) && !taken; k++) {
			if (strcmp(s, kw[k].word))
				continue;
			taken = true;
			if (O->nsections < ARRAY_SIZE(O->sections))
				O->sections[O->nsections++] = kw[k].section;
		}
		if (!taken && (!strcmp(s, "metric") || !strcmp(s, "metrics") || !strcmp(s, "metricgroup") ||
			       !strcmp(s, "metricgroups")))
			taken = O->only_metrics = true;
		O->keywords |= taken;
		if (!taken)
			O->filters[n++] = O->filters[f];
	}
	O->nfilters = n;
	if (O->nsections && !O->only_metrics)
		O->only_events = true;
}


static int opt_metric_file(const struct option *opt, const char *arg)
{
	struct list_opts *O = opt->value;
	if (!*arg)
		return err_set("empty file name");
	O->metric_files = xrealloc(O->metric_files, (O->nmetric_files + 1) * sizeof(char *));
	O->metric_files[O->nmetric_files++] = arg;
	return 0;
}

/* ---- filtering ---- */

static bool match_one(const char *filter, const char *s)
{
	if (!s)
		return false;
	if (strpbrk(filter, "*?["))
		return fnmatch(filter, s, FNM_CASEFOLD) == 0;
	return strcasestr(s, filter) != NULL;
}

/* True when no filter was given or any filter matches any of the n strings. */
static bool selected(const struct list_opts *O, const char *const *s, size_t n)
{
	if (!O->nfilters)
		return true;
	for (size_t f = 0; f < O->nfilters; f++)
		for (size_t i = 0; i < n; i++)
			if (match_one(O->filters[f], s[i]))
				return true;
	return false;
}

/* Tracepoints (thousands) and libpfm4's tables (all CPUs' events) are listed on request, or
 * when a filter asks for them by spelling ("sched:", "libpfm4"). */
static void implied_sections(struct list_opts *O)
{
	for (size_t f = 0; f < O->nfilters; f++) {
		const char *s = O->filters[f];
		if (strchr(s, ':') || (strlen(s) >= 5 && strcasestr("tracepoint", s)))
			O->tracepoints = true;
		if (strlen(s) >= 3 && strcasestr("libpfm4", s))
			O->pfm = true;
	}
}

/* ---- events ---- */

static bool ev_selected(const struct list_opts *O, const struct ev_info *e)
{
	bool in_section = !O->nsections;
	for (size_t i = 0; i < O->nsections && !in_section; i++)
		in_section = e->section && !strcmp(e->section, O->sections[i]);
	if (!in_section)
		return false;
	const char *s[] = { e->name, e->alias, e->section, e->pmu };
	return selected(O, s, ARRAY_SIZE(s));
}

/* ---- metrics and groups ---- */

static bool metric_selected(const struct list_opts *O, const struct metric *m)
{
	const char *s[] = { m->name, metric_arch_name(m->arch) };
	return selected(O, s, ARRAY_SIZE(s));
}

static bool group_selected(const struct list_opts *O, const struct metric_group *g)
{
	const char *s[] = { g->name, metric_arch_name(g->arch) };
	return selected(O, s, ARRAY_SIZE(s));
}

/* ---- nothing matched ---- */

static void no_match(const struct list_opts *O, const struct ev_catalog *c, const struct metric_set *s)
{
	struct suggest sg;
	char buf[256];
	suggest_init(&sg, O->filters[0]);
	for (size_t i = 0; i < c->n; i++)
		suggest_offer(&sg, c->info[i].name);
	for (size_t i = 0; i < s->n; i++)
		suggest_offer(&sg, s->m[i].name);
	for (size_t i = 0; i < s->ng; i++)
		suggest_offer(&sg, s->g[i].name);
	err_die(EXIT_RUNTIME, "no event, metric or metric group matches '%s'%s%s", O->filters[0],
		suggest_format(&sg, buf, sizeof(buf)),
		O->tracepoints ? "" : "\n(tracepoints are listed with --tracepoints, libpfm4 tables with --pfm)");
}

int cmd_list(int argc, char **argv)
{
	struct list_opts o = { 0 };
	static const char *const usage[] = {
		"lperf list [--json] [-v] [--events|--metrics] [--pfm] [--tracepoints] "
		"[-C FILE] [FILTER...]",
		"lperf list --raw-dump [hw|sw|cache|pmu|tracepoint|sdt|metrics|metricgroups|GLOB...]",
		NULL,
	};
	const struct option opts[] = {
		{ OPT_BOOL, 0, "json", &o.json, NULL, "print JSON (WindowsPerf's keys)", NULL, 0 },
		{ OPT_COUNT, 'v', "verbose", &o.verbose, NULL, "add descriptions", NULL, 0 },
		{ OPT_BOOL, 0, "events", &o.only_events, NULL, "list events only", NULL, 0 },
		{ OPT_BOOL, 0, "metrics", &o.only_metrics, NULL, "list metrics and metric groups only",
		  NULL, 0 },
		{ OPT_BOOL, 0, "pfm", &o.pfm, NULL, "include libpfm4's event tables", NULL, 0 },
		{ OPT_BOOL, 0, "tracepoints", &o.tracepoints, NULL,
		  "include tracepoints (also when a FILTER contains ':')", NULL, 0 },
		{ OPT_BOOL, 0, "raw-dump", &o.raw_dump, NULL, "names only, on one line (perf's; "
		  "FILTER: hw, sw, cache, pmu, tracepoint, sdt, metrics, metricgroups or a glob)", NULL, 0 },
		{ OPT_CALLBACK, 'C', "metric-file", &o, "FILE",
		  "include the metrics defined in FILE (repeatable)", opt_metric_file, 0 },
		OPT_END_(),
	};
	const struct opt_ctx ctx = { "list", usage, opts, false };
	int i = opt_parse(&ctx, argc, argv);
	o.filters = argv + i;
	o.nfilters = (size_t)(argc - i);
	for (size_t f = 0; f < o.nfilters; f++)
		if (!o.filters[f][0])
			opt_usage_error(&ctx, "empty FILTER");
	if (!o.raw_dump)
		keyword_sections(&o);
	implied_sections(&o);
	/* As perf's, the text list includes the tracepoints (scripts grep it for one); the JSON
	 * keeps WindowsPerf's shape unless asked. */
	if (!o.json)
		o.tracepoints = true;
	bool show_events = !o.only_metrics || o.only_events;
	bool show_metrics = !o.only_events || o.only_metrics;

	struct metric_set ms = { 0 };
	metric_set_builtin(&ms);
	for (size_t f = 0; f < o.nmetric_files; f++)
		if (metric_set_load_file(&ms, o.metric_files[f]) < 0)
			err_die(EXIT_RUNTIME, "%s", err_msg());

	struct ev_catalog cat = { 0 };
	if (show_events && ev_catalog_build(&cat, o.pfm, o.tracepoints) < 0)
		err_die(EXIT_RUNTIME, "cannot list events: %s", err_msg());

	if (o.raw_dump) {
		for (size_t f = 0; f < (o.nfilters ? o.nfilters : 1); f++)
			list_print_raw(stdout, &cat, &ms, o.nfilters ? o.filters[f] : NULL);
		ev_catalog_free(&cat);
		metric_set_free(&ms);
		free(o.metric_files);
		return 0;
	}
	bool *sel = xcalloc(cat.n ? cat.n : 1, sizeof(bool));
	bool *msel = xcalloc(ms.n ? ms.n : 1, sizeof(bool));
	bool *gsel = xcalloc(ms.ng ? ms.ng : 1, sizeof(bool));
	struct list_selection ls = { sel, msel, gsel, 0, 0, 0, show_metrics, ev_have_hw_pmu(), o.verbose };
	for (size_t k = 0; k < cat.n; k++) {
		sel[k] = ev_selected(&o, &cat.info[k]);
		ls.nevents += sel[k];
	}
	for (size_t k = 0; k < ms.n; k++) {
		msel[k] = metric_selected(&o, &ms.m[k]);
		ls.nmetrics += show_metrics && msel[k];
	}
	for (size_t k = 0; k < ms.ng; k++) {
		gsel[k] = group_selected(&o, &ms.g[k]);
		ls.ngroups += show_metrics && gsel[k];
	}
	if (o.nfilters && !o.keywords && !ls.nevents && !ls.nmetrics && !ls.ngroups)
		no_match(&o, &cat, &ms);
	pager_start();
	if (o.json)
		list_print_json(stdout, &cat, &ms, &ls);
	else {
		list_print_events_text(stdout, &cat, &ls);
		if (show_events && !o.nfilters && !o.keywords)
			spe_print_pmu_filters(stdout);
		list_print_metrics_text(stdout, &ms, &ls);
	}
	free(sel);
	free(msel);
	free(gsel);
	free(o.metric_files);
	ev_catalog_free(&cat);
	metric_set_free(&ms);
	return 0;
}

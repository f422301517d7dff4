/* lperf list [FILTER...]: the events, metrics and metric groups usable here (perf list and
 * wperf list), grouped by where each event comes from, marking what this machine cannot open. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/record_spe.h"
#include "events/evlist.h"
#include "events/metric.h"
#include "output/json.h"
#include "output/table.h"
#include "util/error.h"
#include "util/opt.h"
#include "util/strbuf.h"
#include "util/suggest.h"
#include "util/xalloc.h"

struct list_opts {
	bool json, pfm, tracepoints, only_metrics, only_events;
	int verbose;
	char **filters;
	size_t nfilters;
	const char **metric_files;
	size_t nmetric_files;
};

static struct list_opts *O;

static int opt_metric_file(const struct option *opt, const char *arg)
{
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
static bool selected(const char *const *s, size_t n)
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
static void implied_sections(void)
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

static bool ev_selected(const struct ev_info *e)
{
	const char *s[] = { e->name, e->alias, e->section, e->pmu };
	return selected(s, ARRAY_SIZE(s));
}

static bool per_pmu(const char *section)
{
	return section && (!strcmp(section, "sysfs") || !strcmp(section, "libpfm4"));
}

static const char *ev_kind(const struct ev_info *e)
{
	const char *section = e->section;
	static const struct { const char *section, *kind; } kinds[] = {
		{ "software", "Software event" },
		{ "hardware", "Hardware event" },
		{ "hardware cache", "Hardware cache event" },
		{ "sysfs", "Kernel PMU event" },
		{ "libpfm4", "libpfm4 event" },
		{ "tracepoint", "Tracepoint event" },
	};
	if (e->pmu && !strcmp(e->pmu, "tool"))
		return "Tool event";
	for (size_t i = 0; section && i < ARRAY_SIZE(kinds); i++)
		if (!strcmp(kinds[i].section, section))
			return kinds[i].kind;
	return "event";
}

static const char *ev_reason(const struct ev_info *e, bool have_hw)
{
	if (e->usable)
		return NULL;
	const char *s = e->section ? e->section : "";
	if (!strcmp(s, "hardware") || !strcmp(s, "hardware cache"))
		return have_hw ? "not supported by this PMU" : "no hardware PMU";
	if (!strcmp(s, "libpfm4"))
		return have_hw ? "table for a PMU not present here" : "no hardware PMU";
	if (!strcmp(s, "sysfs"))
		return "its terms do not fit the PMU's format/ files";
	return "cannot be opened here";
}

static bool same_group(const struct ev_info *a, const struct ev_info *b)
{
	if (strcmp(a->section ? a->section : "", b->section ? b->section : ""))
		return false;
	return !per_pmu(a->section) || !strcmp(a->pmu ? a->pmu : "", b->pmu ? b->pmu : "");
}

static char *group_heading(const struct ev_info *e, size_t count)
{
	if (e->section && !strcmp(e->section, "sysfs"))
		return xasprintf("sysfs PMU %s (type %u, %zu events):", e->pmu ? e->pmu : "?",
				 (unsigned)e->type, count);
	if (e->section && !strcmp(e->section, "libpfm4"))
		return xasprintf("libpfm4 PMU %s (%zu events):", e->pmu ? e->pmu : "?", count);
	return xasprintf("%s events (%zu):", e->section ? e->section : "other", count);
}

/* Prints one table per (section, PMU) group, in the catalog's order of first appearance. */
static void print_events(const struct ev_catalog *c, const bool *sel, bool have_hw)
{
	bool *done = xcalloc(c->n ? c->n : 1, sizeof(bool));
	printf("List of pre-defined events (to be used in -e)\n");
	for (size_t i = 0; i < c->n; i++) {
		if (!sel[i] || done[i])
			continue;
		static const char *const cols[] = { "Alias Name", "Raw Index", "Event Type",
						    "Description" };
		struct table t;
		size_t count = 0;
		table_init(&t, O->verbose ? 4 : 3, cols);
		t.indent = 8;
		t.underline = true;
		for (size_t k = i; k < c->n; k++) {
			const struct ev_info *e = &c->info[k];
			if (!sel[k] || done[k] || !same_group(&c->info[i], e))
				continue;
			done[k] = true;
			count++;
			const char *why = ev_reason(e, have_hw);
			char idx[32];
			snprintf(idx, sizeof(idx), "0x%llx", (unsigned long long)e->config);
			char *kind = why ? xasprintf("[%s] [not available here: %s]", ev_kind(e), why)
					 : xasprintf("[%s]", ev_kind(e));
			/* perf's spelling for names with two forms: "cpu-cycles OR cycles" */
			char *name = e->alias ? xasprintf("%s OR %s", e->name, e->alias) : xstrdup(e->name);
			table_rowv(&t, name, idx, kind, e->desc ? e->desc : "");
			free(name);
			free(kind);
		}
		char *h = group_heading(&c->info[i], count);
		printf("\n%s\n", h);
		free(h);
		table_print(&t, stdout);
		table_free(&t);
	}
	free(done);
}

static void json_events(struct json *j, const struct ev_catalog *c, const bool *sel, bool have_hw)
{
	json_begin_array(j, "Predefined_Events");
	for (size_t i = 0; c && i < c->n; i++) {
		const struct ev_info *e = &c->info[i];
		if (!sel[i])
			continue;
		char idx[32], kind[64];
		snprintf(idx, sizeof(idx), "0x%llx", (unsigned long long)e->config);
		snprintf(kind, sizeof(kind), "[%s]", ev_kind(e));
		json_begin_object(j, NULL);
		json_str(j, "Alias_Name", e->name);
		json_str(j, "Other_Name", e->alias);
		json_str(j, "Raw_Index", idx);
		json_str(j, "Event_Type", kind);
		json_str(j, "Description", e->desc);
		json_str(j, "Section", e->section ? e->section : "other");
		json_str(j, "PMU", e->pmu ? e->pmu : "");
		json_u64(j, "Type", e->type);
		json_u64(j, "Config", e->config);
		json_bool(j, "Available", e->usable);
		json_str(j, "Reason", ev_reason(e, have_hw));
		json_end_object(j);
	}
	json_end_array(j);
}

/* ---- metrics and groups ---- */

static bool metric_selected(const struct metric *m)
{
	const char *s[] = { m->name, metric_arch_name(m->arch) };
	return selected(s, ARRAY_SIZE(s));
}

static bool group_selected(const struct metric_group *g)
{
	const char *s[] = { g->name, metric_arch_name(g->arch) };
	return selected(s, ARRAY_SIZE(s));
}

static char *join(char **items, size_t n, const char *open, const char *sep, const char *close)
{
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, open);
	for (size_t i = 0; i < n; i++)
		sb_addf(&sb, "%s%s", i ? sep : "", items[i]);
	sb_adds(&sb, close);
	return sb_detach(&sb);
}

static char *arch_reason(enum metric_arch arch)
{
	if (metric_arch_present(arch))
		return NULL;
	switch (arch) {
	case METRIC_ARM:
		return xstrdup("no Arm PMU");
	case METRIC_X86:
		return xstrdup("no x86 core PMU");
	default:
		return xasprintf("no %s PMU", metric_arch_name(arch));
	}
}

static char *arch_cell(enum metric_arch arch, bool user)
{
	char *why = arch_reason(arch);
	char *s = xasprintf("%s%s%s%s%s", metric_arch_name(arch), user ? " (user)" : "",
			    why ? " [not available here: " : "", why ? why : "", why ? "]" : "");
	free(why);
	return s;
}

static void print_metrics(const struct metric_set *s, size_t nm, size_t ng)
{
	if (nm) {
		/* The long cells come last; the events are in the formula, so only -v adds them. */
		static const char *const cols[] = { "Metric", "Architecture", "Unit", "Formula",
						    "Events", "Description" };
		struct table t;
		table_init(&t, O->verbose ? 6 : 4, cols);
		t.indent = 8;
		t.underline = true;
		for (size_t i = 0; i < s->n; i++) {
			const struct metric *m = &s->m[i];
			if (!metric_selected(m))
				continue;
			char *ev = join(m->events, m->nevents, "{", ",", "}");
			char *arch = arch_cell(m->arch, m->user);
			table_rowv(&t, m->name, arch, m->unit ? m->unit : "---",
				   m->formula ? m->formula : ev, ev, m->desc ? m->desc : "");
			free(ev);
			free(arch);
		}
		printf("\nList of supported metrics (to be used in -m)\n\n");
		table_print(&t, stdout);
		table_free(&t);
	}
	if (ng) {
		static const char *const cols[] = { "Group", "Architecture", "Metrics",
						    "Description" };
		struct table t;
		table_init(&t, O->verbose ? 4 : 3, cols);
		t.indent = 8;
		t.underline = true;
		for (size_t i = 0; i < s->ng; i++) {
			const struct metric_group *g = &s->g[i];
			if (!group_selected(g))
				continue;
			char *ms = join(g->metrics, g->nmetrics, "", ", ", "");
			char *arch = arch_cell(g->arch, g->user);
			table_rowv(&t, g->name, arch, ms, g->desc ? g->desc : "");
			free(ms);
			free(arch);
		}
		printf("\nList of supported groups of metrics (to be used in -m)\n\n");
		table_print(&t, stdout);
		table_free(&t);
	}
}

static void json_list(struct json *j, const char *key, char **items, size_t n)
{
	json_begin_array(j, key);
	for (size_t i = 0; i < n; i++)
		json_str(j, NULL, items[i]);
	json_end_array(j);
}

static void json_metrics(struct json *j, const struct metric_set *s, bool show)
{
	json_begin_array(j, "Predefined_Metrics");
	for (size_t i = 0; show && i < s->n; i++) {
		const struct metric *m = &s->m[i];
		if (!metric_selected(m))
			continue;
		char *ev = join(m->events, m->nevents, "{", ",", "}");
		char *why = arch_reason(m->arch);
		json_begin_object(j, NULL);
		json_str(j, "Metric", m->name);
		json_str(j, "Events", ev);
		json_str(j, "Formula", m->formula);
		json_str(j, "Unit", m->unit);
		json_str(j, "Description", m->desc);
		json_list(j, "Event_List", m->events, m->nevents);
		json_str(j, "Architecture", metric_arch_name(m->arch));
		json_bool(j, "User", m->user);
		json_bool(j, "Available", !why);
		json_str(j, "Reason", why);
		json_end_object(j);
		free(ev);
		free(why);
	}
	json_end_array(j);
	json_begin_array(j, "Predefined_Groups_of_Metrics");
	for (size_t i = 0; show && i < s->ng; i++) {
		const struct metric_group *g = &s->g[i];
		if (!group_selected(g))
			continue;
		char *ms = join(g->metrics, g->nmetrics, "", ", ", "");
		char *why = arch_reason(g->arch);
		json_begin_object(j, NULL);
		json_str(j, "Group", g->name);
		json_str(j, "Metrics", ms);
		json_str(j, "Description", g->desc);
		json_list(j, "Metric_List", g->metrics, g->nmetrics);
		json_str(j, "Architecture", metric_arch_name(g->arch));
		json_bool(j, "User", g->user);
		json_bool(j, "Available", !why);
		json_str(j, "Reason", why);
		json_end_object(j);
		free(ms);
		free(why);
	}
	json_end_array(j);
}

/* ---- nothing matched ---- */

static void no_match(const struct ev_catalog *c, const struct metric_set *s)
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
	O = &o;
	static const char *const usage[] = {
		"lperf list [--json] [-v] [--events|--metrics] [--pfm] [--tracepoints] "
		"[-C FILE] [FILTER...]",
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
		{ OPT_CALLBACK, 'C', "metric-file", NULL, "FILE",
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
	implied_sections();
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
	bool have_hw = ev_have_hw_pmu();

	bool *sel = xcalloc(cat.n ? cat.n : 1, sizeof(bool));
	size_t nev = 0, nm = 0, ng = 0;
	for (size_t k = 0; k < cat.n; k++) {
		sel[k] = ev_selected(&cat.info[k]);
		nev += sel[k];
	}
	for (size_t k = 0; show_metrics && k < ms.n; k++)
		nm += metric_selected(&ms.m[k]);
	for (size_t k = 0; show_metrics && k < ms.ng; k++)
		ng += group_selected(&ms.g[k]);
	if (o.nfilters && !nev && !nm && !ng)
		no_match(&cat, &ms);

	if (o.json) {
		struct json j;
		json_init(&j, stdout, true);
		json_begin_object(&j, NULL);
		json_events(&j, &cat, sel, have_hw);
		json_metrics(&j, &ms, show_metrics);
		json_end_object(&j);
		json_finish(&j);
	} else {
		if (nev)
			print_events(&cat, sel, have_hw);
		if (show_events && !o.nfilters)
			list_spe_filters(stdout); /* record_spe.c */
		if (show_metrics)
			print_metrics(&ms, nm, ng);
	}
	free(sel);
	free(o.metric_files);
	ev_catalog_free(&cat);
	metric_set_free(&ms);
	return 0;
}

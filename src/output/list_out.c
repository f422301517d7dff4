/* lperf list's tables (perf list's layout) and JSON (WindowsPerf's keys). */
#include "output/list_out.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "output/json.h"
#include "output/table.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

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
static void print_events(FILE *f, const struct ev_catalog *c, const struct list_selection *ls)
{
	bool *done = xcalloc(c->n ? c->n : 1, sizeof(bool));
	fprintf(f, "List of pre-defined events (to be used in -e)\n");
	for (size_t i = 0; i < c->n; i++) {
		if (!ls->ev[i] || done[i])
			continue;
		static const char *const cols[] = { "Alias Name", "Raw Index", "Event Type",
						    "Description" };
		struct table t;
		size_t count = 0;
		table_init(&t, ls->verbose ? 4 : 3, cols);
		t.indent = 8;
		t.underline = true;
		for (size_t k = i; k < c->n; k++) {
			const struct ev_info *e = &c->info[k];
			if (!ls->ev[k] || done[k] || !same_group(&c->info[i], e))
				continue;
			done[k] = true;
			count++;
			const char *why = ev_reason(e, ls->have_hw);
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
		fprintf(f, "\n%s\n", h);
		free(h);
		table_print(&t, f);
		table_free(&t);
	}
	free(done);
}

static void json_events(struct json *j, const struct ev_catalog *c, const struct list_selection *ls)
{
	json_begin_array(j, "Predefined_Events");
	for (size_t i = 0; c && i < c->n; i++) {
		const struct ev_info *e = &c->info[i];
		if (!ls->ev[i])
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
		json_str(j, "Reason", ev_reason(e, ls->have_hw));
		json_end_object(j);
	}
	json_end_array(j);
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

static void print_metrics(FILE *f, const struct metric_set *s, const struct list_selection *ls)
{
	if (ls->nmetrics) {
		/* The long cells come last; the events are in the formula, so only -v adds them. */
		static const char *const cols[] = { "Metric", "Architecture", "Unit", "Formula",
						    "Events", "Description" };
		struct table t;
		table_init(&t, ls->verbose ? 6 : 4, cols);
		t.indent = 8;
		t.underline = true;
		for (size_t i = 0; i < s->n; i++) {
			const struct metric *m = &s->m[i];
			if (!ls->metric[i])
				continue;
			char *ev = join(m->events, m->nevents, "{", ",", "}");
			char *arch = arch_cell(m->arch, m->user);
			table_rowv(&t, m->name, arch, m->unit ? m->unit : "---",
				   m->formula ? m->formula : ev, ev, m->desc ? m->desc : "");
			free(ev);
			free(arch);
		}
		fprintf(f, "\nList of supported metrics (to be used in -m)\n\n");
		table_print(&t, f);
		table_free(&t);
	}
	if (ls->ngroups) {
		static const char *const cols[] = { "Group", "Architecture", "Metrics",
						    "Description" };
		struct table t;
		table_init(&t, ls->verbose ? 4 : 3, cols);
		t.indent = 8;
		t.underline = true;
		for (size_t i = 0; i < s->ng; i++) {
			const struct metric_group *g = &s->g[i];
			if (!ls->group[i])
				continue;
			char *ms = join(g->metrics, g->nmetrics, "", ", ", "");
			char *arch = arch_cell(g->arch, g->user);
			table_rowv(&t, g->name, arch, ms, g->desc ? g->desc : "");
			free(ms);
			free(arch);
		}
		fprintf(f, "\nList of supported groups of metrics (to be used in -m)\n\n");
		table_print(&t, f);
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

static void json_metrics(struct json *j, const struct metric_set *s, const struct list_selection *ls)
{
	json_begin_array(j, "Predefined_Metrics");
	for (size_t i = 0; ls->show_metrics && i < s->n; i++) {
		const struct metric *m = &s->m[i];
		if (!ls->metric[i])
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
	for (size_t i = 0; ls->show_metrics && i < s->ng; i++) {
		const struct metric_group *g = &s->g[i];
		if (!ls->group[i])
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

void list_print_events_text(FILE *f, const struct ev_catalog *c, const struct list_selection *ls)
{
	if (ls->nevents)
		print_events(f, c, ls);
}

void list_print_metrics_text(FILE *f, const struct metric_set *s, const struct list_selection *ls)
{
	if (ls->show_metrics)
		print_metrics(f, s, ls);
}

void list_print_json(FILE *f, const struct ev_catalog *c, const struct metric_set *s, const struct list_selection *ls)
{
	struct json j;
	json_init(&j, f, true);
	json_begin_object(&j, NULL);
	json_events(&j, c, ls);
	json_metrics(&j, s, ls);
	json_end_object(&j);
	json_finish(&j);
}

/* ---- perf list --raw-dump: names only, each followed by a space ---- */

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The usable events of one section, as perf spells them ("msr/tsc/" for a sysfs PMU's),
 * sorted as perf sorts them, tool events after the software ones; only those glob matches. */
static void raw_section(FILE *f, const struct ev_catalog *c, const char *section, const char *glob)
{
	char **names = xcalloc(c->n ? c->n : 1, sizeof(char *));
	size_t n = 0;
	bool sorted = strcmp(section, "sysfs") && strcmp(section, "tracepoint");
	for (int tool = 0; tool < 2; tool++) {
		size_t first = n;
		for (size_t i = 0; i < c->n; i++) {
			const struct ev_info *e = &c->info[i];
			bool is_tool = e->pmu && !strcmp(e->pmu, "tool");
			if (!e->usable || !e->section || strcmp(e->section, section) || is_tool != (tool == 1))
				continue;
			char *nm = !strcmp(section, "sysfs") ? xasprintf("%s/%s/", e->pmu ? e->pmu : "?", e->name)
							     : xstrdup(e->name);
			/* a word without ':' is matched against a tracepoint's event part only */
			const char *subject = nm;
			if (glob && !strchr(glob, ':') && strchr(nm, ':') && !strcmp(section, "tracepoint"))
				subject = strchr(nm, ':') + 1;
			if (glob && fnmatch(glob, subject, 0) != 0) {
				free(nm);
				continue;
			}
			names[n++] = nm;
		}
		if (sorted)
			qsort(names + first, n - first, sizeof(char *), cmp_name);
	}
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "%s ", names[i]);
		free(names[i]);
	}
	free(names);
}

/* Metrics (or groups) this machine can compute, as perf lists its own CPU's. */
static void raw_metrics(FILE *f, const struct metric_set *s, bool groups, const char *glob)
{
	size_t n = groups ? s->ng : s->n;
	for (size_t i = 0; i < n; i++) {
		const char *name = groups ? s->g[i].name : s->m[i].name;
		enum metric_arch arch = groups ? s->g[i].arch : s->m[i].arch;
		if (metric_arch_present(arch) && (!glob || fnmatch(glob, name, 0) == 0))
			fprintf(f, "%s ", name);
	}
	if (!groups)
		fputc('\n', f);
}

int list_print_raw(FILE *f, const struct ev_catalog *c, const struct metric_set *s, const char *what)
{
	static const struct { const char *word, *section; } words[] = {
		{ "hw", "hardware" }, { "hardware", "hardware" }, { "sw", "software" },
		{ "software", "software" }, { "cache", "hardware cache" }, { "hwcache", "hardware cache" },
		{ "pmu", "sysfs" }, { "tracepoint", "tracepoint" },
	};
	if (what && (!strcmp(what, "sdt")))
		return 0; /* lperf keeps no SDT cache: none to list */
	if (what && (!strcmp(what, "metric") || !strcmp(what, "metrics"))) {
		raw_metrics(f, s, false, NULL);
		return 0;
	}
	if (what && (!strcmp(what, "metricgroup") || !strcmp(what, "metricgroups"))) {
		raw_metrics(f, s, true, NULL);
		return 0;
	}
	for (size_t i = 0; what && i < ARRAY_SIZE(words); i++) {
		if (!strcmp(what, words[i].word)) {
			raw_section(f, c, words[i].section, NULL);
			return 0;
		}
	}
	/* Nothing or a glob: every section; "sys:ev*" names tracepoints, any other word is
	 * matched anywhere in a name ("*word*"), as perf does. */
	char *glob = !what ? NULL : strchr(what, ':') ? xstrdup(what) : xasprintf("*%s*", what);
	static const char *const order[] = { "hardware", "software", "hardware cache", "sysfs", "tracepoint" };
	for (size_t i = 0; i < ARRAY_SIZE(order); i++)
		if (!glob || !strchr(what, ':') || !strcmp(order[i], "tracepoint"))
			raw_section(f, c, order[i], glob);
	if (!glob || !strchr(what, ':')) {
		raw_metrics(f, s, true, glob);
		raw_metrics(f, s, false, glob);
	}
	free(glob);
	return 0;
}

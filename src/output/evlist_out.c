/* perf evlist's layout: "NAME", then ": key: value, key: value" for what was asked. */
#include "output/evlist_out.h"

#include <inttypes.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "output/attr_text.h"

struct line {
	FILE *f;
	bool first;
};

/* The first item after the name is introduced by ':', the others by ','. */
static void item(struct line *l, const char *fmt, const char *a, const char *b)
{
	fputc(l->first ? ':' : ',', l->f);
	l->first = false;
	fprintf(l->f, fmt, a, b);
}

static void attr_item(const char *name, const char *value, void *arg)
{
	item(arg, " %s: %s", name, value);
}

static const char *name_of(const struct evsel *e)
{
	return e->name ? e->name : "";
}

static void trace_fields(struct line *l, const struct evsel *e, struct tep_handle *tep)
{
	if (e->attr.type != PERF_TYPE_TRACEPOINT) {
		item(l, "%s%s", " (not a tracepoint)", "");
		return;
	}
	struct tep_event *ev = tep ? tep_find_event(tep, (int)e->attr.config) : NULL;
	struct tep_format_field *fl = ev ? ev->format.fields : NULL;
	if (!fl) {
		item(l, "%s%s", " (no trace field)", "");
		return;
	}
	item(l, " trace_fields: %s%s", fl->name, "");
	for (fl = fl->next; fl; fl = fl->next)
		item(l, "%s%s", fl->name, "");
}

/* -g: the group that event i leads ({a,b}), or i alone; NULL-free. -1 when i is a member. */
static int group_of(const struct perfdata_reader *r, size_t i, const struct perfdata_group **out)
{
	*out = NULL;
	for (size_t g = 0; g < r->info.ngroups; g++) {
		const struct perfdata_group *gr = &r->info.groups[g];
		if (gr->nr < 2 || gr->leader >= r->evsels.n)
			continue;
		if (gr->leader == i) {
			*out = gr;
			return 0;
		}
		if (i > gr->leader && i - gr->leader < gr->nr)
			return -1;
	}
	return 0;
}

void evlist_print(FILE *f, const struct perfdata_reader *r, const struct evlist_show *o, struct tep_handle *tep)
{
	bool tracepoint = false;
	for (size_t i = 0; i < r->evsels.n; i++) {
		const struct evsel *e = &r->evsels.v[i];
		tracepoint |= e->attr.type == PERF_TYPE_TRACEPOINT;
		struct line l = { f, true };
		if (o->group) {
			const struct perfdata_group *g;
			if (group_of(r, i, &g) < 0)
				continue;
			if (!g) {
				fprintf(f, "%s\n", name_of(e));
				continue;
			}
			fprintf(f, "%s{%s", g->name && strcmp(g->name, "{anon_group}") ? g->name : "", name_of(e));
			for (size_t k = i + 1; k < (size_t)g->leader + g->nr && k < r->evsels.n; k++)
				fprintf(f, ",%s", name_of(&r->evsels.v[k]));
			fputs("}\n", f);
			continue;
		}
		fputs(name_of(e), f);
		if (o->verbose) {
			attr_for_each_field(&e->attr, attr_item, &l);
		} else if (o->freq) {
			char v[24];
			snprintf(v, sizeof(v), "%" PRIu64, (uint64_t)e->attr.sample_freq);
			item(&l, " %s=%s", e->attr.freq ? "sample_freq" : "sample_period", v);
		}
		if (o->trace_fields)
			trace_fields(&l, e, tep);
		fputc('\n', f);
	}
	if (tracepoint && !o->trace_fields)
		fputs("# Tip: use 'perf evlist --trace-fields' to show fields for tracepoint events\n", f);
}

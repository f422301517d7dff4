/* Metric sets: built-in tables, lookup by name across architectures, -m list expansion, and
 * detection of which architecture's PMU this machine has. Formulas live in metric_expr.c,
 * metric files in metric_file.c, the tables in metric_{sw,arm,x86}.c. */
#include "events/metric.h"

#include <ctype.h>
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "events/metric_builtin.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/suggest.h"
#include "util/xalloc.h"

/* ---- building metrics ---- */

int metric_init(struct metric *m, const char *name, const char *formula, const char *unit,
		const char *desc, enum metric_arch arch)
{
	memset(m, 0, sizeof(*m));
	struct metric_expr *e = metric_parse(formula);
	if (!e)
		return -1;
	m->name = xstrdup(name);
	m->formula = xstrdup(formula);
	m->unit = xstrdup(unit ? unit : "");
	m->desc = xstrdup(desc ? desc : "");
	m->arch = arch;
	m->expr = e;
	metric_expr_events(e, &m->events, &m->nevents);
	return 0;
}

void metric_init_events(struct metric *m, const char *name, char *const *events, size_t n,
			const char *unit, const char *desc)
{
	memset(m, 0, sizeof(*m));
	m->name = xstrdup(name);
	m->unit = xstrdup(unit ? unit : "");
	m->desc = xstrdup(desc ? desc : "");
	m->arch = METRIC_ANY;
	for (size_t i = 0; i < n; i++) {
		bool dup = false;
		for (size_t j = 0; j < m->nevents && !dup; j++)
			dup = !strcasecmp(m->events[j], events[i]);
		if (dup)
			continue;
		m->events = xrealloc(m->events, (m->nevents + 1) * sizeof(char *));
		m->events[m->nevents++] = xstrdup(events[i]);
	}
}

void metric_clear(struct metric *m)
{
	free(m->name);
	free(m->formula);
	free(m->unit);
	free(m->desc);
	free(m->pmu);
	for (size_t i = 0; i < m->nevents; i++)
		free(m->events[i]);
	free(m->events);
	metric_expr_free(m->expr);
	memset(m, 0, sizeof(*m));
}

void metric_group_clear(struct metric_group *g)
{
	free(g->name);
	free(g->desc);
	for (size_t i = 0; i < g->nmetrics; i++)
		free(g->metrics[i]);
	free(g->metrics);
	memset(g, 0, sizeof(*g));
}

bool metric_name_valid(const char *s, size_t len)
{
	if (!len || len > METRIC_NAME_MAX || !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (size_t i = 1; i < len; i++)
		if (!isalnum((unsigned char)s[i]) && !strchr("_.-", s[i]))
			return false;
	return true;
}

int metric_group_fill(struct metric_group *g, const char *list)
{
	const char *p = list;
	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		while (len && isspace((unsigned char)*p))
			p++, len--;
		while (len && isspace((unsigned char)p[len - 1]))
			len--;
		if (!len)
			return err_set("empty metric name in list '%s'", list);
		if (!metric_name_valid(p, len))
			return err_set("'%.*s' is not a valid metric name (letters, digits, '_', "
				       "'.', '-'; at most %d)", (int)(len > 64 ? 64 : len), p,
				       METRIC_NAME_MAX);
		bool dup = false;
		for (size_t i = 0; i < g->nmetrics && !dup; i++)
			dup = strlen(g->metrics[i]) == len && !strncasecmp(g->metrics[i], p, len);
		if (!dup) {
			g->metrics = xrealloc(g->metrics, (g->nmetrics + 1) * sizeof(char *));
			g->metrics[g->nmetrics++] = xstrndup(p, len);
		}
		if (!end)
			return 0;
		p = end + 1;
	}
}

/* ---- the set ---- */

void metric_set_put(struct metric_set *s, struct metric *m)
{
	size_t at = s->n;
	for (size_t i = 0; i < s->n; i++) {
		if (strcasecmp(s->m[i].name, m->name))
			continue;
		if (at == s->n) {
			at = i;
			continue;
		}
		metric_clear(&s->m[i]);
		memmove(&s->m[i], &s->m[i + 1], (s->n - i - 1) * sizeof(*s->m));
		s->n--;
		i--;
	}
	if (at == s->n) {
		ALLOC_GROW(s->m, s->n + 1, s->cap);
		s->n++;
	} else {
		metric_clear(&s->m[at]);
	}
	s->m[at] = *m;
	memset(m, 0, sizeof(*m));
}

void metric_set_put_group(struct metric_set *s, struct metric_group *g)
{
	size_t at = s->ng;
	for (size_t i = 0; i < s->ng; i++) {
		if (strcasecmp(s->g[i].name, g->name))
			continue;
		if (at == s->ng) {
			at = i;
			continue;
		}
		metric_group_clear(&s->g[i]);
		memmove(&s->g[i], &s->g[i + 1], (s->ng - i - 1) * sizeof(*s->g));
		s->ng--;
		i--;
	}
	if (at == s->ng) {
		ALLOC_GROW(s->g, s->ng + 1, s->gcap);
		s->ng++;
	} else {
		metric_group_clear(&s->g[at]);
	}
	s->g[at] = *g;
	memset(g, 0, sizeof(*g));
}

static void add_table(struct metric_set *s, const struct metric_table *t)
{
	/* Built-in names may repeat across architectures (ipc), so these are appended, not put. */
	for (size_t i = 0; i < t->nm; i++) {
		const struct metric_def *d = &t->m[i];
		struct metric m;
		/* The unit tests parse every built-in formula, so a failure here is a bug in a table;
		 * the metric is left out rather than half-built. */
		if (metric_init(&m, d->name, d->formula, d->unit, d->desc, t->arch) < 0)
			continue;
		m.pmu = d->pmu ? xstrdup(d->pmu) : NULL;
		ALLOC_GROW(s->m, s->n + 1, s->cap);
		s->m[s->n++] = m;
	}
	for (size_t i = 0; i < t->ng; i++) {
		const struct metric_group_def *d = &t->g[i];
		struct metric_group g = { .name = xstrdup(d->name), .desc = xstrdup(d->desc),
					  .arch = t->arch };
		if (metric_group_fill(&g, d->metrics) < 0) {
			metric_group_clear(&g);
			continue;
		}
		ALLOC_GROW(s->g, s->ng + 1, s->gcap);
		s->g[s->ng++] = g;
	}
}

void metric_set_builtin(struct metric_set *s)
{
	add_table(s, &metric_table_sw);
	add_table(s, &metric_table_arm);
	add_table(s, &metric_table_x86);
}

void metric_set_free(struct metric_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		metric_clear(&s->m[i]);
	for (size_t i = 0; i < s->ng; i++)
		metric_group_clear(&s->g[i]);
	free(s->m);
	free(s->g);
	memset(s, 0, sizeof(*s));
}

/* ---- architectures ---- */

const char *metric_arch_name(enum metric_arch arch)
{
	switch (arch) {
	case METRIC_ANY:
		return "any";
	case METRIC_ARM:
		return "arm";
	case METRIC_X86:
		return "x86";
	}
	return "unknown";
}

bool metric_arch_present(enum metric_arch arch)
{
	if (arch == METRIC_ANY)
		return true;
	char *dir = xasprintf("%s/bus/event_source/devices", sysfs_root());
	DIR *d = opendir(dir);
	bool found = false;
	if (d) {
		struct dirent *de;
		while (!found && (de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			found = arch == METRIC_ARM ? metric_arm_core_pmu(dir, de->d_name)
						   : metric_x86_core_pmu(de->d_name);
		}
		closedir(d);
	}
	free(dir);
	return found;
}

static enum metric_arch host_arch(void)
{
#if defined(__aarch64__) || defined(__arm__)
	return METRIC_ARM;
#elif defined(__x86_64__) || defined(__i386__)
	return METRIC_X86;
#else
	return METRIC_ANY;
#endif
}

/* Which architectures have a PMU here, asked once per lookup rather than per candidate. */
struct arch_ctx {
	bool present[3];
};

static void arch_ctx_init(struct arch_ctx *c)
{
	c->present[METRIC_ANY] = true;
	c->present[METRIC_ARM] = metric_arch_present(METRIC_ARM);
	c->present[METRIC_X86] = metric_arch_present(METRIC_X86);
}

/* How well a namesake fits: the architecture a group asked for, then one present here, then
 * the one lperf was built for. Higher is better. */
static int arch_score(const struct arch_ctx *c, enum metric_arch arch, int want)
{
	return (want >= 0 && (int)arch == want) * 4 + c->present[arch] * 2 + (arch == host_arch());
}

static const struct metric *find_ranked(const struct metric_set *s, const char *name,
					size_t len, const struct arch_ctx *c, int want)
{
	const struct metric *best = NULL;
	int best_score = -1;
	for (size_t i = 0; i < s->n; i++) {
		const struct metric *m = &s->m[i];
		if (strlen(m->name) != len || strncasecmp(m->name, name, len))
			continue;
		int sc = arch_score(c, m->arch, want);
		if (sc > best_score) {
			best = m;
			best_score = sc;
		}
	}
	return best;
}

const struct metric *metric_find(const struct metric_set *s, const char *name)
{
	if (!name)
		return NULL;
	struct arch_ctx c;
	arch_ctx_init(&c);
	return find_ranked(s, name, strlen(name), &c, -1);
}

static const struct metric_group *group_find(const struct metric_set *s, const char *name,
					     size_t len)
{
	for (size_t i = 0; i < s->ng; i++)
		if (strlen(s->g[i].name) == len && !strncasecmp(s->g[i].name, name, len))
			return &s->g[i];
	return NULL;
}

const struct metric_group *metric_group_find(const struct metric_set *s, const char *name)
{
	return name ? group_find(s, name, strlen(name)) : NULL;
}

/* ---- -m lists ---- */

static void push_unique(const struct metric ***out, size_t *n, const struct metric *m)
{
	for (size_t i = 0; i < *n; i++)
		if ((*out)[i] == m)
			return;
	*out = xrealloc(*out, (*n + 1) * sizeof(**out));
	(*out)[(*n)++] = m;
}

static int unknown_name(const struct metric_set *s, const char *name, size_t len)
{
	char *word = xstrndup(name, len);
	struct suggest sg;
	char hint[256];
	suggest_init(&sg, word);
	for (size_t i = 0; i < s->n; i++)
		suggest_offer(&sg, s->m[i].name);
	for (size_t i = 0; i < s->ng; i++)
		suggest_offer(&sg, s->g[i].name);
	suggest_format(&sg, hint, sizeof(hint));
	err_set("unknown metric or metric group '%.*s'%s%s", len > 80 ? 80 : (int)len, word,
		hint[0] ? hint : "", hint[0] ? "" : " ('lperf list' shows the metrics)");
	free(word);
	return -1;
}

long metric_expand(const struct metric_set *s, const char *list, const struct metric ***out)
{
	*out = NULL;
	if (!list || !*list)
		return err_set("empty metric list; give metric or group names, e.g. -m ipc,imix");
	struct arch_ctx c;
	arch_ctx_init(&c);
	size_t n = 0;
	const char *p = list;
	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		while (len && isspace((unsigned char)*p))
			p++, len--;
		while (len && isspace((unsigned char)p[len - 1]))
			len--;
		const struct metric *m;
		const struct metric_group *g;
		if (!len) {
			err_set("empty name in metric list '%.80s'", list);
			goto fail;
		} else if ((m = find_ranked(s, p, len, &c, -1))) {
			push_unique(out, &n, m);
		} else if ((g = group_find(s, p, len))) {
			for (size_t i = 0; i < g->nmetrics; i++) {
				const char *mn = g->metrics[i];
				m = find_ranked(s, mn, strlen(mn), &c, (int)g->arch);
				if (!m) {
					err_set("metric group '%s' names metric '%s', which is not "
						"defined", g->name, mn);
					goto fail;
				}
				push_unique(out, &n, m);
			}
		} else {
			unknown_name(s, p, len);
			goto fail;
		}
		if (!end)
			break;
		p = end + 1;
	}
	return (long)n;
fail:
	free(*out);
	*out = NULL;
	return -1;
}

/* WindowsPerf's simple metrics: named event sets, no formula (wperf's metric.cpp has the same
 * five lists). */
static const struct {
	const char *name;
	const char *events[6];
} wperf_simple[] = {
	{ "imix", { "inst_spec", "dp_spec", "vfp_spec", "ase_spec", "ld_spec", "st_spec" } },
	{ "icache", { "l1i_cache", "l1i_cache_refill", "l2i_cache", "l2i_cache_refill",
		      "inst_retired" } },
	{ "dcache", { "l1d_cache", "l1d_cache_refill", "l2d_cache", "l2d_cache_refill",
		      "inst_retired" } },
	{ "itlb", { "l1i_tlb", "l1i_tlb_refill", "l2i_tlb", "l2i_tlb_refill", "inst_retired" } },
	{ "dtlb", { "l1d_tlb", "l1d_tlb_refill", "l2d_tlb", "l2d_tlb_refill", "inst_retired" } },
};

static void drop_group(struct metric_set *s, const char *name)
{
	for (size_t i = 0; i < s->ng; i++) {
		if (strcasecmp(s->g[i].name, name))
			continue;
		metric_group_clear(&s->g[i]);
		memmove(&s->g[i], &s->g[i + 1], (s->ng - i - 1) * sizeof(*s->g));
		s->ng--;
		i--;
	}
}

void metric_set_wperf_simple(struct metric_set *s, int counters)
{
	for (size_t i = 0; i < ARRAY_SIZE(wperf_simple); i++) {
		size_t n = 0;
		while (n < ARRAY_SIZE(wperf_simple[i].events) && wperf_simple[i].events[n])
			n++;
		if (counters > 0 && (size_t)counters < n)
			n = (size_t)counters;
		struct metric m;
		char *desc = xasprintf("WindowsPerf's %s: its events counted as one group",
				       wperf_simple[i].name);
		metric_init_events(&m, wperf_simple[i].name, (char *const *)wperf_simple[i].events,
				   n, "", desc);
		free(desc);
		m.arch = METRIC_ARM;
		drop_group(s, wperf_simple[i].name);
		metric_set_put(s, &m);
	}
}

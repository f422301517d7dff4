/* The catalog of event names usable here, for `lperf list` and for suggestions. */
#include "events/evlist.h"

#include <stdlib.h>
#include <string.h>

#include "events/generic.h"
#include "events/pfm.h"
#include "events/pmu.h"
#include "events/tracepoint.h"
#include "util/xalloc.h"

bool ev_have_hw_pmu(void)
{
	return pmu_have_core();
}

static const char *own(struct ev_catalog *c, char *s)
{
	if (!s)
		return NULL;
	ALLOC_GROW(c->strings, c->nstrings + 1, c->strcap);
	c->strings[c->nstrings++] = s;
	return s;
}

static struct ev_info *add(struct ev_catalog *c, const char *name, const char *pmu,
			   const char *section, uint32_t type, uint64_t config, bool usable)
{
	ALLOC_GROW(c->info, c->n + 1, c->cap);
	struct ev_info *i = &c->info[c->n++];
	memset(i, 0, sizeof(*i));
	i->name = name;
	i->pmu = pmu;
	i->section = section;
	i->type = type;
	i->config = config;
	i->usable = usable;
	return i;
}

static void add_generic(struct ev_catalog *c, bool hw)
{
	size_t n;
	const struct generic_event *g = generic_events(&n);
	const struct pmu *core = pmu_single_core();
	const char *cpu = core ? own(c, xstrdup(core->name)) : "cpu";
	/* software first, as perf lists them, then hardware */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t k = 0; k < n; k++) {
			bool is_hw = g[k].kind == GENERIC_HW;
			if (is_hw != (pass == 1))
				continue;
			const char *pmu = is_hw ? cpu :
					  g[k].kind == GENERIC_SW ? "software" : "tool";
			struct ev_info *i = add(c, g[k].name, pmu, is_hw ? "hardware" : "software",
						is_hw ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE,
						g[k].config, !is_hw || hw);
			i->alias = g[k].alias;
			i->desc = g[k].desc;
		}
	}
	struct generic_cache_name names[64];
	size_t nc = generic_cache_names(names, ARRAY_SIZE(names));
	for (size_t k = 0; k < nc && k < ARRAY_SIZE(names); k++)
		add(c, own(c, xstrdup(names[k].name)), cpu, "hardware cache", PERF_TYPE_HW_CACHE,
		    names[k].config, hw);
}

static void add_sysfs(struct ev_catalog *c)
{
	const struct pmu_table *t = pmu_table();
	for (size_t k = 0; k < t->n; k++) {
		const struct pmu *p = &t->p[k];
		const char *pname = own(c, xstrdup(p->name));
		for (size_t e = 0; e < p->nev; e++) {
			struct perf_event_attr attr;
			memset(&attr, 0, sizeof(attr));
			bool ok = pmu_encode(p, p->ev[e].terms, &attr, NULL) == 0;
			struct ev_info *i = add(c, own(c, xstrdup(p->ev[e].name)), pname, "sysfs",
						p->type, attr.config, ok);
			if (p->ev[e].builtin)
				i->desc = "Arm recommended event (lperf's table; the kernel does not "
					  "publish it in sysfs)";
		}
		/* A PMU driven by terms alone (arm_spe_0//) is usable as pmu//. */
		if (!p->nev && p->nfmt && !pmu_is_software(p->name)) {
			char *terms = pmu_terms_list(p);
			struct ev_info *i = add(c, own(c, xasprintf("%s//", p->name)), pname, "sysfs",
						p->type, 0, true);
			i->desc = own(c, xasprintf("PMU configured by terms: %s", terms));
			free(terms);
		}
	}
}

struct pfm_ctx {
	struct ev_catalog *c;
	bool usable;
	char *last_pmu;
	const char *pmu;
};

static void add_pfm_one(const char *pmu, const char *name, const char *desc, uint32_t type,
			uint64_t config, void *arg)
{
	struct pfm_ctx *x = arg;
	if (!x->last_pmu || strcmp(x->last_pmu, pmu)) {
		x->last_pmu = (char *)own(x->c, xstrdup(pmu));
		x->pmu = x->last_pmu;
	}
	struct ev_info *i = add(x->c, own(x->c, xstrdup(name)), x->pmu, "libpfm4", type, config,
				x->usable);
	i->desc = desc ? own(x->c, xstrdup(desc)) : NULL;
}

static void add_tp_one(const char *name, uint64_t id, void *arg)
{
	struct ev_catalog *c = arg;
	add(c, own(c, xstrdup(name)), "tracepoint", "tracepoint", PERF_TYPE_TRACEPOINT, id, true);
}

int ev_catalog_build(struct ev_catalog *c, bool include_pfm, bool include_tracepoints)
{
	memset(c, 0, sizeof(*c));
	bool hw = ev_have_hw_pmu();
	add_generic(c, hw);
	add_sysfs(c);
	if (include_pfm) {
		/* libpfm detects PMUs from CPUID even in a VM without counters */
		struct pfm_ctx x = { c, hw, NULL, NULL };
		epfm_for_each(add_pfm_one, &x);
	}
	if (include_tracepoints)
		tp_for_each(add_tp_one, c);
	return 0;
}

void ev_catalog_free(struct ev_catalog *c)
{
	for (size_t i = 0; i < c->nstrings; i++)
		free(c->strings[i]);
	free(c->strings);
	free(c->info);
	memset(c, 0, sizeof(*c));
}

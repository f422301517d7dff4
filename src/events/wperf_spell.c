#include "events/wperf_spell.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/pmu.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static const struct {
	const char *wperf, *linux_term;
} spe_terms[] = {
	{ "ld", "load_filter" },    { "st", "store_filter" },  { "b", "branch_filter" },
	{ "min", "min_latency" },   { "ts", "ts_enable" },     { "pa", "pa_enable" },
	{ "pct", "pct_enable" },    { "ev", "event_filter" },  { "rnd", "jitter" },
};

const char *wperf_spe_term(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(spe_terms); i++)
		if (!strcmp(spe_terms[i].wperf, name))
			return spe_terms[i].linux_term;
	return NULL;
}

/* Rewrites "ld=1,min=64" term by term; returns whether anything changed. */
static bool rewrite_spe_terms(struct strbuf *out, const char *terms, size_t len)
{
	bool changed = false;
	size_t i = 0;
	while (i < len) {
		size_t j = i;
		while (j < len && terms[j] != ',')
			j++;
		size_t k = i;
		while (k < j && terms[k] != '=')
			k++;
		char name[32];
		size_t nl = k - i;
		const char *lt = NULL;
		if (nl < sizeof(name)) {
			memcpy(name, terms + i, nl);
			name[nl] = 0;
			lt = wperf_spe_term(name);
		}
		if (lt) {
			sb_adds(out, lt);
			sb_add(out, terms + k, j - k);
			changed = true;
		} else {
			sb_add(out, terms + i, j - i);
		}
		if (j < len)
			sb_addc(out, ',');
		i = j + 1;
	}
	return changed;
}

/* Appends PMU/EVENT/ for every sysfs PMU whose name starts with prefix; false when none. */
static bool expand_uncore(struct strbuf *out, const char *prefix, const char *ev_prefix,
			  const char *ev, size_t evlen)
{
	const struct pmu_table *t = pmu_table();
	bool any = false;
	for (size_t i = 0; i < t->n; i++) {
		if (strncmp(t->p[i].name, prefix, strlen(prefix)))
			continue;
		if (any)
			sb_addc(out, ',');
		sb_addf(out, "%s/%s%.*s/", t->p[i].name, ev_prefix, (int)evlen, ev);
		any = true;
	}
	return any;
}

static const struct {
	const char *wperf;      /* "/dsu/" */
	const char *pmu_prefix; /* "arm_dsu_" */
	const char *ev_prefix;  /* Linux's event-name prefix */
	const char *what;
} uncore[] = {
	{ "/dsu/", "arm_dsu_", "", "DSU (DynamIQ Shared Unit) PMU, arm_dsu_N" },
	{ "/dmc_clkdiv2/", "arm_dmc620_", "clkdiv2_", "DMC-620 memory controller PMU, arm_dmc620_X" },
	{ "/dmc_clk/", "arm_dmc620_", "clk_", "DMC-620 memory controller PMU, arm_dmc620_X" },
};

char *wperf_spell_rewrite(const char *spec, int *failed)
{
	*failed = 0;
	if (!spec || (!strchr(spec, '/')))
		return NULL;
	struct strbuf out = STRBUF_INIT;
	bool changed = false;
	const char *p = spec;
	bool item_start = true;
	while (*p) {
		if (item_start && *p == '/') {
			size_t u;
			for (u = 0; u < ARRAY_SIZE(uncore); u++)
				if (!strncmp(p, uncore[u].wperf, strlen(uncore[u].wperf)))
					break;
			if (u < ARRAY_SIZE(uncore)) {
				const char *ev = p + strlen(uncore[u].wperf);
				size_t n = strcspn(ev, ",{}:");
				if (!expand_uncore(&out, uncore[u].pmu_prefix, uncore[u].ev_prefix, ev, n)) {
					err_set("'%.*s%.*s': this machine has no %s in sysfs", (int)strlen(uncore[u].wperf),
						uncore[u].wperf, (int)n, ev, uncore[u].what);
					sb_release(&out);
					*failed = 1;
					return NULL;
				}
				changed = true;
				p = ev + n;
				item_start = false;
				continue;
			}
		}
		if (item_start && !strncmp(p, "arm_spe", 7)) {
			const char *slash = strchr(p, '/');
			const char *end = slash ? strchr(slash + 1, '/') : NULL;
			if (slash && end && (size_t)(slash - p) < 64 && !memchr(p, ',', (size_t)(slash - p))) {
				sb_add(&out, p, (size_t)(slash - p) + 1);
				changed |= rewrite_spe_terms(&out, slash + 1, (size_t)(end - slash - 1));
				sb_addc(&out, '/');
				p = end + 1;
				item_start = false;
				continue;
			}
		}
		item_start = *p == ',' || *p == '{';
		sb_addc(&out, *p++);
	}
	if (!changed) {
		sb_release(&out);
		return NULL;
	}
	return sb_detach(&out);
}

int wperf_spe_pmu(char name[64])
{
	const struct pmu_table *t = pmu_table();
	for (size_t i = 0; i < t->n; i++)
		if (!strncmp(t->p[i].name, "arm_spe", 7)) {
			if (name)
				snprintf(name, 64, "%s", t->p[i].name);
			return 0;
		}
	return -1;
}

const char *wperf_spe_version_name(void)
{
	char name[64];
	if (wperf_spe_pmu(name) < 0)
		return NULL;
	static const char *const names[] = { "FEAT_SPE", "FEAT_SPE", "FEAT_SPEv1p1", "FEAT_SPEv1p2",
					     "FEAT_SPEv1p3", "FEAT_SPEv1p4" };
	char rel[128];
	snprintf(rel, sizeof(rel), "bus/event_source/devices/%s/caps/pmsver", name);
	char *v = sysfs_read(rel);
	long ver = v ? strtol(v, NULL, 0) : 1;
	free(v);
	if (ver < 1 || ver >= (long)ARRAY_SIZE(names))
		return "FEAT_SPE";
	return names[ver];
}

/* One event name to one perf_event_attr: generic perf names, sysfs PMU events and term lists,
 * raw codes, tracepoints, and libpfm4 last. */
#include "events/evlist.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "events/generic.h"
#include "events/lookup.h"
#include "events/pfm.h"
#include "events/pmu.h"
#include "events/spe_terms.h"
#include "events/tracepoint.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/suggest.h"
#include "util/xalloc.h"

void ev_free(struct ev *ev)
{
	free(ev->name);
	free(ev->base);
	free(ev->pmu);
	free(ev->encoding);
	free(ev->metric);
	free(ev->cgroup);
	memset(ev, 0, sizeof(*ev));
}

/* Fills the strings of ev (all copied except encoding, which ev takes) and the fields every
 * source shares. */
static void ev_fill(struct ev *ev, const char *name, const char *base, const char *pmu,
		    char *encoding, enum ev_source src)
{
	ev->name = xstrdup(name);
	ev->base = xstrdup(base);
	ev->pmu = xstrdup(pmu);
	ev->encoding = encoding;
	ev->source = src;
	ev->attr.size = sizeof(ev->attr);
	ev->group = -1;
	switch (src) {
	case EV_SRC_HARDWARE:
	case EV_SRC_HWCACHE:
	case EV_SRC_RAW:
	case EV_SRC_PFM:
		ev->needs_hw = true;
		break;
	case EV_SRC_SYSFS:
		ev->needs_hw = !pmu_is_software(pmu);
		break;
	default:
		ev->needs_hw = false;
	}
}

/* The PMU named for generic hardware events: the core PMU when there is exactly one. */
static const char *core_name(void)
{
	const struct pmu *p = pmu_single_core();
	return p ? p->name : "cpu";
}

static char *lower(const char *s)
{
	char *r = xstrdup(s);
	for (char *p = r; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return r;
}

static uint64_t gather(uint64_t mask, uint64_t v)
{
	uint64_t out = 0;
	unsigned bit = 0;
	for (unsigned b = 0; b < 64; b++)
		if (mask & (1ULL << b))
			out |= ((v >> b) & 1) << bit++;
	return out;
}

/* "pmu/event=0x70,long=0x1/": the attr's config fields spelled through the PMU's formats, so
 * that two spellings of one encoding read the same. */
static char *pmu_encoding(const struct pmu *p, const struct perf_event_attr *a)
{
	const uint64_t cfg[PMU_NFIELDS] = { a->config, a->config1, a->config2 };
	static const char *const fname[PMU_NFIELDS] = { "config", "config1", "config2" };
	uint64_t left[PMU_NFIELDS] = { a->config, a->config1, a->config2 };
	struct strbuf sb = STRBUF_INIT;
	sb_addf(&sb, "%s/", p->name);
	for (size_t i = 0; i < p->nfmt; i++) {
		const struct pmu_format *f = &p->fmt[i];
		if (f->bad)
			continue;
		uint64_t v = gather(f->mask, cfg[f->field]);
		left[f->field] &= ~f->mask;
		if (v)
			sb_addf(&sb, "%s%s=0x%llx", sb.len > strlen(p->name) + 1 ? "," : "", f->name,
				(unsigned long long)v);
	}
	for (int i = 0; i < PMU_NFIELDS; i++)
		if (left[i])
			sb_addf(&sb, "%s%s=0x%llx", sb.len > strlen(p->name) + 1 ? "," : "", fname[i],
				(unsigned long long)left[i]);
	if (sb.len == strlen(p->name) + 1) {
		/* all zero: name the first format so the spelling still parses */
		const char *first = p->nfmt && !p->fmt[0].bad ? p->fmt[0].name : "config";
		sb_addf(&sb, "%s=0", first);
	}
	sb_addc(&sb, '/');
	return sb_detach(&sb);
}

static int unknown_pmu(const char *pmu, const char *name)
{
	if (spe_pmu_name(pmu))
		return err_set("'%s': %s", name, spe_absent_hint());
	const struct pmu_table *t = pmu_table();
	struct suggest s;
	suggest_init(&s, pmu);
	struct strbuf all = STRBUF_INIT;
	for (size_t i = 0; i < t->n; i++) {
		suggest_offer(&s, t->p[i].name);
		sb_addf(&all, "%s%s", i ? ", " : "", t->p[i].name);
	}
	char hint[256];
	suggest_format(&s, hint, sizeof(hint));
	err_set("unknown PMU '%s' in '%s'%s (PMUs here: %s)", pmu, name, hint,
		t->n ? sb_str(&all) : "none");
	sb_release(&all);
	return -1;
}

static int lookup_pmu_form(const char *name, struct ev *ev, struct pmu_extra *x)
{
	size_t len = strlen(name);
	const char *slash = strchr(name, '/');
	if (name[0] == '/' && len > 2 && name[1] != '/' && strchr(name + 1, '/'))
		return err_set("'%s': a PMU event is written pmu/event/ (WindowsPerf's /pmu/event "
			       "spelling is not used here)", name);
	if (len < 3 || name[len - 1] != '/' || slash == name + len - 1)
		return err_set("malformed PMU event '%s' (expected pmu/event/ or pmu/term=value,.../, "
			       "e.g. armv8_pmuv3_0/event=0x70/)", name);
	char *pmuname = xstrndup(name, (size_t)(slash - name));
	char *terms = xstrndup(slash + 1, len - 1 - (size_t)(slash - name) - 1);
	int r = -1;
	const struct pmu *p = NULL;
	if (strchr(terms, '/'))
		err_set("malformed PMU event '%s': '/' inside the term list", name);
	else if (!(p = pmu_find(pmuname)))
		unknown_pmu(pmuname, name);
	else {
		struct perf_event_attr attr;
		memset(&attr, 0, sizeof(attr));
		attr.type = p->type;
		if (pmu_encode(p, terms, &attr, x) < 0) {
			err_wrap("'%s'", name);
		} else {
			char *base = x->event ? lower(x->event) : xstrdup(name);
			ev->attr = attr;
			ev_fill(ev, name, base, p->name, pmu_encoding(p, &attr), EV_SRC_SYSFS);
			free(base);
			r = 1;
		}
	}
	free(pmuname);
	free(terms);
	return r;
}

static int lookup_generic(const char *name, struct ev *ev)
{
	const struct generic_event *g = generic_find(name);
	if (g) {
		const char *base = strcasecmp(name, g->name) ? g->alias : g->name;
		static const enum ev_source src[] = {
			[GENERIC_HW] = EV_SRC_HARDWARE, [GENERIC_SW] = EV_SRC_SOFTWARE,
			[GENERIC_TOOL] = EV_SRC_TOOL,
		};
		static const char *const kind[] = {
			[GENERIC_HW] = "hardware", [GENERIC_SW] = "software", [GENERIC_TOOL] = "tool",
		};
		ev->attr.type = g->kind == GENERIC_HW ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE;
		ev->attr.config = g->config;
		char *enc = g->kind == GENERIC_TOOL ?
			    xstrdup("tool/duration_time/") :
			    xasprintf("%s/config=0x%llx/", kind[g->kind],
				      (unsigned long long)g->config);
		ev_fill(ev, name, base, g->kind == GENERIC_HW ? core_name() :
			g->kind == GENERIC_SW ? "software" : "tool", enc, src[g->kind]);
		return 1;
	}
	uint64_t config;
	int r = generic_cache_parse(name, &config);
	if (r <= 0)
		return r;
	ev->attr.type = PERF_TYPE_HW_CACHE;
	ev->attr.config = config;
	ev_fill(ev, name, name, core_name(),
		xasprintf("hw_cache/config=0x%llx/", (unsigned long long)config), EV_SRC_HWCACHE);
	return 1;
}

static int lookup_sysfs(const char *name, struct ev *ev)
{
	const struct pmu *p;
	const struct pmu_event *e;
	if (!pmu_lookup_event(name, &p, &e))
		return 0;
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.type = p->type;
	if (pmu_encode(p, e->terms, &attr, NULL) < 0)
		return err_wrap("event '%s' of PMU '%s' ('%s')", e->name, p->name, e->terms);
	ev->attr = attr;
	char *base = lower(name);
	ev_fill(ev, name, base, p->name, pmu_encoding(p, &attr), EV_SRC_SYSFS);
	free(base);
	return 1;
}

/* r1b, r00c0, r0x1b (perf), or 0x1b (WindowsPerf's plain number). With exactly one core PMU
 * the code goes to that PMU's type, as newer perf does on Arm; otherwise (none, or hybrid
 * cpu_core + cpu_atom) to PERF_TYPE_RAW, which the kernel offers to every CPU PMU. On x86 the
 * "cpu" PMU's type is PERF_TYPE_RAW anyway. */
static int lookup_raw(const char *name, struct ev *ev)
{
	const char *hex;
	if (name[0] == 'r' || name[0] == 'R')
		hex = name + 1 + ((name[1] == '0' && (name[2] == 'x' || name[2] == 'X')) ? 2 : 0);
	else if (name[0] == '0' && (name[1] == 'x' || name[1] == 'X'))
		hex = name + 2;
	else
		return 0;
	size_t n = strlen(hex);
	if (!n || strspn(hex, "0123456789abcdefABCDEF") != n)
		return 0;
	size_t lead = strspn(hex, "0");
	if (n - lead > 16)
		return err_set("raw event '%s' does not fit in 64 bits", name);
	uint64_t v = strtoull(hex, NULL, 16);
	const struct pmu *core = pmu_single_core();
	ev->attr.type = core ? core->type : PERF_TYPE_RAW;
	ev->attr.config = v;
	ev_fill(ev, name, name, core ? core->name : "cpu",
		xasprintf("%s/config=0x%llx/", core ? core->name : "cpu", (unsigned long long)v),
		EV_SRC_RAW);
	return 1;
}

static int lookup_tracepoint(const char *name, struct ev *ev)
{
	uint64_t id;
	int r = tp_lookup(name, &id);
	if (r <= 0)
		return r;
	ev->attr.type = PERF_TYPE_TRACEPOINT;
	ev->attr.config = id;
	ev_fill(ev, name, name, "tracepoint",
		xasprintf("tracepoint/config=0x%llx/", (unsigned long long)id), EV_SRC_TRACEPOINT);
	return 1;
}

/* libpfm accepts its own u/k/h attributes; lperf's :u/:k/:h mean the same, so a trailing
 * modifier-looking part is lperf's and the name without it is what libpfm must see. */
static bool ends_like_modifier(const char *name)
{
	const char *c = strrchr(name, ':');
	if (!c || !c[1] || (c > name && c[-1] == ':'))
		return false;
	const char *t = c + 1;
	if (strspn(t, "ukhp") == strlen(t))
		return true;
	if (t[0] == '0' && (t[1] == 'x' || t[1] == 'X'))
		t += 2;
	return *t && strspn(t, t == c + 1 ? "0123456789" : "0123456789abcdefABCDEF") == strlen(t);
}

/* True when the libpfm name sets the privilege levels itself (":u=1", ":k=0"). */
static bool pfm_sets_levels(const char *name)
{
	for (const char *c = strchr(name, ':'); c; c = strchr(c + 1, ':'))
		if (strchr("ukhUKH", c[1]) && c[1] && c[2] == '=')
			return true;
	return false;
}

static int lookup_pfm(const char *name, struct ev *ev)
{
	if (ends_like_modifier(name))
		return 0;
	char *fstr, *pmu;
	int r = epfm_encode(name, &ev->attr, sizeof(ev->attr), &fstr, &pmu);
	if (r < 0 && !strncmp(err_msg(), "libpfm4 initialization", 22))
		return 0; /* no libpfm here: the name is simply unknown */
	if (r <= 0)
		return r;
	if (!strcmp(pmu, "perf") || !strcmp(pmu, "perf_raw")) {
		/* libpfm's copies of perf's generic names: ours, with our modifiers */
		free(fstr);
		free(pmu);
		memset(&ev->attr, 0, sizeof(ev->attr));
		return 0;
	}
	if (pfm_sets_levels(name)) {
		ev->user_mods = true;
	} else {
		ev->attr.exclude_user = 0;
		ev->attr.exclude_kernel = 0;
		ev->attr.exclude_hv = 0;
	}
	ev_fill(ev, name, name, pmu, fstr, EV_SRC_PFM);
	free(pmu);
	return 1;
}

int ev_lookup_quiet(const char *name, struct ev *ev, struct pmu_extra *x)
{
	memset(ev, 0, sizeof(*ev));
	if (!*name)
		return 0;
	if (strchr(name, '/'))
		return lookup_pmu_form(name, ev, x);
	int (*const steps[])(const char *, struct ev *) = {
		lookup_generic, lookup_sysfs, lookup_raw, lookup_tracepoint, lookup_pfm,
	};
	for (size_t i = 0; i < ARRAY_SIZE(steps); i++) {
		int r = steps[i](name, ev);
		if (r)
			return r;
	}
	return 0;
}

int ev_unknown(const char *name)
{
	if (tp_is_name(name)) {
		char *what = xasprintf("cannot use tracepoint '%s'", name);
		int denied = tp_denied(what);
		free(what);
		if (denied)
			return -1;
	}
	struct ev_catalog c;
	ev_catalog_build(&c, true, false);
	struct suggest s;
	suggest_init(&s, name);
	for (size_t i = 0; i < c.n; i++) {
		suggest_offer(&s, c.info[i].name);
		if (c.info[i].alias)
			suggest_offer(&s, c.info[i].alias);
	}
	char hint[512];
	suggest_format(&s, hint, sizeof(hint));
	if (!hint[0])
		tp_hint(name, hint, sizeof(hint));
	if (!hint[0])
		snprintf(hint, sizeof(hint), " (run 'lperf list' for the events available here)");
	err_set("unknown event '%s'%s", name, hint);
	ev_catalog_free(&c);
	return -1;
}

int ev_resolve(const char *name, struct ev *ev)
{
	struct pmu_extra x = { 0 };
	int r = ev_lookup_quiet(name, ev, &x);
	if (r > 0 && x.name) {
		free(ev->name);
		ev->name = x.name;
		x.name = NULL;
	}
	if (r > 0 && x.period)
		ev->period = x.period;
	free(x.name);
	if (r > 0)
		return 0;
	if (r == 0)
		ev_unknown(name);
	return -1;
}

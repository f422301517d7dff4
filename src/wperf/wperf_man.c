/* `wperf man NAME`, `wperf man CPU/NAME`, `lperf man NAME`: what WindowsPerf's manual pages
 * say about an event, a metric or a metric group (CPU, NAME, DESCRIPTION; for metrics EVENTS,
 * FORMULA, UNIT; for groups METRICS). NAME is looked up for this machine, or for CPU (an Arm
 * product name such as neoverse-n1, or armv8-a/armv9-a) from lperf's built-in Arm tables. The
 * commands are in cmd/man.c, the layout in output/wperf_info_out.c. */
#include "wperf/wperf_man.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "events/evlist.h"
#include "events/generic.h"
#include "events/metric.h"
#include "sysinfo/sysinfo.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static const char *const arm_cpus[] = { "armv8-a", "armv9-a", "neoverse-n1", "neoverse-n2",
					"neoverse-n2-r0p0", "neoverse-n2-r0p1", "neoverse-n2-r0p3",
					"neoverse-n3", "neoverse-v1", "neoverse-v2", "neoverse-v3" };

static bool known_arm_cpu(const char *cpu)
{
	for (size_t i = 0; i < ARRAY_SIZE(arm_cpus); i++)
		if (!strcasecmp(arm_cpus[i], cpu))
			return true;
	return false;
}

/* This machine's CPU name as wperf spells products. */
static char *this_cpu(void)
{
	struct sysinfo_cpu cpu;
	sysinfo_read_cpu(&cpu, NULL);
	char *r = xstrdup(cpu.product ? cpu.product : cpu.have_midr ? "armv8-a" : "x86-64");
	sysinfo_cpu_free(&cpu);
	return r;
}

static void field(struct wperf_man *m, const char *name, const char *value)
{
	if (m->n < ARRAY_SIZE(m->field)) {
		m->field[m->n] = name;
		m->value[m->n++] = xstrdup(value ? value : "");
	}
}

static bool man_event(struct wperf_man *t, const char *cpu, const char *name, bool other_cpu)
{
	if (!other_cpu) {
		struct ev_catalog cat = { 0 };
		bool found = false;
		if (ev_catalog_build(&cat, false, false) == 0) {
			for (size_t i = 0; i < cat.n && !found; i++) {
				const struct ev_info *e = &cat.info[i];
				if (strcasecmp(e->name, name) && !(e->alias && !strcasecmp(e->alias, name)))
					continue;
				char *nm = xasprintf("%s - %s event 0x%llx (%s)", e->name, e->section,
						     (unsigned long long)e->config, e->pmu);
				field(t, "CPU", cpu);
				field(t, "NAME", nm);
				field(t, "DESCRIPTION", e->desc ? e->desc : "(no description in sysfs)");
				free(nm);
				found = true;
			}
		}
		ev_catalog_free(&cat);
		if (found)
			return true;
	}
	if (!other_cpu && !strcmp(cpu, "x86-64"))
		return false;
	size_t n;
	const struct generic_arm_event *ae = generic_arm_events(&n);
	for (size_t i = 0; i < n; i++) {
		if (strcasecmp(ae[i].name, name))
			continue;
		char *nm = xasprintf("%s - Arm PMUv3 event 0x%04x", ae[i].name, ae[i].code);
		field(t, "CPU", cpu);
		field(t, "NAME", nm);
		field(t, "DESCRIPTION", "Arm architecture recommended event (see the Arm ARM, "
		      "\"Performance Monitors Extension\")");
		free(nm);
		return true;
	}
	return false;
}

static char *join_events(const struct metric *m)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < m->nevents; i++)
		sb_addf(&sb, "%s%s", i ? ", " : "", m->events[i]);
	return sb_detach(&sb);
}

static bool man_metric(struct wperf_man *t, const struct metric_set *s, const char *cpu,
		       const char *name, bool other_cpu)
{
	const struct metric *m = NULL;
	for (size_t i = 0; i < s->n && !m; i++)
		if (!strcasecmp(s->m[i].name, name) &&
		    (other_cpu ? s->m[i].arch != METRIC_X86 : metric_arch_present(s->m[i].arch)))
			m = &s->m[i];
	if (m) {
		char *nm = xasprintf("%s - %s", m->name, m->desc ? m->desc : m->name);
		char *ev = join_events(m);
		field(t, "CPU", cpu);
		field(t, "NAME", nm);
		field(t, "EVENTS", ev);
		field(t, "DESCRIPTION", m->desc);
		field(t, "FORMULA", m->formula);
		field(t, "UNIT", m->unit);
		free(nm);
		free(ev);
		return true;
	}
	for (size_t i = 0; i < s->ng; i++) {
		const struct metric_group *g = &s->g[i];
		if (strcasecmp(g->name, name) ||
		    !(other_cpu ? g->arch != METRIC_X86 : metric_arch_present(g->arch)))
			continue;
		struct strbuf sb = STRBUF_INIT;
		for (size_t k = 0; k < g->nmetrics; k++)
			sb_addf(&sb, "%s%s", k ? ", " : "", g->metrics[k]);
		char *nm = xasprintf("%s - %s", g->name, g->desc ? g->desc : g->name);
		field(t, "CPU", cpu);
		field(t, "NAME", nm);
		field(t, "DESCRIPTION", g->desc);
		field(t, "METRICS", sb_str(&sb));
		free(nm);
		sb_release(&sb);
		return true;
	}
	return false;
}

enum wperf_man_result wperf_man_lookup(const char *arg, const char *metric_file, struct wperf_man *out)
{
	memset(out, 0, sizeof(*out));
	/* wperf keeps the first of a comma-separated list. */
	char *name = xstrndup(arg, strcspn(arg, ","));
	char *slash = strchr(name, '/');
	char *cpu = NULL;
	const char *what = name;
	bool other = false;
	if (slash) {
		*slash = 0;
		cpu = xstrdup(name);
		what = slash + 1;
		if (!known_arm_cpu(cpu)) {
			struct strbuf sb = STRBUF_INIT;
			for (size_t i = 0; i < ARRAY_SIZE(arm_cpus); i++)
				sb_addf(&sb, "%s%s", i ? ", " : "", arm_cpus[i]);
			err_set("CPU name: \"%s\" not found, use %s", cpu, sb_str(&sb));
			sb_release(&sb);
			free(cpu);
			free(name);
			return WPERF_MAN_BAD_CPU;
		}
		other = true;
	} else {
		cpu = this_cpu();
	}
	struct metric_set s = { 0 };
	metric_set_builtin(&s);
	enum wperf_man_result r = WPERF_MAN_FOUND;
	if (metric_file && metric_set_load_file(&s, metric_file) < 0)
		r = WPERF_MAN_BAD_FILE;
	else if (!man_metric(out, &s, cpu, what, other) && !man_event(out, cpu, what, other)) {
		err_set("\"%s\" not found! Ensure it is compatible with the specified CPU", what);
		r = WPERF_MAN_NOT_FOUND;
	}
	metric_set_free(&s);
	free(cpu);
	free(name);
	return r;
}

void wperf_man_free(struct wperf_man *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->value[i]);
	m->n = 0;
}

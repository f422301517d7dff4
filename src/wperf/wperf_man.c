/* `wperf man NAME`, `wperf man CPU/NAME`, `lperf man NAME`: what WindowsPerf's manual pages
 * say about an event, a metric or a metric group (CPU, NAME, DESCRIPTION; for metrics EVENTS,
 * FORMULA, UNIT; for groups METRICS). With CPU (neoverse-n1, armv8-a, an alias such as
 * neoverse-n2-r0p3), and for this machine when it is an Arm core, from Arm's per-CPU data read
 * at run time (sysinfo/armdata.c); on other machines from this machine's events (sysfs,
 * libpfm4) and lperf's metrics. Metrics of a -C file come first, as user metrics. The
 * commands are in cmd/man.c, the layout in output/wperf_info_out.c. */
#include "wperf/wperf_man.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "events/evlist.h"
#include "events/metric.h"
#include "sysinfo/armdata.h"
#include "sysinfo/sysinfo.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* This machine's CPU: its product name ("neoverse-n1") when it is an Arm core, "armv8-a" for
 * an Arm core sysinfo does not name, NULL elsewhere. */
static char *this_arm_cpu(void)
{
	struct sysinfo_cpu cpu;
	sysinfo_read_cpu(&cpu, NULL);
	char *r = cpu.product ? xstrdup(cpu.product) : cpu.have_midr ? xstrdup("armv8-a") : NULL;
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

/* An event of this machine's catalog (sysfs, libpfm4). */
static bool man_local_event(struct wperf_man *t, const char *cpu, const char *name)
{
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
	return found;
}

static char *join_events(const struct metric *m)
{
	struct strbuf sb = STRBUF_INIT;
	for (size_t i = 0; i < m->nevents; i++)
		sb_addf(&sb, "%s%s", i ? ", " : "", m->events[i]);
	return sb_detach(&sb);
}

/* A metric or group of s that applies here (any_arch: every one, for the -C file's). */
static bool man_metric(struct wperf_man *t, const struct metric_set *s, const char *cpu,
		       const char *name, bool any_arch)
{
	const struct metric *m = NULL;
	for (size_t i = 0; i < s->n && !m; i++)
		if (!strcasecmp(s->m[i].name, name) && (any_arch || metric_arch_present(s->m[i].arch)))
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
		if (strcasecmp(g->name, name) || !(any_arch || metric_arch_present(g->arch)))
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

/* "a,b,c" -> "a, b, c", as wperf lists a metric's events. */
static char *spaced_list(const char *s)
{
	struct strbuf sb = STRBUF_INIT;
	for (const char *p = s; *p; p++)
		sb_addf(&sb, *p == ',' ? ", " : "%c", *p);
	return sb_detach(&sb);
}

/* NAME in Arm's data for cpu, in wperf's order: a metric, an event, a group of metrics. */
static bool man_armdata(struct wperf_man *t, const struct armdata *d, const char *cpu,
			const char *name)
{
	const struct armdata_metric *m = armdata_metric(d, name);
	if (m) {
		char *ev = spaced_list(m->events);
		field(t, "CPU", cpu);
		field(t, "NAME", m->name);
		field(t, "EVENTS", ev);
		field(t, "DESCRIPTION", m->desc);
		field(t, "FORMULA", m->formula);
		field(t, "UNIT", m->unit);
		free(ev);
		return true;
	}
	const struct armdata_event *e = armdata_event(d, name);
	if (e) {
		char *nm = *e->title ? xasprintf("%s - %s", e->name, e->title) : xstrdup(e->name);
		field(t, "CPU", cpu);
		field(t, "NAME", nm);
		field(t, "DESCRIPTION", e->desc);
		free(nm);
		return true;
	}
	struct strbuf sb = STRBUF_INIT;
	const char *group = NULL;
	for (size_t i = 0; i < d->nm; i++) {
		if (!armdata_in_group(&d->m[i], name))
			continue;
		sb_addf(&sb, "%s%s", sb.len ? ", " : "", d->m[i].name);
		/* The group as the data spells it. */
		for (const char *p = d->m[i].groups; !group && *p; p += strcspn(p, ";"), p += *p == ';')
			if (!strncasecmp(p, name, strlen(name)) && strcspn(p, ";") == strlen(name))
				group = p;
	}
	bool found = sb.len > 0;
	if (found) {
		char *g = xstrndup(group, strlen(name));
		/* The data names groups only: the title is the name in words (Miss Ratio). */
		char *words = xstrdup(g);
		for (char *p = words; *p; p++)
			*p = *p == '_' ? ' ' : *p;
		char *nm = strcmp(words, g) ? xasprintf("%s - %s", g, words) : xstrdup(g);
		char *desc = xasprintf("The metrics Arm's data for %s puts in the %s group.", cpu, g);
		field(t, "CPU", cpu);
		field(t, "NAME", nm);
		free(nm);
		free(words);
		field(t, "DESCRIPTION", desc);
		field(t, "METRICS", sb_str(&sb));
		free(desc);
		free(g);
	}
	sb_release(&sb);
	return found;
}

/* cpu_name: the CPU/ prefix, or this machine's Arm core. */
static enum wperf_man_result man_arm(struct wperf_man *out, const char *cpu_name, const char *what,
				     const struct metric_set *user, bool named)
{
	struct armdata_cpus cpus;
	if (armdata_cpus(armdata_dir(), &cpus) < 0)
		return WPERF_MAN_NO_DATA;
	const struct armdata_cpu *cpu = armdata_cpu_find(&cpus, cpu_name);
	if (!cpu && !named)
		cpu = armdata_cpu_find(&cpus, "armv8-a");
	if (!cpu) {
		char *names = armdata_cpu_names(&cpus);
		err_set("CPU name: \"%s\" not found, use %s.", cpu_name, names);
		free(names);
		armdata_cpus_free(&cpus);
		return WPERF_MAN_BAD_CPU;
	}
	enum wperf_man_result r = WPERF_MAN_FOUND;
	struct armdata d;
	if (armdata_load(armdata_dir(), cpu, &d) < 0) {
		r = WPERF_MAN_NO_DATA;
	} else {
		if (!man_metric(out, user, cpu->name, what, true) &&
		    !man_armdata(out, &d, cpu->name, what)) {
			err_set("\"%s\" not found! Ensure it is compatible with the specified CPU", what);
			r = WPERF_MAN_NOT_FOUND;
		}
		armdata_free(&d);
	}
	armdata_cpus_free(&cpus);
	return r;
}

enum wperf_man_result wperf_man_lookup(const char *arg, const char *metric_file, struct wperf_man *out)
{
	memset(out, 0, sizeof(*out));
	/* wperf keeps the first of a comma-separated list; CPU/NAME splits at the first '/'. */
	char *name = xstrndup(arg, strcspn(arg, ","));
	char *slash = strchr(name, '/');
	const char *what = slash ? slash + 1 : name;
	if (slash)
		*slash = 0;
	char *cpu = slash ? xstrdup(name) : this_arm_cpu();
	struct metric_set user = { 0 };
	enum wperf_man_result r;
	if (metric_file && metric_set_load_file(&user, metric_file) < 0) {
		r = WPERF_MAN_BAD_FILE;
	} else if (cpu) {
		r = man_arm(out, cpu, what, &user, slash != NULL);
	} else {
		/* Not an Arm machine: its own events and lperf's metrics. */
		struct metric_set s = { 0 };
		metric_set_builtin(&s);
		r = WPERF_MAN_FOUND;
		if (!man_metric(out, &user, "x86-64", what, true) &&
		    !man_metric(out, &s, "x86-64", what, false) &&
		    !man_local_event(out, "x86-64", what)) {
			err_set("\"%s\" not found! Ensure it is compatible with the specified CPU", what);
			r = WPERF_MAN_NOT_FOUND;
		}
		metric_set_free(&s);
	}
	if (r != WPERF_MAN_FOUND)
		wperf_man_free(out);
	metric_set_free(&user);
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

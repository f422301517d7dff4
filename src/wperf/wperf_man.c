/* `wperf man NAME`, `wperf man CPU/NAME`, `lperf man NAME`: man-page style entries for an
 * event, a metric or a metric group, as WindowsPerf prints them (CPU, NAME, DESCRIPTION; for
 * metrics EVENTS, FORMULA, UNIT; for groups METRICS), or its Manual_Results JSON. NAME is
 * looked up for this machine, or for CPU (an Arm product name such as neoverse-n1, or
 * armv8-a/armv9-a) from lperf's built-in Arm tables. */
#include "wperf/wperf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "events/evlist.h"
#include "events/generic.h"
#include "events/metric.h"
#include "output/wperf_out.h"
#include "sysinfo/sysinfo.h"
#include "util/error.h"
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

static void field(struct wperf_tab *t, const char *name, const char *value)
{
	table_rowv(&t->t, name, value && *value ? value : "-");
}

static bool man_event(struct wperf_tab *t, const char *cpu, const char *name, bool other_cpu)
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

static bool man_metric(struct wperf_tab *t, const struct metric_set *s, const char *cpu,
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

static int man_run(const char *arg, bool json, const char *metric_file)
{
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
			fprintf(stderr, "warning: CPU name: \"%s\" not found, use %s\n", cpu, sb_str(&sb));
			sb_release(&sb);
			free(cpu);
			free(name);
			return EXIT_USAGE;
		}
		other = true;
	} else {
		cpu = this_cpu();
	}
	struct metric_set s = { 0 };
	metric_set_builtin(&s);
	int r = 0;
	if (metric_file && metric_set_load_file(&s, metric_file) < 0) {
		fprintf(stderr, "error: %s\n", err_msg());
		r = EXIT_USAGE;
	}
	static const char *const cols[] = { "Field Type", "Result" };
	static const char *const keys[] = { "Field_Type", "Result" };
	struct wperf_tab t;
	wperf_tab_init(&t, "Manual_Results", 2, cols, keys);
	if (r == 0 && !man_metric(&t, &s, cpu, what, other) && !man_event(&t, cpu, what, other)) {
		fprintf(stderr, "warning: \"%s\" not found! Ensure it is compatible with the specified "
			"CPU\n", what);
		r = EXIT_RUNTIME;
	}
	if (r == 0 && json) {
		wperf_tabs_json(stdout, &t, 1);
	} else if (r == 0) {
		for (size_t i = 0; i < t.t.nrows; i++)
			printf("%s\n       %s\n\n", t.t.cells[2 * i], t.t.cells[2 * i + 1]);
	}
	wperf_tab_free(&t);
	metric_set_free(&s);
	free(cpu);
	free(name);
	return r;
}

int wperf_man(const struct wperf_args *a)
{
	if (!a->man_name) {
		fprintf(stderr, "error: man needs a NAME: an event, metric or metric group, or "
			"CPU/NAME (e.g. neoverse-n1/branch_percentage)\n");
		return EXIT_USAGE;
	}
	return man_run(a->man_name, a->json, a->metric_file);
}

int cmd_man(int argc, char **argv)
{
	bool json = false;
	const char *name = NULL, *mfile = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: lperf man [--json] [--metric-file FILE] NAME | CPU/NAME\n\n"
			       "Describes an event, a metric or a metric group (WindowsPerf's man).\n");
			return 0;
		} else if (!strcmp(argv[i], "--metric-file") && i + 1 < argc) {
			mfile = argv[++i];
		} else if (argv[i][0] == '-' || name) {
			fprintf(stderr, "lperf man: unexpected argument '%s'\n"
				"Run 'lperf man --help' for the usage.\n", argv[i]);
			return EXIT_USAGE;
		} else {
			name = argv[i];
		}
	}
	if (!name) {
		fprintf(stderr, "lperf man: give an event, metric or metric group name\n");
		return EXIT_USAGE;
	}
	return man_run(name, json, mfile);
}

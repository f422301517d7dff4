#include "output/prom_out.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/strbuf.h"

/* The event's name without modifiers is one of names[]. */
static bool named(const struct ev *ev, const char *const *names)
{
	const char *n = ev->base ? ev->base : ev->name;
	size_t len = strcspn(n, ":");
	for (; *names; names++)
		if (strlen(*names) == len && !strncmp(n, *names, len))
			return true;
	return false;
}

/* The first counted event among names (generic, or an Arm PMU's), -1 if none. */
static long find_event(const struct stat_result *r, const char *const *names)
{
	for (size_t e = 0; e < r->nev; e++)
		if (r->ev[e].total.status != COUNTER_NOT_SUPPORTED && named(&r->evl->ev[e], names))
			return (long)e;
	return -1;
}

static const char *const INSNS[] = { "instructions", "inst_retired", "INST_RETIRED", NULL };
static const char *const CYCLES[] = { "cycles", "cpu-cycles", "cpu_cycles", "CPU_CYCLES", NULL };

double prom_ipc(const struct stat_result *r, long c)
{
	long i = find_event(r, INSNS), y = find_event(r, CYCLES);
	if (i < 0 || y < 0 || (c >= 0 && (size_t)c >= r->ncpus))
		return NAN;
	double ni = c < 0 ? r->ev[i].total.scaled : r->ev[i].cpu[c].scaled;
	double ny = c < 0 ? r->ev[y].total.scaled : r->ev[y].cpu[c].scaled;
	return ny > 0 && isfinite(ni) ? ni / ny : NAN;
}

void prom_walk(const struct stat_result *r, prom_series_fn fn, void *arg)
{
	bool per_cpu = r->ncpus > 0 && r->cpus && r->cpus[0] >= 0;
	char cpu[16];
	for (size_t e = 0; e < r->nev; e++) {
		const struct stat_event *se = &r->ev[e];
		const struct ev *ev = &r->evl->ev[e];
		if (se->total.status == COUNTER_NOT_SUPPORTED)
			continue;
		struct prom_label l[3] = { { "cpu", cpu }, { "event", ev->name }, { "pmu", ev->pmu ? ev->pmu : "" } };
		if (!per_cpu) {
			double v = se->total.scaled;
			fn("lperf_event_total", l + 1, 2, isfinite(v) && v > 0 ? v : 0.0, arg);
			continue;
		}
		for (size_t c = 0; c < r->ncpus; c++) {
			snprintf(cpu, sizeof(cpu), "%d", r->cpus[c]);
			double v = se->cpu[c].scaled;
			fn("lperf_event_total", l, 3, isfinite(v) && v > 0 ? v : 0.0, arg);
		}
	}
	struct prom_label l = { "cpu", cpu };
	/* IPC wherever both events are counted (NaN until cycles are), so the series stay fixed */
	bool ipc = find_event(r, INSNS) >= 0 && find_event(r, CYCLES) >= 0;
	if (ipc && !per_cpu)
		fn("lperf_ipc", NULL, 0, prom_ipc(r, -1), arg);
	for (size_t c = 0; ipc && per_cpu && c < r->ncpus; c++) {
		snprintf(cpu, sizeof(cpu), "%d", r->cpus[c]);
		fn("lperf_ipc", &l, 1, prom_ipc(r, (long)c), arg);
	}
	fn("lperf_up_seconds", NULL, 0, r->duration, arg);
}

/* A label value: backslash, double quote and newline escaped, as the format wants. */
static void label(struct strbuf *sb, const char *name, const char *v)
{
	sb_addf(sb, "%s=\"", name);
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			sb_addc(sb, '\\');
		if (*v == '\n')
			sb_adds(sb, "\\n");
		else
			sb_addc(sb, *v);
	}
	sb_addc(sb, '"');
}

struct text {
	struct strbuf sb;
	const char *family; /* the family whose HELP and TYPE are out */
};

static const struct {
	const char *family, *type, *help;
} FAMILIES[] = {
	{ "lperf_event_total", "counter", "Events counted by lperf stat since it started (task-clock "
	  "and cpu-clock in nanoseconds)." },
	{ "lperf_ipc", "gauge", "Instructions per cycle since lperf stat started." },
	{ "lperf_up_seconds", "gauge", "Seconds lperf stat has been counting." },
};

static void text_series(const char *family, const struct prom_label *l, size_t n, double v, void *arg)
{
	struct text *t = arg;
	if (!t->family || strcmp(t->family, family)) {
		for (size_t i = 0; i < sizeof(FAMILIES) / sizeof(FAMILIES[0]); i++)
			if (!strcmp(FAMILIES[i].family, family))
				sb_addf(&t->sb, "# HELP %s %s\n# TYPE %s %s\n", family, FAMILIES[i].help, family,
					FAMILIES[i].type);
		t->family = family;
	}
	sb_adds(&t->sb, family);
	for (size_t i = 0; i < n; i++) {
		sb_addc(&t->sb, i ? ',' : '{');
		label(&t->sb, l[i].name, l[i].value);
	}
	if (n)
		sb_addc(&t->sb, '}');
	if (!strcmp(family, "lperf_event_total"))
		sb_addf(&t->sb, " %.0f\n", v);
	else if (!strcmp(family, "lperf_up_seconds"))
		sb_addf(&t->sb, " %.3f\n", v);
	else if (isfinite(v))
		sb_addf(&t->sb, " %.6g\n", v);
	else
		sb_adds(&t->sb, " NaN\n");
}

char *prom_format(const struct stat_result *r)
{
	struct text t = { STRBUF_INIT, NULL };
	prom_walk(r, text_series, &t);
	return sb_detach(&t.sb);
}

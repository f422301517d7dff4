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

static bool same_cgroup(const struct ev *a, const struct ev *b)
{
	return a->cgroup == b->cgroup || (a->cgroup && b->cgroup && !strcmp(a->cgroup, b->cgroup));
}

/* The first counted event at or after from among names (generic, or an Arm PMU's) in the cgroup
 * of `like` (any when NULL), -1 if none. */
static long find_event(const struct stat_result *r, size_t from, const char *const *names,
		       const struct ev *like)
{
	for (size_t e = from; e < r->nev; e++)
		if (r->ev[e].total.status != COUNTER_NOT_SUPPORTED && named(&r->evl->ev[e], names) &&
		    (!like || same_cgroup(like, &r->evl->ev[e])))
			return (long)e;
	return -1;
}

static const char *const INSNS[] = { "instructions", "inst_retired", "INST_RETIRED", NULL };
static const char *const CYCLES[] = { "cycles", "cpu-cycles", "cpu_cycles", "CPU_CYCLES", NULL };

/* The IPC of instructions event i over its cycles y, of column c (c < 0: the totals). */
static double ipc_of(const struct stat_result *r, long i, long y, long c)
{
	double ni = c < 0 ? r->ev[i].total.scaled : r->ev[i].cpu[c].scaled;
	double ny = c < 0 ? r->ev[y].total.scaled : r->ev[y].cpu[c].scaled;
	return ny > 0 && isfinite(ni) ? ni / ny : NAN;
}

double prom_ipc(const struct stat_result *r, long c)
{
	long i = find_event(r, 0, INSNS, NULL);
	long y = i < 0 ? -1 : find_event(r, 0, CYCLES, &r->evl->ev[i]);
	if (i < 0 || y < 0 || (c >= 0 && (size_t)c >= r->ncpus))
		return NAN;
	return ipc_of(r, i, y, c);
}

/* lperf_ipc: per instructions event with cycles in its cgroup (NaN until cycles are counted, so
 * the series stay fixed), per CPU when counting CPUs. */
static void walk_ipc(const struct stat_result *r, bool per_cpu, prom_series_fn fn, void *arg)
{
	char cpu[16];
	for (long i = find_event(r, 0, INSNS, NULL); i >= 0; i = find_event(r, (size_t)i + 1, INSNS, NULL)) {
		const struct ev *ev = &r->evl->ev[i];
		long y = find_event(r, 0, CYCLES, ev);
		if (y < 0)
			continue;
		struct prom_label l[2] = { { "cgroup", ev->cgroup }, { "cpu", cpu } };
		size_t skip = ev->cgroup ? 0 : 1;
		if (!per_cpu) {
			fn("lperf_ipc", l, ev->cgroup ? 1 : 0, ipc_of(r, i, y, -1), arg);
			continue;
		}
		for (size_t c = 0; c < r->ncpus; c++) {
			snprintf(cpu, sizeof(cpu), "%d", r->cpus[c]);
			fn("lperf_ipc", l + skip, 2 - skip, ipc_of(r, i, y, (long)c), arg);
		}
	}
}

/* The labels of event e's series for column c (c < 0: the totals), sorted by name: -G's cgroup,
 * comm (--labels comm), cpu (counting CPUs), event, pid (--labels pid), pmu. buf holds the
 * numbers and the comm. */
static size_t event_labels(const struct stat_result *r, size_t e, long c, unsigned labels,
			   struct prom_label *l, char (*buf)[64])
{
	const struct ev *ev = &r->evl->ev[e];
	size_t n = 0;
	bool thread = c >= 0 && r->tids;
	if (ev->cgroup)
		l[n++] = (struct prom_label){ "cgroup", ev->cgroup };
	if (thread && (labels & PROM_LABEL_COMM)) {
		/* perf's "comm-tid" */
		const char *dash = strrchr(r->tnames[c], '-');
		snprintf(buf[0], sizeof(buf[0]), "%.*s", dash ? (int)(dash - r->tnames[c]) : 63, r->tnames[c]);
		l[n++] = (struct prom_label){ "comm", buf[0] };
	}
	if (c >= 0 && !r->tids) {
		snprintf(buf[1], sizeof(buf[1]), "%d", r->cpus[c]);
		l[n++] = (struct prom_label){ "cpu", buf[1] };
	}
	l[n++] = (struct prom_label){ "event", ev->name };
	if (thread && (labels & PROM_LABEL_PID)) {
		snprintf(buf[2], sizeof(buf[2]), "%d", r->tids[c]);
		l[n++] = (struct prom_label){ "pid", buf[2] };
	}
	l[n++] = (struct prom_label){ "pmu", ev->pmu ? ev->pmu : "" };
	return n;
}

void prom_walk(const struct stat_result *r, unsigned labels, prom_series_fn fn, void *arg)
{
	bool per_cpu = r->ncpus > 0 && r->cpus && r->cpus[0] >= 0;
	/* a series per thread (--per-thread) only with labels that tell them apart */
	bool per_thread = r->tids && (labels & (PROM_LABEL_COMM | PROM_LABEL_PID));
	struct prom_label l[6];
	char buf[3][64];
	for (size_t e = 0; e < r->nev; e++) {
		const struct stat_event *se = &r->ev[e];
		if (se->total.status == COUNTER_NOT_SUPPORTED)
			continue;
		if (!per_cpu && !per_thread) {
			double v = se->total.scaled;
			size_t n = event_labels(r, e, -1, labels, l, buf);
			fn("lperf_event_total", l, n, isfinite(v) && v > 0 ? v : 0.0, arg);
			continue;
		}
		for (size_t c = 0; c < r->ncpus; c++) {
			double v = se->cpu[c].scaled;
			size_t n = event_labels(r, e, (long)c, labels, l, buf);
			fn("lperf_event_total", l, n, isfinite(v) && v > 0 ? v : 0.0, arg);
		}
	}
	walk_ipc(r, per_cpu, fn, arg);
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

char *prom_format(const struct stat_result *r, unsigned labels)
{
	struct text t = { STRBUF_INIT, NULL };
	prom_walk(r, labels, text_series, &t);
	return sb_detach(&t.sb);
}

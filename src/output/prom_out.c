#include "output/prom_out.h"

#include <math.h>

#include "util/strbuf.h"

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

static void sample(struct strbuf *sb, const struct ev *ev, int cpu, double v)
{
	sb_adds(sb, "lperf_event_total{");
	label(sb, "event", ev->name);
	sb_addc(sb, ',');
	label(sb, "pmu", ev->pmu ? ev->pmu : "");
	if (cpu >= 0)
		sb_addf(sb, ",cpu=\"%d\"", cpu);
	sb_addf(sb, "} %.0f\n", isfinite(v) && v > 0 ? v : 0.0);
}

char *prom_format(const struct stat_result *r)
{
	struct strbuf sb = STRBUF_INIT;
	sb_adds(&sb, "# HELP lperf_event_total Events counted by lperf stat since it started "
		     "(task-clock and cpu-clock in nanoseconds).\n# TYPE lperf_event_total counter\n");
	bool per_cpu = r->ncpus > 0 && r->cpus && r->cpus[0] >= 0;
	for (size_t e = 0; e < r->nev; e++) {
		const struct stat_event *se = &r->ev[e];
		const struct ev *ev = &r->evl->ev[e];
		if (se->total.status == COUNTER_NOT_SUPPORTED)
			continue;
		if (!per_cpu) {
			sample(&sb, ev, -1, se->total.scaled);
			continue;
		}
		for (size_t c = 0; c < r->ncpus; c++)
			sample(&sb, ev, r->cpus[c], se->cpu[c].scaled);
	}
	sb_addf(&sb, "# HELP lperf_up_seconds Seconds lperf stat has been counting.\n"
		     "# TYPE lperf_up_seconds gauge\nlperf_up_seconds %.3f\n", r->duration);
	return sb_detach(&sb);
}

/* Arm SPE filter terms in the -e grammar. The arm_spe_* PMUs define their filters as format
 * files (ts_enable, pa_enable, pct_enable, jitter, branch_filter, load_filter, store_filter,
 * event_filter, min_latency); WindowsPerf spells some of them shorter (ld, st, b, ts, min).
 * This table maps the short spellings onto the format names, so both encode through the
 * PMU's own format files and an unknown spelling still gets the PMU's valid terms. */
#ifndef LPERF_EVENTS_SPE_TERMS_H
#define LPERF_EVENTS_SPE_TERMS_H

#include <stdbool.h>

/* True for the kernel's SPE PMU names (arm_spe_0, arm_spe_1...). */
bool spe_pmu_name(const char *pmu);
/* The first event of l on an Arm SPE PMU, or NULL. */
struct ev;
struct evlist;
const struct ev *spe_evlist_event(const struct evlist *l);
/* The format term an SPE alias stands for ("ld" -> "load_filter"), or NULL. */
const char *spe_term_alias(const char *pmu, const char *term);
/* One line for a -e item that names an SPE PMU this machine does not have. */
const char *spe_absent_hint(void);



#include <linux/perf_event.h>
#include <stdint.h>

/* An SPE event as record opens it (as perf's arm_spe recording options do): no frequency
 * mode (the PMU samples every N operations), the period from -c or the PMU's
 * caps/min_interval, per-CPU time and ids on its side-band records. -1 after err_set when
 * the period is below caps/min_interval. */
int spe_attr_prepare(struct perf_event_attr *a, const char *pmu, uint64_t period);
/* caps/<name> of an SPE PMU as a number; -1 when absent. */
long spe_cap(const char *pmu, const char *name);

/* What each SPE format term does (the kernel's arm_spe_pmu names), and its short alias. */
struct spe_term_info {
	const char *term, *alias, *desc;
};
/* The description of a format term, or NULL for one lperf does not know. */
const struct spe_term_info *spe_term_info(const char *term);
#endif

/* SPE filter spellings (see spe_terms.h). */
#include <string.h>
#include <stdio.h>
#include <strings.h>

#include "events/evlist.h"
#include "events/spe_terms.h"
#include "util/error.h"
#include "util/fileio.h"

bool spe_pmu_name(const char *pmu)
{
	return pmu && !strncmp(pmu, "arm_spe", 7);
}

static const struct {
	const char *alias, *term;
} aliases[] = {
	/* WindowsPerf 3.7+ (wperf record -e arm_spe_0/ld=1,min_latency=64/) */
	{ "ld", "load_filter" },
	{ "st", "store_filter" },
	{ "b", "branch_filter" },
	{ "ts", "ts_enable" },
	{ "min", "min_latency" },
	/* short forms of the remaining Linux terms */
	{ "pa", "pa_enable" },
	{ "pct", "pct_enable" },
	{ "j", "jitter" },
	{ "ev", "event_filter" },
	{ "inv_ev", "inv_event_filter" },
};

const char *spe_term_alias(const char *pmu, const char *term)
{
	if (!spe_pmu_name(pmu) || !term)
		return NULL;
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcasecmp(term, aliases[i].alias))
			return aliases[i].term;
	return NULL;
}

const char *spe_absent_hint(void)
{
	return "this machine has no Arm SPE PMU (no arm_spe_* under "
	       "/sys/bus/event_source/devices): SPE needs an Arm CPU with FEAT_SPE and the "
	       "kernel's arm_spe_pmu driver";
}

long spe_cap(const char *pmu, const char *name)
{
	char path[512];
	long v;
	snprintf(path, sizeof(path), "%s/bus/event_source/devices/%s/caps/%s", sysfs_root(), pmu,
		 name);
	return file_read_int(path, &v) == 0 ? v : -1;
}

int spe_attr_prepare(struct perf_event_attr *a, const char *pmu, uint64_t period)
{
	long min = spe_cap(pmu, "min_interval");
	if (!period)
		period = min > 0 ? (uint64_t)min : 4096;
	else if (min > 0 && period < (uint64_t)min)
		return err_set("SPE interval %llu is below %s's caps/min_interval (%ld)",
			       (unsigned long long)period, pmu, min);
	a->freq = 0;
	a->sample_period = period;
	a->sample_type |= PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			  PERF_SAMPLE_IDENTIFIER;
	a->sample_id_all = 1;
	a->disabled = 1;
	return 0;
}

static const struct spe_term_info infos[] = {
	{ "ts_enable", "ts", "timestamp packets in every record (PMSCR.TS)" },
	{ "pa_enable", "pa", "physical data addresses (PMSCR.PA; needs privilege)" },
	{ "pct_enable", "pct", "physical timestamps (PMSCR.PCT; needs privilege)" },
	{ "jitter", "j", "randomise the sampling interval (PMSIRR.RND)" },
	{ "branch_filter", "b", "keep only branches (PMSFCR.B)" },
	{ "load_filter", "ld", "keep only loads (PMSFCR.LD)" },
	{ "store_filter", "st", "keep only stores (PMSFCR.ST)" },
	{ "event_filter", "ev", "keep only records with all these Events bits (PMSEVFR)" },
	{ "inv_event_filter", "inv_ev", "drop records with any of these Events bits (PMSNEVFR)" },
	{ "min_latency", "min", "keep only operations with total latency >= N cycles (PMSLATFR)" },
	{ "discard", NULL, "discard all records (PMBLIMITR.FM)" },
};

const struct spe_term_info *spe_term_info(const char *term)
{
	for (size_t i = 0; i < sizeof(infos) / sizeof(infos[0]); i++)
		if (!strcmp(infos[i].term, term))
			return &infos[i];
	return NULL;
}

const struct ev *spe_evlist_event(const struct evlist *l)
{
	for (size_t e = 0; e < l->n; e++)
		if (spe_pmu_name(l->ev[e].pmu))
			return &l->ev[e];
	return NULL;
}

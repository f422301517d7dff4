/* Memory-sampling events per PMU (memev.h). */
#include "events/memev.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/fileio.h"
#include "util/xalloc.h"

static bool sysfs_has(const char *rel)
{
	char *p = xasprintf("%s/bus/event_source/devices/%s", sysfs_root(), rel);
	bool ok = access(p, F_OK) == 0;
	free(p);
	return ok;
}

static void set(struct memev *m, enum memev_pmu pmu, const char *name, const char *ld, const char *st,
		const char *ldst)
{
	m->pmu = pmu;
	m->pmu_name = name;
	m->tag[MEMEV_LOAD] = ld;
	m->tag[MEMEV_STORE] = st;
	m->tag[MEMEV_LDST] = ldst;
}

void memev_probe(struct memev *m)
{
	memset(m, 0, sizeof(*m));
	if (sysfs_has("arm_spe_0")) {
		set(m, MEMEV_SPE, "arm_spe_0", "spe-load", "spe-store", "spe-ldst");
		m->supported[MEMEV_LOAD] = m->supported[MEMEV_STORE] = m->supported[MEMEV_LDST] = true;
		return;
	}
	static const char *const intel[] = { "cpu_core", "cpu" };
	for (size_t i = 0; i < 2; i++) {
		char *ld = xasprintf("%s/events/mem-loads", intel[i]), *st = xasprintf("%s/events/mem-stores", intel[i]);
		bool hl = sysfs_has(ld), hs = sysfs_has(st);
		free(ld);
		free(st);
		if (hl || hs) {
			set(m, MEMEV_INTEL, intel[i], "ldlat-loads", "ldlat-stores", NULL);
			m->supported[MEMEV_LOAD] = hl;
			m->supported[MEMEV_STORE] = hs;
			return;
		}
	}
	if (sysfs_has("ibs_op")) {
		set(m, MEMEV_AMD, "ibs_op", NULL, NULL, "mem-ldst");
		m->supported[MEMEV_LDST] = true;
		return;
	}
#if defined(__aarch64__)
	set(m, MEMEV_NONE, NULL, "spe-load", "spe-store", "spe-ldst");
#else
	set(m, MEMEV_NONE, NULL, "ldlat-loads", "ldlat-stores", NULL);
#endif
}

char *memev_event(const struct memev *m, enum memev_op op, unsigned ldlat)
{
	switch (m->pmu) {
	case MEMEV_INTEL:
		if (op == MEMEV_LOAD)
			return xasprintf("%s/mem-loads,ldlat=%u/P", m->pmu_name, ldlat);
		return xasprintf("%s/mem-stores/P", m->pmu_name);
	case MEMEV_AMD:
		return xstrdup("ibs_op//");
	default: /* perf's arm64 events; on a machine without SPE the open says why */
		if (op == MEMEV_STORE)
			return xstrdup("arm_spe_0/ts_enable=1,pa_enable=1,load_filter=0,store_filter=1/");
		return xasprintf("arm_spe_0/ts_enable=1,pa_enable=1,load_filter=1,store_filter=%d,min_latency=%u/",
				 op == MEMEV_LDST, ldlat);
	}
}

int memev_find(const struct memev *m, const char *name)
{
	for (int i = 0; i < MEMEV_NOPS; i++)
		if (m->tag[i] && !strcmp(m->tag[i], name))
			return i;
	return -1;
}

const char *memev_missing(void)
{
#if defined(__aarch64__)
	return "this machine has no Arm SPE PMU (no arm_spe_* under /sys/bus/event_source/devices): SPE needs "
	       "an Arm CPU with FEAT_SPE and the kernel's arm_spe_pmu driver";
#else
	return "this machine has no memory-sampling PMU events: Intel's PEBS load latency (cpu/events/mem-loads "
	       "under /sys/bus/event_source/devices) or AMD's IBS (ibs_op); a virtual machine usually has no "
	       "hardware PMU at all";
#endif
}

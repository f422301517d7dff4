/* The memory-sampling events of `lperf mem record` and `lperf c2c record`, as perf 6.1 chooses
 * them for the PMU this machine has (docs/mem.md): Arm SPE (arm_spe_0: spe-load, spe-store,
 * spe-ldst), Intel PEBS load latency (cpu/ or, on hybrid parts, cpu_core/: ldlat-loads,
 * ldlat-stores) or AMD IBS (ibs_op: mem-ldst). Each event is named by perf's tag, so that
 * `mem record -e list` and `-e TAG` speak perf's words. */
#ifndef LPERF_EVENTS_MEMEV_H
#define LPERF_EVENTS_MEMEV_H

#include <stdbool.h>
#include <stddef.h>

enum memev_pmu { MEMEV_NONE, MEMEV_SPE, MEMEV_INTEL, MEMEV_AMD };
enum memev_op { MEMEV_LOAD, MEMEV_STORE, MEMEV_LDST, MEMEV_NOPS };

struct memev {
	enum memev_pmu pmu;
	const char *pmu_name;              /* arm_spe_0, cpu, cpu_core, ibs_op; NULL: none */
	const char *tag[MEMEV_NOPS];       /* perf's names; NULL where the PMU has no such event */
	bool supported[MEMEV_NOPS];
};

/* What the sysfs tree (LPERF_SYSFS_ROOT or /sys) offers. On a machine with none, pmu is
 * MEMEV_NONE and the tags are this architecture's (SPE on arm64, Intel's on x86). */
void memev_probe(struct memev *m);
/* The event string of op, with ldlat for loads (a string to free). */
char *memev_event(const struct memev *m, enum memev_op op, unsigned ldlat);
/* The op whose tag is name, or -1. */
int memev_find(const struct memev *m, const char *name);
/* One line naming what this machine lacks (for a machine with none). */
const char *memev_missing(void);

#endif

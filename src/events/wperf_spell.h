/* WindowsPerf's event spellings, rewritten into Linux's before the -e grammar (events/evlist.h)
 * sees them, in both personalities:
 *   arm_spe_0/ld=1,st=0,b=1,min=64,ts=1/   SPE filter short names -> the PMU's format terms
 *                                          (load_filter, store_filter, branch_filter,
 *                                          min_latency, ts_enable; jitter, pa, pct likewise)
 *   /dsu/EVENT                              -> arm_dsu_N/EVENT/ for every DSU PMU in sysfs
 *   /dmc_clk/EVENT, /dmc_clkdiv2/EVENT      -> arm_dmc620_X/clk_EVENT/, .../clkdiv2_EVENT/ for
 *                                          every DMC-620 PMU in sysfs (Linux's event names
 *                                          carry the clock domain as a prefix)
 * A table, not code paths: each entry is one spelling and the Linux term it stands for. */
#ifndef LPERF_WPERF_WPERF_SPELL_H
#define LPERF_WPERF_WPERF_SPELL_H

/* Returns a malloc'd rewritten spec, or NULL when nothing needed rewriting (err clear), or
 * NULL with err_set() (*failed = 1) when a DSU/DMC spelling names a PMU this machine lacks. */
char *wperf_spell_rewrite(const char *spec, int *failed);
/* The Linux term for a WindowsPerf SPE filter name ("ld" -> "load_filter"), or NULL. */
const char *wperf_spe_term(const char *name);
/* 0 when an arm_spe_* PMU exists; its name is copied into name (may be NULL). */
int wperf_spe_pmu(char name[64]);
/* "FEAT_SPE", "FEAT_SPEv1p1"... from the SPE PMU's caps (pmsver when the kernel publishes it),
 * or NULL when there is no SPE PMU. */
const char *wperf_spe_version_name(void);

#endif

/* x86 built-in metrics over perf's generic event names (cycles, instructions, the hardware
 * cache events), so they work on Intel and AMD alike through PERF_TYPE_HARDWARE and
 * PERF_TYPE_HW_CACHE. Names shared with the Arm set (ipc, branch_mpki, the stalled-cycles
 * pair, the TLB MPKIs) mean the same thing, so one -m list works on both. */
#include <string.h>

#include "events/metric_builtin.h"
#include "util/xalloc.h"

static const struct metric_def x86_metrics[] = {
	{ "ipc", "instructions / cycles", "per cycle",
	  "Instructions completed per CPU cycle" },
	{ "cpi", "cycles / instructions", "cycles per instruction",
	  "CPU cycles spent per completed instruction (the inverse of ipc)" },
	{ "ghz", "cycles / task-clock", "GHz",
	  "Average clock rate while the task ran: cycles per nanosecond of task-clock" },
	{ "frontend_stalled_cycles", "stalled-cycles-frontend / cycles * 100", "percent of cycles",
	  "Share of cycles in which the frontend delivered nothing to execute" },
	{ "backend_stalled_cycles", "stalled-cycles-backend / cycles * 100", "percent of cycles",
	  "Share of cycles in which the backend could not make progress" },
	{ "branch_miss_ratio", "branch-misses / branches", "per branch",
	  "Fraction of branches that were mispredicted" },
	{ "branch_mpki", "branch-misses / instructions * 1000", "MPKI",
	  "Mispredicted branches per thousand instructions" },
	{ "cache_miss_ratio", "cache-misses / cache-references", "per cache reference",
	  "Fraction of last-level cache references that missed (the CPU's own definition)" },
	{ "cache_mpki", "cache-misses / instructions * 1000", "MPKI",
	  "Last-level cache misses per thousand instructions" },
	{ "l1d_miss_ratio", "L1-dcache-load-misses / L1-dcache-loads", "per load",
	  "Fraction of L1 data cache loads that missed" },
	{ "l1d_mpki", "L1-dcache-load-misses / instructions * 1000", "MPKI",
	  "L1 data cache load misses per thousand instructions" },
	{ "l1i_mpki", "L1-icache-load-misses / instructions * 1000", "MPKI",
	  "L1 instruction cache misses per thousand instructions" },
	{ "llc_miss_ratio", "LLC-load-misses / LLC-loads", "per load",
	  "Fraction of last-level cache loads that missed" },
	{ "llc_mpki", "LLC-load-misses / instructions * 1000", "MPKI",
	  "Last-level cache load misses per thousand instructions" },
	{ "dtlb_miss_ratio", "dTLB-load-misses / dTLB-loads", "per TLB access",
	  "Fraction of data TLB lookups for loads that missed" },
	{ "dtlb_mpki", "dTLB-load-misses / instructions * 1000", "MPKI",
	  "Data TLB load misses per thousand instructions" },
	{ "itlb_miss_ratio", "iTLB-load-misses / iTLB-loads", "per TLB access",
	  "Fraction of instruction TLB lookups that missed" },
	{ "itlb_mpki", "iTLB-load-misses / instructions * 1000", "MPKI",
	  "Instruction TLB misses per thousand instructions" },
};

static const struct metric_group_def x86_groups[] = {
	{ "x86_General", "Instruction throughput and clock rate", "ipc,cpi,ghz" },
	{ "x86_Cycle_Accounting", "Where cycles stall: frontend or backend",
	  "frontend_stalled_cycles,backend_stalled_cycles" },
	{ "x86_Branch", "How well branches are predicted", "branch_miss_ratio,branch_mpki" },
	{ "x86_Cache", "Cache miss ratios and misses per 1000 instructions",
	  "cache_miss_ratio,cache_mpki,l1d_miss_ratio,l1d_mpki,l1i_mpki,llc_miss_ratio,llc_mpki" },
	{ "x86_TLB", "Address translation misses",
	  "dtlb_miss_ratio,dtlb_mpki,itlb_miss_ratio,itlb_mpki" },
};

const struct metric_table metric_table_x86 = {
	METRIC_X86, x86_metrics, ARRAY_SIZE(x86_metrics), x86_groups, ARRAY_SIZE(x86_groups),
};

/* The core PMU is "cpu" on Intel and AMD; hybrid Intel parts split it into "cpu_core" and
 * "cpu_atom". */
bool metric_x86_core_pmu(const char *name)
{
	return !strcmp(name, "cpu") || !strcmp(name, "cpu_core") || !strcmp(name, "cpu_atom");
}

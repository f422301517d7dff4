/* Arm built-in metrics: the Neoverse-N1 Telemetry Solution set, the topdown level-1 metrics
 * of perf's sbsa.json, and WindowsPerf's simple metrics (imix, icache, dcache, itlb, dtlb) as
 * groups of computed metrics whose events are exactly WindowsPerf's event sets. Event names
 * are the lower-case ones the Linux armv8 PMU driver exposes in sysfs. */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "events/metric_builtin.h"
#include "util/fileio.h"
#include "util/xalloc.h"

#define PCT_CYC "percent of cycles"
#define PCT_OPS "percent of operations"
#define PCT_SLOTS "percent of slots"

#define DSU "arm_dsu_"
#define DMC "arm_dmc620_"

static const struct metric_def arm_metrics[] = {
	/* Uncore: each DSU cluster's L3 cache and each DMC-620 memory channel (WindowsPerf's
	 * l3_cache and ddr_bw); one value per cluster or channel, and over all of them. */
	{ "l3_read_bandwidth", "l3d_cache * 64 / 1e6", "MB",
	  "Data read through the L3 cache of a DSU cluster: L3 accesses x 64-byte lines, in MB", DSU },
	{ "l3_miss_rate", "l3d_cache_refill / l3d_cache * 100", "percent of L3 accesses",
	  "L3 cache accesses of a DSU cluster that missed and were refilled", DSU },
	{ "ddr_rw_bandwidth", "clkdiv2_rdwr * 128 / 1e6", "MB",
	  "Data read and written by a DMC-620 memory channel: its read/write transfers x 128 bytes, "
	  "in MB", DMC },
	/* Cycle accounting */
	{ "backend_stalled_cycles", "stall_backend / cpu_cycles * 100", PCT_CYC,
	  "Share of cycles in which no operation could be issued because the backend (execution "
	  "units, load/store queues) had no room for it" },
	{ "frontend_stalled_cycles", "stall_frontend / cpu_cycles * 100", PCT_CYC,
	  "Share of cycles in which no operation could be issued because the frontend "
	  "(fetch, decode) had none ready" },
	/* General */
	{ "ipc", "inst_retired / cpu_cycles", "per cycle",
	  "Instructions architecturally completed per CPU cycle" },
	/* Branches */
	{ "branch_misprediction_ratio", "br_mis_pred_retired / br_retired", "per branch",
	  "Fraction of retired branches whose direction or target was predicted wrongly" },
	{ "branch_mpki", "br_mis_pred_retired / inst_retired * 1000", "MPKI",
	  "Mispredicted branches per thousand retired instructions" },
	/* Operation mix */
	{ "branch_percentage", "(br_immed_spec + br_indirect_spec) / inst_spec * 100", PCT_OPS,
	  "Immediate and indirect branches among all speculatively executed operations" },
	{ "crypto_percentage", "crypto_spec / inst_spec * 100", PCT_OPS,
	  "Cryptographic operations among all speculatively executed operations" },
	{ "integer_dp_percentage", "dp_spec / inst_spec * 100", PCT_OPS,
	  "Scalar integer data-processing operations among all speculatively executed operations" },
	{ "load_percentage", "ld_spec / inst_spec * 100", PCT_OPS,
	  "Memory loads among all speculatively executed operations" },
	{ "store_percentage", "st_spec / inst_spec * 100", PCT_OPS,
	  "Memory stores among all speculatively executed operations" },
	{ "simd_percentage", "ase_spec / inst_spec * 100", PCT_OPS,
	  "Advanced SIMD (Neon) operations among all speculatively executed operations" },
	{ "scalar_fp_percentage", "vfp_spec / inst_spec * 100", PCT_OPS,
	  "Scalar floating-point operations among all speculatively executed operations" },
	/* TLBs */
	{ "dtlb_mpki", "dtlb_walk / inst_retired * 1000", "MPKI",
	  "Data-side page table walks per thousand retired instructions" },
	{ "itlb_mpki", "itlb_walk / inst_retired * 1000", "MPKI",
	  "Instruction-side page table walks per thousand retired instructions" },
	{ "dtlb_walk_ratio", "dtlb_walk / l1d_tlb", "per TLB access",
	  "Data TLB lookups that needed a page table walk, per L1 data TLB access" },
	{ "itlb_walk_ratio", "itlb_walk / l1i_tlb", "per TLB access",
	  "Instruction TLB lookups that needed a page table walk, per L1 instruction TLB access" },
	{ "l1d_tlb_mpki", "l1d_tlb_refill / inst_retired * 1000", "MPKI",
	  "L1 data TLB refills per thousand retired instructions" },
	{ "l1i_tlb_mpki", "l1i_tlb_refill / inst_retired * 1000", "MPKI",
	  "L1 instruction TLB refills per thousand retired instructions" },
	{ "l2_tlb_mpki", "l2d_tlb_refill / inst_retired * 1000", "MPKI",
	  "Unified L2 TLB refills per thousand retired instructions" },
	{ "l1d_tlb_miss_ratio", "l1d_tlb_refill / l1d_tlb", "per TLB access",
	  "Fraction of L1 data TLB lookups that missed and were refilled" },
	{ "l1i_tlb_miss_ratio", "l1i_tlb_refill / l1i_tlb", "per TLB access",
	  "Fraction of L1 instruction TLB lookups that missed and were refilled" },
	{ "l2_tlb_miss_ratio", "l2d_tlb_refill / l2d_tlb", "per TLB access",
	  "Fraction of unified L2 TLB lookups that missed and were refilled" },
	/* Caches */
	{ "l1d_cache_miss_ratio", "l1d_cache_refill / l1d_cache", "per cache access",
	  "Fraction of L1 data cache accesses that missed and caused a refill" },
	{ "l1i_cache_miss_ratio", "l1i_cache_refill / l1i_cache", "per cache access",
	  "Fraction of L1 instruction cache accesses that missed and caused a refill" },
	{ "l1d_cache_mpki", "l1d_cache_refill / inst_retired * 1000", "MPKI",
	  "L1 data cache refills per thousand retired instructions" },
	{ "l1i_cache_mpki", "l1i_cache_refill / inst_retired * 1000", "MPKI",
	  "L1 instruction cache refills per thousand retired instructions" },
	{ "l2_cache_mpki", "l2d_cache_refill / inst_retired * 1000", "MPKI",
	  "Unified L2 cache refills (data and instruction side) per thousand retired "
	  "instructions" },
	{ "l2_cache_miss_ratio", "l2d_cache_refill / l2d_cache", "per cache access",
	  "Fraction of unified L2 cache accesses that missed and caused a refill" },
	{ "ll_cache_read_hit_ratio", "(ll_cache_rd - ll_cache_miss_rd) / ll_cache_rd",
	  "per cache access",
	  "Fraction of last-level (system) cache reads that hit" },
	{ "ll_cache_read_miss_ratio", "ll_cache_miss_rd / ll_cache_rd", "per cache access",
	  "Fraction of last-level (system) cache reads that missed" },
	{ "ll_cache_read_mpki", "ll_cache_miss_rd / inst_retired * 1000", "MPKI",
	  "Last-level cache read misses per thousand retired instructions" },
	/* Beyond the N1 set: L2 instruction-side ratios, so that icache and itlb cover
	 * WindowsPerf's event sets (l2i_cache*, l2i_tlb*). */
	{ "l2i_cache_miss_ratio", "l2i_cache_refill / l2i_cache", "per cache access",
	  "Fraction of instruction-side L2 cache accesses that missed and caused a refill" },
	{ "l2i_cache_mpki", "l2i_cache_refill / inst_retired * 1000", "MPKI",
	  "Instruction-side L2 cache refills per thousand retired instructions" },
	{ "l2i_tlb_miss_ratio", "l2i_tlb_refill / l2i_tlb", "per TLB access",
	  "Fraction of instruction-side L2 TLB lookups that missed and were refilled" },
	{ "l2i_tlb_mpki", "l2i_tlb_refill / inst_retired * 1000", "MPKI",
	  "Instruction-side L2 TLB refills per thousand retired instructions" },
	/* Topdown level 1 (perf's sbsa.json), in percent. #slots is the issue width from the
	 * PMU's caps/slots; the four add up to 100. Needs the Armv8.4 STALL_SLOT events. */
	{ "frontend_bound", "100 * stall_slot_frontend / (#slots * cpu_cycles)", PCT_SLOTS,
	  "Issue slots left empty because the frontend delivered no operation" },
	{ "backend_bound", "100 * stall_slot_backend / (#slots * cpu_cycles)", PCT_SLOTS,
	  "Issue slots left empty because the backend could not accept an operation" },
	{ "retiring",
	  "100 * (op_retired / op_spec) * (1 - stall_slot / (#slots * cpu_cycles))", PCT_SLOTS,
	  "Issue slots used by operations that went on to retire: useful work" },
	{ "bad_speculation",
	  "100 * (1 - op_retired / op_spec) * (1 - stall_slot / (#slots * cpu_cycles))",
	  PCT_SLOTS,
	  "Issue slots used by operations that were thrown away after a misprediction" },
};

static const struct metric_group_def arm_groups[] = {
	{ "Cycle_Accounting", "Where cycles stall: frontend or backend",
	  "backend_stalled_cycles,frontend_stalled_cycles" },
	{ "General", "Overall instruction throughput", "ipc" },
	{ "MPKI", "Misses of every cache, TLB and the branch predictor per 1000 instructions",
	  "branch_mpki,dtlb_mpki,itlb_mpki,l1d_cache_mpki,l1d_tlb_mpki,l1i_cache_mpki,"
	  "l1i_tlb_mpki,l2_cache_mpki,l2_tlb_mpki,ll_cache_read_mpki" },
	{ "Miss_Ratio", "Miss ratios of every cache, TLB and the branch predictor",
	  "branch_misprediction_ratio,dtlb_walk_ratio,itlb_walk_ratio,l1d_cache_miss_ratio,"
	  "l1d_tlb_miss_ratio,l1i_cache_miss_ratio,l1i_tlb_miss_ratio,l2_cache_miss_ratio,"
	  "l2_tlb_miss_ratio,ll_cache_read_miss_ratio" },
	{ "Branch_Effectiveness", "How well branches are predicted",
	  "branch_misprediction_ratio,branch_mpki" },
	{ "ITLB_Effectiveness", "Instruction-side address translation",
	  "itlb_mpki,itlb_walk_ratio,l1i_tlb_miss_ratio,l1i_tlb_mpki,l2_tlb_miss_ratio,"
	  "l2_tlb_mpki" },
	{ "DTLB_Effectiveness", "Data-side address translation",
	  "dtlb_mpki,dtlb_walk_ratio,l1d_tlb_miss_ratio,l1d_tlb_mpki,l2_tlb_miss_ratio,"
	  "l2_tlb_mpki" },
	{ "L1I_Cache_Effectiveness", "L1 instruction cache",
	  "l1i_cache_miss_ratio,l1i_cache_mpki" },
	{ "L1D_Cache_Effectiveness", "L1 data cache", "l1d_cache_miss_ratio,l1d_cache_mpki" },
	{ "L2_Cache_Effectiveness", "Unified L2 cache", "l2_cache_miss_ratio,l2_cache_mpki" },
	{ "LL_Cache_Effectiveness", "Last-level (system) cache reads",
	  "ll_cache_read_hit_ratio,ll_cache_read_miss_ratio,ll_cache_read_mpki" },
	{ "Operation_Mix", "What kinds of operations are executed",
	  "branch_percentage,crypto_percentage,integer_dp_percentage,load_percentage,"
	  "scalar_fp_percentage,simd_percentage,store_percentage" },
	{ "Topdown_L1", "Topdown level 1: where the issue slots go",
	  "frontend_bound,backend_bound,retiring,bad_speculation" },
	/* WindowsPerf's simple metrics, each covering exactly its event set. */
	{ "imix", "Instruction mix (WindowsPerf imix: inst_spec, dp_spec, vfp_spec, ase_spec, "
		  "ld_spec, st_spec)",
	  "integer_dp_percentage,scalar_fp_percentage,simd_percentage,load_percentage,"
	  "store_percentage" },
	{ "l3_cache", "L3 cache of each DSU cluster (WindowsPerf l3_cache: /dsu/l3d_cache, "
		      "/dsu/l3d_cache_refill)",
	  "l3_read_bandwidth,l3_miss_rate" },
	{ "ddr_bw", "Memory bandwidth of each DMC-620 channel (WindowsPerf ddr_bw: /dmc_clkdiv2/rdwr)",
	  "ddr_rw_bandwidth" },
	{ "icache", "Instruction caches (WindowsPerf icache: l1i_cache, l1i_cache_refill, "
		    "l2i_cache, l2i_cache_refill, inst_retired)",
	  "l1i_cache_miss_ratio,l1i_cache_mpki,l2i_cache_miss_ratio,l2i_cache_mpki" },
	{ "dcache", "Data caches (WindowsPerf dcache: l1d_cache, l1d_cache_refill, l2d_cache, "
		    "l2d_cache_refill, inst_retired)",
	  "l1d_cache_miss_ratio,l1d_cache_mpki,l2_cache_miss_ratio,l2_cache_mpki" },
	{ "itlb", "Instruction TLBs (WindowsPerf itlb: l1i_tlb, l1i_tlb_refill, l2i_tlb, "
		  "l2i_tlb_refill, inst_retired)",
	  "l1i_tlb_miss_ratio,l1i_tlb_mpki,l2i_tlb_miss_ratio,l2i_tlb_mpki" },
	{ "dtlb", "Data TLBs (WindowsPerf dtlb: l1d_tlb, l1d_tlb_refill, l2d_tlb, "
		  "l2d_tlb_refill, inst_retired)",
	  "l1d_tlb_miss_ratio,l1d_tlb_mpki,l2_tlb_miss_ratio,l2_tlb_mpki" },
};

const struct metric_table metric_table_arm = {
	METRIC_ARM, arm_metrics, ARRAY_SIZE(arm_metrics), arm_groups, ARRAY_SIZE(arm_groups),
};

static bool exists(const char *dir, const char *name, const char *rel)
{
	char *p = xasprintf("%s/%s/%s", dir, name, rel);
	struct stat st;
	bool ok = stat(p, &st) == 0;
	free(p);
	return ok;
}

/* The armv8 PMU driver names its PMUs armv8_pmuv3_N or armv8_<core> (armv9_<core> for newer
 * cores); a vendor driver may pick another name but still serves the architected events. */
bool metric_arm_core_pmu(const char *dir, const char *name)
{
	if (!strncmp(name, "armv8_", 6) || !strncmp(name, "armv9_", 6))
		return true;
	return exists(dir, name, "cpus") && exists(dir, name, "events/inst_retired") &&
	       exists(dir, name, "events/cpu_cycles");
}

double metric_arm_slots(void)
{
	char *dir = xasprintf("%s/bus/event_source/devices", sysfs_root());
	DIR *d = opendir(dir);
	double slots = NAN;
	if (d) {
		struct dirent *de;
		while (isnan(slots) && (de = readdir(d))) {
			if (de->d_name[0] == '.' || !metric_arm_core_pmu(dir, de->d_name) ||
			    !exists(dir, de->d_name, "caps/slots"))
				continue;
			char *p = xasprintf("%s/%s/caps/slots", dir, de->d_name);
			uint64_t v;
			if (file_read_u64(p, &v) == 0 && v > 0 && v < 1024)
				slots = (double)v;
			free(p);
		}
		closedir(d);
	}
	free(dir);
	return slots;
}

#include "events/generic.h"

#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/error.h"
#include "util/xalloc.h"

/* perf 6.1's lexer symbols (tools/perf/util/parse-events.l), in `perf list` order. */
static const struct generic_event events[] = {
	{ "cpu-cycles", "cycles", GENERIC_HW, PERF_COUNT_HW_CPU_CYCLES, "CPU cycles" },
	{ "instructions", NULL, GENERIC_HW, PERF_COUNT_HW_INSTRUCTIONS, "Instructions retired" },
	{ "cache-references", NULL, GENERIC_HW, PERF_COUNT_HW_CACHE_REFERENCES,
	  "Cache accesses (usually the last-level cache)" },
	{ "cache-misses", NULL, GENERIC_HW, PERF_COUNT_HW_CACHE_MISSES,
	  "Cache misses (usually the last-level cache)" },
	{ "branch-instructions", "branches", GENERIC_HW, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
	  "Branch instructions retired" },
	{ "branch-misses", NULL, GENERIC_HW, PERF_COUNT_HW_BRANCH_MISSES,
	  "Mispredicted branch instructions" },
	{ "bus-cycles", NULL, GENERIC_HW, PERF_COUNT_HW_BUS_CYCLES, "Bus cycles" },
	{ "stalled-cycles-frontend", "idle-cycles-frontend", GENERIC_HW,
	  PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, "Cycles the frontend delivered no work" },
	{ "stalled-cycles-backend", "idle-cycles-backend", GENERIC_HW,
	  PERF_COUNT_HW_STALLED_CYCLES_BACKEND, "Cycles the backend accepted no work" },
	{ "ref-cycles", NULL, GENERIC_HW, PERF_COUNT_HW_REF_CPU_CYCLES,
	  "Reference cycles, not scaled by frequency changes" },
	{ "alignment-faults", NULL, GENERIC_SW, PERF_COUNT_SW_ALIGNMENT_FAULTS,
	  "Unaligned accesses the kernel fixed up" },
	{ "bpf-output", NULL, GENERIC_SW, PERF_COUNT_SW_BPF_OUTPUT, "Output of BPF programs" },
	{ "cgroup-switches", NULL, GENERIC_SW, PERF_COUNT_SW_CGROUP_SWITCHES,
	  "Context switches to a task of another cgroup" },
	{ "context-switches", "cs", GENERIC_SW, PERF_COUNT_SW_CONTEXT_SWITCHES,
	  "Context switches" },
	{ "cpu-clock", NULL, GENERIC_SW, PERF_COUNT_SW_CPU_CLOCK, "Per-CPU high-resolution timer" },
	{ "cpu-migrations", "migrations", GENERIC_SW, PERF_COUNT_SW_CPU_MIGRATIONS,
	  "Moves of the task to another CPU" },
	{ "dummy", NULL, GENERIC_SW, PERF_COUNT_SW_DUMMY, "Counts nothing (side-band records)" },
	{ "emulation-faults", NULL, GENERIC_SW, PERF_COUNT_SW_EMULATION_FAULTS,
	  "Instructions the kernel emulated" },
	{ "major-faults", NULL, GENERIC_SW, PERF_COUNT_SW_PAGE_FAULTS_MAJ,
	  "Page faults that needed I/O" },
	{ "minor-faults", NULL, GENERIC_SW, PERF_COUNT_SW_PAGE_FAULTS_MIN,
	  "Page faults served without I/O" },
	{ "page-faults", "faults", GENERIC_SW, PERF_COUNT_SW_PAGE_FAULTS, "Page faults" },
	{ "task-clock", NULL, GENERIC_SW, PERF_COUNT_SW_TASK_CLOCK,
	  "Time the task ran on a CPU (ns)" },
	{ "duration_time", NULL, GENERIC_TOOL, PERF_COUNT_SW_DUMMY,
	  "Wall-clock time of the measurement (ns), measured by lperf" },
};

const struct generic_event *generic_events(size_t *n)
{
	*n = ARRAY_SIZE(events);
	return events;
}

const struct generic_event *generic_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(events); i++)
		if (!strcasecmp(name, events[i].name) ||
		    (events[i].alias && !strcasecmp(name, events[i].alias)))
			return &events[i];
	return NULL;
}

/* perf's evsel__hw_cache, evsel__hw_cache_op and evsel__hw_cache_result alias tables. */
#define MAX_ALIASES 5
static const char *const cache_names[PERF_COUNT_HW_CACHE_MAX][MAX_ALIASES] = {
	{ "L1-dcache", "l1-d", "l1d", "L1-data" },
	{ "L1-icache", "l1-i", "l1i", "L1-instruction" },
	{ "LLC", "L2" },
	{ "dTLB", "d-tlb", "Data-TLB" },
	{ "iTLB", "i-tlb", "Instruction-TLB" },
	{ "branch", "branches", "bpu", "btb", "bpc" },
	{ "node" },
};
static const char *const op_names[PERF_COUNT_HW_CACHE_OP_MAX][MAX_ALIASES] = {
	{ "load", "loads", "read" },
	{ "store", "stores", "write" },
	{ "prefetch", "prefetches", "speculative-read", "speculative-load" },
};
static const char *const result_names[PERF_COUNT_HW_CACHE_RESULT_MAX][MAX_ALIASES] = {
	{ "refs", "Reference", "ops", "access" },
	{ "misses", "miss" },
};

#define OP(x) (1u << PERF_COUNT_HW_CACHE_OP_##x)
/* perf's evsel__hw_cache_stat: which operations each cache supports. */
static const unsigned cache_ops[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D] = OP(READ) | OP(WRITE) | OP(PREFETCH),
	[PERF_COUNT_HW_CACHE_L1I] = OP(READ) | OP(PREFETCH),
	[PERF_COUNT_HW_CACHE_LL] = OP(READ) | OP(WRITE) | OP(PREFETCH),
	[PERF_COUNT_HW_CACHE_DTLB] = OP(READ) | OP(WRITE) | OP(PREFETCH),
	[PERF_COUNT_HW_CACHE_ITLB] = OP(READ),
	[PERF_COUNT_HW_CACHE_BPU] = OP(READ),
	[PERF_COUNT_HW_CACHE_NODE] = OP(READ) | OP(WRITE) | OP(PREFETCH),
};

/* Matches the longest alias of table that prefixes s and ends at '-' or the end of s. Returns
 * the row, or -1; *len gets the matched length. Alias words contain '-' themselves
 * ("L1-dcache", "speculative-read"), so the string cannot simply be split on '-'. */
static int match_word(const char *s, const char *const (*table)[MAX_ALIASES], int rows,
		      size_t *len)
{
	int best = -1;
	size_t best_len = 0;
	for (int i = 0; i < rows; i++) {
		for (int j = 0; j < MAX_ALIASES && table[i][j]; j++) {
			size_t n = strlen(table[i][j]);
			if (n > best_len && !strncasecmp(s, table[i][j], n) &&
			    (s[n] == 0 || s[n] == '-')) {
				best = i;
				best_len = n;
			}
		}
	}
	*len = best_len;
	return best;
}

int generic_cache_parse(const char *name, uint64_t *config)
{
	size_t len;
	/* perf's lexer reads "branches" and "branch-misses" as hardware symbols before it sees
	 * a cache name, so "branches-loads" or "branch-misses-read" are syntax errors there. */
	if (!strncasecmp(name, "branches-", 9) || !strncasecmp(name, "branch-misses-", 14))
		return 0;
	int cache = match_word(name, cache_names, PERF_COUNT_HW_CACHE_MAX, &len);
	if (cache < 0)
		return 0;
	const char *p = name + len;
	int op = -1, result = -1;
	/* perf 6.1's parse_events_add_cache(): up to two more words, each an operation (first
	 * time) or a result (first time); a repeated word is ignored; defaults read/access. */
	for (int i = 0; i < 2 && *p; i++) {
		p++; /* the '-' */
		int o = match_word(p, op_names, PERF_COUNT_HW_CACHE_OP_MAX, &len);
		int r = o >= 0 ? -1 :
			match_word(p, result_names, PERF_COUNT_HW_CACHE_RESULT_MAX, &len);
		if (o < 0 && r < 0)
			return 0;
		if (o >= 0 && op < 0) {
			if (!(cache_ops[cache] & (1u << o)))
				return err_set("hardware cache event '%s': %s does not support %s "
					       "(perf accepts %s%s%s)", name, cache_names[cache][0],
					       op_names[o][1], op_names[0][1],
					       cache_ops[cache] & OP(WRITE) ? ", stores" : "",
					       cache_ops[cache] & OP(PREFETCH) ? ", prefetches" : "");
			op = o;
		} else if (r >= 0 && result < 0) {
			result = r;
		}
		p += len;
	}
	if (*p)
		return 0;
	if (op < 0)
		op = PERF_COUNT_HW_CACHE_OP_READ;
	if (result < 0)
		result = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	*config = (uint64_t)cache | (uint64_t)op << 8 | (uint64_t)result << 16;
	return 1;
}

size_t generic_cache_names(struct generic_cache_name *out, size_t max)
{
	size_t n = 0;
	for (int c = 0; c < PERF_COUNT_HW_CACHE_MAX; c++) {
		for (int o = 0; o < PERF_COUNT_HW_CACHE_OP_MAX; o++) {
			if (!(cache_ops[c] & (1u << o)))
				continue;
			for (int r = 0; r < PERF_COUNT_HW_CACHE_RESULT_MAX; r++, n++) {
				if (n >= max)
					continue;
				/* perf's __evsel__hw_cache_type_op_res_name() spelling */
				if (r)
					snprintf(out[n].name, sizeof(out[n].name), "%s-%s-%s",
						 cache_names[c][0], op_names[o][0],
						 result_names[r][0]);
				else
					snprintf(out[n].name, sizeof(out[n].name), "%s-%s",
						 cache_names[c][0], op_names[o][1]);
				out[n].config = (uint64_t)c | (uint64_t)o << 8 | (uint64_t)r << 16;
			}
		}
	}
	return n;
}

/* ARMV8_IMPDEF_PERFCTR_* of include/linux/perf/arm_pmuv3.h: the Arm ARM's recommended
 * numbers for the IMPLEMENTATION DEFINED range, which Neoverse and Cortex cores follow. */
static const struct generic_arm_event arm_events[] = {
	{ "l1d_cache_rd", 0x40 }, { "l1d_cache_wr", 0x41 },
	{ "l1d_cache_refill_rd", 0x42 }, { "l1d_cache_refill_wr", 0x43 },
	{ "l1d_cache_refill_inner", 0x44 }, { "l1d_cache_refill_outer", 0x45 },
	{ "l1d_cache_wb_victim", 0x46 }, { "l1d_cache_wb_clean", 0x47 },
	{ "l1d_cache_inval", 0x48 },
	{ "l1d_tlb_refill_rd", 0x4c }, { "l1d_tlb_refill_wr", 0x4d },
	{ "l1d_tlb_rd", 0x4e }, { "l1d_tlb_wr", 0x4f },
	{ "l2d_cache_rd", 0x50 }, { "l2d_cache_wr", 0x51 },
	{ "l2d_cache_refill_rd", 0x52 }, { "l2d_cache_refill_wr", 0x53 },
	{ "l2d_cache_wb_victim", 0x56 }, { "l2d_cache_wb_clean", 0x57 },
	{ "l2d_cache_inval", 0x58 },
	{ "l2d_tlb_refill_rd", 0x5c }, { "l2d_tlb_refill_wr", 0x5d },
	{ "l2d_tlb_rd", 0x5e }, { "l2d_tlb_wr", 0x5f },
	{ "bus_access_rd", 0x60 }, { "bus_access_wr", 0x61 },
	{ "bus_access_shared", 0x62 }, { "bus_access_not_shared", 0x63 },
	{ "bus_access_normal", 0x64 }, { "bus_access_periph", 0x65 },
	{ "mem_access_rd", 0x66 }, { "mem_access_wr", 0x67 },
	{ "unaligned_ld_spec", 0x68 }, { "unaligned_st_spec", 0x69 },
	{ "unaligned_ldst_spec", 0x6a },
	{ "ldrex_spec", 0x6c }, { "strex_pass_spec", 0x6d }, { "strex_fail_spec", 0x6e },
	{ "strex_spec", 0x6f },
	{ "ld_spec", 0x70 }, { "st_spec", 0x71 }, { "ldst_spec", 0x72 }, { "dp_spec", 0x73 },
	{ "ase_spec", 0x74 }, { "vfp_spec", 0x75 }, { "pc_write_spec", 0x76 },
	{ "crypto_spec", 0x77 }, { "br_immed_spec", 0x78 }, { "br_return_spec", 0x79 },
	{ "br_indirect_spec", 0x7a },
	{ "isb_spec", 0x7c }, { "dsb_spec", 0x7d }, { "dmb_spec", 0x7e },
	{ "exc_undef", 0x81 }, { "exc_svc", 0x82 }, { "exc_pabort", 0x83 },
	{ "exc_dabort", 0x84 }, { "exc_irq", 0x86 }, { "exc_fiq", 0x87 }, { "exc_smc", 0x88 },
	{ "exc_hvc", 0x8a }, { "exc_trap_pabort", 0x8b }, { "exc_trap_dabort", 0x8c },
	{ "exc_trap_other", 0x8d }, { "exc_trap_irq", 0x8e }, { "exc_trap_fiq", 0x8f },
	{ "rc_ld_spec", 0x90 }, { "rc_st_spec", 0x91 },
	{ "l3d_cache_rd", 0xa0 }, { "l3d_cache_wr", 0xa1 },
	{ "l3d_cache_refill_rd", 0xa2 }, { "l3d_cache_refill_wr", 0xa3 },
	{ "l3d_cache_wb_victim", 0xa6 }, { "l3d_cache_wb_clean", 0xa7 },
	{ "l3d_cache_inval", 0xa8 },
};

const struct generic_arm_event *generic_arm_events(size_t *n)
{
	*n = ARRAY_SIZE(arm_events);
	return arm_events;
}

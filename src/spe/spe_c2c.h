/* perf c2c and perf mem over an Arm SPE recording: each load or store record classified as perf
 * 6.1 classifies the samples it synthesises from SPE (a data source per record: on the Neoverse
 * cores whose data-source encoding perf knows, by that value; elsewhere by the Events packet's
 * L1D/LLC bits), counted as perf c2c counts them, and grouped by 64-byte cache line, then by
 * offset and code address within a line, for perf c2c report's tables ([mem.md](../../docs/mem.md)). */
#ifndef LPERF_SPE_SPE_C2C_H
#define LPERF_SPE_SPE_C2C_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spe/spe_load.h"

/* perf c2c's counters (the names of its c2c_stats). */
struct c2c_stats {
	uint64_t nr_entries, locks, load, store, ld_noadrs, st_noadrs, ld_uncache, ld_io, ld_fbhit;
	uint64_t ld_l1hit, ld_l2hit, ld_llchit, lcl_hitm, rmt_hitm, tot_hitm, rmt_hit, lcl_dram;
	uint64_t rmt_dram, ld_excl, ld_shared, ld_miss, blk_data, blk_addr, lcl_peer, rmt_peer;
	uint64_t tot_peer, st_uncache, st_l1hit, st_l1miss, st_na, nomap, noparse;
};

/* What a record counts as, and its load latency where it counts as a peer or HITM load. */
enum c2c_display { C2C_TOT_HITM, C2C_RMT_HITM, C2C_LCL_HITM, C2C_PEER };

enum { C2C_MAX_CPUS = 1024 }; /* CPUs counted per row; records of higher CPUs count in no cpu column */

/* One offset and code address of a line (perf's Pareto row). */
struct c2c_off {
	uint64_t offset, iaddr;
	struct c2c_stats st;
	uint64_t lat_lcl_peer, lat_rmt_peer, lat_load; /* latency sums (mean shown) */
	uint64_t n_lat_load;
	uint64_t lat_lcl_hitm, lat_rmt_hitm, n_lcl_hitm, n_rmt_hitm; /* HITM loads with a latency */
	uint64_t cpus[C2C_MAX_CPUS / 64];              /* the CPUs that made its records */
	const char *sym, *dso;
	struct dso *dso_ref;                           /* for its source line (c2c_sources) */
	const struct symbol *sym_ref;
	uint64_t dso_addr;
	const char *src;                               /* perf's Source:Line; NULL: not asked */
};

struct c2c_line {
	uint64_t addr;
	struct c2c_stats st;
	struct c2c_off *offs;
	size_t noffs;
};

struct c2c_result {
	struct c2c_stats all;     /* every record (Trace Event Information) */
	struct c2c_stats shared;  /* the shared lines' (those with HITMs or peer snoops) */
	struct c2c_line *lines;   /* the lines the display shows (its count > 0), costliest first */
	size_t nlines, nshared;
	enum c2c_display display;
	bool synthesized;         /* from SPE records (perf's synthesised "memory" event) */
	bool sources;             /* c2c_sources gave each shown row its Source:Line */
	uint64_t merged;          /* the shared lines' offset rows */
};

/* The counters one record adds (false when it is no load or store). neoverse: the recording's
 * CPUID names a core with Neoverse's data-source encoding. */
bool c2c_classify(const struct spe_sample *s, bool neoverse, struct c2c_stats *st);
/* True for a perf CPUID string ("0x00000000410fd0c0") naming such a core. */
bool c2c_cpuid_neoverse(const char *cpuid);
/* Groups the records; -1 after err_set for none. */
int c2c_build(const struct spe_data *d, bool neoverse, enum c2c_display disp, struct c2c_result *out);
void c2c_result_free(struct c2c_result *r);
/* perf's Source:Line of each row of the shown lines (its code address's file:line, as report's
 * srcline sort gives it); the DSOs must still be open (before session_close). */
void c2c_sources(struct c2c_result *r);
/* The count a display sorts and filters lines on. */
uint64_t c2c_display_count(const struct c2c_stats *st, enum c2c_display disp);

#endif

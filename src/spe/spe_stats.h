/* SPE analysis: --itrace selection (perf's letters for Arm SPE), the events perf synthesises
 * from a record, and the report views: hot functions per operation type and event set
 * (WindowsPerf's "sample source" tables), latency percentiles per symbol and per data source,
 * and hot data addresses by cache line. No formatting here. */
#ifndef LPERF_SPE_SPE_STATS_H
#define LPERF_SPE_SPE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spe/spe_load.h"

/* Synthesised event kinds, in the order perf emits them for one record (arm-spe.c). */
enum spe_kind {
	SPE_K_L1D_MISS, SPE_K_L1D_ACCESS, SPE_K_LLC_MISS, SPE_K_LLC_ACCESS, SPE_K_TLB_MISS,
	SPE_K_TLB_ACCESS, SPE_K_BRANCH_MISS, SPE_K_REMOTE, SPE_K_MEMORY, SPE_K_INSTRUCTIONS,
	SPE_K_N,
};
const char *spe_kind_name(enum spe_kind k); /* perf's names: "l1d-miss", "memory"... */

/* --itrace for Arm SPE: i (instructions), f (l1d), m (llc), t (tlb), b (branch-miss),
 * a (remote-access), M (memory); "i1i"-style periods are read and must be instructions.
 * The letters perf has but SPE does not produce (l, o, e, d, x, w, p, c, r, g...) are refused
 * with a line saying so. Empty or NULL: perf's default for SPE (every kind but instructions). */
struct spe_itrace {
	bool kind[SPE_K_N];
	uint64_t period;    /* instructions: one sample every `period` records (>= 1) */
	bool given;
};
int spe_itrace_parse(const char *s, struct spe_itrace *it);
/* The kinds one record produces under it, as a bitmask of 1 << spe_kind. */
unsigned spe_record_kinds(const struct spe_record *r, const struct spe_itrace *it);

struct spe_lat {
	uint64_t n;
	double mean;
	uint32_t p50, p90, p99, max;
};

struct spe_sym_row {
	const char *sym, *dso;  /* NULL: unknown */
	uint64_t n;
	struct spe_lat tot, iss, xlat;
};

struct spe_source {           /* one (operation type, events) combination */
	char key[160];            /* "LOAD_STORE_ATOMIC-LOAD-GP/retired+l1d-access" */
	uint64_t n;
	struct spe_sym_row *rows; /* its symbols, by count */
	size_t nrows;
};

struct spe_ds_row {
	uint64_t ds;
	const char *name;         /* Neoverse name, or NULL */
	uint64_t n, loads, stores;
	struct spe_lat tot;
};

struct spe_line_row {
	uint64_t line;            /* data VA & ~63 */
	uint64_t n, loads, stores;
	struct spe_lat tot;
	const char *top_sym;      /* the symbol with most samples on this line */
	uint64_t top_n;
};

struct spe_report {
	uint64_t total;           /* records selected */
	struct spe_source *src;
	size_t nsrc;
	struct spe_sym_row *syms; /* latency per symbol, by count */
	size_t nsyms;
	struct spe_ds_row *ds;
	size_t nds;
	struct spe_line_row *lines;
	size_t nlines;
};

/* Builds every view over the records it selects (all when !it->given). */
void spe_report_build(const struct spe_data *d, const struct spe_itrace *it, struct spe_report *out);
void spe_report_free(struct spe_report *r);
/* Latency summary of n values (sorted in place). */
void spe_lat_of(uint32_t *v, size_t n, struct spe_lat *out);

#endif

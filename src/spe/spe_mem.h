/* perf mem report over an Arm SPE recording: the memory samples perf 6.1 synthesises from SPE
 * records (one per record and kind: l1d-miss, l1d-access, llc-miss, llc-access, tlb-miss,
 * tlb-access, branch-miss, remote-access, memory), each with perf's data source (union perf_mem_data_src,
 * from the record's Neoverse data source or, on other cores, its Events packet) and its total
 * latency as the weight, grouped as perf mem report's default sort groups them
 * (local_weight, mem, sym, dso, symbol_daddr, dso_daddr, snoop, tlb, locked, blocked). */
#ifndef LPERF_SPE_SPE_MEM_H
#define LPERF_SPE_SPE_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spe/spe_load.h"

enum spe_mem_kind {
	SPE_MEM_L1D_MISS, SPE_MEM_L1D_ACCESS, SPE_MEM_LLC_MISS, SPE_MEM_LLC_ACCESS, SPE_MEM_TLB_MISS,
	SPE_MEM_TLB_ACCESS, SPE_MEM_BRANCH_MISS, SPE_MEM_REMOTE, SPE_MEM_MEMORY, SPE_MEM_NKINDS,
};
/* perf's event names: "l1d-miss"... "memory". */
const char *spe_mem_kind_name(enum spe_mem_kind k);

/* The perf_mem_data_src value perf gives a record (0: not a load or store). */
uint64_t spe_mem_data_src(const struct spe_record *r, bool neoverse);

struct spe_mem_row {
	uint64_t weight;      /* each sample's (the total latency) */
	uint32_t ins_lat;     /* its instruction's latency (x86's WEIGHT_STRUCT; SPE: 0) */
	uint64_t nr;
	uint64_t data_src;
	const char *sym, *dso;
	uint64_t sym_start;   /* for perf's order of equal rows */
	uint64_t daddr;       /* a branch's target */
	const char *dsym, *ddso;
};

struct spe_mem_section {
	enum spe_mem_kind kind;
	const char *name;     /* perf's event name: the kind's, or a memory event's own */
	struct spe_mem_row *rows; /* by weight sum, largest first */
	size_t n;
	uint64_t samples, total_weight;
};

/* The sections that have samples, in perf's order: per kind from SPE records, per event from
 * memory events' samples (spe_memev_load). -1 after err_set for a recording with no load or
 * store. */
int spe_mem_build(const struct spe_data *d, bool neoverse, struct spe_mem_section out[SPE_MEM_NKINDS],
		  size_t *nout);
void spe_mem_free(struct spe_mem_section *s, size_t n);

/* One memory sample as perf mem report -D prints it. */
struct spe_mem_raw {
	uint32_t pid, tid;
	uint64_t ip, addr, phys, weight, data_src;
	const char *dso, *sym; /* NULL: unresolved */
};
/* The memory samples in perf's order (every load or store with a data source), for -D; *n set.
 * The array is the caller's to free. */
struct spe_mem_raw *spe_mem_raw(const struct spe_data *d, bool neoverse, size_t *n);

#endif

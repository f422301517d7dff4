/* perf c2c report --stdio's text for an SPE recording's c2c analysis (spe/spe_c2c.h): the trace
 * event and shared-line summaries, the details, the Shared Data Cache Line Table and the Pareto
 * table of offsets, code addresses and functions, in perf 6.1's layout (docs/mem.md). */
#ifndef LPERF_OUTPUT_C2C_OUT_H
#define LPERF_OUTPUT_C2C_OUT_H

#include <stdio.h>

#include "spe/spe_c2c.h"

/* events: the recording's event names, then perf's synthesised "memory"; cpu_node: each CPU's
 * NUMA node (the recording's NUMA_TOPOLOGY; -1 or beyond ncpu_node: none). */
void c2c_print_stdio(FILE *f, const struct c2c_result *r, const char *const *events, size_t nevents,
		     const int *cpu_node, size_t ncpu_node);

#endif

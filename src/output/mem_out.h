/* perf mem report --stdio's text for an SPE recording (spe/spe_mem.h): one table per synthesised
 * event with perf's default memory sort columns, and perf's names of a data source's parts
 * (level, snoop, TLB, lock, block) (docs/mem.md). */
#ifndef LPERF_OUTPUT_MEM_OUT_H
#define LPERF_OUTPUT_MEM_OUT_H

#include <stdio.h>

#include "spe/spe_mem.h"

void mem_print_stdio(FILE *f, const struct spe_mem_section *s, size_t n);
/* perf's spellings of a perf_mem_data_src's memory level ("L2 or L2 hit"), snoop ("Peer"), TLB
 * ("Walker hit"), lock ("No") and block (" N/A"), into buf (n bytes). */
const char *mem_lvl_str(uint64_t data_src, char *buf, size_t n);
const char *mem_snoop_str(uint64_t data_src, char *buf, size_t n);
const char *mem_tlb_str(uint64_t data_src, char *buf, size_t n);
const char *mem_lock_str(uint64_t data_src);
const char *mem_blk_str(uint64_t data_src);

#endif

/* perf mem report --stdio's text for an SPE recording (spe/spe_mem.h): one table per synthesised
 * event with perf's default memory sort columns, and perf's names of a data source's parts
 * (level, snoop, TLB, lock, block) (docs/mem.md). */
#ifndef LPERF_OUTPUT_MEM_OUT_H
#define LPERF_OUTPUT_MEM_OUT_H

#include <stdio.h>

#include "spe/spe_mem.h"

void mem_print_stdio(FILE *f, const struct spe_mem_section *s, size_t n);
/* perf mem report -D: the header line, then a line per sample. sep NULL: perf's default, in
 * which the first line is padded into columns and the later ones are not (perf 6.1 sets its
 * separator to " " after the first); phys adds the physical address; hide leaves out samples
 * without a symbol (-U). */
void mem_print_raw(FILE *f, const struct spe_mem_raw *v, size_t n, const char *sep, bool phys, bool hide);
/* perf's spellings of a perf_mem_data_src's memory level ("L2 or L2 hit"), snoop ("Peer"), TLB
 * ("Walker hit"), lock ("No") and block (" N/A"), into buf (n bytes). */
const char *mem_lvl_str(uint64_t data_src, char *buf, size_t n);
const char *mem_snoop_str(uint64_t data_src, char *buf, size_t n);
const char *mem_tlb_str(uint64_t data_src, char *buf, size_t n);
const char *mem_lock_str(uint64_t data_src);
const char *mem_blk_str(uint64_t data_src);

#endif

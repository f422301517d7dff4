/* perf's register names and numbers (arch/<arch>/include/uapi/asm/perf_regs.h) for the
 * sample_regs_user/intr masks: x86-64 AX..SS, R8..R15; AArch64 x0..x29, lr, sp, pc. Machines are
 * ELF e_machine values. */
#ifndef LPERF_RECORD_REGNAME_H
#define LPERF_RECORD_REGNAME_H

#include <stdint.h>

/* The machine lperf runs on (EM_X86_64, EM_AARCH64), 0 where it knows no names. */
unsigned regname_host(void);
/* The machine of a recording's arch string (uname -m: x86_64, aarch64, arm64), 0 if unknown. */
unsigned regname_machine(const char *arch);
/* The name of register number reg, NULL when it has none. */
const char *regname(unsigned machine, unsigned reg);
/* Every register perf offers for sampling, as a mask, and as "AX BX ..." (malloc'd). */
uint64_t regname_all(unsigned machine);
char *regname_list(unsigned machine);
/* "di,r8,DX" -> the mask (any case). -1 with err_set() naming an unknown register. */
int regname_parse_mask(unsigned machine, const char *list, uint64_t *mask);

#endif

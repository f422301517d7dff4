/* Private to src/unwind: a CFI row reduced to plain rules and applied without libdw. A row is
 * looked up (dwarf_cfi_addrframe, which allocates and interprets the CIE and FDE programs)
 * once per pc and kept; stepping over a frame is then arithmetic and reads of the stack copy.
 * Rows whose rules are DWARF expressions, and signal frames, are not reduced: libdwfl keeps
 * those. Used for native code (unwind.c, cached per file and pc) and JIT code (jitstep.c). */
#ifndef LPERF_UNWIND_CFA_H
#define LPERF_UNWIND_CFA_H

#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "unwind/jitstep.h"
#include "unwind/unwind.h"

enum cfa_how {
	CFA_UNDEF,               /* not recoverable (the return address: the outermost frame) */
	CFA_SAME,                /* unchanged from the callee */
	CFA_AT,                  /* saved at CFA + off */
	CFA_VAL,                 /* is CFA + off */
	CFA_REG,                 /* in register reg of the callee */
};

struct cfa_reg_rule {
	uint8_t how;             /* enum cfa_how */
	uint8_t reg;
	int32_t off;
};

enum cfa_kind {
	CFA_NO_ROW,              /* no row for the pc in this CFI */
	CFA_COMPLEX,             /* a row this form cannot hold, or a signal frame */
	CFA_PLAIN,               /* the rules below apply */
};

/* One register's rule in a reduced row. */
struct cfa_op {
	uint8_t reg;             /* the caller's register it gives */
	uint8_t how;             /* enum cfa_how */
	uint8_t src;             /* CFA_REG: the callee's register */
	int32_t off;             /* CFA_AT, CFA_VAL: from the CFA */
};

/* A row as cfa_rule_step reads it: the few registers it looks at packed at the front (a row is
 * read at every step over its pc, and the rows of a deep stack are many). */
struct cfa_rule {
	uint8_t kind;            /* enum cfa_kind */
	uint8_t cfa_reg;         /* CFA = cfa_reg + cfa_off */
	uint8_t ra;              /* the return address column */
	uint8_t nlive;
	int64_t cfa_off;
	/* The registers whose rule is CFA_SAME, other than the return address: a step keeps them
	 * as they are (in place, it need not touch them). */
	uint32_t same;
	/* The other registers cfa_rule_step looks at, in ascending order: every one whose rule is
	 * neither CFA_UNDEF nor CFA_SAME, and the return address column. */
	struct cfa_op live[UNWIND_MAX_DWARF_REGS];
};

/* Register numbers a CFI may name. libdw sizes a row by the largest register number its
 * instructions name (up to 268 million, a 2 GiB row allocated and cleared on every lookup), so a
 * hostile .eh_frame of a few bytes cost 1 GB and seconds per sample. DWARF numbers registers
 * of x86-64 and AArch64 below 200. */
#define CFA_MAX_REG 4096

/* Whether the CFI section data (an .eh_frame when eh_frame, else a .debug_frame) of an ELF file
 * of class elf_class decodes entry by entry and names no register from CFA_MAX_REG on (in its
 * CIEs' return address columns and in every CFA instruction, DW_CFA_set_loc's operand sized by
 * the CIE's pointer encoding). An entry or an encoding it cannot decode makes it false, as
 * libdw could read a register past the point where the walk lost its way. */
bool cfa_section_bounded(const uint8_t *buf, size_t len, bool eh_frame, unsigned elf_class);
/* The same for the .eh_frame and .debug_frame of elf (a compressed section is inflated when
 * its header claims at most 64 MiB, in libelf's copy that libdw then reads, else refused). */
bool cfa_elf_bounded(Elf *elf);
/* Whether elf has a .debug_frame with contents: libdwfl reads a DSO's debug file for its CFI
 * only, and loading that file's DWARF (decompressing all of it) finds none without one. */
bool cfa_elf_has_debug_frame(Elf *elf);

/* The row of cfi at look (a pc, or a return address - 1), reduced. */
void cfa_rule_make(Dwarf_CFI *cfi, uint64_t look, const struct unwind_arch *a, struct cfa_rule *out);
/* Steps over the frame f with a CFA_PLAIN rule: the caller's registers in *out, which may be
 * f->regs itself (stepped in place). *out is written only for JITSTEP_STEP, and then only its
 * present registers (the others' values are left as they were). JITSTEP_END when the return
 * address is undefined or 0, JITSTEP_FAIL when a register or a read is missing or the stack
 * would not move outwards. */
enum jitstep_result cfa_rule_step(const struct cfa_rule *rule, const struct jitstep_frame *f,
				  struct unwind_regs *out);

#endif

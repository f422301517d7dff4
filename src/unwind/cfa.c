/* CFI rows reduced to plain rules (see cfa.h). */
#include "unwind/cfa.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

/* One register's rule from libdw's description of it (dwarf_frame_register's contract: no
 * operations and ops NULL for "same value", no operations otherwise for "undefined"; offset(N)
 * and val_offset(N) as DW_OP_call_frame_cfa [DW_OP_plus_uconst N] [DW_OP_stack_value]). */
static bool reg_rule(Dwarf_Frame *fr, int r, unsigned ndwarf, struct cfa_reg_rule *out)
{
	Dwarf_Op mem[3], *ops;
	size_t nops;
	memset(out, 0, sizeof(*out));
	if (dwarf_frame_register(fr, r, mem, &ops, &nops) != 0)
		return false;
	if (!nops) {
		out->how = ops ? CFA_UNDEF : CFA_SAME;
		return true;
	}
	if (ops[0].atom == DW_OP_call_frame_cfa) {
		int64_t off = 0;
		size_t k = 1;
		if (k < nops && ops[k].atom == DW_OP_plus_uconst)
			off = (int64_t)ops[k++].number;
		if (off < INT32_MIN || off > INT32_MAX)
			return false;
		out->off = (int32_t)off;
		if (k + 1 == nops && ops[k].atom == DW_OP_stack_value) {
			out->how = CFA_VAL;
			return true;
		}
		out->how = CFA_AT;
		return k == nops;
	}
	if (nops == 1 && ops[0].atom == DW_OP_regx && ops[0].number < ndwarf) {
		out->how = CFA_REG;
		out->reg = (uint8_t)ops[0].number;
		return true;
	}
	return false; /* a DWARF expression */
}

void cfa_rule_make(Dwarf_CFI *cfi, uint64_t look, const struct unwind_arch *a, struct cfa_rule *out)
{
	memset(out, 0, sizeof(*out));
	Dwarf_Frame *fr;
	if (!cfi || dwarf_cfi_addrframe(cfi, look, &fr) != 0) {
		out->kind = CFA_NO_ROW;
		return;
	}
	out->kind = CFA_COMPLEX;
	bool signal = false;
	int ra = dwarf_frame_info(fr, NULL, NULL, &signal);
	Dwarf_Op *ops;
	size_t nops;
	if (signal || ra < 0 || (unsigned)ra >= a->ndwarf || dwarf_frame_cfa(fr, &ops, &nops) != 0 || nops != 1 ||
	    ops[0].atom != DW_OP_bregx || ops[0].number >= a->ndwarf)
		goto out;
	out->ra = (uint8_t)ra;
	out->cfa_reg = (uint8_t)ops[0].number;
	out->cfa_off = (int64_t)ops[0].number2;
	for (unsigned r = 0; r < a->ndwarf; r++)
		if (!reg_rule(fr, (int)r, a->ndwarf, &out->r[r]))
			goto out;
	out->kind = CFA_PLAIN;
out:
	free(fr);
}

/* The DWARF column of the pc when the architecture gives it one (x86-64's return address
 * column), else -1. */
static int pc_column(const struct unwind_arch *a)
{
	for (size_t i = 0; i < a->nmap; i++)
		if (a->map[i].perf == a->perf_pc)
			return a->map[i].dwarf;
	return -1;
}

enum jitstep_result cfa_rule_step(const struct cfa_rule *rule, const struct jitstep_frame *f,
				  struct unwind_regs *out)
{
	const struct unwind_arch *a = f->arch;
	const struct unwind_regs *in = f->regs;
	if (rule->kind != CFA_PLAIN || !(in->present >> rule->cfa_reg & 1))
		return JITSTEP_FAIL;
	uint64_t cfa = in->dwarf[rule->cfa_reg] + (uint64_t)rule->cfa_off;
	memset(out, 0, sizeof(*out));
	for (unsigned r = 0; r < a->ndwarf; r++) {
		const struct cfa_reg_rule *rr = &rule->r[r];
		uint64_t v = 0;
		bool ok = false;
		switch (rr->how) {
		case CFA_UNDEF:
			if (r == rule->ra)
				return JITSTEP_END;
			break;
		case CFA_SAME:
			ok = in->present >> r & 1;
			v = in->dwarf[r];
			break;
		case CFA_AT:
			ok = f->read(cfa + (uint64_t)(int64_t)rr->off, &v, f->arg);
			break;
		case CFA_VAL:
			ok = true;
			v = cfa + (uint64_t)(int64_t)rr->off;
			break;
		case CFA_REG:
			ok = in->present >> rr->reg & 1;
			v = in->dwarf[rr->reg];
			break;
		}
		if (ok) {
			out->dwarf[r] = v;
			out->present |= 1U << r;
		} else if (r == rule->ra) {
			return JITSTEP_FAIL;
		}
	}
	out->pc = out->dwarf[rule->ra];
	out->has_pc = true;
	if (!(out->present >> a->dwarf_sp & 1)) {
		/* The psABIs' rule: the caller's stack pointer is the CFA. */
		out->dwarf[a->dwarf_sp] = cfa;
		out->present |= 1U << a->dwarf_sp;
	}
	out->sp = out->dwarf[a->dwarf_sp];
	out->has_sp = true;
	int pcc = pc_column(a);
	if (pcc >= 0)
		out->present &= ~(1U << pcc);
	if (!out->pc)
		return JITSTEP_END;
	if (out->sp < in->sp || (out->sp == in->sp && out->pc == in->pc))
		return JITSTEP_FAIL; /* callers live further out: garbage */
	return JITSTEP_STEP;
}

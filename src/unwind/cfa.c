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
	for (unsigned r = 0; r < a->ndwarf; r++) {
		struct cfa_reg_rule rr;
		if (!reg_rule(fr, (int)r, a->ndwarf, &rr))
			goto out;
		if ((rr.how == CFA_UNDEF || rr.how == CFA_SAME) && r != out->ra) {
			if (rr.how == CFA_SAME)
				out->same |= 1U << r;
			continue;
		}
		out->live[out->nlive++] = (struct cfa_op){ (uint8_t)r, rr.how, rr.reg, rr.off };
	}
	out->kind = CFA_PLAIN;
out:
	free(fr);
}

/* The DWARF column of the pc when the architecture gives it one (x86-64's return address
 * column), else -1. */
static int pc_column(const struct unwind_arch *a)
{
	/* Asked at every step: the last architecture's answer is kept (per thread). */
	static __thread const struct unwind_arch *last;
	static __thread int col;
	if (a == last)
		return col;
	col = -1;
	for (size_t i = 0; i < a->nmap && col < 0; i++)
		if (a->map[i].perf == a->perf_pc)
			col = a->map[i].dwarf;
	last = a;
	return col;
}

/* f's word at addr: from the stack copy itself when it holds it, else through f's reader. */
static inline bool read_at(const struct jitstep_frame *f, uint64_t addr, uint64_t *v)
{
	if (f->stack && addr >= f->stack_base && f->stack_len >= 8 && addr - f->stack_base <= f->stack_len - 8) {
		memcpy(v, f->stack + (addr - f->stack_base), 8);
		return true;
	}
	return f->read(addr, v, f->arg);
}

enum jitstep_result cfa_rule_step(const struct cfa_rule *rule, const struct jitstep_frame *f,
				  struct unwind_regs *out)
{
	const struct unwind_arch *a = f->arch;
	const struct unwind_regs *in = f->regs;
	if (rule->kind != CFA_PLAIN || !(in->present >> rule->cfa_reg & 1))
		return JITSTEP_FAIL;
	uint64_t cfa = in->dwarf[rule->cfa_reg] + (uint64_t)rule->cfa_off;
	/* Everything is read before *out (which may be *in) is written. Registers whose rule is
	 * CFA_UNDEF, other than the return address, are left out: absent; those whose rule is
	 * CFA_SAME are kept as they are. */
	uint64_t v[UNWIND_MAX_DWARF_REGS];
	uint64_t pc = 0, sp = cfa;
	uint32_t got = in->present & rule->same;
	if (got >> a->dwarf_sp & 1)
		sp = in->dwarf[a->dwarf_sp];
	for (unsigned k = 0; k < rule->nlive; k++) {
		const struct cfa_op *op = &rule->live[k];
		unsigned r = op->reg;
		uint64_t val = 0;
		bool ok = false;
		switch (op->how) {
		case CFA_UNDEF:
			if (r == rule->ra)
				return JITSTEP_END;
			break;
		case CFA_SAME:
			ok = in->present >> r & 1;
			val = in->dwarf[r];
			break;
		case CFA_AT:
			ok = read_at(f, cfa + (uint64_t)(int64_t)op->off, &val);
			break;
		case CFA_VAL:
			ok = true;
			val = cfa + (uint64_t)(int64_t)op->off;
			break;
		case CFA_REG:
			ok = in->present >> op->src & 1;
			val = in->dwarf[op->src];
			break;
		}
		v[k] = val;
		if (ok) {
			got |= 1U << r;
			if (r == rule->ra)
				pc = val;
			/* The psABIs' rule: without a rule of its own, the caller's stack pointer is
			 * the CFA. */
			if (r == a->dwarf_sp)
				sp = val;
		} else if (r == rule->ra) {
			return JITSTEP_FAIL;
		}
	}
	if (!pc)
		return JITSTEP_END;
	if (sp < in->sp || (sp == in->sp && pc == in->pc))
		return JITSTEP_FAIL; /* callers live further out: garbage */
	if (out != in)
		for (uint32_t m = got & rule->same; m; m &= m - 1)
			out->dwarf[__builtin_ctz(m)] = in->dwarf[__builtin_ctz(m)];
	for (unsigned k = 0; k < rule->nlive; k++) {
		unsigned r = rule->live[k].reg;
		if (got >> r & 1)
			out->dwarf[r] = v[k];
	}
	out->dwarf[a->dwarf_sp] = sp;
	got |= 1U << a->dwarf_sp;
	int pcc = pc_column(a);
	if (pcc >= 0)
		got &= ~(1U << pcc);
	out->present = got;
	out->pc = pc;
	out->has_pc = true;
	out->sp = sp;
	out->has_sp = true;
	return JITSTEP_STEP;
}

/* ---- register numbers a CFI names ---- */

struct cfa_cursor {
	const uint8_t *p, *end;
	bool ok;                 /* false: an operand ran past the end */
	bool bad;                /* a LEB128 longer than 64 bits: libdw may read it otherwise */
};

static uint64_t cur_uleb(struct cfa_cursor *c)
{
	uint64_t v = 0;
	for (unsigned shift = 0; c->ok; shift += 7) {
		if (c->p >= c->end || shift > 63) {
			c->bad |= shift > 63;
			c->ok = false;
			return 0;
		}
		uint8_t b = *c->p++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	return 0;
}

static void cur_skip(struct cfa_cursor *c, uint64_t n)
{
	if (!c->ok || n > (uint64_t)(c->end - c->p))
		c->ok = false;
	else
		c->p += n;
}

/* The size of a pointer of DW_EH_PE encoding enc (leb128: skipped in place, returns 0); -1 when
 * it has no size this walk knows. */
static int enc_skip(struct cfa_cursor *c, uint8_t enc, unsigned addr_size)
{
	if (enc == 0xff) /* DW_EH_PE_omit */
		return 0;
	switch (enc & 0x0f) {
	case 0x00: cur_skip(c, addr_size); return 0;
	case 0x01: case 0x09: cur_uleb(c); return 0;
	case 0x02: case 0x0a: cur_skip(c, 2); return 0;
	case 0x03: case 0x0b: cur_skip(c, 4); return 0;
	case 0x04: case 0x0c: cur_skip(c, 8); return 0;
	default: return -1;
	}
}

/* Walks a CFA instruction stream; false when it names a register from CFA_MAX_REG on or cannot
 * be sized. An opcode libdw does not know ends the walk (libdw stops there too). */
static bool insns_bounded(struct cfa_cursor *c, uint8_t enc, unsigned addr_size)
{
	while (c->ok && c->p < c->end) {
		uint8_t op = *c->p++;
		uint64_t reg = 0;
		switch (op >> 6) {
		case 1: continue;                                 /* advance_loc */
		case 2: cur_uleb(c); continue;                    /* offset */
		case 3: continue;                                 /* restore */
		}
		switch (op) {
		case DW_CFA_nop: case DW_CFA_remember_state: case DW_CFA_restore_state:
		case DW_CFA_GNU_window_save:
			break;
		case DW_CFA_set_loc:
			if (enc_skip(c, enc, addr_size) < 0)
				return false;
			break;
		case DW_CFA_advance_loc1: cur_skip(c, 1); break;
		case DW_CFA_advance_loc2: cur_skip(c, 2); break;
		case DW_CFA_advance_loc4: cur_skip(c, 4); break;
		case DW_CFA_MIPS_advance_loc8: cur_skip(c, 8); break;
		case DW_CFA_def_cfa_offset: case DW_CFA_def_cfa_offset_sf: case DW_CFA_GNU_args_size:
			cur_uleb(c);
			break;
		case DW_CFA_def_cfa_expression:
			cur_skip(c, cur_uleb(c));
			break;
		case DW_CFA_restore_extended: case DW_CFA_undefined: case DW_CFA_same_value:
		case DW_CFA_def_cfa_register:
			reg = cur_uleb(c);
			break;
		case DW_CFA_offset_extended: case DW_CFA_def_cfa: case DW_CFA_offset_extended_sf:
		case DW_CFA_def_cfa_sf: case DW_CFA_val_offset: case DW_CFA_val_offset_sf:
		case DW_CFA_GNU_negative_offset_extended:
			reg = cur_uleb(c);
			cur_uleb(c);
			break;
		case DW_CFA_register:
			reg = cur_uleb(c);
			if (cur_uleb(c) >= CFA_MAX_REG)
				return false;
			break;
		case DW_CFA_expression: case DW_CFA_val_expression:
			reg = cur_uleb(c);
			cur_skip(c, cur_uleb(c));
			break;
		default:
			return true;
		}
		if (reg >= CFA_MAX_REG)
			return false;
	}
	return !c->bad; /* a truncated operand ends libdw's walk as it ends this one */
}

/* The FDE pointer encoding a CIE's augmentation gives ('R'), absolute pointers by default; false
 * when the augmentation cannot be followed to it. */
static bool cie_encoding(const Dwarf_CIE *cie, unsigned addr_size, uint8_t *enc, bool *z)
{
	const char *aug = cie->augmentation;
	*enc = 0;
	*z = aug[0] == 'z';
	if (!*z)
		return aug[0] == '\0';
	struct cfa_cursor c = { cie->augmentation_data, cie->augmentation_data + cie->augmentation_data_size, true, false };
	for (const char *a = aug + 1; *a && c.ok; a++) {
		if (*a == 'R')
			*enc = c.p < c.end ? *c.p++ : (c.ok = false, 0);
		else if (*a == 'L')
			cur_skip(&c, 1);
		else if (*a == 'P') {
			uint8_t pe = c.p < c.end ? *c.p++ : (c.ok = false, 0);
			if (c.ok && enc_skip(&c, pe, addr_size) < 0)
				return false;
		} else if (*a != 'S' && *a != 'B' && *a != 'G')
			break; /* libdw skips the rest of the data ('z' sizes it) */
	}
	return c.ok;
}

bool cfa_section_bounded(const uint8_t *buf, size_t len, bool eh_frame, unsigned elf_class)
{
	unsigned addr_size = elf_class == ELFCLASS32 ? 4 : 8;
	unsigned char ident[EI_NIDENT] = { 0 };
	ident[EI_CLASS] = (unsigned char)(elf_class == ELFCLASS32 ? ELFCLASS32 : ELFCLASS64);
	ident[EI_DATA] = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
	Elf_Data data = { 0 };
	data.d_buf = (void *)buf;
	data.d_size = len;
	Dwarf_Off off = 0, next;
	Dwarf_CFI_Entry e;
	int r = 1;
	while (off < len && (r = dwarf_next_cfi(ident, &data, eh_frame, off, &next, &e)) == 0) {
		if (next <= off)
			return false;
		const Dwarf_CIE *cie = &e.cie;
		Dwarf_CFI_Entry ce;
		struct cfa_cursor c = { NULL, NULL, true, false };
		if (!dwarf_cfi_cie_p(&e)) {
			Dwarf_Off cnext;
			if (dwarf_next_cfi(ident, &data, eh_frame, e.fde.CIE_pointer, &cnext, &ce) != 0 ||
			    !dwarf_cfi_cie_p(&ce))
				return false;
			cie = &ce.cie;
		}
		uint8_t enc;
		bool z;
		if (cie->return_address_register >= CFA_MAX_REG || !cie_encoding(cie, addr_size, &enc, &z))
			return false;
		if (dwarf_cfi_cie_p(&e)) {
			c.p = cie->initial_instructions;
			c.end = cie->initial_instructions_end;
		} else {
			c.p = e.fde.start;
			c.end = e.fde.end;
			if (enc_skip(&c, enc, addr_size) < 0 || enc_skip(&c, enc & 0x0f, addr_size) < 0)
				return false;
			if (z)
				cur_skip(&c, cur_uleb(&c));
			else
				cur_skip(&c, cie->fde_augmentation_data_size);
			if (!c.ok)
				return false;
		}
		if (!insns_bounded(&c, enc, addr_size))
			return false;
		off = next;
	}
	return off >= len || r == 1;
}

/* The bytes of section scn (inflated when compressed and at most 64 MiB), or NULL. */
static Elf_Data *section_bytes(Elf_Scn *scn, const GElf_Shdr *sh, bool *refuse)
{
	if (sh->sh_flags & SHF_COMPRESSED) {
		GElf_Chdr ch;
		if (!gelf_getchdr(scn, &ch) || ch.ch_size > (64u << 20) || elf_compress(scn, 0, 0) < 0) {
			*refuse = true;
			return NULL;
		}
	}
	return elf_getdata(scn, NULL);
}

bool cfa_elf_bounded(Elf *elf)
{
	size_t shstrndx;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) < 0)
		return true; /* no sections: libdw finds no CFI either */
	int cls = gelf_getclass(elf);
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (!name || sh.sh_type == SHT_NOBITS)
			continue;
		bool eh = !strcmp(name, ".eh_frame");
		if (!eh && strcmp(name, ".debug_frame"))
			continue;
		bool refuse = false;
		Elf_Data *d = section_bytes(scn, &sh, &refuse);
		if (refuse || (d && d->d_size && !cfa_section_bounded(d->d_buf, d->d_size, eh, (unsigned)cls)))
			return false;
	}
	return true;
}

bool cfa_elf_has_debug_frame(Elf *elf)
{
	size_t shstrndx;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx) < 0)
		return false;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (name && sh.sh_type != SHT_NOBITS && !strcmp(name, ".debug_frame"))
			return true;
	}
	return false;
}

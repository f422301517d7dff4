/* The DWARF side of perf probe (probe/probe_dwarf.c): variables as the kernel's fetch
 * arguments, perf's prologue skip, -V's variables and -L's lines, read from a binary's debug info
 * or its separate debug file (see probe.h). */
#include "probe/probe.h"
#include "probe/probe_int.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/fileio.h"
#include "util/xalloc.h"

/* ---- DWARF variables as fetch arguments ---- */

static const char *const x86_64_regs[16] = { "ax", "dx", "cx", "bx", "si", "di", "bp", "sp",
					     "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15" };

/* perf's register spelling for DWARF register n of machine, or NULL. */
static char *reg_name(int machine, unsigned n)
{
	if (machine == EM_X86_64 && n < 16)
		return xasprintf("%%%s", x86_64_regs[n]);
	if (machine == EM_AARCH64 && n <= 30)
		return xasprintf("%%x%u", n);
	if (machine == EM_AARCH64 && n == 31)
		return xstrdup("%sp");
	return NULL;
}

/* The kernel's type for a DWARF type: s/u + bits for integers, x64 for pointers. */
static char *type_name(Dwarf_Die *type)
{
	Dwarf_Die t;
	if (dwarf_peel_type(type, &t) != 0)
		return NULL;
	if (dwarf_tag(&t) == DW_TAG_pointer_type)
		return xstrdup("x64");
	Dwarf_Attribute a;
	Dwarf_Word enc, size;
	if (dwarf_tag(&t) == DW_TAG_enumeration_type)
		return dwarf_formudata(dwarf_attr(&t, DW_AT_byte_size, &a), &size) == 0 ? xasprintf("u%u", (unsigned)size * 8)
											   : NULL;
	if (dwarf_tag(&t) != DW_TAG_base_type || dwarf_formudata(dwarf_attr(&t, DW_AT_encoding, &a), &enc) != 0 ||
	    dwarf_formudata(dwarf_attr(&t, DW_AT_byte_size, &a), &size) != 0 || size == 0 || size > 8)
		return NULL;
	bool sign = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
	return xasprintf("%c%u", sign ? 's' : 'u', (unsigned)size * 8);
}

/* The member named name of the struct of type st (through a pointer when pointer): its offset
 * and type. */
static int member_of(Dwarf_Die *st, bool pointer, const char *name, Dwarf_Word *off, Dwarf_Die *mtype)
{
	Dwarf_Die p, s, child;
	Dwarf_Attribute a;
	if (pointer && (dwarf_peel_type(st, &p) != 0 || dwarf_tag(&p) != DW_TAG_pointer_type ||
			!dwarf_formref_die(dwarf_attr_integrate(&p, DW_AT_type, &a), &s)))
		return -1;
	if (!pointer)
		s = *st;
	if (dwarf_peel_type(&s, &s) != 0 || dwarf_child(&s, &child) != 0)
		return -1;
	do {
		const char *n = dwarf_diename(&child);
		if (dwarf_tag(&child) == DW_TAG_member && n && !strcmp(n, name) &&
		    dwarf_formudata(dwarf_attr(&child, DW_AT_data_member_location, &a), off) == 0 &&
		    dwarf_formref_die(dwarf_attr_integrate(&child, DW_AT_type, &a), mtype))
			return 0;
	} while (dwarf_siblingof(&child, &child) == 0);
	return -1;
}

/* Where var lives at addr: in a register (*mem false), or at *off from a register (*mem true:
 * DW_OP_fbreg over a frame base that is the CFA, which the CFI gives as a register + offset). */
static int var_location(Dwarf_Die *var, Dwarf_Die *func, Dwarf_CFI *cfi, Dwarf_Addr addr, unsigned *reg,
			int64_t *off, bool *mem)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t nops;
	if (!dwarf_attr_integrate(var, DW_AT_location, &a) || dwarf_getlocation_addr(&a, addr, &ops, &nops, 1) != 1 ||
	    nops != 1)
		return -1;
	*mem = false;
	*off = 0;
	if (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31) {
		*reg = ops[0].atom - DW_OP_reg0;
		return 0;
	}
	if (ops[0].atom == DW_OP_regx) {
		*reg = (unsigned)ops[0].number;
		return 0;
	}
	if (ops[0].atom != DW_OP_fbreg || !cfi)
		return -1;
	int64_t fboff = (int64_t)ops[0].number;
	Dwarf_Op *fb;
	size_t nfb;
	Dwarf_Frame *frame = NULL;
	if (!dwarf_attr(func, DW_AT_frame_base, &a) || dwarf_getlocation(&a, &fb, &nfb) != 0 || nfb != 1 ||
	    fb[0].atom != DW_OP_call_frame_cfa || dwarf_cfi_addrframe(cfi, addr, &frame) != 0)
		return -1;
	Dwarf_Op *cfa;
	size_t ncfa;
	int r = -1;
	if (dwarf_frame_cfa(frame, &cfa, &ncfa) == 0 && ncfa == 1) {
		if (cfa[0].atom >= DW_OP_breg0 && cfa[0].atom <= DW_OP_breg31) {
			*reg = cfa[0].atom - DW_OP_breg0;
			*off = (int64_t)cfa[0].number + fboff;
			r = 0;
		} else if (cfa[0].atom == DW_OP_bregx) {
			*reg = (unsigned)cfa[0].number;
			*off = (int64_t)cfa[0].number2 + fboff;
			r = 0;
		}
	}
	free(frame);
	*mem = r == 0;
	return r;
}

/* The innermost function among the scopes. */
static Dwarf_Die *scope_function(Dwarf_Die *scopes, int n)
{
	for (int i = 0; i < n; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			return &scopes[i];
	return NULL;
}

/* The location text: "%REG", "-20(%bp)"; with a member through a pointer "+8(LOC)", of a struct
 * in memory "-24(%bp)" (the offsets added). NULL for a member of a struct held in a register. */
static char *location_text(const char *r, bool mem, int64_t voff, int kind, Dwarf_Word off)
{
	char *loc = mem ? xasprintf("%+lld(%s)", (long long)(voff + (kind == '.' ? (int64_t)off : 0)), r) : xstrdup(r);
	if (kind == '>') {
		char *t = xasprintf("+%llu(%s)", (unsigned long long)off, loc);
		free(loc);
		return t;
	}
	if (kind == '.' && !mem) {
		free(loc);
		return NULL;
	}
	return loc;
}

/* "VAR", "VAR->MEMBER" or "VAR.MEMBER" at addr in the scopes as perf writes it: "%REG:TYPE",
 * "-20(%bp):TYPE" (in memory), "+8(%si):TYPE" or "+8(-32(%bp)):TYPE" (through a pointer). */
static char *fetch_of(Dwarf_Die *scopes, int nscopes, Dwarf_CFI *cfi, Dwarf_Addr addr, int machine, const char *expr)
{
	const char *arrow = strstr(expr, "->"), *dot = strchr(expr, '.');
	const char *sep = arrow ? arrow : dot, *member = arrow ? arrow + 2 : dot ? dot + 1 : NULL;
	char *name = sep ? xstrndup(expr, (size_t)(sep - expr)) : xstrdup(expr);
	Dwarf_Die var, type, mtype, *func = scope_function(scopes, nscopes);
	Dwarf_Attribute a;
	unsigned reg;
	int64_t voff;
	bool mem;
	Dwarf_Word off = 0;
	char *out = NULL, *r = NULL, *t = NULL;
	if (func && dwarf_getscopevar(scopes, nscopes, name, 0, NULL, 0, 0, &var) >= 0 &&
	    var_location(&var, func, cfi, addr, &reg, &voff, &mem) == 0 &&
	    dwarf_formref_die(dwarf_attr_integrate(&var, DW_AT_type, &a), &type) && (r = reg_name(machine, reg))) {
		if (!member)
			t = type_name(&type);
		else if (member_of(&type, arrow != NULL, member, &off, &mtype) == 0)
			t = type_name(&mtype);
		char *loc = t ? location_text(r, mem, voff, arrow ? '>' : dot ? '.' : 0, off) : NULL;
		if (loc)
			out = xasprintf("%s:%s", loc, t);
		free(loc);
	}
	free(r);
	free(t);
	free(name);
	return out;
}

/* A probe point's debug info: the function's scopes at func+off, the CFI and the machine. */
struct dw_point {
	struct elf_file f;
	Dwarf *dw;
	Dwarf_CFI *cfi;           /* .eh_frame: ours to end */
	Dwarf_Die cu, *scopes, *fn;
	int ns;
	GElf_Addr addr;
	int machine;
};

/* 0 with p->fn set when the debug info has the function at func+off; -1 with err_set()
 * otherwise. point_close in both cases. */
static int point_open(struct dw_point *p, const char *path, const char *func, uint64_t off)
{
	memset(p, 0, sizeof(*p));
	p->f.fd = -1;
	if (probe_elf_open(path, &p->f) < 0)
		return -1;
	GElf_Ehdr eh;
	if (gelf_getehdr(p->f.elf, &eh))
		p->machine = eh.e_machine;
	if (probe_elf_find(p->f.syms, func, &p->addr) == 0 && probe_elf_dwarf(&p->f, path, &p->dw) < 0)
		return -1;
	p->addr += off;
	if (p->dw && dwarf_addrdie(p->dw, p->addr, &p->cu))
		p->ns = dwarf_getscopes(&p->cu, p->addr, &p->scopes);
	p->fn = p->ns > 0 ? scope_function(p->scopes, p->ns) : NULL;
	if (p->fn)
		p->cfi = dwarf_getcfi_elf(p->f.elf);
	return p->fn ? 0 : err_set("Failed to find the address of %s: no debug information", func);
}

static void point_close(struct dw_point *p)
{
	if (p->cfi)
		dwarf_cfi_end(p->cfi);
	free(p->scopes);
	if (p->dw)
		dwarf_end(p->dw);
	if (p->f.fd >= 0)
		probe_elf_close(&p->f);
}

char *probe_dwarf_fetch(const char *path, const char *func, uint64_t off, const char *expr)
{
	struct dw_point p;
	char *out = point_open(&p, path, func, off) == 0 ? fetch_of(p.scopes, p.ns, p.cfi, p.addr, p.machine, expr) : NULL;
	point_close(&p);
	if (!out)
		err_set("Debuginfo-analysis found no location for '%s' at %s+%llu (lperf reads variables and "
			"VAR->MEMBER held in registers or in the frame)", expr, func, (unsigned long long)off);
	return out;
}

/* perf's test for optimised code: the unit's producer has " -O" not followed by '0'. */
static bool optimized(Dwarf_Die *cu)
{
	Dwarf_Attribute a;
	const char *producer = dwarf_formstring(dwarf_attr(cu, DW_AT_producer, &a));
	const char *o = producer ? strstr(producer, " -O") : NULL;
	return o && o[3] != '0';
}

/* The lowest statement address in (addr, high) of the unit's line table: the second row of the
 * function starting at addr, where its body begins; 0 when none. */
static Dwarf_Addr second_row(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Addr high)
{
	Dwarf_Lines *lines;
	size_t n;
	Dwarf_Addr best = 0;
	if (dwarf_getsrclines(cu, &lines, &n) != 0)
		return 0;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr la;
		bool stmt;
		if (l && dwarf_lineaddr(l, &la) == 0 && dwarf_linebeginstatement(l, &stmt) == 0 && stmt && la > addr &&
		    la < high && (!best || la < best))
			best = la;
	}
	return best;
}

int probe_dwarf_prologue(const char *path, const char *func, uint64_t *skip, uint64_t *entry)
{
	struct dw_point p;
	Dwarf_Addr high, body;
	*skip = *entry = 0;
	if (point_open(&p, path, func, 0) == 0 && !optimized(&p.cu) && dwarf_highpc(p.fn, &high) == 0 &&
	    (body = second_row(&p.cu, p.addr, high))) {
		*skip = body - p.addr;
		*entry = p.addr;
	}
	point_close(&p);
	return 0;
}

/* ---- perf probe -V: the variables readable at a probe point ---- */

/* perf's spelling of a type: "int", "struct t", "char**"; NULL for void and what has no name. */
static char *type_text(Dwarf_Die *type, int depth)
{
	Dwarf_Die t;
	Dwarf_Attribute a;
	if (depth > 16)
		return NULL;
	int tag = dwarf_tag(type);
	const char *name = dwarf_diename(type);
	if (tag == DW_TAG_pointer_type || tag == DW_TAG_array_type) { /* an array shows as a pointer */
		char *inner = dwarf_formref_die(dwarf_attr_integrate(type, DW_AT_type, &a), &t) ? type_text(&t, depth + 1)
												 : NULL;
		char *out = inner ? xasprintf("%s*", inner) : NULL;
		free(inner);
		return out;
	}
	if (tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_enumeration_type)
		return name ? xasprintf("%s %s", tag == DW_TAG_structure_type ? "struct" :
					 tag == DW_TAG_union_type ? "union" : "enum", name) : NULL;
	if (tag == DW_TAG_const_type || tag == DW_TAG_volatile_type || tag == DW_TAG_restrict_type)
		return dwarf_formref_die(dwarf_attr_integrate(type, DW_AT_type, &a), &t) ? type_text(&t, depth + 1) : NULL;
	return name ? xstrdup(name) : NULL;
}

/* A location perf can turn into a fetch argument: a register, a register or the frame base plus
 * an offset, a static address (not a constant value, a piece or an implicit value). */
static bool readable(const Dwarf_Op *ops, size_t n)
{
	if (n != 1)
		return false;
	uint8_t op = ops[0].atom;
	return (op >= DW_OP_reg0 && op <= DW_OP_reg31) || op == DW_OP_regx || (op >= DW_OP_breg0 && op <= DW_OP_breg31) ||
	       op == DW_OP_bregx || op == DW_OP_fbreg || op == DW_OP_addr;
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The parameters and variables of the scopes (innermost first, up to the function) that have a
 * location at addr: "TYPE\tNAME" lines. */
static void scope_vars(Dwarf_Die *scopes, int n, Dwarf_CFI *cfi, Dwarf_Addr addr, char ***lines, size_t *count)
{
	Dwarf_Die *fn = scope_function(scopes, n);
	size_t cap = 0;
	for (int i = 0; i < n; i++) {
		Dwarf_Die child;
		if (dwarf_child(&scopes[i], &child) == 0) {
			do {
				int tag = dwarf_tag(&child);
				const char *name = dwarf_diename(&child);
				Dwarf_Attribute a;
				Dwarf_Op *ops;
				size_t nops;
				Dwarf_Die type;
				if ((tag != DW_TAG_formal_parameter && tag != DW_TAG_variable) || !name ||
				    dwarf_hasattr(&child, DW_AT_external) ||
				    !dwarf_attr_integrate(&child, DW_AT_location, &a) ||
				    dwarf_getlocation_addr(&a, addr, &ops, &nops, 1) != 1 || !readable(ops, nops))
					continue;
				unsigned reg;
				int64_t off;
				bool mem;
				if (ops[0].atom == DW_OP_fbreg && (!fn || var_location(&child, fn, cfi, addr, &reg, &off, &mem) < 0))
					continue; /* a frame base lperf cannot place here */
				char *t = dwarf_formref_die(dwarf_attr_integrate(&child, DW_AT_type, &a), &type)
						  ? type_text(&type, 0) : NULL;
				ALLOC_GROW(*lines, *count + 1, cap);
				(*lines)[(*count)++] = xasprintf("%s\t%s", t ? t : "(unknown_type)", name);
				free(t);
			} while (dwarf_siblingof(&child, &child) == 0);
		}
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			break;
	}
}

int probe_dwarf_vars(const char *path, const char *func, uint64_t off, char **where, char ***lines, size_t *n)
{
	struct dw_point p;
	*where = NULL;
	*lines = NULL;
	*n = 0;
	int r = point_open(&p, path, func, off);
	if (r == 0) {
		const char *name = dwarf_diename(p.fn);
		*where = xasprintf("%s+%llu", name ? name : func, (unsigned long long)off);
		scope_vars(p.scopes, p.ns, p.cfi, p.addr, lines, n);
		if (*n)
			qsort(*lines, *n, sizeof(**lines), cmp_line);
	}
	point_close(&p);
	return r;
}

/* ---- perf probe -L: a function's source lines, the probe-able ones numbered ---- */

/* The lines of file that have line-table rows in [low, high), as a bitmap over 1..max. */
static uint8_t *probeable_lines(Dwarf_Die *cu, const char *file, Dwarf_Addr low, Dwarf_Addr high, int *max)
{
	Dwarf_Lines *lines;
	size_t n;
	*max = 0;
	if (dwarf_getsrclines(cu, &lines, &n) != 0)
		return NULL;
	uint8_t *bits = NULL;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr la;
		int ln;
		const char *src = l ? dwarf_linesrc(l, NULL, NULL) : NULL;
		/* the entry's row counts for the declaration line, as perf shows it */
		if (!src || strcmp(src, file) || dwarf_lineaddr(l, &la) != 0 || la <= low || la >= high ||
		    dwarf_lineno(l, &ln) != 0 || ln <= 0 || ln > 1000000)
			continue;
		if (ln > *max) {
			size_t have = bits ? (size_t)*max + 1 : 0;
			bits = xrealloc(bits, (size_t)ln + 1);
			memset(bits + have, 0, (size_t)ln + 1 - have);
			*max = ln;
		}
		bits[ln] = 1;
	}
	return bits;
}

int probe_dwarf_lines(const char *path, const char *func, struct probe_lines *out)
{
	struct dw_point p;
	memset(out, 0, sizeof(*out));
	int r = point_open(&p, path, func, 0) == 0 ? 0 : err_set("Specified source line is not found.");
	Dwarf_Addr low, high;
	const char *file = r == 0 ? dwarf_decl_file(p.fn) : NULL;
	int decl = 0;
	if (r == 0 && (!file || dwarf_decl_line(p.fn, &decl) != 0 || dwarf_lowpc(p.fn, &low) != 0 ||
		       dwarf_highpc(p.fn, &high) != 0))
		r = err_set("Failed to find the source of %s in the debug info", func);
	if (r == 0) {
		out->file = xstrdup(file);
		out->start = decl;
		out->numbered = probeable_lines(&p.cu, file, low, high, &out->end);
		if (out->end < decl) {
			size_t have = out->numbered ? (size_t)out->end + 1 : 0;
			out->numbered = xrealloc(out->numbered, (size_t)decl + 1);
			memset(out->numbered + have, 0, (size_t)decl + 1 - have);
			out->end = decl;
		}
		out->numbered[decl] = 1;
		if (out->end < decl)
			r = err_set("Failed to find the lines of %s in the debug info", func);
		else if (!(out->text = file_read(file, 64u << 20, NULL)))
			r = -1;
	}
	point_close(&p);
	return r;
}

void probe_dwarf_lines_free(struct probe_lines *l)
{
	free(l->file);
	free(l->numbered);
	free(l->text);
	memset(l, 0, sizeof(*l));
}

/* What perf probe reads from a binary: the symbols --funcs lists, the file offset of a function
 * for uprobe_events, and the function's source file for -l (see probe.h). */
#include "probe/probe.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/demangle.h"
#include "symbols/elf.h"
#include "util/error.h"
#include "util/xalloc.h"

struct elf_file {
	int fd;
	Elf *elf;
	int dfd;                  /* the separate debug file of a stripped file, or -1 */
	Elf *delf;
	Elf *syms;                /* where the symbols are: delf when there is one, else elf */
};

static bool has_symtab(Elf *elf)
{
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr s;
		if (gelf_getshdr(scn, &s) && s.sh_type == SHT_SYMTAB)
			return true;
	}
	return false;
}

static int open_elf(const char *path, struct elf_file *f)
{
	buildid_libelf_init();
	f->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO is refused, not waited on */
	if (f->fd < 0)
		return err_set("Failed to open %s: %s", path, strerror(errno));
	f->elf = elf_begin(f->fd, ELF_C_READ, NULL);
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF) {
		elf_end(f->elf);
		close(f->fd);
		f->fd = -1; /* nothing left for close_elf */
		return err_set("%s is not an ELF file", path);
	}
	/* A stripped library's full symbol table is in its debug file (perf reads it there). */
	f->dfd = -1;
	f->delf = NULL;
	f->syms = f->elf;
	if (!has_symtab(f->elf)) {
		uint8_t id[20];
		size_t n = buildid_of_elf(f->elf, id);
		char *dpath = NULL;
		f->delf = debuginfo_open(NULL, path, f->elf, id, n, &f->dfd, &dpath);
		free(dpath);
		if (f->delf && has_symtab(f->delf))
			f->syms = f->delf;
	}
	return 0;
}

static void close_elf(struct elf_file *f)
{
	if (f->delf)
		elf_end(f->delf);
	if (f->dfd >= 0)
		close(f->dfd);
	elf_end(f->elf);
	close(f->fd);
}

/* .symtab, else .dynsym. */
static Elf_Scn *symbol_table(Elf *elf, GElf_Shdr *sh)
{
	Elf_Scn *dyn = NULL;
	GElf_Shdr dsh;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr s;
		if (!gelf_getshdr(scn, &s))
			continue;
		if (s.sh_type == SHT_SYMTAB) {
			*sh = s;
			return scn;
		}
		if (s.sh_type == SHT_DYNSYM && !dyn) {
			dyn = scn;
			dsh = s;
		}
	}
	if (dyn)
		*sh = dsh;
	return dyn;
}

/* perf's rules: functions and objects anywhere allocated; labels (NOTYPE, not hidden) only in a
 * section whose name says text or data. */
static bool listed(Elf *elf, size_t shstrndx, const GElf_Sym *s)
{
	int type = GELF_ST_TYPE(s->st_info), vis = GELF_ST_VISIBILITY(s->st_other);
	if (!s->st_name || s->st_shndx == SHN_UNDEF || s->st_shndx >= SHN_LORESERVE)
		return false;
	bool label = type == STT_NOTYPE && vis != STV_HIDDEN && vis != STV_INTERNAL;
	if (!label && type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_OBJECT)
		return false;
	GElf_Shdr sh;
	Elf_Scn *scn = elf_getscn(elf, s->st_shndx);
	if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
		return false;
	if (!label)
		return true;
	const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
	return name && (strstr(name, "text") || strstr(name, "data"));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int probe_elf_symbols(const char *path, char ***names, size_t *n)
{
	struct elf_file f;
	*names = NULL;
	*n = 0;
	if (open_elf(path, &f) < 0)
		return -1;
	GElf_Shdr sh;
	size_t shstrndx, cap = 0;
	Elf_Scn *scn = symbol_table(f.syms, &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	if (d && sh.sh_entsize && elf_getshdrstrndx(f.syms, &shstrndx) == 0) {
		size_t count = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < count; i++) {
			GElf_Sym s;
			const char *name;
			if (!gelf_getsym(d, (int)i, &s) || !listed(f.syms, shstrndx, &s) ||
			    !(name = elf_strptr(f.syms, sh.sh_link, s.st_name)) || !*name)
				continue;
			ALLOC_GROW(*names, *n + 1, cap);
			char *dm = symbol_demangle(name); /* perf lists C++ names demangled */
			(*names)[(*n)++] = dm ? dm : xstrdup(name);
		}
	}
	close_elf(&f);
	if (*n)
		qsort(*names, *n, sizeof(**names), cmp_str);
	return 0;
}

static int find_function(Elf *elf, const char *func, GElf_Addr *addr)
{
	GElf_Shdr sh;
	Elf_Scn *scn = symbol_table(elf, &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	if (!d || !sh.sh_entsize)
		return -1;
	size_t count = sh.sh_size / sh.sh_entsize;
	for (size_t i = 0; i < count; i++) {
		GElf_Sym s;
		const char *name;
		int type;
		if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF ||
		    ((type = GELF_ST_TYPE(s.st_info)) != STT_FUNC && type != STT_GNU_IFUNC) ||
		    !(name = elf_strptr(elf, sh.sh_link, s.st_name)) || strcmp(name, func))
			continue;
		*addr = s.st_value;
		return 0;
	}
	return -1;
}

int probe_elf_offset(const char *path, const char *func, uint64_t *offset)
{
	struct elf_file f;
	if (open_elf(path, &f) < 0)
		return -1;
	GElf_Addr addr;
	size_t nph;
	int r = -1;
	if (find_function(f.syms, func, &addr) == 0 && elf_getphdrnum(f.elf, &nph) == 0) {
		for (size_t i = 0; i < nph && r < 0; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(f.elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
			    addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_memsz) {
				*offset = addr - ph.p_vaddr + ph.p_offset;
				r = 0;
			}
		}
	}
	close_elf(&f);
	if (r < 0)
		err_set("Probe point '%s' not found.", func);
	return r;
}

char *probe_elf_source(const char *path, const char *func)
{
	struct elf_file f;
	if (open_elf(path, &f) < 0)
		return NULL;
	GElf_Addr addr;
	char *out = NULL;
	Dwarf *dw = find_function(f.syms, func, &addr) == 0 ? dwarf_begin_elf(f.syms, DWARF_C_READ, NULL) : NULL;
	Dwarf_Die cu;
	if (dw && dwarf_addrdie(dw, addr, &cu)) {
		Dwarf_Line *line = dwarf_getsrc_die(&cu, addr);
		const char *src = line ? dwarf_linesrc(line, NULL, NULL) : NULL;
		if (src)
			out = xstrdup(src);
	}
	if (dw)
		dwarf_end(dw);
	close_elf(&f);
	return out;
}

/* One term: an optional '!' and a glob. */
static bool term_match(const char *t, size_t len, const char *name)
{
	while (len && *t == ' ')
		t++, len--;
	while (len && t[len - 1] == ' ')
		len--;
	bool neg = len && *t == '!';
	if (neg)
		t++, len--;
	char *glob = xstrndup(t, len);
	bool m = fnmatch(glob, name, 0) == 0;
	free(glob);
	return neg ? !m : m;
}

bool probe_filter_match(const char *filter, const char *name)
{
	/* '&' binds tighter than '|', as in perf's strfilter */
	for (const char *alt = filter; alt;) {
		const char *bar = strchr(alt, '|');
		size_t alen = bar ? (size_t)(bar - alt) : strlen(alt);
		bool all = true;
		for (size_t i = 0; i < alen && all;) {
			const char *amp = memchr(alt + i, '&', alen - i);
			size_t tlen = amp ? (size_t)(amp - (alt + i)) : alen - i;
			all = term_match(alt + i, tlen, name);
			i += tlen + 1;
		}
		if (all)
			return true;
		alt = bar ? bar + 1 : NULL;
	}
	return false;
}

char *probe_elf_name_at(const char *path, uint64_t offset)
{
	struct elf_file f;
	if (open_elf(path, &f) < 0)
		return NULL;
	size_t nph;
	GElf_Addr addr = 0;
	bool mapped = false;
	if (elf_getphdrnum(f.elf, &nph) == 0)
		for (size_t i = 0; i < nph && !mapped; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(f.elf, (int)i, &ph) && ph.p_type == PT_LOAD && offset >= ph.p_offset &&
			    offset < ph.p_offset + ph.p_filesz) {
				addr = offset - ph.p_offset + ph.p_vaddr;
				mapped = true;
			}
		}
	GElf_Shdr sh;
	Elf_Scn *scn = mapped ? symbol_table(f.syms, &sh) : NULL;
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	char *out = NULL;
	GElf_Addr best = 0;
	for (size_t i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
		GElf_Sym s;
		const char *name;
		int type;
		if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF ||
		    ((type = GELF_ST_TYPE(s.st_info)) != STT_FUNC && type != STT_GNU_IFUNC) || s.st_value > addr ||
		    addr >= s.st_value + (s.st_size ? s.st_size : 1) || (out && s.st_value <= best) ||
		    !(name = elf_strptr(f.syms, sh.sh_link, s.st_name)))
			continue;
		free(out);
		best = s.st_value;
		out = addr == best ? xstrdup(name) : xasprintf("%s+%llu", name, (unsigned long long)(addr - best));
	}
	close_elf(&f);
	return out;
}

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
	if (open_elf(path, &p->f) < 0)
		return -1;
	GElf_Ehdr eh;
	if (gelf_getehdr(p->f.elf, &eh))
		p->machine = eh.e_machine;
	if (find_function(p->f.syms, func, &p->addr) == 0)
		p->dw = dwarf_begin_elf(p->f.syms, DWARF_C_READ, NULL);
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
		close_elf(&p->f);
}

char *probe_elf_fetch(const char *path, const char *func, uint64_t off, const char *expr)
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

int probe_elf_prologue(const char *path, const char *func, uint64_t *skip, uint64_t *entry)
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

int probe_elf_vars(const char *path, const char *func, uint64_t off, char **where, char ***lines, size_t *n)
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

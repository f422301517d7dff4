#include "wperf/wperf_annotate.h"

#include <capstone/capstone.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/hist.h"
#include "symbols/dso.h"
#include "util/xalloc.h"

#define PCS_COMPACT_AT (1u << 20)
#define LINE_MAX_BYTES 256 /* a source line's code disassembled at most */
#define DASM_MAX 64

static int cmp_pc(const void *a, const void *b)
{
	const struct wperf_pc *x = a, *y = b;
	if (x->ev != y->ev)
		return x->ev < y->ev ? -1 : 1;
	if (x->dso != y->dso)
		return (uintptr_t)x->dso < (uintptr_t)y->dso ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return 0;
}

void wperf_pcs_compact(struct wperf_pcs *p)
{
	if (p->n < 2)
		return;
	qsort(p->v, p->n, sizeof(*p->v), cmp_pc);
	size_t m = 0;
	for (size_t i = 0; i < p->n; i++) {
		if (m && !cmp_pc(&p->v[m - 1], &p->v[i]))
			p->v[m - 1].count += p->v[i].count;
		else
			p->v[m++] = p->v[i];
	}
	p->n = m;
	p->merged = m;
}

void wperf_pcs_add(struct wperf_pcs *p, size_t ev, const struct addr_loc *loc)
{
	if (!loc->sym || !loc->dso)
		return;
	if (p->n >= PCS_COMPACT_AT && p->n >= 2 * p->merged)
		wperf_pcs_compact(p);
	ALLOC_GROW(p->v, p->n + 1, p->cap);
	p->v[p->n++] = (struct wperf_pc){ ev, loc->dso, loc->sym, loc->addr, 1 };
}

void wperf_pcs_free(struct wperf_pcs *p)
{
	free(p->v);
	memset(p, 0, sizeof(*p));
}

/* One libdwfl session per DSO file, kept until wperf_annotate_cleanup. */
struct dwmod {
	const struct dso *dso;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	char *code_path;  /* the file whose bytes are the code (not a debug-only file) */
};
static struct dwmod *mods;
static size_t nmods, capmods;
static char *debuginfo_path;

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

static struct dwmod *module_of(struct dso *d)
{
	for (size_t i = 0; i < nmods; i++)
		if (mods[i].dso == d)
			return &mods[i];
	ALLOC_GROW(mods, nmods + 1, capmods);
	struct dwmod *m = &mods[nmods++];
	memset(m, 0, sizeof(*m));
	m->dso = d;
	if (d->kind != DSO_ELF)
		return m;
	m->code_path = dso_file_path(d, d->path);
	const char *dwarf_path = d->debug_path ? d->debug_path : m->code_path;
	m->dwfl = dwfl_begin(&callbacks);
	if (m->dwfl) {
		dwfl_report_begin(m->dwfl);
		/* Bias 0: module addresses are the file's link-time addresses, as the DSO's are. */
		m->mod = dwfl_report_elf(m->dwfl, d->short_name ? d->short_name : "dso", dwarf_path, -1, 0,
					 false);
		dwfl_report_end(m->dwfl, NULL, NULL);
	}
	return m;
}

static bool line_of(struct dwmod *m, uint64_t addr, const char **file, int *line)
{
	if (!m->mod)
		return false;
	Dwfl_Line *l = dwfl_module_getsrc(m->mod, addr);
	if (!l)
		return false;
	const char *src = dwfl_lineinfo(l, NULL, line, NULL, NULL, NULL);
	if (!src || *line <= 0)
		return false;
	*file = src;
	return true;
}

/* [start, end) of the line table row holding addr. */
static bool line_range(struct dwmod *m, uint64_t addr, uint64_t *start, uint64_t *end)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(m->mod, addr, &bias);
	Dwarf_Lines *lines;
	size_t n;
	if (!cu || dwarf_getsrclines(cu, &lines, &n) != 0)
		return false;
	uint64_t lo = 0, hi = UINT64_MAX;
	bool have = false;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Addr a;
		if (dwarf_lineaddr(dwarf_onesrcline(lines, i), &a) != 0)
			continue;
		a += bias;
		if (a <= addr && (!have || a > lo)) {
			lo = a;
			have = true;
		}
		if (a > addr && a < hi)
			hi = a;
	}
	if (!have)
		return false;
	*start = lo;
	*end = hi == UINT64_MAX || hi - lo > LINE_MAX_BYTES ? lo + LINE_MAX_BYTES : hi;
	return true;
}

/* Reads [start, end) of the code at link-time addresses from path; returns the bytes read. */
static size_t read_code(const char *path, uint64_t start, uint64_t end, uint8_t *buf, int *machine)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	size_t got = 0;
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	GElf_Ehdr eh;
	if (e && gelf_getehdr(e, &eh)) {
		*machine = eh.e_machine;
		for (Elf_Scn *s = elf_nextscn(e, NULL); s; s = elf_nextscn(e, s)) {
			GElf_Shdr sh;
			if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR))
				continue;
			if (start < sh.sh_addr || start >= sh.sh_addr + sh.sh_size)
				continue;
			uint64_t len = end - start;
			if (start + len > sh.sh_addr + sh.sh_size)
				len = sh.sh_addr + sh.sh_size - start;
			ssize_t r = pread(fd, buf, len, (off_t)(sh.sh_offset + (start - sh.sh_addr)));
			got = r > 0 ? (size_t)r : 0;
			break;
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return got;
}

static void disassemble(struct dwmod *m, uint64_t addr, struct wperf_annot_line *out)
{
	uint64_t start, end;
	uint8_t buf[LINE_MAX_BYTES];
	int machine = 0;
	if (!line_range(m, addr, &start, &end) || !m->code_path)
		return;
	size_t n = read_code(m->code_path, start, end, buf, &machine);
	csh h;
	cs_arch arch = machine == EM_AARCH64 ? CS_ARCH_ARM64 : CS_ARCH_X86;
	cs_mode mode = machine == EM_AARCH64 ? CS_MODE_ARM : CS_MODE_64;
	if (!n || (machine != EM_AARCH64 && machine != EM_X86_64) || cs_open(arch, mode, &h) != CS_ERR_OK)
		return;
	cs_insn *insn;
	size_t count = cs_disasm(h, buf, n, start, 0, &insn);
	if (count > DASM_MAX)
		count = DASM_MAX;
	out->dasm_addr = xcalloc(count ? count : 1, sizeof(char *));
	out->dasm_text = xcalloc(count ? count : 1, sizeof(char *));
	for (size_t i = 0; i < count; i++) {
		out->dasm_addr[i] = xasprintf("%" PRIx64, (uint64_t)insn[i].address);
		out->dasm_text[i] = xasprintf("%s%s%s", insn[i].mnemonic, insn[i].op_str[0] ? " " : "",
					      insn[i].op_str);
	}
	out->ndasm = count;
	if (count)
		cs_free(insn, count);
	cs_close(&h);
}

static char *row_name(const struct wperf_pc *pc, bool long_names)
{
	const char *s = long_names && pc->sym->mangled ? pc->sym->mangled : pc->sym->name;
	return xasprintf("%s:%s", s, hist_dso_name(pc->dso));
}

static int cmp_hits(const void *a, const void *b)
{
	const struct wperf_annot_line *x = a, *y = b;
	if (x->hits != y->hits)
		return x->hits > y->hits ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

int wperf_annotate_fn(const struct wperf_pcs *p, size_t ev, const char *name, bool long_names,
		      bool disasm, struct wperf_annot_fn *out, uint64_t *missing)
{
	memset(out, 0, sizeof(*out));
	const char *colon = strrchr(name, ':');
	out->name = colon ? xstrndup(name, (size_t)(colon - name)) : xstrdup(name);
	size_t cap = 0;
	for (size_t i = 0; i < p->n; i++) {
		const struct wperf_pc *pc = &p->v[i];
		if (pc->ev != ev)
			continue;
		char *rn = row_name(pc, long_names);
		bool match = !strcmp(rn, name);
		free(rn);
		if (!match)
			continue;
		struct dwmod *m = module_of(pc->dso);
		const char *file;
		int line;
		if (!line_of(m, pc->addr, &file, &line)) {
			*missing += pc->count;
			continue;
		}
		char addr[32];
		snprintf(addr, sizeof(addr), "%" PRIx64, pc->addr);
		/* One row per line (per line and instruction address with --disassemble). */
		size_t k;
		for (k = 0; k < out->n; k++)
			if (out->lines[k].line == (unsigned)line && !strcmp(out->lines[k].file, file) &&
			    (!disasm || !strcmp(out->lines[k].inst_addr, addr)))
				break;
		if (k == out->n) {
			ALLOC_GROW(out->lines, out->n + 1, cap);
			struct wperf_annot_line *l = &out->lines[out->n++];
			memset(l, 0, sizeof(*l));
			l->file = xstrdup(file);
			l->line = (unsigned)line;
			if (disasm) {
				l->inst_addr = xstrdup(addr);
				disassemble(m, pc->addr, l);
			}
		}
		out->lines[k].hits += pc->count;
	}
	if (out->n > 1)
		qsort(out->lines, out->n, sizeof(*out->lines), cmp_hits);
	return 0;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct wperf_pc_row *x = a, *y = b;
	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return x->address < y->address ? -1 : x->address > y->address;
}

size_t wperf_pcs_rows(const struct wperf_pcs *p, size_t ev, bool long_names, struct wperf_pc_row **out)
{
	struct wperf_pc_row *rows = NULL;
	size_t n = 0, cap = 0;
	for (size_t i = 0; i < p->n; i++) {
		if (p->v[i].ev != ev)
			continue;
		ALLOC_GROW(rows, n + 1, cap);
		rows[n++] = (struct wperf_pc_row){ p->v[i].addr, p->v[i].count, row_name(&p->v[i], long_names) };
	}
	if (n > 1)
		qsort(rows, n, sizeof(*rows), cmp_rows);
	*out = rows;
	return n;
}

void wperf_pc_rows_free(struct wperf_pc_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(rows[i].in_symbol);
	free(rows);
}

void wperf_annot_fn_free(struct wperf_annot_fn *f)
{
	for (size_t k = 0; k < f->n; k++) {
		struct wperf_annot_line *l = &f->lines[k];
		free(l->file);
		free(l->inst_addr);
		for (size_t d = 0; d < l->ndasm; d++) {
			free(l->dasm_addr[d]);
			free(l->dasm_text[d]);
		}
		free(l->dasm_addr);
		free(l->dasm_text);
	}
	free(f->lines);
	free(f->name);
	memset(f, 0, sizeof(*f));
}

void wperf_annotate_cleanup(void)
{
	for (size_t i = 0; i < nmods; i++) {
		if (mods[i].dwfl)
			dwfl_end(mods[i].dwfl);
		free(mods[i].code_path);
	}
	free(mods);
	mods = NULL;
	nmods = capmods = 0;
}

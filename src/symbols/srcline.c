/* Source lines and inline chains (libdw), memoised per DSO file and address. See srcline.h. */
#include "symbols/srcline.h"

#include "symbols/demangle.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return x;
}

static uint64_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* One address's answers, filled as they are asked for. */
struct sl_addr {
	uint64_t addr;
	bool used;
	bool line_done, inl_done;
	const char *file;
	unsigned line;
	const char *str;      /* "base.c:12" */
	struct srcline_inline *inl;
	size_t ninl;
};

/* One DSO file (by build-id, else path). */
struct sl_file {
	char *key;
	bool opened;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwarf_Addr bias;      /* Dwfl address = file address + bias (offline layouts may move it) */
	bool has_dwarf;
	const char *note;
	struct sl_addr *tab; /* open addressing by addr */
	size_t cap, n;
};

struct sl_dso {
	const struct dso *dso;
	struct sl_file *file;
};

static struct {
	char **strs;          /* interned strings, open addressing */
	size_t scap, sn;
	struct sl_file **files;
	size_t fcap, fn;
	struct sl_dso *dsos;  /* dso pointer -> file */
	size_t dcap, dn;
	const struct dso *last_dso;
	struct sl_file *last_file;
} C;

const char *srcline_intern(const char *s)
{
	if ((C.sn + 1) * 2 > C.scap) {
		size_t ncap = C.scap ? C.scap * 2 : 1024;
		char **n = xcalloc(ncap, sizeof(*n));
		for (size_t i = 0; i < C.scap; i++) {
			if (!C.strs[i])
				continue;
			size_t j = str_hash(C.strs[i]) & (ncap - 1);
			while (n[j])
				j = (j + 1) & (ncap - 1);
			n[j] = C.strs[i];
		}
		free(C.strs);
		C.strs = n;
		C.scap = ncap;
	}
	size_t mask = C.scap - 1;
	for (size_t i = str_hash(s) & mask;; i = (i + 1) & mask) {
		if (!C.strs[i]) {
			C.sn++;
			return C.strs[i] = xstrdup(s);
		}
		if (!strcmp(C.strs[i], s))
			return C.strs[i];
	}
}

const char *srcline_basename(const char *path)
{
	const char *b = strrchr(path, '/');
	return srcline_intern(b ? b + 1 : path);
}

static char *file_key(const struct dso *d)
{
	if (d->build_id_size) {
		char *k = xmalloc(d->build_id_size * 2 + 4);
		strcpy(k, "id:");
		for (size_t i = 0; i < d->build_id_size; i++)
			sprintf(k + 3 + 2 * i, "%02x", d->build_id[i]);
		return k;
	}
	char *p = dso_file_path(d, d->path);
	char *k = xasprintf("path:%s", p);
	free(p);
	return k;
}

static struct sl_file *file_by_key(char *key)
{
	if ((C.fn + 1) * 2 > C.fcap) {
		size_t ncap = C.fcap ? C.fcap * 2 : 64;
		struct sl_file **n = xcalloc(ncap, sizeof(*n));
		for (size_t i = 0; i < C.fcap; i++) {
			if (!C.files[i])
				continue;
			size_t j = str_hash(C.files[i]->key) & (ncap - 1);
			while (n[j])
				j = (j + 1) & (ncap - 1);
			n[j] = C.files[i];
		}
		free(C.files);
		C.files = n;
		C.fcap = ncap;
	}
	size_t mask = C.fcap - 1;
	for (size_t i = str_hash(key) & mask;; i = (i + 1) & mask) {
		if (!C.files[i]) {
			struct sl_file *f = xcalloc(1, sizeof(*f));
			f->key = key;
			C.fn++;
			return C.files[i] = f;
		}
		if (!strcmp(C.files[i]->key, key)) {
			free(key);
			return C.files[i];
		}
	}
}

/* A forgotten DSO's slot: skipped by lookups, dropped when the table grows. */
static const char tombstone;
#define TOMB ((const struct dso *)(const void *)&tombstone)

void srcline_forget_dso(const struct dso *d)
{
	if (C.last_dso == d)
		C.last_dso = NULL;
	if (!C.dcap)
		return;
	size_t mask = C.dcap - 1;
	for (size_t i = mix64((uintptr_t)d) & mask; C.dsos[i].dso; i = (i + 1) & mask)
		if (C.dsos[i].dso == d) {
			C.dsos[i].dso = TOMB;
			C.dsos[i].file = NULL;
			return;
		}
}

static struct sl_file *file_of(struct dso *d)
{
	if (d == C.last_dso)
		return C.last_file;
	if ((C.dn + 1) * 2 > C.dcap) {
		size_t ncap = C.dcap ? C.dcap * 2 : 64;
		struct sl_dso *n = xcalloc(ncap, sizeof(*n));
		for (size_t i = 0; i < C.dcap; i++) {
			if (!C.dsos[i].dso || C.dsos[i].dso == TOMB)
				continue;
			size_t j = mix64((uintptr_t)C.dsos[i].dso) & (ncap - 1);
			while (n[j].dso)
				j = (j + 1) & (ncap - 1);
			n[j] = C.dsos[i];
		}
		free(C.dsos);
		C.dsos = n;
		C.dcap = ncap;
		C.dn = 0;
		for (size_t k = 0; k < ncap; k++)
			C.dn += n[k].dso != NULL;
	}
	size_t mask = C.dcap - 1;
	size_t i;
	for (i = mix64((uintptr_t)d) & mask; C.dsos[i].dso; i = (i + 1) & mask)
		if (C.dsos[i].dso == d)
			break;
	if (!C.dsos[i].dso) {
		/* Symbols first: they check the build-id and set d->mismatch. */
		dso_load(d);
		C.dsos[i].dso = d;
		C.dsos[i].file = d->kind == DSO_ELF ? file_by_key(file_key(d)) : NULL;
		C.dn++;
	}
	C.last_dso = d;
	C.last_file = C.dsos[i].file;
	return C.last_file;
}

static char *debuginfo_path;

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/* Opens the file on first use: libdwfl finds the DWARF in it or in its separate debug file. */
static void file_open(struct sl_file *f, struct dso *d)
{
	f->opened = true;
	if (d->mismatch) {
		f->note = "its build-id differs from the recording's";
		return;
	}
	char *path = dso_file_path(d, d->path);
	/* Under --symfs, separate debug files are looked for under the root too. */
	free(debuginfo_path);
	debuginfo_path = d->root ? xasprintf(":.debug:%s/usr/lib/debug", d->root) : NULL;
	f->dwfl = dwfl_begin(&offline_callbacks);
	if (f->dwfl) {
		f->mod = dwfl_report_offline(f->dwfl, d->short_name ? d->short_name : "", path, -1);
		dwfl_report_end(f->dwfl, NULL, NULL);
	}
	free(path);
	Dwarf_Addr bias;
	if (f->mod && dwfl_module_getelf(f->mod, &f->bias) && dwfl_module_getdwarf(f->mod, &bias)) {
		f->has_dwarf = true;
		return;
	}
	f->note = f->mod ? "no DWARF debug information (install its -dbg/-dbgsym package)" : "cannot be read";
	if (f->dwfl)
		dwfl_end(f->dwfl);
	f->dwfl = NULL;
	f->mod = NULL;
}

static struct sl_addr *addr_slot(struct sl_file *f, uint64_t addr)
{
	if ((f->n + 1) * 2 > f->cap) {
		size_t ncap = f->cap ? f->cap * 2 : 256;
		struct sl_addr *n = xcalloc(ncap, sizeof(*n));
		for (size_t i = 0; i < f->cap; i++) {
			if (!f->tab[i].used)
				continue;
			size_t j = mix64(f->tab[i].addr) & (ncap - 1);
			while (n[j].used)
				j = (j + 1) & (ncap - 1);
			n[j] = f->tab[i];
		}
		free(f->tab);
		f->tab = n;
		f->cap = ncap;
	}
	size_t mask = f->cap - 1;
	for (size_t i = mix64(addr) & mask;; i = (i + 1) & mask) {
		if (!f->tab[i].used) {
			f->tab[i].used = true;
			f->tab[i].addr = addr;
			f->n++;
			return &f->tab[i];
		}
		if (f->tab[i].addr == addr)
			return &f->tab[i];
	}
}

static struct sl_addr *lookup(struct dso *d, uint64_t addr)
{
	if (!d)
		return NULL;
	struct sl_file *f = file_of(d);
	if (!f)
		return NULL;
	if (!f->opened)
		file_open(f, d);
	if (!f->has_dwarf)
		return NULL;
	return addr_slot(f, addr);
}

static void find_line(struct sl_file *f, struct sl_addr *a)
{
	a->line_done = true;
	Dwfl_Line *l = dwfl_module_getsrc(f->mod, a->addr + f->bias);
	if (!l)
		return;
	int line = 0;
	const char *file = dwfl_lineinfo(l, NULL, &line, NULL, NULL, NULL);
	if (!file || line <= 0)
		return;
	a->file = srcline_intern(file);
	a->line = (unsigned)line;
}

bool srcline_find(struct dso *d, uint64_t addr, const char **file, unsigned *line)
{
	struct sl_addr *a = lookup(d, addr);
	if (!a)
		return false;
	if (!a->line_done)
		find_line(file_of(d), a);
	if (!a->file)
		return false;
	*file = a->file;
	*line = a->line;
	return true;
}

/* A function DIE's name as addr2line -f prints it (linkage name first), demangled as symbols;
 * *linkage says whether it was a linkage name. */
static const char *die_func_name(Dwarf_Die *die, bool *linkage)
{
	Dwarf_Attribute at;
	const char *name = NULL;
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &at) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &at))
		name = dwarf_formstring(&at);
	*linkage = name != NULL;
	if (!name)
		name = dwarf_diename(die);
	if (!name && dwarf_attr_integrate(die, DW_AT_name, &at))
		name = dwarf_formstring(&at);
	if (!name)
		return NULL;
	char *dem = symbol_demangle(name);
	const char *r = srcline_intern(dem ? dem : name);
	free(dem);
	return r;
}

/* The file name of a DW_AT_call_file index in the CU's file table. */
static const char *call_file(Dwarf_Die *cu, Dwarf_Word idx)
{
	Dwarf_Files *files;
	size_t nfiles;
	if (dwarf_getsrcfiles(cu, &files, &nfiles) != 0 || idx >= nfiles)
		return NULL;
	const char *name = dwarf_filesrc(files, idx, NULL, NULL);
	return name ? srcline_intern(name) : NULL;
}

static void find_inlines(struct sl_file *f, struct sl_addr *a)
{
	a->inl_done = true;
	if (!a->line_done)
		find_line(f, a);
	Dwarf_Addr bias = 0;
	Dwarf_Die *cu = dwfl_module_addrdie(f->mod, a->addr + f->bias, &bias);
	if (!cu)
		return;
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes(cu, a->addr + f->bias - bias, &scopes);
	if (n <= 0)
		return;
	/* The innermost function; dwarf_getscopes continues into an inlined function's abstract
	 * definition, so the concrete parents come from dwarf_getscopes_die (as eu-addr2line -i). */
	int k;
	for (k = 0; k < n; k++) {
		int tag = dwarf_tag(&scopes[k]);
		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram)
			break;
	}
	Dwarf_Die *chain = NULL;
	int nc = k < n ? dwarf_getscopes_die(&scopes[k], &chain) : 0;
	free(scopes);
	if (nc <= 0)
		return;
	size_t cap = 0;
	const char *file = a->file;
	unsigned line = a->line;
	int lang = dwarf_srclang(cu);
	bool cplusplus = lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
			 lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14;
	for (int i = 0; i < nc; i++) {
		int tag = dwarf_tag(&chain[i]);
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		ALLOC_GROW(a->inl, a->ninl + 1, cap);
		struct srcline_inline *s = &a->inl[a->ninl++];
		bool linkage;
		s->func = die_func_name(&chain[i], &linkage);
		/* binutils takes a C name as the linkage name (perf's addr2line relies on it). */
		s->linkage = linkage || !cplusplus;
		s->file = file;
		s->line = line;
		if (tag == DW_TAG_subprogram)
			break;
		/* The next level out is at this one's call site. */
		Dwarf_Attribute at;
		Dwarf_Word w = 0;
		file = NULL;
		line = 0;
		if (dwarf_attr(&chain[i], DW_AT_call_file, &at) && dwarf_formudata(&at, &w) == 0)
			file = call_file(cu, w);
		if (dwarf_attr(&chain[i], DW_AT_call_line, &at) && dwarf_formudata(&at, &w) == 0)
			line = (unsigned)w;
	}
	free(chain);
}

size_t srcline_inlines(struct dso *d, uint64_t addr, const struct srcline_inline **out)
{
	struct sl_addr *a = lookup(d, addr);
	if (!a)
		return 0;
	if (!a->inl_done)
		find_inlines(file_of(d), a);
	*out = a->inl;
	return a->ninl;
}

const char *srcline_string(struct dso *d, const struct symbol *sym, uint64_t addr)
{
	if (!d)
		return srcline_intern("??:0");
	char buf[4096];
	struct sl_addr *a = lookup(d, addr);
	if (a && !a->line_done)
		find_line(file_of(d), a);
	if (a && a->str)
		return a->str;
	if (a && a->file) {
		const char *b = strrchr(a->file, '/');
		snprintf(buf, sizeof(buf), "%s:%u", b ? b + 1 : a->file, a->line);
		return a->str = srcline_intern(buf);
	} else if (sym) {
		snprintf(buf, sizeof(buf), "%s+%" PRIu64, sym->name, addr - sym->start);
	} else {
		snprintf(buf, sizeof(buf), "%s[%" PRIx64 "]", d->short_name ? d->short_name : "", addr);
	}
	return srcline_intern(buf);
}

const char *srcline_file_string(struct dso *d, uint64_t addr)
{
	const char *file;
	unsigned line;
	if (!d || !srcline_find(d, addr, &file, &line))
		return srcline_intern("");
	return srcline_basename(file);
}

const char *srcline_note(struct dso *d)
{
	if (!d)
		return NULL;
	if (d->kind != DSO_ELF)
		return "not an ELF file";
	struct sl_file *f = file_of(d);
	return f ? f->note : NULL;
}

void srcline_inline_symbols_free(void);

void srcline_cache_free(void)
{
	srcline_inline_symbols_free();
	for (size_t i = 0; i < C.fcap; i++) {
		struct sl_file *f = C.files[i];
		if (!f)
			continue;
		for (size_t j = 0; j < f->cap; j++)
			free(f->tab[j].inl);
		free(f->tab);
		if (f->dwfl)
			dwfl_end(f->dwfl);
		free(f->key);
		free(f);
	}
	for (size_t i = 0; i < C.scap; i++)
		free(C.strs[i]);
	free(C.strs);
	free(C.files);
	free(C.dsos);
	free(debuginfo_path);
	debuginfo_path = NULL;
	memset(&C, 0, sizeof(C));
}

/* Inline frames: synthetic symbols, one per (base symbol, name), so that every frame of one
 * inlined function in one caller is the same symbol (call trees merge them, as perf merges
 * inlined frames by name). */
struct sl_isym {
	const struct symbol *base;
	const char *name;        /* interned */
	struct symbol sym;
};

static struct sl_isym **isyms;
static size_t nisyms, icap;

static const struct symbol *inline_symbol(const struct symbol *base, const char *name)
{
	if ((nisyms + 1) * 2 > icap) {
		size_t ncap = icap ? icap * 2 : 256;
		struct sl_isym **n = xcalloc(ncap, sizeof(*n));
		for (size_t i = 0; i < icap; i++) {
			if (!isyms[i])
				continue;
			size_t j = mix64((uintptr_t)isyms[i]->base ^ (uintptr_t)isyms[i]->name) & (ncap - 1);
			while (n[j])
				j = (j + 1) & (ncap - 1);
			n[j] = isyms[i];
		}
		free(isyms);
		isyms = n;
		icap = ncap;
	}
	size_t mask = icap - 1;
	for (size_t i = mix64((uintptr_t)base ^ (uintptr_t)name) & mask;; i = (i + 1) & mask) {
		if (!isyms[i]) {
			struct sl_isym *s = xcalloc(1, sizeof(*s));
			s->base = base;
			s->name = name;
			s->sym.start = base->start;
			s->sym.size = base->size;
			s->sym.name = (char *)name;
			nisyms++;
			isyms[i] = s;
			return &s->sym;
		}
		if (isyms[i]->base == base && isyms[i]->name == name)
			return &isyms[i]->sym;
	}
}

size_t srcline_inline_frames(struct dso *d, const struct symbol *base, uint64_t addr, const struct symbol **syms,
			     bool *inlined, const char **lines, size_t max)
{
	if (!d || !base || d->kind != DSO_ELF)
		return 0;
	const struct srcline_inline *inl;
	size_t n = srcline_inlines(d, addr, &inl);
	size_t out = 0;
	for (size_t i = 0; i < n && out < max; i++) {
		const char *name = inl[i].func ? inl[i].func : srcline_intern("??");
		/* perf's addr2line (binutils) names the innermost level by the symbol table when its
		 * DWARF name is no linkage name (C++ DW_AT_name "__move_merge<...>" is not). */
		if (i == 0 && !inl[i].linkage)
			name = base->name;
		if (lines) {
			char buf[4096];
			if (inl[i].file && inl[i].line) {
				const char *b = strrchr(inl[i].file, '/');
				snprintf(buf, sizeof(buf), "%s:%u", b ? b + 1 : inl[i].file, inl[i].line);
				lines[out] = srcline_intern(buf);
			} else {
				lines[out] = srcline_intern("??:0");
			}
		}
		if (!strcmp(name, base->name)) {
			syms[out] = base;
			inlined[out++] = false;
		} else {
			syms[out] = inline_symbol(base, name);
			inlined[out++] = true;
		}
	}
	return out;
}

const struct symbol *srcline_inline_base(const struct symbol *s)
{
	/* s is the sym member of an sl_isym (only inline frames carry such symbols). */
	const struct sl_isym *is = (const struct sl_isym *)(const void *)((const char *)s -
									  offsetof(struct sl_isym, sym));
	return is->base;
}

void srcline_inline_symbols_free(void)
{
	for (size_t i = 0; i < icap; i++)
		free(isyms[i]);
	free(isyms);
	isyms = NULL;
	nisyms = icap = 0;
}

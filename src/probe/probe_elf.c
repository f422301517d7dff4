/* What perf probe reads from a binary: the symbols --funcs lists, the file offset of a function
 * for uprobe_events, and the function's source file for -l (see probe.h). */
#include "probe/probe.h"
#include "probe/probe_int.h"

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
#include "symbols/dwarfcap.h"
#include "symbols/elf.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/xalloc.h"

static bool has_symtab(Elf *elf)
{
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr s;
		if (gelf_getshdr(scn, &s) && s.sh_type == SHT_SYMTAB)
			return true;
	}
	return false;
}

int probe_elf_open(const char *path, struct elf_file *f)
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

int probe_elf_dwarf(struct elf_file *f, const char *path, Dwarf **dw)
{
	*dw = NULL;
	char *why = dwarfcap_refusal(f->syms);
	if (why) {
		err_set("%s: %s", path, why);
		free(why);
		return -1;
	}
	*dw = dwarf_begin_elf(f->syms, DWARF_C_READ, NULL);
	return 0;
}

void probe_elf_close(struct elf_file *f)
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
	if (probe_elf_open(path, &f) < 0)
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
	probe_elf_close(&f);
	if (*n)
		qsort(*names, *n, sizeof(**names), cmp_str);
	return 0;
}

int probe_elf_find(Elf *elf, const char *func, GElf_Addr *addr)
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
	if (probe_elf_open(path, &f) < 0)
		return -1;
	GElf_Addr addr;
	size_t nph;
	int r = -1;
	if (probe_elf_find(f.syms, func, &addr) == 0 && elf_getphdrnum(f.elf, &nph) == 0) {
		for (size_t i = 0; i < nph && r < 0; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(f.elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
			    addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_memsz) {
				*offset = addr - ph.p_vaddr + ph.p_offset;
				r = 0;
			}
		}
	}
	probe_elf_close(&f);
	if (r < 0)
		err_set("Probe point '%s' not found.", func);
	return r;
}

char *probe_elf_source(const char *path, const char *func)
{
	struct elf_file f;
	if (probe_elf_open(path, &f) < 0)
		return NULL;
	GElf_Addr addr;
	char *out = NULL;
	Dwarf *dw = NULL;
	if (probe_elf_find(f.syms, func, &addr) == 0)
		probe_elf_dwarf(&f, path, &dw);
	Dwarf_Die cu;
	if (dw && dwarf_addrdie(dw, addr, &cu)) {
		Dwarf_Line *line = dwarf_getsrc_die(&cu, addr);
		const char *src = line ? dwarf_linesrc(line, NULL, NULL) : NULL;
		if (src)
			out = xstrdup(src);
	}
	if (dw)
		dwarf_end(dw);
	probe_elf_close(&f);
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
	if (probe_elf_open(path, &f) < 0)
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
	probe_elf_close(&f);
	return out;
}

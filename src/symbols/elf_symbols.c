/* Symbols, load segments and build-ids of ELF files, read with libelf. Every count and offset in
 * the file is checked against what libelf says the section holds: files may be truncated,
 * corrupt or replaced while we read them. */
#include "symbols/elf.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/xalloc.h"

#ifndef R_AARCH64_JUMP_SLOT
#define R_AARCH64_JUMP_SLOT 1026
#endif

/* Section facts the symbol walk needs, read once per table. */
struct sect {
	uint64_t addr, size, flags;
	uint32_t type;
};

static struct sect *read_sections(Elf *elf, size_t *n)
{
	*n = 0;
	size_t shnum;
	if (elf_getshdrnum(elf, &shnum) != 0 || !shnum)
		return NULL;
	struct sect *v = xcalloc(shnum, sizeof(*v));
	for (size_t i = 0; i < shnum; i++) {
		GElf_Shdr sh;
		Elf_Scn *scn = elf_getscn(elf, i);
		if (scn && gelf_getshdr(scn, &sh))
			v[i] = (struct sect){ sh.sh_addr, sh.sh_size, sh.sh_flags, sh.sh_type };
	}
	*n = shnum;
	return v;
}

static const char *scn_name(Elf *elf, size_t shstrndx, const GElf_Shdr *sh)
{
	const char *name = elf_strptr(elf, shstrndx, sh->sh_name);
	return name ? name : "";
}

static enum symtab_rank rank_of(unsigned bind)
{
	switch (bind) {
	case STB_GLOBAL:
	case STB_GNU_UNIQUE:
		return SYMRANK_GLOBAL;
	case STB_WEAK:
		return SYMRANK_WEAK;
	case STB_LOCAL:
		return SYMRANK_LOCAL;
	default:
		return SYMRANK_OTHER;
	}
}

/* The extended section index table of a symbol table, for files with more than 65279 sections. */
static Elf_Data *xindex_data(Elf *elf, Elf_Scn *symscn)
{
	size_t idx = elf_ndxscn(symscn);
	for (Elf_Scn *s = elf_nextscn(elf, NULL); s; s = elf_nextscn(elf, s)) {
		GElf_Shdr sh;
		if (gelf_getshdr(s, &sh) && sh.sh_type == SHT_SYMTAB_SHNDX && sh.sh_link == idx)
			return elf_getdata(s, NULL);
	}
	return NULL;
}

void elfsym_add_table(struct symtab_builder *b, Elf *elf, Elf_Scn *scn)
{
	GElf_Shdr sh;
	Elf_Data *data = elf_getdata(scn, NULL);
	if (!gelf_getshdr(scn, &sh) || !data || !data->d_buf || data->d_type != ELF_T_SYM)
		return;
	size_t entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);
	if (!entsize)
		return;
	size_t nsyms = data->d_size / entsize;
	Elf_Data *xdata = xindex_data(elf, scn);
	size_t nsect;
	struct sect *sect = read_sections(elf, &nsect);

	/* Untyped labels in executable sections (_start, _dl_start_user, hand-written assembly)
	 * count as symbols, as Linux perf counts them (its elf_sym__is_label), unless hidden or
	 * internal: reports then agree with perf's symbol for symbol. */
	for (size_t pass = 1; pass < 2; pass++) {
		for (size_t i = 1; i < nsyms; i++) {
			GElf_Sym sym;
			Elf32_Word xndx = 0;
			if (!gelf_getsymshndx(data, xdata, (int)i, &sym, &xndx))
				continue;
			unsigned type = GELF_ST_TYPE(sym.st_info);
			size_t shndx = sym.st_shndx == SHN_XINDEX ? xndx : sym.st_shndx;
			if (shndx == SHN_UNDEF || (sym.st_shndx >= SHN_LORESERVE && sym.st_shndx != SHN_XINDEX))
				continue;
			bool func = type == STT_FUNC || type == STT_GNU_IFUNC;
			unsigned vis = GELF_ST_VISIBILITY(sym.st_other);
			if (!func && (type != STT_NOTYPE || vis == STV_HIDDEN || vis == STV_INTERNAL))
				continue;
			const struct sect *s = shndx < nsect ? &sect[shndx] : NULL;
			if (!func && (!s || !(s->flags & SHF_EXECINSTR)))
				continue;
			const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			/* Arm mapping symbols ($x, $d) and assembler-local labels are no functions. */
			if (!func && (name[0] == '$' || !strncmp(name, ".L", 2)))
				continue;
			uint64_t limit = 0;
			if (s && sym.st_value >= s->addr && sym.st_value - s->addr < s->size)
				limit = s->addr + s->size;
			/* Linker-defined markers (_end, __bss_start) sit just past their section. */
			if (!func && !limit)
				continue;
			symtab_add(b, sym.st_value, sym.st_size, limit, name, NULL, rank_of(GELF_ST_BIND(sym.st_info)));
		}
	}
	free(sect);
}

/* PLT relocations: which GOT slot belongs to which dynamic symbol. */
struct gotslot {
	uint64_t got;
	const char *name;
};

static int gotslot_cmp(const void *pa, const void *pb)
{
	const struct gotslot *a = pa, *b = pb;
	return a->got < b->got ? -1 : a->got > b->got;
}

static const char *reloc_sym_name(Elf *elf, Elf_Scn *symscn, size_t symidx)
{
	GElf_Shdr sh;
	GElf_Sym sym;
	Elf_Data *d = symscn ? elf_getdata(symscn, NULL) : NULL;
	if (!d || !gelf_getshdr(symscn, &sh) || symidx > INT32_MAX || !gelf_getsym(d, (int)symidx, &sym))
		return NULL;
	const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
	return name && *name ? name : NULL;
}

/* Collects (r_offset, name) of the relocations of type t1 or t2 in SHT_RELA sections, and of
 * type tirel (an IRELATIVE slot: an ifunc's resolved address, no symbol) with the name "" (perf
 * names such PLT entries "@plt"); with only_scn, of that one section, in file order. */
static struct gotslot *read_relocs(Elf *elf, Elf_Scn *only_scn, unsigned t1, unsigned t2, unsigned tirel,
				   size_t *n)
{
	struct gotslot *v = NULL;
	size_t cap = 0;
	*n = 0;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (only_scn && scn != only_scn)
			continue;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t entsize = gelf_fsize(elf, ELF_T_RELA, 1, EV_CURRENT);
		if (!d || !entsize)
			continue;
		Elf_Scn *symscn = elf_getscn(elf, sh.sh_link);
		size_t nrel = d->d_size / entsize;
		for (size_t i = 0; i < nrel && i <= INT32_MAX; i++) {
			GElf_Rela r;
			if (!gelf_getrela(d, (int)i, &r))
				break;
			unsigned type = (unsigned)GELF_R_TYPE(r.r_info);
			if (type != t1 && type != t2 && type != tirel)
				continue;
			const char *name = type == tirel ? "" : reloc_sym_name(elf, symscn, GELF_R_SYM(r.r_info));
			ALLOC_GROW(v, *n + 1, cap);
			v[(*n)++] = (struct gotslot){ r.r_offset, name };
		}
	}
	return v;
}

/* x86-64: each entry of .plt, .plt.sec (IBT) and .plt.got jumps through its GOT slot with
 * "jmp *disp32(%rip)" (ff 25, after an endbr64 and a bnd prefix in IBT entries); the dynamic
 * relocation of that slot names the function. Matching slots, rather than counting entries,
 * names all three kinds of entry and cannot be thrown off by a PLT layout we do not know. */
static void add_plt_x86_64(struct symtab_builder *b, Elf *elf, size_t shstrndx)
{
	size_t nslots;
	struct gotslot *slots = read_relocs(elf, NULL, R_X86_64_JUMP_SLOT, R_X86_64_GLOB_DAT, R_X86_64_IRELATIVE, &nslots);
	if (!nslots) {
		free(slots);
		return;
	}
	if (nslots > 1)
		qsort(slots, nslots, sizeof(*slots), gotslot_cmp);
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS || !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		const char *name = scn_name(elf, shstrndx, &sh);
		if (strcmp(name, ".plt") && strcmp(name, ".plt.sec") && strcmp(name, ".plt.got"))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		uint64_t entsize = sh.sh_entsize;
		if (!entsize)
			entsize = strcmp(name, ".plt.got") ? 16 : 8;
		if (!d || !d->d_buf || entsize < 6 || entsize > 64)
			continue;
		const uint8_t *code = d->d_buf;
		for (uint64_t off = 0; off + entsize <= d->d_size; off += entsize) {
			for (uint64_t p = 0; p + 6 <= entsize; p++) {
				if (code[off + p] != 0xff || code[off + p + 1] != 0x25)
					continue;
				const uint8_t *q = code + off + p + 2;
				int32_t disp = (int32_t)((uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 |
							 (uint32_t)q[3] << 24);
				struct gotslot key = { sh.sh_addr + off + p + 6 + (uint64_t)(int64_t)disp, NULL };
				struct gotslot *hit = bsearch(&key, slots, nslots, sizeof(*slots), gotslot_cmp);
				if (hit && hit->name) {
					symtab_add(b, sh.sh_addr + off, entsize, 0, hit->name, "@plt", SYMRANK_PLT);
					break;
				}
			}
		}
	}
	free(slots);
}

/* aarch64: a 32-byte PLT header, then one 16-byte entry per .rela.plt relocation, in order. */
static void add_plt_aarch64(struct symtab_builder *b, Elf *elf, size_t shstrndx)
{
	Elf_Scn *plt = NULL, *rela = NULL;
	GElf_Shdr plt_sh = { 0 };
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *name = scn_name(elf, shstrndx, &sh);
		if (!strcmp(name, ".plt") && sh.sh_type == SHT_PROGBITS) {
			plt = scn;
			plt_sh = sh;
		} else if (!strcmp(name, ".rela.plt") && sh.sh_type == SHT_RELA) {
			rela = scn;
		}
	}
	if (!plt || !rela)
		return;
	size_t n;
	struct gotslot *slots = read_relocs(elf, rela, R_AARCH64_JUMP_SLOT, R_AARCH64_JUMP_SLOT, R_AARCH64_IRELATIVE, &n);
	for (size_t i = 0; i < n; i++) {
		uint64_t off = 32 + 16 * (uint64_t)i;
		if (off + 16 > plt_sh.sh_size)
			break;
		if (slots[i].name)
			symtab_add(b, plt_sh.sh_addr + off, 16, 0, slots[i].name, "@plt", SYMRANK_PLT);
	}
	free(slots);
}

void elfsym_add_plt(struct symtab_builder *b, Elf *elf)
{
	GElf_Ehdr eh;
	size_t shstrndx;
	if (!gelf_getehdr(elf, &eh) || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	if (eh.e_machine == EM_X86_64)
		add_plt_x86_64(b, elf, shstrndx);
	else if (eh.e_machine == EM_AARCH64)
		add_plt_aarch64(b, elf, shstrndx);
}

static void read_loads(struct symtab_load *out, Elf *elf)
{
	size_t nphdr;
	free(out->loads);
	out->loads = NULL;
	out->nloads = 0;
	if (elf_getphdrnum(elf, &nphdr) != 0)
		return;
	size_t cap = 0;
	for (size_t i = 0; i < nphdr && i <= INT32_MAX; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		ALLOC_GROW(out->loads, out->nloads + 1, cap);
		out->loads[out->nloads].offset = ph.p_offset;
		out->loads[out->nloads].vaddr = ph.p_vaddr;
		out->loads[out->nloads].filesz = ph.p_filesz;
		out->loads[out->nloads].memsz = ph.p_memsz;
		out->nloads++;
	}
}

static Elf_Scn *find_table(Elf *elf, uint32_t type)
{
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			return scn;
	}
	return NULL;
}

void elfsym_load_elf(const struct elf_want *w, Elf *elf, struct symtab_load *out)
{
	const char *what = w->file ? w->file : w->path;
	GElf_Ehdr eh;
	if (!gelf_getehdr(elf, &eh)) {
		notes_add(&out->notes, "'%s': bad ELF header: %s", what, elf_errmsg(-1));
		return;
	}
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) {
		notes_add(&out->notes, "'%s' is not an executable or shared library (ELF type %u)", what,
			  (unsigned)eh.e_type);
		return;
	}
	out->is_exec = eh.e_type == ET_EXEC;

	uint8_t bid[20];
	size_t bid_size = buildid_of_elf(elf, bid);
	if (bid_size && w->build_id_size &&
	    (bid_size != w->build_id_size || memcmp(bid, w->build_id, bid_size))) {
		out->mismatch = true;
		notes_add(&out->notes, "build-id mismatch: the file changed since recording");
		return;
	}
	memcpy(out->build_id, bid, bid_size);
	out->build_id_size = bid_size;
	read_loads(out, elf);

	struct symtab_builder b = { 0 };
	Elf *dbg = NULL;
	int dbg_fd = -1;
	Elf_Scn *symtab = find_table(elf, SHT_SYMTAB);
	if (symtab) {
		elfsym_add_table(&b, elf, symtab);
	} else {
		if (w->file)
			dbg = debuginfo_open(w->root, w->file, elf, bid, bid_size, &dbg_fd, &out->debug_path);
		Elf_Scn *dbg_symtab = dbg ? find_table(dbg, SHT_SYMTAB) : NULL;
		Elf_Scn *dynsym = find_table(elf, SHT_DYNSYM);
		if (dbg_symtab)
			elfsym_add_table(&b, dbg, dbg_symtab);
		else if (dynsym)
			elfsym_add_table(&b, elf, dynsym);
		/* An in-memory image (the vDSO) has only dynamic symbols by design. */
		if (!dbg_symtab && (w->file || !dynsym))
			notes_add(&out->notes,
				  "stripped: %s (install its debug symbols, e.g. the -dbgsym package)",
				  dynsym ? "only dynamic symbols" : "no symbol table");
	}
	elfsym_add_plt(&b, elf);
	symtab_finish(&b, &out->syms, &out->nsyms);
	if (dbg)
		elf_end(dbg);
	if (dbg_fd >= 0)
		close(dbg_fd);
	if (!out->nsyms && !out->notes.n)
		notes_add(&out->notes, "'%s' has no function symbols", what);
}

void elfsym_load_file(const struct elf_want *w, struct symtab_load *out)
{
	buildid_libelf_init();
	const char *path = w->file;
	void *image;
	Elf *kept = buildid_memo_elf(path, &image);
	if (kept) {
		if (elf_kind(kept) != ELF_K_ELF)
			notes_add(&out->notes, "'%s' is not an ELF file", path);
		else
			elfsym_load_elf(w, kept, out);
		elf_end(kept);
		free(image);
		return;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0) {
		notes_add(&out->notes, "cannot open '%s': %s", path, strerror(errno));
	} else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		notes_add(&out->notes, "'%s' is not a regular file", path);
	} else {
		Elf *elf = buildid_elf_begin_path(fd, &st, ELF_C_READ, &image, path);
		if (!elf || elf_kind(elf) != ELF_K_ELF)
			notes_add(&out->notes, "'%s' is not an ELF file", path);
		else
			elfsym_load_elf(w, elf, out);
		elf_end(elf);
		free(image);
	}
	if (fd >= 0)
		close(fd);
}

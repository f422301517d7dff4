/* Separate debug files with compressed sections for source lines (see srcline_split.h). */
#include "symbols/srcline_split.h"

#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "symbols/dwarfcap.h"
#include "symbols/dwarfzip.h"
#include "symbols/elf.h"
#include "util/fileio.h"
#include "util/xalloc.h"

/* What srcline_split_find_elf hands to libdwfl: the debug file and its path (both its then). */
struct handoff {
	Elf *elf;
	char *path;
};

int srcline_split_find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			   char **file_name, Elf **elfp)
{
	struct handoff *h = *userdata;
	*elfp = NULL;
	if (!h)
		return -1;
	*elfp = h->elf;
	if (!*file_name) /* the module's file name: where its DWARF was read (the line stores') */
		*file_name = h->path;
	else
		free(h->path);
	free(h);
	*userdata = NULL;
	return -1;
}

/* The lowest page-aligned PT_LOAD address and the end of the highest, as libdwfl lays out a
 * module; false when elf has no PT_LOAD. */
static bool load_range(Elf *elf, GElf_Addr *lo, GElf_Addr *hi)
{
	size_t n;
	bool any = false;
	*lo = *hi = 0;
	if (elf_getphdrnum(elf, &n) != 0)
		return false;
	for (size_t i = 0; i < n && i <= INT32_MAX; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || ph.p_vaddr + ph.p_memsz < ph.p_vaddr)
			continue;
		GElf_Addr a = ph.p_align > 1 && !(ph.p_align & (ph.p_align - 1)) ? ph.p_align : 1;
		if (!any || (ph.p_vaddr & ~(a - 1)) < *lo)
			*lo = ph.p_vaddr & ~(a - 1);
		if (ph.p_vaddr + ph.p_memsz > *hi)
			*hi = ph.p_vaddr + ph.p_memsz;
		any = true;
	}
	return any && *hi > *lo;
}

static bool has_section(Elf *elf, const char *want)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return false;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (name && sh.sh_type != SHT_NOBITS && !strcmp(name, want))
			return true;
	}
	return false;
}

/* elf's image, its header and the bounds of its section header table, page-rounded (libelf
 * writes the section headers of a private mapping when it inflates a section, and such pages
 * must stay); false when the image is not a page-aligned mapping or its tables lie outside it
 * (the count of section headers from libelf: e_shnum is 0 where a file has SHN_LORESERVE or
 * more). */
struct image {
	char *base;
	size_t size, page;
	uint64_t keep_to, sh_lo, sh_hi;
};

static bool image_of(Elf *elf, struct image *im)
{
	size_t shnum;
	GElf_Ehdr eh;
	im->page = (size_t)sysconf(_SC_PAGESIZE);
	im->base = elf_rawfile(elf, &im->size);
	if (!im->base || (uintptr_t)im->base % im->page || !gelf_getehdr(elf, &eh) || elf_getshdrnum(elf, &shnum) < 0)
		return false;
	uint64_t hdr_end = eh.e_phoff + (uint64_t)eh.e_phnum * eh.e_phentsize;
	im->keep_to = (hdr_end + im->page) & ~(uint64_t)(im->page - 1);
	im->sh_lo = eh.e_shoff & ~(uint64_t)(im->page - 1);
	im->sh_hi = eh.e_shoff + (uint64_t)shnum * eh.e_shentsize + im->page;
	return eh.e_phoff <= im->size && hdr_end <= im->size && eh.e_shoff <= im->size && im->sh_hi >= eh.e_shoff;
}

/* Hands back the pages wholly inside [off, off + len) of the image, but for the header's and the
 * section headers': a page dropped that was never written reads back from the file unchanged. */
static void drop_range(const struct image *im, uint64_t off, uint64_t len)
{
	if (off > im->size)
		return;
	if (len > im->size - off)
		len = im->size - off;
	uint64_t lo = (off + im->page - 1) & ~(uint64_t)(im->page - 1);
	uint64_t hi = (off + len) & ~(uint64_t)(im->page - 1);
	if (lo < im->keep_to)
		lo = im->keep_to;
	if (hi > lo && !(hi > im->sh_lo && lo < im->sh_hi))
		madvise(im->base + lo, hi - lo, MADV_DONTNEED);
}

/* Calls fn on each .debug_* section of elf that has bytes in the file. */
static void each_debug(Elf *elf, void (*fn)(Elf_Scn *, const GElf_Shdr *, void *), void *arg)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (name && !strncmp(name, ".debug_", 7) && sh.sh_type != SHT_NOBITS)
			fn(scn, &sh, arg);
	}
}

/* Hands a compressed section's pages back once it is inflated (dwarfzip_done_fn): libc's debug
 * file, 3.7 MB never read again. */
static void drop_packed(uint64_t offset, uint64_t size, void *arg)
{
	drop_range(arg, offset, size);
}

/* Inflates elf's compressed .debug_* sections (those not hidden) with libdeflate, before libdw
 * would with zlib (symbols/dwarfzip.h), and hands their compressed bytes' pages back to the page
 * cache when elf is a mapping of its file. */
static void inflate_kept(Elf *elf, const char *path, struct srcline_split *out)
{
	struct image im;
	bool mapped = image_of(elf, &im);
	char *why = NULL;
	if (dwarfzip_inflate(elf, &out->mem, &why, mapped ? drop_packed : NULL, &im) >= 0 && why)
		out->damage = xasprintf("its debug file %s: %s (that section is not read)", path, why);
	free(why);
}

static void drop_one(Elf_Scn *scn, const GElf_Shdr *sh, void *arg)
{
	(void)scn;
	drop_range(arg, sh->sh_offset, sh->sh_size);
}

void srcline_split_hand_back(Elf *elf, signed char *state)
{
	struct image im;
	GElf_Ehdr eh;
	if (!elf || *state < 0)
		return;
	if (!image_of(elf, &im)) {
		*state = -1;
		return;
	}
	if (!*state) {
		/* A private mapping of a file (libdwfl's ELF_C_READ_MMAP_PRIVATE, or the debug file
		 * above), not relocated in place (ET_REL) nor converted from another byte order. */
		struct self_mapping m;
		bool mine = gelf_getehdr(elf, &eh) && eh.e_type != ET_REL &&
			    eh.e_ident[EI_DATA] == (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB);
		*state = mine && proc_self_mapping((uintptr_t)im.base, &m) && m.inode && m.perms[3] == 'p' &&
				 m.start <= (uintptr_t)im.base && (uintptr_t)im.base + im.size <= m.end ? 1 : -1;
	}
	if (*state > 0)
		each_debug(elf, drop_one, &im);
}

/* The module for priv, the debug file at path (both handed over on success), laid out over
 * [lo, hi). */
static Dwfl *report(const Dwfl_Callbacks *cb, const char *name, Elf *priv, const char *path, GElf_Addr lo,
		    GElf_Addr hi, Dwfl_Module **mod)
{
	Dwfl *dwfl = dwfl_begin(cb);
	if (!dwfl)
		return NULL;
	*mod = dwfl_report_module(dwfl, name, lo, hi);
	void **ud = NULL;
	bool handed = false;
	if (*mod && dwfl_module_info(*mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL) && ud) {
		struct handoff *h = xmalloc(sizeof(*h));
		*h = (struct handoff){ priv, xstrdup(path) };
		*ud = h;
		handed = true;
	}
	dwfl_report_end(dwfl, NULL, NULL);
	if (handed)
		return dwfl;
	dwfl_end(dwfl);
	*mod = NULL;
	return NULL;
}

Dwfl *srcline_split_open(const Dwfl_Callbacks *cb, const char *root, const char *path, const uint8_t *bid,
			 size_t bid_size, const char *name, bool lines, struct srcline_split *out)
{
	*out = (struct srcline_split){ 0 };
	int hid = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), dfd = -1;
	Elf *main_elf = fd >= 0 ? elf_begin(fd, ELF_C_READ_MMAP, NULL) : NULL, *dbg = NULL, *priv = NULL;
	GElf_Ehdr eh;
	char *found = NULL, *why = NULL;
	GElf_Addr lo, hi;
	Dwfl *dwfl = NULL;
	if (main_elf && gelf_getehdr(main_elf, &eh) && (eh.e_type == ET_DYN || eh.e_type == ET_EXEC) &&
	    !has_section(main_elf, ".debug_info"))
		dbg = debuginfo_open(root, path, main_elf, bid, bid_size, &dfd, &found);
	/* Private: dwarfcap_hide_unread changes its section headers in memory. */
	if (dbg)
		priv = elf_begin(dfd, ELF_C_READ_MMAP_PRIVATE, NULL);
	if (priv && !(why = dwarfcap_refusal(priv)) && has_section(priv, ".debug_info") &&
	    load_range(priv, &lo, &hi) && dwarfcap_hide_unread(priv) > 0 &&
	    (lines || (hid = dwarfcap_hide_lines(priv)) >= 0) && (dwfl = report(cb, name, priv, found, lo, hi, &out->mod))) {
		out->lines_hidden = hid > 0;
		inflate_kept(priv, found, out); /* libdwfl's now, its DWARF opened right after */
		priv = NULL;
	}
	free(why);
	free(found);
	if (priv)
		elf_end(priv);
	if (dbg)
		elf_end(dbg);
	if (dfd >= 0)
		close(dfd);
	if (main_elf)
		elf_end(main_elf);
	if (fd >= 0)
		close(fd);
	return dwfl;
}

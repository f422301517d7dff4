/* Fuzz harness: source lines and inline chains (symbols/srcline.c) and the per-unit function
 * index behind them (symbols/dwarf_funcs.c). The input is an ELF file with DWARF; it is written
 * to a scratch file and loaded as a DSO, then, as report --sort srcline, script -F +srcline,
 * annotate and DWARF call chains with inline frames ask:
 *   - at the start, middle and last byte of each of its first 64 symbols and just past each:
 *     srcline_find, srcline_string, srcline_file_string, srcline_inlines and
 *     srcline_inline_frames (libdwfl's module and line tables, dwfl_module_addrdie, the unit's
 *     function index, DW_AT_call_file/line through the unit's file table, the names perf
 *     gives each level, the synthetic inline symbols), srcline_note and srcline_refusal (the caps
 *     on compressed DWARF apply);
 *   - directly on the file's DWARF (libdw over the bytes; inputs with compressed sections are
 *     left to the first path, which checks the caps before libdw inflates them): for each of
 *     its first 64 units, dwarf_funcs_build, dwarf_funcs_chain and dwarf_funcs_chain_at at every
 *     address of the unit's line table (the first 256 rows), one byte before each and at the unit's low and high pc.
 * Each input starts from an empty cache (srcline_cache_free): the cache is keyed by build-id or
 * path, which every input shares.
 * FUZZ_DEBUG=1 prints the longest chain each way.
 * Seeds: small programs built -O2 -g with nested always_inline functions (C, DWARF 4 and 5, one
 * with zlib-compressed sections), a C++ program with templates and inlined methods, and the
 * elf harness's -g program (docs/fuzzing.md says how they were built). */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "symbols/dso.h"
#include "symbols/dwarf_funcs.h"
#include "symbols/srcline.h"
#include "util/error.h"

static char *path;
static size_t deepest, deepest_index; /* FUZZ_DEBUG=1 prints the deepest inline chains seen */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	if (asprintf(&path, "%s/lines", fuzz_tmpdir()) < 0)
		abort();
	elf_version(EV_CURRENT);
	return 0;
}

static void ask(struct dso *d, const struct symbol *sym, uint64_t addr)
{
	const char *file;
	unsigned line;
	(void)srcline_find(d, addr, &file, &line);
	(void)srcline_string(d, sym, addr);
	(void)srcline_file_string(d, addr);
	const struct srcline_inline *inl;
	size_t n = srcline_inlines(d, addr, &inl);
	deepest = n > deepest ? n : deepest;
	for (size_t i = 0; i < n; i++)
		if (inl[i].func)
			(void)strlen(inl[i].func);
	if (sym) {
		const struct symbol *syms[16];
		bool inlined[16];
		const char *lines[16];
		size_t k = srcline_inline_frames(d, sym, addr, syms, inlined, lines, 16);
		for (size_t i = 0; i < k; i++)
			if (inlined[i] && srcline_inline_base(syms[i]) != sym)
				abort(); /* an inline frame must stand in the symbol it was asked in */
	}
}

/* True when a section of elf is compressed (libdw would inflate it whole on opening). */
static bool has_compressed(Elf *elf)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(elf, &shstrndx) < 0)
		return true;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			return true;
		const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
		if ((sh.sh_flags & SHF_COMPRESSED) || (name && !strncmp(name, ".zdebug", 7)))
			return true;
	}
	return false;
}

static void chains(const struct dwarf_funcs *f, Dwarf_Die *cu, Dwarf_Addr addr)
{
	Dwarf_Off offs[64];
	size_t n = dwarf_funcs_chain(f, addr, offs, 64);
	if (n > 64 || dwarf_funcs_chain_at(cu, addr, offs, 64) > 64)
		abort();
	deepest_index = n > deepest_index ? n : deepest_index;
}

static void index_units(const uint8_t *data, size_t size)
{
	char *copy = malloc(size ? size : 1);
	memcpy(copy, data, size);
	Elf *elf = elf_memory(copy, size);
	Dwarf *dbg = elf && elf_kind(elf) == ELF_K_ELF && !has_compressed(elf) ? dwarf_begin_elf(elf, DWARF_C_READ, NULL)
									       : NULL;
	Dwarf_Off off = 0, next;
	size_t hsize;
	for (int u = 0; dbg && u < 64 && dwarf_nextcu(dbg, off, &next, &hsize, NULL, NULL, NULL) == 0;
	     u++, off = next) {
		Dwarf_Die cu;
		if (!dwarf_offdie(dbg, off + hsize, &cu))
			break;
		struct dwarf_funcs *f = dwarf_funcs_build(&cu);
		Dwarf_Addr lo, hi;
		if (dwarf_lowpc(&cu, &lo) == 0)
			chains(f, &cu, lo);
		if (dwarf_highpc(&cu, &hi) == 0) {
			chains(f, &cu, hi);
			chains(f, &cu, hi - 1);
		}
		Dwarf_Lines *lines;
		size_t nl;
		if (dwarf_getsrclines(&cu, &lines, &nl) == 0)
			for (size_t i = 0; i < nl && i < 256; i++) {
				Dwarf_Addr a;
				if (dwarf_lineaddr(dwarf_onesrcline(lines, i), &a) == 0) {
					chains(f, &cu, a);
					chains(f, &cu, a - 1);
				}
			}
		dwarf_funcs_free(f);
	}
	if (dbg)
		dwarf_end(dbg);
	if (elf)
		elf_end(elf);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!path)
		LLVMFuzzerInitialize(NULL, NULL);
	fuzz_write(path, data, size);
	struct dso_cache c;
	struct dso *d = fuzz_load_dso(&c, path);
	size_t n = d->nsyms < 64 ? d->nsyms : 64;
	for (size_t i = 0; i < n; i++) {
		const struct symbol *s = &d->syms[i];
		uint64_t z = s->size;
		ask(d, s, s->start);
		ask(d, s, s->start + z / 2);
		if (z)
			ask(d, s, s->start + z - 1);
		ask(d, NULL, s->start + z);
	}
	ask(d, NULL, 0);
	(void)srcline_note(d);
	(void)srcline_refusal(d);
	dso_cache_free(&c);
	srcline_cache_free();
	index_units(data, size);
	if (getenv("FUZZ_DEBUG"))
		fprintf(stderr, "inline levels %zu, index chain %zu\n", deepest, deepest_index);
	deepest = deepest_index = 0;
	err_clear();
	return 0;
}

/* Internal to src/symbols: the pieces that dso.c puts together. Loaders collect candidate
 * symbols into a symtab_builder (names borrowed from the file being read), then
 * symtab_finish() sorts, de-duplicates, sizes and demangles them into the DSO, before the file
 * is closed. */
#ifndef LPERF_SYMBOLS_SYMTAB_H
#define LPERF_SYMBOLS_SYMTAB_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/dso.h"

/* Which of several names at one address wins: lower is better. */
enum symtab_rank {
	SYMRANK_GLOBAL,
	SYMRANK_WEAK,
	SYMRANK_LOCAL,
	SYMRANK_OTHER,
	SYMRANK_PLT,          /* synthesized: real symbols at the same address win */
};

struct symtab_cand {
	uint64_t start, size;
	uint64_t limit;       /* where a zero-size symbol must stop at the latest (section end); 0: none */
	const char *name;     /* borrowed until symtab_finish */
	const char *suffix;   /* appended after demangling ("@plt", " [module]"); NULL: none */
	uint8_t rank;
	uint32_t seq;         /* order of addition: ties go to the first (ELF) or last (kallsyms) */
};

struct symtab_builder {
	struct symtab_cand *v;
	size_t n, cap;
	bool last_wins;       /* kallsyms: of names at one address the last listed wins, as in perf
			       * (its size fix-up leaves only the last one a range) */
};

void symtab_add(struct symtab_builder *b, uint64_t start, uint64_t size, uint64_t limit, const char *name,
		const char *suffix, enum symtab_rank rank);
/* Moves the candidates into d->syms: sorted by start, one per address (best rank; the largest
 * size of the group), zero sizes extended to the next symbol (or the candidate's limit), overlaps
 * cut. Frees the builder. */
void symtab_finish(struct symtab_builder *b, struct dso *d);
/* Frees d->syms. */
void symtab_free(struct dso *d);

/* Sets d->load_note (replacing an older one). */
void dso_note(struct dso *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ELF (elf_symbols.c). */
void elfsym_init_libelf(void);
/* Loads d (DSO_ELF or DSO_VDSO) from elf: load segments, build-id check, symbols (with separate
 * debug info when file_path is not NULL and the file is stripped), PLT entries. */
void elfsym_load_elf(struct dso *d, Elf *elf, const char *file_path);
void elfsym_load_file(struct dso *d);
size_t elfsym_build_id(Elf *elf, uint8_t id[20]);
/* Adds the function symbols of the symbol table section scn to b. */
void elfsym_add_table(struct symtab_builder *b, Elf *elf, Elf_Scn *scn);
/* Adds "name@plt" entries (x86-64 and aarch64). */
void elfsym_add_plt(struct symtab_builder *b, Elf *elf);

/* Separate debug info (debuginfo.c): opens the debug file of a stripped ELF file; NULL when none
 * is found. Sets d->debug_path. The caller ends the Elf and closes *fd. */
Elf *debuginfo_open(struct dso *d, const char *file_path, Elf *elf, const uint8_t *bid, size_t bid_size,
		    int *fd);

/* Kernel (kallsyms.c) and vDSO (vdso.c). */
void kallsyms_load(struct dso *d, const char *path);
void kallsyms_load_module(struct dso *d);
void vdso_load(struct dso *d);

#endif

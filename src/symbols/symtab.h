/* Symbols, and what a symbol loader hands back. Every loader (ELF files, kallsyms, the vDSO)
 * collects candidate symbols into a symtab_builder (names borrowed from the file being read),
 * and symtab_finish() sorts, de-duplicates, sizes and demangles them before the file is closed.
 * A loader fills a symtab_load with everything it learned and why symbols are missing; dso.c,
 * the only dispatcher, moves it into the DSO. This header knows nothing of DSOs, so no loader
 * depends on the cache that calls it. */
#ifndef LPERF_SYMBOLS_SYMTAB_H
#define LPERF_SYMBOLS_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/notes.h"

struct symbol {
	uint64_t start;      /* in the DSO's own address space (ELF st_value / kernel address) */
	uint64_t size;
	char *name;          /* demangled (C++ and Rust); PLT entries as "name@plt" */
	char *mangled;       /* the name as the file spells it, when demangling changed it; else NULL */
};

/* An ELF PT_LOAD segment, to turn a file offset into a virtual address. */
struct symtab_seg {
	uint64_t offset, vaddr, filesz, memsz;
};

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
	uint64_t limit;       /* where a zero-size symbol that is the last stops (section end); 0: none */
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
/* Turns the candidates into *syms (replacing what was there): sorted by start, one per address
 * (best rank; the largest size of the group), zero sizes extended to the next symbol (the
 * last one to its limit), overlaps cut. Frees the builder. */
void symtab_finish(struct symtab_builder *b, struct symbol **syms, size_t *nsyms);
/* The name reports print for name (as a file spells it) and suffix (NULL: none): demangled when
 * mangled (a versioned "name@@VER" keeps its version after the demangled part), then the suffix;
 * the caller frees it. symtab_finish names its symbols so, and keeps the spelling (with the
 * suffix) as mangled when the result does not begin with name. */
char *symtab_final_name(const char *name, const char *suffix);
void symtab_free(struct symbol *syms, size_t nsyms);
/* The symbol of sorted syms (symtab_finish's) that holds addr: the last one starting at or
 * below it, if addr is within its size (a zero size holds its start only); NULL otherwise. */
const struct symbol *symtab_find(const struct symbol *syms, size_t nsyms, uint64_t addr);

/* What a loader found. The loader owns nothing of it afterwards: dso.c takes the arrays and
 * strings. */
struct symtab_load {
	struct symbol *syms;
	size_t nsyms;
	struct symtab_seg *loads;
	size_t nloads;
	bool is_exec;        /* ET_EXEC: addresses are absolute */
	uint8_t build_id[20];/* the file's, when it has one */
	size_t build_id_size;
	bool mismatch;       /* the file's build-id is not the expected one: nothing else is filled */
	char *debug_path;    /* where symbols came from when not the file (separate debug info) */
	struct notes notes;  /* why symbols are missing or what was skipped: the last one is the reason */
};

#endif

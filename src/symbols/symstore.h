/* A DSO's symbol table that outlives a run (symbols/symstore.c): what elfsym_load_file made of an
 * ELF file (its symbols sorted, sized and demangled, its load segments, the separate debug file
 * they came from), kept by the file's build-id in
 *
 *   DIR/.lperf/syms/BUILDID      (DIR: the build-id cache directory)
 *
 * so that the next report maps it instead of reading the file's symbol table, sorting and
 * demangling it again. A build's symbols change only when the files they were read from do (a
 * binary stripped in place keeps its build-id; a -dbg package removed takes the debug file away),
 * so the store names the file and the debug file read, each with its size and modification time,
 * and is used only while both are unchanged. Checked before use: magic, version, build-id, size
 * against its counts, a CRC-32 of the whole file, symbols sorted and not overlapping, names inside
 * the string table, and the file is this user's, not a symlink, not writable by others. Anything
 * else: ignored and rewritten (through an O_EXCL temporary renamed into place, so two reports at
 * once read the old file or the new one, never half of one).
 *
 * A loaded store is immutable: its symbols (names pointing into the mapping) may be read from any
 * number of threads. */
#ifndef LPERF_SYMBOLS_SYMSTORE_H
#define LPERF_SYMBOLS_SYMSTORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/symtab.h"

/* Raise it whenever the format or what elf_symbols.c and symtab.c make of a file (which symbols,
 * their sizes, names, PLT entries) changes: stores of other versions are ignored and rewritten. */
#define SYMSTORE_VERSION 1

/* A file symbols were read from, as it was then. */
struct symstore_src {
	const char *path;
	uint64_t size;
	int64_t mtime;        /* ns */
};

/* What a store holds: a symtab_load without notes (only loads without notes are kept). */
struct symstore {
	struct symbol *syms;  /* sorted by start, no overlaps; names point into the mapping or buffer */
	size_t nsyms;
	struct symtab_seg *loads;
	size_t nloads;
	bool is_exec;
	struct symstore_src file;  /* the ELF file read */
	struct symstore_src debug; /* the separate debug file; path NULL: none */
	void *map;
	size_t len;
};

/* Serialises a load (sorted symbols, segments) of build-id id read from file (and debug, path
 * NULL when none); the buffer (free it) and its length. */
void *symstore_build(const uint8_t *id, size_t idn, const struct symstore_src *file, const struct symstore_src *debug,
		     const struct symtab_load *r, size_t *len);
/* path's size and modification time now; false when it is not a regular file. */
bool symstore_src_now(const char *path, struct symstore_src *src);
/* Checks buf as a store for id; fills s (pointing into buf; free with symstore_release). 0, or -1
 * with err_set() naming the offset and field. */
int symstore_parse(const void *buf, size_t len, const uint8_t *id, size_t idn, struct symstore *s);
void symstore_release(struct symstore *s);

/* The store of build-id id in the cache directory, when it is valid, was read from file and its
 * files are as they were; else NULL. Free with symstore_free. */
struct symstore *symstore_load(const uint8_t *id, size_t idn, const char *file);
/* Writes the store of r (a load of file with build-id id; silently does nothing on failure). */
void symstore_save(const uint8_t *id, size_t idn, const char *file, const struct symtab_load *r);
void symstore_free(struct symstore *s);

#endif

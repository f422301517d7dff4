/* Source lines that outlive a run (symbols/srcline_store.c): for each DSO file with DWARF, the
 * source line (and inline chain) of every address a report asked for, kept by the file's build-id in
 *
 *   DIR/.lperf/lines/BUILDID      (DIR: the build-id cache directory)
 *
 * so that the next report of the same recording answers --sort srcline, srcfile and script's
 * srcline from this small file without opening, decompressing and indexing the DWARF (for libc's
 * debug file about 40 ms of a 60 ms report). A build's lines never change; what can is whether
 * its DWARF is still there (a -dbg package removed, a binary stripped in place: the build-id
 * stays), so the store names the file the DWARF was read from, with its size and modification
 * time, and is used only while that file is unchanged. Checked before use: magic, version,
 * build-id, size against its counts, a CRC-32 of the whole file, entries sorted by address,
 * strings and inline levels inside their tables, and the file is this user's, not a symlink, not
 * writable by others. Anything else: ignored and rewritten.
 * Inline chains (DWARF call chains' inline frames) are kept the same way, for the addresses whose
 * chain was asked for. */
#ifndef LPERF_SYMBOLS_SRCLINE_STORE_H
#define LPERF_SYMBOLS_SRCLINE_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/srcline.h"

/* Raise it whenever the format or what srcline.c answers for an address (lines, inline chains,
 * names) changes: stores of other versions are ignored and rewritten. */
#define SLSTORE_VERSION 3

/* One address's answers: file NULL when the DWARF has no line there; its inline chain when it
 * was asked for (has_inl; ninl 0: no DWARF function there). Each is kept only once looked up:
 * the line (no_line: not looked up, file and line unset), the chain's functions, and its levels'
 * files and lines (no_inl_lines: not looked up, the levels' file and line unset). */
struct slstore_ent {
	uint64_t addr;
	const char *file;
	unsigned line;
	bool has_inl;
	const struct srcline_inline *inl;
	size_t ninl;
	bool no_line, no_inl_lines;
};

/* The file the DWARF was read from, as it was then. */
struct slstore_dwarf {
	const char *path;
	uint64_t size;
	int64_t mtime;        /* ns */
};

struct slstore {
	struct slstore_ent *v; /* sorted by addr; strings point into the mapping or buffer */
	size_t n;
	struct srcline_inline *levels; /* the entries' inline chains */
	struct slstore_dwarf dwarf;
	void *map;
	size_t len;
};

/* Serialises v (sorted by addr, distinct) for build-id id and the DWARF's file; buffer and length. */
void *slstore_build(const uint8_t *id, size_t idn, const struct slstore_dwarf *dw, const struct slstore_ent *v,
		    size_t n, size_t *len);
/* path's size and modification time now; false when it is not a regular file. */
bool slstore_dwarf_now(const char *path, struct slstore_dwarf *dw);
/* Checks buf as a store for id; fills s (pointing into buf). 0, or -1 with err_set() naming the
 * offset and field. */
int slstore_parse(const void *buf, size_t len, const uint8_t *id, size_t idn, struct slstore *s);
/* The store's answers for addr; NULL when it has none. */
const struct slstore_ent *slstore_find(const struct slstore *s, uint64_t addr);

/* The store of build-id id from the cache directory, when valid and its DWARF file is as it was;
 * else NULL. Free with slstore_free. */
struct slstore *slstore_load(const uint8_t *id, size_t idn);
/* Writes the store for id (silently does nothing on failure). */
void slstore_save(const uint8_t *id, size_t idn, const char *dwarf_path, const struct slstore_ent *v, size_t n);
void slstore_free(struct slstore *s);

#endif

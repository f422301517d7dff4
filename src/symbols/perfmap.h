/* Perf map files (/tmp/perf-PID.map): the symbols a JIT writes for its code, one per line,
 * "START SIZE name" (hex, hex, rest of the line; see tools/perf/Documentation/jit-interface.txt).
 *
 * Read as perf reads them (a "0x" prefix is fine, malformed lines are skipped), with two fixes: a
 * missing final newline does not cost the last name its last character (perf chops the last
 * character of every line), and overlapping or repeated entries resolve the same way every time:
 * the later line wins over the bytes it covers (perf's answer depends on the shape of its
 * rb-tree). Lookups are O(log n) over the covered ranges.
 *
 * A map injects arbitrary names from a world-writable directory, so files are read only when they
 * are regular files (symbolic links are not followed) owned by root or by the effective uid, as
 * perf did until v4.x; `force` trusts any owner. JIT dump files go through the same check
 * (perfmap_read_file). */
#ifndef LPERF_SYMBOLS_PERFMAP_H
#define LPERF_SYMBOLS_PERFMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "symbols/symtab.h"
#include "util/notes.h"

struct perfmap;

struct perfmap_stats {
	size_t entries;          /* well-formed lines */
	size_t malformed;        /* lines skipped */
	size_t first_malformed;  /* 1-based line number of the first one; 0: none */
	size_t duplicates;       /* lines repeating an earlier line's range */
	size_t overlaps;         /* lines overlapping another line with a different range */
};

/* Parses a whole map from memory (text need not be NUL-terminated). Never fails: bad lines are
 * counted in the stats. */
struct perfmap *perfmap_parse(const char *text, size_t len);
struct perfmap *perfmap_new(void);
/* Adds lines to pm, as if they followed the ones it has; returns how many bytes were complete
 * lines. With final, an unterminated last line counts too (and the return is len). */
size_t perfmap_add(struct perfmap *pm, const char *text, size_t len, bool final);
void perfmap_free(struct perfmap *pm);

/* The entry covering addr (the latest line covering it), or NULL. A line of size 0 covers its
 * start only. The symbol stays valid until perfmap_free, also across perfmap_add. */
const struct symbol *perfmap_find(struct perfmap *pm, uint64_t addr);
/* The entries in file order (i < stats.entries). */
const struct symbol *perfmap_entry(const struct perfmap *pm, size_t i);
const struct perfmap_stats *perfmap_stats(struct perfmap *pm);
/* How many entries pm holds (stats.entries, without bringing the index up to date). */
size_t perfmap_entries(const struct perfmap *pm);
/* Adds a one-line note to ns on what was skipped or shadowed ("3 malformed lines skipped (first:
 * line 7); 2 duplicate entries (the later line wins)"); nothing when the map is clean. */
void perfmap_notes(struct perfmap *pm, struct notes *ns);

/* "/tmp/perf-PID.map"; the caller frees. */
char *perfmap_path(pid_t pid);
/* perfmap_read_file of perfmap_path(pid): what a recording stores for a process at its end. */
int perfmap_read_pid(pid_t pid, bool force, char **buf, size_t *len);
/* Reads a JIT symbol file (perf map or jitdump) the safe way: refuses symbolic links, files
 * that are not regular, and (unless force) files owned by anyone but root or the effective uid.
 * Returns 1 with *buf (NUL-terminated, caller frees) and *len; 0 when the file does not exist;
 * -1 with err_set() saying why it was refused or could not be read. */
int perfmap_read_file(const char *path, bool force, char **buf, size_t *len);

/* True when perf would look up an executable mapping of this name in the process's perf map:
 * anonymous memory ("//anon", "", "[anon:...]", "/dev/zero", "/anon_hugepage", "/memfd:..."),
 * "[heap]", "[stack...]" and "/SYSV..." segments. prot is the mapping's PROT_* bits. */
bool perfmap_covers_mapping(const char *filename, uint32_t prot);

#endif

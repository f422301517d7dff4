/* Source lines and inline chains of code addresses, in-process (libdw), for report --sort
 * srcline/srcfile, script -F +srcline, inline frames in DWARF call chains, and annotate.
 *
 * Why: perf runs addr2line as a child process per DSO and pays a pipe round trip per address;
 * here each DSO's DWARF is opened once (its own .debug_line, else the separate debug file found
 * by build-id or .gnu_debuglink under /usr/lib/debug, as libdwfl's standard lookup does) and
 * every answer is memoised per address, so a 100,000-sample source-line view costs little more
 * than the symbol view.
 *
 * One cache per process, shared by every command and session in it: DSO files are keyed by
 * build-id (else by path), so two DSO objects of one file (two sessions, --symfs) share one
 * line table. Lines and inline chains looked up in DWARF are kept between runs by build-id
 * (srcline_cache_save, symbols/srcline_store.h), so a later run answers them without opening the
 * DWARF. A DSO whose file on disk has another build-id than the recording's (dso->mismatch) has
 * no lines. Strings returned are interned: equal strings are equal
 * pointers, valid until srcline_cache_free(). */
#ifndef LPERF_SYMBOLS_SRCLINE_H
#define LPERF_SYMBOLS_SRCLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbols/dso.h"

/* One level of an inline chain, innermost first (what `addr2line -i -f` prints). The last
 * level is the out-of-line function itself. */
struct srcline_inline {
	const char *func;        /* the DWARF name, demangled as symbols are (NULL: no name) */
	const char *file;        /* full path as DWARF spells it; NULL: unknown */
	unsigned line;           /* the line in this function: the address's own line for the
				  * innermost, the call site of the level inside it otherwise */
	bool linkage;            /* func is a linkage name (DW_AT_linkage_name, or any C name) */
	uint64_t die;            /* the function DIE's offset (identifies it within the file) */
	uint64_t low;            /* its first range's start, DSO address space; 0: none */
};

/* The source line of addr (DSO address space, what addr_loc.addr holds) in d; false when d has
 * no line information there. *file is a full path (interned). */
bool srcline_find(struct dso *d, uint64_t addr, const char **file, unsigned *line);

/* The inline chain at addr, innermost first; its length, 0 when d has no DWARF there. *out is
 * valid until srcline_cache_free(). */
size_t srcline_inlines(struct dso *d, uint64_t addr, const struct srcline_inline **out);

/* The frames one physical frame at addr in base becomes, innermost first, as perf 6.1 expands
 * DWARF call chains: each level of the inline chain is a symbol, base itself where the DWARF name
 * is base's name (inlined[i] false), else a symbol of that name spanning base (inlined[i] true;
 * one per (base, name), valid until srcline_cache_free), and lines[i] its perf srcline ("file.c:N",
 * the level's own line; "??:0" unknown). Returns how many (at most max); 0 when there is no DWARF
 * at addr (the frame stays as it is). */
size_t srcline_inline_frames(struct dso *d, const struct symbol *base, uint64_t addr, const struct symbol **syms,
			     bool *inlined, const char **lines, size_t max);

/* The ELF symbol an inline frame's symbol (inlined[i] true above) stands in. */
const struct symbol *srcline_inline_base(const struct symbol *s);
/* The symbol the frames of the inlined function name take in base: one per (base, name), so that
 * call trees merge them as perf merges inlined frames by name (srcline_isym.c; name interned). */
const struct symbol *srcline_inline_symbol(const struct symbol *base, const char *name);
void srcline_inline_symbols_free(void);

/* Reading ahead (report --threads): opens the DWARF of d, read ahead and not yet loaded
 * (dso_ahead_plain), for inline chains, unless an earlier run's lines are kept for it; its
 * refusal or note are d's only once the walk asks for d's lines. On the thread that looks lines
 * up, before other threads do. */
void srcline_read_ahead(struct dso *d);

/* Keeps the source lines and inline chains looked up in DWARF this run, per file with a build-id,
 * for the next run (symbols/srcline_store.h); failures are silent. Sessions call it when they
 * close. */
void srcline_cache_save(void);

/* perf's srcline string (report --sort srcline, script's srcline field): "file.c:12" (base
 * name), else "sym+OFF" (decimal offset), else "dso[ADDR]" (hex), else "??:0" without a DSO. */
const char *srcline_string(struct dso *d, const struct symbol *sym, uint64_t addr);
/* perf's srcfile: the base name of the source file, "" when unknown. */
const char *srcline_file_string(struct dso *d, uint64_t addr);
/* The base name of path (interned). */
const char *srcline_basename(const char *path);
/* Interns s. */
const char *srcline_intern(const char *s);

/* Why d has no line information ("no DWARF line tables", "build-id differs from the
 * recording"), after a lookup failed; NULL when it has some or was never asked. */
const char *srcline_note(struct dso *d);
/* Why d's DWARF was refused (compressed sections that would inflate past the caps: a DWARF
 * bomb: its lines and inline frames are skipped), else which compressed section of its debug
 * file is damaged (that section is not read), once it was opened; NULL otherwise. */
const char *srcline_refusal(const struct dso *d);

/* Frees everything (for leak checkers; strings from this module become invalid). */
void srcline_cache_free(void);

#endif

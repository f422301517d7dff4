/* Source lines and inline chains of a program or library whose DWARF is in a separate debug
 * file with compressed sections (Debian's -dbg packages), for symbols/srcline.c. Given the file
 * itself, libdwfl opens the debug file on its own and libdw inflates every compressed section
 * it knows, .debug_loclists and .debug_frame included, which lines and inline chains never read
 * (libc6-dbg's libc: 1.4 of its 10.4 MB). So the debug file is opened here, found as
 * srcline.c's find_debuginfo finds it (symbols/debuginfo.c), those sections hidden
 * (dwarfcap_hide_unread), the others inflated here (with libdeflate: symbols/dwarfzip.h) and
 * their compressed pages handed back to the page cache, and it is handed to libdwfl as the
 * module's own file, laid out at its load address (a debug file keeps the program headers of
 * its file). */
#ifndef LPERF_SYMBOLS_SRCLINE_SPLIT_H
#define LPERF_SYMBOLS_SRCLINE_SPLIT_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The find_elf callback of cb below: hands libdwfl the debug file's Elf (it ends it). */
int srcline_split_find_elf(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			   char **file_name, Elf **elfp);

/* What srcline_split_open hands back beside its Dwfl. */
struct srcline_split {
	Dwfl_Module *mod;
	bool lines_hidden; /* some line tables were left compressed: a line needs the file opened again */
	void *mem;         /* the inflated sections (symbols/dwarfzip.h): freed after dwfl_end */
	char *damage;      /* a damaged compressed section, as a sentence naming the debug file and
			    * the section (that section is not read), or NULL; the caller frees it */
};

/* A Dwfl (cb: find_elf srcline_split_find_elf, find_debuginfo for a dwz alternate file) with
 * one module, out->mod, name, whose file is path's separate debug file (under root, NULL for /;
 * bid: the recorded build-id) with the unread sections hidden, and without lines its compressed
 * line tables too, the others inflated (dwarfzip_inflate); NULL, out empty, when path is not such
 * a file (its own DWARF, no debug file, a relocatable object, a debug file past dwarfcap's caps
 * or with nothing to hide), and the caller takes libdwfl's own path. */
Dwfl *srcline_split_open(const Dwfl_Callbacks *cb, const char *root, const char *path, const uint8_t *bid,
			 size_t bid_size, const char *name, bool lines, struct srcline_split *out);

/* Hands the pages of elf's image back to the page cache when the image is a read-only mapping
 * of a file (as libdwfl opens a file with its own DWARF, libpython's: ELF_C_READ_MMAP), which
 * libdw reads again on demand; other images (copies in memory, the private mappings above) are
 * left alone. *state keeps what the check of elf's mapping found (0 before the first call). */
void srcline_split_hand_back(Elf *elf, signed char *state);

#endif

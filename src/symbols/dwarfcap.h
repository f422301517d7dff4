/* Caps on compressed DWARF. libdw inflates every compressed debug section (SHF_COMPRESSED
 * .debug_*, or GNU .zdebug_*) whole when it opens a file's DWARF: a 2 MB file whose .debug_info
 * inflates to 1 GiB costs 1 GB and 2 s, whichever module opens it (source lines, the unwinder's
 * .debug_frame fallback, probes). Every opener checks with dwarfcap_refusal first. */
#ifndef LPERF_SYMBOLS_DWARFCAP_H
#define LPERF_SYMBOLS_DWARFCAP_H

#include <gelf.h>

/* Why elf's DWARF is refused, as a sentence for a warning (the caller frees it), or NULL when
 * it is within the caps: no more than DWARFCAP_RATIO times its compressed size (past 16 MiB)
 * and no more than 4 GiB in all. */
#define DWARFCAP_RATIO 64
#define DWARFCAP_MAX (4ull << 30)
char *dwarfcap_refusal(Elf *elf);

/* Hides elf's compressed debug sections from libdw (they become SHT_NOBITS in elf's in-memory
 * section headers, which libdw skips), so that a refused file's DWARF is never inflated by
 * libdwfl's own fallbacks. elf must be writable in memory: ELF_C_READ_MMAP_PRIVATE or
 * elf_memory. Returns -1 if a header could not be changed. */
int dwarfcap_hide(Elf *elf);
/* The same for the compressed sections that source lines and inline chains never read
 * (.debug_loclists, .debug_loc, .debug_frame, .debug_macro, .debug_macinfo, .debug_pubnames),
 * which libdw would otherwise inflate with the rest (libc6-dbg's libc: 1.4 of its 10.4 MB).
 * Returns how many it hid, -1 if elf cannot be read or a header could not be changed. */
int dwarfcap_hide_unread(Elf *elf);
/* The same for the compressed line tables (.debug_line), which inline chains never read: lines
 * asked for later need the file opened again. */
int dwarfcap_hide_lines(Elf *elf);

#endif

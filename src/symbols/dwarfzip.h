/* Compressed DWARF sections inflated with libdeflate, before libdw opens the file. libdw inflates
 * each SHF_COMPRESSED section it knows with zlib's streaming inflate when it opens a file's DWARF
 * (dwarf_begin_elf, through libelf's elf_compress): libc6-dbg's libc, 7 MB of kept sections, costs
 * a first report 24 ms there. libdeflate's one-shot decompression into a buffer of the size the
 * section's header states takes 2.5 times less, and the bytes are the same (the same zlib
 * streams). The sections are inflated here and handed to libelf as their data with headers that
 * say they are not compressed, which libdw then takes as they are. */
#ifndef LPERF_SYMBOLS_DWARFZIP_H
#define LPERF_SYMBOLS_DWARFZIP_H

#include <gelf.h>
#include <stdint.h>

/* Called with each section inflated, after it was: where its compressed bytes are in the file
 * (the caller may hand their pages back: libelf never reads them again). */
typedef void dwarfzip_done_fn(uint64_t offset, uint64_t size, void *arg);

/* Inflates elf's zlib-compressed (SHF_COMPRESSED, ELFCOMPRESS_ZLIB) SHT_PROGBITS sections of the
 * names libdw reads (.debug_info, .debug_line, ...: not the hidden ones, SHT_NOBITS) as libdw
 * would, each into *mem: its data (elf_getdata's) becomes the inflated bytes and its header
 * (in memory) the header of an uncompressed section, as elf_compress leaves it. elf must be
 * writable in memory (ELF_C_READ_MMAP_PRIVATE or elf_memory); *mem, one block, is the caller's,
 * freed after elf_end (libelf does not free data its user set).
 *
 * The compressed bytes are untrusted: a section whose stated size is past zlib's ratio (1032:1,
 * libelf's own check) or whose streams are damaged or do not fill exactly the stated size is
 * hidden (SHT_NOBITS: libdw skips it, as it skips a section elf_compress fails on), and *why
 * names the first such section ("section .debug_line: its zlib data is damaged"; the caller
 * frees it). Sections libelf would refuse to inflate (SHF_ALLOC, another compression, an
 * alignment not a power of two) are left to libdw as they are. Returns how many sections were
 * inflated, -1 when elf's sections cannot be read or their total is past dwarfcap's 4 GiB
 * (callers check dwarfcap_refusal first). */
int dwarfzip_inflate(Elf *elf, void **mem, char **why, dwarfzip_done_fn *done, void *arg);

#endif

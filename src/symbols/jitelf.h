/* One small ELF shared object per JIT code region, as Linux perf's genelf writes them for
 * `perf inject --jit` (jitted-PID-INDEX.so): ET_DYN with one R+X PT_LOAD, the code in .text at
 * JITELF_TEXT_OFFSET, the region's .eh_frame and .eh_frame_hdr when the jitdump carried
 * unwinding data, a .symtab with one FUNC symbol covering the code, and a GNU build-id note.
 *
 * perf maps such a file with pgoff = JITELF_TEXT_OFFSET at the code's address, so file offsets
 * equal addresses here: every allocated section sits at the offset its address names. The
 * unwinding data keeps the place its writer computed its pc-relative offsets for: the bytes as
 * written, right after the code rounded up to 8 (genelf's layout; CPython and V8 write
 * .eh_frame first, the spec's order puts the header first and is laid out as written too). */
#ifndef LPERF_SYMBOLS_JITELF_H
#define LPERF_SYMBOLS_JITELF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "symbols/jitdump.h"

/* perf's GEN_ELF_TEXT_OFFSET: the ELF header and one program header, rounded up to 16. */
#if __SIZEOF_POINTER__ == 8
#define JITELF_TEXT_OFFSET 0x80u
#else
#define JITELF_TEXT_OFFSET 0x60u
#endif

#define JITELF_BUILD_ID_SIZE 20

/* Where the unwinding data of c starts in the ELF (and in the mapping perf is given). */
uint64_t jitelf_unwind_addr(const struct jitdump_code *c);
/* The length of the mapping perf injects for c: the code, and with unwinding data the code
 * rounded up to 8 plus the data's mapped size (bounded by what the record really holds). */
uint64_t jitelf_map_len(const struct jitdump_code *c);

/* A 20-byte build-id for code c of process pid. perf takes the SHA-1 of the code, so that
 * identical trampolines in different processes (and runs) share one id and perf's build-id
 * cache mixes them up; this one also covers the pid, the code index, address, load time and
 * name. Three 64-bit FNV-1a hashes with different seeds, each finished with a 64-bit mixer. */
void jitelf_build_id(uint32_t pid, const struct jitdump_code *c, uint8_t id[JITELF_BUILD_ID_SIZE]);

/* Writes the ELF of c to fd (open for writing, at offset 0). -1 with err_set() on a libelf
 * failure or a region too large for the format. */
int jitelf_write_fd(int fd, const struct jitdump_code *c, const uint8_t id[JITELF_BUILD_ID_SIZE]);

/* Writes the ELF to path, mode 0644, through a temporary file in the same directory that is
 * renamed over path (an existing symbolic link at path is replaced, never followed). *st gets
 * the new file's device and inode. -1 with err_set() naming the path. */
int jitelf_write_file(const char *path, const struct jitdump_code *c, const uint8_t id[JITELF_BUILD_ID_SIZE],
		      struct stat *st);

/* One FUNC symbol of a file jitelf_write_syms_file writes: name, offset from the start of .text
 * (the file offset JITELF_TEXT_OFFSET) and size; name_off is filled while writing. */
struct jitelf_sym {
	const char *name;
	uint64_t off, size;
	size_t name_off;
};

/* The same kind of file holding no code: text_size zero bytes in .text and the symbols syms over
 * them (lperf inject --python: one symbol per Python function, src/inject/pyinject.c). Written
 * as jitelf_write_file writes (a temporary file renamed over path). */
int jitelf_write_syms_file(const char *path, uint64_t text_size, struct jitelf_sym *syms, size_t nsyms,
			   const uint8_t id[JITELF_BUILD_ID_SIZE], struct stat *st);

#endif

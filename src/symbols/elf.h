/* The ELF side of src/symbols: symbol loading from an ELF file or image (elf_symbols.c), its
 * separate debug file (debuginfo.c), the vDSO image (vdso.c), and build-ids (buildid.c). The loaders fill a
 * symtab_load (symtab.h) and never see a DSO: dso.c dispatches to them and keeps the result. */
#ifndef LPERF_SYMBOLS_ELF_H
#define LPERF_SYMBOLS_ELF_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "symbols/symtab.h"

/* What dso.c knows of the object it wants loaded. */
struct elf_want {
	const char *path;         /* the DSO's path, for notes on an in-memory image */
	const char *file;         /* the file to read (root in front, " (deleted)" dropped); NULL: an
				   * in-memory image, which gets no separate debug info */
	const char *root;         /* --symfs root for debug directories; NULL for / */
	const uint8_t *build_id;  /* the recorded build-id; build_id_size 0: unknown */
	size_t build_id_size;
};

/* Loads from elf: load segments, build-id check, symbols (with separate debug info when w->file
 * is set and the file is stripped), PLT entries. */
void elfsym_load_elf(const struct elf_want *w, Elf *elf, struct symtab_load *out);
/* Opens w->file and loads it. */
void elfsym_load_file(const struct elf_want *w, struct symtab_load *out);
/* Adds the function symbols of the symbol table section scn to b. */
void elfsym_add_table(struct symtab_builder *b, Elf *elf, Elf_Scn *scn);
/* Adds "name@plt" entries (x86-64 and aarch64). */
void elfsym_add_plt(struct symtab_builder *b, Elf *elf);

/* Build-ids and libelf's setup (buildid.c). buildid_libelf_init before the first elf_begin (once
 * per process, from any thread). */
void buildid_libelf_init(void);
/* The GNU build-id note of elf; its size, 0 when none (ids longer than 20 bytes are cut to 20). */
size_t buildid_of_elf(Elf *elf, uint8_t id[20]);
/* An Elf over the regular file fd (st its fstat): a small file read whole into memory (*image,
 * which the caller frees after elf_end; NULL otherwise), else elf_begin(fd, cmd). */
Elf *buildid_elf_begin(int fd, const struct stat *st, Elf_Cmd cmd, void **image);
/* The same, path naming the file fd is open on: a file of at most 4 KiB read whole is kept in
 * the memo (below) while one is on. */
Elf *buildid_elf_begin_path(int fd, const struct stat *st, Elf_Cmd cmd, void **image, const char *path);
/* Reads a file's GNU build-id note; returns its size (0 when none, or the file cannot be read;
 * ids longer than 20 bytes are cut to 20). */
size_t buildid_of_file(const char *path, uint8_t id[20]);

/* The memo of tiny files: while a report walks a recording (buildid_memo_start .. stop, which
 * may nest; any thread), each ELF file of at most 4 KiB is opened and read once by path, and its
 * later readers (the build-id check, the symbol loader, the unwinder) take a copy of those bytes:
 * perf inject's JIT files are about 1 KB each, a deep-stack Python recording maps hundreds, and
 * each was opened three times. A file is kept as it was first read in the walk (one version
 * for the whole report); 16 MiB in all at most. The last stop frees it. */
void buildid_memo_start(void);
void buildid_memo_stop(void);
/* An Elf over a private copy of path's kept bytes (*image, which the caller frees after
 * elf_end), or NULL when none are kept. */
Elf *buildid_memo_elf(const char *path, void **image);
/* Whether path's bytes are kept (a file of at most 4 KiB, read whole in this walk). */
bool buildid_memo_has(const char *path);

/* Separate debug info (debuginfo.c): opens the debug file of the stripped ELF file file_path
 * (debug directories under root, NULL for /); NULL when none is found, else *debug_path says
 * where it is (the caller frees). The caller ends the Elf and closes *fd. */
Elf *debuginfo_open(const char *root, const char *file_path, Elf *elf, const uint8_t *bid, size_t bid_size,
		    int *fd, char **debug_path);

/* The vDSO (vdso.c). A copy of this process's vDSO image (the running kernel's), and its size;
 * NULL when there is none. The caller frees it. libelf may write to an image it parses: never
 * hand it the original. */
void *vdso_image(size_t *size);
/* Loads the vDSO's symbols from this process's image, checked against w's build-id. */
void vdso_load(const struct elf_want *w, struct symtab_load *out);

/* A separate debug file to try first for stripped files (wperf's --pdb_file): used by the file
 * whose build-id it carries, and only by it. Process-wide; cleared by debuginfo_clear_files. */
void debuginfo_add_file(const char *path);
void debuginfo_clear_files(void);
/* Whether any such file was given. */
bool debuginfo_has_files(void);

#endif

/* Inside probe/: an ELF file opened with its symbol table (a stripped library's from its debug
 * file), shared by probe_elf.c and probe_dwarf.c. */
#ifndef LPERF_PROBE_PROBE_INT_H
#define LPERF_PROBE_PROBE_INT_H

#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdbool.h>

struct elf_file {
	int fd;
	Elf *elf;
	int dfd;                  /* the separate debug file of a stripped file, or -1 */
	Elf *delf;
	Elf *syms;                /* where the symbols are: delf when there is one, else elf */
};

/* Opens path (O_NONBLOCK: a FIFO is refused); -1 with err_set(), nothing left to close. */
int probe_elf_open(const char *path, struct elf_file *f);
void probe_elf_close(struct elf_file *f);
/* The address of the FUNC or IFUNC symbol func; -1 when there is none. */
int probe_elf_find(Elf *elf, const char *func, GElf_Addr *addr);
/* Sets *dw to f's DWARF (libdw; NULL when there is none). -1 with err_set, *dw NULL, when it is
 * refused: its compressed sections would inflate past symbols/dwarfcap.h's caps. */
int probe_elf_dwarf(struct elf_file *f, const char *path, Dwarf **dw);

#endif

/* Fuzz harness: compressed DWARF sections inflated by lperf (symbols/dwarfzip.c) before libdw
 * opens the file. The input is an ELF file (a separate debug file with SHF_COMPRESSED sections,
 * as Debian's -dbg packages ship them); it is opened in memory and treated as srcline_split.c
 * treats a debug file: refused past dwarfcap's caps, the sections lines never read hidden, the
 * rest inflated (each compression header, the stated size against zlib's ratio, the zlib
 * streams, the exact length; a bad section hidden and named). Then every .debug_* section's
 * data is read to its last byte (the sizes the headers now state must be the data's), and libdw
 * opens the DWARF over the inflated sections (dwarf_begin_elf) and walks the first 64 units'
 * headers. Seeds: small -g programs and debug files with zlib-compressed sections (64- and
 * 32-bit, ET_EXEC/ET_DYN and ET_REL), one with its .debug_info damaged. */
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "symbols/dwarfcap.h"
#include "symbols/dwarfzip.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	elf_version(EV_CURRENT);
	return 0;
}

/* Reads every byte of the .debug_* sections that have data (their sums keep the reads). */
static unsigned read_debug(Elf *e)
{
	size_t shstrndx;
	unsigned sum = 0;
	if (elf_getshdrstrndx(e, &shstrndx) < 0)
		return 0;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(e, shstrndx, sh.sh_name) : NULL;
		if (!name || strncmp(name, ".debug_", 7) || sh.sh_type == SHT_NOBITS || (sh.sh_flags & SHF_COMPRESSED))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && d->d_buf && i < d->d_size; i++)
			sum += ((const unsigned char *)d->d_buf)[i];
	}
	return sum;
}

static void walk_units(Elf *e)
{
	Dwarf *dw = dwarf_begin_elf(e, DWARF_C_READ, NULL);
	if (!dw)
		return;
	Dwarf_Off off = 0, next;
	size_t hsize;
	for (int i = 0; i < 64 && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0; i++) {
		Dwarf_Die die;
		(void)dwarf_offdie(dw, off + hsize, &die);
		off = next;
	}
	dwarf_end(dw);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	Elf *e = elf_memory(buf, size);
	char *refused = e ? dwarfcap_refusal(e) : NULL;
	if (e && !refused && dwarfcap_hide_unread(e) >= 0) {
		void *mem = NULL;
		char *why = NULL;
		(void)dwarfzip_inflate(e, &mem, &why, NULL, NULL);
		volatile unsigned sum = read_debug(e);
		(void)sum;
		walk_units(e);
		elf_end(e);
		e = NULL;
		free(mem);
		free(why);
	}
	free(refused);
	elf_end(e);
	free(buf);
	return 0;
}

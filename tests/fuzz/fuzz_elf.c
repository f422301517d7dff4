/* Fuzz harness: ELF symbol loading. The input is an ELF file; it is written to a scratch file and
 * loaded as a DSO the way a report loads a binary a sample hit: header and type, build-id note,
 * PT_LOAD segments (offset to address), .symtab / .dynsym with SHN_XINDEX, PLT entries from the
 * relocations (x86-64, AArch64), a separate debug file by build-id or .gnu_debuglink, demangling.
 * Then symbols are looked up at and around every symbol found and file offsets are turned into
 * addresses. Seeds: small system binaries and libraries, stripped and not, and a debug file. */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "symbols/dso.h"
#include "symbols/elf.h"
#include "util/error.h"

static char *path;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	if (asprintf(&path, "%s/prog", fuzz_tmpdir()) < 0)
		abort();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!path)
		LLVMFuzzerInitialize(NULL, NULL);
	fuzz_write(path, data, size);
	uint8_t id[20];
	(void)buildid_of_file(path, id);

	struct dso_cache c;
	struct dso *d = fuzz_load_dso(&c, path);
	size_t n = d->nsyms < 64 ? d->nsyms : 64;
	for (size_t i = 0; i < n; i++) {
		uint64_t s = d->syms[i].start, z = d->syms[i].size;
		(void)dso_find_symbol(d, s);
		(void)dso_find_symbol(d, s + z / 2);
		(void)dso_find_symbol(d, s + z);
		(void)dso_find_symbol(d, s - 1);
	}
	for (uint64_t off = 0; off < size && off < (1 << 20); off += 4093)
		(void)dso_find_symbol(d, dso_offset_to_addr(d, off));
	dso_cache_free(&c);
	err_clear();
	return 0;
}

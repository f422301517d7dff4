/* [vdso]: the kernel maps the same vDSO image into every process, so lperf reads its own copy
 * (getauxval(AT_SYSINFO_EHDR), its size from /proc/self/maps). This is right for recordings made
 * on the running kernel; the build-id check catches recordings from another one. */
#include "symbols/elf.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>

#include "util/fileio.h"
#include "util/xalloc.h"

/* The size of the mapping that starts at base, from /proc/self/maps; 0 when not found. */
static size_t mapping_size(uintptr_t base)
{
	struct self_mapping m;
	return proc_self_mapping(base, &m) && m.start == base ? (size_t)(m.end - m.start) : 0;
}

void *vdso_image(size_t *size)
{
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	*size = base ? mapping_size(base) : 0;
	if (!*size)
		return NULL;
	/* The vDSO is read-only and libelf may write to what it parses: callers get a copy. */
	void *image = xmalloc(*size);
	memcpy(image, (const void *)base, *size);
	return image;
}

void vdso_load(const struct elf_want *w, struct symtab_load *out)
{
	buildid_libelf_init();
	size_t size;
	char *image = vdso_image(&size);
	if (!image) {
		notes_add(&out->notes, "this process has no vDSO to read symbols from");
		return;
	}
	Elf *elf = elf_memory(image, size);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		notes_add(&out->notes, "the vDSO image is not an ELF file");
	else
		elfsym_load_elf(w, elf, out);
	if (out->mismatch)
		notes_add(&out->notes, "build-id mismatch: the recording's vDSO is not the running kernel's");
	elf_end(elf);
	free(image);
}

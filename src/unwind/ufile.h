/* Private to src/unwind: the ELF files the unwinder reads, one per DSO. Each is opened once (its
 * image mapped, with no descriptor kept open); every Dwfl that maps the DSO shares the Elf handle
 * through libelf's reference count, so no sample ever opens or parses a file again. */
#ifndef LPERF_UNWIND_UFILE_H
#define LPERF_UNWIND_UFILE_H

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model/machine.h"
#include "util/hashmap.h"

struct useg {
	uint64_t vaddr, offset, filesz, align;
	uint32_t flags;
};

struct cfa_rule;
struct unwind_arch;

struct ufile {
	struct dso *dso;
	bool ok;                  /* an ET_EXEC/ET_DYN image with load segments */
	Elf *elf;                 /* our reference; Dwfl modules hold others */
	void *image;              /* the vDSO copy under elf (elf_memory does not own it) */
	const char *raw;          /* the whole file (elf_rawfile), for memory reads */
	size_t raw_size;
	unsigned e_machine;
	char *path;               /* the file opened; libdwfl's module and file name */
	uint64_t lo, hi;          /* first PT_LOAD's vaddr aligned down, end of the last */
	struct useg *segs;
	size_t nsegs;
	unsigned mark;            /* == unwinder mark: already reported in the Dwfl being built */
	bool py_checked;          /* looked for CPython's trampoline template */
	uint8_t py[32];           /* the template's bytes; py_len 0: none */
	size_t py_len;
	bool cfi_refused;         /* its CFI names registers past CFA_MAX_REG (cfa_elf_bounded):
				   * neither lperf nor libdwfl reads it */
	bool cfi_checked;         /* eh_cfi looked for */
	Dwarf_CFI *eh_cfi;        /* elf's .eh_frame (dwarf_getcfi_elf); NULL: none */
	struct hashmap rows;      /* link-time pc -> struct cfa_rule: unwind.c's per-pc cache */
};

struct ufile_cache {
	struct hashmap by_dso;    /* struct dso * -> struct ufile; zeroed: empty */
};

/* d's file, opened on first use (f->ok says whether it can be unwound with). */
struct ufile *ufile_get(struct ufile_cache *fc, struct dso *d);
void ufile_cache_free(struct ufile_cache *fc);
/* The load bias of f mapped by mp: the segment whose file bytes the mapping starts in (its
 * start rounded down to a page), an executable one first, gives the link-time address of the
 * mapping's first byte. */
bool ufile_map_bias(const struct ufile *f, const struct map *mp, uint64_t *bias);
/* The reduced CFI row (unwind/cfa.h) of f's .eh_frame at link-time address vaddr, looked up
 * once per address and kept. */
const struct cfa_rule *ufile_cfa_rule(struct ufile *f, uint64_t vaddr, const struct unwind_arch *a);
/* CPython's trampoline template in f (searched once), or NULL. */
const uint8_t *ufile_py_template(struct ufile *f, size_t *len);

/* Whether dwfl has CFI (.eh_frame or .debug_frame) for pc, a return address unless initial. */
bool ufile_has_cfi(Dwfl *dwfl, Dwarf_Addr pc, bool initial);

#endif

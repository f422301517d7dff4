/* The unwinder's ELF files: opening (the vDSO from this process's own image), load segments,
 * load biases. */
#include "unwind/ufile.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols/dwarfcap.h"
#include "symbols/elf.h"
#include "unwind/cfa.h"
#include "unwind/jitstep.h"
#include "util/fileio.h"
#include "util/xalloc.h"

/* The path the symbols module reads d from: under --symfs, without " (deleted)". */
/* [vdso]: this process's own image, which is the recording's on the same kernel (the symbols
 * module's build-id check says when it is not). */
static Elf *vdso_elf(struct ufile *f)
{
	size_t size;
	f->image = vdso_image(&size);
	return f->image ? elf_memory(f->image, size) : NULL;
}

static Elf *file_elf(struct ufile *f)
{
	Elf *kept = buildid_memo_elf(f->path, &f->image);
	if (kept)
		return kept;
	int fd = open(f->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	Elf *elf = NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		/* Private: dwarfcap_hide may change its section headers in memory (a small file is
		 * read whole into f->image, the unwinder's own). */
		elf = buildid_elf_begin_path(fd, &st, ELF_C_READ_MMAP_PRIVATE, &f->image, f->path);
		/* The whole file in memory, so that no descriptor stays open per DSO. */
		if (elf && !f->image && elf_cntl(elf, ELF_C_FDREAD) != 0) {
			elf_end(elf);
			elf = NULL;
		}
	}
	close(fd);
	return elf;
}

static void read_segments(struct ufile *f)
{
	size_t nph, cap = 0;
	if (elf_getphdrnum(f->elf, &nph) != 0)
		return;
	for (size_t i = 0; i < nph && i <= INT32_MAX; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(f->elf, (int)i, &ph) || ph.p_type != PT_LOAD || !ph.p_memsz)
			continue;
		if (ph.p_vaddr + ph.p_memsz < ph.p_vaddr || ph.p_filesz > ph.p_memsz)
			continue; /* nonsense: no module may be built from it */
		uint64_t align = ph.p_align && !(ph.p_align & (ph.p_align - 1)) ? ph.p_align : 1;
		if (!f->nsegs)
			f->lo = ph.p_vaddr & ~(align - 1);
		if (ph.p_vaddr + ph.p_memsz > f->hi)
			f->hi = ph.p_vaddr + ph.p_memsz;
		ALLOC_GROW(f->segs, f->nsegs + 1, cap);
		f->segs[f->nsegs++] = (struct useg){ ph.p_vaddr, ph.p_offset, ph.p_filesz, align, ph.p_flags };
	}
}

static void ufile_open(struct ufile *f)
{
	struct dso *d = f->dso;
	dso_load(d); /* the build-id check, and the separate debug file's path */
	if (d->mismatch || d->deleted)
		return;
	elf_version(EV_CURRENT);
	if (d->kind == DSO_VDSO && !d->cached) {
		f->path = xstrdup(d->path);
		f->elf = vdso_elf(f);
	} else {
		f->path = dso_read_path(d);
		f->elf = file_elf(f);
	}
	GElf_Ehdr eh;
	if (!f->elf || elf_kind(f->elf) != ELF_K_ELF || !gelf_getehdr(f->elf, &eh))
		return;
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		return;
	f->e_machine = eh.e_machine;
	f->raw = elf_rawfile(f->elf, &f->raw_size);
	if (!f->raw)
		f->raw_size = 0;
	read_segments(f);
	f->ok = f->nsegs && f->hi > f->lo;
	f->cfi_refused = f->ok && !cfa_elf_bounded(f->elf);
	d->cfi_refused |= f->cfi_refused;
	/* libdwfl opens the file's DWARF when .eh_frame has no row for a pc (for .debug_frame):
	 * past the caps, it must find none. (srcline warns of the refusal.) */
	char *why = f->ok ? dwarfcap_refusal(f->elf) : NULL;
	if (why && dwarfcap_hide(f->elf) < 0)
		f->ok = false;
	free(why);
}

struct ufile *ufile_get(struct ufile_cache *fc, struct dso *d)
{
	bool found;
	struct hashmap_entry *e = hashmap_insert_ptr(&fc->by_dso, d, &found);
	if (found)
		return e->value;
	struct ufile *f = xcalloc(1, sizeof(*f));
	f->dso = d;
	e->value = f;
	ufile_open(f);
	return f;
}

static void ufile_free(struct ufile *f)
{
	for (size_t i = 0; i < f->rows.n; i++)
		free(f->rows.v[i].value);
	hashmap_free(&f->rows);
	if (f->eh_cfi)
		dwarf_cfi_end(f->eh_cfi);
	if (f->elf)
		elf_end(f->elf);
	free(f->image);
	free(f->path);
	free(f->segs);
	free(f);
}

void ufile_cache_free(struct ufile_cache *fc)
{
	for (size_t i = 0; i < fc->by_dso.n; i++)
		ufile_free(fc->by_dso.v[i].value);
	hashmap_free(&fc->by_dso);
}

const struct cfa_rule *ufile_cfa_rule(struct ufile *f, uint64_t vaddr, const struct unwind_arch *a)
{
	if (!f->cfi_checked) {
		f->cfi_checked = true;
		f->eh_cfi = f->ok && !f->cfi_refused ? dwarf_getcfi_elf(f->elf) : NULL;
	}
	bool found;
	struct hashmap_entry *e = hashmap_insert_u64(&f->rows, vaddr, &found);
	if (!found) {
		struct cfa_rule *r = xmalloc(sizeof(*r));
		cfa_rule_make(f->eh_cfi, vaddr, a, r);
		e->value = r;
	}
	return e->value;
}

const uint8_t *ufile_py_template(struct ufile *f, size_t *len)
{
	if (!f->py_checked) {
		f->py_checked = true;
		f->py_len = f->ok ? jitstep_py_template(f->elf, f->py, sizeof(f->py)) : 0;
	}
	*len = f->py_len;
	return f->py_len ? f->py : NULL;
}


bool ufile_map_bias(const struct ufile *f, const struct map *mp, uint64_t *bias)
{
	const struct useg *best = NULL;
	for (size_t i = 0; i < f->nsegs; i++) {
		const struct useg *s = &f->segs[i];
		uint64_t page = s->align < 65536 ? s->align : 65536;
		bool in = mp->pgoff >= s->offset ? mp->pgoff - s->offset < (s->filesz ? s->filesz : 1)
						 : s->offset - mp->pgoff < page;
		if (in && (!best || (!(best->flags & PF_X) && (s->flags & PF_X))))
			best = s;
	}
	if (!best)
		return false;
	*bias = mp->start - (best->vaddr - best->offset + mp->pgoff);
	return true;
}

/* Whether libdwfl has CFI for pc (a return address unless initial). */
bool ufile_has_cfi(Dwfl *dwfl, Dwarf_Addr pc, bool initial)
{
	if (!initial)
		pc--;
	Dwfl_Module *mod = dwfl_addrmodule(dwfl, pc);
	if (!mod)
		return false;
	Dwarf_Addr bias;
	Dwarf_CFI *cfi[2];
	cfi[0] = dwfl_module_eh_cfi(mod, &bias);
	Dwarf_Addr bias0 = bias;
	cfi[1] = dwfl_module_dwarf_cfi(mod, &bias);
	for (int i = 0; i < 2; i++) {
		Dwarf_Frame *fr;
		if (cfi[i] && dwarf_cfi_addrframe(cfi[i], pc - (i ? bias : bias0), &fr) == 0) {
			free(fr);
			return true;
		}
	}
	return false;
}

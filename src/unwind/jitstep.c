/* Unwind steps over JIT frames: CFI that libdw evaluates from an in-memory ELF, applied to one
 * frame's registers here (libdwfl's own stepping needs a module, and JIT code has no file). */
#include "unwind/jitstep.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "unwind/cfa.h"
#include "util/hashmap.h"
#include "util/xalloc.h"

/* CPython's Python/asm_trampoline.S on x86-64 (3.12 and 3.13 alike). */
static const uint8_t py_tramp_x86_64[] = {
	0x48, 0x83, 0xec, 0x08, /* sub  $8, %rsp */
	0xff, 0xd1,             /* call *%rcx    */
	0x48, 0x83, 0xc4, 0x08, /* add  $8, %rsp */
	0xc3,                   /* ret           */
};

/* The .eh_frame CPython 3.13 writes into its jitdump for that code (perf_jit_trampoline.c),
 * placed 16 bytes (the code rounded up to 8) after the code: a CIE (CFA = rsp + 8, return
 * address at CFA - 8) and an FDE over the 11 bytes (after the sub CFA = rsp + 16, after the add
 * rsp + 8 again). */
static const uint8_t py_tramp_eh_frame[] = {
	0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 'z', 'R', 0x00, 0x01, 0x78, 0x10, 0x01,
	0x1b, 0x0c, 0x07, 0x08, 0x90, 0x01, 0x00, 0x00,
	0x14, 0x00, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x00, 0xd0, 0xff, 0xff, 0xff, 0x0b, 0x00, 0x00, 0x00,
	0x00, 0x44, 0x0e, 0x10, 0x46, 0x0e, 0x08, 0x00,
};
/* Where that CFI is put: rules do not depend on the code's address, so one copy serves every
 * trampoline, looked up at the same offset. */
#define TRAMP_BASE 0x10000u

struct code_cfi {
	const struct jitdump_code *code;
	Elf *elf;
	Dwarf_CFI *cfi;          /* NULL: the unwinding data is unusable */
};

struct jitstep {
	struct hashmap by_code;  /* struct jitdump_code * -> struct code_cfi */
	Elf *tramp_elf;
	Dwarf_CFI *tramp_cfi;
	bool tramp_tried;
};

struct jitstep *jitstep_new(void)
{
	struct jitstep *js = xcalloc(1, sizeof(struct jitstep));
	hashmap_init(&js->by_code, HASHMAP_PTR);
	return js;
}

static void drop_cfi(Elf *elf, Dwarf_CFI *cfi)
{
	if (cfi)
		dwarf_cfi_end(cfi);
	if (elf)
		elf_end(elf);
}

void jitstep_free(struct jitstep *js)
{
	if (!js)
		return;
	for (size_t i = 0; i < js->by_code.n; i++) {
		struct code_cfi *e = js->by_code.v[i].value;
		drop_cfi(e->elf, e->cfi);
		free(e);
	}
	hashmap_free(&js->by_code);
	drop_cfi(js->tramp_elf, js->tramp_cfi);
	free(js);
}

/* ---- CFI from bytes ---- */

/* An ELF holding eh_frame as its .eh_frame section at vaddr, for dwarf_getcfi_elf. libelf writes
 * only to descriptors, hence the memfd; the image is read back into memory and the descriptor
 * closed. */
static Elf *cfi_elf(const uint8_t *eh_frame, size_t len, uint64_t vaddr, unsigned e_machine)
{
	static const char shstr[] = "\0.eh_frame\0.shstrtab";
	if (elf_version(EV_CURRENT) == EV_NONE)
		return NULL;
	int fd = memfd_create("lperf-jit-cfi", MFD_CLOEXEC);
	if (fd < 0)
		return NULL;
	Elf *w = elf_begin(fd, ELF_C_WRITE, NULL);
	Elf *r = NULL;
	GElf_Ehdr eh;
	GElf_Shdr sh;
	if (!w || !gelf_newehdr(w, ELFCLASS64) || !gelf_getehdr(w, &eh))
		goto out;
	eh.e_ident[EI_DATA] = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? ELFDATA2LSB : ELFDATA2MSB;
	eh.e_type = ET_DYN;
	eh.e_machine = (GElf_Half)e_machine;
	eh.e_version = EV_CURRENT;
	Elf_Scn *scn = elf_newscn(w);
	Elf_Data *d = scn ? elf_newdata(scn) : NULL;
	if (!d || !gelf_getshdr(scn, &sh))
		goto out;
	d->d_buf = (void *)eh_frame;
	d->d_size = len;
	d->d_type = ELF_T_BYTE;
	d->d_align = 8;
	sh.sh_name = 1;
	sh.sh_type = SHT_PROGBITS;
	sh.sh_flags = SHF_ALLOC;
	sh.sh_addr = vaddr;
	sh.sh_addralign = 8;
	if (!gelf_update_shdr(scn, &sh))
		goto out;
	Elf_Scn *str = elf_newscn(w);
	d = str ? elf_newdata(str) : NULL;
	if (!d || !gelf_getshdr(str, &sh))
		goto out;
	d->d_buf = (void *)shstr;
	d->d_size = sizeof(shstr);
	d->d_type = ELF_T_BYTE;
	d->d_align = 1;
	sh.sh_name = 11;
	sh.sh_type = SHT_STRTAB;
	eh.e_shstrndx = (GElf_Half)elf_ndxscn(str);
	if (!gelf_update_shdr(str, &sh) || !gelf_update_ehdr(w, &eh) || elf_update(w, ELF_C_WRITE) < 0)
		goto out;
	r = elf_begin(fd, ELF_C_READ, NULL);
	if (r && elf_cntl(r, ELF_C_FDREAD) != 0) {
		elf_end(r);
		r = NULL;
	}
out:
	if (w)
		elf_end(w);
	close(fd);
	return r;
}

static Dwarf_CFI *cfi_new(const uint8_t *eh_frame, size_t len, uint64_t vaddr, unsigned e_machine, Elf **elfp)
{
	*elfp = cfi_elf(eh_frame, len, vaddr, e_machine);
	Dwarf_CFI *cfi = *elfp ? dwarf_getcfi_elf(*elfp) : NULL;
	if (!cfi && *elfp) {
		elf_end(*elfp);
		*elfp = NULL;
	}
	return cfi;
}

static Dwarf_CFI *code_cfi(struct jitstep *js, const struct jitdump_code *c, unsigned e_machine)
{
	bool found;
	struct hashmap_entry *he = hashmap_insert_ptr(&js->by_code, c, &found);
	if (found)
		return ((struct code_cfi *)he->value)->cfi;
	struct code_cfi *e = xcalloc(1, sizeof(*e));
	he->value = e;
	e->code = c;
	/* CFI naming registers libdw would size rows by (gigabytes a lookup) is unusable. */
	if (cfa_section_bounded(c->unwind->eh_frame, c->unwind->eh_frame_size, true, ELFCLASS64))
		e->cfi = cfi_new(c->unwind->eh_frame, c->unwind->eh_frame_size, jitdump_eh_frame_vaddr(c), e_machine,
				 &e->elf);
	return e->cfi;
}

/* ---- applying a CFI row ---- */

/* Steps over the frame with the CFI row at look (pc, or pc - 1 for a return address). */
static enum jitstep_result cfi_step(Dwarf_CFI *cfi, uint64_t look, const struct jitstep_frame *f,
				    struct unwind_regs *out)
{
	struct cfa_rule rule;
	cfa_rule_make(cfi, look, f->arch, &rule);
	if (rule.kind == CFA_NO_ROW)
		return JITSTEP_NONE;
	return cfa_rule_step(&rule, f, out);
}

bool jitstep_py_template_known(const uint8_t *code, size_t len, unsigned e_machine)
{
	return e_machine == EM_X86_64 && code && len == sizeof(py_tramp_x86_64) &&
	       !memcmp(code, py_tramp_x86_64, len);
}

/* Instruction boundaries only; a return address only after the call. */
static bool tramp_offset_ok(uint64_t off, bool activation)
{
	if (!activation)
		return off == 6;
	return off == 0 || off == 4 || off == 6 || off == 10;
}

/* off: the pc's offset in the trampoline. */
static enum jitstep_result tramp_step(struct jitstep *js, uint64_t off, const struct jitstep_frame *f,
				      struct unwind_regs *out)
{
	if (f->arch->e_machine != EM_X86_64)
		return JITSTEP_NONE;
	if (!tramp_offset_ok(off, f->activation))
		return JITSTEP_FAIL;
	if (!js->tramp_tried) {
		js->tramp_tried = true;
		js->tramp_cfi = cfi_new(py_tramp_eh_frame, sizeof(py_tramp_eh_frame), TRAMP_BASE + 16, EM_X86_64,
					&js->tramp_elf);
	}
	if (!js->tramp_cfi)
		return JITSTEP_NONE;
	return cfi_step(js->tramp_cfi, TRAMP_BASE + off - (f->activation ? 0 : 1), f, out);
}

enum jitstep_result jitstep_py_trampoline(struct jitstep *js, uint64_t start, const struct jitstep_frame *f,
					  struct unwind_regs *out)
{
	uint64_t pc = f->regs->pc;
	if (pc < start || pc - start >= sizeof(py_tramp_x86_64))
		return JITSTEP_NONE;
	return tramp_step(js, pc - start, f, out);
}

enum jitstep_result jitstep_code(struct jitstep *js, const struct jitdump_code *c, const struct jitstep_frame *f,
				 struct unwind_regs *out)
{
	uint64_t pc = f->regs->pc, look = f->activation ? pc : pc - 1;
	if (look < c->addr || look - c->addr >= c->size)
		return JITSTEP_NONE;
	bool tramp = jitstep_py_template_known(c->code, c->size, f->arch->e_machine);
	if (tramp && !tramp_offset_ok(pc - c->addr, f->activation))
		return JITSTEP_FAIL;
	if (c->unwind && c->unwind->eh_frame && c->unwind->eh_frame_size) {
		Dwarf_CFI *cfi = code_cfi(js, c, f->arch->e_machine);
		enum jitstep_result r = cfi ? cfi_step(cfi, look, f, out) : JITSTEP_NONE;
		if (r != JITSTEP_NONE)
			return r;
	}
	return tramp ? tramp_step(js, pc - c->addr, f, out) : JITSTEP_NONE;
}

/* ---- the template in libpython ---- */

static bool vaddr_bytes(Elf *elf, uint64_t vaddr, size_t len, uint8_t *out)
{
	size_t nph, raw_size;
	const char *raw = elf_rawfile(elf, &raw_size);
	if (!raw || elf_getphdrnum(elf, &nph) != 0)
		return false;
	for (size_t i = 0; i < nph && i <= INT32_MAX; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD || vaddr < ph.p_vaddr ||
		    vaddr - ph.p_vaddr >= ph.p_filesz || ph.p_filesz - (vaddr - ph.p_vaddr) < len)
			continue;
		uint64_t off = ph.p_offset + (vaddr - ph.p_vaddr);
		if (off > raw_size || raw_size - off < len)
			return false;
		memcpy(out, raw + off, len);
		return true;
	}
	return false;
}

size_t jitstep_py_template(Elf *elf, uint8_t *out, size_t cap)
{
	uint64_t start = 0, end = 0;
	bool have_start = false, have_end = false;
	Elf_Scn *scn = NULL;
	while (elf && (scn = elf_nextscn(elf, scn)) && !(have_start && have_end)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t n = d ? d->d_size / sh.sh_entsize : 0;
		for (size_t i = 0; i < n && i <= INT32_MAX && !(have_start && have_end); i++) {
			GElf_Sym sym;
			const char *name;
			if (!gelf_getsym(d, (int)i, &sym) || !sym.st_value ||
			    !(name = elf_strptr(elf, sh.sh_link, sym.st_name)))
				continue;
			if (!strcmp(name, "_Py_trampoline_func_start")) {
				start = sym.st_value;
				have_start = true;
			} else if (!strcmp(name, "_Py_trampoline_func_end")) {
				end = sym.st_value;
				have_end = true;
			}
		}
	}
	if (!have_start || !have_end || end <= start || end - start > cap)
		return 0;
	return vaddr_bytes(elf, start, (size_t)(end - start), out) ? (size_t)(end - start) : 0;
}

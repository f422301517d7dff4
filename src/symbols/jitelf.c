/* jitted-PID-INDEX.so files: one ELF per JIT code region, built with libelf. The layout is set
 * by hand (ELF_F_LAYOUT) because perf relies on .text sitting at file offset JITELF_TEXT_OFFSET
 * and on the unwinding data sitting where its pc-relative offsets expect it. */
#include "symbols/jitelf.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"
#include "util/hashmap.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#define ALIGN_UP(x, a) (((x) + (a) - 1) & ~((uint64_t)(a) - 1))

/* The machine the code runs on: a jitdump's elf_mach is not trusted (CPython 3.13.0 writes 0),
 * and perf's genelf uses the build's own architecture too. */
#if defined(__x86_64__)
#define JITELF_MACHINE EM_X86_64
#elif defined(__i386__)
#define JITELF_MACHINE EM_386
#elif defined(__aarch64__)
#define JITELF_MACHINE EM_AARCH64
#elif defined(__arm__)
#define JITELF_MACHINE EM_ARM
#elif defined(__powerpc64__)
#define JITELF_MACHINE EM_PPC64
#elif defined(__powerpc__)
#define JITELF_MACHINE EM_PPC
#elif defined(__s390x__)
#define JITELF_MACHINE EM_S390
#elif defined(__riscv)
#define JITELF_MACHINE EM_RISCV
#elif defined(__loongarch__) && defined(EM_LOONGARCH)
#define JITELF_MACHINE EM_LOONGARCH
#elif defined(__mips__)
#define JITELF_MACHINE EM_MIPS
#else
#define JITELF_MACHINE EM_NONE
#endif

#if __SIZEOF_POINTER__ == 8
#define JITELF_CLASS ELFCLASS64
#else
#define JITELF_CLASS ELFCLASS32
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define JITELF_DATA ELFDATA2LSB
#else
#define JITELF_DATA ELFDATA2MSB
#endif

/* A mapped size beyond the data by more than this is not believed (it would stretch the
 * mapping over neighbouring code). */
#define MAPPED_SLACK 4096u

uint64_t jitelf_unwind_addr(const struct jitdump_code *c)
{
	return ALIGN_UP(JITELF_TEXT_OFFSET + c->size, 8);
}

uint64_t jitelf_map_len(const struct jitdump_code *c)
{
	const struct jitdump_unwind *u = c->unwind;
	if (!u || !u->mapped_size)
		return c->size;
	uint64_t mapped = u->mapped_size;
	if (mapped > u->size + MAPPED_SLACK)
		mapped = u->size;
	uint64_t len = ALIGN_UP(c->size, 8) + mapped;
	if (len < c->size || c->addr + len < c->addr)
		return c->size;
	return len;
}

/* ---- Build-id ---- */

static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
	const uint8_t *p = data;
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

void jitelf_build_id(uint32_t pid, const struct jitdump_code *c, uint8_t id[JITELF_BUILD_ID_SIZE])
{
	static const uint64_t seeds[3] = { 0xcbf29ce484222325ull, 0x84222325cbf29ce4ull, 0x9e3779b97f4a7c15ull };
	uint8_t out[24];
	for (size_t k = 0; k < 3; k++) {
		uint64_t h = seeds[k];
		uint64_t fields[4] = { pid, c->index, c->addr, c->time };
		h = fnv1a(h, fields, sizeof(fields));
		h = fnv1a(h, c->name, strlen(c->name) + 1);
		h = fnv1a(h, c->code, (size_t)c->size);
		/* MurmurHash3's finaliser: FNV's last bytes otherwise barely reach the high bits. */
		h = hashmap_hash_u64(h ^ (c->size * (k + 1)));
		memcpy(out + 8 * k, &h, 8);
	}
	memcpy(id, out, JITELF_BUILD_ID_SIZE);
}

/* ---- The ELF ---- */

struct section {
	const char *name;
	uint32_t type;
	uint64_t flags, addr, offset, size, align, entsize;
	uint32_t link, info;
	void *buf;
	Elf_Type dtype;
	size_t index;            /* filled when created */
	size_t name_off;
};

static int elf_fail(const char *what)
{
	return err_set("cannot build the JIT ELF: %s: %s", what, elf_errmsg(-1));
}

static int add_section(Elf *e, struct section *s)
{
	Elf_Scn *scn = elf_newscn(e);
	if (!scn)
		return elf_fail("elf_newscn");
	Elf_Data *d = elf_newdata(scn);
	if (!d)
		return elf_fail("elf_newdata");
	d->d_buf = s->buf;
	d->d_type = s->dtype;
	d->d_size = (size_t)s->size;
	d->d_off = 0;
	d->d_align = (size_t)s->align;
	d->d_version = EV_CURRENT;
	GElf_Shdr sh;
	if (!gelf_getshdr(scn, &sh))
		return elf_fail("gelf_getshdr");
	sh.sh_name = (GElf_Word)s->name_off;
	sh.sh_type = s->type;
	sh.sh_flags = s->flags;
	sh.sh_addr = s->addr;
	sh.sh_offset = s->offset;
	sh.sh_size = s->size;
	sh.sh_addralign = s->align;
	sh.sh_entsize = s->entsize;
	sh.sh_link = s->link;
	sh.sh_info = s->info;
	if (!gelf_update_shdr(scn, &sh))
		return elf_fail("gelf_update_shdr");
	s->index = elf_ndxscn(scn);
	return 0;
}

enum { S_TEXT, S_EH_FRAME, S_EH_FRAME_HDR, S_NOTE, S_SYMTAB, S_STRTAB, S_SHSTRTAB, S_N };

/* The note: its header, "GNU\0", the id (all 4-byte multiples, so no padding). */
struct build_id_note {
	GElf_Nhdr nh;
	char name[4];
	uint8_t id[JITELF_BUILD_ID_SIZE];
};

/* The largest power of two up to max that divides addr. */
static uint64_t natural_align(uint64_t addr, uint64_t max)
{
	uint64_t a = max;
	while (a > 1 && addr % a)
		a /= 2;
	return a;
}

static bool included(int i, bool unwind)
{
	return unwind || (i != S_EH_FRAME && i != S_EH_FRAME_HDR);
}

/* Addresses and offsets: allocated sections at offset == address after the code, the others
 * after them. Returns the end of the allocated part; *end_all gets the end of everything. */
static uint64_t layout(const struct jitdump_code *c, bool unwind, struct section *s, uint64_t *end_all)
{
	const struct jitdump_unwind *u = c->unwind;
	s[S_TEXT].addr = JITELF_TEXT_OFFSET;
	s[S_TEXT].size = c->size;
	s[S_TEXT].buf = (void *)c->code;
	uint64_t end = JITELF_TEXT_OFFSET + c->size;
	if (unwind) {
		/* The bytes as written, so the writer's pc-relative offsets hold. */
		uint64_t base = jitelf_unwind_addr(c);
		s[S_EH_FRAME].addr = base + (uint64_t)(u->eh_frame - u->data);
		s[S_EH_FRAME].size = u->eh_frame_size;
		s[S_EH_FRAME].buf = (void *)u->eh_frame;
		s[S_EH_FRAME].align = natural_align(s[S_EH_FRAME].addr, 8);
		s[S_EH_FRAME_HDR].addr = base + (uint64_t)(u->eh_frame_hdr - u->data);
		s[S_EH_FRAME_HDR].size = u->eh_frame_hdr_size;
		s[S_EH_FRAME_HDR].buf = (void *)u->eh_frame_hdr;
		s[S_EH_FRAME_HDR].align = natural_align(s[S_EH_FRAME_HDR].addr, 4);
		end = base + u->size;
	}
	s[S_NOTE].addr = ALIGN_UP(end, 4);
	uint64_t alloc_end = s[S_NOTE].addr + s[S_NOTE].size, off = alloc_end;
	for (int i = 0; i < S_N; i++) {
		if (!included(i, unwind))
			continue;
		if (s[i].flags & SHF_ALLOC) {
			s[i].offset = s[i].addr;
		} else {
			off = ALIGN_UP(off, s[i].align);
			s[i].offset = off;
			off += s[i].size;
		}
	}
	*end_all = off;
	return alloc_end;
}

static int write_elf(Elf *e, const struct jitdump_code *c, const struct jitelf_sym *syms, size_t nsyms,
		     struct section *s, struct strbuf *shstr)
{
	if (!gelf_newehdr(e, JITELF_CLASS))
		return elf_fail("gelf_newehdr");
	GElf_Ehdr eh;
	if (!gelf_getehdr(e, &eh))
		return elf_fail("gelf_getehdr");
	size_t ehsize = gelf_fsize(e, ELF_T_EHDR, 1, EV_CURRENT);
	size_t phsize = gelf_fsize(e, ELF_T_PHDR, 1, EV_CURRENT);
	size_t symsize = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT);
	if (!ehsize || !phsize || !symsize || ALIGN_UP(ehsize + phsize, 16) != JITELF_TEXT_OFFSET)
		return elf_fail("gelf_fsize");
	const struct jitdump_unwind *u = c->unwind;
	/* V8 writes a header alone (no FDEs, nothing mapped): kept as perf keeps it. */
	bool unwind = u && u->eh_frame_hdr_size;

	sb_addc(shstr, 0);
	for (int i = 0; i < S_N; i++) {
		if (!included(i, unwind))
			continue;
		s[i].name_off = shstr->len;
		sb_add(shstr, s[i].name, strlen(s[i].name) + 1);
	}
	s[S_SHSTRTAB].buf = shstr->buf;
	s[S_SHSTRTAB].size = shstr->len;
	s[S_SYMTAB].buf = xcalloc(nsyms + 1, symsize);
	s[S_SYMTAB].size = (nsyms + 1) * symsize;
	s[S_SYMTAB].info = (uint32_t)(nsyms + 1);
	s[S_SYMTAB].entsize = symsize;
	uint64_t end_all, alloc_end = layout(c, unwind, s, &end_all);

	for (int i = 0; i < S_N; i++)
		if (included(i, unwind) && add_section(e, &s[i]) < 0)
			return -1;

	/* .symtab names .strtab; its symbols are local, as perf's, so sh_info (the first
	 * non-local) is their count + 1. */
	Elf_Scn *symscn = elf_getscn(e, s[S_SYMTAB].index);
	GElf_Shdr sh;
	if (!symscn || !gelf_getshdr(symscn, &sh))
		return elf_fail("gelf_getshdr");
	sh.sh_link = (GElf_Word)s[S_STRTAB].index;
	if (!gelf_update_shdr(symscn, &sh))
		return elf_fail("gelf_update_shdr");
	Elf_Data *symdata = elf_getdata(symscn, NULL);
	if (!symdata)
		return elf_fail("elf_getdata");
	for (size_t i = 0; i < nsyms; i++) {
		GElf_Sym sym = {
			.st_name = (GElf_Word)syms[i].name_off,
			.st_info = GELF_ST_INFO(STB_LOCAL, STT_FUNC),
			.st_other = STV_DEFAULT,
			.st_shndx = (GElf_Section)s[S_TEXT].index,
			.st_value = JITELF_TEXT_OFFSET + syms[i].off,
			.st_size = syms[i].size,
		};
		if (!gelf_update_sym(symdata, (int)(i + 1), &sym))
			return elf_fail("gelf_update_sym");
	}

	eh.e_ident[EI_DATA] = JITELF_DATA;
	eh.e_machine = JITELF_MACHINE;
	eh.e_type = ET_DYN;
	eh.e_version = EV_CURRENT;
	eh.e_entry = JITELF_TEXT_OFFSET;
	eh.e_phoff = ehsize;
	eh.e_shoff = ALIGN_UP(end_all, 8);
	eh.e_shstrndx = (GElf_Half)s[S_SHSTRTAB].index;
	if (!gelf_update_ehdr(e, &eh))
		return elf_fail("gelf_update_ehdr");

	/* One segment over everything allocated: code, unwinding data, note. */
	if (!gelf_newphdr(e, 1))
		return elf_fail("gelf_newphdr");
	GElf_Phdr ph = {
		.p_type = PT_LOAD,
		.p_flags = PF_R | PF_X,
		.p_offset = JITELF_TEXT_OFFSET,
		.p_vaddr = JITELF_TEXT_OFFSET,
		.p_paddr = JITELF_TEXT_OFFSET,
		.p_filesz = alloc_end - JITELF_TEXT_OFFSET,
		.p_memsz = alloc_end - JITELF_TEXT_OFFSET,
		.p_align = 16,
	};
	if (!gelf_update_phdr(e, 0, &ph))
		return elf_fail("gelf_update_phdr");
	elf_flagelf(e, ELF_C_SET, ELF_F_LAYOUT);
	if (elf_update(e, ELF_C_WRITE) < 0)
		return elf_fail("elf_update");
	return 0;
}

/* The ELF of text (size bytes at JITELF_TEXT_OFFSET, unwinding data u or NULL) with syms. */
static int write_fd(int fd, const struct jitdump_code *c, struct jitelf_sym *syms, size_t nsyms,
		    const uint8_t id[JITELF_BUILD_ID_SIZE])
{
	/* ELF sizes are 64-bit, but a region must fit what one jitdump record can hold. */
	if (c->size > UINT32_MAX)
		return err_set("JIT code '%s' of %llu bytes is too large", c->name, (unsigned long long)c->size);
	if (elf_version(EV_CURRENT) == EV_NONE)
		return elf_fail("elf_version");
	struct build_id_note note = { { 4, JITELF_BUILD_ID_SIZE, NT_GNU_BUILD_ID }, "GNU", { 0 } };
	memcpy(note.id, id, JITELF_BUILD_ID_SIZE);
	struct strbuf strtab = STRBUF_INIT;
	sb_addc(&strtab, 0);
	for (size_t i = 0; i < nsyms; i++) {
		syms[i].name_off = strtab.len;
		sb_add(&strtab, syms[i].name, strlen(syms[i].name) + 1);
	}
	struct section s[S_N] = {
		[S_TEXT] = { ".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, .align = 16, .dtype = ELF_T_BYTE },
		[S_EH_FRAME] = { ".eh_frame", SHT_PROGBITS, SHF_ALLOC, .align = 1, .dtype = ELF_T_BYTE },
		[S_EH_FRAME_HDR] = { ".eh_frame_hdr", SHT_PROGBITS, SHF_ALLOC, .align = 1, .dtype = ELF_T_BYTE },
		[S_NOTE] = { ".note.gnu.build-id", SHT_NOTE, SHF_ALLOC, .align = 4, .size = sizeof(note),
			     .buf = &note, .dtype = ELF_T_NHDR },
		[S_SYMTAB] = { ".symtab", SHT_SYMTAB, 0, .align = 8, .dtype = ELF_T_SYM },
		[S_STRTAB] = { ".strtab", SHT_STRTAB, 0, .align = 1, .size = strtab.len, .buf = strtab.buf,
			       .dtype = ELF_T_BYTE },
		[S_SHSTRTAB] = { ".shstrtab", SHT_STRTAB, 0, .align = 1, .dtype = ELF_T_BYTE },
	};
	struct strbuf shstr = STRBUF_INIT;
	int ret = -1;
	Elf *e = elf_begin(fd, ELF_C_WRITE, NULL);
	if (!e)
		elf_fail("elf_begin");
	else
		ret = write_elf(e, c, syms, nsyms, s, &shstr);
	if (e)
		elf_end(e);
	free(s[S_SYMTAB].buf);
	sb_release(&strtab);
	sb_release(&shstr);
	return ret;
}

int jitelf_write_fd(int fd, const struct jitdump_code *c, const uint8_t id[JITELF_BUILD_ID_SIZE])
{
	struct jitelf_sym sym = { c->name, 0, c->size, 0 };
	return write_fd(fd, c, &sym, 1, id);
}

/* Writes through a temporary file renamed over path: the code of c (or syms over zeros). */
static int write_file(const char *path, const struct jitdump_code *c, struct jitelf_sym *syms, size_t nsyms,
		      const uint8_t id[JITELF_BUILD_ID_SIZE], struct stat *st)
{
	char *tmp = xasprintf("%s.XXXXXX", path);
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		err_set("cannot create '%s': %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	int ret = 0;
	/* perf's jitted files are 0644: readable by whoever reports on the recording. */
	if (fchmod(fd, 0644) < 0)
		ret = err_set("cannot set the mode of '%s': %s", tmp, strerror(errno));
	if (!ret && (syms ? write_fd(fd, c, syms, nsyms, id) : jitelf_write_fd(fd, c, id)) < 0)
		ret = err_wrap("%s", path);
	if (!ret && fstat(fd, st) < 0)
		ret = err_set("cannot stat '%s': %s", tmp, strerror(errno));
	if (close(fd) < 0 && !ret)
		ret = err_set("cannot write '%s': %s", tmp, strerror(errno));
	if (!ret && rename(tmp, path) < 0)
		ret = err_set("cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
	if (ret)
		unlink(tmp);
	free(tmp);
	return ret;
}

int jitelf_write_file(const char *path, const struct jitdump_code *c, const uint8_t id[JITELF_BUILD_ID_SIZE],
		      struct stat *st)
{
	return write_file(path, c, NULL, 0, id, st);
}

int jitelf_write_syms_file(const char *path, uint64_t text_size, struct jitelf_sym *syms, size_t nsyms,
			   const uint8_t id[JITELF_BUILD_ID_SIZE], struct stat *st)
{
	uint8_t *zeros = xcalloc(1, text_size ? (size_t)text_size : 1);
	struct jitdump_code c = { .name = path, .code = zeros, .size = text_size };
	int ret = write_file(path, &c, syms, nsyms, id, st);
	free(zeros);
	return ret;
}

/* Compressed DWARF sections inflated with libdeflate (symbols/dwarfzip.c): ELF images written
 * here with libelf, their sections compressed with zlib (as objcopy --compress-debug-sections
 * writes them), then damaged, truncated or given hostile headers. What a reader checks: the
 * inflated bytes are the original ones, the header says uncompressed, a bad section is hidden
 * and named, and what libelf itself would refuse is left as it was. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "symbols/dwarfzip.h"
#include "util/xalloc.h"

/* One section of a test image: its name, flags and the bytes stored. */
struct sec {
	const char *name;
	Elf64_Word type;
	Elf64_Xword flags;
	unsigned char *bytes;
	size_t size;
};

/* A section's contents: n bytes that compress well but not trivially. */
static unsigned char *plain(size_t n, unsigned seed)
{
	unsigned char *p = xmalloc(n ? n : 1);
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)((i * seed) >> 3 ^ (i % 251) ^ (i / 4096));
	return p;
}

/* A compression header of cls and raw's zlib streams (nstreams of them, back to back). */
static struct sec packed(int cls, const char *name, const unsigned char *raw, size_t n, int nstreams)
{
	size_t hsize = cls == ELFCLASS32 ? sizeof(Elf32_Chdr) : sizeof(Elf64_Chdr);
	size_t cap = hsize + (size_t)nstreams * (compressBound((uLong)n) + 16);
	unsigned char *b = xcalloc(1, cap);
	size_t at = hsize, half = nstreams > 1 ? n / 2 : n;
	for (int s = 0; s < nstreams; s++) {
		const unsigned char *from = raw + (s ? half : 0);
		uLong len = (uLong)(s ? n - half : half);
		uLongf out = (uLongf)(cap - at);
		assert_int_equal(compress2(b + at, &out, from, len, 6), Z_OK);
		at += out;
	}
	if (cls == ELFCLASS32) {
		Elf32_Chdr ch = { ELFCOMPRESS_ZLIB, (Elf32_Word)n, 1 };
		memcpy(b, &ch, sizeof(ch));
	} else {
		Elf64_Chdr ch = { ELFCOMPRESS_ZLIB, 0, n, 1 };
		memcpy(b, &ch, sizeof(ch));
	}
	return (struct sec){ name, SHT_PROGBITS, SHF_COMPRESSED, b, at };
}

/* Sets the header's size, type or alignment (a hostile header). */
static void set_chdr(int cls, struct sec *s, uint64_t size, uint32_t type, uint64_t align)
{
	if (cls == ELFCLASS32) {
		Elf32_Chdr ch = { type, (Elf32_Word)size, (Elf32_Word)align };
		memcpy(s->bytes, &ch, sizeof(ch));
	} else {
		Elf64_Chdr ch = { type, 0, size, align };
		memcpy(s->bytes, &ch, sizeof(ch));
	}
}

/* An image in memory (malloc'd, *size) of class cls with secs and a .shstrtab, as libelf
 * writes it. */
static char *image(int cls, const struct sec *secs, size_t n, size_t *size)
{
	char name[] = "/tmp/lperf-dwarfzip-XXXXXX";
	int fd = mkstemp(name);
	assert_true(fd >= 0);
	unlink(name);
	Elf *e = elf_begin(fd, ELF_C_WRITE, NULL);
	assert_non_null(e);
	assert_non_null(gelf_newehdr(e, cls));
	GElf_Ehdr eh;
	assert_non_null(gelf_getehdr(e, &eh));
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_type = ET_DYN;
	eh.e_machine = cls == ELFCLASS32 ? EM_386 : EM_X86_64;
	eh.e_version = EV_CURRENT;
	char strtab[1024] = "";
	size_t strn = 1, offs[16];
	assert_true(n < 16);
	for (size_t i = 0; i < n; i++) {
		offs[i] = strn;
		strn += (size_t)sprintf(strtab + strn, "%s", secs[i].name) + 1;
	}
	size_t shstr_off = strn;
	strn += (size_t)sprintf(strtab + strn, ".shstrtab") + 1;
	for (size_t i = 0; i < n; i++) {
		Elf_Scn *scn = elf_newscn(e);
		Elf_Data *d = elf_newdata(scn);
		d->d_buf = secs[i].bytes;
		d->d_size = secs[i].size;
		d->d_type = ELF_T_BYTE;
		d->d_align = 1;
		GElf_Shdr sh;
		gelf_getshdr(scn, &sh);
		sh.sh_name = (Elf64_Word)offs[i];
		sh.sh_type = secs[i].type;
		sh.sh_flags = secs[i].flags;
		sh.sh_addralign = 1;
		assert_true(gelf_update_shdr(scn, &sh));
	}
	Elf_Scn *scn = elf_newscn(e);
	Elf_Data *d = elf_newdata(scn);
	d->d_buf = strtab;
	d->d_size = strn;
	d->d_type = ELF_T_BYTE;
	GElf_Shdr sh;
	gelf_getshdr(scn, &sh);
	sh.sh_name = (Elf64_Word)shstr_off;
	sh.sh_type = SHT_STRTAB;
	assert_true(gelf_update_shdr(scn, &sh));
	eh.e_shstrndx = (Elf64_Half)elf_ndxscn(scn);
	assert_true(gelf_update_ehdr(e, &eh));
	off_t len = elf_update(e, ELF_C_WRITE);
	assert_true(len > 0);
	elf_end(e);
	char *buf = xmalloc((size_t)len);
	assert_int_equal(pread(fd, buf, (size_t)len, 0), len);
	close(fd);
	*size = (size_t)len;
	return buf;
}

/* An image of secs opened in memory and inflated. */
struct opened {
	char *img;
	Elf *e;
	void *mem;
	char *why;
	int n; /* dwarfzip_inflate's answer */
};

static struct opened inflate_image(int cls, const struct sec *secs, size_t n, dwarfzip_done_fn *done, void *arg)
{
	struct opened o = { 0 };
	size_t size;
	o.img = image(cls, secs, n, &size);
	o.e = elf_memory(o.img, size);
	assert_non_null(o.e);
	o.n = dwarfzip_inflate(o.e, &o.mem, &o.why, done, arg);
	return o;
}

static void close_image(struct opened *o)
{
	elf_end(o->e);
	free(o->mem);
	free(o->why);
	free(o->img);
}

static Elf_Scn *by_name(Elf *e, const char *want, GElf_Shdr *sh)
{
	size_t shstrndx;
	assert_int_equal(elf_getshdrstrndx(e, &shstrndx), 0);
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));)
		if (gelf_getshdr(scn, sh) && !strcmp(elf_strptr(e, shstrndx, sh->sh_name), want))
			return scn;
	fail_msg("no section %s", want);
	return NULL;
}

/* The section's data is raw's n bytes, its header an uncompressed section's of that size. */
static void assert_inflated(Elf *e, const char *name, const unsigned char *raw, size_t n)
{
	GElf_Shdr sh;
	Elf_Scn *scn = by_name(e, name, &sh);
	assert_int_equal(sh.sh_flags & SHF_COMPRESSED, 0);
	assert_int_equal(sh.sh_type, SHT_PROGBITS);
	assert_int_equal(sh.sh_size, n);
	Elf_Data *d = elf_getdata(scn, NULL);
	assert_non_null(d);
	assert_int_equal(d->d_size, n);
	assert_memory_equal(d->d_buf, raw, n);
}

static void assert_state(Elf *e, const char *name, Elf64_Word type, bool compressed)
{
	GElf_Shdr sh;
	by_name(e, name, &sh);
	assert_int_equal(sh.sh_type, type);
	assert_int_equal(!!(sh.sh_flags & SHF_COMPRESSED), compressed);
}

struct seen {
	size_t n;
	uint64_t bytes;
};

static void count_done(uint64_t off, uint64_t size, void *arg)
{
	struct seen *s = arg;
	s->n++;
	s->bytes += size;
	assert_true(off > 0);
}

/* Kept sections inflated to their bytes (one of them two streams back to back, as libelf reads
 * them), the hidden one, a name libdw never reads and a plain section left alone; both classes. */
static void test_inflates(void **state)
{
	for (int cls = ELFCLASS32; cls <= ELFCLASS64; cls++) {
		size_t ni = 300000, ns = 5000, nl = 70000;
		unsigned char *info = plain(ni, 7), *str = plain(ns, 13), *loc = plain(nl, 3), *abbrev = plain(100, 5);
		struct sec secs[] = {
			packed(cls, ".debug_info", info, ni, 1),
			packed(cls, ".debug_str", str, ns, 2),
			packed(cls, ".debug_loclists", loc, nl, 1),
			packed(cls, ".debug_gdb_scripts", str, ns, 1),
			{ ".debug_abbrev", SHT_PROGBITS, 0, abbrev, 100 },
		};
		secs[2].type = SHT_NOBITS; /* hidden, as dwarfcap_hide_unread leaves it */
		struct seen seen = { 0 };
		struct opened o = inflate_image(cls, secs, 5, count_done, &seen);
		Elf *e = o.e;
		assert_int_equal(o.n, 2);
		assert_null(o.why);
		assert_int_equal(seen.n, 2);
		assert_int_equal(seen.bytes, secs[0].size + secs[1].size);
		assert_inflated(e, ".debug_info", info, ni);
		assert_inflated(e, ".debug_str", str, ns);
		assert_state(e, ".debug_loclists", SHT_NOBITS, true);
		assert_state(e, ".debug_gdb_scripts", SHT_PROGBITS, true);
		assert_inflated(e, ".debug_abbrev", abbrev, 100);
		close_image(&o);
		for (size_t i = 0; i < 4; i++)
			free(secs[i].bytes);
		free(info), free(str), free(loc), free(abbrev);
	}
}

/* How one section is spoilt. */
enum spoil { FLIP, TRUNCATE, LONGER, SHORTER, HUGE, SHORT_HEADER, ZSTD, BAD_ALIGN, ALLOC, TRAILING, ALIGN0 };

/* One spoilt .debug_line beside a good .debug_info: the good one is inflated either way; the
 * spoilt one is hidden and named, or, where libelf itself would refuse it, left as it is, or,
 * where libelf takes it (an alignment of 0), inflated. */
static void spoil_one(int cls, enum spoil how)
{
	size_t n = 200000;
	unsigned char *raw = plain(n, 11);
	struct sec secs[] = { packed(cls, ".debug_info", raw, n, 1), packed(cls, ".debug_line", raw, n, 1) };
	struct sec *s = &secs[1];
	size_t hsize = cls == ELFCLASS32 ? sizeof(Elf32_Chdr) : sizeof(Elf64_Chdr);
	bool left = false, fine = false;
	switch (how) {
	case FLIP: /* inside the deflate blocks, past the zlib header */
		s->bytes[hsize + (s->size - hsize) / 2] ^= 0x55;
		break;
	case TRUNCATE:
		s->size = hsize + (s->size - hsize) / 3;
		break;
	case LONGER:
		set_chdr(cls, s, n + 1, ELFCOMPRESS_ZLIB, 1);
		break;
	case SHORTER:
		set_chdr(cls, s, n - 1, ELFCOMPRESS_ZLIB, 1);
		break;
	case HUGE: /* past zlib's ratio: refused before anything is allocated */
		set_chdr(cls, s, cls == ELFCLASS32 ? 0xfffffff0u : (uint64_t)1 << 40, ELFCOMPRESS_ZLIB, 1);
		break;
	case SHORT_HEADER:
		s->size = hsize - 2;
		break;
	case ZSTD:
		set_chdr(cls, s, n, 2 /* ELFCOMPRESS_ZSTD */, 1);
		left = true;
		break;
	case BAD_ALIGN:
		set_chdr(cls, s, n, ELFCOMPRESS_ZLIB, 3);
		left = true;
		break;
	case ALLOC:
		s->flags |= SHF_ALLOC;
		left = true;
		break;
	case TRAILING: /* bytes after the stream that are not another one */
		s->bytes[s->size++] = 0x42;
		break;
	case ALIGN0:
		set_chdr(cls, s, n, ELFCOMPRESS_ZLIB, 0);
		fine = true;
		break;
	}
	struct opened o = inflate_image(cls, secs, 2, NULL, NULL);
	assert_int_equal(o.n, fine ? 2 : 1);
	assert_inflated(o.e, ".debug_info", raw, n);
	if (fine) {
		assert_null(o.why);
		assert_inflated(o.e, ".debug_line", raw, n);
	} else if (left) {
		assert_null(o.why);
		assert_state(o.e, ".debug_line", SHT_PROGBITS, true);
	} else {
		assert_non_null(o.why);
		assert_non_null(strstr(o.why, "section .debug_line: "));
		assert_null(strchr(o.why, '\n'));
		assert_state(o.e, ".debug_line", SHT_NOBITS, true);
	}
	close_image(&o);
	free(secs[0].bytes), free(secs[1].bytes), free(raw);
}

static void test_spoilt(void **state)
{
	for (int cls = ELFCLASS32; cls <= ELFCLASS64; cls++)
		for (int how = FLIP; how <= ALIGN0; how++)
			spoil_one(cls, (enum spoil)how);
}

/* An empty section (a stream of no bytes) is inflated to nothing, as libelf does; a file with no
 * compressed sections is left alone; a section of megabytes is whole; what is not ELF is refused. */
static void test_edges(void **state)
{
	unsigned char none[1] = { 0 };
	struct sec secs[] = { packed(ELFCLASS64, ".debug_ranges", none, 0, 1) };
	struct opened o = inflate_image(ELFCLASS64, secs, 1, NULL, NULL);
	assert_int_equal(o.n, 1);
	assert_null(o.why);
	GElf_Shdr sh;
	by_name(o.e, ".debug_ranges", &sh);
	assert_int_equal(sh.sh_size, 0);
	close_image(&o);
	free(secs[0].bytes);

	unsigned char *abbrev = plain(64, 3);
	struct sec flat[] = { { ".debug_abbrev", SHT_PROGBITS, 0, abbrev, 64 } };
	o = inflate_image(ELFCLASS64, flat, 1, NULL, NULL);
	assert_int_equal(o.n, 0);
	assert_null(o.why);
	assert_inflated(o.e, ".debug_abbrev", abbrev, 64);
	close_image(&o);
	free(abbrev);

	/* A section of megabytes, as libc's .debug_info (5.8 MB). */
	size_t big = (5u << 20) + 12345;
	unsigned char *info = plain(big, 9);
	struct sec large[] = { packed(ELFCLASS64, ".debug_info", info, big, 1) };
	o = inflate_image(ELFCLASS64, large, 1, NULL, NULL);
	assert_int_equal(o.n, 1);
	assert_inflated(o.e, ".debug_info", info, big);
	close_image(&o);
	free(large[0].bytes);
	free(info);

	char junk[64] = "not an ELF file";
	void *mem;
	char *why;
	Elf *e = elf_memory(junk, sizeof(junk));
	assert_int_equal(dwarfzip_inflate(e, &mem, &why, NULL, NULL), -1);
	assert_null(mem);
	assert_null(why);
	elf_end(e);
}

int main(void)
{
	elf_version(EV_CURRENT);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inflates),
		cmocka_unit_test(test_spoilt),
		cmocka_unit_test(test_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

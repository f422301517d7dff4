/* Source lines, inline chains and annotation, on a program built at test time with cc -O2 -g;
 * binutils (addr2line -i -f, objdump -d) is the oracle, as perf uses it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "analysis/annot.h"
#include "elf_test.h"
#include "symbols/dso.h"
#include "symbols/dwarfcap.h"
#include "symbols/srcline.h"
#include "symbols/srcline_split.h"
#include "util/xalloc.h"

static const char prog_c[] =
	"static volatile unsigned long sink;\n"
	"static inline __attribute__((always_inline)) unsigned long mix(unsigned long x, unsigned long i)\n"
	"{\n"
	"\tx ^= x >> 13;\n"
	"\tx *= 0x9e3779b97f4a7c15UL;\n"
	"\treturn x + i;\n"
	"}\n"
	"__attribute__((noinline)) unsigned long hot(unsigned long n)\n"
	"{\n"
	"\tunsigned long x = 1, y = 7;\n"
	"\tfor (unsigned long i = 0; i < n; i++) {\n"
	"\t\tx = mix(x, i);\n"
	"\t\tif (x & 1)\n"
	"\t\t\ty += x >> 3;\n"
	"\t\telse\n"
	"\t\t\ty ^= x << 1;\n"
	"\t}\n"
	"\treturn x + y;\n"
	"}\n"
	"int main(int argc, char **argv) { sink = hot((unsigned long)argc * 1000); return 0; }\n";

static char *prog, *stripped;
static struct dso_cache cache;

static int setup(void **state)
{
	if (!et_mkdir())
		return -1;
	prog = et_path("prog");
	stripped = et_path("prog.stripped");
	if (et_write("prog.c", prog_c) || et_sh("cc -O2 -g -o prog prog.c") ||
	    et_sh("cc -O2 -s -o prog.stripped prog.c"))
		return -1;
	dso_cache_init(&cache);
	return 0;
}

static int teardown(void **state)
{
	dso_cache_free(&cache);
	srcline_cache_free();
	annot_sources_free();
	et_rmdir();
	free(prog);
	free(stripped);
	return 0;
}

/* addr2line's "file:line" (base name) of addr, or NULL. */
static char *a2l(const char *file, uint64_t addr)
{
	return et_out("addr2line -e '%s' 0x%" PRIx64 " | sed 's|.*/||'", file, addr);
}

static void test_lines_match_addr2line(void **state)
{
	struct dso *d = dso_cache_get(&cache, prog, NULL, 0);
	uint64_t hot = et_nm(prog, "hot");
	assert_true(hot != 0);
	int checked = 0;
	/* Every byte of the function's first 48: lperf's line equals addr2line's. */
	for (uint64_t a = hot; a < hot + 48; a++) {
		char *want = a2l(prog, a);
		const char *file;
		unsigned line;
		bool ok = srcline_find(d, a, &file, &line);
		if (want && strcmp(want, "??:0") && strcmp(want, "??:?")) {
			assert_true(ok);
			char got[256];
			const char *b = strrchr(file, '/');
			snprintf(got, sizeof(got), "%s:%u", b ? b + 1 : file, line);
			/* addr2line appends " (discriminator N)" sometimes */
			assert_int_equal(strncmp(got, want, strlen(got)), 0);
			checked++;
		}
		free(want);
	}
	assert_true(checked > 0);
	/* perf's spellings */
	const struct symbol *sym = dso_find_symbol(d, hot);
	assert_non_null(sym);
	assert_string_equal(srcline_file_string(d, hot), "prog.c");
	assert_non_null(strstr(srcline_string(d, sym, hot), "prog.c:"));
	/* Interned: equal strings are equal pointers. */
	assert_ptr_equal(srcline_string(d, sym, hot), srcline_string(d, sym, hot));
}

/* A file without DWARF (built without -g: another build-id; a stripped copy of prog would share
 * prog's build-id and so, rightly, its line table). */
static void test_no_dwarf_spellings(void **state)
{
	struct dso *d = dso_cache_get(&cache, stripped, NULL, 0);
	uint64_t main_addr = et_nm(prog, "main");
	const char *file;
	unsigned line;
	assert_false(srcline_find(d, main_addr, &file, &line));
	assert_non_null(srcline_note(d));
	struct symbol s = { main_addr - 4, 16, (char *)"fake", NULL };
	assert_string_equal(srcline_string(d, &s, main_addr), "fake+4");
	char want[64];
	snprintf(want, sizeof(want), "prog.stripped[%" PRIx64 "]", main_addr);
	assert_string_equal(srcline_string(d, NULL, main_addr), want);
	assert_string_equal(srcline_file_string(d, main_addr), "");
	assert_string_equal(srcline_string(NULL, NULL, 0), "??:0");
}

/* The first address in hot whose addr2line -i chain has two functions: mix inlined into hot. */
static uint64_t first_inlined(void)
{
	uint64_t hot = et_nm(prog, "hot");
	uint64_t found = 0;
	for (uint64_t a = hot; a < hot + 96 && !found; a++) {
		char *n = et_out("addr2line -i -f -e prog 0x%" PRIx64 " | sed -n 3p", a);
		if (n && !strcmp(n, "hot"))
			found = a;
		free(n);
	}
	assert_true(found != 0);
	return found;
}

static void test_inline_chain(void **state)
{
	struct dso *d = dso_cache_get(&cache, prog, NULL, 0);
	uint64_t found = first_inlined();
	const struct srcline_inline *v;
	size_t n = srcline_inlines(d, found, &v);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].func, "mix");
	assert_string_equal(v[1].func, "hot");
	char *l1 = et_out("addr2line -i -e prog 0x%" PRIx64 " | sed -n 2p | sed 's|.*:||;s| .*||'", found);
	assert_non_null(l1);
	assert_int_equal(v[1].line, (unsigned)atoi(l1));
	free(l1);
	/* As frames: the inlined level is a symbol of its own, the outer one the ELF symbol. */
	const struct symbol *base = dso_find_symbol(d, found);
	const struct symbol *syms[4];
	bool inl[4];
	const char *lines[4];
	assert_int_equal(srcline_inline_frames(d, base, found, syms, inl, lines, 4), 2);
	assert_non_null(strstr(lines[1], "prog.c:"));
	assert_true(inl[0]);
	assert_false(inl[1]);
	assert_ptr_equal(syms[1], base);
	assert_string_equal(syms[0]->name, "mix");
	const struct symbol *again[4];
	srcline_inline_frames(d, base, found, again, inl, NULL, 4);
	assert_ptr_equal(again[0], syms[0]);
}

/* A chain asked for without its lines (a call-graph report's frames) looks no line up; its
 * lines, asked for after, are addr2line's as when asked for first. */
static void test_chain_then_lines(void **state)
{
	srcline_cache_free();
	struct dso *d = dso_cache_get(&cache, prog, NULL, 0);
	uint64_t found = first_inlined();
	const struct symbol *base = dso_find_symbol(d, found);
	const struct symbol *syms[4];
	bool inl[4];
	const char *lines[4] = { NULL, NULL, NULL, NULL };
	assert_int_equal(srcline_inline_frames(d, base, found, syms, inl, NULL, 4), 2);
	assert_string_equal(syms[0]->name, "mix");
	assert_int_equal(srcline_inline_frames(d, base, found, syms, inl, lines, 4), 2);
	char *want = et_out("addr2line -i -e prog 0x%" PRIx64 " | sed 's|.*/||;s| .*||' | paste -sd,", found);
	assert_non_null(want);
	char got[256];
	snprintf(got, sizeof(got), "%s,%s", lines[0], lines[1]);
	assert_string_equal(got, want);
	free(want);
	const struct srcline_inline *v;
	assert_int_equal(srcline_inlines(d, found, &v), 2);
	assert_non_null(v[0].file);
	assert_non_null(v[1].file);
}

/* Annotation: instruction boundaries as objdump's, hits placed at their instruction, a hit in
 * the middle of an instruction counted apart, lines summed. */
static void test_annotate_function(void **state)
{
	struct dso *d = dso_cache_get(&cache, prog, NULL, 0);
	uint64_t hot = et_nm(prog, "hot");
	const struct symbol *sym = dso_find_symbol(d, hot);
	assert_non_null(sym);
	struct annot a;
	annot_init(&a);
	struct annot_func *f = xcalloc(1, sizeof(*f));
	f->dso = d;
	f->sym = sym;
	char *second = et_out("objdump -d --start-address=0x%" PRIx64 " prog | awk '/^ +[0-9a-f]+:/ "
			      "{ n++; if (n == 2) { sub(\":\", \"\", $1); print $1; exit } }'", hot);
	assert_non_null(second);
	uint64_t a2 = strtoull(second, NULL, 16);
	free(second);
	f->hits = xcalloc(3, sizeof(*f->hits));
	f->hits[0] = (struct annot_hit){ a2, 3, 30 };
	f->hits[1] = (struct annot_hit){ hot, 1, 10 };
	f->hits[2] = (struct annot_hit){ a2 + 1, 1, 10 }; /* inside an instruction (or the next) */
	f->nhits = f->hcap = 3;
	f->samples = 5;
	f->period = 50;
	assert_int_equal(annot_func_disassemble(&a, f), 0);
	assert_true(f->ninsns > 3);
	assert_int_equal(f->insns[0].addr, hot);
	assert_int_equal(f->insns[1].addr, a2);
	assert_int_equal(f->insns[0].samples, 1);
	assert_int_equal(f->insns[1].samples, 3);
	uint64_t total = f->unplaced, lines = 0;
	bool target = false, inlined = false;
	for (size_t i = 0; i < f->ninsns; i++) {
		total += f->insns[i].samples;
		target |= f->insns[i].is_target;
		inlined |= f->insns[i].inlined && !strcmp(f->insns[i].inlined, "mix");
		assert_true(i == 0 || f->insns[i].addr == f->insns[i - 1].addr + f->insns[i - 1].size);
	}
	for (size_t i = 0; i < f->nlines; i++)
		lines += f->lines[i].samples;
	assert_int_equal(total, 5);
	assert_int_equal(lines + f->unplaced, 5);
	assert_true(target);
	assert_true(inlined);
	assert_true(f->nlines > 1 && f->lines[0].samples >= f->lines[1].samples);
	/* Source text comes from the file. */
	size_t len;
	char *src = et_path("prog.c");
	const char *t = annot_source_line(src, 9, &len);
	free(src);
	assert_non_null(t);
	assert_int_equal(len, 1);
	assert_memory_equal(t, "{", 1);
	ALLOC_GROW(a.v, 1, a.cap);
	a.v[a.n++] = f;
	annot_free(&a);
}

static void test_annotate_mismatch(void **state)
{
	struct dso *d = dso_cache_get(&cache, prog, NULL, 0);
	const struct symbol *sym = dso_find_symbol(d, et_nm(prog, "hot"));
	struct annot a;
	annot_init(&a);
	struct annot_func *f = xcalloc(1, sizeof(*f));
	f->dso = d;
	f->sym = sym;
	d->mismatch = true;
	assert_int_equal(annot_func_disassemble(&a, f), -1);
	d->mismatch = false;
	assert_non_null(strstr(f->note, "build-id"));
	assert_int_equal(f->ninsns, 0);
	ALLOC_GROW(a.v, 1, a.cap);
	a.v[a.n++] = f;
	annot_free(&a);
}

/* AArch64: a file built by the cross compiler (skipped without one) disassembles with capstone's
 * ARM64 mode: 4-byte instructions at objdump's addresses, branch targets inside the function,
 * and lines from its DWARF as its addr2line says. */
static void test_annotate_aarch64(void **state)
{
	if (et_sh("command -v aarch64-linux-gnu-gcc >/dev/null && command -v aarch64-linux-gnu-objdump >/dev/null"))
		skip();
	if (et_sh("aarch64-linux-gnu-gcc -O2 -g -nostdlib -static -Wl,-e,hot -o arm prog.c"))
		skip();
	char *arm = et_path("arm");
	struct dso_cache c;
	dso_cache_init(&c);
	struct dso *d = dso_cache_get(&c, arm, NULL, 0);
	char *hs = et_out("aarch64-linux-gnu-nm arm | awk '$3 == \"hot\" { print $1 }'");
	assert_non_null(hs);
	uint64_t hot = strtoull(hs, NULL, 16);
	free(hs);
	const struct symbol *sym = dso_find_symbol(d, hot);
	assert_non_null(sym);
	struct annot a;
	annot_init(&a);
	struct annot_func *f = xcalloc(1, sizeof(*f));
	f->dso = d;
	f->sym = sym;
	assert_int_equal(annot_func_disassemble(&a, f), 0);
	char *n = et_out("aarch64-linux-gnu-objdump -d --start-address=0x%" PRIx64 " --stop-address=0x%" PRIx64
			 " arm | grep -c '^ *[0-9a-f]*:'", hot, hot + sym->size);
	assert_non_null(n);
	assert_int_equal(f->ninsns, (size_t)atoi(n));
	free(n);
	bool target = false;
	for (size_t i = 0; i < f->ninsns; i++) {
		assert_int_equal(f->insns[i].size, 4);
		assert_int_equal(f->insns[i].addr, hot + 4 * i);
		target |= f->insns[i].has_target && f->insns[i].target_inside;
	}
	assert_true(target);
	char *want = et_out("aarch64-linux-gnu-addr2line -e arm 0x%" PRIx64 " | sed 's|.*/||;s| .*||'", hot);
	assert_non_null(want);
	char got[64];
	assert_non_null(f->insns[0].file);
	snprintf(got, sizeof(got), "%s:%u", srcline_basename(f->insns[0].file), f->insns[0].line);
	assert_string_equal(got, want);
	free(want);
	ALLOC_GROW(a.v, 1, a.cap);
	a.v[a.n++] = f;
	annot_free(&a);
	dso_cache_free(&c);
	free(arm);
}

/* A program whose DWARF is in a separate debug file with zlib-compressed sections, as Debian's
 * -dbg packages ship them (symbols/srcline_split.h): its lines and inline chains are the ones
 * addr2line reads from the whole program, though the sections they never read are not
 * inflated. (Another source than prog's: the same code would share prog's build-id, and so
 * its entry.) */
/* Checks addr's line in d against addr2line's on the whole program; 1 when addr2line has one. */
static int line_as_addr2line(struct dso *d, const char *full, uint64_t a)
{
	char *want = a2l(full, a);
	int checked = want && strcmp(want, "??:0") && strcmp(want, "??:?");
	if (checked) {
		const char *file;
		unsigned line;
		assert_true(srcline_find(d, a, &file, &line));
		char got[256];
		snprintf(got, sizeof(got), "%s:%u", srcline_basename(file), line);
		assert_int_equal(strncmp(got, want, strlen(got)), 0);
	}
	free(want);
	return checked;
}

static void test_split_debug_file(void **state)
{
	if (et_write("split.c", prog_c) || et_sh("echo 'int split_marker = 3;' >> split.c") ||
	    et_sh("cc -O2 -g -o split.full split.c && cp split.full split") ||
	    et_sh("objcopy --only-keep-debug --compress-debug-sections=zlib split split.debug") ||
	    et_sh("objcopy --strip-debug --add-gnu-debuglink=split.debug split"))
		fail_msg("cannot build the split program");
	char *full = et_path("split.full"), *split = et_path("split"), *dbg = et_path("split.debug");
	/* The debug file has compressed sections to hide, and hiding leaves the rest. */
	int fd = open(dbg, O_RDONLY);
	assert_true(fd >= 0);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
	assert_non_null(e);
	assert_true(dwarfcap_hide_unread(e) > 0);
	size_t shstrndx;
	assert_int_equal(elf_getshdrstrndx(e, &shstrndx), 0);
	int kept = 0;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		assert_non_null(gelf_getshdr(scn, &sh));
		const char *name = elf_strptr(e, shstrndx, sh.sh_name);
		if (!strcmp(name, ".debug_loclists") || !strcmp(name, ".debug_frame") || !strcmp(name, ".debug_loc"))
			assert_int_equal(sh.sh_type, SHT_NOBITS);
		if (!strcmp(name, ".debug_info") || !strcmp(name, ".debug_line") || !strcmp(name, ".debug_abbrev"))
			kept += sh.sh_type == SHT_PROGBITS;
	}
	assert_int_equal(kept, 3);
	elf_end(e);
	close(fd);
	/* Every byte of hot's first 96: lines as addr2line's on the whole program, inline chains as
	 * its -i chains. */
	struct dso *d = dso_cache_get(&cache, split, NULL, 0);
	uint64_t hot = et_nm(full, "hot");
	assert_true(hot != 0);
	int lines = 0, chains = 0;
	for (uint64_t a = hot; a < hot + 96; a++) {
		lines += line_as_addr2line(d, full, a);
		char *fn = et_out("addr2line -i -f -e '%s' 0x%" PRIx64 " | sed -n 1p", full, a);
		char *outer = et_out("addr2line -i -f -e '%s' 0x%" PRIx64 " | sed -n 3p", full, a);
		const struct srcline_inline *v;
		size_t n = srcline_inlines(d, a, &v);
		if (outer && !strcmp(outer, "hot")) {
			assert_int_equal(n, 2);
			assert_string_equal(v[0].func, fn);
			assert_string_equal(v[1].func, "hot");
			chains++;
		}
		free(fn);
		free(outer);
	}
	assert_true(lines > 0);
	assert_true(chains > 0);
	/* Chains first (the file opened with its line tables left compressed), then lines: the file
	 * is opened again with them, and they are addr2line's. */
	srcline_cache_free();
	d = dso_cache_get(&cache, split, NULL, 0);
	lines = 0;
	for (uint64_t a = hot; a < hot + 96; a++) {
		const struct symbol *base = dso_find_symbol(d, a), *syms[8];
		bool inl[8];
		if (base)
			srcline_inline_frames(d, base, a, syms, inl, NULL, 8);
	}
	for (uint64_t a = hot; a < hot + 96; a++)
		lines += line_as_addr2line(d, full, a);
	assert_true(lines > 0);
	free(full);
	free(split);
	free(dbg);
}

/* The debug sections' bytes of elf as a checksum (to compare before and after a hand-back). */
static uint64_t debug_sum(Elf *e)
{
	size_t shstrndx;
	uint64_t sum = 0;
	assert_int_equal(elf_getshdrstrndx(e, &shstrndx), 0);
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		assert_non_null(gelf_getshdr(scn, &sh));
		Elf_Data *data = strncmp(elf_strptr(e, shstrndx, sh.sh_name), ".debug_", 7) ? NULL : elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < data->d_size; i++)
			sum = sum * 31 + ((const unsigned char *)data->d_buf)[i];
	}
	return sum;
}

/* Handing back a mapped file's DWARF pages keeps its bytes (they read back from the file), also
 * its inflated sections' and its section headers once written; an image in memory (or a private
 * copy) is never handed back. */
static void test_hand_back(void **state)
{
	const char *files[] = { "prog", "split.debug" };
	for (size_t k = 0; k < 2; k++) {
		char *path = et_path(files[k]);
		int fd = open(path, O_RDONLY);
		assert_true(fd >= 0);
		Elf *e = elf_begin(fd, ELF_C_READ_MMAP_PRIVATE, NULL);
		assert_non_null(e);
		if (k == 1)
			assert_true(dwarfcap_hide_unread(e) > 0); /* writes section headers */
		for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
			GElf_Shdr sh;
			if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS && (sh.sh_flags & SHF_COMPRESSED))
				assert_true(elf_compress(scn, 0, 0) >= 0);
		}
		uint64_t before = debug_sum(e);
		signed char st = 0;
		srcline_split_hand_back(e, &st);
		assert_int_equal(st, 1);
		assert_true(debug_sum(e) == before);
		srcline_split_hand_back(e, &st);
		assert_true(debug_sum(e) == before);
		/* The file read into page-aligned anonymous memory: its bytes would be lost. */
		size_t size;
		elf_rawfile(e, &size);
		elf_end(e);
		char *copy = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		assert_true(copy != MAP_FAILED);
		assert_int_equal(pread(fd, copy, size, 0), (ssize_t)size);
		close(fd);
		Elf *m = elf_memory(copy, size);
		assert_non_null(m);
		before = debug_sum(m);
		st = 0;
		srcline_split_hand_back(m, &st);
		assert_int_equal(st, -1);
		assert_true(debug_sum(m) == before);
		elf_end(m);
		munmap(copy, size);
		free(path);
	}
}

int main(void)
{
	(void)et_load_of;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_match_addr2line),
		cmocka_unit_test(test_no_dwarf_spellings),
		cmocka_unit_test(test_inline_chain),
		cmocka_unit_test(test_chain_then_lines),
		cmocka_unit_test(test_annotate_function),
		cmocka_unit_test(test_annotate_mismatch),
		cmocka_unit_test(test_annotate_aarch64),
		cmocka_unit_test(test_split_debug_file),
		cmocka_unit_test(test_hand_back),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

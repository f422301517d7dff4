/* jitelf: the jitted-PID-INDEX.so files perf inject --jit writes. Each file is read back with
 * libelf and checked by binutils (readelf -a, objdump -d, readelf --debug-dump=frames): the
 * code at .text 0x80, one symbol covering it, the build-id note, and unwinding data whose
 * header finds the FDE and whose FDE covers .text, in both orders the data comes in. */
#include <byteswap.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "jitelf_test.h"
#include "symbols/elf.h"
#include "symbols/jitdump.h"
#include "symbols/jitelf.h"
#include "util/error.h"
#include "util/xalloc.h"

static char tmpdir[] = "/tmp/lperf-jitelf-XXXXXX";

static int setup(void **state)
{
	assert_non_null(mkdtemp(tmpdir));
	return 0;
}

static int teardown(void **state)
{
	char *cmd = xasprintf("rm -rf '%s'", tmpdir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	return 0;
}

static int32_t s32(const uint8_t *p)
{
	int32_t v;
	memcpy(&v, p, 4);
	return v;
}

static uint32_t u32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static uint8_t *fixture(const char *name, size_t *len)
{
	const char *dir = getenv("FIXTURES");
	char *path = xasprintf("%s/jit/%s", dir && *dir ? dir : "tests/fixtures", name);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	uint8_t *buf = xmalloc(1 << 16);
	*len = fread(buf, 1, 1 << 16, f);
	fclose(f);
	free(path);
	return buf;
}

/* ---- Synthetic dumps ---- */

/* One trampoline, with unwinding data in either order or none. */
static struct jitdump *synthetic_dump(bool with_unwind, bool hdr_first, const char *name)
{
	struct jt_buf w = { 0 };
	jt_header(&w, 4242);
	if (with_unwind)
		jt_unwind(&w, 100, hdr_first);
	jt_load(&w, 200, 4242, 0x7f0000001000ull, 7, name);
	struct jitdump *jd = jitdump_parse(w.b, w.len);
	free(w.b);
	assert_non_null(jd);
	assert_null(jd->error);
	assert_int_equal(jd->ncodes, 1);
	if (with_unwind) {
		assert_non_null(jd->codes[0]->unwind);
		assert_int_equal(jd->codes[0]->unwind->hdr_first, hdr_first);
	}
	return jd;
}

/* ---- Reading the file back ---- */

struct scn_info {
	GElf_Shdr sh;
	Elf_Data *d;
	size_t index;
	bool found;
};

static void find_section(Elf *e, const char *want, struct scn_info *out)
{
	size_t shstrndx;
	assert_int_equal(elf_getshdrstrndx(e, &shstrndx), 0);
	memset(out, 0, sizeof(*out));
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(e, scn));) {
		GElf_Shdr sh;
		assert_non_null(gelf_getshdr(scn, &sh));
		const char *name = elf_strptr(e, shstrndx, sh.sh_name);
		assert_non_null(name);
		if (!strcmp(name, want)) {
			assert_false(out->found);
			out->sh = sh;
			out->d = elf_getdata(scn, NULL);
			out->index = elf_ndxscn(scn);
			out->found = true;
		}
	}
}

/* Runs cmd (its output to file out); returns the exit status. */
static int run(const char *cmd, const char *out)
{
	char *full = xasprintf("%s >'%s' 2>'%s.err'", cmd, out, out);
	int st = system(full);
	free(full);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char *buf = xcalloc(1, 1 << 20);
	size_t n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static bool empty_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && st.st_size == 0;
}

/* readelf -a -W of path, which must say nothing on stderr and succeed. */
static char *readelf_clean(const char *path)
{
	char *out = xasprintf("%s.txt", path), *err = xasprintf("%s.txt.err", path);
	char *cmd = xasprintf("readelf -a -W '%s'", path);
	assert_int_equal(run(cmd, out), 0);
	assert_true(empty_file(err));
	char *text = slurp(out);
	free(cmd);
	free(out);
	free(err);
	return text;
}

/* The FDE that the header's table names for the code's start: it covers .text from 0x80. */
static void check_unwind(Elf *e, const struct jitdump_code *c)
{
	struct scn_info eh, hdr, text;
	find_section(e, ".eh_frame", &eh);
	find_section(e, ".eh_frame_hdr", &hdr);
	find_section(e, ".text", &text);
	assert_true(eh.found && hdr.found);
	const struct jitdump_unwind *u = c->unwind;
	assert_int_equal(eh.sh.sh_offset, eh.sh.sh_addr);
	assert_int_equal(hdr.sh.sh_offset, hdr.sh.sh_addr);
	assert_int_equal(eh.sh.sh_size, u->eh_frame_size);
	assert_int_equal(hdr.sh.sh_size, u->eh_frame_hdr_size);
	assert_memory_equal(eh.d->d_buf, u->eh_frame, u->eh_frame_size);
	assert_memory_equal(hdr.d->d_buf, u->eh_frame_hdr, u->eh_frame_hdr_size);
	/* Both after the code, where the written order put them. */
	uint64_t base = (JITELF_TEXT_OFFSET + c->size + 7) & ~7ull;
	assert_int_equal(u->hdr_first ? hdr.sh.sh_addr : eh.sh.sh_addr, base);

	const uint8_t *h = hdr.d->d_buf;
	uint64_t ha = hdr.sh.sh_addr, ea = eh.sh.sh_addr;
	assert_int_equal(h[0], 1);                   /* version */
	assert_int_equal(h[1], 0x1b);                /* eh_frame_ptr: pcrel sdata4 */
	assert_int_equal(h[2], 0x03);                /* fde_count: udata4 */
	assert_int_equal(h[3], 0x3b);                /* table: datarel sdata4 */
	if (!u->eh_frame_size) {
		/* V8: a header alone, with no FDEs. */
		assert_int_equal(u32(h + 8), 0);
		return;
	}
	assert_int_equal(ha + 4 + (uint64_t)(int64_t)s32(h + 4), ea);
	assert_true(u32(h + 8) >= 1);
	uint64_t loc = ha + (uint64_t)(int64_t)s32(h + 12), fde = ha + (uint64_t)(int64_t)s32(h + 16);
	assert_int_equal(loc, text.sh.sh_addr);
	/* The FDE: inside .eh_frame, a CIE pointer (not a CIE), pc_begin (pcrel sdata4, as the
	 * CIE's 'zR' 0x1b says) at .text, its range the code's size. */
	assert_true(fde >= ea && fde + 16 <= ea + eh.sh.sh_size);
	const uint8_t *f = (const uint8_t *)eh.d->d_buf + (fde - ea);
	assert_true(u32(f + 4) != 0);
	assert_int_equal(fde + 8 + (uint64_t)(int64_t)s32(f + 8), text.sh.sh_addr);
	assert_int_equal(u32(f + 12), c->size);
}

static void check_file(const char *path, const struct jitdump_code *c, const uint8_t *id)
{
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	elf_version(EV_CURRENT);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	assert_int_equal(elf_kind(e), ELF_K_ELF);
	GElf_Ehdr eh;
	assert_non_null(gelf_getehdr(e, &eh));
	assert_int_equal(eh.e_type, ET_DYN);
#ifdef __x86_64__
	assert_int_equal(eh.e_machine, EM_X86_64);
#endif
	assert_int_equal(eh.e_entry, JITELF_TEXT_OFFSET);
	size_t nph;
	assert_int_equal(elf_getphdrnum(e, &nph), 0);
	assert_int_equal(nph, 1);
	GElf_Phdr ph;
	assert_non_null(gelf_getphdr(e, 0, &ph));
	assert_int_equal(ph.p_type, PT_LOAD);
	assert_int_equal(ph.p_flags, PF_R | PF_X);
	assert_int_equal(ph.p_offset, JITELF_TEXT_OFFSET);
	assert_int_equal(ph.p_vaddr, JITELF_TEXT_OFFSET);
	assert_true(ph.p_filesz >= c->size);

	struct scn_info text, symtab, strtab, note;
	find_section(e, ".text", &text);
	assert_true(text.found);
	assert_int_equal(text.index, 1); /* as perf's */
	assert_int_equal(text.sh.sh_addr, JITELF_TEXT_OFFSET);
	assert_int_equal(text.sh.sh_offset, JITELF_TEXT_OFFSET);
	assert_int_equal(text.sh.sh_size, c->size);
	assert_true(text.sh.sh_flags & SHF_EXECINSTR);
	assert_memory_equal(text.d->d_buf, c->code, c->size);

	find_section(e, ".symtab", &symtab);
	find_section(e, ".strtab", &strtab);
	assert_true(symtab.found && strtab.found);
	assert_int_equal(symtab.sh.sh_link, strtab.index);
	assert_int_equal(symtab.sh.sh_info, 2);
	assert_int_equal(symtab.sh.sh_size / symtab.sh.sh_entsize, 2);
	GElf_Sym sym;
	assert_non_null(gelf_getsym(symtab.d, 1, &sym));
	assert_string_equal(elf_strptr(e, strtab.index, sym.st_name), c->name);
	assert_int_equal(GELF_ST_TYPE(sym.st_info), STT_FUNC);
	assert_int_equal(sym.st_shndx, text.index);
	assert_int_equal(sym.st_value, JITELF_TEXT_OFFSET);
	assert_int_equal(sym.st_size, c->size);

	find_section(e, ".note.gnu.build-id", &note);
	assert_true(note.found);
	GElf_Nhdr nh;
	size_t name_off, desc_off;
	assert_true(gelf_getnote(note.d, 0, &nh, &name_off, &desc_off) > 0);
	assert_int_equal(nh.n_type, NT_GNU_BUILD_ID);
	assert_int_equal(nh.n_descsz, JITELF_BUILD_ID_SIZE);
	assert_string_equal((const char *)note.d->d_buf + name_off, "GNU");
	assert_memory_equal((const uint8_t *)note.d->d_buf + desc_off, id, JITELF_BUILD_ID_SIZE);

	struct scn_info ehf;
	find_section(e, ".eh_frame", &ehf);
	assert_int_equal(ehf.found, c->unwind != NULL);
	if (c->unwind)
		check_unwind(e, c);
	elf_end(e);
	close(fd);

	/* binutils agree: no errors, no warnings. */
	char *out = xasprintf("%s.txt", path), *err = xasprintf("%s.txt.err", path);
	char *text_out = readelf_clean(path);
	assert_non_null(strstr(text_out, "DYN"));
	assert_non_null(strstr(text_out, c->name));
	free(text_out);
	char *cmd = xasprintf("objdump -d '%s'", path);
	assert_int_equal(run(cmd, out), 0);
	assert_true(empty_file(err));
	text_out = slurp(out);
	char *label = xasprintf("<%s>:", c->name);
	assert_non_null(strstr(text_out, label));
#ifdef __x86_64__
	if (c->size == sizeof(jt_trampoline) && !memcmp(c->code, jt_trampoline, sizeof(jt_trampoline)))
		assert_non_null(strstr(text_out, "call   *%rcx"));
#endif
	free(label);
	free(text_out);
	free(cmd);
	if (c->unwind && c->unwind->eh_frame_size) {
		cmd = xasprintf("readelf --debug-dump=frames '%s'", path);
		assert_int_equal(run(cmd, out), 0);
		assert_true(empty_file(err));
		text_out = slurp(out);
		char *want = xasprintf("pc=%016llx..%016llx", (unsigned long long)JITELF_TEXT_OFFSET,
				       (unsigned long long)(JITELF_TEXT_OFFSET + c->size));
		assert_non_null(strstr(text_out, want));
		free(want);
		free(text_out);
		free(cmd);
	}
	free(out);
	free(err);
}

static void write_and_check(const struct jitdump_code *c, const char *file)
{
	uint8_t id[JITELF_BUILD_ID_SIZE];
	jitelf_build_id(4242, c, id);
	char *path = xasprintf("%s/%s", tmpdir, file);
	struct stat st;
	assert_int_equal(jitelf_write_file(path, c, id, &st), 0);
	struct stat now;
	assert_int_equal(stat(path, &now), 0);
	assert_int_equal(now.st_ino, st.st_ino);
	assert_int_equal(now.st_mode & 0777, 0644);
	check_file(path, c, id);
	free(path);
}

/* ---- Tests ---- */

static void without_unwind(void **state)
{
	struct jitdump *jd = synthetic_dump(false, false, "py::plain:/tmp/x.py");
	const struct jitdump_code *c = jd->codes[0];
	assert_int_equal(jitelf_map_len(c), sizeof(jt_trampoline));
	write_and_check(c, "jitted-4242-7.so");
	jitdump_free(jd);
}

static void spec_order(void **state)
{
	struct jitdump *jd = synthetic_dump(true, true, "py::spec:/tmp/x.py");
	const struct jitdump_code *c = jd->codes[0];
	/* perf's length: the code rounded to 8, then the mapped unwinding data. */
	assert_int_equal(jitelf_map_len(c), 16 + 80);
	write_and_check(c, "jitted-4242-8.so");
	jitdump_free(jd);
}

static void genelf_order(void **state)
{
	struct jitdump *jd = synthetic_dump(true, false, "py::genelf:/tmp/x.py");
	write_and_check(jd->codes[0], "jitted-4242-9.so");
	jitdump_free(jd);
}

/* Real dumps: CPython 3.13.0 (.eh_frame before the header) and Node.js 20. */
static void real_dumps(void **state)
{
	const char *names[] = { "cpython313.dump", "node20.dump" };
	for (size_t k = 0; k < 2; k++) {
		size_t len;
		uint8_t *buf = fixture(names[k], &len);
		struct jitdump *jd = jitdump_parse(buf, len);
		assert_non_null(jd);
		size_t with_unwind = 0, with_fde = 0;
		for (size_t i = 0; i < jd->ncodes; i++) {
			const struct jitdump_code *c = jd->codes[i];
			char *file = xasprintf("jitted-%zu-%zu.so", k, i);
			write_and_check(c, file);
			free(file);
			with_unwind += c->unwind != NULL;
			with_fde += c->unwind && c->unwind->eh_frame_size;
			if (c->unwind && k == 0)
				assert_int_equal(jitelf_map_len(c), 0x60); /* perf's [...(0x60) @ 0x80] */
		}
		assert_true(with_unwind > 0);
		assert_true(k == 1 || with_fde == jd->ncodes); /* every CPython trampoline has an FDE */
		jitdump_free(jd);
		free(buf);
	}
}

static void build_ids(void **state)
{
	struct jitdump *jd = synthetic_dump(false, false, "py::f:/tmp/x.py");
	const struct jitdump_code *c = jd->codes[0];
	uint8_t a[20], b[20], d[20];
	jitelf_build_id(1, c, a);
	jitelf_build_id(1, c, b);
	assert_memory_equal(a, b, 20);        /* deterministic */
	jitelf_build_id(2, c, d);
	assert_memory_not_equal(a, d, 20);    /* identical code in another process */
	struct jitdump_code other = *c;
	other.index++;
	jitelf_build_id(1, &other, d);
	assert_memory_not_equal(a, d, 20);
	uint8_t code[sizeof(jt_trampoline)];
	memcpy(code, jt_trampoline, sizeof(code));
	code[3] ^= 1;
	other = *c;
	other.code = code;
	jitelf_build_id(1, &other, d);
	assert_memory_not_equal(a, d, 20);
	jitdump_free(jd);
}

/* A symbolic link planted at the target is replaced, not followed. */
static void replaces_symlinks(void **state)
{
	struct jitdump *jd = synthetic_dump(false, false, "py::f:/tmp/x.py");
	char *victim = xasprintf("%s/victim", tmpdir), *path = xasprintf("%s/jitted-99-1.so", tmpdir);
	FILE *f = fopen(victim, "w");
	assert_non_null(f);
	fputs("keep", f);
	fclose(f);
	assert_int_equal(symlink(victim, path), 0);
	uint8_t id[20] = { 0 };
	struct stat st;
	assert_int_equal(jitelf_write_file(path, jd->codes[0], id, &st), 0);
	struct stat l;
	assert_int_equal(lstat(path, &l), 0);
	assert_true(S_ISREG(l.st_mode));
	char *text = slurp(victim);
	assert_string_equal(text, "keep");
	free(text);
	/* An unwritable directory is an error naming the file. */
	assert_int_equal(jitelf_write_file("/nonexistent-dir/jitted-1-1.so", jd->codes[0], id, &st), -1);
	assert_non_null(strstr(err_msg(), "/nonexistent-dir/jitted-1-1.so"));
	free(victim);
	free(path);
	jitdump_free(jd);
}

/* inject --python's file: several symbols over zeros, each at its offset with its size, local
 * FUNCs (sh_info past the last), readable by binutils. */
static void many_symbols(void **state)
{
	struct jitelf_sym syms[] = {
		{ "py::a:/tmp/x.py", 0, 16, 0 },
		{ "py::<module>:/tmp/x.py", 16, 16, 0 },
		{ "py::_find_and_load:<frozen importlib._bootstrap>", 32, 16, 0 },
	};
	uint8_t id[JITELF_BUILD_ID_SIZE];
	memset(id, 0x5a, sizeof(id));
	char *path = xasprintf("%s/out.data.python.so", tmpdir);
	struct stat st;
	assert_int_equal(jitelf_write_syms_file(path, 48, syms, 3, id, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	assert_non_null(e);
	struct scn_info text, symtab, note;
	find_section(e, ".text", &text);
	assert_true(text.found);
	assert_int_equal(text.sh.sh_offset, JITELF_TEXT_OFFSET);
	assert_int_equal(text.sh.sh_addr, JITELF_TEXT_OFFSET);
	assert_int_equal(text.sh.sh_size, 48);
	find_section(e, ".symtab", &symtab);
	assert_true(symtab.found);
	assert_int_equal(symtab.sh.sh_info, 4);
	assert_int_equal(symtab.sh.sh_size / symtab.sh.sh_entsize, 4);
	for (int i = 0; i < 3; i++) {
		GElf_Sym sym;
		assert_non_null(gelf_getsym(symtab.d, i + 1, &sym));
		assert_string_equal(elf_strptr(e, symtab.sh.sh_link, sym.st_name), syms[i].name);
		assert_int_equal(sym.st_value, JITELF_TEXT_OFFSET + 16 * i);
		assert_int_equal(sym.st_size, 16);
		assert_int_equal(GELF_ST_TYPE(sym.st_info), STT_FUNC);
		assert_int_equal(GELF_ST_BIND(sym.st_info), STB_LOCAL);
		assert_int_equal(sym.st_shndx, text.index);
	}
	find_section(e, ".note.gnu.build-id", &note);
	assert_true(note.found);
	elf_end(e);
	close(fd);
	char *text_out = readelf_clean(path);
	assert_non_null(strstr(text_out, "py::_find_and_load:<frozen importlib._bootstrap>"));
	assert_non_null(strstr(text_out, "5a5a5a5a5a5a5a5a"));
	free(text_out);
	free(path);
}

/* A length in the dump that the data does not back is not believed. */
static void bogus_mapped_size(void **state)
{
	struct jitdump *jd = synthetic_dump(true, false, "py::f:/tmp/x.py");
	struct jitdump_code c = *jd->codes[0];
	struct jitdump_unwind u = *c.unwind;
	u.mapped_size = 1ull << 40;
	c.unwind = &u;
	assert_int_equal(jitelf_map_len(&c), 16 + 68);
	c.addr = UINT64_MAX - 4;
	u.mapped_size = 80;
	assert_int_equal(jitelf_map_len(&c), sizeof(jt_trampoline));
	jitdump_free(jd);
}

/* Code of no bytes and a name of 60000: still a file binutils read without complaint. */
static void odd_regions(void **state)
{
	struct jitdump *jd = synthetic_dump(false, false, "x");
	struct jitdump_code c = *jd->codes[0];
	char *name = xmalloc(60001);
	memset(name, 'n', 60000);
	name[60000] = 0;
	c.name = name;
	write_and_check(&c, "jitted-4242-100.so");
	c.name = "empty";
	c.size = 0;
	uint8_t id[20] = { 0 };
	struct stat st;
	char *path = xasprintf("%s/jitted-4242-101.so", tmpdir), *cmd = xasprintf("readelf -a -W '%s'", path);
	char *out = xasprintf("%s.txt", path), *err = xasprintf("%s.txt.err", path);
	assert_int_equal(jitelf_write_file(path, &c, id, &st), 0);
	assert_int_equal(run(cmd, out), 0);
	assert_true(empty_file(err));
	assert_int_equal(jitelf_map_len(&c), 0);
	free(out);
	free(err);
	free(cmd);
	free(path);
	free(name);
	jitdump_free(jd);
}

/* The memo of tiny files (symbols/elf.h): while it is on, a JIT file is read once by path and
 * its later readers get that version (their own copy); files over 4 KiB, junk and non-regular
 * files are read as before; the memo nests, and the last stop forgets everything. */
static void memo_of_tiny_files(void **state)
{
	struct jitdump *jd = synthetic_dump(true, false, "py::f:/tmp/x.py");
	const struct jitdump_code *c = jd->codes[0];
	char *path = xasprintf("%s/jitted-77-1.so", tmpdir), *junk = xasprintf("%s/jitted-77-2.so", tmpdir);
	char *big = xasprintf("%s/jitted-77-3.so", tmpdir);
	uint8_t a[20], b[20], got[20];
	jitelf_build_id(1, c, a);
	jitelf_build_id(2, c, b);
	struct stat st;
	assert_int_equal(jitelf_write_file(path, c, a, &st), 0);
	assert_true(st.st_size > 0 && st.st_size <= 4096);
	assert_int_equal(buildid_of_file(path, got), 20);
	assert_false(buildid_memo_has(path)); /* off: nothing kept */

	buildid_memo_start();
	assert_int_equal(buildid_of_file(path, got), 20);
	assert_memory_equal(got, a, 20);
	assert_true(buildid_memo_has(path));
	/* Rewritten during the walk: the walk keeps the version it read first. */
	assert_int_equal(jitelf_write_file(path, c, b, &st), 0);
	assert_int_equal(buildid_of_file(path, got), 20);
	assert_memory_equal(got, a, 20);
	/* Each reader's copy is its own: scribbling on one leaves the kept bytes. */
	void *img;
	Elf *e = buildid_memo_elf(path, &img);
	assert_non_null(e);
	assert_int_equal(buildid_of_elf(e, got), 20);
	assert_memory_equal(got, a, 20);
	elf_end(e);
	memset(img, 0xff, (size_t)st.st_size);
	free(img);
	assert_int_equal(buildid_of_file(path, got), 20);
	assert_memory_equal(got, a, 20);
	/* Junk of a few bytes: kept, and still no build-id, as without the memo. */
	FILE *f = fopen(junk, "wb");
	assert_non_null(f);
	fputs("\x7f" "ELF junk", f);
	fclose(f);
	assert_int_equal(buildid_of_file(junk, got), 0);
	assert_int_equal(buildid_of_file(junk, got), 0);
	/* Larger than 4 KiB, a directory, a missing file: never kept. */
	struct jitdump_code large = *c;
	char *name = xmalloc(8001);
	memset(name, 'n', 8000);
	name[8000] = 0;
	large.name = name;
	assert_int_equal(jitelf_write_file(big, &large, a, &st), 0);
	assert_true(st.st_size > 4096);
	assert_int_equal(buildid_of_file(big, got), 20);
	assert_false(buildid_memo_has(big));
	assert_int_equal(buildid_of_file(tmpdir, got), 0);
	assert_false(buildid_memo_has(tmpdir));
	assert_int_equal(buildid_of_file("/nonexistent/jitted-1-1.so", got), 0);
	assert_false(buildid_memo_has("/nonexistent/jitted-1-1.so"));
	assert_null(buildid_memo_elf("/nonexistent/jitted-1-1.so", &img));
	assert_null(img);

	buildid_memo_start(); /* nested: the inner stop keeps the memo */
	buildid_memo_stop();
	assert_true(buildid_memo_has(path));
	buildid_memo_stop();
	assert_false(buildid_memo_has(path));
	assert_int_equal(buildid_of_file(path, got), 20);
	assert_memory_equal(got, b, 20); /* the file as it is now */
	buildid_memo_stop(); /* one too many: harmless */
	assert_false(buildid_memo_has(path));
	unlink(path);
	unlink(junk);
	unlink(big);
	free(name);
	free(path);
	free(junk);
	free(big);
	jitdump_free(jd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(without_unwind),
		cmocka_unit_test(spec_order),
		cmocka_unit_test(genelf_order),
		cmocka_unit_test(real_dumps),
		cmocka_unit_test(build_ids),
		cmocka_unit_test(replaces_symlinks),
		cmocka_unit_test(bogus_mapped_size),
		cmocka_unit_test(many_symbols),
		cmocka_unit_test(odd_regions),
		cmocka_unit_test(memo_of_tiny_files),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

/* Symbols: ELF files built at test time (non-PIE, PIE, IBT PLT, stripped with debuglink and
 * build-id debug files, a shared library with a segment delta, C++ and Rust names, assembly
 * without sizes or types), checked against nm, readelf and objdump; kallsyms fixtures; the
 * running kernel's vDSO; malformed files. */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "elf_test.h"
#include "model/machine.h"
#include "resolve/resolve.h"
#include "symbols/buildid_cache.h"
#include "symbols/dso.h"
#include "symbols/demangle.h"
#include "symbols/elf.h"
#include "symbols/kallsyms.h"
#include "util/fileio.h"
#include "util/xalloc.h"

static const char prog_c[] =
	"#include <stdio.h>\n"
	"#include <string.h>\n"
	"#define KEEP __attribute__((noinline, noclone, used))\n"
	"int counter;\n"
	"KEEP int alpha(int x) { counter += x; return x * 2; }\n"
	"KEEP int beta(int x) { return alpha(x) + (int)strlen(\"abc\") + counter; }\n"
	"static KEEP int hidden_local(int x) { return beta(x) - 1; }\n"
	"KEEP int target(int x) { return hidden_local(x) + 5; }\n"
	"extern int zalias(int) __attribute__((alias(\"target\")));\n"
	"extern int wtarget(int) __attribute__((weak, alias(\"target\")));\n"
	"KEEP void rust_legacy(void) __asm__(\"_ZN7mycrate6module8function17h0123456789abcdefE\");\n"
	"void rust_legacy(void) { counter++; }\n"
	"KEEP void rust_v0(void) __asm__(\"_RNvCs15kBYyAo9fc_7mycrate4main\");\n"
	"void rust_v0(void) { counter += 2; }\n"
	"int main(int argc, char **argv) { puts(argv[0]); rust_legacy(); rust_v0();\n"
	"	printf(\"%d\\n\", target(argc)); return 0; }\n";

static const char lib_c[] =
	"int lib_counter;\n"
	"__attribute__((noinline)) int lib_fn(int x) { return x * 3 + lib_counter; }\n"
	"__attribute__((noinline)) int lib_fn2(int x) { return lib_fn(x) + 1; }\n";

static const char cxx_cc[] =
	"namespace ns { struct Widget { int spin(int n); }; }\n"
	"__attribute__((noinline)) int ns::Widget::spin(int n) { return n * 7; }\n"
	"template <typename T> __attribute__((noinline)) T twice(T x) { return x + x; }\n"
	"int main() { ns::Widget w; return w.spin(3) + twice<int>(2) + (int)twice<double>(1.5); }\n";

/* Sizes and types are what an assembly programmer forgets: zsz has none. */
static const char asm_sized_s[] =
	"	.text\n"
	"	.globl _start\n	.type _start,@function\n"
	"_start:\n	mov $60,%eax\n	xor %edi,%edi\n	syscall\n	.size _start, .-_start\n"
	"	.globl zsz\n	.type zsz,@function\n"
	"zsz:\n	nop\n	nop\n	nop\n	nop\n"
	"	.globl after\n	.type after,@function\n"
	"after:\n	ret\n	.size after, .-after\n";

/* Only untyped labels: all there is to name the code. */
static const char asm_labels_s[] =
	"	.text\n"
	"	.globl _start\n_start:\n	mov $60,%eax\n	xor %edi,%edi\n	syscall\n"
	"	.globl lab1\nlab1:\n	nop\n	nop\n"
	"	.globl lab2\nlab2:\n	ret\n";

static bool have_cxx;

static int setup(void **state)
{
	if (!et_mkdir())
		return -1;
	if (et_write("prog.c", prog_c) || et_write("lib.c", lib_c) || et_write("cxx.cc", cxx_cc) ||
	    et_write("asm1.s", asm_sized_s) || et_write("asm2.s", asm_labels_s))
		return -1;
	int r = et_sh("cc -O1 -g -fno-pie -no-pie -Wl,--build-id -o nopie prog.c && "
		      "cc -O1 -g -fPIE -pie -o pie prog.c && "
		      "cc -O1 -fcf-protection -Wl,-z,ibtplt -o ibt prog.c && "
		      "cc -O2 -g -o dl prog.c && objcopy --only-keep-debug dl dl.debug && strip --strip-all dl && "
		      "objcopy --add-gnu-debuglink=dl.debug dl && "
		      "cc -O2 -g -o dlsub prog.c && mkdir .debug && objcopy --only-keep-debug dlsub .debug/dlsub.debug && "
		      "strip --strip-all dlsub && cd .debug && objcopy --add-gnu-debuglink=dlsub.debug ../dlsub && cd .. && "
		      "cc -O2 -g -o badcrc prog.c && objcopy --only-keep-debug badcrc badcrc.debug && "
		      "strip --strip-all badcrc && objcopy --add-gnu-debuglink=badcrc.debug badcrc && "
		      "echo >> badcrc.debug && "
		      "cc -O2 -o stripped prog.c && strip --strip-all stripped && "
		      "cc -O1 -g -shared -fPIC -Wl,-Ttext-segment=0x100000 -o libdelta.so lib.c && "
		      "cc -nostdlib -static -no-pie -o asm1 asm1.s && cc -nostdlib -static -no-pie -o asm2 asm2.s");
	if (r != 0)
		return -1;
	/* A --symfs tree: a stripped /bin/bid whose debug file lives only under its build-id. */
	r = et_sh("mkdir -p root/bin && cc -O1 -g -o root/bin/bid prog.c && "
		  "id=$(readelf -n root/bin/bid | awk '/Build ID/ { print $3 }') && "
		  "d=root/usr/lib/debug/.build-id/$(echo $id | cut -c1-2) && mkdir -p $d && "
		  "objcopy --only-keep-debug root/bin/bid $d/$(echo $id | cut -c3-).debug && strip --strip-all root/bin/bid");
	if (r != 0)
		return -1;
	have_cxx = et_sh("g++ -O1 -o cxx cxx.cc") == 0;
	return 0;
}

static int teardown(void **state)
{
	et_rmdir();
	return 0;
}

/* A DSO for a file of the test directory, in a fresh cache. */
struct fixture {
	struct dso_cache c;
	struct dso *d;
	char *path;
};

static void open_dso(struct fixture *f, const char *name)
{
	dso_cache_init(&f->c);
	f->path = et_path(name);
	f->d = dso_cache_get(&f->c, f->path, NULL, 0);
	dso_load(f->d);
}

static void close_dso(struct fixture *f)
{
	dso_cache_free(&f->c);
	free(f->path);
}

static const char *name_at(struct dso *d, uint64_t addr)
{
	const struct symbol *s = dso_find_symbol(d, addr);
	return s ? s->name : "(none)";
}

static void expect_functions(const char *file)
{
	struct fixture f;
	open_dso(&f, file);
	assert_int_equal(f.d->kind, DSO_ELF);
	assert_null(dso_load_note(f.d));
	assert_true(f.d->nsyms > 5);
	const char *names[] = { "alpha", "beta", "hidden_local", "main" };
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		uint64_t a = et_nm(file, names[i]);
		assert_true(a != 0);
		assert_string_equal(name_at(f.d, a), names[i]);
		assert_string_equal(name_at(f.d, a + 1), names[i]);
		const struct symbol *s = dso_find_symbol(f.d, a);
		assert_true(s->size > 1);
		assert_string_equal(name_at(f.d, a + s->size - 1), names[i]);
	}
	/* Sorted, and no overlaps. */
	for (size_t i = 1; i < f.d->nsyms; i++)
		assert_true(f.d->syms[i - 1].start + f.d->syms[i - 1].size <= f.d->syms[i].start);
	close_dso(&f);
}

static void symbols_nopie(void **state) { expect_functions("nopie"); }
static void symbols_pie(void **state) { expect_functions("pie"); }

static void nopie_is_exec(void **state)
{
	struct fixture f;
	open_dso(&f, "nopie");
	assert_true(f.d->is_exec);
	assert_true(f.d->nloads >= 2);
	/* An ET_EXEC's offsets map to absolute addresses. */
	uint64_t a = et_nm("nopie", "alpha");
	struct et_load l;
	assert_int_equal(et_load_of("nopie", a, &l), 0);
	assert_int_equal(dso_offset_to_addr(f.d, l.offset + (a - l.vaddr)), a);
	close_dso(&f);
}

/* Aliases collapse to one name, the same one every time: global beats weak, then the name. */
static void aliases_collapse(void **state)
{
	struct fixture f;
	open_dso(&f, "nopie");
	uint64_t a = et_nm("nopie", "target");
	assert_int_equal(et_nm("nopie", "zalias"), a);
	assert_int_equal(et_nm("nopie", "wtarget"), a);
	assert_string_equal(name_at(f.d, a), "target");
	size_t at = 0;
	for (size_t i = 0; i < f.d->nsyms; i++)
		at += f.d->syms[i].start == a;
	assert_int_equal(at, 1);
	close_dso(&f);
}

static void rust_names(void **state)
{
	struct fixture f;
	open_dso(&f, "pie");
	assert_string_equal(name_at(f.d, et_nm("pie", "_ZN7mycrate6module8function17h0123456789abcdefE")),
			    "mycrate::module::function");
	assert_string_equal(name_at(f.d, et_nm("pie", "_RNvCs15kBYyAo9fc_7mycrate4main")), "mycrate::main");
	close_dso(&f);
}

static void cxx_names(void **state)
{
	if (!have_cxx)
		skip();
	struct fixture f;
	/* perf 6.1's default: no parameters or return types; -v: the full names. */
	open_dso(&f, "cxx");
	assert_string_equal(name_at(f.d, et_nm("cxx", "_ZN2ns6Widget4spinEi")), "ns::Widget::spin");
	assert_string_equal(name_at(f.d, et_nm("cxx", "_Z5twiceIiET_S0_")), "twice<int>");
	assert_string_equal(name_at(f.d, et_nm("cxx", "_Z5twiceIdET_S0_")), "twice<double>");
	close_dso(&f);
	symbol_demangle_params(true);
	open_dso(&f, "cxx");
	assert_string_equal(name_at(f.d, et_nm("cxx", "_ZN2ns6Widget4spinEi")), "ns::Widget::spin(int)");
	assert_string_equal(name_at(f.d, et_nm("cxx", "_Z5twiceIiET_S0_")), "int twice<int>(int)");
	assert_string_equal(name_at(f.d, et_nm("cxx", "_Z5twiceIdET_S0_")), "double twice<double>(double)");
	close_dso(&f);
	symbol_demangle_params(false);
}

static void demangle_strings(void **state)
{
	struct {
		const char *in, *out;
	} cases[] = {
		{ "_ZN3foo3barEi", "foo::bar(int)" },
		{ "_ZNSt6vectorIiSaIiEE9push_backERKi",
		  "std::vector<int, std::allocator<int> >::push_back(int const&)" },
		{ "_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write" },
		{ "_RNvCs15kBYyAo9fc_7mycrate4main", "mycrate::main" },
		{ "_Z3foov.cold", "foo() [clone .cold]" },
	};
	symbol_demangle_params(true);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *d = symbol_demangle(cases[i].in);
		assert_non_null(d);
		assert_string_equal(d, cases[i].out);
		free(d);
	}
	symbol_demangle_params(false);
	/* The default, as perf 6.1 without -v. */
	const char *short_names[] = { "foo::bar", "std::vector<int, std::allocator<int> >::push_back",
				      "core::fmt::write", "mycrate::main", "foo" };
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *d = symbol_demangle(cases[i].in);
		assert_non_null(d);
		assert_string_equal(d, short_names[i]);
		free(d);
	}
	const char *plain[] = { "main", "_start", "__libc_start_main", "_Zgarbage(", "_R", "", "_" };
	for (size_t i = 0; i < ARRAY_SIZE(plain); i++)
		assert_null(symbol_demangle(plain[i]));
	assert_null(symbol_demangle(NULL));
}

/* The PLT entry objdump names "puts@plt" is ours too. */
static void expect_plt(const char *file, const char *fn)
{
	char *s = et_out("objdump -d '%s' | awk '/<%s@plt>:/ { print $1; exit }'", file, fn);
	assert_non_null(s);
	uint64_t a = strtoull(s, NULL, 16);
	free(s);
	struct fixture f;
	open_dso(&f, file);
	char *want = xasprintf("%s@plt", fn);
	assert_string_equal(name_at(f.d, a), want);
	assert_string_equal(name_at(f.d, a + 5), want);
	free(want);
	close_dso(&f);
}

static void plt_entries(void **state)
{
	expect_plt("nopie", "puts");
	expect_plt("pie", "puts");
	expect_plt("pie", "printf");
	expect_plt("pie", "__cxa_finalize"); /* in .plt.got: called, and its address taken */
}

/* The PLT header (lazy binding's push and jump, before the first entry) has no symbol: crt's
 * _init, which has no size, runs up to the first entry across the section boundary, as perf
 * sizes it, so a sample there is _init for both tools. */
static void plt_header_is_init(void **state)
{
	char *s = et_out("readelf -SW pie | awk '$2 == \".plt\" { print $4; exit }'");
	assert_non_null(s);
	uint64_t plt = strtoull(s, NULL, 16);
	free(s);
	assert_true(plt > et_nm("pie", "_init"));
	struct fixture f;
	open_dso(&f, "pie");
	assert_string_equal(name_at(f.d, plt), "_init");
	assert_string_equal(name_at(f.d, plt + 6), "_init");
	const char *first = name_at(f.d, plt + 16); /* the first entry: puts@plt or printf@plt */
	assert_true(strlen(first) > 4 && !strcmp(first + strlen(first) - 4, "@plt"));
	close_dso(&f);
}

/* IBT binaries call through .plt.sec; .plt holds only the lazy-binding stubs. */
static void plt_sec_entries(void **state)
{
	char *sec = et_out("readelf -SW ibt | grep -c '\\.plt\\.sec'");
	bool has_sec = sec && atoi(sec) > 0;
	free(sec);
	if (!has_sec)
		skip();
	expect_plt("ibt", "puts");
	expect_plt("ibt", "printf");
}

static void hex(const uint8_t *id, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", id[i]);
	out[2 * n] = 0;
}

/* A small file is read whole into memory (buildid_elf_begin), a large one by libelf on demand:
 * the same program padded past the limit (64 KiB) gives the same build-id and symbols. */
static void small_and_large_files_read_alike(void **state)
{
	(void)state;
	char *p = et_path("pie");
	size_t len;
	char *img = file_read(p, 64u << 20, &len);
	assert_non_null(img);
	assert_true(len < (64u << 10));
	char *big = xasprintf("%s.padded", p);
	FILE *out = fopen(big, "wb");
	assert_non_null(out);
	assert_int_equal(fwrite(img, 1, len, out), len);
	for (size_t i = len; i < (80u << 10); i++)
		fputc(0, out);
	assert_int_equal(fclose(out), 0);
	uint8_t a[20], b[20];
	size_t na = buildid_of_file(p, a), nb = buildid_of_file(big, b);
	assert_true(na > 0);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na);
	struct dso_cache c;
	dso_cache_init(&c);
	struct dso *ds = dso_cache_get(&c, p, NULL, 0), *dl = dso_cache_get(&c, big, NULL, 0);
	dso_load(ds);
	dso_load(dl);
	assert_true(ds->nsyms > 5);
	assert_int_equal(ds->nsyms, dl->nsyms);
	for (size_t i = 0; i < ds->nsyms; i++) {
		assert_int_equal(ds->syms[i].start, dl->syms[i].start);
		assert_int_equal(ds->syms[i].size, dl->syms[i].size);
		assert_string_equal(ds->syms[i].name, dl->syms[i].name);
	}
	dso_cache_free(&c);
	unlink(big);
	free(big);
	free(img);
	free(p);
}

static void build_id_matches_readelf(void **state)
{
	const char *files[] = { "nopie", "pie", "libdelta.so", "dl" };
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *want = et_out("readelf -n '%s' | awk '/Build ID/ { print $3 }'", files[i]);
		assert_non_null(want);
		char *p = et_path(files[i]);
		uint8_t id[20];
		size_t n = buildid_of_file(p, id);
		char got[41];
		hex(id, n, got);
		assert_string_equal(got, want);
		free(want);
		free(p);
	}
	uint8_t id[20];
	assert_int_equal(buildid_of_file("/nonexistent/file", id), 0);
	assert_int_equal(buildid_of_file("/tmp", id), 0);
}

static void build_id_mismatch(void **state)
{
	char *empty = et_path("no-cache");
	buildid_cache_set_dir(empty);
	char *p = et_path("nopie");
	uint8_t real[20], fake[20];
	size_t n = buildid_of_file(p, real);
	assert_int_equal(n, 20);
	memcpy(fake, real, 20);
	fake[0] ^= 0xff;

	struct dso_cache c;
	dso_cache_init(&c);
	struct dso *bad = dso_cache_get(&c, p, fake, 20);
	struct dso *good = dso_cache_get(&c, p, real, 20);
	assert_ptr_not_equal(bad, good); /* two recordings, two versions of the path */
	assert_ptr_equal(dso_cache_get(&c, p, real, 20), good);
	dso_load(bad);
	assert_true(bad->mismatch);
	assert_int_equal(bad->nsyms, 0);
	assert_non_null(strstr(dso_load_note(bad), "the recording's is")); /* both ids named */
	assert_null(dso_find_symbol(bad, et_nm("nopie", "alpha")));
	dso_load(good);
	assert_false(good->mismatch);
	assert_string_equal(name_at(good, et_nm("nopie", "alpha")), "alpha");
	dso_cache_free(&c);
	free(p);
	buildid_cache_set_dir(NULL);
	free(empty);
}

/* A file rebuilt since recording is read from the build-id cache's copy of the recorded build;
 * with no copy it is not read at all. */
static void rebuilt_read_from_cache(void **state)
{
	char *cache = et_path("bcache"), *empty = et_path("no-cache");
	buildid_cache_set_dir(cache);
	assert_int_equal(et_sh("cp nopie rebuilt"), 0);
	char *p = et_path("rebuilt");
	uint8_t id[20];
	size_t n = 0;
	assert_int_equal(buildid_cache_add(p, NULL, 0, id, &n), 1);
	assert_int_equal(n, 20);
	uint64_t alpha = et_nm("nopie", "alpha");
	assert_int_equal(et_sh("cp pie rebuilt"), 0); /* another build at the path */

	struct dso_cache c;
	dso_cache_init(&c);
	struct dso *d = dso_cache_get(&c, p, id, n);
	dso_load(d);
	assert_false(d->mismatch);
	assert_non_null(d->cached);
	assert_ptr_equal(strstr(d->cached, cache), d->cached);
	assert_string_equal(name_at(d, alpha), "alpha");
	char *rp = dso_read_path(d);
	assert_string_equal(rp, d->cached);
	free(rp);
	dso_cache_free(&c);

	buildid_cache_set_dir(empty);
	dso_cache_init(&c);
	d = dso_cache_get(&c, p, id, n);
	dso_load(d);
	assert_true(d->mismatch);
	assert_null(d->cached);
	assert_int_equal(d->nsyms, 0);
	assert_non_null(strstr(dso_load_note(d), "has no copy"));
	dso_cache_free(&c);

	/* Another kernel's [vdso], cached under its build-id: read from the copy (an ELF file
	 * standing in for it here), and without the copy not at all. */
	buildid_cache_set_dir(cache);
	char idhex[41];
	hex(id, n, idhex);
	char *sh = xasprintf("mkdir -p 'bcache/[vdso]/%s' bcache/.build-id/%.2s && cp nopie 'bcache/[vdso]/%s/vdso' && "
			     "ln -s '../../[vdso]/%s' bcache/.build-id/%.2s/%s", idhex, idhex, idhex, idhex, idhex,
			     idhex + 2);
	assert_int_equal(et_sh(sh), 0);
	free(sh);
	dso_cache_init(&c);
	d = dso_cache_get(&c, "[vdso]", id, n);
	dso_load(d);
	assert_non_null(d->cached);
	assert_false(d->mismatch);
	assert_string_equal(name_at(d, alpha), "alpha");
	dso_cache_free(&c);
	buildid_cache_set_dir(empty);
	dso_cache_init(&c);
	d = dso_cache_get(&c, "[vdso]", id, n);
	dso_load(d);
	assert_null(d->cached);
	assert_true(d->mismatch || !d->nsyms);
	dso_cache_free(&c);

	buildid_cache_set_dir(NULL);
	free(p);
	free(cache);
	free(empty);
}

static void expect_debug(const char *file, const char *debug_suffix)
{
	struct fixture f;
	open_dso(&f, file);
	assert_null(dso_load_note(f.d));
	assert_non_null(f.d->debug_path);
	size_t n = strlen(f.d->debug_path), m = strlen(debug_suffix);
	assert_true(n >= m && !strcmp(f.d->debug_path + n - m, debug_suffix));
	/* The debug file's symbols, at addresses from the stripped file's own segments. */
	char *dbg = xasprintf("%s", f.d->debug_path);
	uint64_t a = et_nm(dbg, "hidden_local");
	assert_true(a != 0);
	assert_string_equal(name_at(f.d, a), "hidden_local");
	struct et_load l;
	assert_int_equal(et_load_of(file, a, &l), 0);
	assert_int_equal(dso_offset_to_addr(f.d, l.offset + (a - l.vaddr)), a);
	free(dbg);
	close_dso(&f);
}

static void debuglink_beside(void **state) { expect_debug("dl", "/dl.debug"); }
static void debuglink_subdir(void **state) { expect_debug("dlsub", "/.debug/dlsub.debug"); }

static void debuglink_bad_crc(void **state)
{
	struct fixture f;
	open_dso(&f, "badcrc");
	assert_null(f.d->debug_path);
	assert_non_null(dso_load_note(f.d));
	assert_non_null(strstr(dso_load_note(f.d), "stripped"));
	close_dso(&f);
}

static void stripped_has_dynamic_only(void **state)
{
	struct fixture f;
	open_dso(&f, "stripped");
	assert_non_null(dso_load_note(f.d));
	assert_non_null(strstr(dso_load_note(f.d), "only dynamic symbols"));
	assert_null(f.d->debug_path);
	/* Still the PLT. */
	bool plt = false;
	for (size_t i = 0; i < f.d->nsyms; i++)
		plt |= !strcmp(f.d->syms[i].name, "puts@plt");
	assert_true(plt);
	close_dso(&f);
}

static void build_id_debug_dir_under_symfs(void **state)
{
	char *root = et_path("root");
	struct dso_cache c;
	dso_cache_init(&c);
	dso_cache_set_root(&c, root);
	struct dso *d = dso_cache_get(&c, "/bin/bid", NULL, 0);
	dso_load(d);
	assert_null(dso_load_note(d));
	assert_non_null(d->debug_path);
	assert_non_null(strstr(d->debug_path, "/usr/lib/debug/.build-id/"));
	assert_int_equal(strncmp(d->debug_path, root, strlen(root)), 0);
	char *bin = xasprintf("%s", d->debug_path);
	assert_string_equal(name_at(d, et_nm(bin, "hidden_local")), "hidden_local");
	free(bin);
	dso_cache_free(&c);
	free(root);
}

static void zero_size_extends(void **state)
{
	struct fixture f;
	open_dso(&f, "asm1");
	uint64_t z = et_nm("asm1", "zsz"), after = et_nm("asm1", "after");
	assert_int_equal(after - z, 4);
	assert_string_equal(name_at(f.d, z), "zsz");
	assert_string_equal(name_at(f.d, z + 3), "zsz");
	assert_string_equal(name_at(f.d, after), "after");
	assert_string_equal(name_at(f.d, after + 1), "(none)"); /* after has size 1 */
	close_dso(&f);
}

static void untyped_labels_when_alone(void **state)
{
	struct fixture f;
	open_dso(&f, "asm2");
	uint64_t l1 = et_nm("asm2", "lab1"), l2 = et_nm("asm2", "lab2");
	assert_string_equal(name_at(f.d, et_nm("asm2", "_start") + 2), "_start");
	assert_string_equal(name_at(f.d, l1 + 1), "lab1");
	assert_string_equal(name_at(f.d, l2), "lab2");
	/* Linker markers past the end of .text are no code. */
	for (size_t i = 0; i < f.d->nsyms; i++)
		assert_string_not_equal(f.d->syms[i].name, "_end");
	close_dso(&f);
}

static void shared_lib_delta(void **state)
{
	struct fixture f;
	open_dso(&f, "libdelta.so");
	assert_false(f.d->is_exec);
	uint64_t a = et_nm("libdelta.so", "lib_fn2");
	struct et_load l;
	assert_int_equal(et_load_of("libdelta.so", a, &l), 0);
	assert_true(l.vaddr != l.offset);
	assert_int_equal(dso_offset_to_addr(f.d, l.offset + (a - l.vaddr)), a);
	assert_string_equal(name_at(f.d, a), "lib_fn2");
	close_dso(&f);
}

/* Through the machine: a process that mapped the file's segments at a base, as ld.so does. */
static void expect_resolve(const char *file, const char *symfile, const char *fn, uint64_t base)
{
	uint64_t a = et_nm(symfile, fn);
	struct et_load l;
	assert_int_equal(et_load_of(file, a, &l), 0);
	struct machine m;
	machine_init(&m);
	char *p = et_path(file);
	uint64_t start = base + (l.vaddr & ~0xfffull), pgoff = l.offset & ~0xfffull;
	machine_mmap(&m, 100, 100, start, (l.vaddr + l.filesz - (l.vaddr & ~0xfffull) + 0xfff) & ~0xfffull, pgoff, 5,
		     p, NULL, 0, false);
	struct thread *t = machine_thread(&m, 100, 100);
	struct addr_loc loc;
	assert_true(resolve_addr(&m, t, PERF_RECORD_MISC_USER, base + a + 2, 0, &loc));
	assert_non_null(loc.sym);
	assert_string_equal(loc.sym->name, fn);
	assert_int_equal(loc.addr, a + 2);
	assert_int_equal(loc.sym_off, 2);
	assert_false(loc.kernel);
	assert_ptr_equal(loc.dso->path, loc.dso->path);
	assert_string_equal(loc.dso->short_name, file);
	machine_free(&m);
	free(p);
}

static void resolve_through_machine(void **state)
{
	expect_resolve("nopie", "nopie", "beta", 0);
	expect_resolve("pie", "pie", "beta", 0x555555554000ull);
	expect_resolve("dl", "dl.debug", "hidden_local", 0x7f0000000000ull);
	expect_resolve("libdelta.so", "libdelta.so", "lib_fn", 0x7f1234500000ull);
}

static void malformed_files(void **state)
{
	char *src = et_path("nopie");
	size_t len;
	FILE *in = fopen(src, "rb");
	assert_non_null(in);
	fseek(in, 0, SEEK_END);
	len = (size_t)ftell(in);
	rewind(in);
	uint8_t *img = xmalloc(len);
	assert_int_equal(fread(img, 1, len, in), len);
	fclose(in);
	char *bad = et_path("bad");
	uint8_t *copy = xmalloc(len);
	uint32_t seed = 12345;
	/* Truncations at every interesting size, random bytes after an ELF magic, and copies of the
	 * binary with bytes flipped in its headers and tables. */
	size_t cuts[] = { 0, 3, 16, 63, 64, 100, 1000, 4096, len / 2, len - 100, len - 1 };
	for (size_t iter = 0; iter < ARRAY_SIZE(cuts) + 300; iter++) {
		size_t n = len;
		memcpy(copy, img, len);
		if (iter < ARRAY_SIZE(cuts)) {
			n = cuts[iter];
		} else if (iter < ARRAY_SIZE(cuts) + 20) {
			for (size_t i = 4; i < len; i++)
				copy[i] = (uint8_t)((seed = seed * 1103515245 + 12345) >> 16);
		} else {
			for (int k = 0; k < 16; k++) {
				seed = seed * 1103515245 + 12345;
				size_t at = (seed >> 8) % len;
				/* Mostly the ELF header, program and section headers. */
				if (k & 1)
					at = (seed >> 8) % 128;
				else if (k & 2)
					at = len - 1 - (seed >> 8) % 2048;
				copy[at] = (uint8_t)(seed >> 20);
			}
		}
		FILE *out = fopen(bad, "wb");
		assert_non_null(out);
		fwrite(copy, 1, n, out);
		fclose(out);
		struct dso_cache c;
		dso_cache_init(&c);
		struct dso *d = dso_cache_get(&c, bad, NULL, 0);
		dso_load(d);
		for (uint64_t a = 0x401000; a < 0x402000; a += 64)
			dso_find_symbol(d, a);
		dso_offset_to_addr(d, 0x1234);
		if (iter < 4)
			assert_non_null(dso_load_note(d));
		uint8_t id[20];
		buildid_of_file(bad, id);
		dso_cache_free(&c);
	}
	free(copy);
	free(img);
	free(bad);
	free(src);

	/* Not ELF, not files at all. */
	assert_int_equal(et_write("text", "#!/bin/sh\necho not an ELF file\n"), 0);
	char *text = et_path("text");
	const char *paths[] = { text, "/nonexistent/lib.so", "/tmp", "" };
	const char *notes[] = { "not an ELF file", "cannot open", "not a regular file", NULL };
	for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
		struct dso_cache c;
		dso_cache_init(&c);
		struct dso *d = dso_cache_get(&c, paths[i], NULL, 0);
		dso_load(d);
		assert_null(dso_find_symbol(d, 0x1000));
		if (notes[i])
			assert_non_null(strstr(dso_load_note(d), notes[i]));
		else
			assert_int_equal(d->kind, DSO_ANON);
		dso_cache_free(&c);
	}
	free(text);
}

static void cache_kinds(void **state)
{
	struct dso_cache c;
	dso_cache_init(&c);
	struct {
		const char *path;
		enum dso_kind kind;
		const char *short_name;
	} cases[] = {
		{ "/usr/lib/x86_64-linux-gnu/libc.so.6", DSO_ELF, "libc.so.6" },
		{ "[kernel.kallsyms]_text", DSO_KERNEL, "[kernel.kallsyms]" },
		{ "[kernel.kallsyms]", DSO_KERNEL, "[kernel.kallsyms]" },
		{ "[vdso]", DSO_VDSO, "[vdso]" },
		{ "//anon", DSO_ANON, "//anon" },
		{ "[heap]", DSO_ANON, "[heap]" },
		{ "[stack]", DSO_ANON, "[stack]" },
		{ "", DSO_ANON, "" },
		{ "/memfd:jit (deleted)", DSO_ANON, "/memfd:jit (deleted)" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct dso *d = dso_cache_get(&c, cases[i].path, NULL, 0);
		assert_int_equal(d->kind, cases[i].kind);
		assert_string_equal(d->short_name, cases[i].short_name);
		assert_ptr_equal(dso_cache_get(&c, cases[i].path, NULL, 0), d);
	}
	/* All spellings of the kernel are one DSO. */
	assert_ptr_equal(dso_cache_get(&c, "[kernel.kallsyms]_text", NULL, 0),
			 dso_cache_get_kernel(&c, "[kernel.kallsyms]_stext", NULL, 0));
	struct dso *mod = dso_cache_get_kernel(&c, "/lib/modules/6.1.0/kernel/drivers/foo-bar.ko.xz", NULL, 0);
	assert_int_equal(mod->kind, DSO_KERNEL);
	assert_string_equal(mod->short_name, "[foo_bar]");
	assert_string_equal(dso_cache_get_kernel(&c, "[nf_tables]", NULL, 0)->short_name, "[nf_tables]");
	/* Many DSOs: the index keeps finding them. */
	struct dso *first = dso_cache_get(&c, "/lib/0.so", NULL, 0);
	for (int i = 1; i < 2000; i++) {
		char p[32];
		snprintf(p, sizeof(p), "/lib/%d.so", i);
		dso_cache_get(&c, p, NULL, 0);
	}
	assert_ptr_equal(dso_cache_get(&c, "/lib/0.so", NULL, 0), first);
	assert_string_equal(dso_cache_get(&c, "/lib/1999.so", NULL, 0)->short_name, "1999.so");
	dso_cache_free(&c);
}

static const char kallsyms_fixture[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T startup_64\n"
	"ffffffff81001000 t early_fn\n"
	"ffffffff81002000 W weak_syscall\n"
	"ffffffff81002000 T do_syscall_64\n"
	"ffffffff81003000 D some_data\n"
	"ffffffff81004000 T _etext\n"
	"garbage line\n"
	"ffffffffzzzz0000 t bad_hex\n"
	"ffffffffc0001000 t mod_init\t[foo_bar]\n"
	"ffffffffc0001100 t mod_work\t[foo_bar]\n"
	"ffffffffc0002000 t other_fn\t[other]\n"
	"ffffffff81000800 t no_newline_at_end";

static void kallsyms_parse(void **state)
{
	assert_int_equal(et_write("kallsyms", kallsyms_fixture), 0);
	char *p = et_path("kallsyms");
	struct dso_cache c;
	dso_cache_init(&c);
	struct dso *k = dso_cache_get(&c, "[kernel.kallsyms]_text", NULL, 0);
	dso_load_kallsyms(k, p);
	assert_null(dso_load_note(k));
	assert_string_equal(name_at(k, 0xffffffff81000000), "startup_64");
	assert_string_equal(name_at(k, 0xffffffff810007ff), "startup_64");
	assert_string_equal(name_at(k, 0xffffffff81000800), "no_newline_at_end");
	assert_string_equal(name_at(k, 0xffffffff81001234), "early_fn");
	/* Data symbols are skipped: do_syscall_64 runs on to _etext. */
	assert_string_equal(name_at(k, 0xffffffff81003abc), "do_syscall_64");
	assert_int_equal(dso_find_symbol(k, 0xffffffff81002000)->size, 0x2000);
	assert_string_equal(name_at(k, 0xffffffffc0001050), "mod_init [foo_bar]");
	assert_string_equal(name_at(k, 0xffffffffc0002010), "other_fn [other]");
	assert_string_equal(name_at(k, 0xffffffff80000000), "(none)");
	assert_string_equal(name_at(k, 0xffffffffc0010000), "(none)"); /* past the last symbol's page */
	for (size_t i = 0; i < k->nsyms; i++)
		assert_null(strstr(k->syms[i].name, "bad_hex"));

	struct dso *mod = dso_cache_get_kernel(&c, "/lib/modules/6.1/kernel/foo-bar.ko", NULL, 0);
	dso_load_kallsyms(mod, p);
	assert_null(dso_load_note(mod));
	assert_int_equal(mod->nsyms, 2);
	assert_string_equal(name_at(mod, 0xffffffffc0001150), "mod_work");
	assert_int_equal(dso_offset_to_addr(mod, 0xffffffffc0001150), 0xffffffffc0001150);
	struct dso *none = dso_cache_get_kernel(&c, "[absent]", NULL, 0);
	dso_load_kallsyms(none, p);
	assert_non_null(strstr(dso_load_note(none), "[absent]"));
	dso_cache_free(&c);
	free(p);
}

static void kallsyms_hidden_and_missing(void **state)
{
	assert_int_equal(et_write("kallsyms0", "0000000000000000 T _text\n0000000000000000 t foo\t[m]\n"), 0);
	char *p = et_path("kallsyms0");
	struct dso_cache c;
	dso_cache_init(&c);
	struct dso *k = dso_cache_get(&c, "[kernel.kallsyms]", NULL, 0);
	dso_load_kallsyms(k, p);
	assert_int_equal(k->nsyms, 0);
	assert_string_equal(dso_load_note(k), "kernel addresses are hidden (kernel.kptr_restrict); run as root or set "
					  "kernel.kptr_restrict=0");
	struct dso *mod = dso_cache_get_kernel(&c, "[m]", NULL, 0);
	dso_load(mod);
	assert_non_null(strstr(dso_load_note(mod), "kptr_restrict"));
	dso_cache_free(&c);

	dso_cache_init(&c);
	setenv("LPERF_KALLSYMS", "/nonexistent/kallsyms", 1);
	assert_string_equal(kallsyms_path(), "/nonexistent/kallsyms");
	k = dso_cache_get(&c, "[kernel.kallsyms]", NULL, 0);
	dso_load(k);
	unsetenv("LPERF_KALLSYMS");
	assert_non_null(strstr(dso_load_note(k), "/nonexistent/kallsyms"));
	dso_cache_free(&c);
	free(p);
}

static void vdso_symbols(void **state)
{
	uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
	if (!base)
		skip();
	struct dso_cache c;
	dso_cache_init(&c);
	struct dso *d = dso_cache_get(&c, "[vdso]", NULL, 0);
	dso_load(d);
	assert_null(dso_load_note(d));
	const struct symbol *cg = NULL;
	for (size_t i = 0; i < d->nsyms; i++)
		if (!strcmp(d->syms[i].name, "__vdso_clock_gettime") || !strcmp(d->syms[i].name, "clock_gettime"))
			cg = &d->syms[i];
	assert_non_null(cg);
	assert_true(d->build_id_size > 0);

	/* The vDSO as mapped in this process resolves through the machine. */
	struct machine m;
	machine_init(&m);
	machine_mmap(&m, 7, 7, base, 0x2000, 0, 5, "[vdso]", NULL, 0, false);
	struct addr_loc loc;
	assert_true(d->nloads > 0);
	uint64_t ip = base + (cg->start - d->loads[0].vaddr) + d->loads[0].offset + 1;
	assert_true(resolve_addr(&m, machine_thread(&m, 7, 7), PERF_RECORD_MISC_USER, ip, 0, &loc));
	assert_non_null(loc.sym);
	assert_string_equal(loc.sym->name, cg->name);
	machine_free(&m);

	/* A recording from another kernel. */
	uint8_t other[20] = { 1, 2, 3 };
	struct dso *old = dso_cache_get(&c, "[vdso]", other, 20);
	assert_ptr_not_equal(old, d);
	dso_load(old);
	assert_true(old->mismatch);
	assert_int_equal(old->nsyms, 0);
	assert_non_null(strstr(dso_load_note(old), "build-id mismatch"));
	dso_cache_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(symbols_nopie),
		cmocka_unit_test(symbols_pie),
		cmocka_unit_test(nopie_is_exec),
		cmocka_unit_test(aliases_collapse),
		cmocka_unit_test(rust_names),
		cmocka_unit_test(cxx_names),
		cmocka_unit_test(demangle_strings),
		cmocka_unit_test(plt_entries),
		cmocka_unit_test(plt_sec_entries),
		cmocka_unit_test(plt_header_is_init),
		cmocka_unit_test(build_id_matches_readelf),
		cmocka_unit_test(small_and_large_files_read_alike),
		cmocka_unit_test(build_id_mismatch),
		cmocka_unit_test(rebuilt_read_from_cache),
		cmocka_unit_test(debuglink_beside),
		cmocka_unit_test(debuglink_subdir),
		cmocka_unit_test(debuglink_bad_crc),
		cmocka_unit_test(stripped_has_dynamic_only),
		cmocka_unit_test(build_id_debug_dir_under_symfs),
		cmocka_unit_test(zero_size_extends),
		cmocka_unit_test(untyped_labels_when_alone),
		cmocka_unit_test(shared_lib_delta),
		cmocka_unit_test(resolve_through_machine),
		cmocka_unit_test(malformed_files),
		cmocka_unit_test(cache_kinds),
		cmocka_unit_test(kallsyms_parse),
		cmocka_unit_test(kallsyms_hidden_and_missing),
		cmocka_unit_test(vdso_symbols),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

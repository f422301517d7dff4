/* Symbol tables kept between runs (symbols/symstore.c): a store reads back what was written;
 * another file's store, every truncation, every bit flipped and crafted fields with a valid
 * checksum are refused without reading outside the buffer (a fixed-seed loop, the same every
 * run); on disk, a store whose file or debug file changed or is gone, another file's, a damaged
 * one, one others can write and a symlink are not used, and saving replaces them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "damage_test.h"
#include "symbols/buildid_cache.h"
#include "symbols/symstore.h"
#include "util/error.h"
#include "util/xalloc.h"

#define HDR 120
#define SEG 32
#define ENT 24
#define CRC_OFF 36

static const uint8_t id[20] = { 0x93, 0xac, 0x61, 0xec, 0x5a, 0x8e, 0xb1, 0x39, 0x6f, 0x9f,
				0xbd, 0x35, 0x0e, 0x31, 0x69, 0xa5, 0x58, 0x52, 0x8a, 0x40 };

static struct symbol syms[] = {
	{ 0x1000, 0x10, "_init", NULL },
	{ 0x1010, 0x10, "qsort@plt", NULL },
	{ 0x1100, 0x80, "ns::f(int)", "_ZN2ns1fEi" },
	{ 0x1180, 0, "empty", NULL },
	{ 0x2000, 0x1000, "main", NULL },
};
#define NSYMS (sizeof(syms) / sizeof(syms[0]))
static struct symtab_seg segs[] = { { 0, 0, 0x800, 0x800 }, { 0x1000, 0x1000, 0x2000, 0x2000 } };
#define NSEGS 2
static const struct symstore_src file = { "/usr/lib/x/libx.so", 4096, 17 };
static const struct symstore_src dbg = { "/usr/lib/debug/x.debug", 123, 456 };

static struct symtab_load load_of(size_t n)
{
	struct symtab_load r = { 0 };
	r.syms = syms;
	r.nsyms = n;
	r.loads = segs;
	r.nloads = NSEGS;
	r.is_exec = true;
	return r;
}

static int parse_copy(const char *buf, size_t len)
{
	char *c = xmalloc(len ? len : 1);
	memcpy(c, buf, len);
	struct symstore s;
	int rc = symstore_parse(c, len, id, sizeof(id), &s);
	if (rc == 0) {
		for (size_t i = 0; i < s.nsyms; i++) {
			assert_true(strlen(s.syms[i].name) < len);
			assert_true(!s.syms[i].mangled || strlen(s.syms[i].mangled) < len);
			assert_true(i == 0 || s.syms[i].start > s.syms[i - 1].start);
		}
		assert_true(strlen(s.file.path) < len);
		symstore_release(&s);
	}
	free(c);
	return rc;
}

static size_t build(struct symstore_src d, size_t n, char **buf)
{
	struct symtab_load r = load_of(n);
	size_t len;
	*buf = symstore_build(id, sizeof(id), &file, &d, &r, &len);
	return len;
}

static void test_round_trip(void **state)
{
	char *buf;
	size_t len = build(dbg, NSYMS, &buf);
	struct symstore s;
	assert_int_equal(symstore_parse(buf, len, id, sizeof(id), &s), 0);
	assert_int_equal(s.nsyms, NSYMS);
	for (size_t i = 0; i < NSYMS; i++) {
		assert_int_equal(s.syms[i].start, syms[i].start);
		assert_int_equal(s.syms[i].size, syms[i].size);
		assert_string_equal(s.syms[i].name, syms[i].name);
		if (syms[i].mangled)
			assert_string_equal(s.syms[i].mangled, syms[i].mangled);
		else
			assert_null(s.syms[i].mangled);
	}
	assert_int_equal(s.nloads, NSEGS);
	assert_memory_equal(s.loads, segs, sizeof(segs));
	assert_true(s.is_exec);
	assert_string_equal(s.file.path, file.path);
	assert_int_equal(s.file.size, 4096);
	assert_int_equal(s.file.mtime, 17);
	assert_string_equal(s.debug.path, dbg.path);
	assert_int_equal(s.debug.size, 123);
	assert_int_equal(s.debug.mtime, 456);
	symstore_release(&s);
	/* Another file's store. */
	assert_int_equal(symstore_parse(buf, len, id, 4, &s), -1);
	assert_non_null(strstr(err_msg(), "build-id"));
	free(buf);
	/* No debug file, no symbols: still a store. */
	struct symstore_src none = { 0 };
	len = build(none, 0, &buf);
	assert_int_equal(symstore_parse(buf, len, id, sizeof(id), &s), 0);
	assert_int_equal(s.nsyms, 0);
	assert_null(s.debug.path);
	symstore_release(&s);
	free(buf);
}

static void test_damage(void **state)
{
	char *buf;
	size_t len = build(dbg, NSYMS, &buf);
	damage_refused(buf, len, parse_copy, 20000);
	free(buf);
}

static void test_crafted(void **state)
{
	char *buf;
	size_t len = build(dbg, NSYMS, &buf);
	size_t ent0 = HDR + NSEGS * SEG, strsize = len - ent0 - NSYMS * ENT;
	char *c = xmalloc(len);
	struct { size_t off; int width; uint64_t v; } cases[] = {
		{ 0, 1, 'X' },                               /* magic */
		{ 8, 4, 9 },                                 /* version */
		{ 40, 4, 2 },                                /* unknown flags */
		{ 44, 4, 0 },                                /* the file: the empty string */
		{ 44, 4, (uint32_t)strsize },                /* ... past the table */
		{ 48, 4, (uint32_t)strsize + 7 },            /* the debug file past the table */
		{ 56, 8, NSYMS + 1 },                        /* more symbols than bytes */
		{ 56, 8, UINT64_MAX / ENT + 2 },             /* nsyms * 24 overflows */
		{ 64, 8, NSEGS + 1 },                        /* more segments than bytes */
		{ 64, 8, UINT64_MAX / SEG + 2 },             /* nloads * 32 overflows */
		{ 72, 8, strsize - 1 },                      /* strsize */
		{ 80, 8, len - 1 },                          /* total */
		{ ent0 + 16, 4, 0 },                         /* a symbol without a name */
		{ ent0 + 16, 4, (uint32_t)strsize },         /* a name past the table */
		{ ent0 + 2 * ENT + 20, 4, (uint32_t)strsize + 100 }, /* a mangled name past the table */
		{ ent0 + ENT, 8, 0x1000 },                   /* two symbols at one address */
		{ ent0 + 4 * ENT, 8, 0x10 },                 /* out of order */
		{ ent0 + 8, 8, 0x11 },                       /* overlapping the next */
		{ ent0 + 4 * ENT + 8, 8, UINT64_MAX },       /* wrapping around */
		{ ent0 + NSYMS * ENT, 1, 'x' },              /* string table must start with "" */
		{ len - 1, 1, 'x' },                         /* ... and end with a NUL */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memcpy(c, buf, len);
		damage_put(c, cases[i].off, cases[i].v, cases[i].width);
		damage_recrc(c, len, CRC_OFF);
		assert_int_equal(parse_copy(c, len), -1);
		assert_non_null(strstr(err_msg(), "offset"));
	}
	damage_hostile(buf, len, HDR, CRC_OFF, parse_copy, 20000); /* ASan checks the reads */
	free(c);
	free(buf);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_files(void **state)
{
	char dir[] = "/tmp/lperf-symstore-XXXXXX";
	assert_non_null(mkdtemp(dir));
	buildid_cache_set_dir(dir);
	char *elf = xasprintf("%s/libx.so", dir), *debug = xasprintf("%s/x.debug", dir);
	write_file(elf, "an ELF file");
	write_file(debug, "its debug file");
	char hex[BUILDID_HEX];
	buildid_hex(id, sizeof(id), hex);
	char *path = xasprintf("%s/.lperf/syms/%s", dir, hex);
	struct symtab_load r = load_of(NSYMS);
	r.debug_path = debug;

	assert_null(symstore_load(id, sizeof(id), elf));
	symstore_save(id, sizeof(id), elf, &r);
	struct symstore *s = symstore_load(id, sizeof(id), elf);
	assert_non_null(s);
	assert_int_equal(s->nsyms, NSYMS);
	assert_string_equal(s->syms[2].name, "ns::f(int)");
	assert_string_equal(s->debug.path, debug);
	symstore_free(s);
	assert_null(symstore_load(id, 4, elf));      /* another build-id */
	assert_null(symstore_load(id, sizeof(id), debug)); /* read from another file */

	/* The debug file gone (the -dbg package removed), then back with other contents: not used. */
	assert_int_equal(unlink(debug), 0);
	assert_null(symstore_load(id, sizeof(id), elf));
	write_file(debug, "another debug file");
	assert_null(symstore_load(id, sizeof(id), elf));
	symstore_save(id, sizeof(id), elf, &r);
	assert_non_null(s = symstore_load(id, sizeof(id), elf));
	symstore_free(s);
	/* The file stripped in place (the build-id stays): another size. */
	write_file(elf, "stripped");
	assert_null(symstore_load(id, sizeof(id), elf));
	r.debug_path = NULL;
	symstore_save(id, sizeof(id), elf, &r);
	assert_non_null(s = symstore_load(id, sizeof(id), elf));
	assert_null(s->debug.path);
	symstore_free(s);

	/* Damaged, writable by others, a symlink: not used. */
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(truncate(path, st.st_size - 1), 0);
	assert_null(symstore_load(id, sizeof(id), elf));
	symstore_save(id, sizeof(id), elf, &r);
	assert_int_equal(chmod(path, 0666), 0);
	assert_null(symstore_load(id, sizeof(id), elf));
	assert_int_equal(chmod(path, 0644), 0);
	char *target = xasprintf("%s/target", dir);
	assert_int_equal(rename(path, target), 0);
	assert_int_equal(symlink(target, path), 0);
	assert_null(symstore_load(id, sizeof(id), elf));
	/* Saving replaces the link; its target is untouched. */
	struct stat before, after;
	assert_int_equal(stat(target, &before), 0);
	r.nsyms = 2;
	symstore_save(id, sizeof(id), elf, &r);
	assert_int_equal(lstat(path, &after), 0);
	assert_true(S_ISREG(after.st_mode));
	assert_int_equal(stat(target, &after), 0);
	assert_int_equal(before.st_size, after.st_size);
	assert_non_null(s = symstore_load(id, sizeof(id), elf));
	assert_int_equal(s->nsyms, 2);
	symstore_free(s);

	char *cmd = xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(target);
	free(path);
	free(debug);
	free(elf);
	buildid_cache_set_dir(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_damage),
		cmocka_unit_test(test_crafted),
		cmocka_unit_test(test_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

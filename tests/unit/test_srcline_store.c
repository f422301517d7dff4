/* Source lines kept between runs (symbols/srcline_store.c): a store reads back what was written;
 * another file's store, every truncation, every bit flipped and crafted fields with a valid
 * checksum are refused without reading outside the buffer (a fixed-seed loop, the same every
 * run); on disk, a store whose DWARF file is gone, a damaged one, one others can write and a
 * symlink are not used. */
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
#include "symbols/srcline_store.h"
#include "util/error.h"
#include "util/xalloc.h"

#define HDR 96
#define ENT 24
#define LEV 32
#define CRC_OFF 36

static const uint8_t id[20] = { 0x93, 0xac, 0x61, 0xec, 0x5a, 0x8e, 0xb1, 0x39, 0x6f, 0x9f,
				0xbd, 0x35, 0x0e, 0x31, 0x69, 0xa5, 0x58, 0x52, 0x8a, 0x40 };

static const struct srcline_inline chain[] = {
	{ "msort_with_tmp", "/src/glibc/stdlib/msort.c", 301, true, 0x100, 0x1000 },
	{ "qsort_r", "/src/glibc/stdlib/msort.c", 297, true, 0x80, 0xf00 },
};
static const struct srcline_inline unnamed[] = { { NULL, NULL, 0, false, 0x200, 0 } };
/* A chain whose levels' files and lines were not looked up (a call-graph report's). */
static const struct srcline_inline names_only[] = {
	{ "msort_with_tmp", NULL, 0, true, 0x100, 0x1000 },
	{ "qsort_r", NULL, 0, true, 0x80, 0xf00 },
};

static const struct slstore_ent ents[] = {
	{ 0x1000, "/src/glibc/stdlib/msort.c", 297, false, NULL, 0 }, /* its line only */
	{ 0x1010, "/src/glibc/stdlib/msort.c", 301, true, chain, 2 },
	{ 0x2000, NULL, 0, true, NULL, 0 },                          /* no line, no function */
	{ 0x2040, "/src/annot.c", 12, true, unnamed, 1 },
	{ 0x3000, NULL, 0, true, names_only, 2, true, true },         /* its chain's functions only */
	{ 0x3010, "/src/annot.c", 14, true, names_only, 2, false, true }, /* ... and its own line */
};
#define NENTS (sizeof(ents) / sizeof(ents[0]))
#define NLEV 7
static const struct slstore_dwarf dw = { "/usr/lib/debug/x.debug", 123, 456 };

static int parse_copy(const char *buf, size_t len)
{
	char *c = xmalloc(len ? len : 1);
	memcpy(c, buf, len);
	struct slstore s;
	int rc = slstore_parse(c, len, id, sizeof(id), &s);
	if (rc == 0) {
		for (size_t i = 0; i < s.n; i++) {
			assert_true(!s.v[i].file || strlen(s.v[i].file) < len);
			for (size_t j = 0; j < s.v[i].ninl; j++)
				assert_true(!s.v[i].inl[j].func || strlen(s.v[i].inl[j].func) < len);
		}
		assert_true(strlen(s.dwarf.path) < len);
		free(s.v);
		free(s.levels);
	}
	free(c);
	return rc;
}

static void test_round_trip(void **state)
{
	size_t len;
	char *buf = slstore_build(id, sizeof(id), &dw, ents, NENTS, &len);
	/* The repeated file name is stored once. */
	/* Repeated strings are stored once. */
	assert_int_equal(len, HDR + NENTS * ENT + NLEV * LEV + 1 + sizeof("/usr/lib/debug/x.debug") +
				      sizeof("/src/glibc/stdlib/msort.c") + sizeof("msort_with_tmp") + sizeof("qsort_r") +
				      sizeof("/src/annot.c"));
	struct slstore s;
	assert_int_equal(slstore_parse(buf, len, id, sizeof(id), &s), 0);
	assert_string_equal(s.dwarf.path, "/usr/lib/debug/x.debug");
	assert_int_equal(s.dwarf.size, 123);
	assert_int_equal(s.dwarf.mtime, 456);
	for (size_t i = 0; i < NENTS; i++) {
		const struct slstore_ent *e = slstore_find(&s, ents[i].addr);
		assert_non_null(e);
		if (ents[i].file)
			assert_string_equal(e->file, ents[i].file);
		else
			assert_null(e->file);
		assert_int_equal(e->line, ents[i].line);
		assert_int_equal(e->has_inl, ents[i].has_inl);
		assert_int_equal(e->no_line, ents[i].no_line);
		assert_int_equal(e->no_inl_lines, ents[i].no_inl_lines);
		assert_int_equal(e->ninl, ents[i].ninl);
		for (size_t j = 0; j < e->ninl; j++) {
			const struct srcline_inline *a = &e->inl[j], *b = &ents[i].inl[j];
			if (b->func)
				assert_string_equal(a->func, b->func);
			else
				assert_null(a->func);
			if (b->file)
				assert_string_equal(a->file, b->file);
			else
				assert_null(a->file);
			assert_int_equal(a->line, b->line);
			assert_int_equal(a->linkage, b->linkage);
			assert_int_equal(a->die, b->die);
			assert_int_equal(a->low, b->low);
		}
	}
	assert_null(slstore_find(&s, 0x1001));
	assert_null(slstore_find(&s, 0));
	assert_null(slstore_find(&s, 0x4000));
	free(s.levels);
	free(s.v);
	/* Another file's build-id. */
	uint8_t other[20];
	memcpy(other, id, sizeof(other));
	other[19] ^= 1;
	assert_int_equal(slstore_parse(buf, len, other, sizeof(other), &s), -1);
	assert_non_null(strstr(err_msg(), "build-id"));
	assert_int_equal(slstore_parse(buf, len, id, 8, &s), -1);
	free(buf);
	/* An empty store is a store. */
	struct slstore_dwarf dx = { "/x", 1, 2 };
	buf = slstore_build(id, sizeof(id), &dx, NULL, 0, &len);
	assert_int_equal(parse_copy(buf, len), 0);
	free(buf);
}

static void test_damage(void **state)
{
	size_t len;
	char *buf = slstore_build(id, sizeof(id), &dw, ents, NENTS, &len);
	damage_refused(buf, len, parse_copy, 20000);
	free(buf);
}

static void test_crafted(void **state)
{
	size_t len;
	char *buf = slstore_build(id, sizeof(id), &dw, ents, NENTS, &len);
	size_t strsize = len - HDR - NENTS * ENT - NLEV * LEV, lev0 = HDR + NENTS * ENT;
	char *c = xmalloc(len);
	struct { size_t off; int width; uint64_t v; } cases[] = {
		{ 8, 4, 9 },                                 /* version */
		{ 40, 4, 0 },                                /* the DWARF file: the empty string */
		{ 40, 4, (uint32_t)strsize },                /* ... past the table */
		{ 48, 8, NENTS + 1 },                        /* more entries than bytes */
		{ 48, 8, UINT64_MAX / ENT + 2 },             /* n * 24 overflows */
		{ 56, 8, NLEV + 1 },                         /* more levels than bytes */
		{ 56, 8, UINT64_MAX / LEV + 2 },             /* nlev * 32 overflows */
		{ 64, 8, strsize - 1 },                      /* strsize */
		{ 72, 8, len - 1 },                          /* total */
		{ HDR + 8, 4, (uint32_t)strsize },           /* a file past the table */
		{ HDR + 8, 4, (uint32_t)strsize + 100 },
		{ HDR + ENT, 8, 0x1000 },                    /* duplicate address */
		{ HDR + 3 * ENT, 8, 0x10 },                  /* out of order */
		{ HDR + ENT + 16, 4, NLEV },                 /* a chain starting at the end */
		{ HDR + ENT + 20, 4, 65 },                   /* a chain longer than 64 */
		{ HDR + ENT + 20, 4, NLEV + 1 },             /* a chain past the levels */
		{ HDR + ENT + 16, 4, UINT32_MAX - 1 },       /* lev + nlev overflows */
		{ lev0, 4, (uint32_t)strsize },              /* a function past the table */
		{ lev0 + 4, 4, (uint32_t)strsize + 1 },      /* a level's file past the table */
		{ lev0 + 12, 4, 2 },                         /* linkage is 0 or 1 */
		{ HDR + ENT + 12, 4, UINT32_MAX },           /* a line not looked up, with a file */
		{ lev0 + 8, 4, UINT32_MAX },                 /* ... a level's */
		{ lev0 + 4 * LEV + 8, 4, 5 },                /* a chain's lines partly looked up */
		{ lev0 + NLEV * LEV, 1, 'x' },               /* string table must start with "" */
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

static void test_files(void **state)
{
	char dir[] = "/tmp/lperf-slstore-XXXXXX";
	assert_non_null(mkdtemp(dir));
	buildid_cache_set_dir(dir);
	char *dwarf = xasprintf("%s/x.debug", dir);
	FILE *f = fopen(dwarf, "w");
	assert_non_null(f);
	fclose(f);
	char hex[BUILDID_HEX];
	buildid_hex(id, sizeof(id), hex);
	char *path = xasprintf("%s/.lperf/lines/%s", dir, hex);

	assert_null(slstore_load(id, sizeof(id)));
	slstore_save(id, sizeof(id), dwarf, ents, NENTS);
	struct slstore *s = slstore_load(id, sizeof(id));
	assert_non_null(s);
	assert_int_equal(s->n, NENTS);
	slstore_free(s);
	assert_null(slstore_load(id, 4)); /* another build-id */

	/* Its DWARF file gone (the -dbg package removed): not used. */
	assert_int_equal(unlink(dwarf), 0);
	assert_null(slstore_load(id, sizeof(id)));
	f = fopen(dwarf, "w");
	fclose(f);
	slstore_free(slstore_load(id, sizeof(id))); /* recreated: the same size, maybe the same time */
	slstore_save(id, sizeof(id), dwarf, ents, NENTS);
	assert_non_null(s = slstore_load(id, sizeof(id)));
	slstore_free(s);
	/* Stripped in place (the build-id stays): another size. */
	f = fopen(dwarf, "w");
	fputs("stripped", f);
	fclose(f);
	assert_null(slstore_load(id, sizeof(id)));
	slstore_save(id, sizeof(id), dwarf, ents, NENTS);

	/* Damaged, writable by others, a symlink: not used. */
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(truncate(path, st.st_size - 1), 0);
	assert_null(slstore_load(id, sizeof(id)));
	slstore_save(id, sizeof(id), dwarf, ents, NENTS);
	assert_int_equal(chmod(path, 0666), 0);
	assert_null(slstore_load(id, sizeof(id)));
	assert_int_equal(chmod(path, 0644), 0);
	char *target = xasprintf("%s/target", dir);
	assert_int_equal(rename(path, target), 0);
	assert_int_equal(symlink(target, path), 0);
	assert_null(slstore_load(id, sizeof(id)));
	/* Saving replaces the link; its target is untouched. */
	struct stat before, after;
	assert_int_equal(stat(target, &before), 0);
	slstore_save(id, sizeof(id), dwarf, ents, 2);
	assert_int_equal(lstat(path, &after), 0);
	assert_true(S_ISREG(after.st_mode));
	assert_int_equal(stat(target, &after), 0);
	assert_int_equal(before.st_size, after.st_size);
	assert_non_null(s = slstore_load(id, sizeof(id)));
	assert_int_equal(s->n, 2);
	slstore_free(s);

	char *cmd = xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(target);
	free(path);
	free(dwarf);
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

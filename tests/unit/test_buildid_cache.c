/* The build-id cache: perf's layout (DIR/PATH/ID/elf and .build-id/xx/rest -> ../../PATH/ID),
 * listing, removal, the report side's lookup, and hostile caches and inputs: a symlink planted
 * in the cache is never followed, "..", a rebuilt file and another user's link are refused, a
 * damaged notes block is read within bounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "symbols/buildid_cache.h"
#include "util/fileio.h"
#include "util/outfile.h"
#include "util/xalloc.h"

static char *tmpdir(void)
{
	char t[] = "/tmp/lperf-bidc-XXXXXX";
	assert_non_null(mkdtemp(t));
	return xstrdup(t);
}

static void rm_rf(const char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
}

/* A copy of this test binary (built with a build-id) at DIR/bin/prog. */
static char *make_prog(const char *dir, uint8_t id[20], size_t *n)
{
	char *bin = xasprintf("%s/bin", dir), *prog = xasprintf("%s/bin/prog", dir);
	assert_int_equal(mkdir(bin, 0755), 0);
	char *cmd = xasprintf("cp /proc/%d/exe '%s'", (int)getpid(), prog);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(bin);
	*n = buildid_read(prog, id);
	assert_true(*n > 0);
	return prog;
}

/* prog "rebuilt": a new file (a new inode, as a linker writes) at the same path whose GNU
 * build-id note differs from id. Done by editing the note's bytes rather than by running a
 * compiler, which the emulated Arm machine's guest does not have. */
static void rebuild(const char *prog, const uint8_t *id, size_t n)
{
	size_t len;
	char *text = file_read(prog, 64u << 20, &len);
	assert_non_null(text);
	uint8_t *at = memmem(text, len, id, n);
	assert_non_null(at);
	at[0] ^= 0xff;
	assert_int_equal(outfile_write(prog, text, len, 0755), 0);
	free(text);
	uint8_t now[20];
	assert_int_equal(buildid_read(prog, now), n);
	assert_memory_not_equal(now, id, n);
}

static void test_hex(void **state)
{
	uint8_t id[20] = { 0x45, 0x00, 0x04, 0xac, 0xff }, back[20];
	char hex[BUILDID_HEX];
	buildid_hex(id, 5, hex);
	assert_string_equal(hex, "450004acff");
	assert_int_equal(buildid_parse("450004ACff", back), 5);
	assert_memory_equal(back, id, 5);
	assert_int_equal(buildid_parse("4", back), -1);
	assert_int_equal(buildid_parse("zz", back), -1);
	assert_int_equal(buildid_parse("000000000000000000000000000000000000000000", back), -1); /* 42 */
}

static void test_notes(void **state)
{
	uint8_t buf[64] = { 0 }, id[20];
	uint32_t h[3] = { 4, 8, 3 };
	memcpy(buf, h, 12);
	memcpy(buf + 12, "GNU", 4);
	memcpy(buf + 16, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
	assert_int_equal(buildid_from_notes(buf, 24, id), 8);
	assert_int_equal(id[7], 8);
	assert_int_equal(buildid_from_notes(buf, 23, id), 0);     /* desc cut short */
	uint32_t huge[3] = { 0xfffffff0u, 8, 3 };
	memcpy(buf, huge, 12);
	assert_int_equal(buildid_from_notes(buf, sizeof(buf), id), 0);
	uint32_t other[3] = { 4, 0xfffffffcu, 1 };             /* skipping it would overflow */
	memcpy(buf, other, 12);
	assert_int_equal(buildid_from_notes(buf, sizeof(buf), id), 0);
}

static void test_layout(void **state)
{
	char *dir = tmpdir(), *cache = xasprintf("%s/cache", dir), hex[BUILDID_HEX];
	uint8_t id[20], got[20];
	size_t n, gn;
	char *prog = make_prog(dir, id, &n);
	buildid_hex(id, n, hex);
	buildid_cache_set_dir(cache);
	assert_int_equal(buildid_cache_add(prog, NULL, 0, got, &gn), 1);
	assert_int_equal(gn, n);
	assert_int_equal(buildid_cache_add(prog, id, n, NULL, NULL), 0); /* there already */

	char *link = xasprintf("%s/.build-id/%.2s/%s", cache, hex, hex + 2), target[4096];
	ssize_t len = readlink(link, target, sizeof(target) - 1);
	assert_true(len > 0);
	target[len] = 0;
	char *want = xasprintf("../..%s/%s", prog, hex);
	assert_string_equal(target, want);
	char *file;
	assert_int_equal(buildid_cache_path(id, n, &file), 0);
	char *elf = xasprintf("%s%s/%s/elf", cache, prog, hex);
	assert_string_equal(file, elf);
	assert_int_equal(buildid_read(file, got), (int)n);
	free(file);

	struct buildid_cache_entry *v;
	size_t nv;
	assert_int_equal(buildid_cache_list(&v, &nv), 0);
	assert_int_equal(nv, 1);
	assert_string_equal(v[0].hex, hex);
	assert_string_equal(v[0].name, prog);
	buildid_cache_list_free(v, nv);

	assert_int_equal(buildid_cache_remove(prog, NULL, 0), 1);
	struct stat st;
	assert_int_equal(lstat(link, &st), -1);
	assert_int_equal(lstat(elf, &st), -1);
	assert_int_equal(buildid_cache_path(id, n, &file), -1);
	assert_int_equal(buildid_cache_add(prog, NULL, 0, NULL, NULL), 1);
	assert_int_equal(buildid_cache_purge(prog), 1);
	assert_int_equal(buildid_cache_list(&v, &nv), 0);
	assert_int_equal(nv, 0);

	free(elf);
	free(want);
	free(link);
	buildid_cache_set_dir(NULL);
	rm_rf(dir);
	free(prog);
	free(cache);
	free(dir);
}

/* A symlink planted where the cache would create a directory is not followed: nothing is written
 * through it, and the add fails. */
static void test_planted_symlink(void **state)
{
	char *dir = tmpdir(), *cache = xasprintf("%s/cache", dir), *evil = xasprintf("%s/evil", dir);
	uint8_t id[20];
	size_t n;
	char *prog = make_prog(dir, id, &n);
	assert_int_equal(mkdir(cache, 0755), 0);
	assert_int_equal(mkdir(evil, 0755), 0);
	char *first = xasprintf("%s/tmp", cache);      /* prog is /tmp/lperf-bidc-.../bin/prog */
	assert_int_equal(symlink(evil, first), 0);
	buildid_cache_set_dir(cache);
	assert_int_equal(buildid_cache_add(prog, NULL, 0, NULL, NULL), -1);
	char *cmd = xasprintf("test -z \"$(ls -A '%s')\"", evil);
	assert_int_equal(system(cmd), 0);              /* evil is still empty */
	free(cmd);

	/* A planted .build-id link pointing out of the cache is neither listed nor resolved. */
	assert_int_equal(unlink(first), 0);
	char hex[BUILDID_HEX];
	buildid_hex(id, n, hex);
	char *sub = xasprintf("%s/.build-id", cache), *sub2 = xasprintf("%s/.build-id/%.2s", cache, hex);
	char *link = xasprintf("%s/%s", sub2, hex + 2);
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(mkdir(sub2, 0755), 0);
	assert_int_equal(symlink("../../../../../../etc", link), 0);
	char *file = NULL;
	assert_int_equal(buildid_cache_path(id, n, &file), -1);
	struct buildid_cache_entry *v;
	size_t nv;
	assert_int_equal(buildid_cache_list(&v, &nv), 0);
	assert_int_equal(nv, 0);
	/* A well-formed link owned by another user is not trusted either (root only can make one);
	 * nor is another user's directory written into. */
	if (geteuid() == 0) {
		char *theirs = xasprintf("%s%s", cache, dir);
		char *mk = xasprintf("mkdir -p '%s' && chown -R 12345 '%s/tmp'", theirs, cache);
		assert_int_equal(system(mk), 0);
		assert_int_equal(buildid_cache_add(prog, NULL, 0, NULL, NULL), -1);
		char *rm = xasprintf("rm -rf '%s/tmp'", cache);
		assert_int_equal(system(rm), 0);
		free(rm);
		free(mk);
		free(theirs);
		assert_int_equal(unlink(link), 0);
		assert_int_equal(buildid_cache_add(prog, NULL, 0, NULL, NULL), 1);
		assert_int_equal(lchown(link, 12345, 12345), 0);
		assert_int_equal(buildid_cache_path(id, n, &file), -1);
	}
	buildid_cache_set_dir(NULL);
	rm_rf(dir);
	free(link);
	free(sub);
	free(sub2);
	free(first);
	free(prog);
	free(evil);
	free(cache);
	free(dir);
}

static void test_refused_inputs(void **state)
{
	char *dir = tmpdir(), *cache = xasprintf("%s/cache", dir);
	uint8_t id[20];
	size_t n;
	char *prog = make_prog(dir, id, &n);
	buildid_cache_set_dir(cache);
	char *climb = xasprintf("%s/bin/../bin/prog", dir);
	assert_int_equal(buildid_cache_add(climb, NULL, 0, NULL, NULL), -1);
	assert_int_equal(buildid_cache_add("relative/prog", id, n, NULL, NULL), -1);
	uint8_t other[20];
	memcpy(other, id, n);
	other[0] ^= 0xff; /* the file was rebuilt since the recording */
	assert_int_equal(buildid_cache_add(prog, other, n, NULL, NULL), -1);
	assert_int_equal(buildid_cache_add("/dev/zero", id, n, NULL, NULL), -1);
	char *fifo = xasprintf("%s/fifo", dir); /* a FIFO named in a recording: refused, not waited on */
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(buildid_cache_add(fifo, NULL, 0, NULL, NULL), -1);
	assert_int_equal(buildid_cache_add(fifo, id, n, NULL, NULL), -1);
	free(fifo);
	assert_int_equal(buildid_cache_add("/proc/self/fd/0", id, n, NULL, NULL), -1);
	buildid_cache_set_dir(NULL);
	rm_rf(dir);
	free(climb);
	free(prog);
	free(cache);
	free(dir);
}

/* The report side: the file itself while it carries the recorded build-id, else the cached copy,
 * else an error naming both ids. */
static void test_locate(void **state)
{
	char *dir = tmpdir(), *cache = xasprintf("%s/cache", dir);
	uint8_t id[20];
	size_t n;
	char *prog = make_prog(dir, id, &n), *file;
	buildid_cache_set_dir(cache);
	assert_int_equal(buildid_cache_locate(prog, id, n, &file), 0);
	assert_string_equal(file, prog);
	free(file);
	assert_int_equal(buildid_cache_locate(prog, NULL, 0, &file), 0);
	free(file);
	uint8_t other[20];
	memcpy(other, id, n);
	other[1] ^= 0x55; /* the recording names an older build */
	assert_int_equal(buildid_cache_locate(prog, other, n, &file), -1);
	assert_null(file);
	assert_int_equal(buildid_cache_add(prog, NULL, 0, NULL, NULL), 1);
	rebuild(prog, id, n); /* rebuilt: a new build-id at the same path */
	assert_int_equal(buildid_cache_locate(prog, id, n, &file), 1);
	char hex[BUILDID_HEX];
	buildid_hex(id, n, hex);
	assert_non_null(strstr(file, hex));
	free(file);
	assert_int_equal(buildid_cache_locate("[vdso]", other, n, &file), -1);
	assert_int_equal(buildid_cache_add("[vdso]", other, n, NULL, NULL), -1); /* not this kernel's */
	buildid_cache_set_dir(NULL);
	rm_rf(dir);
	free(prog);
	free(cache);
	free(dir);
}

static void test_default_dir(void **state)
{
	buildid_cache_set_dir(NULL);
	setenv("PERF_BUILDID_DIR", "/x/y", 1);
	assert_string_equal(buildid_cache_dir(), "/x/y");
	buildid_cache_set_dir("/a");
	assert_string_equal(buildid_cache_dir(), "/a");
	buildid_cache_set_dir(NULL);
	unsetenv("PERF_BUILDID_DIR");
	char *want = xasprintf("%s/.debug", getenv("HOME"));
	assert_string_equal(buildid_cache_dir(), want);
	free(want);
}

/* The CRC of a file's mapping that hands its pages back as it goes is the CRC of its bytes, and
 * the bytes read afterwards are the file's (the pages come back from the page cache). */
static void test_crc_mapped(void **state)
{
	(void)state;
	size_t len = (3u << 20) + 123;
	uint8_t *data = xmalloc(len);
	for (size_t i = 0; i < len; i++)
		data[i] = (uint8_t)(i * 2654435761u >> 13);
	char path[] = "/tmp/lperf-crc-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	const uint8_t *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	assert_true(map != MAP_FAILED);
	close(fd);
	assert_int_equal(buildid_cache_crc_mapped(map, len, 76), buildid_cache_crc(data, len, 76));
	assert_memory_equal(map, data, len);
	munmap((void *)map, len);
	free(data);
}

/* buildid_cache_map keeps the directories it reads from: a file stored after a miss is found,
 * one in another cache root is that root's, and one stored after purge_own removed the kept
 * directory is found in the new one. */
static void test_map_kept_dirs(void **state)
{
	(void)state;
	char *a = tmpdir(), *b = tmpdir();
	size_t len = 0;
	buildid_cache_set_dir(a);
	assert_null(buildid_cache_map(".lperf/t", "f", 100, &len)); /* no directory yet */
	assert_int_equal(buildid_cache_store(".lperf/t", "f", "one", 3, 0644), 0);
	assert_null(buildid_cache_map(".lperf/t", "g", 100, &len)); /* directory kept, no file */
	assert_int_equal(buildid_cache_store(".lperf/t", "g", "two!", 4, 0644), 0);
	char *m = buildid_cache_map(".lperf/t", "g", 100, &len);
	assert_non_null(m);
	assert_int_equal(len, 4);
	assert_memory_equal(m, "two!", 4);
	munmap(m, len);
	setenv("PERF_BUILDID_DIR", b, 1); /* another root: not the directory kept for a */
	buildid_cache_set_dir(NULL);
	assert_null(buildid_cache_map(".lperf/t", "f", 100, &len));
	assert_int_equal(buildid_cache_store(".lperf/t", "f", "three", 5, 0644), 0);
	m = buildid_cache_map(".lperf/t", "f", 100, &len);
	assert_non_null(m);
	assert_memory_equal(m, "three", 5);
	munmap(m, len);
	unsetenv("PERF_BUILDID_DIR");
	buildid_cache_set_dir(a);
	m = buildid_cache_map(".lperf/t", "f", 100, &len);
	assert_non_null(m);
	assert_memory_equal(m, "one", 3);
	munmap(m, len);
	char *t = xasprintf("%s/.lperf/t", a);
	rm_rf(t); /* as buildid_cache_purge_own does, then stored anew */
	buildid_cache_purge_own();
	assert_int_equal(buildid_cache_store(".lperf/t", "f", "four", 4, 0644), 0);
	m = buildid_cache_map(".lperf/t", "f", 100, &len);
	assert_non_null(m);
	assert_memory_equal(m, "four", 4);
	munmap(m, len);
	buildid_cache_set_dir(NULL);
	rm_rf(a);
	rm_rf(b);
	free(t);
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hex),
		cmocka_unit_test(test_crc_mapped),
		cmocka_unit_test(test_notes),
		cmocka_unit_test(test_layout),
		cmocka_unit_test(test_planted_symlink),
		cmocka_unit_test(test_refused_inputs),
		cmocka_unit_test(test_locate),
		cmocka_unit_test(test_default_dir),
		cmocka_unit_test(test_map_kept_dirs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

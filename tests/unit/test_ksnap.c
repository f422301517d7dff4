/* The kernel symbol snapshot (symbols/ksnap.c): what is written reads back the same; another
 * kernel's or boot's snapshot, and every truncation, byte flip and crafted field of a valid one
 * (a fixed-seed fuzz loop, so the run is the same every time) is refused without reading outside
 * the buffer; the cache files are found, rebuilt when damaged, and never read through a symlink
 * or from a file others can write. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "damage_test.h"
#include "symbols/buildid_cache.h"
#include "symbols/dso.h"
#include "symbols/kallsyms.h"
#include "symbols/ksnap.h"
#include "util/error.h"
#include "util/xalloc.h"

#define HDR 120
#define ENT 24
#define ENTS (HDR + 16 + 8) /* after one group's and one chunk's checksums */

static const struct ksnap_key key = { { 0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 },
				       20, "0b1d9a6e-0000-4000-8000-000000000001" };

/* Tagged symbols below and above the core kernel's, as kallsyms lists modules and BPF. */
static struct symbol syms[] = {
	{ 0xffffffff80000000, 0x10, "early [bpf]", NULL },
	{ 0xffffffff81000000, 0x100, "_stext", NULL },
	{ 0xffffffff81000100, 0x200, "do_syscall_64", NULL },
	{ 0xffffffff81000300, 0x50, "_RNvCs_rust_fn", NULL },
	{ 0xffffffff81000350, 0x10, "rust_fn", "_RNvCs_rust_fn" },
	{ 0xffffffff81000400, 0x1000, "last_core", NULL },
	{ 0xffffffffc0000000, 0x80, "nf_hook_slow [nf_tables]", NULL },
	{ 0xffffffffc0000080, 0x80, "bpf_prog_abc_f [bpf]", NULL },
};
#define NSYMS (sizeof(syms) / sizeof(syms[0]))

static char *build(size_t *len)
{
	return ksnap_build(&key, syms, NSYMS, len);
}

/* Parses a copy of exactly len bytes (so ASan sees any read past it); 0 or -1. */
static int parse_copy(const char *buf, size_t len)
{
	char *c = xmalloc(len ? len : 1);
	memcpy(c, buf, len);
	struct ksnap s;
	int rc = ksnap_parse(c, len, &key, &s);
	if (rc == 0) {
		for (size_t i = 0; i < s.nsyms; i++) /* every name is readable and ends in the buffer */
			assert_true(strlen(s.syms[i].name) < len);
		ksnap_release(&s);
	}
	free(c);
	return rc;
}

static void test_round_trip(void **state)
{
	size_t len;
	char *buf = build(&len);
	struct ksnap s;
	assert_int_equal(ksnap_parse(buf, len, &key, &s), 0);
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
	/* The core range: _stext up to the start of the last core symbol. */
	assert_int_equal(s.core_lo, 0xffffffff81000000);
	assert_int_equal(s.core_hi, 0xffffffff81000400);
	assert_true(ksnap_covers(&s, 0xffffffff81000150));
	assert_false(ksnap_covers(&s, 0xffffffff80000008));   /* BPF below */
	assert_false(ksnap_covers(&s, 0xffffffff81000400));   /* the last core symbol: sized by what follows */
	assert_false(ksnap_covers(&s, 0xffffffffc0000010));   /* a module */
	ksnap_release(&s);
	free(buf);
}

static void test_other_kernel_or_boot(void **state)
{
	size_t len;
	char *buf = build(&len);
	struct ksnap s;
	struct ksnap_key k = key;
	k.build_id[0] ^= 1;
	assert_int_equal(ksnap_parse(buf, len, &k, &s), -1);
	assert_non_null(strstr(err_msg(), "build-id"));
	k = key;
	k.build_id_size = 16;
	assert_int_equal(ksnap_parse(buf, len, &k, &s), -1);
	k = key;
	k.boot[0] = '1';
	assert_int_equal(ksnap_parse(buf, len, &k, &s), -1);
	assert_non_null(strstr(err_msg(), "boot"));
	free(buf);
}

/* Every truncation, every bit flipped, 20,000 random damages: all refused. */
static void test_damaged(void **state)
{
	size_t len;
	char *buf = build(&len);
	damage_refused(buf, len, parse_copy, 20000);
	free(buf);
}

/* Crafted files with a correct checksum: each field made hostile is caught by its own check, and
 * random damage with a recomputed checksum never reads outside the buffer. */
static void put64(char *buf, size_t off, uint64_t v) { memcpy(buf + off, &v, 8); }
static void put32(char *buf, size_t off, uint32_t v) { memcpy(buf + off, &v, 4); }

static void test_crafted(void **state)
{
	size_t len;
	char *buf = build(&len);
	char *c = xmalloc(len);
	size_t strsize = len - ENTS - NSYMS * ENT;
	struct { size_t off; int width; uint64_t v; const char *why; } cases[] = {
		{ 80, 8, 0, "symbols" },                            /* nsyms 0 */
		{ 80, 8, NSYMS + 1, "symbols" },                    /* more entries than bytes */
		{ 80, 8, UINT64_MAX / ENT + 2, "symbols" },         /* nsyms * 24 overflows */
		{ 88, 8, strsize + 1, "symbols" },                  /* strsize */
		{ 112, 8, len + 1, "size" },                        /* total */
		{ 96, 8, 0xffffffffc0000000, "core range" },        /* core_lo > core_hi */
		{ 104, 8, 0xffffffffc0000080, "module symbol" },    /* core range over a module */
		{ 8, 4, KSNAP_VERSION + 1, "version" },
		{ ENTS + 0 * ENT + 16, 4, (uint32_t)strsize, "name" },       /* name past the table */
		{ ENTS + 1 * ENT + 20, 4, (uint32_t)strsize + 5, "name" },   /* mangled past it */
		{ ENTS + 0 * ENT + 16, 4, 0, "name" },                       /* empty name */
		{ ENTS + 2 * ENT + 0, 8, 0xffffffff81000000, "order" },      /* duplicate start */
		{ ENTS + 2 * ENT + 8, 8, 0x201, "overlap" },                 /* runs into the next */
		{ ENTS + 7 * ENT + 8, 8, UINT64_MAX, "overlap" },            /* start + size wraps */
		{ len - 1, 1, 'x', "not terminated" },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memcpy(c, buf, len);
		if (cases[i].width == 8)
			put64(c, cases[i].off, cases[i].v);
		else if (cases[i].width == 4)
			put32(c, cases[i].off, (uint32_t)cases[i].v);
		else
			c[cases[i].off] = (char)cases[i].v;
		ksnap_seal(c, len);
		if (parse_copy(c, len) != -1)
			fail_msg("crafted case %zu (%s) accepted", i, cases[i].why);
		assert_non_null(err_msg());
		/* "offset N:" names where */
		assert_non_null(strstr(err_msg(), "offset"));
	}
	/* Random damage past the header, checksums made right: refused or well-formed, never a
	 * read outside the buffer (ASan). */
	for (int r = 0; r < 20000; r++) {
		memcpy(c, buf, len);
		for (int j = 0, k = 1 + (int)(damage_rand() % 3); j < k; j++)
			c[HDR + damage_rand() % (len - HDR)] ^= (char)(1 + damage_rand() % 255);
		ksnap_seal(c, len);
		(void)parse_copy(c, len);
	}
	free(c);
	free(buf);
}

/* A snapshot of many symbols (several groups of entries, several chunks of names) read lazily:
 * every lookup answers as symtab_find over all of them, and a damaged part is found by the first
 * lookup that reads it, not before, while the other parts still answer. */
#define MANY 5000

static struct symbol *many_syms(void)
{
	struct symbol *m = xcalloc(MANY, sizeof(*m));
	for (size_t i = 0; i < MANY; i++) {
		/* gaps, zero sizes, names long enough for several 64 KB chunks */
		m[i].start = 0xffffffff81000000 + i * 0x100;
		m[i].size = i % 7 == 3 ? 0 : 0x80 + (i % 3) * 0x40;
		m[i].name = xasprintf("kernel_function_with_a_long_name_%05zu_%s", i, "padding_padding_padding");
	}
	return m;
}

static void test_lazy(void **state)
{
	struct symbol *m = many_syms();
	size_t len;
	char *buf = ksnap_build(&key, m, MANY, &len);
	struct ksnap s;
	assert_int_equal(ksnap_open(buf, len, &key, &s), 0);
	assert_true(s.ngroups >= 3 && s.nchunks >= 3);
	for (uint64_t a = 0xffffffff80fffff0; a < 0xffffffff81000000 + MANY * 0x100 + 0x40; a += 0x1c) {
		const struct symbol *got, *want = symtab_find(m, MANY, a);
		assert_int_equal(ksnap_find(&s, a, &got), 0);
		if (!want) {
			assert_null(got);
			continue;
		}
		assert_non_null(got);
		assert_int_equal(got->start, want->start);
		assert_int_equal(got->size, want->size);
		assert_string_equal(got->name, want->name);
	}
	/* What a lookup handed out is found again by its start, size and name (a report that reads
	 * kallsyms afresh part way keeps it); what none did, or another symbol, is not. */
	const struct symbol *got;
	assert_int_equal(ksnap_find(&s, m[10].start, &got), 0);
	assert_ptr_equal(ksnap_seen(&s, &m[10]), got);
	struct symbol other = m[10];
	other.size++;
	assert_null(ksnap_seen(&s, &other));
	struct ksnap fresh;
	assert_int_equal(ksnap_open(buf, len, &key, &fresh), 0);
	assert_null(ksnap_seen(&fresh, &m[10])); /* not looked up there */
	ksnap_release(&fresh);
	size_t str_off = len - s.strsize, ents = str_off - MANY * ENT;
	ksnap_release(&s);

	/* The last group's entries damaged: found by a lookup there, not by one elsewhere. */
	char *c = xmalloc(len);
	memcpy(c, buf, len);
	c[ents + (MANY - 1) * ENT] ^= 1; /* the last entry's start */
	assert_int_equal(ksnap_open(c, len, &key, &s), 0);
	assert_int_equal(ksnap_find(&s, m[1].start, &got), 0);
	assert_non_null(got);
	assert_int_equal(ksnap_find(&s, m[MANY - 1].start, &got), -1);
	assert_non_null(strstr(err_msg(), "checksum"));
	assert_non_null(strstr(err_msg(), "offset"));
	ksnap_release(&s);
	/* The first chunk of names damaged: the first symbol's lookup fails, one named further on
	 * answers. */
	memcpy(c, buf, len);
	c[str_off + 10] ^= 1;
	assert_int_equal(ksnap_open(c, len, &key, &s), 0);
	assert_int_equal(ksnap_find(&s, m[0].start, &got), -1);
	assert_non_null(strstr(err_msg(), "string table"));
	assert_int_equal(ksnap_find(&s, m[MANY / 2].start, &got), 0);
	assert_non_null(got);
	assert_string_equal(got->name, m[MANY / 2].name);
	ksnap_release(&s);
	/* A whole check (ksnap_parse) refuses both. */
	assert_int_equal(ksnap_parse(c, len, &key, &s), -1);
	free(c);
	free(buf);
	symtab_free(m, MANY);
}

/* The cache on disk: PERF_BUILDID_DIR in a fresh directory. Needs the running kernel's
 * build-id and addresses (root); skipped otherwise. */
static char dir[] = "/tmp/lperf-ksnap-XXXXXX";

static char *snap_path(void)
{
	struct ksnap_key k;
	if (ksnap_key_now(&k) < 0)
		return NULL;
	char hex[BUILDID_HEX];
	buildid_hex(k.build_id, k.build_id_size, hex);
	return xasprintf("%s/.lperf/ksyms/%s", dir, hex);
}

static void test_cache_files(void **state)
{
	struct ksnap_key k;
	if (ksnap_key_now(&k) < 0 || geteuid() != 0) {
		skip();
		return;
	}
	assert_non_null(mkdtemp(dir));
	buildid_cache_set_dir(dir);
	char *path = snap_path();
	assert_null(ksnap_load()); /* none yet */
	ksnap_save(syms, NSYMS, NULL);
	struct ksnap *s = ksnap_load();
	if (!s) { /* kptr_restrict hides addresses: nothing is written */
		free(path);
		buildid_cache_set_dir(NULL);
		skip();
		return;
	}
	assert_int_equal(s->nsyms, NSYMS);
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 077, 0); /* kernel addresses: this user's only */
	/* Saving what is there already leaves the file alone. */
	ksnap_save(syms, NSYMS, s);
	struct stat st2;
	assert_int_equal(stat(path, &st2), 0);
	assert_int_equal(st.st_ino, st2.st_ino);
	ksnap_free(s);

	/* Damaged (truncated) -> not used; the next save rebuilds it. */
	assert_int_equal(truncate(path, (off_t)st.st_size - 1), 0);
	assert_null(ksnap_load());
	ksnap_save(syms, NSYMS, NULL);
	assert_non_null(s = ksnap_load());
	ksnap_free(s);

	/* Writable by others -> not trusted. */
	assert_int_equal(chmod(path, 0666), 0);
	assert_null(ksnap_load());
	assert_int_equal(chmod(path, 0600), 0);

	/* A symlink planted at its name is never read through, and a save replaces the link,
	 * leaving its target as it was. */
	char *target = xasprintf("%s/target", dir);
	rename(path, target);
	assert_int_equal(symlink(target, path), 0);
	assert_null(ksnap_load());
	assert_int_equal(stat(target, &st), 0);
	ksnap_save(syms, NSYMS, NULL);
	assert_int_equal(lstat(path, &st2), 0);
	assert_true(S_ISREG(st2.st_mode));
	struct stat st3;
	assert_int_equal(stat(target, &st3), 0);
	assert_int_equal(st.st_size, st3.st_size);
	assert_int_equal(st.st_mtime, st3.st_mtime);
	assert_non_null(s = ksnap_load());
	ksnap_free(s);

	char *cmd = xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(target);
	free(path);
	buildid_cache_set_dir(NULL);
}

/* The symbol both give for addr: the same start, size and name, or none. */
static void same_symbol(struct dso *k, const struct symbol *all, size_t n, uint64_t addr)
{
	const struct symbol *want = symtab_find(all, n, addr), *got = dso_find_symbol(k, addr);
	if (!want) {
		assert_null(got);
		return;
	}
	assert_non_null(got);
	assert_int_equal(got->start, want->start);
	assert_int_equal(got->size, want->size);
	assert_string_equal(got->name, want->name);
}

/* A first report (empty cache) writes the snapshot and answers from it, keeping of /proc/kallsyms
 * only the symbols outside the core range: every answer is the one kallsyms gives, modules' too,
 * without reading kallsyms again. Needs root and the kernel's build-id, as test_cache_files. */
static void test_first_report(void **state)
{
	struct ksnap_key key_now;
	if (ksnap_key_now(&key_now) < 0 || geteuid() != 0 || getenv("LPERF_KALLSYMS")) {
		skip();
		return;
	}
	char first[] = "/tmp/lperf-ksnap-first-XXXXXX";
	assert_non_null(mkdtemp(first));
	buildid_cache_set_dir(first);
	/* BPF programs and trampolines come and go (other processes): kallsyms read before and
	 * after the report's own read, until both agree. */
	struct symtab_load all = { 0 };
	struct dso_cache c;
	struct dso *k = NULL;
	for (int tries = 0; tries < 10 && !k; tries++) {
		kallsyms_load("/proc/kallsyms", &all);
		dso_cache_init(&c);
		k = dso_cache_get(&c, "[kernel.kallsyms]", NULL, 0);
		dso_load(k);
		struct symtab_load after = { 0 };
		kallsyms_load("/proc/kallsyms", &after);
		bool same = after.nsyms == all.nsyms;
		for (size_t i = 0; same && i < all.nsyms; i++)
			same = all.syms[i].start == after.syms[i].start && all.syms[i].size == after.syms[i].size;
		symtab_free(after.syms, after.nsyms);
		notes_clear(&after.notes);
		if (same)
			break;
		k = NULL;
		dso_cache_free(&c);
		symtab_free(all.syms, all.nsyms);
		notes_clear(&all.notes);
		memset(&all, 0, sizeof(all));
		char *rm = xasprintf("rm -rf '%s'/.lperf", first);
		assert_int_equal(system(rm), 0);
		free(rm);
	}
	if (!k) {
		rmdir(first);
		buildid_cache_set_dir(NULL);
		skip();
		return;
	}
	if (!k->ksnap) { /* addresses hidden: nothing written, the symbols read kept */
		assert_false(k->ksnap_rest);
	} else {
		assert_true(k->ksnap_rest);
		assert_false(k->ksnap_fresh);
		assert_true(k->nsyms < all.nsyms);
		/* Every kept symbol can hold an address the snapshot does not decide. */
		for (size_t i = 0; i < k->nsyms; i++)
			assert_false(ksnap_covers(k->ksnap, k->syms[i].start) &&
				     ksnap_covers(k->ksnap, k->syms[i].start + (k->syms[i].size ? k->syms[i].size : 1) - 1) &&
				     k->syms[i].start + (k->syms[i].size ? k->syms[i].size : 1) <= k->ksnap->core_hi);
	}
	/* Each symbol's start, its last byte, the byte past it; below and above them all. */
	for (size_t i = 0; i < all.nsyms; i += i + 97 < all.nsyms ? 97 : 1) {
		const struct symbol *s = &all.syms[i];
		same_symbol(k, all.syms, all.nsyms, s->start);
		same_symbol(k, all.syms, all.nsyms, s->start + (s->size ? s->size - 1 : 0));
		same_symbol(k, all.syms, all.nsyms, s->start + s->size + 1);
	}
	same_symbol(k, all.syms, all.nsyms, 0);
	same_symbol(k, all.syms, all.nsyms, UINT64_MAX);
	assert_int_equal(k->ksnap_fresh, false); /* no address made it read kallsyms again */
	/* A module's symbols come from the kept ones. */
	for (size_t i = 0; i < all.nsyms; i++) {
		const char *mod = strrchr(all.syms[i].name, ' ');
		if (!mod || mod[1] != '[')
			continue;
		struct dso *m = dso_cache_get_kernel(&c, mod + 1, NULL, 0);
		dso_load(m);
		struct symtab_load want = { 0 };
		kallsyms_load_module(all.syms, all.nsyms, NULL, mod + 1, &want);
		assert_int_equal(m->nsyms, want.nsyms);
		for (size_t j = 0; j < want.nsyms; j++)
			assert_string_equal(m->syms[j].name, want.syms[j].name);
		symtab_free(want.syms, want.nsyms);
		notes_clear(&want.notes);
		break;
	}
	assert_int_equal(k->ksnap_fresh, false);
	dso_cache_free(&c);
	symtab_free(all.syms, all.nsyms);
	notes_clear(&all.notes);
	char *cmd = xasprintf("rm -rf '%s'", first);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	buildid_cache_set_dir(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_other_kernel_or_boot),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_crafted),
		cmocka_unit_test(test_lazy),
		cmocka_unit_test(test_cache_files),
		cmocka_unit_test(test_first_report),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

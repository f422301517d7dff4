/* jitdump: files written by real CPython 3.13 (-X perf_jit) and Node.js (--perf-prof), as
 * fixtures and fresh; every record type from a small writer here, in both byte orders; address
 * reuse and moves resolved by time; reading resumed after damage (CPython 3.13's dump after a
 * fork); every truncation and random damage of real dumps (run under
 * ASan/UBSan); and resolution through the machine model. */
#include <byteswap.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
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

#include "jit_test.h"
#include "model/machine.h"
#include "resolve/resolve.h"
#include "symbols/dso.h"
#include "symbols/jitdump.h"
#include "util/error.h"
#include "util/xalloc.h"

static char tmpdir[] = "/tmp/lperf-jitdump-XXXXXX";

static int setup(void **state)
{
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	rmdir(tmpdir);
	return 0;
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

/* ---- A small writer, in either byte order ---- */

struct w {
	uint8_t *b;
	size_t len, cap;
	bool swap;
	size_t rec;              /* where the current record began */
};

static void put(struct w *w, const void *p, size_t n)
{
	ALLOC_GROW(w->b, w->len + n, w->cap);
	memcpy(w->b + w->len, p, n);
	w->len += n;
}

static void put32(struct w *w, uint32_t v)
{
	if (w->swap)
		v = bswap_32(v);
	put(w, &v, 4);
}

static void put64(struct w *w, uint64_t v)
{
	if (w->swap)
		v = bswap_64(v);
	put(w, &v, 8);
}

static void set32(struct w *w, size_t off, uint32_t v)
{
	if (w->swap)
		v = bswap_32(v);
	memcpy(w->b + off, &v, 4);
}

static void header(struct w *w, uint32_t pid, uint64_t flags)
{
	put32(w, JITDUMP_MAGIC);
	put32(w, 1);
	put32(w, 40);
	put32(w, 0);             /* elf_mach: CPython 3.13.0 writes 0 */
	put32(w, 0x1a1a1a1a);    /* pad1: garbage */
	put32(w, pid);
	put64(w, 1700000000000000ull);
	put64(w, flags);
}

static void begin(struct w *w, uint32_t id, uint64_t t)
{
	w->rec = w->len;
	put32(w, id);
	put32(w, 0);
	put64(w, t);
}

static void end(struct w *w)
{
	set32(w, w->rec + 4, (uint32_t)(w->len - w->rec));
}

static void load(struct w *w, uint64_t t, uint64_t addr, uint64_t size, uint64_t index, const char *name)
{
	begin(w, JIT_CODE_LOAD, t);
	put32(w, 77);
	put32(w, 78);
	put64(w, addr);
	put64(w, addr);
	put64(w, size);
	put64(w, index);
	put(w, name, strlen(name) + 1);
	for (uint64_t i = 0; i < size; i++)
		put(w, "\x90", 1);
	end(w);
}

static void move(struct w *w, uint64_t t, uint64_t from, uint64_t to, uint64_t size, uint64_t index)
{
	begin(w, JIT_CODE_MOVE, t);
	put32(w, 77);
	put32(w, 78);
	put64(w, to);
	put64(w, from);
	put64(w, to);
	put64(w, size);
	put64(w, index);
	end(w);
}

struct dline {
	uint64_t addr;
	int line;
	const char *file;
};

static void debug(struct w *w, uint64_t t, uint64_t code_addr, const struct dline *v, size_t n)
{
	begin(w, JIT_CODE_DEBUG_INFO, t);
	put64(w, code_addr);
	put64(w, n);
	for (size_t i = 0; i < n; i++) {
		put64(w, v[i].addr);
		put32(w, (uint32_t)v[i].line);
		put32(w, 0);
		put(w, v[i].file, strlen(v[i].file) + 1);
	}
	end(w);
}

static void unwind(struct w *w, uint64_t t, const uint8_t *a, size_t alen, const uint8_t *b, size_t blen,
		   size_t hdr_size)
{
	begin(w, JIT_CODE_UNWINDING_INFO, t);
	put64(w, alen + blen);
	put64(w, hdr_size);
	put64(w, (alen + blen + 15) & ~15ul);
	put(w, a, alen);
	put(w, b, blen);
	while ((w->len - w->rec) % 8)
		put(w, "", 1);
	end(w);
}

static void simple(struct w *w, uint32_t id, uint64_t t, size_t payload)
{
	begin(w, id, t);
	for (size_t i = 0; i < payload; i++)
		put(w, "\xab", 1);
	end(w);
}

/* ---- Real dumps ---- */

static const uint8_t trampoline[] = { 0x48, 0x83, 0xec, 0x08, 0xff, 0xd1, 0x48, 0x83, 0xc4, 0x08, 0xc3 };

static int32_t s32(const uint8_t *p)
{
	int32_t v;
	memcpy(&v, p, 4);
	return v;
}

/* CPython 3.13 dumps: trampoline code, and unwinding data whose pc-relative offsets agree with
 * the addresses lperf says the sections live at. */
static void check_cpython_code(const struct jitdump_code *c)
{
	assert_true(!strncmp(c->name, "py::", 4));
	assert_int_equal(c->size, sizeof(trampoline));
	assert_memory_equal(c->code, trampoline, sizeof(trampoline));
	assert_int_equal(c->vma, c->addr);
	const struct jitdump_unwind *u = c->unwind;
	assert_non_null(u);
	assert_false(u->hdr_first);
	assert_int_equal(u->size, 68);
	assert_int_equal(u->hdr_size, 20);
	assert_int_equal(u->mapped_size, 80);
	assert_int_equal(u->eh_frame_size, 48);
	assert_int_equal(u->eh_frame_hdr_size, 20);
	assert_int_equal(u->eh_frame_hdr[0], 1);    /* version */
	assert_int_equal(s32(u->eh_frame), 0x14);   /* the CIE's length */
	uint64_t eh = jitdump_eh_frame_vaddr(c), hdr = eh + u->eh_frame_size;
	/* eh_frame_ptr (pcrel sdata4 at hdr+4) points at .eh_frame... */
	assert_int_equal(hdr + 4 + (uint64_t)(int64_t)s32(u->eh_frame_hdr + 4), eh);
	/* ...and the FDE (after the 24-byte CIE) starts at the code, for its 11 bytes. */
	assert_int_equal(eh + 24 + 8 + (uint64_t)(int64_t)s32(u->eh_frame + 32), c->addr);
	assert_int_equal(s32(u->eh_frame + 36), sizeof(trampoline));
	/* The table's one entry (datarel: from the header) names the code too. */
	assert_int_equal(hdr + (uint64_t)(int64_t)s32(u->eh_frame_hdr + 12), c->addr);
}

static void cpython313_fixture(void **state)
{
	size_t len;
	uint8_t *buf = fixture("cpython313.dump", &len);
	struct jitdump *jd = jitdump_parse(buf, len);
	assert_non_null(jd);
	assert_null(jd->error);
	assert_int_equal(jd->bad.n, 0);
	assert_int_equal(jd->version, 1);
	assert_int_equal(jd->elf_mach, 0); /* CPython 3.13.0's quirk */
	assert_false(jd->swapped);
	assert_int_equal(jd->flags, 0);
	assert_int_equal(jd->ncodes, 6);
	assert_int_equal(jd->stats.unwinding_info, 6);
	assert_int_equal(jd->consumed, len);
	assert_string_equal(jd->codes[0]->name, "py::_find_and_load:<frozen importlib._bootstrap>");
	for (size_t i = 0; i < jd->ncodes; i++) {
		const struct jitdump_code *c = jd->codes[i];
		check_cpython_code(c);
		assert_int_equal(c->index, i + 1);
		assert_int_equal(c->pid, jd->pid);
		uint64_t start = 0;
		assert_ptr_equal(jitdump_find(jd, c->addr + 6, c->time + 1000, &start), c);
		assert_int_equal(start, c->addr);
		assert_ptr_equal(jitdump_find(jd, c->addr + 10, 0, NULL), c);
		/* Code padding: nothing between trampolines. */
		assert_null(jitdump_find(jd, c->addr + 11, 0, NULL));
	}
	jitdump_free(jd);
	free(buf);
}

static void node20_fixture(void **state)
{
	size_t len;
	uint8_t *buf = fixture("node20.dump", &len);
	struct jitdump *jd = jitdump_parse(buf, len);
	assert_non_null(jd);
	assert_null(jd->error);
	assert_int_equal(jd->elf_mach, 62); /* EM_X86_64; pad1 holds 0xdeadbeef */
	assert_int_equal(jd->stats.debug_info, 1);
	const struct jitdump_code *hot = NULL, *with_lines = NULL;
	for (size_t i = 0; i < jd->ncodes; i++) {
		if (strstr(jd->codes[i]->name, "hotLoop"))
			hot = jd->codes[i];
		if (jd->codes[i]->nlines)
			with_lines = jd->codes[i];
	}
	assert_non_null(hot);
	assert_true(!strncmp(hot->name, "JS:", 3));
	assert_ptr_equal(jitdump_find(jd, hot->addr + hot->size - 1, hot->time, NULL), hot);
	/* The DEBUG_INFO belongs to the load after it: source lines inside its code. */
	assert_non_null(with_lines);
	const char *file;
	int line;
	assert_false(jitdump_srcline(with_lines, with_lines->lines[0].addr - 1, &file, &line));
	assert_true(jitdump_srcline(with_lines, with_lines->lines[0].addr, &file, &line));
	assert_true(!strncmp(file, "node:internal/", 14));
	assert_int_equal(line, with_lines->lines[0].line);
	assert_true(line > 0);
	for (size_t i = 0; i < with_lines->nlines; i++) {
		assert_true(with_lines->lines[i].addr >= with_lines->addr);
		assert_true(with_lines->lines[i].addr < with_lines->addr + with_lines->size);
		assert_true(!i || with_lines->lines[i - 1].addr <= with_lines->lines[i].addr);
	}
	jitdump_free(jd);
	free(buf);
}

static struct jitdump *read_dump(const char *path)
{
	struct jitdump *jd = NULL;
	int r = jitdump_load(path, false, &jd);
	if (r != 1)
		fprintf(stderr, "%s: %s\n", path, r < 0 ? err_msg() : "missing");
	assert_int_equal(r, 1);
	assert_null(jd->error);
	assert_int_equal(jd->bad.n, 0);
	unlink(path);
	return jd;
}

static const struct jitdump_code *named(struct jitdump *jd, const char *prefix)
{
	for (size_t i = 0; i < jd->ncodes; i++)
		if (!strncmp(jd->codes[i]->name, prefix, strlen(prefix)))
			return jd->codes[i];
	return NULL;
}

static void real_cpython313(void **state)
{
	char *py = jit_test_find_python("3.13");
	if (!py) {
		printf("skipped: no pyenv CPython 3.13 (~/.pyenv/versions/3.13*/bin/python3)\n");
		skip();
	}
	char *argv[] = { py, "-X", "perf_jit", "-c",
			 "def foo():\n    return sum(range(100))\n"
			 "for _ in range(10):\n    foo()\n",
			 NULL };
	pid_t pid = 0;
	assert_int_equal(jit_test_run(NULL, argv, &pid), 0);
	char *path = xasprintf("/tmp/jit-%d.dump", (int)pid);
	struct jitdump *jd = read_dump(path);
	assert_int_equal(jd->pid, pid);
	assert_true(jd->ncodes > 50);
	assert_int_equal(jd->stats.unwinding_info, jd->ncodes);
	const struct jitdump_code *foo = named(jd, "py::foo:<string>");
	assert_non_null(foo);
	check_cpython_code(foo);
	assert_ptr_equal(jitdump_find(jd, foo->addr + 6, foo->time + 1, NULL), foo);
	jitdump_free(jd);
	free(path);
	free(py);
}

static void real_node_perf_prof(void **state)
{
	char *node = jit_test_find_in_path("node");
	if (!node) {
		printf("skipped: no node in $PATH\n");
		skip();
	}
	char *argv[] = { node, "--perf-prof", "--interpreted-frames-native-stack", "-e",
			 "function hotLoop(n) { let s = 0; for (let i = 0; i < n; i++) s += i; return s; }\n"
			 "hotLoop(10);",
			 NULL };
	pid_t pid = 0;
	int rc = jit_test_run(tmpdir, argv, &pid);
	jit_test_rm_v8_logs(tmpdir);
	assert_int_equal(rc, 0);
	char *path = xasprintf("%s/jit-%d.dump", tmpdir, (int)pid);
	struct jitdump *jd = read_dump(path);
	assert_int_equal(jd->pid, pid);
	const struct jitdump_code *hot = named(jd, "JS:~hotLoop [eval]:1:");
	assert_non_null(hot);
	assert_ptr_equal(jitdump_find(jd, hot->addr, 0, NULL), hot);
	jitdump_free(jd);
	free(path);
	free(node);
}

/* ---- Every record, reuse, moves, both byte orders ---- */

static const uint8_t cie_like[] = { 0x14, 0, 0, 0, 0, 0, 0, 0 };
static const uint8_t hdr_like[] = { 1, 0x1b, 3, 0x3b, 0, 0, 0, 0 };

static void write_story(struct w *w, uint64_t flags)
{
	header(w, 77, flags);
	struct dline lines[] = { { 0x1040, 12, "/src/a.js" }, { 0x1000, 10, "/src/a.js" }, { 0x1080, 14, "\xff" } };
	debug(w, 90, 0x1000, lines, 3);
	unwind(w, 95, cie_like, sizeof(cie_like), hdr_like, sizeof(hdr_like), sizeof(hdr_like));
	load(w, 100, 0x1000, 0x100, 1, "A");
	simple(w, 99, 150, 24);   /* an id from the future: skipped */
	load(w, 200, 0x1000, 0x80, 2, "B");      /* reuses A's first half */
	/* The spec's order: the header first. */
	unwind(w, 250, hdr_like, sizeof(hdr_like), cie_like, sizeof(cie_like), sizeof(hdr_like));
	load(w, 300, 0x5000, 0x40, 3, "C");
	move(w, 400, 0x5000, 0x6000, 0x40, 3);  /* C moves */
	load(w, 500, 0x5000, 0x20, 4, "D");      /* into C's old place */
	simple(w, JIT_CODE_CLOSE, 600, 0);
}

static const char *at(struct jitdump *jd, uint64_t addr, uint64_t t)
{
	const struct jitdump_code *c = jitdump_find(jd, addr, t, NULL);
	return c ? c->name : NULL;
}

static void check_story(struct jitdump *jd)
{
	assert_null(jd->error);
	assert_int_equal(jd->bad.n, 0);
	assert_int_equal(jd->ncodes, 4);
	assert_int_equal(jd->stats.records, 10);
	assert_int_equal(jd->stats.unknown, 1);
	assert_int_equal(jd->stats.moves, 1);
	assert_int_equal(jd->stats.closes, 1);
	assert_true(jd->closed);
	/* Reuse: A until B takes the address; A's second half stays A. */
	assert_string_equal(at(jd, 0x1010, 150), "A");
	assert_string_equal(at(jd, 0x1010, 250), "B");
	assert_string_equal(at(jd, 0x1010, 0), "B");
	assert_string_equal(at(jd, 0x10a0, 250), "A");
	assert_null(at(jd, 0x1100, 250));
	/* A sample a little before a load (clocks that do not quite agree): the nearest code. */
	assert_string_equal(at(jd, 0x1010, 50), "A");
	/* The move: C at its old address until 400, at the new one after; D then takes the old. */
	uint64_t start;
	assert_string_equal(at(jd, 0x5010, 350), "C");
	assert_string_equal(jitdump_find(jd, 0x6010, 450, &start)->name, "C");
	assert_int_equal(start, 0x6000);
	assert_string_equal(at(jd, 0x5010, 550), "D");
	assert_string_equal(at(jd, 0x5030, 450), "C"); /* nothing there since the move: nearest */
	assert_string_equal(at(jd, 0x5010, 0), "D");
	assert_string_equal(at(jd, 0x6010, 0), "C");
	/* DEBUG_INFO and UNWINDING_INFO went to the load after them. */
	const struct jitdump_code *a = jd->codes[0], *b = jd->codes[1], *c = jd->codes[2];
	assert_int_equal(a->nlines, 3);
	assert_int_equal(b->nlines, 0);
	const char *file;
	int line;
	assert_true(jitdump_srcline(a, 0x1050, &file, &line));
	assert_string_equal(file, "/src/a.js");
	assert_int_equal(line, 12);
	assert_true(jitdump_srcline(a, 0x10ff, &file, &line));
	assert_string_equal(file, "/src/a.js"); /* "\xff": the previous entry's file */
	assert_int_equal(line, 14);
	assert_non_null(a->unwind);
	assert_false(a->unwind->hdr_first);
	assert_memory_equal(a->unwind->eh_frame, cie_like, sizeof(cie_like));
	assert_memory_equal(a->unwind->eh_frame_hdr, hdr_like, sizeof(hdr_like));
	assert_null(b->unwind);
	assert_non_null(c->unwind);
	assert_true(c->unwind->hdr_first);
	assert_memory_equal(c->unwind->eh_frame, cie_like, sizeof(cie_like));
	assert_memory_equal(c->unwind->eh_frame_hdr, hdr_like, sizeof(hdr_like));
	assert_int_equal(jitdump_eh_frame_vaddr(c), 0x5040);
}

static void every_record_and_reuse(void **state)
{
	for (int swap = 0; swap < 2; swap++) {
		struct w w = { .swap = swap };
		write_story(&w, 0);
		struct jitdump *jd = jitdump_parse(w.b, w.len);
		assert_non_null(jd);
		assert_int_equal(jd->swapped, swap);
		assert_int_equal(jd->pid, 77);
		assert_int_equal(jd->codes[0]->pid, 77);
		assert_int_equal(jd->codes[0]->tid, 78);
		check_story(jd);
		jitdump_free(jd);
		/* Fed in pieces, as a live process writes it. */
		jd = jitdump_new();
		for (size_t off = 0; off < w.len;) {
			size_t n = off + 37 < w.len ? 37 : w.len - off;
			size_t have = (size_t)jd->consumed;
			assert_int_equal(jitdump_feed(jd, w.b + have, off + n - have, false), 0);
			off += n;
		}
		check_story(jd);
		jitdump_free(jd);
		free(w.b);
	}
	/* TSC timestamps cannot be compared with sample times: address only, latest code. */
	struct w w = { 0 };
	write_story(&w, JITDUMP_FLAGS_ARCH_TIMESTAMP);
	struct jitdump *jd = jitdump_parse(w.b, w.len);
	assert_string_equal(at(jd, 0x1010, 150), "B");
	jitdump_free(jd);
	free(w.b);
}

static void bad_headers(void **state)
{
	struct w w = { 0 };
	header(&w, 1, 0);
	uint8_t *h = w.b;
	assert_null(jitdump_parse(h, 39));
	assert_non_null(strstr(err_msg(), "shorter than its 40-byte header"));
	memcpy(h, "ELF!", 4);
	assert_null(jitdump_parse(h, w.len));
	assert_non_null(strstr(err_msg(), "not a jitdump: magic"));
	free(w.b);
	w = (struct w){ 0 };
	header(&w, 1, 0);
	set32(&w, 4, 2);
	assert_null(jitdump_parse(w.b, w.len));
	assert_non_null(strstr(err_msg(), "version 2"));
	set32(&w, 4, 1);
	set32(&w, 32, 4);
	assert_null(jitdump_parse(w.b, w.len));
	assert_non_null(strstr(err_msg(), "unsupported flags 0x4"));
	set32(&w, 32, 0);
	/* A longer header than lperf knows: skipped. */
	set32(&w, 8, 48);
	put64(&w, 0);
	load(&w, 1, 0x100, 4, 1, "f");
	struct jitdump *jd = jitdump_parse(w.b, w.len);
	assert_non_null(jd);
	assert_string_equal(at(jd, 0x101, 0), "f");
	jitdump_free(jd);
	free(w.b);
}

static void damaged_records(void **state)
{
	struct w w = { 0 };
	header(&w, 1, 0);
	load(&w, 1, 0x100, 4, 1, "ok");
	/* A load whose code does not fit, a move of nothing, a debug record claiming a million
	 * entries: each skipped, and the next record still read. */
	load(&w, 2, 0x200, 4, 2, "big");
	set32(&w, w.rec + 40, 1000);
	move(&w, 3, 0x900, 0xa00, 4, 99);
	debug(&w, 4, 0x100, NULL, 0);
	set32(&w, w.rec + 24, 1000000);
	load(&w, 5, 0x300, 4, 3, "after");
	struct jitdump *jd = jitdump_parse(w.b, w.len);
	assert_non_null(jd);
	assert_int_equal(jd->stats.bad, 3);
	assert_non_null(strstr(jd->bad.v[0], "CODE_LOAD record at offset"));
	assert_non_null(strstr(jd->bad.v[0], "code larger than the record"));
	assert_string_equal(at(jd, 0x301, 0), "after");
	assert_null(at(jd, 0x201, 0));
	jitdump_free(jd);
	/* A record shorter than its own prefix ends the file: what came before stays. */
	size_t before = w.len;
	begin(&w, JIT_CODE_LOAD, 6);
	set32(&w, w.rec + 4, 8);
	load(&w, 7, 0x400, 4, 4, "lost");
	jd = jitdump_parse(w.b, w.len);
	assert_non_null(strstr(jd->error, "damaged at offset"));
	char off[32];
	snprintf(off, sizeof(off), "offset %zu", before);
	assert_non_null(strstr(jd->error, off));
	assert_string_equal(at(jd, 0x301, 0), "after");
	assert_null(at(jd, 0x401, 0));
	jitdump_free(jd);
	free(w.b);
}

/* CPython 3.13 after a fork: the child's copy of the parent's stdio buffer is flushed into the
 * parent's dump too, so a record is cut and older records come again. Reading resumes at the
 * next whole record that is not older than the last one read; the cut load is not named. */
static void damage_resumed(void **state)
{
	struct w w = { 0 }, old = { 0 };
	header(&w, 77, 0);
	load(&w, 10, 0x100, 4, 1, "a");
	load(&w, 20, 0x200, 4, 2, "b");
	size_t cut = w.len;
	load(&w, 30, 0x300, 4, 3, "c");
	w.len = cut + 30;        /* the rest of c is lost */
	header(&old, 77, 0);
	load(&old, 10, 0x100, 4, 1, "a");
	put(&w, old.b + 40, old.len - 40); /* a comes again */
	load(&w, 40, 0x400, 4, 4, "d");
	load(&w, 50, 0x500, 4, 5, "e");
	struct jitdump *jd = jitdump_parse(w.b, w.len);
	assert_non_null(jd);
	assert_null(jd->error);
	assert_int_equal(jd->consumed, w.len);
	assert_int_equal(jd->stats.resumed, 1);
	/* the cut load ran into the older bytes: its code did not fit, it was skipped */
	assert_int_equal(jd->stats.bad, 2);
	assert_non_null(strstr(jd->bad.v[0], "code larger than the record"));
	assert_string_equal(at(jd, 0x101, 0), "a");
	assert_string_equal(at(jd, 0x201, 0), "b");
	assert_null(at(jd, 0x301, 0));
	assert_string_equal(at(jd, 0x401, 0), "d");
	assert_string_equal(at(jd, 0x501, 45), "e");
	jitdump_free(jd);
	/* Fed in pieces as a live process writes it: the same. */
	jd = jitdump_new();
	for (size_t n = 0; n < w.len; n += 7)
		assert_int_equal(jitdump_feed(jd, w.b + jd->consumed, (n < w.len ? n : w.len) - jd->consumed, false), 0);
	assert_int_equal(jitdump_feed(jd, w.b + jd->consumed, w.len - jd->consumed, true), 0);
	assert_null(jd->error);
	assert_string_equal(at(jd, 0x401, 0), "d");
	assert_string_equal(at(jd, 0x501, 0), "e");
	assert_null(at(jd, 0x301, 0));
	jitdump_free(jd);
	/* A load longer than its parts (padding) is read; when damage follows right after it,
	 * its end may be foreign bytes: it is not named. */
	load(&w, 60, 0x600, 4, 6, "padded");
	put64(&w, 0);
	end(&w);
	load(&w, 70, 0x700, 4, 7, "cut");
	put64(&w, 0);
	end(&w);
	for (int i = 0; i < 4; i++)
		put32(&w, 0xffffffffu);
	load(&w, 80, 0x800, 4, 8, "g");
	jd = jitdump_parse(w.b, w.len);
	assert_int_equal(jd->stats.resumed, 2);
	assert_string_equal(at(jd, 0x601, 0), "padded");
	assert_null(at(jd, 0x701, 0));
	assert_string_equal(at(jd, 0x801, 0), "g");
	jitdump_free(jd);
	free(w.b);
	free(old.b);
}

/* Every prefix of the real dumps: no crash, and what was read grows with the length. */
static void every_truncation(void **state)
{
	const char *names[] = { "cpython313.dump", "node20.dump" };
	for (size_t k = 0; k < ARRAY_SIZE(names); k++) {
		size_t len;
		uint8_t *full = fixture(names[k], &len);
		size_t prev = 0;
		for (size_t n = 0; n <= len; n++) {
			uint8_t *copy = xmalloc(n ? n : 1); /* exact size, so ASan sees overreads */
			memcpy(copy, full, n);
			struct jitdump *jd = jitdump_parse(copy, n);
			if (n < 40) {
				assert_null(jd);
				free(copy);
				continue;
			}
			assert_non_null(jd);
			assert_true(jd->ncodes >= prev);
			prev = jd->ncodes;
			assert_int_equal(jd->error == NULL, jd->consumed == n);
			if (jd->error)
				assert_non_null(strstr(jd->error, "truncated at offset"));
			for (size_t i = 0; i < jd->ncodes; i++)
				assert_ptr_equal(jitdump_find(jd, jd->codes[i]->addr, 0, NULL)->addr, jd->codes[i]->addr);
			jitdump_free(jd);
			free(copy);
		}
		free(full);
	}
}

static void random_damage(void **state)
{
	const char *names[] = { "cpython313.dump", "node20.dump" };
	uint32_t seed = 2024;
	for (size_t k = 0; k < ARRAY_SIZE(names); k++) {
		size_t len;
		uint8_t *full = fixture(names[k], &len);
		for (int round = 0; round < 1500; round++) {
			uint8_t *copy = xmalloc(len);
			memcpy(copy, full, len);
			seed = seed * 1103515245 + 12345;
			int flips = 1 + (int)((seed >> 16) % 8);
			for (int i = 0; i < flips; i++) {
				seed = seed * 1103515245 + 12345;
				size_t at_ = (seed >> 8) % len;
				seed = seed * 1103515245 + 12345;
				/* Sizes and counts are where damage hurts: bias towards them. */
				copy[at_] = (seed >> 20) & 1 ? (uint8_t)(seed >> 8) : 0xff;
			}
			struct jitdump *jd = jitdump_parse(copy, len);
			if (jd) {
				for (size_t i = 0; i < jd->ncodes; i++) {
					const struct jitdump_code *c = jd->codes[i];
					const char *file;
					int line;
					jitdump_find(jd, c->addr + c->size / 2, c->time, NULL);
					jitdump_srcline(c, c->addr + 1, &file, &line);
					assert_true(strlen(c->name) < len);
				}
				jitdump_free(jd);
			}
			free(copy);
		}
		free(full);
	}
}

static void marker_names(void **state)
{
	int pid = 0;
	assert_true(jitdump_is_marker("/tmp/jit-6814.dump", &pid));
	assert_int_equal(pid, 6814);
	assert_true(jitdump_is_marker("/home/u/app/jit-1.dump", NULL));
	assert_true(jitdump_is_marker("jit-22.dump", NULL));
	const char *no[] = { "/tmp/jit-.dump", "/tmp/jit-12.dump.old", "/tmp/xjit-12.dump", "/tmp/jit-12a.dump",
			     "/tmp/jitted-12-1.so", "/tmp/jit-12345678901.dump", "" };
	for (size_t i = 0; i < ARRAY_SIZE(no); i++)
		assert_false(jitdump_is_marker(no[i], NULL));
}

/* ---- Through the machine ---- */

static void resolve_through_machine(void **state)
{
	struct w w = { 0 };
	write_story(&w, 0);
	struct machine m;
	machine_init(&m);
	const pid_t pid = 77;
	machine_mmap(&m, pid, pid, 0x1000, 0x10000, 0x1000, PROT_READ | PROT_EXEC, "//anon", NULL, 0, false);
	machine_mmap(&m, pid, pid, 0x7f0000000000ull, 0x1000, 0, PROT_READ | PROT_EXEC, "/tmp/jit-77.dump", NULL, 0,
		     false);
	machine_set_jitdump_data(&m, pid, w.b, w.len);
	free(w.b);
	/* A perf map too: consulted where the dump has nothing. */
	const char map[] = "9000 10 from_the_map\n";
	machine_set_perfmap_data(&m, pid, map, sizeof(map) - 1);
	struct thread *t = machine_thread(&m, pid, pid);
	struct addr_loc loc;
	assert_true(resolve_addr(&m, t, PERF_RECORD_MISC_USER, 0x1010, 150, &loc));
	assert_string_equal(loc.sym->name, "A");
	assert_string_equal(loc.dso->short_name, "jitted-77-1.so");
	assert_string_equal(loc.dso->path, "/tmp/jitted-77-1.so");
	assert_int_equal(loc.dso->kind, DSO_JIT);
	assert_int_equal(loc.sym_off, 0x10);
	const struct dso *a_dso = loc.dso;
	assert_true(resolve_addr(&m, t, PERF_RECORD_MISC_USER, 0x1010, 250, &loc));
	assert_string_equal(loc.sym->name, "B");
	assert_string_equal(loc.dso->short_name, "jitted-77-2.so");
	assert_true(resolve_addr(&m, t, PERF_RECORD_MISC_USER, 0x1010, 0, &loc)); /* time 0: latest */
	assert_string_equal(loc.sym->name, "B");
	assert_true(resolve_addr(&m, t, PERF_RECORD_MISC_USER, 0x1020, 120, &loc));
	assert_ptr_equal(loc.dso, a_dso); /* one DSO per load */
	/* What an unwinder asks for: the code and its unwinding data. */
	const struct jitdump_code *code = resolve_jit_code(&m, t, 0x1010, 150);
	assert_non_null(code);
	assert_string_equal(code->name, "A");
	assert_non_null(code->unwind);
	assert_null(resolve_jit_code(&m, t, 0x9004, 150));
	/* The moved code: its DSO, the offset from where it is now. */
	assert_true(resolve_addr(&m, t, PERF_RECORD_MISC_USER, 0x6008, 450, &loc));
	assert_string_equal(loc.sym->name, "C");
	assert_int_equal(loc.sym_off, 8);
	assert_int_equal(loc.addr, 0x5008);
	assert_string_equal(loc.dso->short_name, "jitted-77-3.so");
	/* The marker mapping holds no code and is not a mapping of the model. */
	assert_false(resolve_addr(&m, t, PERF_RECORD_MISC_USER, 0x7f0000000010ull, 0, &loc));
	assert_true(resolve_addr(&m, t, PERF_RECORD_MISC_USER, 0x9004, 450, &loc));
	assert_string_equal(loc.sym->name, "from_the_map");
	assert_string_equal(loc.dso->short_name, "[JIT] tid 77");
	const struct jit_source *src;
	assert_int_equal(machine_jit_sources(&m, &src), 1);
	assert_string_equal(src[0].jitdump_path, "/tmp/jit-77.dump");
	assert_true(src[0].jitdump_used);
	assert_true(src[0].jitdump_supplied);
	assert_true(src[0].perfmap_used);
	assert_null(src[0].jitdump_note);
	machine_free(&m);

	/* Only the stored dump: no marker, no mapping recorded for the code. */
	w = (struct w){ 0 };
	write_story(&w, 0);
	machine_init(&m);
	machine_set_jitdump_data(&m, pid, w.b, w.len);
	free(w.b);
	t = machine_thread(&m, pid, pid);
	assert_true(resolve_addr(&m, t, PERF_RECORD_MISC_USER, 0x1010, 250, &loc));
	assert_string_equal(loc.sym->name, "B");
	assert_string_equal(loc.dso->path, "/tmp/jitted-77-2.so");
	assert_non_null(loc.map);
	assert_ptr_equal(loc.map->dso, loc.dso);
	assert_false(resolve_addr(&m, t, PERF_RECORD_MISC_USER, 0x3000, 250, &loc));
	assert_int_equal(machine_jit_sources(&m, &src), 1);
	assert_null(src[0].perfmap_path);
	assert_null(src[0].jitdump_path);
	assert_true(src[0].jitdump_supplied);
	machine_free(&m);
}

/* A dump read from the path of its marker mapping, and one that is gone. */
static void machine_reads_dump_file(void **state)
{
	struct w w = { 0 };
	write_story(&w, 0);
	char *path = xasprintf("%s/jit-88.dump", tmpdir);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(w.b, 1, w.len, f), w.len);
	fclose(f);
	free(w.b);
	struct machine m;
	machine_init(&m);
	machine_mmap(&m, 88, 88, 0x7f0000000000ull, 0x1000, 0, PROT_READ | PROT_EXEC, path, NULL, 0, false);
	machine_mmap(&m, 88, 88, 0x1000, 0x10000, 0x1000, PROT_READ | PROT_EXEC, "//anon", NULL, 0, false);
	machine_mmap(&m, 99, 99, 0x7f0000000000ull, 0x1000, 0, PROT_READ | PROT_EXEC, "/nonexistent/jit-99.dump",
		     NULL, 0, false);
	machine_mmap(&m, 99, 99, 0x1000, 0x10000, 0x1000, PROT_READ | PROT_EXEC, "//anon", NULL, 0, false);
	struct addr_loc loc;
	assert_true(resolve_addr(&m, machine_thread(&m, 88, 88), PERF_RECORD_MISC_USER, 0x5010, 550, &loc));
	assert_string_equal(loc.sym->name, "D");
	char *want = xasprintf("%s/jitted-77-4.so", tmpdir); /* the pid of the records */
	assert_string_equal(loc.dso->path, want);
	free(want);
	/* Gone: a note, and perf's [JIT] DSO with no symbol. */
	assert_true(resolve_addr(&m, machine_thread(&m, 99, 99), PERF_RECORD_MISC_USER, 0x5010, 550, &loc));
	assert_null(loc.sym);
	assert_string_equal(loc.dso->short_name, "[JIT] tid 99");
	const struct jit_source *src;
	size_t n = machine_jit_sources(&m, &src);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++) {
		if (src[i].pid == 88) {
			assert_true(src[i].jitdump_used);
			assert_null(src[i].jitdump_note);
		} else {
			assert_false(src[i].jitdump_used);
			assert_non_null(strstr(src[i].jitdump_note, "no such file"));
		}
	}
	machine_free(&m);
	unlink(path);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(cpython313_fixture),
		cmocka_unit_test(node20_fixture),
		cmocka_unit_test(real_cpython313),
		cmocka_unit_test(real_node_perf_prof),
		cmocka_unit_test(every_record_and_reuse),
		cmocka_unit_test(bad_headers),
		cmocka_unit_test(damaged_records),
		cmocka_unit_test(damage_resumed),
		cmocka_unit_test(every_truncation),
		cmocka_unit_test(random_damage),
		cmocka_unit_test(marker_names),
		cmocka_unit_test(resolve_through_machine),
		cmocka_unit_test(machine_reads_dump_file),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

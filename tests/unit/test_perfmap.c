/* Perf maps: the line format as perf reads it (and the cases perf gets wrong), later-line-wins
 * against a brute-force model, maps written by real CPython 3.12 (-X perf) and Node.js
 * (--perf-basic-prof), the /tmp safety rules (owner, symbolic links, FIFOs, --force), garbage, and
 * resolution through the machine model. */
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
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "jit_test.h"
#include "model/machine.h"
#include "resolve/resolve.h"
#include "symbols/dso.h"
#include "symbols/perfmap.h"
#include "util/error.h"
#include "util/xalloc.h"

static char tmpdir[] = "/tmp/lperf-perfmap-XXXXXX";

/* Pids far above any real one (pid_max is at most 4194304), for maps in /tmp. */
#define FAKE_PID 5100001

static int setup(void **state)
{
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	rmdir(tmpdir);
	return 0;
}

static const char *name_at(struct perfmap *pm, uint64_t addr)
{
	const struct symbol *s = perfmap_find(pm, addr);
	return s ? s->name : NULL;
}

static char *fixture(const char *name, size_t *len)
{
	const char *dir = getenv("FIXTURES");
	char *path = xasprintf("%s/jit/%s", dir && *dir ? dir : "tests/fixtures", name);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	char *buf = xmalloc(1 << 16);
	*len = fread(buf, 1, (1 << 16) - 1, f);
	buf[*len] = 0;
	fclose(f);
	free(path);
	return buf;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void line_format(void **state)
{
	const char text[] = "1000 10 plain\n"
			    "0x2000 0x20 py::foo:/tmp/a b.py\n"   /* 0x prefixes, spaces in the name */
			    "3000\t8 tabbed\r\n"                   /* a tab separator, CRLF */
			    "4000  8 two spaces before size\n"     /* skipped whitespace, like strtoull */
			    "5000 8  leading space kept\n"         /* the name is the rest of the line */
			    "\n"                                   /* blank: not counted */
			    "zz00 8 bad start\n"
			    "6000 8\n"                             /* no name */
			    "6000 8 \n"                            /* empty name */
			    "6000\n"
			    "12345678901234567 8 too wide\n"
			    "7000 8 last_without_newline";
	struct perfmap *pm = perfmap_parse(text, sizeof(text) - 1);
	const struct perfmap_stats *st = perfmap_stats(pm);
	assert_int_equal(st->entries, 6);
	assert_int_equal(st->malformed, 5);
	assert_int_equal(st->first_malformed, 7);
	assert_string_equal(name_at(pm, 0x1000), "plain");
	assert_string_equal(name_at(pm, 0x100f), "plain");
	assert_null(name_at(pm, 0x1010));
	assert_string_equal(name_at(pm, 0x2010), "py::foo:/tmp/a b.py");
	assert_string_equal(name_at(pm, 0x3000), "tabbed");
	assert_string_equal(name_at(pm, 0x4000), "two spaces before size");
	assert_string_equal(name_at(pm, 0x5000), " leading space kept");
	/* perf drops the last character here ("last_without_newlin"); lperf does not. */
	assert_string_equal(name_at(pm, 0x7007), "last_without_newline");
	assert_null(name_at(pm, 0xfff));
	struct notes ns = NOTES_INIT;
	perfmap_notes(pm, &ns);
	assert_int_equal(ns.n, 1);
	assert_non_null(strstr(ns.v[0], "5 malformed lines skipped (first: line 7)"));
	notes_clear(&ns);
	perfmap_free(pm);

	/* Nothing at all, and a map that is only garbage. */
	pm = perfmap_parse("", 0);
	assert_null(name_at(pm, 0));
	perfmap_notes(pm, &ns);
	assert_int_equal(ns.n, 0);
	perfmap_free(pm);
}

static void zero_size_and_top_of_memory(void **state)
{
	const char text[] = "1000 0 label\n"
			    "ffffffffffffff00 200 wraps\n"
			    "ffffffffffffffff 0 very_top\n";
	struct perfmap *pm = perfmap_parse(text, sizeof(text) - 1);
	assert_string_equal(name_at(pm, 0x1000), "label"); /* size 0: its start only, as in perf */
	assert_null(name_at(pm, 0x1001));
	assert_string_equal(name_at(pm, 0xffffffffffffff00ull), "wraps");
	assert_string_equal(name_at(pm, 0xfffffffffffffffeull), "wraps");
	perfmap_free(pm);
}

/* The cases the reference notes checked against perf: same starts, later wins. */
static void later_line_wins(void **state)
{
	const char abc[] = "7e00 100 A\n7e00 10 B\n7e08 10 C\n";
	struct perfmap *pm = perfmap_parse(abc, sizeof(abc) - 1);
	assert_string_equal(name_at(pm, 0x7e05), "B");
	assert_string_equal(name_at(pm, 0x7e08), "C");
	assert_string_equal(name_at(pm, 0x7e17), "C");
	assert_string_equal(name_at(pm, 0x7e18), "A");
	assert_string_equal(name_at(pm, 0x7eff), "A");
	assert_null(name_at(pm, 0x7f00));
	assert_int_equal(perfmap_stats(pm)->overlaps, 2);
	assert_int_equal(perfmap_stats(pm)->duplicates, 0);
	perfmap_free(pm);

	const char cba[] = "7e08 10 C\n7e00 10 B\n7e00 100 A\n";
	pm = perfmap_parse(cba, sizeof(cba) - 1);
	for (uint64_t a = 0x7e00; a < 0x7f00; a++)
		assert_string_equal(name_at(pm, a), "A");
	perfmap_free(pm);

	/* A repeated range with a new name (a JIT reusing a slot): the new name. */
	const char dup[] = "1000 10 old\n2000 10 other\n1000 10 new\n";
	pm = perfmap_parse(dup, sizeof(dup) - 1);
	assert_string_equal(name_at(pm, 0x1004), "new");
	assert_int_equal(perfmap_stats(pm)->duplicates, 1);
	assert_int_equal(perfmap_stats(pm)->overlaps, 0);
	struct notes ns = NOTES_INIT;
	perfmap_notes(pm, &ns);
	assert_string_equal(notes_last(&ns), "1 duplicate entries (the later line wins)");
	notes_clear(&ns);
	/* Lines added later (a growing map) take part, and earlier symbols stay valid. */
	const struct symbol *other = perfmap_find(pm, 0x2000);
	perfmap_add(pm, "2000 4 newer\n", 13, false);
	assert_string_equal(name_at(pm, 0x2000), "newer");
	assert_string_equal(name_at(pm, 0x2004), "other");
	assert_string_equal(other->name, "other");
	perfmap_free(pm);
}

/* Random maps against a model: the latest line covering an address owns it. */
static void matches_brute_force(void **state)
{
	enum { LINES = 400, PROBES = 4000 };
	uint32_t seed = 12345;
	for (int round = 0; round < 20; round++) {
		uint64_t start[LINES], size[LINES];
		char *text = NULL;
		size_t tlen = 0;
		FILE *f = open_memstream(&text, &tlen);
		for (int i = 0; i < LINES; i++) {
			seed = seed * 1103515245 + 12345;
			start[i] = 0x10000 + (seed >> 8) % 0x2000;
			seed = seed * 1103515245 + 12345;
			size[i] = (seed >> 8) % (round % 2 ? 0x40 : 0x400);
			fprintf(f, "%" PRIx64 " %" PRIx64 " n%d\n", start[i], size[i], i);
		}
		fclose(f);
		struct perfmap *pm = perfmap_parse(text, tlen);
		for (int k = 0; k < PROBES; k++) {
			seed = seed * 1103515245 + 12345;
			uint64_t a = 0xff00 + (seed >> 8) % 0x2600;
			int want = -1;
			for (int i = LINES - 1; i >= 0 && want < 0; i--)
				if (a >= start[i] && a - start[i] < (size[i] ? size[i] : 1))
					want = i;
			const struct symbol *s = perfmap_find(pm, a);
			if (want < 0) {
				assert_null(s);
			} else {
				char buf[16];
				snprintf(buf, sizeof(buf), "n%d", want);
				assert_non_null(s);
				assert_string_equal(s->name, buf);
			}
		}
		perfmap_free(pm);
		free(text);
	}
}

static void garbage_never_crashes(void **state)
{
	uint32_t seed = 99;
	char buf[4096];
	for (int round = 0; round < 200; round++) {
		for (size_t i = 0; i < sizeof(buf); i++) {
			seed = seed * 1103515245 + 12345;
			/* Mostly map-like characters, so that some lines parse. */
			static const char alphabet[] = "0123456789abcdefx \n\t\r\0\xff:py";
			buf[i] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
		}
		struct perfmap *pm = perfmap_parse(buf, sizeof(buf));
		for (int k = 0; k < 100; k++) {
			seed = seed * 1103515245 + 12345;
			perfmap_find(pm, seed);
		}
		struct notes ns = NOTES_INIT;
		perfmap_notes(pm, &ns);
		notes_clear(&ns);
		perfmap_free(pm);
	}
}

static void fixtures_parse_clean(void **state)
{
	size_t len;
	char *text = fixture("cpython312.map", &len);
	struct perfmap *pm = perfmap_parse(text, len);
	assert_int_equal(perfmap_stats(pm)->malformed, 0);
	assert_int_equal(perfmap_stats(pm)->overlaps, 0);
	assert_true(perfmap_stats(pm)->entries >= 10);
	/* The trampolines are 11 bytes, back to back. */
	const struct symbol *first = perfmap_entry(pm, 0);
	assert_int_equal(first->size, 0xb);
	assert_string_equal(first->name, "py::_find_and_load:<frozen importlib._bootstrap>");
	assert_ptr_equal(perfmap_find(pm, first->start + 0xa), first);
	assert_ptr_not_equal(perfmap_find(pm, first->start + 0xb), first);
	perfmap_free(pm);
	free(text);

	text = fixture("node20.map", &len);
	pm = perfmap_parse(text, len);
	assert_int_equal(perfmap_stats(pm)->malformed, 0);
	bool hot = false;
	for (size_t i = 0; i < perfmap_stats(pm)->entries; i++)
		hot |= !strncmp(perfmap_entry(pm, i)->name, "JS:", 3) && strstr(perfmap_entry(pm, i)->name, "hotLoop");
	assert_true(hot);
	perfmap_free(pm);
	free(text);
}

/* Reads /tmp/perf-PID.map of a finished process the way report does, then removes it. */
static struct perfmap *read_map_of(pid_t pid)
{
	char *path = perfmap_path(pid);
	char *buf;
	size_t len;
	int r = perfmap_read_pid(pid, false, &buf, &len);
	if (r != 1)
		fprintf(stderr, "%s: %s\n", path, r < 0 ? err_msg() : "missing");
	assert_int_equal(r, 1);
	unlink(path);
	free(path);
	struct perfmap *pm = perfmap_parse(buf, len);
	free(buf);
	return pm;
}

static const struct symbol *find_named(struct perfmap *pm, const char *prefix)
{
	for (size_t i = 0; i < perfmap_stats(pm)->entries; i++)
		if (!strncmp(perfmap_entry(pm, i)->name, prefix, strlen(prefix)))
			return perfmap_entry(pm, i);
	return NULL;
}

static void real_cpython312_map(void **state)
{
	char *py = jit_test_find_python("3.12");
	if (!py) {
		printf("skipped: no pyenv CPython 3.12 (~/.pyenv/versions/3.12*/bin/python3)\n");
		skip();
	}
	char *argv[] = { py, "-X", "perf", "-c",
			 "def foo():\n    return sum(range(100))\n"
			 "def bar():\n    return foo() + 1\n"
			 "for _ in range(100):\n    bar()\n",
			 NULL };
	pid_t pid = 0;
	assert_int_equal(jit_test_run(NULL, argv, &pid), 0);
	struct perfmap *pm = read_map_of(pid);
	assert_int_equal(perfmap_stats(pm)->malformed, 0);
	assert_int_equal(perfmap_stats(pm)->overlaps, 0);
	const struct symbol *foo = find_named(pm, "py::foo:<string>");
	const struct symbol *bar = find_named(pm, "py::bar:<string>");
	assert_non_null(foo);
	assert_non_null(bar);
	assert_int_equal(foo->size, 0xb);
	/* The return address inside the trampoline (after its call) names the function. */
	assert_ptr_equal(perfmap_find(pm, foo->start + 6), foo);
	assert_ptr_equal(perfmap_find(pm, bar->start + 6), bar);
	perfmap_free(pm);
	free(py);
}

static void real_node_basic_prof_map(void **state)
{
	char *node = jit_test_find_in_path("node");
	if (!node) {
		printf("skipped: no node in $PATH\n");
		skip();
	}
	char *argv[] = { node, "--perf-basic-prof", "-e",
			 "function hotLoop(n) { let s = 0; for (let i = 0; i < n; i++) s += i; return s; }\n"
			 "hotLoop(10);",
			 NULL };
	pid_t pid = 0;
	/* In our directory: V8 leaves a log where it runs. */
	int rc = jit_test_run(tmpdir, argv, &pid);
	jit_test_rm_v8_logs(tmpdir);
	assert_int_equal(rc, 0);
	struct perfmap *pm = read_map_of(pid);
	assert_int_equal(perfmap_stats(pm)->malformed, 0);
	assert_true(perfmap_stats(pm)->entries > 100); /* builtins, stubs, handlers */
	const struct symbol *hot = find_named(pm, "JS:~hotLoop [eval]:1:");
	assert_non_null(hot);
	assert_ptr_equal(perfmap_find(pm, hot->start + hot->size / 2), hot);
	perfmap_free(pm);
	free(node);
}

static void file_safety(void **state)
{
	char *path = xasprintf("%s/perf-1.map", tmpdir), *link = xasprintf("%s/perf-2.map", tmpdir);
	char *fifo = xasprintf("%s/perf-3.map", tmpdir), *missing = xasprintf("%s/perf-4.map", tmpdir);
	char *buf;
	size_t len;
	write_file(path, "1000 10 trusted\n");
	/* Ours (root, the test runs as root): read. */
	assert_int_equal(perfmap_read_file(path, false, &buf, &len), 1);
	assert_int_equal(len, 16);
	assert_string_equal(buf, "1000 10 trusted\n");
	free(buf);
	/* Another user's: refused with a reason, unless forced. */
	assert_int_equal(chown(path, 65534, 65534), 0);
	if (geteuid() == 0) {
		assert_int_equal(perfmap_read_file(path, false, &buf, &len), -1);
		assert_null(buf);
		assert_non_null(strstr(err_msg(), "owned by uid 65534"));
		assert_non_null(strstr(err_msg(), "--force"));
	}
	assert_int_equal(perfmap_read_file(path, true, &buf, &len), 1);
	free(buf);
	/* A symbolic link is never followed, forced or not. */
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(perfmap_read_file(link, false, &buf, &len), -1);
	assert_non_null(strstr(err_msg(), "symbolic link"));
	assert_int_equal(perfmap_read_file(link, true, &buf, &len), -1);
	/* A FIFO would block a reader forever. */
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(perfmap_read_file(fifo, true, &buf, &len), -1);
	assert_non_null(strstr(err_msg(), "not a regular file"));
	/* Missing: not an error. */
	assert_int_equal(perfmap_read_file(missing, false, &buf, &len), 0);
	unlink(path);
	unlink(link);
	unlink(fifo);
	free(path);
	free(link);
	free(fifo);
	free(missing);
}

static void mapping_names(void **state)
{
	const uint32_t rx = PROT_READ | PROT_EXEC, rw = PROT_READ | PROT_WRITE;
	const char *jit[] = { "//anon", "", "[anon:v8 code]", "/memfd:doublemap (deleted)", "/dev/zero (deleted)",
			      "/anon_hugepage (deleted)", "[heap]", "[stack]", "/SYSV00000000 (deleted)" };
	for (size_t i = 0; i < ARRAY_SIZE(jit); i++) {
		assert_true(perfmap_covers_mapping(jit[i], rx));
		assert_false(perfmap_covers_mapping(jit[i], rw));
	}
	const char *not_jit[] = { "/usr/lib/libc.so.6", "[vdso]", "[vsyscall]", "[uprobes]", "/tmp/perf-1.map" };
	for (size_t i = 0; i < ARRAY_SIZE(not_jit); i++)
		assert_false(perfmap_covers_mapping(not_jit[i], rx));
}

static const char py_map[] = "7f0000001000 b py::<module>:/srv/app.py\n"
			     "7f000000100b b py::handler:/srv/app.py\n"
			     "7f0000001016 b py::foo:/srv/lib/util.py\n";

static void resolve_through_machine(void **state)
{
	struct machine m;
	machine_init(&m);
	const pid_t pid = 4242;
	machine_comm(&m, pid, pid, "python3", true);
	machine_mmap(&m, pid, pid, 0x7f0000000000ull, 0x10000, 0, PROT_READ | PROT_EXEC, "/usr/bin/python3", NULL,
		     0, false);
	machine_mmap(&m, pid, pid, 0x7f0000001000ull, 0x10000, 0x7f0000001000ull, PROT_READ | PROT_EXEC, "//anon",
		     NULL, 0, false);
	machine_mmap(&m, pid, pid, 0x7f0000020000ull, 0x10000, 0, PROT_READ | PROT_WRITE, "//anon", NULL, 0, false);
	machine_set_perfmap_data(&m, pid, py_map, sizeof(py_map) - 1);
	struct thread *t = machine_thread(&m, pid, pid);
	struct addr_loc loc;
	assert_true(resolve_addr(&m, t, PERF_RECORD_MISC_USER, 0x7f000000101cull, 0, &loc));
	assert_non_null(loc.sym);
	assert_string_equal(loc.sym->name, "py::foo:/srv/lib/util.py");
	assert_int_equal(loc.sym_off, 6);
	assert_int_equal(loc.dso->kind, DSO_JIT);
	assert_string_equal(loc.dso->short_name, "[JIT] tid 4242");
	assert_string_equal(loc.dso->path, "/tmp/perf-4242.map");
	assert_non_null(loc.map);
	/* The time does not matter to a perf map. */
	assert_true(resolve_addr(&m, t, PERF_RECORD_MISC_USER, 0x7f000000100cull, 123456789, &loc));
	assert_string_equal(loc.sym->name, "py::handler:/srv/app.py");
	/* In the JIT mapping but not in the map: perf's "[JIT] tid 4242" and no symbol. */
	assert_true(resolve_addr(&m, t, PERF_RECORD_MISC_USER, 0x7f0000005000ull, 0, &loc));
	assert_null(loc.sym);
	assert_string_equal(loc.dso->short_name, "[JIT] tid 4242");
	/* Writable anonymous memory holds no code: not looked up. */
	assert_true(resolve_addr(&m, t, PERF_RECORD_MISC_USER, 0x7f0000020000ull, 0, &loc));
	assert_int_equal(loc.dso->kind, DSO_ANON);
	assert_null(loc.sym);
	/* No mapping recorded for the arena, but the process has a map: still named. */
	const char more[] = "7f0000900000 20 py::late:/srv/app.py\n";
	struct machine m2;
	machine_init(&m2);
	machine_set_perfmap_data(&m2, pid, more, sizeof(more) - 1);
	struct thread *t2 = machine_thread(&m2, pid, pid);
	assert_true(resolve_addr(&m2, t2, PERF_RECORD_MISC_USER, 0x7f0000900010ull, 0, &loc));
	assert_string_equal(loc.sym->name, "py::late:/srv/app.py");
	assert_non_null(loc.map);
	assert_false(resolve_addr(&m2, t2, PERF_RECORD_MISC_USER, 0x7f0000a00000ull, 0, &loc));
	/* A process without any map stays unmapped. */
	char *none = perfmap_path(FAKE_PID + 1);
	unlink(none);
	free(none);
	assert_false(resolve_addr(&m2, machine_thread(&m2, FAKE_PID + 1, FAKE_PID + 1), PERF_RECORD_MISC_USER,
				     0x7f0000900010ull, 0, &loc));
	const struct jit_source *src;
	assert_int_equal(machine_jit_sources(&m2, &src), 1);
	assert_int_equal(src[0].pid, pid);
	assert_true(src[0].perfmap_used);
	assert_true(src[0].perfmap_supplied);
	assert_string_equal(src[0].perfmap_path, "/tmp/perf-4242.map");
	assert_null(src[0].jitdump_path);
	machine_free(&m2);

	/* A forked child keeps the parent's arena, and its symbols. */
	machine_fork(&m, pid + 1, pid, pid + 1, pid);
	assert_true(resolve_addr(&m, machine_thread(&m, pid + 1, pid + 1), PERF_RECORD_MISC_USER,
				    0x7f0000001005ull, 0, &loc));
	assert_string_equal(loc.sym->name, "py::<module>:/srv/app.py");
	/* Other kinds of JIT mapping. */
	machine_mmap(&m, pid, pid, 0x7f0000100000ull, 0x1000, 0, PROT_READ | PROT_EXEC, "[anon:jit]", NULL, 0, false);
	machine_mmap(&m, pid, pid, 0x7f0000200000ull, 0x1000, 0, PROT_READ | PROT_EXEC, "/memfd:jit (deleted)", NULL,
		     0, false);
	assert_true(resolve_addr(&m, t, PERF_RECORD_MISC_USER, 0x7f0000100010ull, 0, &loc));
	assert_string_equal(loc.dso->short_name, "[JIT] tid 4242");
	assert_true(resolve_addr(&m, t, PERF_RECORD_MISC_USER, 0x7f0000200010ull, 0, &loc));
	assert_string_equal(loc.dso->short_name, "[JIT] tid 4242");
	machine_free(&m);
}

/* Maps read from /tmp: the owner rule with and without --force, and a map that grows while a
 * live session reads it. */
static void machine_reads_tmp_files(void **state)
{
	char *path = perfmap_path(FAKE_PID);
	write_file(path, "7f0000001000 10 py::first:/x.py\n");
	assert_int_equal(chown(path, 65534, 65534), 0);
	for (int force = 0; force < 2; force++) {
		struct machine m;
		machine_init(&m);
		machine_perfmap_path_policy(&m, force);
		machine_mmap(&m, FAKE_PID, FAKE_PID, 0x7f0000001000ull, 0x1000, 0, PROT_READ | PROT_EXEC, "//anon",
			     NULL, 0, false);
		struct addr_loc loc;
		assert_true(resolve_addr(&m, machine_thread(&m, FAKE_PID, FAKE_PID), PERF_RECORD_MISC_USER,
					    0x7f0000001004ull, 0, &loc));
		const struct jit_source *src;
		assert_int_equal(machine_jit_sources(&m, &src), 1);
		if (force || geteuid() != 0) {
			assert_non_null(loc.sym);
			assert_string_equal(loc.sym->name, "py::first:/x.py");
			assert_null(src[0].perfmap_note);
		} else {
			assert_null(loc.sym);
			assert_non_null(src[0].perfmap_note);
			assert_non_null(strstr(src[0].perfmap_note, "owned by uid 65534"));
			assert_false(src[0].perfmap_used);
		}
		machine_free(&m);
	}
	assert_int_equal(chown(path, 0, 0), 0);
	struct machine m;
	machine_init(&m);
	machine_mmap(&m, FAKE_PID, FAKE_PID, 0x7f0000001000ull, 0x1000, 0, PROT_READ | PROT_EXEC, "//anon", NULL, 0,
		     false);
	struct thread *t = machine_thread(&m, FAKE_PID, FAKE_PID);
	struct addr_loc loc;
	assert_true(resolve_addr(&m, t, PERF_RECORD_MISC_USER, 0x7f0000001004ull, 0, &loc));
	assert_string_equal(loc.sym->name, "py::first:/x.py");
	const struct symbol *first = loc.sym;
	FILE *f = fopen(path, "a");
	assert_non_null(f);
	fputs("7f0000001010 10 py::second:/x.py\n", f);
	fclose(f);
	struct timespec pause = { 0, 150 * 1000 * 1000 };
	nanosleep(&pause, NULL);
	assert_true(resolve_addr(&m, t, PERF_RECORD_MISC_USER, 0x7f0000001014ull, 0, &loc));
	assert_non_null(loc.sym);
	assert_string_equal(loc.sym->name, "py::second:/x.py");
	assert_string_equal(first->name, "py::first:/x.py");
	machine_free(&m);
	unlink(path);
	free(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(line_format),
		cmocka_unit_test(zero_size_and_top_of_memory),
		cmocka_unit_test(later_line_wins),
		cmocka_unit_test(matches_brute_force),
		cmocka_unit_test(garbage_never_crashes),
		cmocka_unit_test(fixtures_parse_clean),
		cmocka_unit_test(real_cpython312_map),
		cmocka_unit_test(real_node_basic_prof_map),
		cmocka_unit_test(file_safety),
		cmocka_unit_test(mapping_names),
		cmocka_unit_test(resolve_through_machine),
		cmocka_unit_test(machine_reads_tmp_files),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

/* CPython layouts and the process_vm_readv reader (src/python/):
 *  - the line table decoders on hand-made tables of each encoding;
 *  - the 2.7, 3.6-3.12 offset tables (and 3.13's own _Py_DebugOffsets) against the DWARF of pyenv's
 *    builds, read with gdb where both are present (skipped otherwise);
 *  - the reader on live interpreters (each pyenv CPython 2.7, 3.6-3.13 and Debian's python3.11)
 *    running the CPython documentation's example: the thread's stack reads foo, bar, baz,
 *    <module> with the lines of the calls, and foo's line is in its loop. */
#include <glob.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "python/pygil.h"
#include "python/pylayout.h"
#include "python/pyread.h"
#include "util/xalloc.h"

#define WORKLOAD "tests/workloads/perf_docs.py"

static void test_lnotab(void **state)
{
	/* 3.8: line 6 at 0; +4 bytes -> line 7; +10 bytes -> line 9; (+0, +255-byte jump) */
	const uint8_t t[] = { 4, 1, 10, 2, 6, (uint8_t)-1 };
	assert_int_equal(pyline_lookup(PY_LNOTAB, t, sizeof(t), 6, 0), 6);
	assert_int_equal(pyline_lookup(PY_LNOTAB, t, sizeof(t), 6, 4), 7);
	assert_int_equal(pyline_lookup(PY_LNOTAB, t, sizeof(t), 6, 13), 7);
	assert_int_equal(pyline_lookup(PY_LNOTAB, t, sizeof(t), 6, 14), 9);
	assert_int_equal(pyline_lookup(PY_LNOTAB, t, sizeof(t), 6, 20), 8);
	assert_int_equal(pyline_lookup(PY_LNOTAB, t, 1, 6, 20), 6); /* odd length: pair ignored */
}

static void test_lnotab27(void **state)
{
	/* 2.7: the same pairs, line increments unsigned (a jump of 200 lines, then 255 more) */
	const uint8_t t[] = { 4, 1, 10, 200, 6, 255 };
	assert_int_equal(pyline_lookup(PY_LNOTAB27, t, sizeof(t), 6, 0), 6);
	assert_int_equal(pyline_lookup(PY_LNOTAB27, t, sizeof(t), 6, 13), 7);
	assert_int_equal(pyline_lookup(PY_LNOTAB27, t, sizeof(t), 6, 14), 207);
	assert_int_equal(pyline_lookup(PY_LNOTAB27, t, sizeof(t), 6, 20), 462);
	/* the same bytes read as 3.6+'s signed increments */
	assert_int_equal(pyline_lookup(PY_LNOTAB, t, sizeof(t), 6, 20), 6 + 1 - 56 - 1);
}

static void test_linetable310(void **state)
{
	/* [0,2) line 6; [2,8) line 7; [8,10) no line; [10,14) line 9 */
	const uint8_t t[] = { 2, 0, 6, 1, 2, (uint8_t)-128, 4, 2 };
	assert_int_equal(pyline_lookup(PY_LINETABLE310, t, sizeof(t), 6, 0), 6);
	assert_int_equal(pyline_lookup(PY_LINETABLE310, t, sizeof(t), 6, 7), 7);
	assert_int_equal(pyline_lookup(PY_LINETABLE310, t, sizeof(t), 6, 8), -1);
	assert_int_equal(pyline_lookup(PY_LINETABLE310, t, sizeof(t), 6, 12), 9);
}

static void test_locations(void **state)
{
	/* code 13 (no column), 1 unit, line +1; code 10 (one line, +0), 2 units, 2 column bytes;
	 * code 14 (long), 1 unit, line +3 (svarint 6), end 0, cols 1, 2; code 15 (none), 1 unit;
	 * short form code 0, 1 unit (same line). */
	const uint8_t t[] = { 0x80 | (13 << 3) | 0, 2,
			      0x80 | (10 << 3) | 1, 4, 8,
			      0x80 | (14 << 3) | 0, 6, 0, 1, 2,
			      0x80 | (15 << 3) | 0,
			      0x80 | (0 << 3) | 0, 3 };
	assert_int_equal(pyline_lookup(PY_LOCATIONS, t, sizeof(t), 10, 0), 11);
	assert_int_equal(pyline_lookup(PY_LOCATIONS, t, sizeof(t), 10, 2), 11);
	assert_int_equal(pyline_lookup(PY_LOCATIONS, t, sizeof(t), 10, 5), 11);
	assert_int_equal(pyline_lookup(PY_LOCATIONS, t, sizeof(t), 10, 6), 14);
	assert_int_equal(pyline_lookup(PY_LOCATIONS, t, sizeof(t), 10, 8), -1);
	assert_int_equal(pyline_lookup(PY_LOCATIONS, t, sizeof(t), 10, 10), 14);
	/* a truncated long form ends the walk without reading past the table */
	assert_int_equal(pyline_lookup(PY_LOCATIONS, t, 7, 10, 6), 11);
}

static void test_version_from_name(void **state)
{
	int a, b;
	assert_int_equal(pylayout_version_from_name("/x/lib/libpython3.11.so.1.0", &a, &b), 0);
	assert_int_equal(a * 100 + b, 311);
	assert_int_equal(pylayout_version_from_name("/usr/bin/python3.9", &a, &b), 0);
	assert_int_equal(a * 100 + b, 309);
	assert_int_equal(pylayout_version_from_name("/x/lib/libpython3.6m.so.1.0", &a, &b), 0);
	assert_int_equal(a * 100 + b, 306);
	assert_int_equal(pylayout_version_from_name("/usr/bin/python2.7", &a, &b), 0);
	assert_int_equal(a * 100 + b, 207);
	assert_int_equal(pylayout_version_from_name("/usr/bin/python3", &a, &b), -1);
	assert_int_equal(pylayout_version_from_name("/usr/lib/libc.so.6", &a, &b), -1);
}

static void test_debug_offsets_rejects(void **state)
{
	uint8_t img[PYLAYOUT_DEBUG_OFFSETS_SIZE] = { 0 };
	struct py_layout l;
	assert_int_equal(pylayout_from_debug_offsets(img, sizeof(img), &l), -1);
	memcpy(img, "xdebugpy", 8);
	uint64_t v = 0x030e00f0; /* 3.14 */
	memcpy(img + 8, &v, 8);
	assert_int_equal(pylayout_from_debug_offsets(img, sizeof(img), &l), -1);
	v = 0x030d00f0;
	memcpy(img + 8, &v, 8);
	uint64_t huge = 1u << 30;
	memcpy(img + 40, &huge, 8);
	assert_int_equal(pylayout_from_debug_offsets(img, sizeof(img), &l), -1);
	assert_int_equal(pylayout_from_debug_offsets(img, 100, &l), -1);
}

/* The versions lperf has a table for, then 3.13 (its offsets come from the process). */
static const int versions[][2] = { { 2, 7 }, { 3, 6 }, { 3, 7 }, { 3, 8 }, { 3, 9 }, { 3, 10 },
				   { 3, 11 }, { 3, 12 }, { 3, 13 } };
#define NVERSIONS (sizeof(versions) / sizeof(versions[0]))

/* pyenv's installs with their libpython (3.6, 3.7: libpython3.Xm), by version. */
static char *pyenv_lib(int major, int minor, char **python)
{
	char pat[256];
	snprintf(pat, sizeof(pat), "%s/.pyenv/versions/%d.%d.*/lib/libpython%d.%d*.so.1.0",
		 getenv("HOME") ? getenv("HOME") : "/root", major, minor, major, minor);
	glob_t g;
	char *lib = NULL;
	if (glob(pat, 0, NULL, &g) == 0 && g.gl_pathc) {
		lib = xstrdup(g.gl_pathv[g.gl_pathc - 1]);
		char *p = xstrdup(lib);
		*strstr(p, "/lib/libpython") = 0;
		*python = xasprintf("%s/bin/python%d.%d", p, major, minor);
		free(p);
	}
	globfree(&g);
	return lib;
}

/* The offsets gdb computes from lib's DWARF, "name=value" lines into the layout's fields. */
static int gdb_layout(const char *lib, int major, int minor, struct py_layout *out)
{
	char cmd[4096];
	snprintf(cmd, sizeof(cmd), "sh tests/unit/pylayout_gdb.sh '%s' %d %d 2>/dev/null", lib, minor, major);
	FILE *f = popen(cmd, "r");
	if (!f)
		return -1;
	static const struct { const char *name; size_t off; } names[] = {
#define F(x) { #x, offsetof(struct py_layout, x) }
		F(runtime_interp_head), F(interp_tstate_head), F(tstate_next), F(tstate_thread_id),
		F(tstate_native_tid), F(tstate_frame), F(cframe_current), F(frame_back), F(frame_code),
		F(frame_lasti), F(frame_owner), F(frame_is_entry), F(code_name), F(code_qualname),
		F(code_filename), F(code_firstlineno), F(code_linetable), F(code_adaptive),
		F(unicode_state), F(unicode_length), F(ascii_size), F(compact_size), F(bytes_size),
		F(bytes_sval), F(tstate_interp), F(runtime_gil), F(interp_gil), F(gil_locked), F(gil_holder),
#undef F
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int32_t none = -1;
		memcpy((char *)out + names[i].off, &none, 4);
	}
	char line[256];
	int n = 0;
	while (fgets(line, sizeof(line), f)) {
		char *eq = strchr(line, '=');
		if (!eq)
			continue;
		*eq = 0;
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(line, names[i].name)) {
				int32_t v = (int32_t)atoi(eq + 1);
				memcpy((char *)out + names[i].off, &v, 4);
				n++;
			}
	}
	pclose(f);
	return n;
}

static void check_fields(const struct py_layout *want, const struct py_layout *got, int major, int minor)
{
	const int32_t *a = &want->runtime_interp_head, *b = &got->runtime_interp_head;
	size_t n = (offsetof(struct py_layout, gil_holder) + 4 - offsetof(struct py_layout, runtime_interp_head)) / 4;
	for (size_t i = 0; i < n; i++) {
		if (a[i] != b[i])
			fail_msg("%d.%d: field %zu of struct py_layout: debug info says %d, lperf has %d", major,
				 minor, i, a[i], b[i]);
	}
}

static void test_tables_match_debug_info(void **state)
{
	if (system("command -v gdb >/dev/null 2>&1") != 0)
		skip();
	int checked = 0;
	for (size_t v = 0; v < NVERSIONS; v++) {
		int major = versions[v][0], minor = versions[v][1];
		if (major == 3 && minor == 13)
			continue;
		char *py = NULL, *lib = pyenv_lib(major, minor, &py);
		if (!lib)
			continue;
		struct py_layout dw;
		if (gdb_layout(lib, major, minor, &dw) >= 14) {
			check_fields(&dw, pylayout_table(major, minor), major, minor);
			/* only 2.7 and 3.6 need it (to find interp_head without symbols) */
			assert_int_equal(dw.tstate_interp, major == 2 || minor <= 6 ?
					 pylayout_table(major, minor)->tstate_interp : -1);
			checked++;
		}
		free(lib);
		free(py);
	}
	printf("# %d layouts checked against debug info\n", checked);
	if (!checked)
		skip();
}

/* A running interpreter of the example, and what the reader finds in it. */
static pid_t spawn(const char *python)
{
	pid_t pid = fork();
	if (pid == 0) {
		execl(python, python, WORKLOAD, "1000000000", (char *)NULL);
		_exit(127);
	}
	return pid;
}

static void check_live(const char *python, int major, int minor, const char *lib)
{
	pid_t pid = spawn(python);
	assert_true(pid > 0);
	struct py_proc p;
	int r = 1;
	struct pyread rd = { 0 };
	struct py_rawframe raw[64];
	struct py_frame fr[64];
	size_t n = 0;
	bool holds = false;
	/* Until the interpreter is in foo's loop. */
	for (int tries = 0; tries < 100; tries++) {
		struct timespec ts = { 0, 50 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		if (r != 0 && (r = pylayout_find(pid, &p)) != 0)
			continue;
		if (!rd.proc.pid)
			pyread_init(&rd, &p);
		struct py_thread th[8];
		int nt = pyread_threads(&rd, th, 8);
		if (nt < 1)
			continue;
		bool trunc;
		size_t nr = pyread_stack(&rd, th[0].tstate, raw, 64, &trunc);
		n = pyread_cook(&rd, raw, nr, fr, 64);
		/* The one thread computes: it holds the GIL (2.7 lets it go every 100 bytecodes for
		 * an instant, so the next look may see it held) */
		if (!holds)
			holds = pygil_holder(&p) == th[0].tstate;
		if (n >= 4 && !strcmp(rd.codes[fr[0].code]->name, "foo") && holds)
			break;
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	assert_int_equal(r, 0);
	assert_true(p.gil_known);
	if (!holds)
		fail_msg("%s: the GIL's holder is not the one thread computing", python);
	if (lib && minor < 13) {
		/* The layout the process gave is the table's, and came from the right file. */
		assert_non_null(strstr(p.lib, "libpython"));
	}
	assert_int_equal(p.layout.major, major);
	assert_int_equal(p.layout.minor, minor);
	assert_true(n >= 4);
	const char *want[] = { "foo", "bar", "baz", "<module>" };
	int lines[] = { 8, 14, 18, 21 };
	for (int i = 0; i < 4; i++) {
		const struct py_code *c = rd.codes[fr[i].code];
		if (strcmp(c->name, want[i]))
			fail_msg("%s: frame %d is %s, want %s", python, i, c->name, want[i]);
		assert_non_null(strstr(c->filename, "perf_docs.py"));
		if (i == 0)
			assert_true(fr[i].line == 8 || fr[i].line == 9);
		else if (fr[i].line != lines[i])
			fail_msg("%s: %s at line %d, want %d", python, want[i], fr[i].line, lines[i]);
	}
	/* Each Python call is its own eval-loop call before 3.11; inlined since. */
	assert_true(fr[3].entry);
	if (minor >= 11)
		assert_false(fr[0].entry);
	pyread_free(&rd);
}

static void test_live_interpreters(void **state)
{
	int checked = 0;
	for (size_t v = 0; v < NVERSIONS; v++) {
		char *py = NULL, *lib = pyenv_lib(versions[v][0], versions[v][1], &py);
		if (!lib)
			continue;
		check_live(py, versions[v][0], versions[v][1], lib);
		checked++;
		free(lib);
		free(py);
	}
	if (access("/usr/bin/python3.11", X_OK) == 0) {
		check_live("/usr/bin/python3.11", 3, 11, NULL);
		checked++;
	}
	printf("# %d interpreters read\n", checked);
	if (!checked)
		skip();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lnotab),
		cmocka_unit_test(test_lnotab27),
		cmocka_unit_test(test_linetable310),
		cmocka_unit_test(test_locations),
		cmocka_unit_test(test_version_from_name),
		cmocka_unit_test(test_debug_offsets_rejects),
		cmocka_unit_test(test_tables_match_debug_info),
		cmocka_unit_test(test_live_interpreters),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* python/pymethod.c: the one decision of how --python gets Python stacks (record, sample and
 * lperf test's description all ask pymethod_choose). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "python/pymethod.h"
#include "sysinfo/python.h"
#include "util/error.h"
#include "util/notes.h"
#include "util/xalloc.h"

static struct pyinfo py(const char *impl, int minor, bool trampoline, bool jit, bool fp)
{
	struct pyinfo p;
	memset(&p, 0, sizeof(p));
	p.implementation = (char *)impl;
	p.major = 3;
	p.minor = minor;
	p.perf_trampoline = trampoline;
	p.perf_jit = jit;
	p.frame_pointers = fp;
	return p;
}

static void test_choose(void **state)
{
	struct pymethod_choice c;
	/* 3.11: no perf support in the interpreter: its frames are read, unwinding as the build allows. */
	struct pyinfo p = py("CPython", 11, false, false, true);
	pymethod_choose(&p, false, false, &c);
	assert_int_equal(c.method, PYMETHOD_FRAMES);
	assert_true(c.frame_pointers);
	assert_null(c.env);
	/* 3.12: the perf trampoline; DWARF without frame pointers. */
	p = py("CPython", 12, true, false, false);
	pymethod_choose(&p, false, false, &c);
	assert_int_equal(c.method, PYMETHOD_TRAMPOLINE);
	assert_false(c.frame_pointers);
	assert_string_equal(c.env, "PYTHONPERFSUPPORT");
	/* --python-frames wins over the interpreter's own support. */
	pymethod_choose(&p, true, false, &c);
	assert_int_equal(c.method, PYMETHOD_FRAMES);
	/* Where BPF reads the frames at each sample, they win over the trampoline. */
	pymethod_choose(&p, false, true, &c);
	assert_int_equal(c.method, PYMETHOD_FRAMES);
	assert_null(c.env);
	/* 3.13: perf_jit, always DWARF. */
	p = py("CPython", 13, true, true, true);
	pymethod_choose(&p, false, false, &c);
	assert_int_equal(c.method, PYMETHOD_PERF_JIT);
	assert_false(c.frame_pointers);
	assert_string_equal(c.env, "PYTHON_PERF_JIT_SUPPORT");
	pymethod_choose(&p, false, true, &c);
	assert_int_equal(c.method, PYMETHOD_FRAMES);
	/* A 3.12+ lperf cannot read (a future layout) keeps its own support, BPF or not. */
	p = py("CPython", 40, true, true, false);
	pymethod_choose(&p, false, true, &c);
	assert_int_equal(c.method, PYMETHOD_PERF_JIT);
	/* 3.7, 3.6 and 2.7: their frames are read too. */
	p = py("CPython", 7, false, false, false);
	pymethod_choose(&p, false, false, &c);
	assert_int_equal(c.method, PYMETHOD_FRAMES);
	p = py("CPython", 6, false, false, false);
	pymethod_choose(&p, false, false, &c);
	assert_int_equal(c.method, PYMETHOD_FRAMES);
	p = py("CPython", 7, false, false, false);
	p.major = 2;
	pymethod_choose(&p, false, false, &c);
	assert_int_equal(c.method, PYMETHOD_FRAMES);
	/* Nothing to read: 3.5, PyPy, a layout lperf does not know. */
	p = py("CPython", 5, false, false, true);
	pymethod_choose(&p, false, false, &c);
	assert_int_equal(c.method, PYMETHOD_NONE);
	p = py("PyPy", 10, false, false, true);
	pymethod_choose(&p, false, false, &c);
	assert_int_equal(c.method, PYMETHOD_NONE);
	p = py("CPython", 40, false, false, true);
	pymethod_choose(&p, false, false, &c);
	assert_int_equal(c.method, PYMETHOD_NONE);
}

/* lperf test's words follow the same choice. */
static void test_describe(void **state)
{
	setenv("LPERF_NO_BPF", "1", 1);
	char buf[256];
	struct pyinfo p = py("CPython", 12, true, false, false);
	/* without BPF the threads are paused (python/pysampler.h) where Yama lets lperf trace its
	 * children (scope 0 or 1, or 2 as root), on x86-64 */
	int scope = 0;
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
	if (f) {
		if (fscanf(f, "%d", &scope) != 1)
			scope = 0;
		fclose(f);
	}
#if defined(__x86_64__)
	bool paused = scope <= 1 || (scope == 2 && geteuid() == 0);
#else
	bool paused = false;
#endif
	const char *frames = paused ? "frame reads with the threads paused at each sample (ptrace), exact "
				      "(no BPF: LPERF_NO_BPF is set)"
				    : "process_vm_readv frame reads, approximate (no BPF: LPERF_NO_BPF is set)";
	char want[512];
	/* paused, 3.12 is read so too (-X perf where the recording would not pause it) */
	if (paused)
		snprintf(want, sizeof(want), "%s; -X perf (perf map) with --nonblocking or other events", frames);
	else
		snprintf(want, sizeof(want), "-X perf (perf map); without flags: %s (--python-frames)", frames);
	assert_string_equal(pymethod_describe(&p, buf, sizeof(buf)), want);
	p = py("CPython", 13, true, true, false);
	if (paused)
		snprintf(want, sizeof(want), "%s; -X perf_jit (jitdump) with --nonblocking or other events", frames);
	else
		snprintf(want, sizeof(want), "-X perf_jit (jitdump); without flags: %s (--python-frames)", frames);
	assert_string_equal(pymethod_describe(&p, buf, sizeof(buf)), want);
	p = py("CPython", 11, false, false, true);
	assert_string_equal(pymethod_describe(&p, buf, sizeof(buf)), frames);
	p = py("PyPy", 10, false, false, true);
	assert_string_equal(pymethod_describe(&p, buf, sizeof(buf)),
			    "none: native frames only (Python frames need CPython 2.7 or 3.6 to 3.13)");
}

/* The command asks CPython for its own perf support: -X perf or -X perf_jit among the
 * interpreter's options (not the script's), or the variables in the environment. */
static void test_asks_own(void **state)
{
	unsetenv("PYTHONPERFSUPPORT");
	unsetenv("PYTHON_PERF_JIT_SUPPORT");
	char *a[] = { "python3", "-X", "perf", "s.py", NULL };
	assert_true(pymethod_asks_own(a));
	char *b[] = { "python3", "-u", "-Xperf_jit", "s.py", NULL };
	assert_true(pymethod_asks_own(b));
	char *c[] = { "python3", "-W", "ignore", "-Wdefault", "-X", "perf_jit", "-c", "pass", NULL };
	assert_true(pymethod_asks_own(c));
	char *d[] = { "python3", "s.py", "-X", "perf", NULL };     /* the script's arguments */
	assert_false(pymethod_asks_own(d));
	char *e[] = { "python3", "-X", "importtime", "-c", "pass", NULL };
	assert_false(pymethod_asks_own(e));
	char *f[] = { "python3", "-X", NULL };                     /* cut short */
	assert_false(pymethod_asks_own(f));
	char *g[] = { "python3", "-c", "-X", "perf", NULL };
	assert_false(pymethod_asks_own(g));
	char *h[] = { "python3", "s.py", NULL };
	assert_false(pymethod_asks_own(h));
	setenv("PYTHONPERFSUPPORT", "1", 1);
	assert_true(pymethod_asks_own(h));
	setenv("PYTHONPERFSUPPORT", "0", 1);
	assert_false(pymethod_asks_own(h));
	unsetenv("PYTHONPERFSUPPORT");
	setenv("PYTHON_PERF_JIT_SUPPORT", "1", 1);
	assert_true(pymethod_asks_own(h));
	unsetenv("PYTHON_PERF_JIT_SUPPORT");
}

/* pymethod_setup on commands that are no Python: a wrapper gets the frames of the Pythons it
 * starts (DWARF unwinding when no call graph was asked), said once; a command that cannot run is
 * said so. */
static void test_setup_not_python(void **state)
{
	(void)state;
	struct notes said = NOTES_INIT;
	struct pymethod_setup s = { false, PYMETHOD_UNWIND_NONE, 0 };
	assert_int_equal(pymethod_setup("/bin/true", &s, &said), 0);
	assert_true(s.frames);
	assert_int_equal(s.unwind, PYMETHOD_UNWIND_DWARF);
	assert_int_equal(said.n, 1);
	assert_non_null(strstr(said.v[0], "/bin/true is not a Python interpreter: reading the frames"));
	notes_clear(&said);
	s = (struct pymethod_setup){ true, PYMETHOD_UNWIND_NONE, 0 };
	assert_int_equal(pymethod_setup("/bin/true", &s, &said), 0);
	assert_int_equal(s.unwind, PYMETHOD_UNWIND_DWARF);
	assert_int_equal(s.stack_size, 16384);
	assert_true(s.frames);
	s = (struct pymethod_setup){ true, PYMETHOD_UNWIND_FP, 0 };
	assert_int_equal(pymethod_setup("/bin/true", &s, &said), 0);
	assert_int_equal(s.unwind, PYMETHOD_UNWIND_FP);
	assert_int_equal(s.stack_size, 0);
	s = (struct pymethod_setup){ true, PYMETHOD_UNWIND_NONE, 0 };
	assert_int_equal(pymethod_setup("/nonexistent/python3", &s, &said), -1);
	assert_non_null(strstr(err_msg(), "--python: cannot run '/nonexistent/python3'"));
	assert_int_equal(said.n, 0);
	notes_clear(&said);
}

static char *script(const char *dir, const char *name, const char *first_line)
{
	char *p = xasprintf("%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fprintf(f, "%s\nprint(1)\n", first_line);
	fclose(f);
	chmod(p, 0755);
	return p;
}

/* "#!" scripts name their interpreter: a path, or env's NAME looked up in PATH (-S too);
 * anything else is none. A script is set up as its interpreter, never run to be probed. */
static void test_shebang(void **state)
{
	(void)state;
	char dir[] = "/tmp/lperf-shebang-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char *a = script(dir, "a", "#!/usr/bin/python3 -u"), *b = script(dir, "b", "#!/usr/bin/env sh"),
	     *c = script(dir, "c", "#! /usr/bin/env -S sh -e"), *d = script(dir, "d", "print(1)"),
	     *e = script(dir, "e", "#!/usr/bin/env -i sh"), *f = script(dir, "f", "#!/nonexistent/python3");
	char *sh = pyinfo_shebang("sh");
	assert_null(sh); /* a binary */
	char *got = pyinfo_shebang(a);
	assert_string_equal(got, "/usr/bin/python3");
	free(got);
	got = pyinfo_shebang(b);
	assert_non_null(got);
	assert_non_null(strstr(got, "/sh"));
	free(got);
	got = pyinfo_shebang(c);
	assert_non_null(got);
	assert_non_null(strstr(got, "/sh"));
	free(got);
	assert_null(pyinfo_shebang(d));
	assert_null(pyinfo_shebang(e));
	assert_null(pyinfo_shebang("/nonexistent/script"));
	struct notes said = NOTES_INIT;
	struct pymethod_setup s = { false, PYMETHOD_UNWIND_NONE, 0 };
	assert_int_equal(pymethod_setup(f, &s, &said), -1);
	assert_non_null(strstr(err_msg(), "--python: cannot run '/nonexistent/python3'"));
	assert_int_equal(said.n, 1);
	assert_non_null(strstr(said.v[0], "is a script run by /nonexistent/python3"));
	notes_clear(&said);
	char *all[] = { a, b, c, d, e, f };
	for (size_t i = 0; i < 6; i++) {
		unlink(all[i]);
		free(all[i]);
	}
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_choose),
		cmocka_unit_test(test_shebang),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_asks_own),
		cmocka_unit_test(test_setup_not_python),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

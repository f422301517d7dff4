/* Python stacks in recordings (src/python/pystore.c) and their join with native stacks
 * (pymerge.c): a blob written and read back, every truncation of it refused with a message
 * naming the offset, the nearest-stack join within its window, and the eval-loop replacement
 * (one native _PyEval_EvalFrameDefault per group of Python frames ending at an entry frame;
 * leftovers at the outermost eval frame; stacks with py:: frames or whole native stacks without
 * the eval loop left alone), and CPython's own frames completed where the unwinder cut them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "python/pymerge.h"
#include "python/pystore.h"
#include "util/error.h"
#include "util/xalloc.h"

/* A reader with two code objects, as if read from a process. */
static void fake_reader(struct pyread *r)
{
	memset(r, 0, sizeof(*r));
	const char *names[] = { "foo", "<module>" };
	r->codes = xcalloc(2, sizeof(*r->codes));
	for (int i = 0; i < 2; i++) {
		struct py_code *c = xcalloc(1, sizeof(*c));
		c->id = (uint32_t)i;
		c->name = xstrdup(names[i]);
		c->filename = xstrdup("/w/x.py");
		c->firstline = 1 + i;
		r->codes[i] = c;
	}
	r->ncodes = r->ccap = 2;
}

static uint8_t *sample_blob(size_t *len, uint32_t flags)
{
	struct pyread r;
	fake_reader(&r);
	struct pystore_writer w = { 0 };
	w.flags = flags;
	struct py_frame f[2] = { { 0, 8, false }, { 1, 21, true } };
	pystore_add(&w, 1000000, 7, 0, f, 2);
	pystore_add(&w, 3000000, 7, PYSTORE_TRUNCATED, f + 1, 1);
	pystore_add(&w, 2000000, 8, 0, f, 2);
	uint8_t *b = pystore_finish(&w, &r, len);
	pystore_writer_free(&w);
	pyread_free(&r);
	return b;
}

/* The GIL: each stack's bit, the blob's GIL_KNOWN (a recording without it, as an older lperf
 * wrote, says nothing: -1) and its requests (--gil, --wall's marks). */
static void test_gil(void **state)
{
	struct pyread r;
	fake_reader(&r);
	struct py_frame f[1] = { { 0, 8, true } };
	for (int known = 0; known < 2; known++) {
		struct pystore_writer w = { 0 };
		w.flags = known ? PYSTORE_GIL_KNOWN | PYSTORE_GIL_ONLY : 0;
		pystore_add(&w, 1000000, 7, PYSTORE_GIL, f, 1);
		pystore_add(&w, 1000000, 8, PYSTORE_TRUNCATED, f, 1);
		size_t len;
		uint8_t *b = pystore_finish(&w, &r, &len);
		struct pystore *s = pystore_new();
		assert_int_equal(pystore_load(s, 42, b, len), 0);
		assert_int_equal(pystore_gil(s, 42, 7, 1000100), known ? 1 : -1);
		assert_int_equal(pystore_gil(s, 42, 8, 1000100), known ? 0 : -1);
		assert_int_equal(pystore_gil(s, 42, 9, 1000100), -1); /* no stack of that thread */
		assert_int_equal(pystore_gil_flags(s), known ? PYSTORE_GIL_ONLY : 0);
		size_t n;
		bool cut;
		assert_non_null(pystore_find(s, 42, 8, 1000100, &n, &cut));
		assert_true(cut); /* the GIL bit leaves the truncation bit alone */
		assert_non_null(pystore_find(s, 42, 7, 1000100, &n, &cut));
		assert_false(cut);
		pystore_free(s);
		free(b);
		pystore_writer_free(&w);
	}
	assert_int_equal(pystore_gil(NULL, 42, 7, 0), -1);
	assert_int_equal(pystore_gil_flags(NULL), 0);
	pyread_free(&r);
}

/* record --wall: [GIL] goes at the outer end, a pseudo-frame (no DSO), which the Python view keeps. */
static void test_gil_mark(void **state)
{
	size_t cap = 2, n = 2;
	struct frame *fr = xcalloc(cap, sizeof(*fr));
	struct symbol py = { 0, 0, (char *)"py::foo:/w/x.py", NULL };
	fr[0].loc.sym = &py;
	fr[1].loc.sym = &py;
	n = pymerge_gil_mark(&fr, &cap, n);
	assert_int_equal(n, 3);
	assert_string_equal(fr[2].loc.sym->name, "[GIL]");
	assert_null(fr[2].loc.dso);
	free(fr);
}

static void test_roundtrip_and_find(void **state)
{
	size_t len;
	uint8_t *b = sample_blob(&len, 0);
	struct pystore *s = pystore_new();
	assert_int_equal(pystore_load(s, 42, b, len), 0);
	assert_int_equal(pystore_nstacks(s), 3);
	assert_false(pystore_approx(s));
	size_t n;
	bool cut;
	const struct pystore_frame *f = pystore_find(s, 42, 7, 1000500, &n, &cut);
	assert_non_null(f);
	assert_int_equal(n, 2);
	assert_false(cut);
	assert_string_equal(f[0].sym->name, "py::foo:/w/x.py");
	assert_int_equal(f[0].line, 8);
	assert_true(f[1].entry);
	/* nothing within 1 ms: 2 ms after the last stack */
	assert_null(pystore_find(s, 42, 7, 5000000, &n, &cut));
	/* between two stacks, the nearer */
	f = pystore_find(s, 42, 7, 1400000, &n, &cut);
	assert_int_equal(n, 2);
	f = pystore_find(s, 42, 7, 2999990, &n, &cut);
	assert_int_equal(n, 1);
	assert_true(cut); /* the stack a reader's bound cut keeps saying so */
	assert_null(pystore_find(s, 43, 7, 1000000, &n, &cut));   /* other process */
	assert_null(pystore_find(s, 42, 9, 1000000, &n, &cut));   /* other thread */
	pystore_free(s);
	free(b);

	/* approximate stacks match within 250 ms */
	b = sample_blob(&len, PYSTORE_APPROX);
	s = pystore_new();
	assert_int_equal(pystore_load(s, 42, b, len), 0);
	assert_true(pystore_approx(s));
	assert_non_null(pystore_find(s, 42, 7, 200000000, &n, &cut));
	pystore_free(s);
	free(b);
}

/* The threads' Python names: stored after the stacks (PYSTORE_NAMES), a thread's last name
 * kept, one without stacks too; a blob without the flag (an older lperf's) has none; every cut
 * of the names is refused. */
static void test_names(void **state)
{
	struct pyread r;
	fake_reader(&r);
	struct pystore_writer w = { 0 };
	struct py_frame f[1] = { { 0, 8, true } };
	pystore_add(&w, 1000, 7, 0, f, 1);
	pystore_add(&w, 2000, 8, 0, f, 1);
	pystore_add(&w, 3000, 9, 0, f, 1);
	assert_int_equal(w.unnamed, 3);
	pystore_set_name(&w, 7, "MainThread");
	pystore_set_name(&w, 8, "old");
	pystore_set_name(&w, 8, "Thread-1 (worker)");
	pystore_set_name(&w, 8, "");
	pystore_set_name(&w, 11, "no stacks");
	assert_int_equal(w.unnamed, 1); /* tid 9 */
	size_t len;
	uint8_t *b = pystore_finish(&w, &r, &len);
	struct pystore *s = pystore_new();
	assert_int_equal(pystore_load(s, 42, b, len), 0);
	assert_true(pystore_proc_flags(s, 42) & PYSTORE_NAMES);
	assert_string_equal(pystore_thread_name(s, 42, 7), "MainThread");
	assert_string_equal(pystore_thread_name(s, 42, 8), "Thread-1 (worker)");
	assert_string_equal(pystore_thread_name(s, 42, 11), "no stacks");
	assert_null(pystore_thread_name(s, 42, 9));
	assert_null(pystore_thread_name(s, 43, 7));
	pystore_free(s);
	/* an older lperf's blob: no flag, nothing after the stacks */
	uint32_t flags;
	memcpy(&flags, b + 8, 4);
	flags &= ~(uint32_t)PYSTORE_NAMES;
	memcpy(b + 8, &flags, 4);
	size_t names = 4 + 3 * 6 + strlen("MainThread") + strlen("Thread-1 (worker)") + strlen("no stacks");
	s = pystore_new();
	assert_int_equal(pystore_load(s, 42, b, len - names), 0);
	assert_int_equal(pystore_nstacks(s), 3);
	assert_null(pystore_thread_name(s, 42, 7));
	pystore_free(s);
	flags |= PYSTORE_NAMES;
	memcpy(b + 8, &flags, 4);
	for (size_t cut = len - names; cut < len; cut++) {
		s = pystore_new();
		assert_int_equal(pystore_load(s, 42, b, cut), -1);
		pystore_free(s);
	}
	free(b);
	pystore_writer_free(&w);
	pyread_free(&r);
}

static void test_damaged(void **state)
{
	size_t len;
	uint8_t *b = sample_blob(&len, 0);
	for (size_t cut = 0; cut < len; cut++) {
		struct pystore *s = pystore_new();
		assert_int_equal(pystore_load(s, 1, b, cut), -1);
		assert_non_null(strstr(err_msg(), "pid 1"));
		assert_int_equal(pystore_nstacks(s), 0);
		pystore_free(s);
	}
	/* a code index out of range */
	uint8_t *bad = xmalloc(len);
	memcpy(bad, b, len);
	size_t code_at = len - 13; /* the last frame's u32 code (then its line, entry, and no names) */
	bad[code_at] = 9;
	struct pystore *s = pystore_new();
	assert_int_equal(pystore_load(s, 1, bad, len), -1);
	pystore_free(s);
	free(bad);
	free(b);
}

static struct symbol sym_eval = { 0, 0, (char *)"_PyEval_EvalFrameDefault", NULL };
static struct symbol sym_leaf = { 0, 0, (char *)"PyLong_FromLong", NULL };
static struct symbol sym_main = { 0, 0, (char *)"Py_RunMain", NULL };
static struct symbol sym_start = { 0, 0, (char *)"_start", NULL };
static struct symbol sym_parse = { 0, 0, (char *)"_PyPegen_parse", NULL };
static struct symbol sym_py = { 0, 0, (char *)"py::foo:/x.py", NULL };
static struct symbol sym_ex = { 0, 0, (char *)"PyEval_EvalFrameEx", NULL };

static struct frame *frames(size_t *cap, const struct symbol **syms, size_t n)
{
	struct frame *f = xcalloc(n, sizeof(*f));
	for (size_t i = 0; i < n; i++)
		f[i].loc.sym = syms[i];
	*cap = n;
	return f;
}

/* A store of pid 5 with flags, tid 5's stacks of foo, bar, <module> (code 0, 1, 2) given as
 * {time, n, code, line, ...} rows; every frame but the innermost an entry frame. */
static struct pystore *store_of(uint32_t flags, const int64_t (*rows)[8], size_t nrows)
{
	struct pyread r;
	memset(&r, 0, sizeof(r));
	const char *names[] = { "foo", "bar", "<module>" };
	r.codes = xcalloc(3, sizeof(*r.codes));
	for (int i = 0; i < 3; i++) {
		r.codes[i] = xcalloc(1, sizeof(struct py_code));
		r.codes[i]->name = xstrdup(names[i]);
		r.codes[i]->filename = xstrdup("/x.py");
	}
	r.ncodes = r.ccap = 3;
	struct pystore_writer w = { 0 };
	w.flags = flags;
	for (size_t i = 0; i < nrows; i++) {
		struct py_frame f[3];
		size_t n = (size_t)rows[i][1];
		for (size_t k = 0; k < n; k++)
			f[k] = (struct py_frame){ (uint32_t)rows[i][2 + 2 * k], (int32_t)rows[i][3 + 2 * k], k > 0 };
		pystore_add(&w, (uint64_t)rows[i][0], 5, 0, f, n);
	}
	size_t len;
	uint8_t *b = pystore_finish(&w, &r, &len);
	struct pystore *s = pystore_new();
	assert_int_equal(pystore_load(s, 5, b, len), 0);
	free(b);
	pystore_writer_free(&w);
	pyread_free(&r);
	return s;
}

/* A store with one stack: foo (inlined into) bar, entry; <module>, entry. */
static struct pystore *three_groups(void)
{
	static const int64_t one[][8] = { { 100, 3, 0, 9, 1, 14, 2, 21 } };
	return store_of(0, one, 1);
}

static const char *name(const struct frame *f)
{
	return f->loc.sym ? f->loc.sym->name : "?";
}

static void test_merge(void **state)
{
	struct pystore *s = three_groups();
	size_t cap;
	/* leaf, eval (foo+bar), eval (<module>), main, _start */
	const struct symbol *st[] = { &sym_leaf, &sym_eval, &sym_eval, &sym_main, &sym_start };
	struct frame *f = frames(&cap, st, 5);
	size_t n = pymerge_stack(s, 5, 5, 100, &f, &cap, 5);
	assert_int_equal(n, 6);
	const char *want[] = { "PyLong_FromLong", "py::foo:/x.py", "py::bar:/x.py", "py::<module>:/x.py",
			       "Py_RunMain", "_start" };
	for (size_t i = 0; i < n; i++)
		assert_string_equal(name(&f[i]), want[i]);
	assert_int_equal(f[1].line, 9);
	assert_int_equal(f[3].line, 21);
	free(f);

	/* one eval frame only: it takes every group */
	const struct symbol *one[] = { &sym_eval, &sym_main, &sym_start };
	f = frames(&cap, one, 3);
	n = pymerge_stack(s, 5, 5, 100, &f, &cap, 3);
	assert_int_equal(n, 5);
	assert_string_equal(name(&f[2]), "py::<module>:/x.py");
	assert_string_equal(name(&f[3]), "Py_RunMain");
	free(f);

	/* a whole native stack without the eval loop: not running Python, left alone */
	const struct symbol *np[] = { &sym_parse, &sym_main, &sym_start };
	f = frames(&cap, np, 3);
	assert_int_equal(pymerge_stack(s, 5, 5, 100, &f, &cap, 3), 3);
	free(f);

	/* a cut native stack without eval frames: the Python frames go at its outer end */
	const struct symbol *cut[] = { &sym_leaf };
	f = frames(&cap, cut, 1);
	n = pymerge_stack(s, 5, 5, 100, &f, &cap, 1);
	assert_int_equal(n, 4);
	assert_string_equal(name(&f[3]), "py::<module>:/x.py");
	free(f);

	/* 2.7: no _PyEval_EvalFrameDefault, each PyEval_EvalFrameEx is one eval call */
	const struct symbol *old[] = { &sym_leaf, &sym_ex, &sym_ex, &sym_main, &sym_start };
	f = frames(&cap, old, 5);
	n = pymerge_stack(s, 5, 5, 100, &f, &cap, 5);
	assert_int_equal(n, 6);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(name(&f[i]), want[i]);
	free(f);

	/* 3.x: PyEval_EvalFrameEx only calls _PyEval_EvalFrameDefault, which stands for the call */
	const struct symbol *mix[] = { &sym_leaf, &sym_eval, &sym_ex, &sym_eval, &sym_ex, &sym_main, &sym_start };
	f = frames(&cap, mix, 7);
	n = pymerge_stack(s, 5, 5, 100, &f, &cap, 7);
	assert_int_equal(n, 8);
	const char *want_mix[] = { "PyLong_FromLong", "py::foo:/x.py", "py::bar:/x.py", "PyEval_EvalFrameEx",
				   "py::<module>:/x.py", "PyEval_EvalFrameEx", "Py_RunMain", "_start" };
	for (size_t i = 0; i < n; i++)
		assert_string_equal(name(&f[i]), want_mix[i]);
	free(f);

	/* CPython's own py:: frames win */
	const struct symbol *own[] = { &sym_py, &sym_eval, &sym_start };
	f = frames(&cap, own, 3);
	assert_int_equal(pymerge_stack(s, 5, 5, 100, &f, &cap, 3), 3);
	free(f);

	/* no stack for that time */
	f = frames(&cap, st, 5);
	assert_int_equal(pymerge_stack(s, 5, 5, 50000000, &f, &cap, 5), 5);
	free(f);
	pystore_free(s);
}

static struct symbol sym_trunc = { 0, 0, (char *)"[truncated]", NULL };

/* How many frames the n of syms become, joined with s's stack of (5, 5) at time. */
static size_t merged_n(const struct pystore *s, const struct symbol **syms, size_t n, uint64_t time)
{
	size_t cap;
	struct frame *f = frames(&cap, syms, n);
	n = pymerge_stack(s, 5, 5, time, &f, &cap, n);
	free(f);
	return n;
}

/* CPython's own frames (-X perf) in a stack the unwinder cut: the rest come from the Python
 * stack when its innermost frames are the same functions; read at batches, only when the reads
 * before and after the sample agree on them. */
static void test_splice(void **state)
{
	static const int64_t agree[][8] = { { 100000000, 3, 0, 9, 1, 14, 2, 21 }, { 300000000, 3, 0, 10, 1, 14, 2, 21 } };
	static const int64_t moved[][8] = { { 100000000, 3, 0, 9, 1, 14, 2, 21 }, { 300000000, 2, 1, 15, 2, 21 } };
	static const int64_t inner_moved[][8] = { { 100000000, 3, 0, 9, 1, 14, 2, 21 }, { 300000000, 2, 1, 14, 2, 21 } };
	const struct symbol *cut[] = { &sym_py, &sym_eval, &sym_trunc };
	size_t cap;
	struct pystore *s = store_of(PYSTORE_APPROX | PYSTORE_OWN, agree, 2);
	struct frame *f = frames(&cap, cut, 3);
	size_t n = pymerge_stack(s, 5, 5, 200000000, &f, &cap, 3);
	assert_int_equal(n, 4);
	const char *want[] = { "py::foo:/x.py", "_PyEval_EvalFrameDefault", "py::bar:/x.py", "py::<module>:/x.py" };
	for (size_t i = 0; i < n; i++)
		assert_string_equal(name(&f[i]), want[i]);
	assert_int_equal(f[2].line, 14);
	assert_int_equal(f[3].line, 21);
	free(f);
	/* only a read before the sample (none within the window after): nothing added */
	assert_int_equal(merged_n(s, cut, 3, 400000000), 3);
	/* a whole stack (no marker) keeps its own frames only; a stack without them gets none */
	assert_int_equal(merged_n(s, cut, 2, 200000000), 2);
	const struct symbol *bare[] = { &sym_leaf, &sym_eval, &sym_trunc };
	assert_int_equal(merged_n(s, bare, 3, 200000000), 3);
	/* another innermost function than the stack's: not the same stack */
	const struct symbol *other[] = { &sym_ex, &sym_py, &sym_py, &sym_trunc };
	assert_int_equal(merged_n(s, other, 4, 200000000), 4);
	pystore_free(s);
	/* the reads disagree beyond foo (bar at another line): nothing added */
	s = store_of(PYSTORE_APPROX | PYSTORE_OWN, moved, 2);
	assert_int_equal(merged_n(s, cut, 3, 200000000), 3);
	pystore_free(s);
	/* foo returned before the second read, bar and <module> stayed: counted from the outermost,
	 * they agree */
	s = store_of(PYSTORE_APPROX | PYSTORE_OWN, inner_moved, 2);
	assert_int_equal(merged_n(s, cut, 3, 200000000), 4);
	pystore_free(s);
	/* read at the sample (BPF): its own stack, no second read needed */
	s = store_of(PYSTORE_OWN, agree, 1);
	assert_int_equal(merged_n(s, cut, 3, 100000100), 4);
	pystore_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_and_find),
		cmocka_unit_test(test_gil),
		cmocka_unit_test(test_gil_mark),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_splice),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

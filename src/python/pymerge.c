#include "python/pymerge.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* One call of the eval loop: _PyEval_EvalFrameDefault (3.6+), or in a stack without it 2.7's
 * PyEval_EvalFrameEx (in 3.x that is only the caller of _PyEval_EvalFrameDefault). */
static bool is_eval(const struct frame *f, bool ex)
{
	if (!f->loc.sym)
		return false;
	return ex ? !strcmp(f->loc.sym->name, "PyEval_EvalFrameEx") :
		    !strncmp(f->loc.sym->name, "_PyEval_EvalFrameDefault", 24);
}

static bool is_py(const struct frame *f)
{
	return f->loc.sym && !strncmp(f->loc.sym->name, "py::", 4);
}

static bool is_truncated_marker(const struct frame *f)
{
	return f->loc.sym && !f->loc.dso && !strcmp(f->loc.sym->name, "[truncated]");
}

/* The outermost frame of a complete native stack (the unwinder reached the thread's start). */
static bool is_thread_start(const struct frame *f)
{
	static const char *const starts[] = { "_start", "__libc_start_main", "__libc_start_call_main",
					      "start_thread", "clone3", "__clone", "clone" };
	if (!f->loc.sym)
		return false;
	for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++)
		if (!strncmp(f->loc.sym->name, starts[i], strlen(starts[i])))
			return true;
	return false;
}

/* The "shared object" of Python frames in views: they live in no file. */
static struct dso python_dso = { .kind = DSO_ANON, .path = (char *)"[python]", .short_name = "[python]",
				 .loaded = true };

static struct symbol truncated_sym = { 0, 0, (char *)"[truncated]", NULL };
static struct symbol gil_sym = { 0, 0, (char *)"[GIL]", NULL };

/* A Python stack cut by the reader's bound: said right after its outermost frame kept, where the
 * cut frames belong, as the unwinder says it of native stacks. */
static void emit_cut(struct frame **out, size_t *no, size_t *ocap)
{
	ALLOC_GROW(*out, *no + 1, *ocap);
	struct frame *f = &(*out)[(*no)++];
	memset(f, 0, sizeof(*f));
	f->loc.sym = &truncated_sym;
}

static void emit_py(struct frame **out, size_t *no, size_t *ocap, const struct pystore_frame *pf)
{
	ALLOC_GROW(*out, *no + 1, *ocap);
	struct frame *f = &(*out)[(*no)++];
	memset(f, 0, sizeof(*f));
	f->loc.sym = pf->sym;
	f->loc.dso = &python_dso;
	f->line = pf->line;
}

/* Emits one group: the frames up to and including the next entry frame. */
static void emit_group(struct frame **out, size_t *no, size_t *ocap, const struct pystore_frame *pf, size_t k,
		       size_t *next)
{
	while (*next < k) {
		const struct pystore_frame *f = &pf[(*next)++];
		emit_py(out, no, ocap, f);
		if (f->entry)
			break;
	}
}

/* How many of the stack's py:: frames, innermost first, are h's innermost frames (the same
 * functions in the same order); 0 when one is not. */
static size_t match_own(const struct frame *frames, size_t n, const struct pystore_hit *h)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (!is_py(&frames[i]))
			continue;
		if (m >= h->n || strcmp(frames[i].loc.sym->name, h->f[m].sym->name))
			return 0;
		m++;
	}
	return m;
}

/* Two reads agree on the frames beyond the m innermost: the same code at the same line, counted
 * from the outermost (a whole stack: the inner frames may have moved between the reads) or, in
 * stacks cut by the bound, from the innermost (then the inner m are the same functions too). */
static bool same_beyond(const struct frame *frames, size_t n, const struct pystore_hit *b,
			const struct pystore_hit *a, size_t m)
{
	size_t want = b->n - m;
	if (b->truncated != a->truncated || a->n < want || (b->truncated && (a->n != b->n || match_own(frames, n, a) != m)))
		return false;
	for (size_t i = 0; i < want; i++) {
		const struct pystore_frame *x = &b->f[b->n - 1 - i], *y = &a->f[a->n - 1 - i];
		if (x->sym != y->sym || x->line != y->line)
			return false;
	}
	return true;
}

/* A stack that carries CPython's own Python frames (-X perf, -X perf_jit) and was cut by the
 * unwinder (its stack copy ended): the Python frames it lacks are those of the Python stack
 * beyond the ones it has, when that stack's innermost frames are the same functions in the same
 * order (else it is not the same stack, and nothing is added). Read at the sample (BPF), the
 * stack is the sample's; read at batches, the frames are added only when the reads before and
 * after the sample agree on them (the thread stayed there in between). They go in the marker's
 * place, which stays after them only when the Python stack was cut too. */
static size_t splice(const struct pystore *s, int32_t pid, uint32_t tid, uint64_t time, struct frame **frames,
		     size_t *cap, size_t n)
{
	struct pystore_hit b, a;
	if (!n || !is_truncated_marker(&(*frames)[n - 1]) || !pystore_around(s, pid, tid, time, &b, &a))
		return n;
	const struct pystore_hit *h = &b;
	bool approx = pystore_proc_flags(s, pid) & PYSTORE_APPROX;
	if (approx && (!b.f || !a.f))
		return n;
	if (!approx && (!b.f || (a.f && a.time - time < time - b.time)))
		h = &a;
	size_t m = match_own(*frames, n, h);
	if (!m || m >= h->n || (approx && !same_beyond(*frames, n, &b, &a, m)))
		return n;
	size_t no = n - 1;
	for (size_t next = m; next < h->n; next++)
		emit_py(frames, &no, cap, &h->f[next]);
	if (h->truncated)
		emit_cut(frames, &no, cap);
	return no;
}

/* CPython's own Python frames (-X perf, -X perf_jit) name no line: each gets the line the
 * frame reader gives it where its reads are the sample's stack. Read at the sample (BPF): the
 * nearest read, when its innermost frames are the stack's Python frames (the same functions in
 * the same order). Read at batches: the reads just before and just after the sample must both
 * be such, and a frame gets a line only where the two give it the same one (the thread was on
 * that line at both instants: the innermost frame's line, which changes most, is the one most
 * often left without), and they must be at most 10 ms apart (the reader reads every millisecond;
 * further apart the thread may have left the line and come back). */
enum { OWN_LINES_GAP = 10000000 }; /* ns: reads further apart say nothing of the lines between */

static void own_lines(const struct pystore *s, int32_t pid, uint32_t tid, uint64_t time, struct frame *frames,
		      size_t n)
{
	struct pystore_hit b, a;
	if (!pystore_around(s, pid, tid, time, &b, &a))
		return;
	bool approx = pystore_proc_flags(s, pid) & PYSTORE_APPROX;
	const struct pystore_hit *h = &b;
	if (approx && (!b.f || !a.f))
		return;
	if (!approx && (!b.f || (a.f && a.time - time < time - b.time)))
		h = &a;
	size_t m = match_own(frames, n, h);
	if (!m || (approx && (match_own(frames, n, &a) != m || a.time - b.time > OWN_LINES_GAP)))
		return;
	for (size_t i = 0, k = 0; i < n && k < m; i++) {
		if (!is_py(&frames[i]))
			continue;
		int32_t line = h->f[k].line;
		if (approx && a.f[k].line != line)
			line = 0;
		if (line > 0 && frames[i].line <= 0)
			frames[i].line = line;
		k++;
	}
}

size_t pymerge_stack(const struct pystore *s, int32_t pid, uint32_t tid, uint64_t time, struct frame **frames,
		     size_t *cap, size_t n)
{
	size_t k;
	bool cut;
	const struct pystore_frame *pf = pystore_find(s, pid, tid, time, &k, &cut);
	if (!pf || !k)
		return n;
	for (size_t i = 0; i < n; i++)
		if (is_py(&(*frames)[i])) {
			own_lines(s, pid, tid, time, *frames, n);
			return splice(s, pid, tid, time, frames, cap, n);
		}
	/* In a process that names its frames itself, stacks read at a batch (not at the sample)
	 * only extend those: a stack without them (the interpreter starting, a thread in C) gets
	 * none from another instant. */
	if ((pystore_proc_flags(s, pid) & (PYSTORE_OWN | PYSTORE_APPROX)) == (PYSTORE_OWN | PYSTORE_APPROX))
		return n;
	struct frame *out = NULL;
	size_t no = 0, ocap = 0, next = 0;
	size_t tail = n;
	if (n && is_truncated_marker(&(*frames)[n - 1]))
		tail = n - 1;
	size_t last_eval = tail;
	bool ex = true;
	for (size_t i = 0; i < tail; i++)
		if (is_eval(&(*frames)[i], false))
			ex = false;
	for (size_t i = 0; i < tail; i++)
		if (is_eval(&(*frames)[i], ex))
			last_eval = i;
	/* A whole native stack without the eval loop is not running Python: the thread state's
	 * frame pointer is stale there (compiling, finalizing), so its frames are not used. */
	if (last_eval == tail && tail == n && n && is_thread_start(&(*frames)[n - 1]))
		return n;
	for (size_t i = 0; i < tail; i++) {
		const struct frame *f = &(*frames)[i];
		if (is_eval(f, ex) && next < k) {
			/* The outermost eval call takes whatever the native stack did not reach. */
			if (i == last_eval)
				while (next < k)
					emit_py(&out, &no, &ocap, &pf[next++]);
			else
				emit_group(&out, &no, &ocap, pf, k, &next);
			if (cut && next == k)
				emit_cut(&out, &no, &ocap);
			continue;
		}
		ALLOC_GROW(out, no + 1, ocap);
		out[no++] = *f;
	}
	if (next < k) {
		while (next < k)
			emit_py(&out, &no, &ocap, &pf[next++]);
		if (cut)
			emit_cut(&out, &no, &ocap);
	}
	for (size_t i = tail; i < n; i++) {
		if (no && is_truncated_marker(&out[no - 1]))
			continue; /* the native stack ends cut right where the Python one was: said once */
		ALLOC_GROW(out, no + 1, ocap);
		out[no++] = (*frames)[i];
	}
	free(*frames);
	*frames = out;
	*cap = ocap;
	return no;
}

size_t pymerge_gil_mark(struct frame **frames, size_t *cap, size_t n)
{
	ALLOC_GROW(*frames, n + 1, *cap);
	struct frame *f = &(*frames)[n];
	memset(f, 0, sizeof(*f));
	f->loc.sym = &gil_sym;
	return n + 1;
}

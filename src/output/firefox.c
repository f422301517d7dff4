/* The Firefox Profiler's processed profile format (docs-developer/processed-profile-format.md in
 * firefox-devtools/profiler), gzipped: what profiler.firefox.com loads from a file. Written at
 * preprocessedProfileVersion 44 (tables per thread, a string array per thread); the profiler
 * upgrades older versions itself, so a fixed version keeps loading as the format moves on.
 *
 * One thread per event and tid, named "comm (event)"; samples at their times in milliseconds
 * from the first sample; stacks without the "all" and command frames; categories Python,
 * Native, Kernel, JIT (and Other). */
#include <stdlib.h>
#include <string.h>

#include "output/json.h"
#include "output/pictures.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

enum { CAT_OTHER, CAT_PYTHON, CAT_NATIVE, CAT_KERNEL, CAT_JIT, NCATS };

static int category(enum stack_kind k)
{
	switch (k) {
	case SK_PYTHON: return CAT_PYTHON;
	case SK_KERNEL: return CAT_KERNEL;
	case SK_JIT: return CAT_JIT;
	case SK_NATIVE: return CAT_NATIVE;
	default: return CAT_OTHER;
	}
}

/* Per-thread tables under construction. */
struct fx_thread {
	int32_t *stack_of;       /* node -> stack index, -1 none */
	int32_t *func_of;        /* frame -> func index, -1 none */
	uint32_t *stack_frame;   /* stack -> func (frames and funcs are one to one here) */
	int32_t *stack_prefix;
	uint32_t *stack_node;    /* stack -> node, to reset stack_of for the next thread */
	size_t nstacks, scap;
	uint32_t *funcs;         /* func -> frame */
	size_t nfuncs, fcap;
};

static int32_t func_index(struct fx_thread *t, uint32_t frame)
{
	if (t->func_of[frame] < 0) {
		ALLOC_GROW(t->funcs, t->nfuncs + 1, t->fcap);
		t->funcs[t->nfuncs] = frame;
		t->func_of[frame] = (int32_t)t->nfuncs++;
	}
	return t->func_of[frame];
}

/* The stack index of node, creating its callers first; -1 for the root and command frames. */
static int32_t stack_index(const struct stacks *st, struct fx_thread *t, uint32_t node)
{
	const struct stack_node *nd = &st->nodes[node];
	enum stack_kind k = st->frames[nd->frame].kind;
	if (k == SK_ROOT || k == SK_COMM)
		return -1;
	if (t->stack_of[node] >= 0)
		return t->stack_of[node];
	int32_t prefix = nd->parent == UINT32_MAX ? -1 : stack_index(st, t, nd->parent);
	ALLOC_GROW(t->stack_frame, t->nstacks + 1, t->scap);
	t->stack_prefix = xrealloc(t->stack_prefix, t->scap * sizeof(int32_t));
	t->stack_node = xrealloc(t->stack_node, t->scap * sizeof(uint32_t));
	t->stack_node[t->nstacks] = node;
	t->stack_frame[t->nstacks] = (uint32_t)func_index(t, nd->frame);
	t->stack_prefix[t->nstacks] = prefix;
	t->stack_of[node] = (int32_t)t->nstacks;
	return (int32_t)t->nstacks++;
}

static void ints(struct json *j, const char *key, const int32_t *v, size_t n, bool null_neg)
{
	json_begin_array(j, key);
	for (size_t i = 0; i < n; i++) {
		if (null_neg && v[i] < 0)
			json_null(j, NULL);
		else
			json_i64(j, NULL, v[i]);
	}
	json_end_array(j);
}

static void repeat(struct json *j, const char *key, size_t n, int what) /* 0: 0s, 1: nulls, 2: false */
{
	json_begin_array(j, key);
	for (size_t i = 0; i < n; i++) {
		if (what == 0)
			json_i64(j, NULL, 0);
		else if (what == 1)
			json_null(j, NULL);
		else
			json_bool(j, NULL, false);
	}
	json_end_array(j);
}

static void empty_table(struct json *j, const char *key, const char *const *cols)
{
	json_begin_object(j, key);
	json_u64(j, "length", 0);
	for (; *cols; cols++) {
		json_begin_array(j, *cols);
		json_end_array(j);
	}
	json_end_object(j);
}

/* A Python frame's line (the Python view's frames are one per function and line), else null. */
static void py_lines(struct json *j, const char *key, const struct stacks *st, const struct fx_thread *t)
{
	json_begin_array(j, key);
	for (size_t i = 0; i < t->nfuncs; i++) {
		const struct stack_frame *fr = &st->frames[t->funcs[i]];
		if (fr->kind == SK_PYTHON && fr->line)
			json_u64(j, NULL, fr->line);
		else
			json_null(j, NULL);
	}
	json_end_array(j);
}

static void write_tables(struct json *j, const struct stacks *st, const struct fx_thread *t)
{
	size_t ns = t->nstacks, nf = t->nfuncs;
	int32_t *tmp = xmalloc((ns > nf ? ns : nf) * sizeof(int32_t) + 1);
	json_begin_object(j, "stackTable");
	json_u64(j, "length", ns);
	for (size_t i = 0; i < ns; i++)
		tmp[i] = (int32_t)t->stack_frame[i];
	ints(j, "frame", tmp, ns, false);
	ints(j, "prefix", t->stack_prefix, ns, true);
	for (size_t i = 0; i < ns; i++)
		tmp[i] = category(st->frames[t->funcs[t->stack_frame[i]]].kind);
	ints(j, "category", tmp, ns, false);
	repeat(j, "subcategory", ns, 0);
	json_end_object(j);

	/* Strings: each func's name then its file, at 2i and 2i+1. */
	json_begin_object(j, "frameTable");
	json_u64(j, "length", nf);
	for (size_t i = 0; i < nf; i++)
		tmp[i] = (int32_t)i;
	ints(j, "func", tmp, nf, false);
	json_begin_array(j, "address");
	for (size_t i = 0; i < nf; i++)
		json_i64(j, NULL, -1);
	json_end_array(j);
	repeat(j, "inlineDepth", nf, 0);
	for (size_t i = 0; i < nf; i++)
		tmp[i] = category(st->frames[t->funcs[i]].kind);
	ints(j, "category", tmp, nf, false);
	repeat(j, "subcategory", nf, 0);
	repeat(j, "nativeSymbol", nf, 1);
	repeat(j, "innerWindowID", nf, 1);
	repeat(j, "implementation", nf, 1);
	py_lines(j, "line", st, t);
	repeat(j, "column", nf, 1);
	json_end_object(j);

	json_begin_object(j, "funcTable");
	json_u64(j, "length", nf);
	for (size_t i = 0; i < nf; i++)
		tmp[i] = (int32_t)(2 * i);
	ints(j, "name", tmp, nf, false);
	repeat(j, "isJS", nf, 2);
	repeat(j, "relevantForJS", nf, 2);
	json_begin_array(j, "resource");
	for (size_t i = 0; i < nf; i++)
		json_i64(j, NULL, -1);
	json_end_array(j);
	json_begin_array(j, "fileName");
	for (size_t i = 0; i < nf; i++) {
		if (st->frames[t->funcs[i]].file)
			json_i64(j, NULL, (int64_t)(2 * i + 1));
		else
			json_null(j, NULL);
	}
	json_end_array(j);
	py_lines(j, "lineNumber", st, t);
	repeat(j, "columnNumber", nf, 1);
	json_end_object(j);

	json_begin_array(j, "stringArray");
	for (size_t i = 0; i < nf; i++) {
		const struct stack_frame *fr = &st->frames[t->funcs[i]];
		json_str(j, NULL, fr->kind == SK_PYTHON ? fr->func : fr->name);
		json_str(j, NULL, fr->file ? fr->file : "");
	}
	json_end_array(j);
	free(tmp);
}

static const char *const MARKER_COLS[] = { "data", "name", "startTime", "endTime", "phase", "category", NULL };
static const char *const RESOURCE_COLS[] = { "lib", "name", "host", "type", NULL };
static const char *const SYMBOL_COLS[] = { "libIndex", "address", "name", "functionSize", NULL };

static void write_thread(struct json *j, const struct stacks *st, size_t e, uint32_t th, struct fx_thread *t,
			 const size_t *idx, size_t n)
{
	const struct stack_event *ev = &st->events[e];
	const struct stack_thread *thr = &st->threads[th];
	for (size_t i = 0; i < t->nstacks; i++)
		t->stack_of[t->stack_node[i]] = -1;
	for (size_t i = 0; i < t->nfuncs; i++)
		t->func_of[t->funcs[i]] = -1;
	t->nstacks = t->nfuncs = 0;
	struct strbuf name = STRBUF_INIT;
	sb_addf(&name, "%s (%s)", thr->comm, ev->name);
	json_begin_object(j, NULL);
	json_str(j, "name", sb_str(&name));
	json_str(j, "processName", thr->process ? thr->process : thr->comm);
	json_str(j, "processType", "default");
	json_bool(j, "isMainThread", thr->pid == thr->tid);
	sb_reset(&name);
	sb_addf(&name, "%d", thr->pid);
	json_str(j, "pid", sb_str(&name));
	json_i64(j, "tid", thr->tid);
	json_double(j, "processStartupTime", 0);
	json_null(j, "processShutdownTime");
	json_double(j, "registerTime", 0);
	json_null(j, "unregisterTime");
	json_begin_array(j, "pausedRanges");
	json_end_array(j);
	json_begin_object(j, "samples");
	json_u64(j, "length", n);
	json_str(j, "weightType", "samples");
	json_null(j, "weight");
	json_begin_array(j, "stack");
	for (size_t i = 0; i < n; i++) {
		int32_t s = stack_index(st, t, ev->s[idx[i]].node);
		if (s < 0)
			json_null(j, NULL);
		else
			json_i64(j, NULL, s);
	}
	json_end_array(j);
	json_begin_array(j, "time");
	for (size_t i = 0; i < n; i++) {
		const struct stack_sample *sm = &ev->s[idx[i]];
		json_double(j, NULL, sm->time >= st->first_time ? (double)(sm->time - st->first_time) / 1e6 : 0.0);
	}
	json_end_array(j);
	json_end_object(j);
	empty_table(j, "markers", MARKER_COLS);
	empty_table(j, "resourceTable", RESOURCE_COLS);
	empty_table(j, "nativeSymbols", SYMBOL_COLS);
	write_tables(j, st, t);
	json_end_object(j);
	sb_release(&name);
}

static void write_meta(struct json *j, const struct stacks *st)
{
	static const char *const names[NCATS] = { "Other", "Python", "Native", "Kernel", "JIT" };
	static const char *const colours[NCATS] = { "grey", "green", "orange", "yellow", "purple" };
	json_begin_object(j, "meta");
	json_double(j, "interval", 1.0);
	json_double(j, "startTime", 0);
	json_u64(j, "processType", 0);
	json_str(j, "product", st->command ? st->command : "lperf");
	json_str(j, "platform", "Linux");
	json_str(j, "oscpu", "Linux");
	json_u64(j, "stackwalk", 1);
	json_u64(j, "version", 24);
	json_u64(j, "preprocessedProfileVersion", 44);
	json_bool(j, "symbolicated", true);
	json_begin_array(j, "markerSchema");
	json_end_array(j);
	json_begin_array(j, "categories");
	for (int c = 0; c < NCATS; c++) {
		json_begin_object(j, NULL);
		json_str(j, "name", names[c]);
		json_str(j, "color", colours[c]);
		json_begin_array(j, "subcategories");
		json_str(j, NULL, "Other");
		json_end_array(j);
		json_end_object(j);
	}
	json_end_array(j);
	json_end_object(j);
}

int firefox_write(const char *path, const struct stacks *st)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return -1;
	struct json j;
	json_init(&j, f, false);
	json_begin_object(&j, NULL);
	write_meta(&j, st);
	json_begin_array(&j, "libs");
	json_end_array(&j);
	json_begin_array(&j, "pages");
	json_end_array(&j);
	json_begin_array(&j, "counters");
	json_end_array(&j);
	json_begin_array(&j, "threads");
	struct fx_thread t = { 0 };
	t.stack_of = xmalloc((st->nnodes + 1) * sizeof(int32_t));
	t.func_of = xmalloc((st->nframes + 1) * sizeof(int32_t));
	for (size_t i = 0; i < st->nnodes; i++)
		t.stack_of[i] = -1;
	for (size_t i = 0; i < st->nframes; i++)
		t.func_of[i] = -1;
	for (size_t e = 0; e < st->nevents; e++) {
		size_t *idx, *start;
		stacks_by_thread(st, e, &idx, &start);
		for (uint32_t th = 0; th < st->nthreads; th++)
			if (start[th + 1] > start[th])
				write_thread(&j, st, e, th, &t, idx + start[th], start[th + 1] - start[th]);
		free(idx);
		free(start);
	}
	json_end_array(&j);
	json_end_object(&j);
	json_finish(&j);
	fclose(f);
	free(t.stack_of);
	free(t.stack_node);
	free(t.func_of);
	free(t.stack_frame);
	free(t.stack_prefix);
	free(t.funcs);
	int rc = pic_gzip_file(path, buf, len);
	free(buf);
	return rc;
}

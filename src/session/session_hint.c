/* Hints: what the walk's samples say about a better way to record them (session.h). Counted per
 * resolved sample, judged once at the end; each hint is one NOTES_HINT note that the command
 * prints after its output (or not: -q, machine-readable modes). */
#include "session/session.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

/* A hint needs this many samples of evidence: a handful proves nothing. */
#define HINT_MIN_SAMPLES 20

struct hint_dso {
	uint64_t fp_short;   /* frame-pointer chains that stop at this DSO's sampled function */
	uint64_t nosym;      /* samples whose ip is in this DSO and resolves to no symbol */
};

static struct hint_dso *dso_counts(struct session_hints *h, const struct dso *d)
{
	bool found;
	struct hashmap_entry *e = hashmap_insert_ptr(&h->dsos, d, &found);
	if (!found)
		e->value = xcalloc(1, sizeof(struct hint_dso));
	return e->value;
}

static bool is_pyeval(const struct frame *f)
{
	return f->loc.sym && f->loc.sym->name && !strncmp(f->loc.sym->name, "_PyEval_EvalFrame", 17);
}

static bool is_pyframe(const struct frame *f)
{
	return f->line || (f->loc.sym && f->loc.sym->name && !strncmp(f->loc.sym->name, "py::", 4));
}

static bool is_python_dso(const struct dso *d)
{
	return d->short_name && (!strncmp(d->short_name, "python", 6) || !strncmp(d->short_name, "libpython", 9));
}

void session_hint_sample(struct session_hints *h, const struct resolver *rv, const struct resolved_sample *rs)
{
	const struct frame *f = rs->frames;
	size_t n = rs->nframes, u = 0;
	if (!n)
		return;
	while (u < n && f[u].loc.kernel)
		u++;
	if (u == n)
		return; /* kernel only */
	h->user++;
	bool py = false, eval = false;
	/* Only a stack with no Python frame counts, so the walk ends at the first one (every
	 * sample passes here: a deep Python stack is not scanned whole for nothing). */
	for (size_t i = 0; i < n && !py; i++) {
		py |= is_pyframe(&f[i]);
		eval |= is_pyeval(&f[i]);
	}
	h->pyeval += eval && !py;
	const struct dso *d = f[u].loc.dso;
	if (!f[u].loc.sym && d && (d->kind == DSO_JIT || d->kind == DSO_ANON)) {
		h->jit_unnamed++;
		if (rs->thread && rs->thread->comm && !strncmp(rs->thread->comm, "node", 4))
			h->jit_node++;
	}
	if (d && d->kind == DSO_ELF && !f[u].loc.sym)
		dso_counts(h, d)->nosym++;
	uint64_t st = rs->s->sample_type;
	if (!rv->callchains || !(st & PERF_SAMPLE_CALLCHAIN) || (st & PERF_SAMPLE_STACK_USER) || rs->chain_reset)
		return;
	h->fp_chains++;
	/* The chain stops at the sampled function, or its next frame is no code: the function
	 * kept no frame pointer and the kernel's walk ended or read garbage. */
	if (u + 1 == n || !f[u + 1].loc.map) {
		h->fp_short++;
		if (d && d->kind == DSO_ELF)
			dso_counts(h, d)->fp_short++;
	}
}

/* The DSO with the largest count (by field offset), or NULL. */
static const struct dso *top_dso(const struct session_hints *h, size_t field, uint64_t *count)
{
	const struct dso *best = NULL;
	*count = 0;
	for (size_t i = 0; i < h->dsos.n; i++) {
		uint64_t c = *(const uint64_t *)((const char *)h->dsos.v[i].value + field);
		if (c > *count) {
			*count = c;
			best = h->dsos.v[i].key.ptr;
		}
	}
	return best;
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0;
}

static void hint_stripped(struct session *ss, const struct session_hints *h)
{
	uint64_t c;
	const struct dso *d = top_dso(h, offsetof(struct hint_dso, nosym), &c);
	const char *why = d ? dso_load_note(d) : NULL;
	if (!d || c < HINT_MIN_SAMPLES || pct(c, h->user) < 50 || !why || strncmp(why, "stripped", 8))
		return;
	const uint8_t *id = d->build_id;
	size_t len = d->build_id_size;
	char where[160] = "";
	if (len > 1) {
		size_t k = (size_t)snprintf(where, sizeof(where), "/usr/lib/debug/.build-id/%02x/", id[0]);
		for (size_t i = 1; i < len && k + 3 < sizeof(where); i++)
			k += (size_t)snprintf(where + k, sizeof(where) - k, "%02x", id[i]);
		snprintf(where + k, sizeof(where) - k, ".debug or where its .gnu_debuglink points");
	}
	notes_add_level(&ss->notes, NOTES_HINT, "%.1f%% of the samples are in %s, which is stripped, so "
			"its functions have no names: install its debug symbols (Debian: its -dbgsym "
			"package)%s%s", pct(c, h->user), d->path, where[0] ? "; lperf looks for them in " : "",
			where[0] ? where : "");
}

void session_hints(struct session *ss)
{
	const struct session_hints *h = &ss->hints;
	if (h->fp_chains >= HINT_MIN_SAMPLES && pct(h->fp_short, h->fp_chains) >= 80) {
		uint64_t c;
		const struct dso *d = top_dso(h, offsetof(struct hint_dso, fp_short), &c);
		if (d && is_python_dso(d))
			goto python; /* --python gives an interpreter's stacks, whatever its frame pointers */
		notes_add_level(&ss->notes, NOTES_HINT, "%.0f%% of the call chains stop at the sampled "
				"function%s%s%s: code built without frame pointers; record with --call-graph "
				"dwarf (or build with -fno-omit-frame-pointer)", pct(h->fp_short, h->fp_chains),
				d ? " (mostly in " : "", d ? d->short_name : "", d ? ")" : "");
	}
python:
	/* Not when the Python view was asked for (top --python: samples taken before its reader
	 * attached have no Python frames); a live session (top, sample) is run, not recorded. */
	if (h->pyeval >= HINT_MIN_SAMPLES && pct(h->pyeval, h->user) >= 10 && !ss->tool.python_view)
		notes_add_level(&ss->notes, NOTES_HINT, "%.0f%% of the samples are in the Python interpreter "
				"(_PyEval_EvalFrameDefault) with no Python function named: %s with --python%s "
				"to see the Python functions", pct(h->pyeval, h->user), ss->reader ? "record" : "run",
				ss->reader ? "" : " (and -p PID or the command)");
	if (h->jit_unnamed >= HINT_MIN_SAMPLES && pct(h->jit_unnamed, h->user) >= 10) {
		if (h->jit_node * 2 >= h->jit_unnamed)
			notes_add_level(&ss->notes, NOTES_HINT, "%.0f%% of the samples are in JIT code with no "
					"names: node writes its perf map only when run with --perf-basic-prof "
					"(or --perf-prof for a jitdump)", pct(h->jit_unnamed, h->user));
		else
			notes_add_level(&ss->notes, NOTES_HINT, "%.0f%% of the samples are in JIT code with no "
					"names: the JIT wrote no perf map (/tmp/perf-PID.map) or jitdump; enable "
					"its perf support", pct(h->jit_unnamed, h->user));
	}
	hint_stripped(ss, h);
}

void session_hints_free(struct session_hints *h)
{
	for (size_t i = 0; i < h->dsos.n; i++)
		free(h->dsos.v[i].value);
	hashmap_free(&h->dsos);
	memset(h, 0, sizeof(*h));
}

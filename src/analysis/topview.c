/* lperf top's decaying profile (analysis/topview.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/hist.h"
#include "analysis/topview.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

struct top_key {
	const struct dso *dso;
	const struct symbol *sym;
	uint64_t addr;
	int32_t line;
	const char *pyname;      /* Python frames: by name and line */
};

static bool key_eq(const void *value, const void *key)
{
	const struct top_row *r = value;
	const struct top_key *k = key;
	if (k->pyname || r->pyname)
		return k->pyname && r->pyname && r->line == k->line && !strcmp(r->pyname, k->pyname);
	return r->dso == k->dso && r->sym == k->sym && r->line == k->line && (r->sym || r->addr == k->addr);
}

static uint64_t key_hash(const struct top_key *k)
{
	if (k->pyname)
		return hashmap_hash_str(k->pyname) ^ hashmap_hash_u64((uint64_t)k->line);
	uint64_t h = hashmap_hash_u64((uint64_t)(uintptr_t)k->dso) ^ hashmap_hash_u64((uint64_t)(uintptr_t)k->sym);
	return h ^ hashmap_hash_u64(k->sym ? (uint64_t)k->line : k->addr);
}

void top_view_init(struct top_view *t, bool python, bool children, bool zero)
{
	memset(t, 0, sizeof(*t));
	t->python = python;
	t->children = children || python;
	t->decay = zero ? 0.0 : TOP_DECAY;
	hashmap_init_custom(&t->index, key_eq);
}

static bool is_python(const struct frame *f)
{
	return f->loc.sym && !strncmp(f->loc.sym->name, "py::", 4);
}

static struct top_row *row_of(struct top_view *t, const struct frame *f, bool with_line)
{
	struct top_key k = { f->loc.dso, f->loc.sym, f->loc.sym ? 0 : f->loc.addr, with_line ? f->line : 0,
			     is_python(f) ? f->loc.sym->name : NULL };
	bool found;
	struct hashmap_entry *e = hashmap_insert_custom(&t->index, key_hash(&k), &k, &found);
	if (found)
		return e->value;
	struct top_row *r = xcalloc(1, sizeof(*r));
	r->dso = f->loc.dso;
	r->sym = f->loc.sym;
	r->addr = k.addr;
	r->line = k.line;
	r->kernel = f->loc.kernel;
	if (k.pyname) {
		r->pyname = xstrdup(k.pyname);
		r->sym = NULL;
		r->dso = NULL;
	}
	e->value = r;
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 256;
		t->rows = xrealloc(t->rows, t->cap * sizeof(*t->rows));
	}
	t->rows[t->n++] = r;
	return r;
}

int top_view_sample(const struct resolved_sample *rs, void *arg)
{
	struct top_view *t = arg;
	if (!rs->nframes)
		return 0;
	double w = rs->s->period ? (double)rs->s->period : 1.0;
	size_t own = 0;
	if (t->python) {
		while (own < rs->nframes && !is_python(&rs->frames[own]))
			own++;
		if (own == rs->nframes)
			own = 0; /* no Python frame: the native function */
	}
	t->samples++;
	t->interval_samples++;
	t->sum += w;
	t->stamp++;
	struct top_row *r = row_of(t, &rs->frames[own], t->python);
	r->self += w;
	if (!t->children)
		return 0;
	for (size_t i = own; i < rs->nframes; i++) {
		if (t->python && i > own && !is_python(&rs->frames[i]))
			continue;
		/* Python rows are a function at a line: each caller at the line it is on. */
		struct top_row *c = i == own ? r : row_of(t, &rs->frames[i], t->python);
		if (c->stamp == t->stamp)
			continue;
		c->stamp = t->stamp;
		c->total += w;
	}
	return 0;
}

static int cmp_rows(const void *a, const void *b, void *arg)
{
	const struct top_row *x = *(const struct top_row *const *)a, *y = *(const struct top_row *const *)b;
	bool by_total = arg != NULL;
	double px = by_total ? x->total : x->self, py = by_total ? y->total : y->self;
	if (px != py)
		return px > py ? -1 : 1;
	if (x->self != y->self)
		return x->self > y->self ? -1 : 1;
	char nx[256], ny[256];
	top_row_name(x, false, nx, sizeof(nx));
	top_row_name(y, false, ny, sizeof(ny));
	return strcmp(nx, ny);
}

void top_view_sort(struct top_view *t)
{
	if (t->n) /* no rows yet (top --gil before the first sample of the GIL's holder): rows is NULL */
		qsort_r(t->rows, t->n, sizeof(*t->rows), cmp_rows, t->children && !t->python ? t : NULL);
}

void top_view_age(struct top_view *t)
{
	for (size_t i = 0; i < t->n; i++) {
		t->rows[i]->self *= t->decay;
		t->rows[i]->total *= t->decay;
	}
	t->sum *= t->decay;
	t->interval_samples = 0;
}

void top_row_name(const struct top_row *r, bool python, char *buf, size_t size)
{
	if (r->pyname) {
		/* "py::func:/path/file.py" -> "func (file.py:LINE)", as the Python view names it */
		struct strbuf sb = STRBUF_INIT;
		resolve_py_label(&sb, r->pyname, r->line);
		snprintf(buf, size, "%s", sb_str(&sb));
		sb_release(&sb);
		return;
	}
	hist_sym_name(r->sym, r->addr, buf, size);
}

void top_view_free(struct top_view *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->rows[i]->pyname);
		free(t->rows[i]);
	}
	free(t->rows);
	hashmap_free(&t->index);
	memset(t, 0, sizeof(*t));
}

#include "python/pystore.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/dso.h"
#include "util/error.h"
#include "util/xalloc.h"

static const char magic[8] = { 'L', 'P', 'P', 'Y', 'S', 'T', 'K', '1' };

static void put(uint8_t **b, size_t *len, size_t *cap, const void *p, size_t n)
{
	if (*len + n > *cap) {
		size_t c = *cap ? *cap * 2 : 4096;
		while (c < *len + n)
			c *= 2;
		*b = xrealloc(*b, c);
		*cap = c;
	}
	memcpy(*b + *len, p, n);
	*len += n;
}

static struct pystore_tname *tname(struct pystore_writer *w, uint32_t tid)
{
	for (size_t i = 0; i < w->nnames; i++)
		if (w->names[i].tid == tid)
			return &w->names[i];
	ALLOC_GROW(w->names, w->nnames + 1, w->ncap);
	struct pystore_tname *t = &w->names[w->nnames++];
	t->tid = tid;
	t->name[0] = 0;
	w->unnamed++;
	return t;
}

void pystore_set_name(struct pystore_writer *w, uint32_t tid, const char *name)
{
	struct pystore_tname *t = tname(w, tid);
	if (!name || !*name)
		return;
	w->unnamed -= !t->name[0];
	snprintf(t->name, sizeof(t->name), "%s", name);
}

void pystore_add(struct pystore_writer *w, uint64_t time, uint32_t tid, uint16_t flags,
		 const struct py_frame *f, size_t n)
{
	if (!w->nnames || tid != w->last_tid) {
		tname(w, tid);
		w->last_tid = tid;
	}
	if (n > UINT16_MAX)
		n = UINT16_MAX;
	uint16_t n16 = (uint16_t)n;
	put(&w->stacks, &w->len, &w->cap, &time, 8);
	put(&w->stacks, &w->len, &w->cap, &tid, 4);
	put(&w->stacks, &w->len, &w->cap, &n16, 2);
	put(&w->stacks, &w->len, &w->cap, &flags, 2);
	for (size_t i = 0; i < n; i++) {
		uint8_t e = f[i].entry;
		put(&w->stacks, &w->len, &w->cap, &f[i].code, 4);
		put(&w->stacks, &w->len, &w->cap, &f[i].line, 4);
		put(&w->stacks, &w->len, &w->cap, &e, 1);
	}
	w->nstacks++;
}

static void put_str(uint8_t **b, size_t *len, size_t *cap, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	if (n > UINT16_MAX)
		n = UINT16_MAX;
	uint16_t n16 = (uint16_t)n;
	put(b, len, cap, &n16, 2);
	put(b, len, cap, s ? s : "", n);
}

uint8_t *pystore_finish(const struct pystore_writer *w, const struct pyread *r, size_t *len)
{
	uint8_t *b = NULL;
	size_t l = 0, cap = 0;
	uint32_t nc = (uint32_t)r->ncodes, flags = w->flags | PYSTORE_NAMES;
	put(&b, &l, &cap, magic, 8);
	put(&b, &l, &cap, &flags, 4);
	put(&b, &l, &cap, &nc, 4);
	for (size_t i = 0; i < r->ncodes; i++) {
		const struct py_code *c = r->codes[i];
		put(&b, &l, &cap, &c->firstline, 4);
		put_str(&b, &l, &cap, c->name);
		put_str(&b, &l, &cap, c->filename);
	}
	put(&b, &l, &cap, &w->nstacks, 4);
	if (w->len)
		put(&b, &l, &cap, w->stacks, w->len);
	uint32_t nn = 0;
	for (size_t i = 0; i < w->nnames; i++)
		nn += w->names[i].name[0] != 0;
	put(&b, &l, &cap, &nn, 4);
	for (size_t i = 0; i < w->nnames; i++)
		if (w->names[i].name[0]) {
			put(&b, &l, &cap, &w->names[i].tid, 4);
			put_str(&b, &l, &cap, w->names[i].name);
		}
	*len = l;
	return b;
}

void pystore_writer_free(struct pystore_writer *w)
{
	free(w->stacks);
	free(w->names);
	memset(w, 0, sizeof(*w));
}

/* Reading. */

struct pstack {
	uint64_t time;
	uint32_t tid;
	uint32_t n;
	bool truncated;          /* the outer frames were cut */
	bool gil;                /* its thread held the GIL */
	size_t first;            /* into frames */
};

struct pproc {
	int32_t pid;
	bool approx;
	uint32_t flags;          /* the blob's (PYSTORE_*) */
	struct symbol *syms;     /* one per code object */
	size_t nsyms;
	struct pystore_frame *frames;
	size_t nframes;
	struct pstack *stacks;   /* sorted by (tid, time) */
	size_t nstacks;
	struct pname {           /* the threads' Python names */
		uint32_t tid;
		char *name;
	} *names;
	size_t nnames;
};

struct pystore {
	struct pproc *p;
	size_t n;
};

struct pystore *pystore_new(void)
{
	return xcalloc(1, sizeof(struct pystore));
}

struct cur {
	const uint8_t *b;
	size_t len, off;
	bool bad;
};

static const void *take(struct cur *c, size_t n)
{
	if (c->bad || n > c->len - c->off) {
		c->bad = true;
		return NULL;
	}
	const void *p = c->b + c->off;
	c->off += n;
	return p;
}

static uint32_t u32(struct cur *c)
{
	uint32_t v = 0;
	const void *p = take(c, 4);
	if (p)
		memcpy(&v, p, 4);
	return v;
}

static uint16_t u16(struct cur *c)
{
	uint16_t v = 0;
	const void *p = take(c, 2);
	if (p)
		memcpy(&v, p, 2);
	return v;
}

static char *str(struct cur *c)
{
	uint16_t n = u16(c);
	const char *p = take(c, n);
	return p ? xstrndup(p, n) : NULL;
}

static int cmp_stack(const void *a, const void *b)
{
	const struct pstack *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

static void pproc_free(struct pproc *p)
{
	for (size_t i = 0; i < p->nsyms; i++)
		free(p->syms[i].name);
	free(p->syms);
	free(p->frames);
	free(p->stacks);
	for (size_t i = 0; i < p->nnames; i++)
		free(p->names[i].name);
	free(p->names);
}

/* The names after the stacks (PYSTORE_NAMES): u32 n, then n x {u32 tid, u16 len, name}. */
static void load_names(struct cur *c, struct pproc *p)
{
	uint32_t n = u32(c);
	if (n > (c->len - c->off) / 6) {
		c->bad = true;
		return;
	}
	p->names = xcalloc(n ? n : 1, sizeof(*p->names));
	for (uint32_t i = 0; i < n && !c->bad; i++) {
		uint32_t tid = u32(c);
		char *name = str(c);
		if (name)
			p->names[p->nnames++] = (struct pname){ tid, name };
	}
}

int pystore_load(struct pystore *s, int32_t pid, const uint8_t *blob, size_t len)
{
	struct cur c = { blob, len, 0, false };
	const void *m = take(&c, 8);
	if (!m || memcmp(m, magic, 8))
		return err_set("Python stacks of pid %d: no 'LPPYSTK1' magic at offset 0", (int)pid);
	struct pproc p = { .pid = pid };
	p.flags = u32(&c);
	p.approx = p.flags & PYSTORE_APPROX;
	uint32_t nc = u32(&c);
	if (nc > len / 8)
		c.bad = true;
	if (!c.bad)
		p.syms = xcalloc(nc ? nc : 1, sizeof(*p.syms));
	for (uint32_t i = 0; i < nc && !c.bad; i++) {
		int32_t first = (int32_t)u32(&c);
		char *name = str(&c), *file = str(&c);
		if (name && file) {
			p.syms[i].name = xasprintf("py::%s:%s", name, file);
			p.syms[i].start = (uint64_t)(uint32_t)first;
			p.nsyms = i + 1;
		}
		free(name);
		free(file);
	}
	uint32_t ns = u32(&c);
	if (ns > len / 16)
		c.bad = true;
	if (!c.bad)
		p.stacks = xcalloc(ns ? ns : 1, sizeof(*p.stacks));
	size_t fcap = 0;
	for (uint32_t i = 0; i < ns && !c.bad; i++) {
		const void *t = take(&c, 8);
		uint64_t time = 0;
		if (t)
			memcpy(&time, t, 8);
		uint32_t tid = u32(&c);
		uint16_t n = u16(&c), flags = u16(&c);
		struct pstack *st = &p.stacks[p.nstacks];
		st->time = time;
		st->tid = tid;
		st->truncated = flags & PYSTORE_TRUNCATED;
		st->gil = flags & PYSTORE_GIL;
		st->first = p.nframes;
		st->n = 0;
		for (uint16_t k = 0; k < n && !c.bad; k++) {
			uint32_t code = u32(&c);
			int32_t line = (int32_t)u32(&c);
			const uint8_t *e = take(&c, 1);
			if (c.bad)
				break;
			if (code >= p.nsyms) {
				c.bad = true;
				break;
			}
			ALLOC_GROW(p.frames, p.nframes + 1, fcap);
			p.frames[p.nframes++] = (struct pystore_frame){ &p.syms[code], line, *e != 0 };
			st->n++;
		}
		if (!c.bad)
			p.nstacks++;
	}
	if (!c.bad && (p.flags & PYSTORE_NAMES))
		load_names(&c, &p);
	if (c.bad) {
		pproc_free(&p);
		return err_set("Python stacks of pid %d: damaged at offset %zu of %zu", (int)pid, c.off, len);
	}
	qsort(p.stacks, p.nstacks, sizeof(*p.stacks), cmp_stack);
	s->p = xrealloc(s->p, (s->n + 1) * sizeof(*s->p));
	s->p[s->n++] = p;
	return 0;
}

const char *pystore_thread_name(const struct pystore *s, int32_t pid, uint32_t tid)
{
	for (size_t i = 0; s && i < s->n; i++) {
		const struct pproc *p = &s->p[i];
		if (p->pid != pid)
			continue;
		for (size_t k = 0; k < p->nnames; k++)
			if (p->names[k].tid == tid)
				return p->names[k].name;
	}
	return NULL;
}

uint32_t pystore_proc_flags(const struct pystore *s, int32_t pid)
{
	for (size_t i = 0; s && i < s->n; i++)
		if (s->p[i].pid == pid)
			return s->p[i].flags;
	return 0;
}

bool pystore_approx(const struct pystore *s)
{
	for (size_t i = 0; s && i < s->n; i++)
		if (s->p[i].approx)
			return true;
	return false;
}

bool pystore_paused(const struct pystore *s)
{
	bool paused = false;
	for (size_t i = 0; s && i < s->n; i++)
		paused |= (s->p[i].flags & PYSTORE_PAUSED) != 0;
	return paused && !pystore_approx(s);
}

bool pystore_own(const struct pystore *s)
{
	bool own = false;
	for (size_t i = 0; s && i < s->n; i++) {
		if (s->p[i].approx && !(s->p[i].flags & PYSTORE_OWN))
			return false;
		own |= s->p[i].approx;
	}
	return own;
}

size_t pystore_nstacks(const struct pystore *s)
{
	size_t n = 0;
	for (size_t i = 0; s && i < s->n; i++)
		n += s->p[i].nstacks;
	return n;
}

/* The stacks taken for (pid, tid) just before (or at) time and just after it, within the window
 * (*before, *after NULL when none); the process, NULL when neither is. */
static const struct pproc *around(const struct pystore *s, int32_t pid, uint32_t tid, uint64_t time,
				  const struct pstack **before, const struct pstack **after)
{
	*before = *after = NULL;
	for (size_t i = 0; s && i < s->n; i++) {
		const struct pproc *p = &s->p[i];
		if (p->pid != pid || !p->nstacks)
			continue;
		/* The last stack of tid at or before time, and the first after. */
		size_t lo = 0, hi = p->nstacks;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			const struct pstack *m = &p->stacks[mid];
			if (m->tid < tid || (m->tid == tid && m->time <= time))
				lo = mid + 1;
			else
				hi = mid;
		}
		/* The BPF program runs in the sample's overflow handler, a few microseconds from the
		 * sample's timestamp (after it on current kernels), so within 1 ms; approximate stacks
		 * were read at the batch, within 250 ms. */
		uint64_t window = p->approx ? 250000000ull : 1000000ull;
		if (lo > 0 && p->stacks[lo - 1].tid == tid && time - p->stacks[lo - 1].time <= window)
			*before = &p->stacks[lo - 1];
		if (lo < p->nstacks && p->stacks[lo].tid == tid && p->stacks[lo].time - time <= window)
			*after = &p->stacks[lo];
		return *before || *after ? p : NULL;
	}
	return NULL;
}

/* The stack taken for (pid, tid) nearest to time, and its process; NULL when none. */
static const struct pstack *nearest(const struct pystore *s, int32_t pid, uint32_t tid, uint64_t time,
				    const struct pproc **proc)
{
	const struct pstack *b, *a;
	*proc = around(s, pid, tid, time, &b, &a);
	if (a && (!b || a->time - time < time - b->time))
		return a;
	return b;
}

static void hit(const struct pproc *p, const struct pstack *st, struct pystore_hit *h)
{
	*h = st ? (struct pystore_hit){ &p->frames[st->first], st->n, st->truncated, st->time } :
		  (struct pystore_hit){ NULL, 0, false, 0 };
}

bool pystore_around(const struct pystore *s, int32_t pid, uint32_t tid, uint64_t time, struct pystore_hit *before,
		    struct pystore_hit *after)
{
	const struct pstack *b, *a;
	const struct pproc *p = around(s, pid, tid, time, &b, &a);
	hit(p, b, before);
	hit(p, a, after);
	return p != NULL;
}

const struct pystore_frame *pystore_find(const struct pystore *s, int32_t pid, uint32_t tid, uint64_t time,
					 size_t *n, bool *truncated)
{
	const struct pproc *p;
	const struct pstack *best = nearest(s, pid, tid, time, &p);
	*n = best ? best->n : 0;
	*truncated = best && best->truncated;
	return best ? &p->frames[best->first] : NULL;
}

int pystore_gil(const struct pystore *s, int32_t pid, uint32_t tid, uint64_t time)
{
	const struct pproc *p;
	const struct pstack *st = nearest(s, pid, tid, time, &p);
	if (!st || !(p->flags & PYSTORE_GIL_KNOWN))
		return -1;
	return st->gil;
}

uint32_t pystore_gil_flags(const struct pystore *s)
{
	uint32_t f = 0;
	for (size_t i = 0; s && i < s->n; i++)
		f |= s->p[i].flags & (PYSTORE_GIL_ONLY | PYSTORE_GIL_MARK);
	return f;
}

void pystore_free(struct pystore *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		pproc_free(&s->p[i]);
	free(s->p);
	free(s);
}

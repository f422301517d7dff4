/* An address space: non-overlapping maps in a treap keyed by start (a binary search tree by start,
 * a heap by random priority, so its depth is O(log n) whatever the insertion order). An
 * insertion cuts what it covers out of older maps, as mmap(MAP_FIXED) does to the real address
 * space. */
#include "model/machine.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

struct maps_node {
	struct map m;
	struct maps_node *l, *r;
	uint64_t prio;
};

static uint64_t maps_clock;

static uint64_t next_prio(void)
{
	static uint64_t x = 0x9e3779b97f4a7c15ULL;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return x;
}

static void free_tree(struct maps_node *t)
{
	while (t) {
		free_tree(t->l);
		struct maps_node *r = t->r;
		free(t);
		t = r;
	}
}

void maps_init(struct maps *ms)
{
	memset(ms, 0, sizeof(*ms));
	ms->gen = ++maps_clock;
}

void maps_release(struct maps *ms)
{
	free_tree(ms->root);
	free(ms->view);
	memset(ms, 0, sizeof(*ms));
}

struct maps *maps_new(void)
{
	struct maps *ms = xcalloc(1, sizeof(*ms));
	ms->refcnt = 1;
	ms->gen = ++maps_clock;
	return ms;
}

struct maps *maps_get(struct maps *ms)
{
	if (ms)
		ms->refcnt++;
	return ms;
}

void maps_put(struct maps *ms)
{
	if (!ms || --ms->refcnt > 0)
		return;
	free_tree(ms->root);
	free(ms->view);
	free(ms);
}

/* Splits t into the maps starting before key (*lo) and the others (*hi). */
static void split(struct maps_node *t, uint64_t key, struct maps_node **lo, struct maps_node **hi)
{
	while (t) {
		if (t->m.start < key) {
			*lo = t;
			lo = &t->r;
			t = t->r;
		} else {
			*hi = t;
			hi = &t->l;
			t = t->l;
		}
	}
	*lo = *hi = NULL;
}

/* Joins a and b, every start of a below every start of b. */
static struct maps_node *merge(struct maps_node *a, struct maps_node *b)
{
	struct maps_node *root = NULL, **at = &root;
	while (a && b) {
		if (a->prio > b->prio) {
			*at = a;
			at = &a->r;
			a = a->r;
		} else {
			*at = b;
			at = &b->l;
			b = b->l;
		}
	}
	*at = a ? a : b;
	return root;
}

static struct maps_node *node(const struct map *m)
{
	struct maps_node *n = xcalloc(1, sizeof(*n));
	n->m = *m;
	n->prio = next_prio();
	return n;
}

/* Takes the last map (the largest start) out of *t; NULL when *t is empty. */
static struct maps_node *take_last(struct maps_node **t)
{
	if (!*t)
		return NULL;
	while ((*t)->r)
		t = &(*t)->r;
	struct maps_node *last = *t;
	*t = last->l;
	last->l = NULL;
	return last;
}

static size_t count_tree(const struct maps_node *t)
{
	size_t n = 0;
	for (; t; t = t->r)
		n += 1 + count_tree(t->l);
	return n;
}

struct maps *maps_clone(const struct maps *ms)
{
	struct maps *c = maps_new();
	if (ms && ms->n) {
		const struct map *v = maps_view(ms);
		for (size_t i = 0; i < ms->n; i++) /* in order: each joins at the right end */
			c->root = merge(c->root, node(&v[i]));
		c->n = ms->n;
	}
	return c;
}

void maps_clear(struct maps *ms)
{
	free_tree(ms->root);
	ms->root = NULL;
	ms->n = 0;
	ms->gen = ++maps_clock;
}

void maps_insert(struct maps *ms, const struct map *mp)
{
	if (mp->start >= mp->end)
		return;
	ms->gen = ++maps_clock;
	struct maps_node *lo, *mid, *hi, *rest;
	split(ms->root, mp->start, &lo, &rest);
	split(rest, mp->end, &mid, &hi);
	/* lo's last map may reach into the new one: it keeps its head, and a tail past its end. */
	struct maps_node *before = take_last(&lo), *tail = NULL;
	if (before && before->m.end > mp->start) {
		if (before->m.end > mp->end) {
			struct map t = before->m;
			t.pgoff += mp->end - t.start;
			t.start = mp->end;
			tail = node(&t);
			ms->n++;
		}
		before->m.end = mp->start;
	}
	/* mid's maps start within the new one and go; the last may end past it and keeps a tail
	 * (then before did not reach past it: maps do not overlap). */
	struct maps_node *last = take_last(&mid);
	if (last && last->m.end > mp->end) {
		last->m.pgoff += mp->end - last->m.start;
		last->m.start = mp->end;
		tail = last;
	} else if (last) {
		free(last);
		ms->n--;
	}
	ms->n -= count_tree(mid);
	free_tree(mid);
	ms->n++;
	lo = merge(lo, before);
	lo = merge(lo, node(mp));
	lo = merge(lo, tail);
	ms->root = merge(lo, hi);
}

const struct map *maps_find(const struct maps *ms, uint64_t addr)
{
	const struct maps_node *t = ms->root, *best = NULL;
	while (t) {
		if (t->m.start <= addr) {
			best = t;
			t = t->r;
		} else {
			t = t->l;
		}
	}
	return best && addr < best->m.end ? &best->m : NULL;
}

static void fill(const struct maps_node *t, struct map *v, size_t *k)
{
	for (; t; t = t->r) {
		fill(t->l, v, k);
		v[(*k)++] = t->m;
	}
}

const struct map *maps_view(const struct maps *cms)
{
	struct maps *ms = (struct maps *)cms; /* the view is a cache of the tree */
	if (ms->view_gen != ms->gen || !ms->view) {
		ALLOC_GROW(ms->view, ms->n + 1, ms->view_cap);
		size_t k = 0;
		fill(ms->root, ms->view, &k);
		ms->view_gen = ms->gen;
	}
	return ms->view;
}

void maps_set_end(struct maps *ms, uint64_t start, uint64_t end)
{
	struct maps_node *t = ms->root;
	while (t && t->m.start != start)
		t = start < t->m.start ? t->l : t->r;
	if (t && end > start) {
		t->m.end = end;
		ms->gen = ++maps_clock;
	}
}

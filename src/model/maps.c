/* An address space: non-overlapping maps in a sorted array. Lookups bisect; an insertion cuts
 * what it covers out of older maps, as mmap(MAP_FIXED) does to the real address space. */
#include "model/machine.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

static uint64_t maps_clock;

void maps_init(struct maps *ms)
{
	memset(ms, 0, sizeof(*ms));
	ms->gen = ++maps_clock;
}

void maps_release(struct maps *ms)
{
	free(ms->v);
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
	free(ms->v);
	free(ms);
}

struct maps *maps_clone(const struct maps *ms)
{
	struct maps *c = maps_new();
	if (ms && ms->n) {
		c->v = xmalloc(ms->n * sizeof(*c->v));
		memcpy(c->v, ms->v, ms->n * sizeof(*c->v));
		c->n = c->cap = ms->n;
	}
	return c;
}

void maps_clear(struct maps *ms)
{
	ms->n = 0;
	ms->gen = ++maps_clock;
}

/* The index of the first map that ends after addr (the only one that can contain it). */
static size_t first_ending_after(const struct maps *ms, uint64_t addr)
{
	size_t lo = 0, hi = ms->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ms->v[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

void maps_insert(struct maps *ms, const struct map *mp)
{
	if (mp->start >= mp->end)
		return;
	ms->gen = ++maps_clock;
	/* Maps [i, j) overlap the new one; at most the first keeps a head and the last a tail. */
	size_t i = first_ending_after(ms, mp->start), j = i;
	while (j < ms->n && ms->v[j].start < mp->end)
		j++;
	struct map head = { 0 }, tail = { 0 };
	bool has_head = false, has_tail = false;
	if (i < j && ms->v[i].start < mp->start) {
		head = ms->v[i];
		head.end = mp->start;
		has_head = true;
	}
	if (i < j && ms->v[j - 1].end > mp->end) {
		tail = ms->v[j - 1];
		tail.pgoff += mp->end - tail.start;
		tail.start = mp->end;
		has_tail = true;
	}
	size_t nnew = 1 + has_head + has_tail, nold = j - i;
	ALLOC_GROW(ms->v, ms->n - nold + nnew, ms->cap);
	memmove(ms->v + i + nnew, ms->v + j, (ms->n - j) * sizeof(*ms->v));
	size_t k = i;
	if (has_head)
		ms->v[k++] = head;
	ms->v[k++] = *mp;
	if (has_tail)
		ms->v[k++] = tail;
	ms->n = ms->n - nold + nnew;
}

const struct map *maps_find(const struct maps *ms, uint64_t addr)
{
	size_t i = first_ending_after(ms, addr);
	if (i < ms->n && ms->v[i].start <= addr)
		return &ms->v[i];
	return NULL;
}

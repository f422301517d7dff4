#include "analysis/stackdiff.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/xalloc.h"

static size_t find_event(const struct stacks *st, const char *name)
{
	for (size_t e = 0; e < st->nevents; e++)
		if (!strcmp(st->events[e].name, name))
			return e;
	return SIZE_MAX;
}

static struct diff_row *row_for(struct stack_diff *d, const char *key)
{
	/* Rows are few hundred to a few thousand: a linear search keeps this short and simple. */
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->rows[i].key, key))
			return &d->rows[i];
	ALLOC_GROW(d->rows, d->n + 1, d->cap);
	struct diff_row *r = &d->rows[d->n++];
	memset(r, 0, sizeof(*r));
	r->key = xstrdup(key);
	return r;
}

static void collect(struct stack_diff *d, const struct stacks *st, size_t e, bool is_new)
{
	uint64_t total = st->events[e].samples;
	if (d->by_stack) {
		for (size_t i = 0; i < st->nnodes; i++) {
			if (!st->nodes[i].self)
				continue;
			uint32_t top = (uint32_t)i;
			while (st->nodes[top].parent != UINT32_MAX)
				top = st->nodes[top].parent;
			if (top != st->events[e].root)
				continue;
			char *path = stacks_path(st, (uint32_t)i);
			const char *semi = strchr(path, ';');   /* the command is left out */
			struct diff_row *r = row_for(d, semi ? semi + 1 : "[command only]");
			free(path);
			*(is_new ? &r->new_n : &r->old_n) += st->nodes[i].self;
		}
	} else {
		struct stack_func *fn;
		size_t n = stacks_functions(st, e, &fn);
		for (size_t i = 0; i < n; i++) {
			if (!fn[i].self)
				continue;
			struct diff_row *r = row_for(d, st->frames[fn[i].frame].name);
			*(is_new ? &r->new_n : &r->old_n) += fn[i].self;
		}
		free(fn);
	}
	for (size_t i = 0; i < d->n; i++) {
		struct diff_row *r = &d->rows[i];
		double pct = total ? 100.0 * (double)(is_new ? r->new_n : r->old_n) / (double)total : 0;
		*(is_new ? &r->new_pct : &r->old_pct) = pct;
	}
}

static int cmp_rows(const void *a, const void *b)
{
	const struct diff_row *x = a, *y = b;
	double dx = fabs(x->new_pct - x->old_pct), dy = fabs(y->new_pct - y->old_pct);
	if (dx != dy)
		return dx < dy ? 1 : -1;
	return strcmp(x->key, y->key);
}

int stack_diff_compute(struct stack_diff *d, const struct stacks *old, const struct stacks *new_,
		       const char *event, bool by_stack)
{
	memset(d, 0, sizeof(*d));
	d->by_stack = by_stack;
	for (size_t e = 0; !event && e < new_->nevents; e++)
		if (new_->events[e].samples)
			event = new_->events[e].name;
	if (!event)
		return err_set("the new recording has no samples");
	d->new_e = find_event(new_, event);
	d->old_e = find_event(old, event);
	if (d->new_e == SIZE_MAX || d->old_e == SIZE_MAX || !new_->events[d->new_e].samples ||
	    !old->events[d->old_e].samples)
		return err_set("event '%s' has no samples in the %s recording", event,
			       d->old_e == SIZE_MAX || !old->events[d->old_e].samples ? "old" : "new");
	d->event = new_->events[d->new_e].name;
	d->old_total = old->events[d->old_e].samples;
	d->new_total = new_->events[d->new_e].samples;
	collect(d, old, d->old_e, false);
	collect(d, new_, d->new_e, true);
	if (d->n > 1)
		qsort(d->rows, d->n, sizeof(*d->rows), cmp_rows);
	return 0;
}

void stack_diff_free(struct stack_diff *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->rows[i].key);
	free(d->rows);
	memset(d, 0, sizeof(*d));
}

/* Samples of the same stack in old under any command (a rebuilt program may have another name);
 * the command frame itself matches every command. */
static uint64_t old_samples(const struct stacks *old, size_t oe, const struct stacks *new_, uint32_t node)
{
	const struct stack_node *root = &old->nodes[old->events[oe].root];
	if (new_->nodes[node].depth == 1)
		return root->total;
	char *path = stacks_path(new_, node);
	const char *rest = strchr(path, ';');
	uint64_t n = 0;
	for (uint32_t k = 0; rest && k < root->nkids; k++) {
		uint32_t on = stacks_find_under(old, root->kids[k], rest + 1);
		if (on != UINT32_MAX)
			n += old->nodes[on].total;
	}
	free(path);
	return n;
}

double *stack_diff_nodes(const struct stacks *old, const struct stacks *new_)
{
	double *delta = xcalloc(new_->nnodes ? new_->nnodes : 1, sizeof(double));
	for (size_t i = 0; i < new_->nnodes; i++) {
		const struct stack_node *nd = &new_->nodes[i];
		uint32_t top = (uint32_t)i;
		while (new_->nodes[top].parent != UINT32_MAX)
			top = new_->nodes[top].parent;
		size_t ne = 0;
		while (ne < new_->nevents && new_->events[ne].root != top)
			ne++;
		if (ne == new_->nevents || nd->parent == UINT32_MAX)
			continue;
		double nt = (double)new_->events[ne].samples;
		double now = nt ? 100.0 * (double)nd->total / nt : 0, before = 0;
		size_t oe = find_event(old, new_->events[ne].name);
		if (oe != SIZE_MAX && old->events[oe].samples)
			before = 100.0 * (double)old_samples(old, oe, new_, (uint32_t)i) /
				 (double)old->events[oe].samples;
		delta[i] = now - before;
	}
	return delta;
}

#include "analysis/folded.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/strbuf.h"
#include "util/xalloc.h"

void folded_init(struct folded *f, bool with_comm, bool by_period)
{
	memset(f, 0, sizeof(*f));
	f->with_comm = with_comm;
	f->by_period = by_period;
	hashmap_init(&f->index, HASHMAP_STR);
}

/* A frame's name: the function, else "[dso]" or "[unknown]". Semicolons would split frames, so
 * they are replaced. */
static void add_name(struct strbuf *sb, const struct frame *fr)
{
	const char *name = fr->loc.sym ? fr->loc.sym->name : NULL;
	size_t start = sb->len;
	if (name)
		sb_adds(sb, name);
	else if (fr->loc.dso)
		sb_addf(sb, "[%s]", fr->loc.dso->short_name);
	else
		sb_adds(sb, "[unknown]");
	for (size_t i = start; i < sb->len; i++)
		if (sb->buf[i] == ';' || sb->buf[i] == '\n')
			sb->buf[i] = ':';
	if (fr->loc.kernel && name)
		sb_adds(sb, "_[k]");
}

void folded_add(struct folded *f, const struct resolved_sample *rs)
{
	struct strbuf sb = STRBUF_INIT;
	if (f->with_comm) {
		sb_adds(&sb, rs->thread && rs->thread->comm ? rs->thread->comm : "[unknown]");
		for (size_t i = 0; i < sb.len; i++)
			if (sb.buf[i] == ';' || sb.buf[i] == ' ' || sb.buf[i] == '\n')
				sb.buf[i] = '_';
	}
	for (size_t i = rs->nframes; i-- > 0;) {
		if (sb.len)
			sb_addc(&sb, ';');
		add_name(&sb, &rs->frames[i]);
	}
	if (!sb.len)
		sb_adds(&sb, "[unknown]");
	uint64_t w = f->by_period ? (rs->s->period ? rs->s->period : 1) : 1;
	bool found;
	struct hashmap_entry *e = hashmap_insert_str(&f->index, sb_str(&sb), &found);
	if (found) {
		f->counts[(size_t)(uintptr_t)e->value] += w;
		sb_release(&sb);
		return;
	}
	ALLOC_GROW(f->stacks, f->n + 1, f->cap);
	f->counts = xrealloc(f->counts, f->cap * sizeof(uint64_t));
	f->stacks[f->n] = sb_detach(&sb);
	f->counts[f->n] = w;
	e->key.str = f->stacks[f->n]; /* the same string, in storage that stays */
	e->value = (void *)(uintptr_t)f->n++;
}

static int cmp_idx(const void *a, const void *b, void *arg)
{
	char **stacks = arg;
	return strcmp(stacks[*(const size_t *)a], stacks[*(const size_t *)b]);
}

size_t *folded_order(const struct folded *f)
{
	size_t *order = xmalloc((f->n ? f->n : 1) * sizeof(size_t));
	for (size_t i = 0; i < f->n; i++)
		order[i] = i;
	if (f->n > 1)
		qsort_r(order, f->n, sizeof(size_t), cmp_idx, f->stacks);
	return order;
}

void folded_free(struct folded *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->stacks[i]);
	free(f->stacks);
	free(f->counts);
	hashmap_free(&f->index);
	memset(f, 0, sizeof(*f));
}

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
	f->tsize = 1024;
	f->table = xcalloc(f->tsize, sizeof(size_t));
}

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

static void grow(struct folded *f)
{
	free(f->table);
	f->tsize *= 2;
	f->table = xcalloc(f->tsize, sizeof(size_t));
	for (size_t i = 0; i < f->n; i++) {
		size_t j = hash_str(f->stacks[i]) & (f->tsize - 1);
		while (f->table[j])
			j = (j + 1) & (f->tsize - 1);
		f->table[j] = i + 1;
	}
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
			if (sb.buf[i] == ';' || sb.buf[i] == ' ')
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
	size_t j = hash_str(sb_str(&sb)) & (f->tsize - 1);
	for (;; j = (j + 1) & (f->tsize - 1)) {
		size_t slot = f->table[j];
		if (!slot) {
			ALLOC_GROW(f->stacks, f->n + 1, f->cap);
			f->counts = xrealloc(f->counts, f->cap * sizeof(uint64_t));
			f->stacks[f->n] = sb_detach(&sb);
			f->counts[f->n] = w;
			f->table[j] = ++f->n;
			if (f->n * 2 > f->tsize)
				grow(f);
			return;
		}
		if (!strcmp(f->stacks[slot - 1], sb_str(&sb))) {
			f->counts[slot - 1] += w;
			sb_release(&sb);
			return;
		}
	}
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
	free(f->table);
	memset(f, 0, sizeof(*f));
}

/* Inline frames' symbols (see srcline.h): one per (base symbol, name). */
#include "symbols/srcline.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/hashmap.h"
#include "util/xalloc.h"

/* Inline frames: synthetic symbols, one per (base symbol, name), so that every frame of one
 * inlined function in one caller is the same symbol (call trees merge them, as perf merges
 * inlined frames by name). */
struct sl_isym {
	const struct symbol *base;
	const char *name;        /* interned */
	struct symbol sym;
};

static struct hashmap isyms; /* (base, name) -> struct sl_isym */

static uint64_t isym_hash(const struct symbol *base, const char *name)
{
	return hashmap_hash_u64((uintptr_t)base ^ hashmap_hash_u64((uintptr_t)name));
}

static bool isym_eq(const void *value, const void *key)
{
	const struct sl_isym *v = value, *k = key;
	return v->base == k->base && v->name == k->name;
}

const struct symbol *srcline_inline_symbol(const struct symbol *base, const char *name)
{
	if (!isyms.eq)
		hashmap_init_custom(&isyms, isym_eq);
	struct sl_isym probe = { base, name, { 0 } };
	bool found;
	struct hashmap_entry *e = hashmap_insert_custom(&isyms, isym_hash(base, name), &probe, &found);
	if (!found) {
		struct sl_isym *is = xcalloc(1, sizeof(*is));
		is->base = base;
		is->name = name;
		is->sym.start = base->start;
		is->sym.size = base->size;
		is->sym.name = (char *)name;
		e->value = is;
	}
	return &((struct sl_isym *)e->value)->sym;
}

const struct symbol *srcline_inline_base(const struct symbol *s)
{
	/* s is the sym member of an sl_isym (only inline frames carry such symbols). */
	const struct sl_isym *is = (const struct sl_isym *)(const void *)((const char *)s -
									  offsetof(struct sl_isym, sym));
	return is->base;
}

void srcline_inline_symbols_free(void)
{
	for (size_t i = 0; i < isyms.n; i++)
		free(isyms.v[i].value);
	hashmap_free(&isyms);
	memset(&isyms, 0, sizeof(isyms));
}

/* The hash map: a dense entry array in insertion order and a slot array of indices + 1, kept at
 * most half full so that linear probes stay short. Each entry keeps its hash, so growing never
 * rehashes a key and most mismatches are settled without comparing keys. */
#include "util/hashmap.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

void hashmap_init(struct hashmap *m, enum hashmap_keys kind)
{
	memset(m, 0, sizeof(*m));
	m->kind = kind;
}

void hashmap_init_custom(struct hashmap *m, bool (*eq)(const void *value, const void *key))
{
	hashmap_init(m, HASHMAP_CUSTOM);
	m->eq = eq;
}

void hashmap_free(struct hashmap *m)
{
	free(m->v);
	free(m->slots);
	m->v = NULL;
	m->slots = NULL;
	m->n = m->cap = m->nslots = 0;
}

uint64_t hashmap_hash_u64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

uint64_t hashmap_hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static uint64_t hash_key(enum hashmap_keys kind, union hashmap_key key)
{
	switch (kind) {
	case HASHMAP_STR:
		return hashmap_hash_str(key.str);
	case HASHMAP_PTR:
		return hashmap_hash_u64((uint64_t)(uintptr_t)key.ptr);
	default:
		return hashmap_hash_u64(key.u64);
	}
}

static bool same(const struct hashmap *m, enum hashmap_keys kind, const struct hashmap_entry *e,
		 uint64_t hash, union hashmap_key key)
{
	if (e->hash != hash)
		return false;
	switch (kind) {
	case HASHMAP_U64:
		return e->key.u64 == key.u64;
	case HASHMAP_STR:
		return !strcmp(e->key.str, key.str);
	case HASHMAP_PTR:
		return e->key.ptr == key.ptr;
	case HASHMAP_CUSTOM:
		return m->eq(e->value, key.ptr);
	}
	return false;
}

/* From slot i on, the first slot that is empty or holds the key. */
static size_t probe(const struct hashmap *m, enum hashmap_keys kind, size_t i, uint64_t hash,
		    union hashmap_key key)
{
	size_t mask = m->nslots - 1;
	for (i &= mask; m->slots[i]; i = (i + 1) & mask)
		if (same(m, kind, &m->v[m->slots[i] - 1], hash, key))
			break;
	return i;
}

static struct hashmap_entry *find(const struct hashmap *m, enum hashmap_keys kind, uint64_t hash,
				   union hashmap_key key)
{
	if (!m->nslots)
		return NULL;
	size_t s = m->slots[probe(m, kind, (size_t)hash, hash, key)];
	return s ? &m->v[s - 1] : NULL;
}

static void grow(struct hashmap *m)
{
	if ((m->n + 1) * 2 <= m->nslots)
		return;
	free(m->slots);
	m->nslots = m->nslots ? m->nslots * 2 : 64;
	m->slots = xcalloc(m->nslots, sizeof(*m->slots));
	size_t mask = m->nslots - 1;
	for (size_t k = 0; k < m->n; k++) {
		size_t i = (size_t)m->v[k].hash & mask;
		while (m->slots[i])
			i = (i + 1) & mask;
		m->slots[i] = k + 1;
	}
}

static struct hashmap_entry *append(struct hashmap *m, size_t slot, uint64_t hash, union hashmap_key key)
{
	ALLOC_GROW(m->v, m->n + 1, m->cap);
	struct hashmap_entry *e = &m->v[m->n++];
	e->key = key;
	e->value = NULL;
	e->hash = hash;
	m->slots[slot] = m->n;
	return e;
}

static struct hashmap_entry *insert(struct hashmap *m, enum hashmap_keys kind, uint64_t hash,
				     union hashmap_key key, bool *found)
{
	grow(m);
	size_t i = probe(m, kind, (size_t)hash, hash, key);
	*found = m->slots[i] != 0;
	return *found ? &m->v[m->slots[i] - 1] : append(m, i, hash, key);
}

struct hashmap_entry *hashmap_find_u64(const struct hashmap *m, uint64_t key)
{
	union hashmap_key k = { .u64 = key };
	return find(m, HASHMAP_U64, hash_key(HASHMAP_U64, k), k);
}

struct hashmap_entry *hashmap_find_str(const struct hashmap *m, const char *key)
{
	union hashmap_key k = { .str = key };
	return find(m, HASHMAP_STR, hash_key(HASHMAP_STR, k), k);
}

struct hashmap_entry *hashmap_find_ptr(const struct hashmap *m, const void *key)
{
	union hashmap_key k = { .ptr = key };
	return find(m, HASHMAP_PTR, hash_key(HASHMAP_PTR, k), k);
}

struct hashmap_entry *hashmap_find_custom(const struct hashmap *m, uint64_t hash, const void *key)
{
	union hashmap_key k = { .ptr = key };
	return find(m, HASHMAP_CUSTOM, hash, k);
}

struct hashmap_entry *hashmap_next_str(const struct hashmap *m, const char *key, size_t *pos)
{
	if (!m->nslots)
		return NULL;
	union hashmap_key k = { .str = key };
	uint64_t hash = hash_key(HASHMAP_STR, k);
	/* *pos: 0 to start, else the slot after the last match + 1. */
	size_t i = probe(m, HASHMAP_STR, *pos ? *pos - 1 : (size_t)hash, hash, k);
	if (!m->slots[i])
		return NULL;
	*pos = ((i + 1) & (m->nslots - 1)) + 1;
	return &m->v[m->slots[i] - 1];
}

struct hashmap_entry *hashmap_insert_u64(struct hashmap *m, uint64_t key, bool *found)
{
	union hashmap_key k = { .u64 = key };
	return insert(m, HASHMAP_U64, hash_key(HASHMAP_U64, k), k, found);
}

struct hashmap_entry *hashmap_insert_str(struct hashmap *m, const char *key, bool *found)
{
	union hashmap_key k = { .str = key };
	return insert(m, HASHMAP_STR, hash_key(HASHMAP_STR, k), k, found);
}

struct hashmap_entry *hashmap_insert_ptr(struct hashmap *m, const void *key, bool *found)
{
	union hashmap_key k = { .ptr = key };
	return insert(m, HASHMAP_PTR, hash_key(HASHMAP_PTR, k), k, found);
}

struct hashmap_entry *hashmap_insert_custom(struct hashmap *m, uint64_t hash, const void *key, bool *found)
{
	union hashmap_key k = { .ptr = key };
	return insert(m, HASHMAP_CUSTOM, hash, k, found);
}

struct hashmap_entry *hashmap_add_str(struct hashmap *m, const char *key, void *value)
{
	union hashmap_key k = { .str = key };
	uint64_t hash = hash_key(HASHMAP_STR, k);
	grow(m);
	size_t mask = m->nslots - 1, i = (size_t)hash & mask;
	while (m->slots[i])
		i = (i + 1) & mask;
	struct hashmap_entry *e = append(m, i, hash, k);
	e->value = value;
	return e;
}

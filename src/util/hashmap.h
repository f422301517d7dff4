/* One open-addressing hash map for the whole tree: u64, string, pointer or caller-hashed keys to
 * a void * value. Entries live in one array in insertion order (iteration is stable and does not
 * depend on the hash: outputs that list entries keep the order in which they were first seen),
 * and a power-of-two slot array, at most half full, indexes them by linear probing.
 *
 * Keys are not copied: a string or pointer key must live as long as the map (it is normally
 * the value's own field). A map may hold several entries with one key (hashmap_add); lookups
 * see them oldest first. Entries are never removed one by one: no caller needs it, and without
 * removal the probe chains stay tombstone-free.
 *
 * The key kind is the functions' (hashmap_find_u64 ...), not the map's: kind is what the owner
 * means to use, and a zeroed struct hashmap is an empty map for u64, string and pointer keys. */
#ifndef LPERF_UTIL_HASHMAP_H
#define LPERF_UTIL_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum hashmap_keys {
	HASHMAP_U64,
	HASHMAP_STR,
	HASHMAP_PTR,
	/* The caller hashes the key and eq() compares a stored value with a probe key. */
	HASHMAP_CUSTOM,
};

union hashmap_key {
	uint64_t u64;
	const char *str;
	const void *ptr;         /* HASHMAP_PTR's key; HASHMAP_CUSTOM's probe key while inserting */
};

struct hashmap_entry {
	union hashmap_key key;
	void *value;
	uint64_t hash;
};

struct hashmap {
	enum hashmap_keys kind;
	bool (*eq)(const void *value, const void *key); /* HASHMAP_CUSTOM */
	struct hashmap_entry *v; /* the entries in insertion order: v[0 .. n) */
	size_t n, cap;
	size_t *slots;           /* index into v + 1; 0 empty */
	size_t nslots;
};

#define HASHMAP_INIT(k) { (k), NULL, NULL, 0, 0, NULL, 0 }

void hashmap_init(struct hashmap *m, enum hashmap_keys kind);
void hashmap_init_custom(struct hashmap *m, bool (*eq)(const void *value, const void *key));
/* Frees the map's memory; keys and values are the caller's. The map can be used again. */
void hashmap_free(struct hashmap *m);

/* The hashes the map uses for its key kinds (FNV-1a for strings, a 64-bit finaliser for the
 * others), for HASHMAP_CUSTOM callers that combine fields. */
uint64_t hashmap_hash_u64(uint64_t x);
uint64_t hashmap_hash_str(const char *s);

/* The oldest entry with the key, or NULL. The pointer is valid until the next insertion. */
struct hashmap_entry *hashmap_find_u64(const struct hashmap *m, uint64_t key);
struct hashmap_entry *hashmap_find_str(const struct hashmap *m, const char *key);
struct hashmap_entry *hashmap_find_ptr(const struct hashmap *m, const void *key);
struct hashmap_entry *hashmap_find_custom(const struct hashmap *m, uint64_t hash, const void *key);

/* The entries with one key one after the other, oldest first: start with *pos = 0 and call
 * until NULL. */
struct hashmap_entry *hashmap_next_str(const struct hashmap *m, const char *key, size_t *pos);

/* Finds the key's entry or appends a new one (value NULL; *found false) in one probe. A new
 * entry's key may then be pointed at an equal key in storage that stays (the probe key was a
 * temporary); a new HASHMAP_CUSTOM entry must get its value before the next call, since eq()
 * reads it. */
struct hashmap_entry *hashmap_insert_u64(struct hashmap *m, uint64_t key, bool *found);
struct hashmap_entry *hashmap_insert_str(struct hashmap *m, const char *key, bool *found);
struct hashmap_entry *hashmap_insert_ptr(struct hashmap *m, const void *key, bool *found);
struct hashmap_entry *hashmap_insert_custom(struct hashmap *m, uint64_t hash, const void *key, bool *found);

/* Appends an entry even when the key is there already (a multimap). */
struct hashmap_entry *hashmap_add_str(struct hashmap *m, const char *key, void *value);

#endif

/* The util hash map: u64, string, pointer and caller-hashed keys; find-or-insert in one probe;
 * growth past many doublings; insertion-order iteration; several entries under one string key
 * seen oldest first; colliding hashes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/hashmap.h"
#include "util/xalloc.h"

static void test_u64_grow_and_order(void **state)
{
	struct hashmap m;
	hashmap_init(&m, HASHMAP_U64);
	assert_null(hashmap_find_u64(&m, 1));
	enum { N = 20000 };
	for (uint64_t i = 0; i < N; i++) {
		bool found;
		/* spread keys, with a zero key and huge keys among them */
		uint64_t key = i * 0x9e3779b97f4a7c15ULL;
		struct hashmap_entry *e = hashmap_insert_u64(&m, key, &found);
		assert_false(found);
		e->value = (void *)(uintptr_t)(i + 1);
	}
	assert_int_equal(m.n, N);
	assert_true(m.nslots >= 2 * m.n);
	for (uint64_t i = 0; i < N; i++) {
		struct hashmap_entry *e = hashmap_find_u64(&m, i * 0x9e3779b97f4a7c15ULL);
		assert_non_null(e);
		assert_int_equal((uintptr_t)e->value, i + 1);
		/* iteration is insertion order */
		assert_int_equal((uintptr_t)m.v[i].value, i + 1);
	}
	bool found;
	struct hashmap_entry *e = hashmap_insert_u64(&m, 5 * 0x9e3779b97f4a7c15ULL, &found);
	assert_true(found);
	assert_int_equal((uintptr_t)e->value, 6);
	assert_int_equal(m.n, N);
	assert_null(hashmap_find_u64(&m, 3));
	hashmap_free(&m);
	assert_null(hashmap_find_u64(&m, 0));
	/* usable again after free */
	hashmap_insert_u64(&m, 7, &found)->value = &m;
	assert_ptr_equal(hashmap_find_u64(&m, 7)->value, &m);
	hashmap_free(&m);
}

static void test_str_keys(void **state)
{
	struct hashmap m;
	hashmap_init(&m, HASHMAP_STR);
	char *keys[500];
	for (int i = 0; i < 500; i++) {
		keys[i] = xasprintf("key-%d", i);
		bool found;
		hashmap_insert_str(&m, keys[i], &found)->value = keys[i];
		assert_false(found);
	}
	char probe[32];
	for (int i = 0; i < 500; i++) {
		snprintf(probe, sizeof(probe), "key-%d", i);
		struct hashmap_entry *e = hashmap_find_str(&m, probe);
		assert_non_null(e);
		assert_ptr_equal(e->value, keys[i]);
		assert_string_equal(m.v[i].key.str, probe);
	}
	assert_null(hashmap_find_str(&m, "key-500"));
	assert_null(hashmap_find_str(&m, ""));
	hashmap_free(&m);
	for (int i = 0; i < 500; i++)
		free(keys[i]);
}

static void test_str_multimap(void **state)
{
	struct hashmap m;
	hashmap_init(&m, HASHMAP_STR);
	int vals[8];
	/* interleave other keys so that the chains cross growth */
	char other[100][16];
	for (int i = 0; i < 8; i++) {
		hashmap_add_str(&m, "/usr/lib/libc.so.6", &vals[i]);
		for (int j = 0; j < 12; j++) {
			int k = i * 12 + j;
			snprintf(other[k], sizeof(other[k]), "o%d", k);
			hashmap_add_str(&m, other[k], NULL);
		}
	}
	size_t pos = 0, n = 0;
	struct hashmap_entry *e;
	while ((e = hashmap_next_str(&m, "/usr/lib/libc.so.6", &pos)))
		assert_ptr_equal(e->value, &vals[n++]);
	assert_int_equal(n, 8);
	assert_ptr_equal(hashmap_find_str(&m, "/usr/lib/libc.so.6")->value, &vals[0]);
	pos = 0;
	assert_null(hashmap_next_str(&m, "missing", &pos));
	hashmap_free(&m);
	pos = 0;
	assert_null(hashmap_next_str(&m, "o1", &pos));
}

static void test_ptr_keys(void **state)
{
	struct hashmap m;
	hashmap_init(&m, HASHMAP_PTR);
	int objs[300];
	for (int i = 0; i < 300; i++) {
		bool found;
		hashmap_insert_ptr(&m, &objs[i], &found)->value = (void *)(uintptr_t)i;
	}
	for (int i = 299; i >= 0; i--)
		assert_int_equal((uintptr_t)hashmap_find_ptr(&m, &objs[i])->value, i);
	assert_null(hashmap_find_ptr(&m, NULL));
	hashmap_free(&m);
}

struct pair {
	int a, b;
};

static bool pair_eq(const void *value, const void *key)
{
	const struct pair *x = value, *y = key;
	return x->a == y->a && x->b == y->b;
}

static void test_custom_collisions(void **state)
{
	struct hashmap m;
	hashmap_init_custom(&m, pair_eq);
	struct pair *ps = xcalloc(200, sizeof(*ps));
	for (int i = 0; i < 200; i++) {
		struct pair k = { i, -i };
		bool found;
		/* every key hashes alike: one long chain */
		struct hashmap_entry *e = hashmap_insert_custom(&m, 42, &k, &found);
		assert_false(found);
		ps[i] = k;
		e->value = &ps[i];
	}
	for (int i = 0; i < 200; i++) {
		struct pair k = { i, -i };
		bool found;
		assert_ptr_equal(hashmap_find_custom(&m, 42, &k)->value, &ps[i]);
		assert_ptr_equal(hashmap_insert_custom(&m, 42, &k, &found)->value, &ps[i]);
		assert_true(found);
	}
	struct pair miss = { 1, 1 };
	assert_null(hashmap_find_custom(&m, 42, &miss));
	assert_null(hashmap_find_custom(&m, 43, &ps[0]));
	assert_int_equal(m.n, 200);
	hashmap_free(&m);
	free(ps);
}

static void test_hashes(void **state)
{
	assert_int_equal(hashmap_hash_str(""), 1469598103934665603ULL);
	assert_true(hashmap_hash_str("a") != hashmap_hash_str("b"));
	assert_true(hashmap_hash_u64(1) != hashmap_hash_u64(2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64_grow_and_order),
		cmocka_unit_test(test_str_keys),
		cmocka_unit_test(test_str_multimap),
		cmocka_unit_test(test_ptr_keys),
		cmocka_unit_test(test_custom_collisions),
		cmocka_unit_test(test_hashes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

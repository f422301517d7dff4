/* The note list: formatting, order, ownership, moving one list onto another, clearing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/notes.h"
#include "util/xalloc.h"

static void test_add_and_order(void **state)
{
	struct notes ns = NOTES_INIT;
	assert_null(notes_last(&ns));
	for (int i = 0; i < 100; i++)
		notes_add(&ns, "note %d: %s", i, "why");
	assert_int_equal(ns.n, 100);
	assert_string_equal(ns.v[0], "note 0: why");
	assert_string_equal(ns.v[99], "note 99: why");
	assert_string_equal(notes_last(&ns), "note 99: why");
	notes_take(&ns, xstrdup("taken"));
	notes_take(&ns, NULL);
	assert_int_equal(ns.n, 101);
	assert_string_equal(notes_last(&ns), "taken");
	notes_clear(&ns);
	assert_int_equal(ns.n, 0);
	assert_null(notes_last(&ns));
	notes_add(&ns, "%s", "again");
	assert_string_equal(notes_last(&ns), "again");
	notes_clear(&ns);
}

static void test_move(void **state)
{
	struct notes a = NOTES_INIT, b = NOTES_INIT;
	notes_add(&a, "a1");
	notes_add(&b, "b1");
	notes_add(&b, "b2");
	notes_move(&a, &b);
	assert_int_equal(a.n, 3);
	assert_int_equal(b.n, 0);
	assert_null(b.v);
	assert_string_equal(a.v[1], "b1");
	assert_string_equal(notes_last(&a), "b2");
	notes_move(&a, &b);
	assert_int_equal(a.n, 3);
	notes_clear(&a);
}

/* Levels: warnings by default, notes where asked; kept through a move. */
static void test_levels(void **state)
{
	struct notes a = NOTES_INIT, b = NOTES_INIT;
	notes_add(&a, "w0");
	assert_int_equal(notes_level(&a, 0), NOTES_WARNING);
	for (int i = 0; i < 20; i++)
		notes_add_level(&a, i % 2 ? NOTES_WARNING : NOTES_NOTE, "m%d", i);
	notes_add(&a, "w-last");
	assert_int_equal(a.n, 22);
	assert_int_equal(notes_level(&a, 1), NOTES_NOTE);
	assert_int_equal(notes_level(&a, 2), NOTES_WARNING);
	assert_int_equal(notes_level(&a, 21), NOTES_WARNING);
	assert_int_equal(notes_level(&a, 99), NOTES_WARNING);
	notes_add(&b, "first");
	notes_move(&b, &a);
	assert_int_equal(b.n, 23);
	assert_string_equal(b.v[2], "m0");
	assert_int_equal(notes_level(&b, 2), NOTES_NOTE);
	assert_int_equal(notes_level(&b, 0), NOTES_WARNING);
	assert_int_equal(notes_level(&b, 3), NOTES_WARNING);
	assert_null(a.levels);
	notes_clear(&b);
	assert_null(b.levels);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_and_order),
		cmocka_unit_test(test_move),
		cmocka_unit_test(test_levels),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

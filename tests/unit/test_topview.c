/* lperf top's rows (src/analysis/topview.c): a refresh with no rows yet (top --gil before the
 * first sample of the GIL's holder, any top before its first sample) sorts and ages nothing, and
 * hands no NULL to qsort_r (UBSan's nonnull check). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "analysis/topview.h"

static void test_empty_refresh(void **state)
{
	(void)state;
	for (int python = 0; python < 2; python++)
		for (int children = 0; children < 2; children++) {
			struct top_view t;
			top_view_init(&t, python, children, false);
			top_view_sort(&t);
			top_view_age(&t);
			top_view_sort(&t);
			top_view_free(&t);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_refresh),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Pager and colour decisions (util/pager.h) and perf's percentage colours (output/colour.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <fcntl.h>
#include <unistd.h>

#include "output/colour.h"
#include "util/pager.h"

static void test_colour_parse(void **state)
{
	enum colour_mode m;
	assert_int_equal(colour_parse("auto", &m), 0);
	assert_int_equal(m, COLOUR_AUTO);
	assert_int_equal(colour_parse("always", &m), 0);
	assert_int_equal(m, COLOUR_ALWAYS);
	assert_int_equal(colour_parse("never", &m), 0);
	assert_int_equal(m, COLOUR_NEVER);
	assert_int_equal(colour_parse("sometimes", &m), -1);
	assert_int_equal(colour_parse("", &m), -1);
}

static void test_colour_on(void **state)
{
	assert_true(colour_on(COLOUR_ALWAYS));
	assert_false(colour_on(COLOUR_NEVER));
	setenv("NO_COLOR", "1", 1);
	assert_false(colour_on(COLOUR_AUTO));
	assert_true(colour_on(COLOUR_ALWAYS));
	unsetenv("NO_COLOR");
	/* A test's standard output is a pipe or a file here. */
	fflush(stdout);
	int saved = dup(STDOUT_FILENO), null = open("/dev/null", O_WRONLY);
	dup2(null, STDOUT_FILENO);
	bool auto_on = colour_on(COLOUR_AUTO);
	pager_start(); /* not a terminal: no pager */
	bool paged = pager_in_use();
	dup2(saved, STDOUT_FILENO);
	close(saved);
	close(null);
	assert_false(auto_on);
	assert_false(paged);
}

static void test_thresholds(void **state)
{
	assert_string_equal(colour_pct_begin(true, 5.0), "\033[31m");
	assert_string_equal(colour_pct_begin(true, 4.99), "\033[32m");
	assert_string_equal(colour_pct_begin(true, 0.5), "\033[32m");
	assert_string_equal(colour_pct_begin(true, 0.49), "");
	assert_string_equal(colour_pct_end(true, 0.49), "");
	assert_string_equal(colour_pct_end(true, 0.5), "\033[m");
	assert_string_equal(colour_pct_begin(false, 50), "");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	colour_pct_print(f, true, "%7.2f%%", 12.5);
	colour_pct_print(f, false, "%7.2f%%", 12.5);
	fclose(f);
	assert_string_equal(buf, "\033[31m  12.50%\033[m  12.50%");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_colour_parse),
		cmocka_unit_test(test_colour_on),
		cmocka_unit_test(test_thresholds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* Strict UTF-8 (util/utf8.c) and the writers that use it: JSON strings and SVG/HTML text never
 * carry a surrogate, a byte 0xF5-0xFF, an overlong form, a value over U+10FFFF or U+FFFE/U+FFFF. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "output/json.h"
#include "output/pictures.h"
#include "util/utf8.h"

#define FFFD "\xEF\xBF\xBD"

static void test_valid(void **state)
{
	static const char *const good[] = {
		"", "ascii", "caf\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xF4\x8F\xBF\xBF", /* U+10FFFF */
		"\xEF\xBF\xBD", "\xED\x9F\xBF" /* U+D7FF */, "\xEE\x80\x80" /* U+E000 */, "\xEF\xBF\xBC",
	};
	static const char *const bad[] = {
		"\x80", "\xBF", "\xC0\x80", "\xC1\xBF",         /* stray continuation, overlong 2-byte */
		"\xE0\x80\x80", "\xE0\x9F\xBF",                 /* overlong 3-byte */
		"\xF0\x8F\xBF\xBF",                             /* overlong 4-byte */
		"\xED\xA0\x80", "\xED\xBF\xBF",                 /* surrogates U+D800, U+DFFF */
		"\xF4\x90\x80\x80",                             /* U+110000 */
		"\xF5\x80\x80\x80", "\xF8", "\xFE", "\xFF",      /* bytes 0xF5-0xFF */
		"\xE2\x82", "\xF0\x9F\x98",                     /* cut */
		"\xEF\xBF\xBE", "\xEF\xBF\xBF",                 /* noncharacters U+FFFE, U+FFFF */
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++)
		assert_true(utf8_valid(good[i]));
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		if (utf8_valid(bad[i]))
			fail_msg("accepted bad[%zu]", i);
		char *c = utf8_clean(bad[i]);
		assert_true(utf8_valid(c));
		assert_non_null(strstr(c, FFFD));
		free(c);
	}
}

static void test_clean_and_put(void **state)
{
	char *c = utf8_clean("a\xED\xA0\x80z\xEF\xBF\xBEq\xC3\xA9");
	assert_string_equal(c, "a" FFFD FFFD FFFD "z" FFFD "q\xC3\xA9");
	free(c);
	char out[4];
	assert_int_equal(utf8_put(out, 0xDC80), 3); /* a surrogateescape'd byte */
	assert_memory_equal(out, FFFD, 3);
	assert_int_equal(utf8_put(out, 0x110000), 3);
	assert_memory_equal(out, FFFD, 3);
	assert_int_equal(utf8_put(out, 0xFFFF), 3);
	assert_memory_equal(out, FFFD, 3);
	assert_int_equal(utf8_put(out, 0x1F600), 4);
	assert_memory_equal(out, "\xF0\x9F\x98\x80", 4);
	assert_int_equal(utf8_put(out, 0xE9), 2);
	assert_memory_equal(out, "\xC3\xA9", 2);
	uint32_t cp;
	bool same;
	assert_int_equal(utf8_next("\xF0\x9F\x98\x80", &cp, &same), 4);
	assert_int_equal(cp, 0x1F600);
	assert_true(same);
	assert_int_equal(utf8_next("\xEF\xBF\xBF", &cp, &same), 3);
	assert_int_equal(cp, 0xFFFD);
	assert_false(same);
}

static char *render(void (*fn)(FILE *, const char *), const char *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fn(f, s);
	fclose(f);
	return buf;
}

static void json_one(FILE *f, const char *s)
{
	struct json j;
	json_init(&j, f, false);
	json_str(&j, NULL, s);
}

static void test_writers(void **state)
{
	const char *name = "f\xED\xA0\x80g\xEF\xBF\xBE\xFFh\xC3\xA9<";
	char *j = render(json_one, name);
	assert_string_equal(j, "\"f\\ufffd\\ufffd\\ufffdg\\ufffd\\ufffdh\xC3\xA9<\"");
	free(j);
	char *x = render(pic_xml, name);
	assert_string_equal(x, "f" FFFD FFFD FFFD "g" FFFD FFFD "h\xC3\xA9&lt;");
	assert_true(utf8_valid(x));
	free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_clean_and_put),
		cmocka_unit_test(test_writers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* lperf dump --locals' reprs (output/pyrepr.c) byte for byte, as Python's repr() writes them:
 * None, bools, ints small and big (base 2**30 digits), floats in their shortest form (fixed
 * notation from 1e-4 to 1e16, else an exponent), str and bytes with Python's quote choice and
 * escapes, a value longer than was read, containers by size, anything else by type and address. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "output/pyrepr.h"

static const char *fmt(const struct pyvalue *v)
{
	static char buf[PYREPR_MAX];
	return pyrepr_format(v, buf, sizeof(buf));
}

static const char *fmt_float(double x)
{
	struct pyvalue v = { .kind = PYVAL_FLOAT, .f = x };
	return fmt(&v);
}

/* v as an int from a value that fits in 64 bits. */
static const char *fmt_int(uint64_t m, bool neg)
{
	struct pyvalue v = { .kind = PYVAL_INT, .neg = neg };
	for (; m; m >>= 30)
		v.digits[v.ndigits++] = (uint32_t)(m & 0x3fffffff);
	return fmt(&v);
}

static void test_scalars(void **state)
{
	(void)state;
	struct pyvalue v = { .kind = PYVAL_NONE };
	assert_string_equal(fmt(&v), "None");
	v.kind = PYVAL_BOOL;
	assert_string_equal(fmt(&v), "False");
	v.truth = true;
	assert_string_equal(fmt(&v), "True");
	assert_string_equal(fmt_int(0, false), "0");
	assert_string_equal(fmt_int(12345, true), "-12345");
	assert_string_equal(fmt_int(1000000000, false), "1000000000");
	assert_string_equal(fmt_int(UINT64_MAX, false), "18446744073709551615");
	/* 2**100: digits 0, 0, 0, 1 << 10 */
	struct pyvalue big = { .kind = PYVAL_INT, .ndigits = 4, .digits = { 0, 0, 0, 1u << 10 } };
	assert_string_equal(fmt(&big), "1267650600228229401496703205376");
	/* the largest: 8 digits of 2**30 - 1, 2**240 - 1 */
	struct pyvalue top = { .kind = PYVAL_INT, .neg = true, .ndigits = 8 };
	for (int i = 0; i < 8; i++)
		top.digits[i] = 0x3fffffff;
	assert_string_equal(fmt(&top),
		"-1766847064778384329583297500742918515827483896875618958121606201292619775");
	/* more digits than a value holds: by address, never past the digits */
	top.ndigits = PYVAL_INT_DIGITS + 1;
	top.addr = 0x1000;
	assert_string_equal(fmt(&top), "<int at 0x1000>");
}

static void test_floats(void **state)
{
	(void)state;
	assert_string_equal(fmt_float(1.5), "1.5");
	assert_string_equal(fmt_float(0.1), "0.1");
	assert_string_equal(fmt_float(-0.0), "-0.0");
	assert_string_equal(fmt_float(0.0), "0.0");
	assert_string_equal(fmt_float(100000.0), "100000.0");
	assert_string_equal(fmt_float(1e15), "1000000000000000.0");
	assert_string_equal(fmt_float(1e16), "1e+16");
	assert_string_equal(fmt_float(1.2345e17), "1.2345e+17");
	assert_string_equal(fmt_float(0.0001), "0.0001");
	assert_string_equal(fmt_float(1e-07), "1e-07");
	assert_string_equal(fmt_float(-2.5e-05), "-2.5e-05");
	assert_string_equal(fmt_float(1e300), "1e+300");
	assert_string_equal(fmt_float(1.0 / 3), "0.3333333333333333");
	assert_string_equal(fmt_float(123.456), "123.456");
	assert_string_equal(fmt_float(1.0 / 0.0), "inf");
	assert_string_equal(fmt_float(-1.0 / 0.0), "-inf");
	assert_string_equal(fmt_float(0.0 / 0.0), "nan");
}

static const char *fmt_text(enum pyval_kind kind, bool b, const char *data, size_t len, bool cut)
{
	struct pyvalue v = { .kind = kind, .b_prefix = b, .data = (char *)data, .len = len, .cut = cut };
	return fmt(&v);
}

static void test_strings(void **state)
{
	(void)state;
	assert_string_equal(fmt_text(PYVAL_STR, false, "caf\xc3\xa9", 5, false), "'caf\xc3\xa9'");
	assert_string_equal(fmt_text(PYVAL_STR, false, "it's", 4, false), "\"it's\"");
	assert_string_equal(fmt_text(PYVAL_STR, false, "a'b\"c", 5, false), "'a\\'b\"c'");
	assert_string_equal(fmt_text(PYVAL_STR, false, "t\ta\nb\\\x01", 7, false), "'t\\ta\\nb\\\\\\x01'");
	assert_string_equal(fmt_text(PYVAL_STR, false, "\xf0\x9f\x98\x80", 4, false), "'\xf0\x9f\x98\x80'");
	assert_string_equal(fmt_text(PYVAL_STR, false, "\xc2\x85", 2, false), "'\\x85'");
	assert_string_equal(fmt_text(PYVAL_STR, false, "xx", 2, true), "'xx'...");
	assert_string_equal(fmt_text(PYVAL_STR, false, "", 0, false), "''");
	assert_string_equal(fmt_text(PYVAL_BYTES, true, "\0ab\xff", 4, false), "b'\\x00ab\\xff'");
	/* 2.7's str: a byte string with no prefix */
	assert_string_equal(fmt_text(PYVAL_BYTES, false, "caf\xe9", 4, false), "'caf\\xe9'");
}

static void test_others(void **state)
{
	(void)state;
	struct pyvalue v = { .kind = PYVAL_LIST, .count = 3 };
	snprintf(v.type, sizeof(v.type), "list");
	assert_string_equal(fmt(&v), "<list of 3>");
	v.kind = PYVAL_DICT;
	v.count = 0;
	snprintf(v.type, sizeof(v.type), "dict");
	assert_string_equal(fmt(&v), "<dict of 0>");
	v.kind = PYVAL_OTHER;
	v.addr = 0x7f0012345670;
	snprintf(v.type, sizeof(v.type), "Thread");
	assert_string_equal(fmt(&v), "<Thread at 0x7f0012345670>");
	v.kind = PYVAL_UNREADABLE;
	assert_string_equal(fmt(&v), "<unreadable at 0x7f0012345670>");
	/* a small buffer cuts, NUL-terminated */
	char small[6];
	pyrepr_format(&v, small, sizeof(small));
	assert_string_equal(small, "<unre");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scalars),
		cmocka_unit_test(test_floats),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_others),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

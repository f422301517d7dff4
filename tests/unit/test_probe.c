/* perf probe's pure parts: the filter language, group names for binaries, free event names,
 * and the symbols and offsets read from this test binary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "probe/probe.h"

__attribute__((noinline, used)) int probe_test_target(int x)
{
	return x * 3;
}

static void test_filter(void **state)
{
	const char *dflt = "!_* & !*@plt";
	assert_true(probe_filter_match(dflt, "main"));
	assert_false(probe_filter_match(dflt, "_start"));
	assert_false(probe_filter_match(dflt, "puts@plt"));
	assert_true(probe_filter_match("f*|main", "foo"));
	assert_true(probe_filter_match("f*|main", "main"));
	assert_false(probe_filter_match("f*|main", "bar"));
	assert_true(probe_filter_match(" !f* ", "bar"));
	assert_false(probe_filter_match("a*&*z", "abc"));
	assert_true(probe_filter_match("a*&*z", "abz"));
	assert_true(probe_filter_match("*", ""));
}

static void test_group(void **state)
{
	char *g = probe_group_for("/usr/lib/x86_64-linux-gnu/libc.so.6");
	assert_string_equal(g, "probe_libc");
	free(g);
	g = probe_group_for("/tmp/my-prog+x");
	assert_string_equal(g, "probe_my_prog_x");
	free(g);
	g = probe_group_for("testfile");
	assert_string_equal(g, "probe_testfile");
	free(g);
}

static void test_pick_name(void **state)
{
	struct probe_event v[2] = {
		{ 'p', true, (char *)"probe_x", (char *)"foo", (char *)"/x:0x1", (char *)"" },
		{ 'p', true, (char *)"probe_x", (char *)"foo_1", (char *)"/x:0x1", (char *)"" },
	};
	char *name;
	assert_int_equal(probe_pick_name(v, 2, "probe_x", "bar", false, &name), 0);
	assert_string_equal(name, "bar");
	free(name);
	assert_int_equal(probe_pick_name(v, 2, "probe_y", "foo", false, &name), 0);
	free(name);
	assert_int_equal(probe_pick_name(v, 2, "probe_x", "foo", false, &name), -1);
	assert_int_equal(probe_pick_name(v, 2, "probe_x", "foo", true, &name), 0);
	assert_string_equal(name, "foo_2");
	free(name);
	assert_int_equal(probe_pick_name(v, 2, "probe_x", "foo.isra.0", false, &name), 0);
	assert_string_equal(name, "foo_isra_0");
	free(name);
}

static void test_elf(void **state)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(n > 0);
	self[n] = 0;
	char **names;
	size_t count;
	assert_int_equal(probe_elf_symbols(self, &names, &count), 0);
	int found = 0;
	for (size_t i = 0; i < count; i++) {
		found += !strcmp(names[i], "probe_test_target");
		if (i)
			assert_true(strcmp(names[i - 1], names[i]) <= 0);
	}
	for (size_t i = 0; i < count; i++)
		free(names[i]);
	free(names);
	assert_int_equal(found, 1);
	uint64_t off;
	assert_int_equal(probe_elf_offset(self, "probe_test_target", &off), 0);
	char *back = probe_elf_name_at(self, off);
	assert_string_equal(back, "probe_test_target");
	free(back);
	back = probe_elf_name_at(self, off + 1);
	assert_string_equal(back, "probe_test_target+1");
	free(back);
	assert_int_equal(probe_elf_offset(self, "no_such_function_here", &off), -1);
	assert_int_equal(probe_elf_symbols("/nonexistent", &names, &count), -1);
	assert_int_equal(probe_elf_symbols("/etc/passwd", &names, &count), -1);
	assert_int_equal(probe_test_target(1), 3);
}

static void test_spec(void **state)
{
	struct probe_spec s;
	assert_int_equal(probe_spec_parse("grp:ev=foo+0x10 a=%di:u32 b", &s), 0);
	assert_string_equal(s.group, "grp");
	assert_string_equal(s.event, "ev");
	assert_string_equal(s.func, "foo");
	assert_int_equal(s.off, 16);
	assert_false(s.ret);
	assert_string_equal(s.args, "a=%di:u32 b");
	assert_int_equal(probe_spec_check(&s, true), 0);
	assert_int_equal(probe_spec_check(&s, false), -1);      /* a variable in a kprobe */
	probe_spec_free(&s);
	assert_int_equal(probe_spec_parse("  foo%return $retval", &s), 0);
	assert_true(s.ret);
	assert_int_equal(probe_spec_check(&s, false), 0);
	probe_spec_free(&s);
	assert_int_equal(probe_spec_parse("foo%return x", &s), 0);
	assert_int_equal(probe_spec_check(&s, true), -1);       /* a variable in a return probe */
	probe_spec_free(&s);
	const char *bad[] = { "foo%entry", "foo+", "foo+1x", "foo:12", "file.c:3", "foo@a.c", "foo;x=1*", "", "ev=" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(probe_spec_parse(bad[i], &s), -1);
		probe_spec_free(&s);
	}
	char *names = probe_arg_names("i=%di:s32 t=+8(%si):x64 %ax");
	assert_string_equal(names, "i t %ax");
	free(names);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_group),
		cmocka_unit_test(test_pick_name),
		cmocka_unit_test(test_elf),
		cmocka_unit_test(test_spec),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* aarch64-specific pieces that run on any host: pointer-authentication codes stripped from
 * return addresses (Debian trixie builds with PAC-RET), and the link register of a sample. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <elf.h>

#include "unwind/unwind.h"

static void test_strip_pac(void **state)
{
	const struct unwind_arch *a = unwind_arch_by_machine(EM_AARCH64);
	assert_non_null(a);
	/* measured in the emulated machine: CPython 3.13's signed return address */
	assert_int_equal(unwind_strip_pac(a, 0x0034ffffa443a4ecULL), 0x0000ffffa443a4ecULL);
	assert_int_equal(unwind_strip_pac(a, 0x0000ffffa443a4ecULL), 0x0000ffffa443a4ecULL);
	/* kernel addresses (bit 55) and other machines are left alone */
	assert_int_equal(unwind_strip_pac(a, 0xffffc16183828858ULL), 0xffffc16183828858ULL);
	const struct unwind_arch *x = unwind_arch_by_machine(EM_X86_64);
	assert_int_equal(unwind_strip_pac(x, 0x0034ffffa443a4ecULL), 0x0034ffffa443a4ecULL);
	assert_int_equal(unwind_strip_pac(NULL, 0x0034ffffa443a4ecULL), 0x0034ffffa443a4ecULL);
}

static void test_signed_link_register(void **state)
{
	const struct unwind_arch *a = unwind_arch_by_machine(EM_AARCH64);
	/* perf's arm64 user registers: x0..x30, sp (31), pc (32) */
	uint64_t vals[33];
	for (int i = 0; i < 33; i++)
		vals[i] = 0x1000 + (uint64_t)i;
	vals[30] = 0x0051aaaab0001234ULL;
	vals[31] = 0x0000ffffe0000000ULL;
	vals[32] = 0x0000aaaab0004000ULL;
	struct unwind_regs r;
	assert_true(unwind_regs_convert(a, (1ULL << 33) - 1, vals, 33, &r));
	assert_int_equal(r.dwarf[30], 0x0000aaaab0001234ULL);
	assert_int_equal(r.dwarf[29], 0x1000 + 29);
	assert_int_equal(r.pc, 0x0000aaaab0004000ULL);
	assert_int_equal(r.sp, 0x0000ffffe0000000ULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strip_pac),
		cmocka_unit_test(test_signed_link_register),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

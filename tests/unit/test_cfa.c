/* The bound on register numbers a CFI may name (unwind/cfa.c: cfa_section_bounded,
 * cfa_elf_bounded): libdw sizes each row it computes by the largest register number an
 * instruction names, so one DW_CFA_val_offset naming register 67 million cost 1 GB and seconds per
 * lookup (found by tests/fuzz/fuzz_cfa.c; its inputs are kept in tests/fuzz/corpus/cfa/). */
#include <elf.h>
#include <fcntl.h>
#include <errno.h>
#include <stdio.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "symbols/jitdump.h"
#include "unwind/cfa.h"
#include "unwind/jitstep.h"

/* An .eh_frame of one CIE (augmentation aug, CFA = rsp + 8, return address at CFA - 8) and one
 * FDE over 11 bytes whose instructions are insns; returns its length. */
static size_t make_cfi(uint8_t *out, const char *aug, const uint8_t *augdata, size_t naug, const uint8_t *insns,
		       size_t n)
{
	size_t at = 8;
	memset(out, 0, 512);
	out[at++] = 1;
	memcpy(out + at, aug, strlen(aug) + 1);
	at += strlen(aug) + 1;
	out[at++] = 1;    /* code alignment */
	out[at++] = 0x78; /* data alignment -8 */
	out[at++] = 16;   /* return address column */
	out[at++] = (uint8_t)naug;
	memcpy(out + at, augdata, naug);
	at += naug;
	static const uint8_t init[] = { 0x0c, 0x07, 0x08, 0x90, 0x01 };
	memcpy(out + at, init, sizeof(init));
	at += sizeof(init);
	at = (at + 7) & ~(size_t)7;
	uint32_t len = (uint32_t)(at - 4);
	memcpy(out, &len, 4);
	size_t fde = at;
	uint32_t cie_ptr = (uint32_t)(fde + 4);
	memcpy(out + fde + 4, &cie_ptr, 4);
	int32_t pc = -0x30;
	memcpy(out + fde + 8, &pc, 4);
	uint32_t range = 11;
	memcpy(out + fde + 12, &range, 4);
	out[fde + 16] = 0; /* FDE augmentation data: none */
	memcpy(out + fde + 17, insns, n);
	size_t end = (fde + 17 + n + 7) & ~(size_t)7;
	len = (uint32_t)(end - fde - 4);
	memcpy(out + fde, &len, 4);
	return end + 4; /* a zero terminator */
}

static const uint8_t zr[] = { 0x1b }; /* 'R': pc-relative sdata4 */

static bool bounded(const uint8_t *insns, size_t n)
{
	uint8_t buf[512];
	size_t len = make_cfi(buf, "zR", zr, 1, insns, n);
	return cfa_section_bounded(buf, len, true, ELFCLASS64);
}

static void test_plain_rules(void **state)
{
	(void)state;
	/* CPython 3.13's trampoline rules; register rules of every kind on registers below 200. */
	static const uint8_t tramp[] = { 0x44, 0x0e, 0x10, 0x46, 0x0e, 0x08 };
	assert_true(bounded(tramp, sizeof(tramp)));
	static const uint8_t kinds[] = { 0x41, 0x14, 0x03, 0x02, 0x09, 0x0c, 0x0d, 0x08, 0x0c, 0x0a, 0x0b, 0x07,
					 0x10, 0x10, 0x06, 0x02, 0x76, 0x00, 0x16, 0x03, 0x02, 0x77, 0x10, 0x05,
					 0xc7, 0x01, 0x08, 0x02, 0x00, 0x01, 0x2e, 0x10 };
	assert_true(bounded(kinds, sizeof(kinds)));
	assert_int_equal(CFA_MAX_REG, 4096);
	static const uint8_t last[] = { 0x07, 0xff, 0x1f }; /* undefined r4095 */
	assert_true(bounded(last, sizeof(last)));
}

static void test_huge_registers(void **state)
{
	(void)state;
	static const uint8_t val_offset[] = { 0x14, 0xff, 0xff, 0xff, 0x1f, 0x0d }; /* the fuzzer's */
	assert_false(bounded(val_offset, sizeof(val_offset)));
	static const uint8_t first_past[] = { 0x07, 0x80, 0x20 }; /* undefined r4096 */
	assert_false(bounded(first_past, sizeof(first_past)));
	static const uint8_t second_reg[] = { 0x09, 0x07, 0xff, 0xff, 0x7f }; /* rsp in r2097151 */
	assert_false(bounded(second_reg, sizeof(second_reg)));
	static const uint8_t expression[] = { 0x44, 0x10, 0xfd, 0xfd, 0x88, 0x65, 0x01, 0x77 };
	assert_false(bounded(expression, sizeof(expression)));
	/* A LEB128 past 64 bits: libdw could read the register otherwise. */
	static const uint8_t overlong[] = { 0x0e, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 };
	assert_false(bounded(overlong, sizeof(overlong)));
}

static void test_where_walks_end(void **state)
{
	(void)state;
	/* An opcode libdw does not know ends its walk, and this one's. */
	static const uint8_t unknown[] = { 0x3f, 0x07, 0xff, 0xff, 0x7f };
	assert_true(bounded(unknown, sizeof(unknown)));
	/* DW_CFA_set_loc is sized by the CIE's pointer encoding (sdata4 here). */
	static const uint8_t set_loc[] = { 0x01, 0x00, 0x00, 0x00, 0x00, 0x07, 0x10 };
	assert_true(bounded(set_loc, sizeof(set_loc)));
	uint8_t buf[512];
	/* A personality pointer of an encoding no one can size: the walk cannot find the FDEs'
	 * instructions. */
	static const uint8_t bad_p[] = { 0x05, 0x00 };
	size_t len = make_cfi(buf, "zP", bad_p, sizeof(bad_p), (const uint8_t *)"\x44", 1);
	assert_false(cfa_section_bounded(buf, len, true, ELFCLASS64));
	/* Damage in the framing (an FDE pointing at no CIE). */
	len = make_cfi(buf, "zR", zr, 1, (const uint8_t *)"\x44", 1);
	buf[28] ^= 0x40;
	assert_false(cfa_section_bounded(buf, len, true, ELFCLASS64));
	/* Nothing at all: no CFI for libdw either. */
	assert_true(cfa_section_bounded(buf, 0, true, ELFCLASS64));
}

static bool no_read(uint64_t addr, uint64_t *val, void *arg)
{
	(void)addr, (void)val, (void)arg;
	return false;
}

static void test_jit_code_refused(void **state)
{
	(void)state;
	uint8_t buf[512], code[11] = { 0 };
	static const uint8_t val_offset[] = { 0x14, 0xff, 0xff, 0xff, 0x1f, 0x0d };
	size_t len = make_cfi(buf, "zR", zr, 1, val_offset, sizeof(val_offset));
	/* The FDE's pc-relative start (-0x30 from the field at 0x28 into the section) is the code's. */
	struct jitdump_unwind uw = { .data = buf, .size = len, .eh_frame = buf, .eh_frame_size = len };
	struct jitdump_code c = { .addr = 0x10000, .vma = 0x10000, .size = sizeof(code), .code = code, .unwind = &uw };
	assert_int_equal(jitdump_eh_frame_vaddr(&c), 0x10010);
	struct unwind_regs in = { 0 }, out;
	const struct unwind_arch *a = unwind_arch_by_machine(EM_X86_64);
	in.dwarf[a->dwarf_sp] = 0x7000;
	in.present = 1U << a->dwarf_sp;
	in.pc = 0x10002;
	in.sp = 0x7000;
	in.has_pc = in.has_sp = true;
	struct jitstep_frame f = { a, &in, true, no_read, NULL };
	struct jitstep *js = jitstep_new();
	/* Refused without asking libdw: no rule, the frame is left to the next unwinder. */
	assert_int_equal(jitstep_code(js, &c, &f, &out), JITSTEP_NONE);
	jitstep_free(js);
}

static void test_real_files(void **state)
{
	(void)state;
	elf_version(EV_CURRENT);
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	assert_non_null(elf);
	assert_true(cfa_elf_bounded(elf)); /* gcc's .eh_frame */
	assert_false(cfa_elf_has_debug_frame(elf)); /* x86-64 gcc: .eh_frame only */
	elf_end(elf);
	close(fd);
	assert_true(cfa_elf_bounded(NULL));
	assert_false(cfa_elf_has_debug_frame(NULL));
}

/* The unwinder hands libdwfl a DSO's debug file only when it has a .debug_frame (without one,
 * libdwfl would load all its DWARF to find no CFI): the fuzz seed built with .debug_frame only. */
static void test_debug_frame_seen(void **state)
{
	(void)state;
	elf_version(EV_CURRENT);
	int fd = open("tests/fuzz/corpus/dwarf/w-debugframe", O_RDONLY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) { /* the emulated Arm machine carries no fuzz corpus */
		printf("skipped: no tests/fuzz/corpus/dwarf/w-debugframe here\n");
		skip();
	}
	assert_true(fd >= 0);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	assert_non_null(elf);
	assert_true(cfa_elf_has_debug_frame(elf));
	elf_end(elf);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_rules),
		cmocka_unit_test(test_huge_registers),
		cmocka_unit_test(test_where_walks_end),
		cmocka_unit_test(test_jit_code_refused),
		cmocka_unit_test(test_real_files),
		cmocka_unit_test(test_debug_frame_seen),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

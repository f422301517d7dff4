/* perf script's extra fields byte for byte on hand-built samples: iregs (" ABI:2    DI:0x0 "),
 * brstack and brstacksym (" FROM/TO/P/-/-/CYCLES/TYPE "), and the -F list's forms (perf's
 * leading comma, relative +/-). */
#include <elf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "output/script_out.h"
#include "symbols/dso.h"

static char *render(const struct resolved_sample *rs, unsigned fields, const struct script_style *st)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	script_print_sample_style(f, rs, fields, false, st);
	fclose(f);
	return buf;
}

static void test_iregs(void **state)
{
	(void)state;
	uint64_t regs[] = { 0xbd, 0x18000000 };
	struct perf_sample s = { .pid = 7, .tid = 7, .intr_abi = 2, .intr_regs = regs, .intr_nregs = 2,
				 .intr_regs_mask = 0x10020 };
	struct frame fr = { .ip = 0x401000 };
	struct resolved_sample rs = { .s = &s, .frames = &fr, .nframes = 1 };
	struct script_style st = { .regs_machine = EM_X86_64 };
	char *out = render(&rs, SF_IP | SF_IREGS, &st);
	assert_string_equal(out, "           401000 ABI:2    DI:0xbd    R8:0x18000000 \n");
	free(out);
	st.regs_machine = EM_AARCH64;
	s.intr_regs_mask = 1ULL << 30 | 1ULL << 32;
	out = render(&rs, SF_IREGS, &st);
	assert_string_equal(out, " ABI:2    lr:0xbd    pc:0x18000000 \n");
	free(out);
}

static void test_brstack(void **state)
{
	(void)state;
	struct perf_branch_entry b[2];
	memset(b, 0, sizeof(b));
	b[0].from = 0x401136;
	b[0].to = 0x401120;
	b[0].predicted = 1;
	b[0].type = 4; /* PERF_BR_CALL */
	b[1].from = 0x40112f;
	b[1].to = 0x40113b;
	b[1].mispred = 1;
	b[1].cycles = 3;
	struct perf_sample s = { .pid = 7, .tid = 7, .branches = b, .branch_nr = 2 };
	struct frame fr = { .ip = 0x401000 };
	struct resolved_sample rs = { .s = &s, .frames = &fr, .nframes = 1 };
	struct script_style st = { 0 };
	char *out = render(&rs, SF_BRSTACK, &st);
	assert_string_equal(out, " 0x401136/0x401120/P/-/-/0/CALL  0x40112f/0x40113b/M/-/-/3/- \n");
	free(out);
	struct symbol foo = { .name = "foo", .start = 0x401120 }, bench = { .name = "bench", .start = 0x401130 };
	struct addr_loc locs[4] = { { .sym = &bench, .sym_off = 6 }, { .sym = &foo, .sym_off = 0 },
				    { .sym = NULL }, { .sym = &bench, .sym_off = 0xb } };
	st.br_locs = locs;
	out = render(&rs, SF_BRSTACKSYM, &st);
	assert_string_equal(out, " bench+0x6/foo+0x0/P/-/-/0/CALL  [unknown]/bench+0xb/M/-/-/3/- \n");
	free(out);
}

static void test_field_forms(void **state)
{
	(void)state;
	unsigned fields, add, del;
	bool rel;
	/* perf's -F,-time: the defaults without time */
	assert_int_equal(script_parse_fields_rel(",-time", &fields, &rel, &add, &del), 0);
	assert_true(rel);
	assert_int_equal(del, SF_TIME);
	assert_int_equal(add, 0);
	assert_int_equal(script_parse_fields_rel("ip,sym,iregs", &fields, &rel, &add, &del), 0);
	assert_false(rel);
	assert_int_equal(fields, SF_IP | SF_SYM | SF_IREGS);
	assert_int_equal(script_parse_fields_rel("brstacksym", &fields, &rel, &add, &del), 0);
	assert_int_equal(fields, SF_BRSTACKSYM);
	assert_int_equal(script_parse_fields_rel("-period,+brstack", &fields, &rel, &add, &del), 0);
	assert_int_equal(add, SF_BRSTACK);
	assert_int_equal(del, SF_PERIOD);
	assert_int_equal(script_parse_fields_rel("ip,nosuch", &fields, &rel, &add, &del), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_iregs),
		cmocka_unit_test(test_brstack),
		cmocka_unit_test(test_field_forms),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

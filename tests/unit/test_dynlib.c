/* Libraries loaded on first use (util/dynlib.h): not mapped until asked for, every function
 * resolved to the one the library itself exports (this test links the libraries too, so their
 * own symbols are at hand to compare), the same table at every call and from every thread. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "util/dynlib.h"

static void test_capstone(void **state)
{
	const struct dynlib_cs *cs = dynlib_capstone();
	assert_non_null(cs);
	assert_ptr_equal(cs, dynlib_capstone());
	assert_ptr_equal(cs->open, cs_open);
	assert_ptr_equal(cs->disasm_iter, cs_disasm_iter);
	assert_ptr_equal(cs->version, cs_version);
	int a = 0, b = 0, c = 0, d = 0;
	cs->version(&a, &b);
	cs_version(&c, &d);
	assert_int_equal(a, c);
	assert_int_equal(b, d);
	/* The table disassembles: x86-64 "ret". */
	csh h;
	assert_int_equal(cs->open(CS_ARCH_X86, CS_MODE_64, &h), CS_ERR_OK);
	cs_insn *in = cs->malloc(h);
	const uint8_t code[] = { 0xc3 }, *p = code;
	size_t left = sizeof(code);
	uint64_t addr = 0x1000;
	assert_true(cs->disasm_iter(h, &p, &left, &addr, in));
	assert_string_equal(in->mnemonic, "ret");
	assert_int_equal(addr, 0x1001);
	cs->free(in, 1);
	cs->close(&h);
}

static void test_pfm(void **state)
{
	const struct dynlib_pfm *lp = dynlib_pfm();
	assert_non_null(lp);
	assert_ptr_equal(lp, dynlib_pfm());
	assert_ptr_equal(lp->initialize, pfm_initialize);
	assert_ptr_equal(lp->get_event_attr_info, pfm_get_event_attr_info);
	assert_int_equal(lp->get_version(), pfm_get_version());
	assert_string_equal(lp->strerror(PFM_ERR_NOTFOUND), pfm_strerror(PFM_ERR_NOTFOUND));
}

static void *load_both(void *arg)
{
	const void **out = arg;
	out[0] = dynlib_capstone();
	out[1] = dynlib_pfm();
	return NULL;
}

static void test_threads(void **state)
{
	pthread_t t[4];
	const void *got[4][2];
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, load_both, got[i]), 0);
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		assert_non_null(got[i][0]);
		assert_ptr_equal(got[i][0], dynlib_capstone());
		assert_ptr_equal(got[i][1], dynlib_pfm());
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_capstone),
		cmocka_unit_test(test_pfm),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

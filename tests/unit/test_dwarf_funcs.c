/* The per-unit function index (symbols/dwarf_funcs.c) against libdw's own scope walk
 * (dwarf_getscopes, then dwarf_getscopes_die for the concrete parents): for every address of
 * every line table row of C and C++ programs built -O2 -g at test time (inlined helpers,
 * templates, lambdas, a cold split), both give the same chain of function DIEs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <dwarf.h>
#include <elfutils/libdwfl.h>

#include "elf_test.h"
#include "symbols/dwarf_funcs.h"

static const char prog_c[] =
	"static volatile unsigned long sink;\n"
	"static inline __attribute__((always_inline)) unsigned long mix(unsigned long x, unsigned long i)\n"
	"{ x ^= x >> 13; x *= 0x9e3779b97f4a7c15UL; return x + i; }\n"
	"static inline __attribute__((always_inline)) unsigned long twice(unsigned long x, unsigned long i)\n"
	"{ return mix(mix(x, i), i + 1); }\n"
	"__attribute__((noinline, cold)) static void rare(unsigned long x) { sink = x * 3; }\n"
	"__attribute__((noinline)) unsigned long hot(unsigned long n)\n"
	"{\n"
	"\tunsigned long x = 1, y = 7;\n"
	"\tfor (unsigned long i = 0; i < n; i++) {\n"
	"\t\tx = twice(x, i);\n"
	"\t\tif (__builtin_expect(x == 42, 0)) rare(x);\n"
	"\t\tif (x & 1) { y += x >> 3; } else { y ^= x << 1; }\n"
	"\t}\n"
	"\treturn x + y;\n"
	"}\n"
	"int main(int argc, char **argv) { sink = hot((unsigned long)argc * 1000); return 0; }\n";

static const char prog_cc[] =
	"#include <algorithm>\n"
	"#include <map>\n"
	"#include <vector>\n"
	"int main(int argc, char **) {\n"
	"\tstd::vector<unsigned> v;\n"
	"\tfor (unsigned i = 0; i < 1000u * argc; i++) v.push_back(i * 2654435761u);\n"
	"\tstd::stable_sort(v.begin(), v.end(), [](unsigned a, unsigned b) { return (a >> 3) < (b >> 3); });\n"
	"\tstd::map<unsigned, int> m;\n"
	"\tfor (unsigned x : v) m[x & 1023]++;\n"
	"\treturn (int)m.size() & 1;\n"
	"}\n";

/* libdw's answer, as srcline.c computed it before the index. */
static size_t scopes_chain(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Off *out, size_t max)
{
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes(cu, addr, &scopes);
	if (n <= 0)
		return 0;
	int k;
	for (k = 0; k < n; k++) {
		int tag = dwarf_tag(&scopes[k]);
		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram)
			break;
	}
	Dwarf_Die *chain = NULL;
	int nc = k < n ? dwarf_getscopes_die(&scopes[k], &chain) : 0;
	free(scopes);
	size_t m = 0;
	for (int i = 0; i < nc && m < max; i++) {
		int tag = dwarf_tag(&chain[i]);
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		out[m++] = dwarf_dieoffset(&chain[i]);
		if (tag == DW_TAG_subprogram)
			break;
	}
	free(chain);
	return m;
}

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/* Compares both chains at every line-table address of every unit of file; returns the number
 * of addresses compared. */
static size_t compare_file(const char *file)
{
	Dwfl *dwfl = dwfl_begin(&callbacks);
	assert_non_null(dwfl);
	Dwfl_Module *mod = dwfl_report_offline(dwfl, "prog", file, -1);
	assert_non_null(mod);
	dwfl_report_end(dwfl, NULL, NULL);
	Dwarf_Addr bias;
	Dwarf *dbg = dwfl_module_getdwarf(mod, &bias);
	assert_non_null(dbg);
	size_t compared = 0, chained = 0;
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(dbg, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (!dwarf_offdie(dbg, off + hsize, &cu)) {
			off = next;
			continue;
		}
		struct dwarf_funcs *idx = dwarf_funcs_build(&cu);
		Dwarf_Lines *lines;
		size_t nlines;
		if (dwarf_getsrclines(&cu, &lines, &nlines) == 0) {
			for (size_t i = 0; i < nlines; i++) {
				Dwarf_Addr a;
				if (dwarf_lineaddr(dwarf_onesrcline(lines, i), &a) != 0)
					continue;
				for (Dwarf_Addr probe = a; probe < a + 2; probe++) {
					Dwarf_Off want[64], got[64];
					size_t nw = scopes_chain(&cu, probe, want, 64);
					size_t ng = dwarf_funcs_chain(idx, probe, got, 64);
					if (nw != ng || memcmp(want, got, nw * sizeof(*want)))
						fail_msg("%s: address 0x%llx: the index gives %zu functions, libdw %zu",
							 file, (unsigned long long)probe, ng, nw);
					ng = dwarf_funcs_chain_at(&cu, probe, got, 64);
					if (nw != ng || memcmp(want, got, nw * sizeof(*want)))
						fail_msg("%s: address 0x%llx: the pruned walk gives %zu functions, libdw %zu",
							 file, (unsigned long long)probe, ng, nw);
					compared++;
					chained += nw > 1;
				}
			}
		}
		dwarf_funcs_free(idx);
		off = next;
	}
	dwfl_end(dwfl);
	assert_true(chained > 0); /* inlined code was met */
	return compared;
}

/* elf_test.h's helpers this file does not need. */
static void *const unused_helpers[] __attribute__((unused)) = { (void *)et_load_of };

static int setup(void **state)
{
	(void)state;
	return et_mkdir() ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	et_rmdir();
	return 0;
}

static void test_c_program(void **state)
{
	(void)state;
	assert_int_equal(et_write("prog.c", prog_c), 0);
	assert_int_equal(et_sh("cc -O2 -g -o prog prog.c"), 0);
	char *p = et_path("prog");
	assert_true(compare_file(p) > 50);
	free(p);
}

/* Two function DIEs over the same code (an assembler file's aliases, as glibc's __sigsetjmp and
 * __GI___sigsetjmp): the index takes the later one, and so does the pruned walk. */
static const char alias_s[] =
	"\t.text\n\t.globl f1\n\t.type f1, @function\nf1:\n\t.globl f2\n\t.type f2, @function\nf2:\n"
	"\tnop\n\tnop\n\tret\n\t.size f1, .-f1\n\t.size f2, .-f2\n"
	"\t.globl main\n\t.type main, @function\nmain:\n\tcall f1\n\txorl %eax, %eax\n\tret\n"
	"\t.size main, .-main\n\t.section .note.GNU-stack,\"\",@progbits\n";

static void test_aliases(void **state)
{
	(void)state;
	assert_int_equal(et_write("alias.S", alias_s), 0);
	if (et_sh("cc -g -o alias alias.S") != 0)
		skip();
	char *p = et_path("alias");
	uint64_t f1 = et_nm(p, "f1");
	Dwfl *dwfl = dwfl_begin(&callbacks);
	Dwfl_Module *mod = dwfl_report_offline(dwfl, "alias", p, -1);
	assert_non_null(mod);
	dwfl_report_end(dwfl, NULL, NULL);
	Dwarf_Addr bias;
	Dwarf *dbg = dwfl_module_getdwarf(mod, &bias);
	Dwarf_Die cudie, *cu = dbg ? dwarf_addrdie(dbg, f1, &cudie) : NULL;
	if (!cu) /* an assembler that describes no functions */
		skip();
	struct dwarf_funcs *idx = dwarf_funcs_build(cu);
	for (Dwarf_Addr a = f1; a < f1 + 3; a++) {
		Dwarf_Off want[8], got[8];
		size_t nw = dwarf_funcs_chain(idx, a, want, 8), ng = dwarf_funcs_chain_at(cu, a, got, 8);
		assert_int_equal(nw, 1);
		assert_int_equal(ng, 1);
		assert_int_equal(got[0], want[0]);
		Dwarf_Die d;
		assert_non_null(dwarf_offdie(dbg, got[0], &d));
		assert_string_equal(dwarf_diename(&d), "f2");
	}
	dwarf_funcs_free(idx);
	dwfl_end(dwfl);
	free(p);
}

static void test_cxx_program(void **state)
{
	(void)state;
	assert_int_equal(et_write("prog.cc", prog_cc), 0);
	if (et_sh("command -v g++ >/dev/null && g++ -O2 -g -o progxx prog.cc") != 0)
		skip();
	char *p = et_path("progxx");
	assert_true(compare_file(p) > 500);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_c_program),
		cmocka_unit_test(test_cxx_program),
		cmocka_unit_test(test_aliases),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

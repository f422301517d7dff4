/* aarch64-specific pieces that run on any host: pointer-authentication codes stripped from
 * return addresses (Debian trixie builds with PAC-RET), the link register of a sample, and the
 * leaf's caller that frame-pointer chains miss, put back from the sampled link register. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <elf.h>

#include <string.h>
#include <sys/mman.h>

#include "resolve/resolve.h"
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

/* perf's leafloop workload as an aarch64 process sees it: leaf() keeps no frame record, so the
 * kernel's fp chain is leaf, leafloop, main (parent is missing); LR holds the return into parent.
 * The functions are named by a perf map so that no aarch64 ELF file is needed. */
static const char leaf_map[] = "7f0000001000 20 leaf\n7f0000001020 40 parent\n"
			       "7f0000001060 40 leafloop\n7f00000010a0 80 main\n";

struct leaf_fixture {
	struct machine m;
	struct thread *t;
	struct resolver r;
	struct evsel ev;
	struct evsel_set set;
};

static void leaf_setup(struct leaf_fixture *f, unsigned e_machine)
{
	memset(f, 0, sizeof(*f));
	machine_init(&f->m);
	machine_comm(&f->m, 77, 77, "perf", true);
	machine_mmap(&f->m, 77, 77, 0x7f0000001000ull, 0x1000, 0x7f0000001000ull, PROT_READ | PROT_EXEC, "//anon",
		     NULL, 0, false);
	machine_set_perfmap_data(&f->m, 77, leaf_map, sizeof(leaf_map) - 1);
	f->t = machine_thread(&f->m, 77, 77);
	f->ev.attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_REGS_USER;
	f->ev.attr.sample_regs_user = 1ULL << 30;
	f->set.v = &f->ev;
	f->set.n = 1;
	resolver_init(&f->r, &f->m, &f->set, true, false);
	f->r.e_machine = e_machine;
}

static void leaf_teardown(struct leaf_fixture *f)
{
	resolver_free(&f->r);
	machine_free(&f->m);
}

/* The names of the frames resolve_sample gives for this chain and link register. */
static void leaf_chain(struct leaf_fixture *f, const uint64_t *chain, size_t n, uint64_t lr, char *out, size_t size)
{
	struct perf_sample s = { .evsel = &f->ev, .pid = 77, .tid = 77, .ip = chain[1], .callchain = chain,
				 .callchain_nr = n, .cpumode = PERF_RECORD_MISC_USER, .user_abi = 2,
				 .user_regs = &lr, .user_regs_mask = 1ULL << 30, .user_nregs = 1 };
	struct resolved_sample rs;
	resolve_sample(&f->r, &s, f->t, &rs);
	out[0] = 0;
	for (size_t i = 0; i < rs.nframes; i++) {
		strncat(out, rs.frames[i].loc.sym ? rs.frames[i].loc.sym->name : "?", size - strlen(out) - 2);
		strncat(out, " ", size - strlen(out) - 1);
	}
}

static void test_leaf_caller_from_link_register(void **state)
{
	struct leaf_fixture f;
	char names[256];
	/* PERF_CONTEXT_USER, leaf's pc, the return into leafloop, the return into main */
	const uint64_t chain[] = { PERF_CONTEXT_USER, 0x7f0000001008ull, 0x7f0000001074ull, 0x7f00000010c0ull };
	leaf_setup(&f, EM_AARCH64);
	/* LR = the return into parent (signed with a pointer-authentication code) */
	leaf_chain(&f, chain, 4, 0x00517f0000001034ull, names, sizeof(names));
	assert_string_equal(names, "leaf parent leafloop main ");
	/* LR already the chain's next entry (a function with a frame record): nothing added */
	leaf_chain(&f, chain, 4, 0x7f0000001074ull, names, sizeof(names));
	assert_string_equal(names, "leaf leafloop main ");
	/* LR inside the sampled function itself (it has called something since): nothing added */
	leaf_chain(&f, chain, 4, 0x7f0000001010ull, names, sizeof(names));
	assert_string_equal(names, "leaf leafloop main ");
	/* LR nowhere known, or 0: nothing added */
	leaf_chain(&f, chain, 4, 0x10, names, sizeof(names));
	assert_string_equal(names, "leaf leafloop main ");
	/* a chain of the leaf alone gets its caller too */
	leaf_chain(&f, chain, 2, 0x7f0000001034ull, names, sizeof(names));
	assert_string_equal(names, "leaf parent ");
	leaf_teardown(&f);
	/* another machine's recording: its register 30 is not a link register */
	leaf_setup(&f, EM_X86_64);
	leaf_chain(&f, chain, 4, 0x7f0000001034ull, names, sizeof(names));
	assert_string_equal(names, "leaf leafloop main ");
	leaf_teardown(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strip_pac),
		cmocka_unit_test(test_signed_link_register),
		cmocka_unit_test(test_leaf_caller_from_link_register),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

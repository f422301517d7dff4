/* DWARF unwinding through CPython's perf trampolines in interpreters built without frame
 * pointers: jitstep's rules on synthetic frames (the 3.12 perf-map trampoline, CPython 3.13's
 * jitdump CFI, other CFI, damaged CFI), the template as read from the pyenv libpythons, and real
 * recordings of the CPython documentation's example (tests/workloads/perf_docs.py) under 3.12
 * -X perf and 3.13 -X perf_jit, unwound through the session: at least 90% of the samples whose
 * innermost Python frame is foo carry foo, bar, baz, <module>. */
#include <elf.h>
#include <fcntl.h>
#include <libgen.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "jit_test.h"
#include "perfdata/perfdata.h"
#include "session/session.h"
#include "symbols/jitdump.h"
#include "unwind/jitstep.h"
#include "resolve/resolve.h"
#include "unwind/unwind.h"

static const struct unwind_lookup test_lookup = { resolve_addr, resolve_jit_code };
#include "util/xalloc.h"

#define WORKLOAD "tests/workloads/perf_docs.py"
#define LOOPS "4000000"

static const uint8_t tramp[] = { 0x48, 0x83, 0xec, 0x08, 0xff, 0xd1, 0x48, 0x83, 0xc4, 0x08, 0xc3 };

/* What CPython 3.13.0 writes as the unwinding data of each trampoline: .eh_frame (CIE + FDE),
 * then .eh_frame_hdr (reference notes §2.4). */
static const uint8_t cpython_eh_frame[] = {
	0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 'z', 'R', 0x00, 0x01, 0x78, 0x10, 0x01,
	0x1b, 0x0c, 0x07, 0x08, 0x90, 0x01, 0x00, 0x00,
	0x14, 0x00, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x00, 0xd0, 0xff, 0xff, 0xff, 0x0b, 0x00, 0x00, 0x00,
	0x00, 0x44, 0x0e, 0x10, 0x46, 0x0e, 0x08, 0x00,
};

/* A frame-pointer rule, as V8 writes it: CFA = rbp + 16, rbp saved at CFA - 16, the return
 * address at CFA - 8 (from the CIE). The FDE covers 11 bytes at eh_frame - 16. */
static const uint8_t fp_eh_frame[] = {
	0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 'z', 'R', 0x00, 0x01, 0x78, 0x10, 0x01,
	0x1b, 0x0c, 0x07, 0x08, 0x90, 0x01, 0x00, 0x00,
	0x14, 0x00, 0x00, 0x00, 0x1c, 0x00, 0x00, 0x00, 0xd0, 0xff, 0xff, 0xff, 0x0b, 0x00, 0x00, 0x00,
	0x00, 0x0c, 0x06, 0x10, 0x86, 0x02, 0x00, 0x00,
};

#define CODE 0x7f0000001000ull   /* where the synthetic JIT code sits */
#define STACK 0x7ffc00000000ull  /* the synthetic stack's lowest address */
#define RA 0x555555556789ull     /* the return address the stacks hold */

static char tmpdir[] = "/tmp/lperf-pyunwind-XXXXXX";
static char no_record[512];      /* why recordings are unavailable; empty when they are */
static bool have312, have313;
static char *workload;

/* ---- synthetic frames ---- */

struct mem {
	uint64_t w[32];              /* the stack words from STACK on */
	size_t reads;
};

static bool mem_read(uint64_t addr, uint64_t *val, void *arg)
{
	struct mem *m = arg;
	m->reads++;
	if (addr < STACK || addr - STACK > sizeof(m->w) - 8 || (addr - STACK) % 8)
		return false;
	*val = m->w[(addr - STACK) / 8];
	return true;
}

/* A frame at pc with rsp = STACK + sp_off: rax, rbp, rsp, r12 known. (Which registers survive
 * a step is libdw's x86-64 ABI table: rbp and r12..r15 keep their value, rax does not; it marks
 * DWARF register 0 where it means rbx, so rbx is not used here.) */
static struct unwind_regs regs_at(uint64_t pc, uint64_t sp_off)
{
	struct unwind_regs r;
	memset(&r, 0, sizeof(r));
	r.dwarf[0] = 0xaaaa;            /* rax: caller-saved, unknown in the caller */
	r.dwarf[6] = 0x6666;            /* rbp: kept (the trampoline does not touch it) */
	r.dwarf[7] = STACK + sp_off;
	r.dwarf[12] = 0xcccc;           /* r12: callee-saved, kept */
	r.present = 1U << 0 | 1U << 6 | 1U << 7 | 1U << 12;
	r.pc = pc;
	r.sp = STACK + sp_off;
	r.has_pc = r.has_sp = true;
	return r;
}

static enum jitstep_result step_tramp(struct jitstep *js, struct mem *m, uint64_t off, bool activation,
				      struct unwind_regs *out)
{
	struct unwind_regs in = regs_at(CODE + off, 0);
	struct jitstep_frame f = { unwind_arch_by_machine(EM_X86_64), &in, activation, mem_read, m };
	return jitstep_py_trampoline(js, CODE, &f, out);
}

/* The caller of a trampoline frame: return address at rsp + ra_off, rsp = CFA. */
static void expect_caller(const struct unwind_regs *out, uint64_t cfa_off)
{
	assert_true(out->has_pc && out->has_sp);
	assert_int_equal(out->pc, RA);
	assert_int_equal(out->sp, STACK + cfa_off);
	assert_int_equal(out->dwarf[7], STACK + cfa_off);
	assert_true(out->present >> 12 & 1);
	assert_int_equal(out->dwarf[12], 0xcccc);
	assert_true(out->present >> 6 & 1);
	assert_int_equal(out->dwarf[6], 0x6666);
	assert_false(out->present >> 16 & 1); /* the return address column is the pc, not a register */
}

static void test_template_known(void **state)
{
	assert_true(jitstep_py_template_known(tramp, sizeof(tramp), EM_X86_64));
	assert_false(jitstep_py_template_known(tramp, sizeof(tramp), EM_AARCH64));
	assert_false(jitstep_py_template_known(tramp, sizeof(tramp) - 1, EM_X86_64));
	assert_false(jitstep_py_template_known(NULL, sizeof(tramp), EM_X86_64));
	uint8_t other[sizeof(tramp)];
	memcpy(other, tramp, sizeof(tramp));
	other[5] = 0xd0; /* call *%rax */
	assert_false(jitstep_py_template_known(other, sizeof(other), EM_X86_64));
}

/* §3.1b: before the sub and at the ret CFA = rsp + 8; after the sub (at the call, and at its
 * return address) rsp + 16; the return address at CFA - 8; nothing else moves. */
static void test_trampoline_rule(void **state)
{
	struct jitstep *js = jitstep_new();
	struct mem m = { .w = { 0 } };
	struct unwind_regs out;

	m.w[0] = RA;
	assert_int_equal(step_tramp(js, &m, 0, true, &out), JITSTEP_STEP);
	expect_caller(&out, 8);
	assert_int_equal(step_tramp(js, &m, 10, true, &out), JITSTEP_STEP);
	expect_caller(&out, 8);

	m.w[0] = 0x1234; /* the slot the sub made */
	m.w[1] = RA;
	for (uint64_t off = 4; off <= 6; off += 2) {
		assert_int_equal(step_tramp(js, &m, off, true, &out), JITSTEP_STEP);
		expect_caller(&out, 16);
	}
	/* The usual case: the return address after the call (evaluator frames below). */
	assert_int_equal(step_tramp(js, &m, 6, false, &out), JITSTEP_STEP);
	expect_caller(&out, 16);

	/* Inside an instruction, or a return address anywhere but after the call: garbage. */
	static const uint64_t bad_act[] = { 1, 2, 3, 5, 7, 8, 9 };
	for (size_t i = 0; i < ARRAY_SIZE(bad_act); i++)
		assert_int_equal(step_tramp(js, &m, bad_act[i], true, &out), JITSTEP_FAIL);
	for (uint64_t off = 1; off < sizeof(tramp); off++)
		if (off != 6)
			assert_int_equal(step_tramp(js, &m, off, false, &out), JITSTEP_FAIL);
	/* Outside the copy: not this rule's frame. */
	assert_int_equal(step_tramp(js, &m, sizeof(tramp), true, &out), JITSTEP_NONE);
	assert_int_equal(step_tramp(js, &m, (uint64_t)-1, true, &out), JITSTEP_NONE);

	/* A return address of 0 ends the stack; one outside the snapshot cuts it. */
	m.w[1] = 0;
	assert_int_equal(step_tramp(js, &m, 6, false, &out), JITSTEP_END);
	struct unwind_regs in = regs_at(CODE + 6, sizeof(m.w) - 8);
	struct jitstep_frame f = { unwind_arch_by_machine(EM_X86_64), &in, false, mem_read, &m };
	assert_int_equal(jitstep_py_trampoline(js, CODE, &f, &out), JITSTEP_FAIL);
	/* Without the stack pointer the CFA is unknown. */
	in = regs_at(CODE + 6, 0);
	in.present &= ~(1U << 7);
	assert_int_equal(jitstep_py_trampoline(js, CODE, &f, &out), JITSTEP_FAIL);
	/* The rule is x86-64's. */
	in = regs_at(CODE + 6, 0);
	f.arch = unwind_arch_by_machine(EM_AARCH64);
	assert_int_equal(jitstep_py_trampoline(js, CODE, &f, &out), JITSTEP_NONE);
	jitstep_free(js);
}

static struct jitdump_code code_with(const uint8_t *bytes, const uint8_t *eh, size_t eh_size,
				     struct jitdump_unwind *uw)
{
	memset(uw, 0, sizeof(*uw));
	uw->eh_frame = eh;
	uw->eh_frame_size = eh_size;
	uw->data = eh;
	uw->size = eh_size;
	struct jitdump_code c = { .addr = CODE, .vma = CODE, .size = sizeof(tramp), .code = bytes,
				  .name = "py::foo:/x.py", .unwind = eh ? uw : NULL };
	return c;
}

static enum jitstep_result step_code(struct jitstep *js, const struct jitdump_code *c, struct mem *m,
				     uint64_t off, bool activation, struct unwind_regs *out)
{
	struct unwind_regs in = regs_at(CODE + off, 0);
	struct jitstep_frame f = { unwind_arch_by_machine(EM_X86_64), &in, activation, mem_read, m };
	return jitstep_code(js, c, &f, out);
}

/* 3.13's jitdump: the code's own CFI, evaluated by libdw. */
static void test_jitdump_cfi(void **state)
{
	struct jitstep *js = jitstep_new();
	struct mem m = { .w = { 0x1234, RA } };
	struct unwind_regs out;
	struct jitdump_unwind uw;
	struct jitdump_code c = code_with(tramp, cpython_eh_frame, sizeof(cpython_eh_frame), &uw);
	assert_int_equal(step_code(js, &c, &m, 6, false, &out), JITSTEP_STEP);
	expect_caller(&out, 16);
	assert_int_equal(step_code(js, &c, &m, 4, true, &out), JITSTEP_STEP);
	expect_caller(&out, 16);
	m.w[0] = RA;
	assert_int_equal(step_code(js, &c, &m, 0, true, &out), JITSTEP_STEP);
	expect_caller(&out, 8);
	assert_int_equal(step_code(js, &c, &m, 3, true, &out), JITSTEP_FAIL); /* mid-instruction */
	assert_int_equal(step_code(js, &c, &m, 11, true, &out), JITSTEP_NONE);

	/* Code that is not the template: the CFI alone decides (the template's rule would stop at
	 * offset 5, the CFI says CFA = rsp + 16 there). */
	static const uint8_t nops[sizeof(tramp)] = { 0x90, 0x90, 0x90, 0x90, 0x90, 0x90,
						     0x90, 0x90, 0x90, 0x90, 0x90 };
	struct jitdump_code n = code_with(nops, cpython_eh_frame, sizeof(cpython_eh_frame), &uw);
	m.w[0] = 0x1234;
	assert_int_equal(step_code(js, &n, &m, 5, true, &out), JITSTEP_STEP);
	expect_caller(&out, 16);

	/* Any rule, not only CPython's: a frame-pointer CFA with rbp saved. */
	struct jitdump_unwind uw2;
	struct jitdump_code v = code_with(nops, fp_eh_frame, sizeof(fp_eh_frame), &uw2);
	struct unwind_regs in = regs_at(CODE + 2, 0);
	in.dwarf[6] = STACK + 64;
	m.w[8] = 0x7ffc00001000; /* saved rbp */
	m.w[9] = RA;
	struct jitstep_frame f = { unwind_arch_by_machine(EM_X86_64), &in, true, mem_read, &m };
	assert_int_equal(jitstep_code(js, &v, &f, &out), JITSTEP_STEP);
	assert_int_equal(out.pc, RA);
	assert_int_equal(out.sp, STACK + 80);
	assert_int_equal(out.dwarf[6], 0x7ffc00001000);
	assert_int_equal(out.dwarf[12], 0xcccc);

	/* No unwinding data: the template's bytes still give the rule; other code gets none. */
	struct jitdump_unwind uw3;
	struct jitdump_code t = code_with(tramp, NULL, 0, &uw3);
	m.w[1] = RA;
	assert_int_equal(step_code(js, &t, &m, 6, false, &out), JITSTEP_STEP);
	expect_caller(&out, 16);
	struct jitdump_code o = code_with(nops, NULL, 0, &uw3);
	assert_int_equal(step_code(js, &o, &m, 6, false, &out), JITSTEP_NONE);
	jitstep_free(js);
}

/* Damaged unwinding data never crashes and never yields a frame that does not move outwards. */
static void test_damaged_cfi(void **state)
{
	static const uint8_t nops[sizeof(tramp)] = { 0x90 };
	uint64_t rng = 0x9e3779b97f4a7c15ULL;
	size_t steps = 0;
	for (int k = 0; k < 2000; k++) {
		uint8_t eh[sizeof(cpython_eh_frame)];
		memcpy(eh, cpython_eh_frame, sizeof(eh));
		int flips = 1 + k % 6;
		for (int i = 0; i < flips; i++) {
			rng ^= rng << 13;
			rng ^= rng >> 7;
			rng ^= rng << 17;
			eh[rng % sizeof(eh)] = (uint8_t)(rng >> 32);
		}
		size_t len = k % 7 == 0 ? (size_t)(rng >> 40) % sizeof(eh) : sizeof(eh);
		/* A fresh jitstep per mutation: the CFI is cached by code. */
		struct jitstep *js = jitstep_new();
		struct jitdump_unwind uw;
		struct jitdump_code c = code_with(nops, eh, len, &uw);
		struct mem m = { .w = { 0x1234, RA, 0x42 } };
		struct unwind_regs out, in = regs_at(CODE + k % 11, 8);
		struct jitstep_frame f = { unwind_arch_by_machine(EM_X86_64), &in, k % 2 == 0, mem_read, &m };
		enum jitstep_result r = jitstep_code(js, &c, &f, &out);
		if (r == JITSTEP_STEP) {
			assert_true(out.sp >= in.sp);
			assert_true(out.has_pc && out.has_sp);
			steps++;
		}
		jitstep_free(js);
	}
	print_message("%zu of 2000 damaged CFIs still gave a step\n", steps);
}

/* The template in the interpreters' own files. */
static void test_template_from_libpython(void **state)
{
	int found = 0;
	const char *versions[] = { "3.12", "3.13" };
	elf_version(EV_CURRENT);
	for (size_t i = 0; i < ARRAY_SIZE(versions); i++) {
		char *py = jit_test_find_python(versions[i]);
		if (!py)
			continue;
		char *lib = xasprintf("%s/../lib/libpython%s.so.1.0", dirname(py), versions[i]);
		int fd = open(lib, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
			uint8_t buf[32];
			assert_int_equal(jitstep_py_template(e, buf, sizeof(buf)), sizeof(tramp));
			assert_memory_equal(buf, tramp, sizeof(tramp));
			assert_true(jitstep_py_template_known(buf, sizeof(tramp), EM_X86_64));
			assert_int_equal(jitstep_py_template(e, buf, 4), 0); /* does not fit */
			elf_end(e);
			close(fd);
			found++;
		}
		free(lib);
		free(py);
	}
	/* A file without the symbols. */
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	uint8_t buf[32];
	assert_int_equal(jitstep_py_template(e, buf, sizeof(buf)), 0);
	assert_int_equal(jitstep_py_template(NULL, buf, sizeof(buf)), 0);
	elf_end(e);
	close(fd);
	if (!found) {
		print_message("skipped: no pyenv libpython 3.12/3.13 (~/.pyenv/versions/3.1[23]*/lib)\n");
		skip();
	}
}

/* ---- real recordings ---- */

static int run(const char *cmd)
{
	int rc = system(cmd);
	return rc == -1 ? -1 : WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

static char *lperf_path(void)
{
	const char *env = getenv("LPERF");
	if (env && *env)
		return xstrdup(env);
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = 0;
	return xasprintf("%s/lperf", dirname(dirname(exe)));
}

static bool record(const char *lperf, const char *py, const char *xopt, const char *data)
{
	char *cmd = xasprintf("cd %s && %s record -q --call-graph dwarf,16384 -e cpu-clock -F 999 -o %s -- %s -X %s "
			      "%s " LOOPS " >record.log 2>&1",
			      tmpdir, lperf, data, py, xopt, workload);
	bool ok = run(cmd) == 0;
	free(cmd);
	if (!ok)
		snprintf(no_record, sizeof(no_record), "'lperf record' of %s -X %s failed (see %s/record.log)", py,
			 xopt, tmpdir);
	return ok;
}

static int setup(void **state)
{
	if (!mkdtemp(tmpdir))
		return -1;
	workload = realpath(WORKLOAD, NULL);
	char *lperf = lperf_path();
	char *py12 = jit_test_find_python("3.12"), *py13 = jit_test_find_python("3.13");
	struct stat st;
	if (!workload)
		snprintf(no_record, sizeof(no_record), "no %s (run from the repository root)", WORKLOAD);
	else if (!lperf || stat(lperf, &st) != 0)
		snprintf(no_record, sizeof(no_record), "no lperf binary at %s (build it, or set $LPERF)",
			 lperf ? lperf : "?");
	else if (!py12 && !py13)
		snprintf(no_record, sizeof(no_record), "no pyenv CPython 3.12 or 3.13");
	else {
		have312 = py12 && record(lperf, py12, "perf", "p312.data");
		have313 = py13 && record(lperf, py13, "perf_jit", "p313.data");
		if ((have312 || !py12) && (have313 || !py13))
			no_record[0] = 0;
	}
	free(lperf);
	free(py12);
	free(py13);
	return 0;
}

static int teardown(void **state)
{
	free(workload);
	if (getenv("LPERF_TEST_KEEP"))
		return 0;
	char *cmd = xasprintf("rm -rf %s", tmpdir);
	run(cmd);
	free(cmd);
	return 0;
}

struct pycheck {
	uint32_t pid;
	size_t samples, foo, foo_ok, foo_trunc;
	struct unwinder *u;          /* for mutated samples */
	size_t fuzz_samples, fuzzed;
	uint64_t rng;
};

static uint64_t rnd(struct pycheck *c)
{
	c->rng ^= c->rng << 13;
	c->rng ^= c->rng >> 7;
	c->rng ^= c->rng << 17;
	return c->rng;
}

/* An address in one of the thread's maps: files, and the trampolines' anonymous memory. */
static uint64_t mapped_addr(struct pycheck *c, const struct thread *t)
{
	if (!t->maps || !t->maps->n)
		return rnd(c);
	const struct map *mp = &maps_view(t->maps)[rnd(c) % t->maps->n];
	return mp->start + rnd(c) % (mp->end - mp->start);
}

static void add_nothing(uint64_t ip, bool activation, void *arg)
{
	(*(size_t *)arg)++;
}

/* Garbage registers and stack words around a real Python sample, with return addresses into
 * the trampolines' memory among them: no crash, frame counts as promised. */
static void fuzz_sample(struct pycheck *c, struct thread *t, const struct perf_sample *s)
{
	size_t nregs = s->user_nregs, ssize = s->user_stack_size, nwords = ssize / 8;
	uint64_t *regs = xmalloc(nregs * 8 + 8);
	uint8_t *stack = xmalloc(ssize + 8);
	const struct unwind_arch *a = unwind_arch_host();
	uint64_t base = s->user_regs[__builtin_popcountll(s->user_regs_mask & ((1ULL << a->perf_sp) - 1))];
	for (int k = 0; k < 50; k++) {
		memcpy(regs, s->user_regs, nregs * 8);
		memcpy(stack, s->user_stack, ssize);
		struct perf_sample m = *s;
		m.user_regs = regs;
		m.user_stack = stack;
		for (size_t i = 0; i < nregs; i++) {
			switch (rnd(c) % 6) {
			case 0: regs[i] = rnd(c); break;
			case 1: regs[i] = mapped_addr(c, t); break;
			case 2: regs[i] += rnd(c) % 64 - 32; break;
			default: break;
			}
		}
		for (size_t w = 0, n = nwords ? rnd(c) % 64 : 0; w < n; w++) {
			uint64_t v;
			switch (rnd(c) % 4) {
			case 0: v = rnd(c); break;
			case 1: v = 0; break;
			case 2: v = base + rnd(c) % (ssize + 64); break;
			default: v = mapped_addr(c, t); break;
			}
			memcpy(stack + 8 * (rnd(c) % nwords), &v, 8);
		}
		if (rnd(c) % 8 == 0)
			m.user_stack_dyn_size = rnd(c) % (ssize + 1);
		size_t n = 0;
		bool trunc;
		int r = unwind_user(c->u, t, &m, add_nothing, &n, &trunc);
		assert_true(r >= 0 && r <= 256);
		assert_int_equal((size_t)r, n);
		c->fuzzed++;
	}
	free(regs);
	free(stack);
}

static const char *py_name(const struct frame *f, size_t *len)
{
	const char *n = f->loc.sym ? f->loc.sym->name : NULL;
	if (!n || strncmp(n, "py::", 4))
		return NULL;
	n += 4;
	const char *colon = strchr(n, ':');
	*len = colon ? (size_t)(colon - n) : strlen(n);
	return n;
}

static int on_sample(const struct resolved_sample *rs, void *arg)
{
	struct pycheck *c = arg;
	c->samples++;
	c->pid = rs->s->pid;
	static const char *const chain[] = { "foo", "bar", "baz", "<module>" };
	size_t k = 0;
	for (size_t i = 0; i < rs->nframes && k < ARRAY_SIZE(chain); i++) {
		size_t len;
		const char *n = py_name(&rs->frames[i], &len);
		if (!n)
			continue;
		if (len != strlen(chain[k]) || strncmp(n, chain[k], len))
			break;
		k++;
	}
	if (k == 0)
		return 0; /* the innermost Python frame is not foo */
	if (c->u && c->fuzzed < c->fuzz_samples * 50 && rs->s->user_stack_size && rs->s->user_nregs)
		fuzz_sample(c, rs->thread, rs->s);
	c->foo++;
	c->foo_ok += k == ARRAY_SIZE(chain);
	c->foo_trunc += rs->truncated;
	return 0;
}

static void analyse(const char *data, struct pycheck *c)
{
	char *path = xasprintf("%s/%s", tmpdir, data);
	struct perfdata_reader r;
	assert_int_equal(perfdata_open(&r, path), 0);
	struct session ss;
	struct session_tool tool = { .sample = on_sample, .arg = c, .callchains = true };
	session_init(&ss, &r.evsels, &tool);
	assert_non_null(ss.resolver.unwinder);
	c->u = unwind_new(&ss.machine, &test_lookup);
	c->fuzz_samples = 40;
	c->rng = 0x9e3779b97f4a7c15ULL;
	assert_int_equal(session_process_file(&ss, &r), 0);
	print_message("%s: %zu samples; innermost Python frame foo: %zu, %zu with bar, baz, <module> "
		      "above, %zu truncated; %zu mutated samples unwound\n", data, c->samples, c->foo,
		      c->foo_ok, c->foo_trunc, c->fuzzed);
	assert_true(c->fuzzed >= 1000);
	unwind_free(c->u);
	session_free(&ss);
	perfdata_close(&r);
	free(path);
}

static void remove_jit_files(uint32_t pid)
{
	char *map = xasprintf("/tmp/perf-%u.map", pid), *dump = xasprintf("/tmp/jit-%u.dump", pid);
	unlink(map);
	unlink(dump);
	free(map);
	free(dump);
}

#define NEED(have, what)                                                                       \
	do {                                                                                   \
		if (no_record[0] || !(have)) {                                                 \
			print_message("skipped: %s\n", no_record[0] ? no_record : "no pyenv " what); \
			skip();                                                                \
		}                                                                              \
	} while (0)

static void test_cpython312_perf_map(void **state)
{
	NEED(have312, "CPython 3.12");
	struct pycheck c = { 0 };
	analyse("p312.data", &c);
	remove_jit_files(c.pid);
	assert_true(c.foo >= 50);
	assert_true(c.foo_ok * 100 >= c.foo * 90);
}

static void test_cpython313_perf_jit(void **state)
{
	NEED(have313, "CPython 3.13");
	struct pycheck c = { 0 };
	analyse("p313.data", &c);
	/* The trampolines' CFI is the one the 3.12 rule is written as. */
	char *path = xasprintf("/tmp/jit-%u.dump", c.pid);
	struct jitdump *jd = NULL;
	if (jitdump_load(path, true, &jd) == 1) {
		const struct jitdump_code *foo = NULL;
		for (size_t i = 0; i < jd->ncodes && !foo; i++)
			if (!strncmp(jd->codes[i]->name, "py::foo:", 8))
				foo = jd->codes[i];
		assert_non_null(foo);
		assert_non_null(foo->unwind);
		assert_int_equal(foo->unwind->eh_frame_size, sizeof(cpython_eh_frame));
		assert_memory_equal(foo->unwind->eh_frame, cpython_eh_frame, sizeof(cpython_eh_frame));
		assert_int_equal(foo->size, sizeof(tramp));
		assert_memory_equal(foo->code, tramp, sizeof(tramp));
		jitdump_free(jd);
	}
	free(path);
	remove_jit_files(c.pid);
	assert_true(c.foo >= 50);
	assert_true(c.foo_ok * 100 >= c.foo * 90);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_template_known),
		cmocka_unit_test(test_trampoline_rule),
		cmocka_unit_test(test_jitdump_cfi),
		cmocka_unit_test(test_damaged_cfi),
		cmocka_unit_test(test_template_from_libpython),
		cmocka_unit_test(test_cpython312_perf_map),
		cmocka_unit_test(test_cpython313_perf_jit),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

/* DWARF unwinding of user stack snapshots: the register maps, samples without registers or
 * stack, and real recordings made with the lperf binary of tests/workloads/unwind_chain.c
 * (built here with -fomit-frame-pointer, so only CFI can unwind it): a known call chain, the
 * same chain without any CFI (libdwfl's frame-pointer fallback), a chain through libc (qsort
 * calling a comparator), a thread and a forked child at once, a snapshot too small to reach main, and thousands of mutated samples (garbage registers and stack bytes)
 * that must never crash. */
#include <elf.h>
#include <inttypes.h>
#include <libgen.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "model/machine.h"
#include "perfdata/perfdata.h"
#include "session/session.h"
#include "resolve/resolve.h"
#include "unwind/unwind.h"

static const struct unwind_lookup test_lookup = { resolve_addr, resolve_jit_code };
#include "util/xalloc.h"

#define WORKLOAD "tests/workloads/unwind_chain.c"

static char tmpdir[] = "/tmp/lperf-unwind-XXXXXX";
static char no_record[512];   /* why recordings are unavailable; empty when they are */

static char *tmp(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
}

/* The lperf binary of this build: $LPERF, else BUILD/lperf beside BUILD/tests/. */
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
	char *dir = dirname(dirname(exe));
	return xasprintf("%s/lperf", dir);
}

static int run(const char *cmd)
{
	int rc = system(cmd);
	return rc == -1 ? -1 : WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

static bool build(const char *out, const char *flags)
{
	char *cmd = xasprintf("cc -O2 -pthread %s -o %s/%s " WORKLOAD " 2>&1", flags, tmpdir, out);
	bool ok = run(cmd) == 0;
	free(cmd);
	if (!ok)
		snprintf(no_record, sizeof(no_record), "cannot compile %s with cc", WORKLOAD);
	return ok;
}

static bool record(const char *lperf, const char *data, const char *cg, const char *prog, const char *args)
{
	char *cmd = xasprintf("%s record -q --call-graph %s -e cpu-clock -F 1000 -o %s/%s -- %s/%s %s "
			      ">%s/record.log 2>&1", lperf, cg, tmpdir, data, tmpdir, prog, args, tmpdir);
	bool ok = run(cmd) == 0;
	free(cmd);
	if (!ok)
		snprintf(no_record, sizeof(no_record), "'lperf record --call-graph %s' failed (see %s/record.log)",
			 cg, tmpdir);
	return ok;
}

static int setup(void **state)
{
	if (!mkdtemp(tmpdir))
		return -1;
	char *lperf = lperf_path();
	struct stat st;
	if (!lperf || stat(lperf, &st) != 0) {
		snprintf(no_record, sizeof(no_record), "no lperf binary at %s (build it, or set $LPERF)",
			 lperf ? lperf : "?");
		free(lperf);
		return 0;
	}
	bool ok = build("chain", "-fomit-frame-pointer -fasynchronous-unwind-tables") &&
		  build("nocfi", "-fno-omit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables") &&
		  record(lperf, "chain.data", "dwarf", "chain", "chain 300") &&
		  record(lperf, "threads.data", "dwarf", "chain", "threads 200") &&
		  record(lperf, "small.data", "dwarf,64", "chain", "chain 200") &&
		  record(lperf, "nocfi.data", "dwarf", "nocfi", "chain 300") &&
		  record(lperf, "qsort.data", "dwarf", "chain", "qsort 300");
	if (ok)
		no_record[0] = 0;
	free(lperf);
	return 0;
}

static int teardown(void **state)
{
	if (getenv("LPERF_TEST_KEEP"))
		return 0;
	char *cmd = xasprintf("rm -rf %s", tmpdir);
	run(cmd);
	free(cmd);
	return 0;
}

#define NEED_RECORDINGS()                                                                      \
	do {                                                                                   \
		if (no_record[0]) {                                                            \
			print_message("skipped: %s\n", no_record);                             \
			skip();                                                                \
		}                                                                              \
	} while (0)

/* ---- register maps ---- */

static void test_regs_x86_64(void **state)
{
	const struct unwind_arch *a = unwind_arch_by_machine(EM_X86_64);
	assert_non_null(a);
	assert_int_equal(a->ndwarf, 17);
	/* perf's 0xff0fff: AX..SS (0..11), R8..R15 (16..23); value = 100 + perf number. */
	uint64_t mask = 0xff0fff, vals[20];
	size_t n = 0;
	for (unsigned b = 0; b < 64; b++)
		if (mask >> b & 1)
			vals[n++] = 100 + b;
	assert_int_equal(n, 20);
	struct unwind_regs r;
	assert_true(unwind_regs_convert(a, mask, vals, n, &r));
	static const unsigned perf_of_dwarf[17] = { 0, 3, 2, 1, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23, 8 };
	for (unsigned d = 0; d < 17; d++) {
		assert_true(r.present >> d & 1);
		assert_int_equal(r.dwarf[d], 100 + perf_of_dwarf[d]);
	}
	assert_int_equal(r.present >> 17, 0);
	assert_int_equal(r.pc, 108);
	assert_int_equal(r.sp, 107);

	/* Without IP the sample cannot be unwound; a short block leaves the tail absent. */
	assert_false(unwind_regs_convert(a, mask & ~(1ULL << 8), vals, n - 1, &r));
	assert_false(r.has_pc);
	assert_true(unwind_regs_convert(a, mask, vals, 12, &r));
	assert_false(r.present >> 8 & 1);   /* R8 is the 13th value */
	assert_true(r.present >> 7 & 1);
	assert_false(unwind_regs_convert(a, mask, NULL, 20, &r));
}

static void test_regs_aarch64(void **state)
{
	const struct unwind_arch *a = unwind_arch_by_machine(EM_AARCH64);
	assert_non_null(a);
	assert_string_equal(a->name, "aarch64");
	assert_int_equal(a->ndwarf, 32);
	assert_int_equal(a->dwarf_sp, 31);
	uint64_t mask = (1ULL << 33) - 1, vals[33];
	for (unsigned i = 0; i < 33; i++)
		vals[i] = 0x1000 + i;
	struct unwind_regs r;
	assert_true(unwind_regs_convert(a, mask, vals, 33, &r));
	for (unsigned d = 0; d < 32; d++)
		assert_int_equal(r.dwarf[d], 0x1000 + d); /* x0..x30 (x29 fp, x30 lr), sp */
	assert_int_equal(r.present, 0xffffffffu);
	assert_int_equal(r.sp, 0x1000 + 31);
	assert_int_equal(r.pc, 0x1000 + 32);

	/* A partial mask: only fp, lr, sp, pc. Values come in bit order. */
	uint64_t m2 = 1ULL << 29 | 1ULL << 30 | 1ULL << 31 | 1ULL << 32;
	uint64_t v2[4] = { 0x29, 0x30, 0x31, 0x32 };
	assert_true(unwind_regs_convert(a, m2, v2, 4, &r));
	assert_int_equal(r.present, 0xe0000000u);
	assert_int_equal(r.dwarf[29], 0x29);
	assert_int_equal(r.dwarf[30], 0x30);
	assert_int_equal(r.sp, 0x31);
	assert_int_equal(r.pc, 0x32);

	assert_null(unwind_arch_by_machine(EM_386));
	assert_non_null(unwind_arch_host());
}

/* ---- samples without what an unwind needs ---- */

struct frames {
	uint64_t ip[300];
	size_t n;
};

static void add_ip(uint64_t ip, bool activation, void *arg)
{
	struct frames *f = arg;
	if (f->n < ARRAY_SIZE(f->ip))
		f->ip[f->n++] = ip;
}

static void test_degenerate_samples(void **state)
{
	struct machine m;
	machine_init(&m);
	struct thread *t = machine_thread(&m, 4242, 4242);
	struct unwinder *u = unwind_new(&m, &test_lookup);
	struct frames f = { .n = 0 };
	bool trunc = true;

	/* A kernel thread: no user registers. */
	struct perf_sample s = { .pid = 4242, .tid = 4242 };
	assert_int_equal(unwind_user(u, t, &s, add_ip, &f, &trunc), 0);
	assert_false(trunc);
	assert_int_equal(f.n, 0);

	/* Registers, but nothing mapped and no stack: the sampled pc only, truncated. */
	const struct unwind_arch *a = unwind_arch_host();
	uint64_t regs[64] = { 0 };
	uint64_t mask = 0;
	for (size_t i = 0; i < a->nmap; i++)
		mask |= 1ULL << a->map[i].perf;
	mask |= 1ULL << a->perf_pc | 1ULL << a->perf_sp;
	size_t n = (size_t)__builtin_popcountll(mask);
	regs[__builtin_popcountll(mask & ((1ULL << a->perf_pc) - 1))] = 0x401000;
	s.user_abi = PERF_SAMPLE_REGS_ABI_64;
	s.user_regs = regs;
	s.user_regs_mask = mask;
	s.user_nregs = n;
	assert_int_equal(unwind_user(u, t, &s, add_ip, &f, &trunc), 1);
	assert_true(trunc);
	assert_int_equal(f.n, 1);
	assert_int_equal(f.ip[0], 0x401000);

	/* Without a thread, and with NULL for truncated. */
	f.n = 0;
	assert_int_equal(unwind_user(u, NULL, &s, add_ip, &f, NULL), 1);

	struct unwind_stats st;
	unwind_get_stats(u, &st);
	assert_int_equal(st.samples, 2);
	assert_int_equal(st.truncated, 2);
	assert_int_equal(st.frames, 2);
	unwind_free(u);
	machine_free(&m);
}

/* ---- recordings ---- */

struct check {
	struct unwinder *u;
	struct session *ss;
	const char *leaf;              /* samples whose first frame is in this function count */
	const char *const *chain;      /* the frames expected from the leaf on (NULL-terminated) */
	bool via_libc;                 /* a libc frame, then main, must follow the leaf */
	const char *pair[2];           /* count samples with frame pair[0], then pair[1] above it */
	size_t fuzz_samples;           /* samples to mutate (fuzz test) */
	uint64_t rng;
	size_t samples, with_regs, truncated, leaf_hits, leaf_ok, leaf_trunc, fuzzed;
	size_t pair_hits;
	uint32_t first_pid;
	size_t main_in_other_pid;      /* samples of a second process that reach main */
	double secs;
	struct frames f;
};

static const char *frame_sym(struct check *c, struct thread *t, size_t i, const char **dso)
{
	struct addr_loc loc;
	/* Callers are return addresses: look up the call instruction's function. */
	uint64_t ip = c->f.ip[i] - (i ? 1 : 0);
	*dso = "";
	if (!resolve_addr(&c->ss->machine, t, PERF_RECORD_MISC_USER, ip, 0, &loc))
		return "";
	if (loc.dso)
		*dso = loc.dso->short_name ? loc.dso->short_name : "";
	return loc.sym ? loc.sym->name : "";
}

static uint64_t rnd(struct check *c)
{
	c->rng ^= c->rng << 13;
	c->rng ^= c->rng >> 7;
	c->rng ^= c->rng << 17;
	return c->rng;
}

/* The index of the first frame at or after `from` in function name, or c->f.n. */
static size_t find_frame(struct check *c, struct thread *t, size_t from, const char *name)
{
	const char *dso;
	while (from < c->f.n && strcmp(frame_sym(c, t, from, &dso), name))
		from++;
	return from;
}

/* An address inside one of the thread's maps (code the unwinder will look up). */
static uint64_t mapped_addr(struct check *c, struct thread *t)
{
	if (!t->maps || !t->maps->n)
		return rnd(c);
	const struct map *mp = &maps_view(t->maps)[rnd(c) % t->maps->n];
	return mp->start + rnd(c) % (mp->end - mp->start);
}

/* Garbage registers and stack bytes around a real sample: no crash, sane results. */
static void fuzz_sample(struct check *c, struct thread *t, const struct perf_sample *s)
{
	size_t nregs = s->user_nregs, ssize = s->user_stack_size;
	uint64_t *regs = xmalloc(nregs * 8 + 8);
	uint8_t *stack = xmalloc(ssize + 8);
	for (int k = 0; k < 100; k++) {
		memcpy(regs, s->user_regs, nregs * 8);
		memcpy(stack, s->user_stack, ssize);
		struct perf_sample m = *s;
		m.user_regs = regs;
		m.user_stack = stack;
		for (size_t i = 0; i < nregs; i++) {
			switch (rnd(c) % 6) {
			case 0: regs[i] = rnd(c); break;
			case 1: regs[i] = mapped_addr(c, t); break;
			case 2: regs[i] += rnd(c) % 256 - 128; break;
			default: break;
			}
		}
		/* Stack words: random, zero, pointers into the copy itself (cycles), code addresses. */
		size_t nwords = ssize / 8, writes = nwords ? rnd(c) % 64 : 0;
		const struct unwind_arch *a = unwind_arch_host();
		uint64_t base = s->user_regs[__builtin_popcountll(s->user_regs_mask & ((1ULL << a->perf_sp) - 1))];
		for (size_t w = 0; w < writes; w++) {
			uint64_t v;
			switch (rnd(c) % 4) {
			case 0: v = rnd(c); break;
			case 1: v = 0; break;
			case 2: v = base + (rnd(c) % (ssize + 64)); break;
			default: v = mapped_addr(c, t); break;
			}
			memcpy(stack + 8 * (rnd(c) % nwords), &v, 8);
		}
		if (rnd(c) % 8 == 0)
			m.user_stack_dyn_size = rnd(c) % (ssize + 1);
		if (rnd(c) % 16 == 0)
			m.user_nregs = rnd(c) % (nregs + 1);
		if (rnd(c) % 32 == 0)
			m.user_regs_mask = rnd(c);
		c->f.n = 0;
		bool trunc;
		int r = unwind_user(c->u, t, &m, add_ip, &c->f, &trunc);
		assert_true(r >= 0 && r <= 256);
		assert_int_equal((size_t)r, c->f.n);
		c->fuzzed++;
	}
	free(regs);
	free(stack);
}

static int on_sample(const struct resolved_sample *rs, void *arg)
{
	struct check *c = arg;
	const struct perf_sample *s = rs->s;
	c->samples++;
	c->f.n = 0;
	bool trunc = false;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int r = unwind_user(c->u, rs->thread, s, add_ip, &c->f, &trunc);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	c->secs += (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	assert_int_equal((size_t)r, c->f.n);
	if (!s->user_abi)
		return 0;
	c->with_regs++;
	assert_true(r >= 1);
	c->truncated += trunc;

	const char *dso;
	if (c->leaf && !strcmp(frame_sym(c, rs->thread, 0, &dso), c->leaf)) {
		c->leaf_hits++;
		c->leaf_trunc += trunc;
		bool ok = true;
		for (size_t i = 0; c->chain && c->chain[i] && ok; i++)
			ok = i < c->f.n && !strcmp(frame_sym(c, rs->thread, i, &dso), c->chain[i]);
		if (c->via_libc) {
			size_t i = 1;
			while (i < c->f.n && (frame_sym(c, rs->thread, i, &dso), strncmp(dso, "libc.so", 7)))
				i++;
			while (i < c->f.n && strcmp(frame_sym(c, rs->thread, i, &dso), "main"))
				i++;
			ok = i < c->f.n;
		}
		c->leaf_ok += ok;
	}
	if (c->pair[0]) {
		size_t i = find_frame(c, rs->thread, 0, c->pair[0]);
		c->pair_hits += i < c->f.n && find_frame(c, rs->thread, i + 1, c->pair[1]) < c->f.n;
	}
	if (!c->first_pid)
		c->first_pid = s->pid;
	else if (s->pid != c->first_pid)
		c->main_in_other_pid += find_frame(c, rs->thread, 0, "main") < c->f.n;
	if (c->fuzzed < c->fuzz_samples * 100 && s->user_stack_size)
		fuzz_sample(c, rs->thread, s);
	return 0;
}

static void analyse(const char *data, struct check *c)
{
	char *path = tmp(data);
	struct perfdata_reader r;
	assert_int_equal(perfdata_open(&r, path), 0);
	struct session ss;
	struct session_tool tool = { .sample = on_sample, .arg = c };
	session_init(&ss, &r.evsels, &tool);
	c->ss = &ss;
	c->u = unwind_new(&ss.machine, &test_lookup);
	c->rng = 0x9e3779b97f4a7c15ULL;
	assert_int_equal(session_process_file(&ss, &r), 0);
	struct unwind_stats st;
	unwind_get_stats(c->u, &st);
	print_message("%s: %zu samples, %zu with registers, %zu truncated; leaf %s: %zu, %zu as expected, "
		      "%zu truncated; %.1f us per unwind (first loads included); %" PRIu64 " frames\n",
		      data, c->samples, c->with_regs, c->truncated, c->leaf ? c->leaf : "-", c->leaf_hits,
		      c->leaf_ok, c->leaf_trunc, c->samples ? c->secs * 1e6 / (double)c->samples : 0.0,
		      st.frames);
	assert_true(st.samples >= c->with_regs);
	unwind_free(c->u);
	session_free(&ss);
	perfdata_close(&r);
	free(path);
}

static const char *const chain[] = { "level3", "level2", "level1", "main", NULL };

static void test_chain_cfi(void **state)
{
	NEED_RECORDINGS();
	struct check c = { .leaf = "level3", .chain = chain };
	analyse("chain.data", &c);
	assert_true(c.with_regs >= 50);
	assert_true(c.leaf_hits >= c.with_regs / 2);
	/* >= 95% of level3 samples unwind through level2 and level1 to main, to _start. */
	assert_true(c.leaf_ok * 100 >= c.leaf_hits * 95);
	assert_true(c.leaf_trunc * 100 <= c.leaf_hits * 5);
}

static void test_chain_frame_pointer_fallback(void **state)
{
	NEED_RECORDINGS();
	struct check c = { .leaf = "level3", .chain = chain };
	analyse("nocfi.data", &c);
	assert_true(c.leaf_hits >= 50);
	assert_true(c.leaf_ok * 100 >= c.leaf_hits * 90);
}

static void test_small_snapshot(void **state)
{
	NEED_RECORDINGS();
	struct check c = { .leaf = "level3", .chain = chain };
	analyse("small.data", &c);
	assert_true(c.with_regs >= 50);
	/* 64 bytes of stack cannot hold four frames: cut short, and said so. */
	assert_true(c.truncated * 100 >= c.with_regs * 80);
	assert_true(c.leaf_ok * 100 <= c.leaf_hits * 5);
}

static void test_through_libc(void **state)
{
	NEED_RECORDINGS();
	struct check c = { .leaf = "cmp", .via_libc = true };
	analyse("qsort.data", &c);
	assert_true(c.leaf_hits >= 50);
	assert_true(c.leaf_ok * 100 >= c.leaf_hits * 90);
}

/* A thread's stack ends in clone3 (whose CFI marks the return address undefined); the forked
 * child gets an address space, and a Dwfl, of its own. 200 ms of CPU each at 1000 Hz. */
static void test_threads_and_fork(void **state)
{
	NEED_RECORDINGS();
	static const char *const chain3[] = { "level3", "level2", "level1", NULL };
	struct check c = { .leaf = "level3", .chain = chain3, .pair = { "thread_main", "start_thread" } };
	analyse("threads.data", &c);
	assert_true(c.with_regs >= 300);
	assert_true(c.leaf_ok * 100 >= c.leaf_hits * 95);
	assert_true(c.truncated * 100 <= c.with_regs * 5);
	assert_true(c.pair_hits >= 100);
	assert_true(c.main_in_other_pid >= 100);
}

static void test_fuzz(void **state)
{
	NEED_RECORDINGS();
	struct check c = { .fuzz_samples = 40 };
	analyse("chain.data", &c);
	assert_true(c.fuzzed >= 3000);
	print_message("%zu mutated samples unwound\n", c.fuzzed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regs_x86_64),
		cmocka_unit_test(test_regs_aarch64),
		cmocka_unit_test(test_degenerate_samples),
		cmocka_unit_test(test_chain_cfi),
		cmocka_unit_test(test_chain_frame_pointer_fallback),
		cmocka_unit_test(test_small_snapshot),
		cmocka_unit_test(test_through_libc),
		cmocka_unit_test(test_threads_and_fork),
		cmocka_unit_test(test_fuzz),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

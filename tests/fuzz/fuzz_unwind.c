/* Fuzz harness: the unwinder on stack copies. The address space is fixed: the C library and
 * the dynamic loader of this machine mapped at fixed bases in one process of a machine model
 * (as a recording's MMAP2 records would place them); the input is one sample's user registers
 * and stack copy:
 *   bytes 0..159   20 registers in perf's x86-64 order for sample_regs_user 0xff0fff
 *                  (AX BX CX DX SI DI BP SP IP FLAGS CS SS R8..R15), little-endian
 *   bytes 160..    the stack copy (sp points at its first byte), at most 64 KiB
 * A shorter input leaves the remaining registers 0. The unwinder runs libdwfl over libc's CFI
 * with the copy as memory, the frame-pointer fallback, and the reads of file-backed memory.
 * The machine and the unwinder live across inputs, as in a session that unwinds sample after
 * sample (its caches of files and CFI are part of what is tested).
 * Seeds: samples of a real `lperf record --call-graph dwarf` of a qsort loop whose pc is in libc,
 * their libc addresses rebased to LIBC_BASE (docs/fuzzing.md says how). FUZZ_DEBUG=1 prints the
 * frame count of each input. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "model/machine.h"
#include "record/record.h"
#include "resolve/resolve.h"
#include "unwind/unwind.h"

static const struct unwind_lookup fuzz_lookup = { resolve_addr, resolve_jit_code };
#include "util/error.h"

#define PID 777
#define LIBC_BASE 0x7f0000000000ULL
#define LD_BASE 0x7f1000000000ULL

static const char *const libcs[] = { "/lib/x86_64-linux-gnu/libc.so.6", "/lib64/libc.so.6",
				     "/lib/aarch64-linux-gnu/libc.so.6" };
static const char *const lds[] = { "/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1" };

static void add(uint64_t ip, bool activation, void *arg)
{
	(void)ip;
	++*(size_t *)arg;
}

static void map_first(struct machine *m, uint64_t base, const char *const *paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fuzz_map_elf(m, PID, base, paths[i]) > 0)
			return;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t regs[20] = { 0 };
	size_t nr = size < sizeof(regs) ? size : sizeof(regs);
	memcpy(regs, data, nr);
	size_t slen = size - nr;
	if (slen > 65536)
		slen = 65536;
	/* An exact-size copy: reads past the copy's end must be caught. */
	uint8_t *stack = slen ? malloc(slen) : NULL;
	if (slen)
		memcpy(stack, data + nr, slen);

	static struct machine m;
	static struct thread *t;
	static struct unwinder *u;
	if (!u) {
		machine_init(&m);
		t = machine_thread(&m, PID, PID);
		map_first(&m, LIBC_BASE, libcs, sizeof(libcs) / sizeof(*libcs));
		map_first(&m, LD_BASE, lds, sizeof(lds) / sizeof(*lds));
		u = unwind_new(&m, &fuzz_lookup);
	}
	struct perf_sample s = { 0 };
	s.pid = s.tid = PID;
	s.user_abi = PERF_SAMPLE_REGS_ABI_64;
	s.user_regs = regs;
	s.user_regs_mask = 0xff0fffULL;
	s.user_nregs = 20;
	s.user_stack = stack;
	s.user_stack_size = s.user_stack_dyn_size = slen;
	size_t n = 0;
	bool trunc;
	(void)unwind_user(u, t, &s, add, &n, &trunc);
	if (getenv("FUZZ_DEBUG"))
		fprintf(stderr, "frames %zu truncated %d\n", n, trunc);
	struct unwind_stats st;
	unwind_get_stats(u, &st);
	free(stack);
	err_clear();
	return 0;
}

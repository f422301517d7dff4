/* Fuzz harness: DWARF CFI through libdw's entry points, as the unwinder uses them. The input is
 * an ELF file (with .eh_frame / .eh_frame_hdr / .debug_frame, or none); it is mapped into a
 * process of a machine model at its PT_LOAD addresses, and synthetic user-stack samples whose
 * pc lies at its entry point and at its symbols are unwound: libdwfl reports the module
 * (find_elf / find_debuginfo callbacks), dwfl_thread_getframes reads its CFI (dwarf_cfi_addrframe
 * through the frame state), lperf's ufile cache maps the file and computes its load bias, and
 * the frame-pointer fallback runs where the CFI has no rule. Seeds: small system binaries, a
 * program built with -g (.debug_frame, no .eh_frame) and one built without any CFI. */
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

#define PID 4242
#define BASE 0x555500000000ULL
#define STACK_TOP 0x7ffd00010000ULL

static char *path;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	if (asprintf(&path, "%s/cfi.so", fuzz_tmpdir()) < 0)
		abort();
	return 0;
}

static void add(uint64_t ip, bool activation, void *arg)
{
	(void)ip;
	++*(size_t *)arg;
}

/* One sample at pc with a stack whose words point back into the module (return addresses a
 * CFI rule may pick up) and into the stack itself (saved frame pointers). */
static void unwind_at(struct unwinder *u, struct thread *t, uint64_t pc, uint64_t seed)
{
	uint64_t regs[20] = { 0 };
	uint64_t stack[128];
	uint64_t sp = STACK_TOP - sizeof(stack);
	for (size_t i = 0; i < 128; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		stack[i] = (i % 3 == 0) ? sp + 8 * (i + 2) : BASE + ((seed >> 20) & 0xffff);
	}
	regs[6] = sp + 16; /* bp */
	regs[7] = sp;      /* sp */
	regs[8] = pc;      /* ip */
	struct perf_sample s = { 0 };
	s.pid = s.tid = PID;
	s.user_abi = PERF_SAMPLE_REGS_ABI_64;
	s.user_regs = regs;
	s.user_regs_mask = 0xff0fffULL;
	s.user_nregs = 20;
	s.user_stack = (const uint8_t *)stack;
	s.user_stack_size = s.user_stack_dyn_size = sizeof(stack);
	size_t n = 0;
	bool trunc;
	(void)unwind_user(u, t, &s, add, &n, &trunc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!path)
		LLVMFuzzerInitialize(NULL, NULL);
	fuzz_write(path, data, size);
	struct machine m;
	machine_init(&m);
	struct thread *t = machine_thread(&m, PID, PID);
	if (fuzz_map_elf(&m, PID, BASE, path) > 0) {
		struct unwinder *u = unwind_new(&m, &fuzz_lookup);
		uint64_t entry = 0;
		if (size >= 32)
			memcpy(&entry, data + 24, 8);
		unwind_at(u, t, BASE + (entry & 0xffffffULL), 1);
		const struct map *mp = maps_find(t->maps, BASE + (entry & 0xffffffULL));
		if (!mp && t->maps->n)
			mp = &maps_view(t->maps)[0];
		if (mp && mp->dso) {
			struct dso *d = mp->dso;
			dso_load(d);
			size_t n = d->nsyms < 16 ? d->nsyms : 16;
			for (size_t i = 0; i < n; i++) {
				uint64_t at = d->syms[i].start + (d->syms[i].size ? d->syms[i].size / 2 : 0);
				unwind_at(u, t, BASE + at, i + 2);
			}
		}
		unwind_free(u);
	}
	machine_free(&m);
	err_clear();
	return 0;
}

/* Fuzz harness: the CFI reducer (unwind/cfa.c) and the JIT unwind step around it
 * (unwind/jitstep.c). The input is the unwinding data of one piece of JIT code, as a jitdump's
 * CODE_UNWINDING_INFO record carries it, behind an 8-byte header:
 *   byte 0     bit 0: AArch64 (else x86-64); bit 1: the code's bytes are CPython's x86-64
 *              trampoline (then the code is those 11 bytes, whatever byte 1-2 say)
 *   bytes 1-2  the code's size (little-endian; 0: 256)
 *   bytes 3-7  a seed for the registers and the stack copy
 *   bytes 8..  the .eh_frame bytes (placed right after the code, 8-byte aligned, as the jitdump
 *              writers lay them out)
 * jitstep_code builds the in-memory ELF, libdw reads the CFI (dwarf_getcfi_elf), and for pcs at
 * every byte of the first 64 and spread over the rest of the code, as the sampled pc and as a
 * return address, cfa_rule_make reduces the row (dwarf_cfi_addrframe, dwarf_frame_cfa,
 * dwarf_frame_register) and cfa_rule_step applies it to registers over a synthetic stack copy;
 * a step that succeeds is followed by up to 8 more, as an unwind goes outwards. The step's
 * promises are checked: a STEP has a pc and a stack pointer that moved outwards. FUZZ_DEBUG=1
 * prints how many steps gave each result.
 * Seeds: the .eh_frame CPython 3.13 writes for its trampolines, those of the CPython 3.13 and
 * Node.js 20 jitdumps of the jitdump corpus, and hand-written CIE/FDE programs (expressions,
 * register rules, val_offset, undefined return address, signal frames). */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "symbols/jitdump.h"
#include "unwind/jitstep.h"
#include "unwind/unwind.h"
#include "util/error.h"

#define CODE 0x7f4000001000ULL
#define STACK 0x7ffc00000000ULL
#define STACK_WORDS 256

static const uint8_t tramp[] = { 0x48, 0x83, 0xec, 0x08, 0xff, 0xd1, 0x48, 0x83, 0xc4, 0x08, 0xc3 };

struct mem {
	uint64_t words[STACK_WORDS];
};

static size_t results[4]; /* by enum jitstep_result: FUZZ_DEBUG=1 prints them per input */

static bool read_word(uint64_t addr, uint64_t *val, void *arg)
{
	const struct mem *m = arg;
	if (addr < STACK || addr - STACK > (STACK_WORDS - 1) * 8ULL || (addr & 7))
		return false;
	*val = m->words[(addr - STACK) / 8];
	return true;
}

static uint64_t next(uint64_t *seed)
{
	*seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return *seed >> 11;
}

/* Steps outwards from pc while the rule gives a caller (at most 9 frames). */
static void unwind_from(struct jitstep *js, const struct jitdump_code *c, const struct unwind_arch *a,
			const struct mem *m, uint64_t pc, bool activation, uint64_t seed)
{
	struct unwind_regs regs = { 0 };
	for (unsigned r = 0; r < a->ndwarf; r++) {
		uint64_t v = next(&seed);
		regs.dwarf[r] = (v & 3) ? STACK + 8 * (v % STACK_WORDS) : v;
		regs.present |= (v >> 7 & 7) ? 1U << r : 0;
	}
	regs.dwarf[a->dwarf_sp] = STACK + 8 * (next(&seed) % 32);
	regs.present |= 1U << a->dwarf_sp;
	regs.pc = pc;
	regs.sp = regs.dwarf[a->dwarf_sp];
	regs.has_pc = regs.has_sp = true;
	for (int depth = 0; depth < 9; depth++) {
		struct jitstep_frame f = { a, &regs, activation && !depth, read_word, (void *)m };
		struct unwind_regs out;
		enum jitstep_result r = jitstep_code(js, c, &f, &out);
		results[r]++;
		if (r != JITSTEP_STEP)
			return;
		if (!out.has_pc || !out.has_sp || out.sp < regs.sp || (out.sp == regs.sp && out.pc == regs.pc))
			abort(); /* a step must move outwards */
		regs = out;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 8)
		return 0;
	const struct unwind_arch *a = unwind_arch_by_machine(data[0] & 1 ? EM_AARCH64 : EM_X86_64);
	if (!a)
		return 0;
	bool is_tramp = data[0] & 2;
	size_t code_size = is_tramp ? sizeof(tramp) : (size_t)(data[1] | data[2] << 8);
	if (!code_size)
		code_size = 256;
	uint64_t seed = 0;
	memcpy(&seed, data + 3, 5);
	uint8_t *code = calloc(1, code_size);
	if (is_tramp)
		memcpy(code, tramp, sizeof(tramp));
	/* Exact-size copies: reads past either end must be caught. */
	size_t eh_len = size - 8;
	uint8_t *eh = malloc(eh_len ? eh_len : 1);
	memcpy(eh, data + 8, eh_len);
	struct jitdump_unwind uw = { 0 };
	uw.data = eh;
	uw.size = eh_len;
	uw.eh_frame = eh;
	uw.eh_frame_size = eh_len;
	struct jitdump_code c = { 0 };
	c.addr = c.vma = CODE;
	c.size = code_size;
	c.code = code;
	c.name = "fuzz";
	c.unwind = &uw;
	struct mem *m = malloc(sizeof(*m));
	uint64_t s = seed;
	for (size_t i = 0; i < STACK_WORDS; i++) {
		uint64_t v = next(&s);
		m->words[i] = (v & 1) ? CODE + v % (code_size + 16) : STACK + 8 * (v % STACK_WORDS);
	}
	struct jitstep *js = jitstep_new();
	for (uint64_t off = 0; off <= code_size; off += off < 64 ? 1 : code_size / 16 + 1) {
		unwind_from(js, &c, a, m, CODE + off, true, seed + off);
		unwind_from(js, &c, a, m, CODE + off, false, seed + off);
	}
	jitstep_free(js);
	if (getenv("FUZZ_DEBUG"))
		fprintf(stderr, "none %zu step %zu end %zu fail %zu\n", results[0], results[1], results[2], results[3]);
	memset(results, 0, sizeof(results));
	free(m);
	free(eh);
	free(code);
	err_clear();
	return 0;
}

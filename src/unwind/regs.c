/* Register maps from perf's user register numbering (arch/<arch>/include/uapi/asm/perf_regs.h)
 * to the DWARF numbering of each psABI, as tables rather than #if blocks so that a recording
 * of another architecture unwinds the same way. */
#include "unwind/unwind.h"

#include <elf.h>
#include <string.h>

#include "util/xalloc.h"

/* x86-64: perf numbers AX BX CX DX SI DI BP SP IP FLAGS CS SS DS ES FS GS as 0..15 and R8..R15
 * as 16..23; DWARF numbers RAX RDX RCX RBX RSI RDI RBP RSP R8..R15 as 0..15 and the return
 * address column (RIP) as 16. FLAGS and the segment registers take no part in unwinding. */
static const struct unwind_reg_pair x86_64_map[] = {
	{ 0, 0 },   /* AX */
	{ 3, 1 },   /* DX */
	{ 2, 2 },   /* CX */
	{ 1, 3 },   /* BX */
	{ 4, 4 },   /* SI */
	{ 5, 5 },   /* DI */
	{ 6, 6 },   /* BP */
	{ 7, 7 },   /* SP */
	{ 16, 8 },  { 17, 9 },  { 18, 10 }, { 19, 11 },  /* R8..R11 */
	{ 20, 12 }, { 21, 13 }, { 22, 14 }, { 23, 15 },  /* R12..R15 */
	{ 8, 16 },  /* IP: the return address column */
};

/* AArch64: perf numbers X0..X30 (X29 = FP, X30 = LR) as 0..30, SP as 31 and PC as 32; DWARF
 * numbers X0..X30 and SP the same way. The PC has no DWARF column: it is handed over apart. */
static const struct unwind_reg_pair aarch64_map[] = {
	{ 0, 0 },   { 1, 1 },   { 2, 2 },   { 3, 3 },   { 4, 4 },   { 5, 5 },   { 6, 6 },   { 7, 7 },
	{ 8, 8 },   { 9, 9 },   { 10, 10 }, { 11, 11 }, { 12, 12 }, { 13, 13 }, { 14, 14 }, { 15, 15 },
	{ 16, 16 }, { 17, 17 }, { 18, 18 }, { 19, 19 }, { 20, 20 }, { 21, 21 }, { 22, 22 }, { 23, 23 },
	{ 24, 24 }, { 25, 25 }, { 26, 26 }, { 27, 27 }, { 28, 28 }, { 29, 29 }, { 30, 30 }, { 31, 31 },
};

static const struct unwind_arch arches[] = {
	{ "x86_64", EM_X86_64, 17, 7, 6, 8, 7, x86_64_map, ARRAY_SIZE(x86_64_map) },
	{ "aarch64", EM_AARCH64, 32, 31, 29, 32, 31, aarch64_map, ARRAY_SIZE(aarch64_map) },
};

const struct unwind_arch *unwind_arch_by_machine(unsigned e_machine)
{
	for (size_t i = 0; i < ARRAY_SIZE(arches); i++)
		if (arches[i].e_machine == e_machine)
			return &arches[i];
	return NULL;
}

const struct unwind_arch *unwind_arch_host(void)
{
#if defined(__x86_64__)
	return unwind_arch_by_machine(EM_X86_64);
#elif defined(__aarch64__)
	return unwind_arch_by_machine(EM_AARCH64);
#else
	return NULL;
#endif
}

/* The value of perf register bit in a block holding the registers of mask in bit order. */
static bool perf_reg(uint64_t mask, const uint64_t *vals, size_t n, unsigned bit, uint64_t *out)
{
	if (bit >= 64 || !(mask >> bit & 1))
		return false;
	size_t idx = (size_t)__builtin_popcountll(mask & ((1ULL << bit) - 1));
	if (idx >= n)
		return false;
	*out = vals[idx];
	return true;
}

bool unwind_regs_convert(const struct unwind_arch *a, uint64_t mask, const uint64_t *vals, size_t n,
			 struct unwind_regs *out)
{
	memset(out, 0, sizeof(*out));
	if (!vals)
		n = 0;
	for (size_t i = 0; i < a->nmap; i++) {
		unsigned d = a->map[i].dwarf;
		uint64_t v;
		if (d < UNWIND_MAX_DWARF_REGS && d < a->ndwarf && perf_reg(mask, vals, n, a->map[i].perf, &v)) {
			out->dwarf[d] = v;
			out->present |= 1U << d;
		}
	}
	/* The link register holds a signed return address once a PAC-RET function has begun. */
	if (a->e_machine == EM_AARCH64 && (out->present >> 30 & 1))
		out->dwarf[30] = unwind_strip_pac(a, out->dwarf[30]);
	out->has_pc = perf_reg(mask, vals, n, a->perf_pc, &out->pc);
	out->has_sp = perf_reg(mask, vals, n, a->perf_sp, &out->sp);
	return out->has_pc && out->has_sp;
}

/* AArch64 pointer authentication (PAC-RET, Debian trixie's default -mbranch-protection) signs
 * return addresses on the stack: the code sits in the bits above the virtual address (48 bits
 * for Linux user space), bit 55 telling user (0) from kernel (1). Stripping it gives the
 * address; whether that was the intent is for the caller to judge (it lands in a mapping). */
uint64_t unwind_strip_pac(const struct unwind_arch *a, uint64_t v)
{
	const uint64_t va = (1ULL << 48) - 1;
	if (!a || a->e_machine != EM_AARCH64 || (v >> 55 & 1) || !(v & ~va))
		return v;
	return v & va;
}

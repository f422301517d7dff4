/* The sample lperf writes for a thread it paused (python/pysampler.h): a PERF_RECORD_SAMPLE laid
 * out as the kernel writes one of the recording's own sampling event (the attr's sample_type and
 * sample_regs_user), a user-mode sample with an empty kernel call chain, the thread's user
 * registers and a copy of its user stack, so that report's DWARF unwinder and its join with the
 * Python stacks take it as any other. x86-64 only (pysample_regs returns 0 elsewhere). */
#ifndef LPERF_PYTHON_PYSAMPLE_H
#define LPERF_PYTHON_PYSAMPLE_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

/* ptrace's view of the user registers (x86-64: struct user_regs_struct's fields, in its order). */
#define PYSAMPLE_NREGS 27
struct pysample_in {
	uint32_t pid, tid, cpu;
	uint64_t time, period, id;
	uint64_t regs[PYSAMPLE_NREGS];   /* PTRACE_GETREGSET NT_PRSTATUS */
	const uint8_t *stack;            /* the copy from the stack pointer up */
	size_t stack_len;                /* bytes of it that could be read */
};

/* perf's registers for mask (perf_regs.h's order: AX, BX, CX, DX, SI, DI, BP, SP, IP, FLAGS, CS,
 * SS, DS, ES, FS, GS, R8-R15) from ptrace's; how many were written to out (popcount(mask) at
 * most 64), 0 on another architecture. */
size_t pysample_regs(const uint64_t *ptrace_regs, uint64_t mask, uint64_t *out);
/* The record into buf (size bytes); its size, or 0 when attr's sample_type has fields such a
 * sample cannot give (READ, RAW, BRANCH_STACK, REGS_INTR, AUX) or it would not fit a record.
 * The stack copy is cut to attr.sample_stack_user. */
size_t pysample_build(void *buf, size_t size, const struct perf_event_attr *attr, const struct pysample_in *in);

#endif

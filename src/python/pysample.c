#include "python/pysample.h"

#include <string.h>

#include "record/record.h"

/* perf_regs.h (x86-64) index -> struct user_regs_struct field index; -1: none (read as 0). */
#if defined(__x86_64__)
static const signed char from_ptrace[24] = {
	10,  /* AX: rax */
	5,   /* BX: rbx */
	11,  /* CX: rcx */
	12,  /* DX: rdx */
	13,  /* SI: rsi */
	14,  /* DI: rdi */
	4,   /* BP: rbp */
	19,  /* SP: rsp */
	16,  /* IP: rip */
	18,  /* FLAGS: eflags */
	17,  /* CS */
	20,  /* SS */
	23,  /* DS */
	24,  /* ES */
	25,  /* FS */
	26,  /* GS */
	9,   /* R8 */
	8,   /* R9 */
	7,   /* R10 */
	6,   /* R11 */
	3,   /* R12 */
	2,   /* R13 */
	1,   /* R14 */
	0,   /* R15 */
};
#endif

size_t pysample_regs(const uint64_t *ptrace_regs, uint64_t mask, uint64_t *out)
{
#if defined(__x86_64__)
	size_t n = 0;
	for (unsigned b = 0; b < 64; b++) {
		if (!(mask & (1ULL << b)))
			continue;
		int k = b < 24 ? from_ptrace[b] : -1;
		out[n++] = k >= 0 ? ptrace_regs[k] : 0;
	}
	return n;
#else
	(void)ptrace_regs;
	(void)mask;
	(void)out;
	return 0;
#endif
}

size_t pysample_build(void *buf, size_t size, const struct perf_event_attr *attr, const struct pysample_in *in)
{
	const uint64_t unsupported = PERF_SAMPLE_READ | PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK |
				     PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_AUX;
	if (attr->sample_type & unsupported)
		return 0;
	uint64_t regs[64];
	struct perf_sample s;
	memset(&s, 0, sizeof(s));
	s.cpumode = PERF_RECORD_MISC_USER;
	s.id = in->id;
#if defined(__x86_64__)
	s.ip = in->regs[16]; /* rip */
#endif
	s.pid = in->pid;
	s.tid = in->tid;
	s.time = in->time;
	s.cpu = in->cpu;
	s.period = in->period;
	/* a user-mode sample: the kernel's part of the chain (exclude_callchain_user) is empty */
	s.callchain_nr = 0;
	if (attr->sample_type & PERF_SAMPLE_REGS_USER) {
		s.user_nregs = pysample_regs(in->regs, attr->sample_regs_user, regs);
		if (!s.user_nregs && attr->sample_regs_user)
			return 0;
		s.user_abi = PERF_SAMPLE_REGS_ABI_64;
		s.user_regs = regs;
		s.user_regs_mask = attr->sample_regs_user;
	}
	if (attr->sample_type & PERF_SAMPLE_STACK_USER) {
		size_t len = in->stack ? in->stack_len : 0;
		if (len > attr->sample_stack_user)
			len = attr->sample_stack_user;
		len &= ~(size_t)7;
		s.user_stack = in->stack;
		s.user_stack_size = len;
		s.user_stack_dyn_size = len;
	}
	return record_build_sample(buf, size, attr, &s);
}

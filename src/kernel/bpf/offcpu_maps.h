/* Shared between lperf's off-CPU BPF program (offcpu.bpf.c) and its loader (kernel/offcpu.c). */
#ifndef LPERF_KERNEL_BPF_OFFCPU_MAPS_H
#define LPERF_KERNEL_BPF_OFFCPU_MAPS_H

#define OFFCPU_MAX_STACK 127   /* user frames kept per stack (the kernel's limit) */
#define OFFCPU_MAX_KEYS  16384 /* distinct (thread, stack, state) keys */
#define OFFCPU_MAX_TASKS 32768 /* threads switched out at once, and processes followed */

/* One off-CPU total: a thread blocked in one state with one user stack. */
struct offcpu_key {
	unsigned int tid, pid;     /* the thread, its process */
	int stack_id;              /* in the stacks map; negative: none */
	unsigned int state;        /* TASK_INTERRUPTIBLE (1) or TASK_UNINTERRUPTIBLE (2); with
				    * runnable, 0 for a preempted thread */
};

/* A thread switched out: when, in which state, with which stack. */
struct offcpu_since {
	unsigned long long ts;
	int stack_id;
	unsigned int state;
};

#endif

/* Shared between lperf's lock contention BPF program (lockcon.bpf.c) and its loader
 * (kernel/lockcon.c). */
#ifndef LPERF_KERNEL_BPF_LOCKCON_MAPS_H
#define LPERF_KERNEL_BPF_LOCKCON_MAPS_H

#define LOCKCON_MAX_STACK 16    /* kernel frames kept per contention */
#define LOCKCON_MAX_KEYS  16384 /* distinct stacks */
#define LOCKCON_MAX_TASKS 16384 /* threads waiting at once, processes followed */

/* A thread waiting on a lock since ts. */
struct lockcon_wait {
	unsigned long long ts, lock;
	int stack_id;
	unsigned int flags;
};

/* The waits of one kernel stack. */
struct lockcon_stat {
	unsigned long long total, max, min, count;
	unsigned int flags;
};

#endif

/* Shared between lperf's lock contention BPF program (lockcon.bpf.c) and its loader
 * (kernel/lockcon.c). */
#ifndef LPERF_KERNEL_BPF_LOCKCON_MAPS_H
#define LPERF_KERNEL_BPF_LOCKCON_MAPS_H

#define LOCKCON_MAX_STACK 16    /* kernel frames kept per contention */
#define LOCKCON_MAX_KEYS  16384 /* distinct stacks */
#define LOCKCON_MAX_TASKS 16384 /* threads waiting at once, processes followed */

#define LOCKCON_COMM_LEN  16

/* A thread waiting on a lock since ts; key: its stats key (the kernel stack's id, or per
 * thread the thread's id). */
struct lockcon_wait {
	unsigned long long ts, lock;
	int key;
	unsigned int flags;
};

/* Per thread (-t): the thread's name, taken when it first waits. */
struct lockcon_comm {
	char comm[LOCKCON_COMM_LEN];
};

/* The waits of one kernel stack, or of one thread. */
struct lockcon_stat {
	unsigned long long total, max, min, count;
	unsigned int flags;
};

#endif

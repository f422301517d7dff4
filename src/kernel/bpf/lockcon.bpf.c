// SPDX-License-Identifier: GPL-2.0
/* lperf lock contention -b: the lock:contention_begin/end tracepoints counted in the kernel, as
 * perf 6.1's BPF collector counts them: a thread's wait from its first begin (a nested begin
 * while it waits is the same wait) to the end on the same lock, summed per kernel stack at the
 * begin, or per thread (-t). When filtering (a command without -a, -p), only the processes in
 * `procs` count, with the processes they fork; with -C only waits begun on those CPUs, with
 * --tid only those threads' waits. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "lockcon_maps.h"

struct task_struct {
	int pid, tgid;
} __attribute__((preserve_access_index));

#include "follow.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, LOCKCON_MAX_STACK * sizeof(__u64));
	__uint(max_entries, LOCKCON_MAX_KEYS);
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32); /* tid */
	__type(value, struct lockcon_wait);
	__uint(max_entries, LOCKCON_MAX_TASKS);
} waits SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __s32); /* stack id, or per thread the tid */
	__type(value, struct lockcon_stat);
	__uint(max_entries, LOCKCON_MAX_KEYS);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32); /* tid */
	__type(value, struct lockcon_comm);
	__uint(max_entries, LOCKCON_MAX_TASKS);
} comms SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32); /* cpu (-C) or tid (--tid) */
	__type(value, __u8);
	__uint(max_entries, LOCKCON_MAX_TASKS);
} cpus SEC(".maps"), tids SEC(".maps");

const volatile int per_thread = 0; /* -t: stats keyed by thread, not by stack */
const volatile int filter_cpus = 0, filter_tids = 0;

int enabled = 0;
__u64 lost = 0; /* waits not counted: a map was full */

SEC("tp_btf/contention_begin")
int BPF_PROG(lockcon_begin, void *lock, unsigned int flags)
{
	if (!enabled)
		return 0;
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id, pid = id >> 32;
	if (!followed(pid))
		return 0;
	if (filter_tids && !bpf_map_lookup_elem(&tids, &tid))
		return 0;
	__u32 cpu = bpf_get_smp_processor_id();
	if (filter_cpus && !bpf_map_lookup_elem(&cpus, &cpu))
		return 0;
	struct lockcon_wait *w = bpf_map_lookup_elem(&waits, &tid);
	if (w && w->lock == (__u64)lock)
		return 0; /* nested: the first begin counts */
	struct lockcon_wait n = { .ts = bpf_ktime_get_ns(), .lock = (__u64)lock, .flags = flags };
	if (per_thread) {
		n.key = (int)tid;
		/* The thread's name as of its latest wait, not its first: a thread that waited while
		 * exec'ing (under the program's name) and renamed itself later is shown by its new name. */
		struct lockcon_comm *have = bpf_map_lookup_elem(&comms, &tid);
		if (have) {
			bpf_get_current_comm(have->comm, sizeof(have->comm));
		} else {
			struct lockcon_comm c = { 0 };
			bpf_get_current_comm(c.comm, sizeof(c.comm));
			bpf_map_update_elem(&comms, &tid, &c, BPF_NOEXIST);
		}
	} else {
		n.key = bpf_get_stackid(ctx, &stacks, BPF_F_FAST_STACK_CMP);
	}
	if (bpf_map_update_elem(&waits, &tid, &n, BPF_ANY))
		__sync_fetch_and_add(&lost, 1);
	return 0;
}

SEC("tp_btf/contention_end")
int BPF_PROG(lockcon_end, void *lock, int ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct lockcon_wait *w = bpf_map_lookup_elem(&waits, &tid);
	if (!w || w->lock != (__u64)lock)
		return 0;
	__u64 delta = bpf_ktime_get_ns() - w->ts;
	__s32 key = w->key;
	unsigned int flags = w->flags;
	bpf_map_delete_elem(&waits, &tid);
	struct lockcon_stat *s = bpf_map_lookup_elem(&stats, &key);
	if (!s) {
		struct lockcon_stat n = { .total = delta, .max = delta, .min = delta, .count = 1, .flags = flags };
		if (bpf_map_update_elem(&stats, &key, &n, BPF_NOEXIST) == 0)
			return 0;
		s = bpf_map_lookup_elem(&stats, &key);
		if (!s) {
			__sync_fetch_and_add(&lost, 1);
			return 0;
		}
	}
	__sync_fetch_and_add(&s->total, delta);
	__sync_fetch_and_add(&s->count, 1);
	if (delta > s->max)
		s->max = delta;
	if (delta < s->min)
		s->min = delta;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";

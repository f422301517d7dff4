// SPDX-License-Identifier: GPL-2.0
/* lperf lock contention -b: the lock:contention_begin/end tracepoints counted in the kernel, as
 * perf 6.1's BPF collector counts them: a thread's wait from its first begin (a nested begin
 * while it waits is the same wait) to the end on the same lock, summed per kernel stack at the
 * begin. When filtering (a command without -a, -p), only the processes in `procs` count, with
 * the processes they fork. */
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
	__type(key, __s32); /* stack id */
	__type(value, struct lockcon_stat);
	__uint(max_entries, LOCKCON_MAX_KEYS);
} stats SEC(".maps");

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
	struct lockcon_wait *w = bpf_map_lookup_elem(&waits, &tid);
	if (w && w->lock == (__u64)lock)
		return 0; /* nested: the first begin counts */
	struct lockcon_wait n = { .ts = bpf_ktime_get_ns(), .lock = (__u64)lock, .flags = flags };
	n.stack_id = bpf_get_stackid(ctx, &stacks, BPF_F_FAST_STACK_CMP);
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
	__s32 key = w->stack_id;
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

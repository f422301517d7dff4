// SPDX-License-Identifier: GPL-2.0
/* lperf's off-CPU profiler (record --off-cpu, as perf 6.1's): at every context switch the
 * thread going off a CPU in a sleeping state (interruptible or uninterruptible; kernel threads
 * left out) notes the time and its user stack, and the thread coming on adds the time since it
 * went off to the total of its (thread, stack, state) key. User space reads the totals at the
 * end and writes them as samples of the "offcpu-time" event. When filtering (a command or -p),
 * only the processes in `procs` count, and the processes they fork join them. With `runnable`
 * (record --wall) every switch counts, a thread preempted while it could run too (state 0):
 * wall-clock time is then on-CPU samples plus every moment the thread was off a CPU. */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "offcpu_maps.h"

/* Only the fields read, relocated against the running kernel's BTF (CO-RE). */
struct task_struct {
	int pid, tgid;
	unsigned int flags;
} __attribute__((preserve_access_index));

#include "follow.bpf.h"

#define PF_KTHREAD 0x00200000
#define TASK_INTERRUPTIBLE 1
#define TASK_UNINTERRUPTIBLE 2

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, OFFCPU_MAX_STACK * sizeof(__u64));
	__uint(max_entries, OFFCPU_MAX_KEYS);
} stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);  /* tid */
	__type(value, struct offcpu_since);
	__uint(max_entries, OFFCPU_MAX_TASKS);
} since SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, struct offcpu_key);
	__type(value, __u64);
	__uint(max_entries, OFFCPU_MAX_KEYS);
} totals SEC(".maps");

int enabled = 0;
const volatile int runnable = 0;

static __always_inline int wanted(struct task_struct *t)
{
	if (BPF_CORE_READ(t, flags) & PF_KTHREAD)
		return 0;
	return followed(BPF_CORE_READ(t, tgid));
}

SEC("tp_btf/sched_switch")
int BPF_PROG(offcpu_switch, int preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	if (!enabled)
		return 0;
	__u64 now = bpf_ktime_get_ns();
	unsigned int state = prev_state & 0xff;
	if ((state == TASK_INTERRUPTIBLE || state == TASK_UNINTERRUPTIBLE || runnable) && wanted(prev)) {
		__u32 tid = BPF_CORE_READ(prev, pid);
		struct offcpu_since s = { .ts = now, .state = state };
		/* prev is current: its user stack */
		s.stack_id = bpf_get_stackid(ctx, &stacks, BPF_F_USER_STACK | BPF_F_FAST_STACK_CMP);
		bpf_map_update_elem(&since, &tid, &s, BPF_ANY);
	}
	__u32 ntid = BPF_CORE_READ(next, pid);
	struct offcpu_since *s = bpf_map_lookup_elem(&since, &ntid);
	if (!s)
		return 0;
	struct offcpu_key k = { .tid = ntid, .pid = BPF_CORE_READ(next, tgid), .stack_id = s->stack_id,
				.state = s->state };
	__u64 delta = now - s->ts;
	bpf_map_delete_elem(&since, &ntid);
	__u64 *total = bpf_map_lookup_elem(&totals, &k);
	if (total)
		__sync_fetch_and_add(total, delta);
	else
		bpf_map_update_elem(&totals, &k, &delta, BPF_NOEXIST);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";

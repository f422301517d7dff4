/* lperf's BPF programs that count only some processes (record --off-cpu, lock contention -b):
 * the processes followed (`procs`, filled by user space with the command's and -p's) and the
 * tracepoint program that adds the processes they fork. Included once per program, after
 * task_struct's CO-RE definition (pid, tgid). */
#ifndef LPERF_KERNEL_BPF_FOLLOW_BPF_H
#define LPERF_KERNEL_BPF_FOLLOW_BPF_H

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__type(key, __u32);  /* process id */
	__type(value, __u8);
	__uint(max_entries, 32768);
} procs SEC(".maps");

const volatile int filter = 0; /* count only the processes in procs */

static __always_inline int followed(__u32 pid)
{
	return !filter || bpf_map_lookup_elem(&procs, &pid) != NULL;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(follow_fork, struct task_struct *parent, struct task_struct *child)
{
	if (!filter)
		return 0;
	__u32 ppid = BPF_CORE_READ(parent, tgid), cpid = BPF_CORE_READ(child, tgid);
	__u8 one = 1;
	if (ppid != cpid && bpf_map_lookup_elem(&procs, &ppid))
		bpf_map_update_elem(&procs, &cpid, &one, BPF_ANY);
	return 0;
}

#endif

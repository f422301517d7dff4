// SPDX-License-Identifier: GPL-2.0
/* lperf's Python stack walker, a perf_event program attached to every sampling event (and a
 * tracepoint program to the tracepoint events, such as --wall's sched:sched_switch): at each
 * sample of a process user space registered (procs), it finds the sampled thread's
 * PyThreadState by walking the interpreter's thread list for the entry whose thread_id (glibc's
 * pthread_t, which on x86-64 is the thread's fs base) is the current task's, then follows its
 * frame chain with bpf_probe_read_user and sends the code objects and instruction positions to
 * user space (events): up to PYSTACK_MAX_FRAMES, built in a per-CPU scratch event and sent as
 * long as the stack is. It always returns 1: the sample itself is written as usual.
 * Three tracepoint programs keep procs in step with the processes without waiting for user space:
 * a process forked by a registered one (not a new thread) is registered with its parent's entry
 * at once (same image after fork), and user space is told (a pystack_fork event ahead of the
 * child's first sample); an exec or the whole process's exit removes the entry. */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>

#include "pystack.h"

/* Only the fields read, relocated against the running kernel's BTF (CO-RE). */
struct thread_struct {
	unsigned long fsbase;
} __attribute__((preserve_access_index));
struct signal_struct {
	struct {
		int counter;
	} live;                              /* the process's threads not yet exiting */
} __attribute__((preserve_access_index));
struct task_struct {
	int pid, tgid;
	struct signal_struct *signal;
	struct thread_struct thread;
} __attribute__((preserve_access_index));
struct linux_binprm;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct pystack_proc);
} procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 8 << 20);
} events SEC(".maps");

/* Where a sample's event is built before it is copied, as long as its stack, into events. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pystack_event);
} scratch SEC(".maps");

/* Events that found no room in the ring buffer. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} dropped SEC(".maps");

/* 8 bytes of user memory, 0 where unreadable (the helper zeroes the buffer on failure). */
static __always_inline __u64 rd64(__u64 addr)
{
	__u64 v = 0;
	bpf_probe_read_user(&v, sizeof(v), (const void *)addr);
	return v;
}

/* An event the ring buffer had no room for; returns ret. */
static __always_inline int note_dropped(int ret)
{
	__u32 k = 0;
	__u64 *d = bpf_map_lookup_elem(&dropped, &k);
	if (d)
		__sync_fetch_and_add(d, 1);
	return ret;
}

/* Does the thread state ts hold the GIL (pystack.h's gil fields)? */
static __always_inline int holds_gil(const struct pystack_proc *p, __u64 interp, __u64 ts)
{
	if (!p->gil_known)
		return 0;
	__u64 gil = p->interp_gil != 0xffffffff ? rd64(interp + p->interp_gil) : p->gil;
	if (!gil)
		return 0;
	if (p->gil_locked != 0xffffffff) {
		int locked = 0;
		bpf_probe_read_user(&locked, sizeof(locked), (const void *)(gil + p->gil_locked));
		if (locked != 1)
			return 0;
	}
	return rd64(gil + p->gil_holder) == ts;
}

/* The frame walk's state; walk_frame is bpf_loop's body, verified once for all 1,024 frames. */
struct walk {
	struct pystack_event *e;
	const struct pystack_proc *p;
	__u64 frame, lmask, aux_off, aux_mask;
	__u32 limit, n;
};

static long walk_frame(__u32 i, void *ctx)
{
	struct walk *w = ctx;
	__u64 frame = w->frame;
	if (!frame || i >= w->limit)
		return 1;
	const struct pystack_proc *p = w->p;
	/* i < limit <= PYSTACK_MAX_FRAMES, a power of two: the mask shows the verifier the bound */
	struct pystack_frame *f = &w->e->f[i & (PYSTACK_MAX_FRAMES - 1)];
	__u64 code = rd64(frame + p->frame_code);
	__u32 first = 0;
	f->code = code;
	bpf_probe_read_user(&first, 4, (const void *)(code + p->code_firstlineno));
	__u64 file = rd64(code + p->code_filename);
	f->sig = rd64(code + p->code_name) ^ ((file << 13) | (file >> 51)) ^ ((__u64)first << 48);
	__u64 lasti = rd64(frame + p->frame_lasti) & w->lmask;
	__u8 aux = 0;
	bpf_probe_read_user(&aux, 1, (const void *)(frame + w->aux_off));
	f->lasti_aux = lasti | (((__u64)aux & w->aux_mask) << 56);
	w->n = i + 1;
	w->frame = rd64(frame + p->frame_back);
	return 0;
}

/* The current thread's Python stack to user space; 1, so that the event's sample is written. */
static __always_inline int walk_current(void)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 pid = id >> 32, tid = (__u32)id;
	struct pystack_proc *p = bpf_map_lookup_elem(&procs, &pid);
	if (!p)
		return 1;
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u64 fsbase = BPF_CORE_READ(task, thread.fsbase);
	__u64 interp = rd64(p->runtime + p->runtime_interp_head);
	if (!interp || !fsbase)
		return 1;
	__u64 ts = rd64(interp + p->interp_tstate_head);
	for (int i = 0; i < PYSTACK_MAX_THREADS && ts; i++) {
		if (rd64(ts + p->tstate_thread_id) == fsbase)
			break;
		ts = rd64(ts + p->tstate_next);
	}
	if (!ts || rd64(ts + p->tstate_thread_id) != fsbase)
		return 1;
	__u64 frame = rd64(ts + p->tstate_frame);
	if (frame && p->cframe_current != 0xffffffff)
		frame = rd64(frame + p->cframe_current);
	if (!frame)
		return 1;
	__u32 zero = 0;
	struct pystack_event *e = bpf_map_lookup_elem(&scratch, &zero);
	if (!e)
		return 1;
	e->time = bpf_ktime_get_ns();
	e->pid = pid;
	e->tid = tid;
	e->flags = holds_gil(p, interp, ts) ? PYSTACK_GIL : 0;
	struct walk w = {
		.e = e,
		.p = p,
		.frame = frame,
		/* decided once, not per frame */
		.lmask = p->lasti_is_int ? 0xffffffffull : 0x00ffffffffffffffull,
		.aux_off = p->frame_aux != 0xffffffff ? p->frame_aux : p->frame_code,
		.aux_mask = p->frame_aux != 0xffffffff ? 0xff : 0,
		.limit = p->max_frames < PYSTACK_MAX_FRAMES ? p->max_frames : PYSTACK_MAX_FRAMES,
	};
	bpf_loop(PYSTACK_MAX_FRAMES, walk_frame, &w, 0);
	frame = w.frame;
	__u32 n = w.n;
	if (frame)
		e->flags |= PYSTACK_TRUNCATED;
	e->nframes = n;
	__u64 size = PYSTACK_EVENT_HEAD + (__u64)n * sizeof(struct pystack_frame);
	if (size > sizeof(*e))
		size = sizeof(*e);
	if (bpf_ringbuf_output(&events, e, size, 0))
		return note_dropped(1);
	return 1;
}

SEC("perf_event")
int pystack_sample(struct bpf_perf_event_data *ctx)
{
	return walk_current();
}

/* The same on a tracepoint event (record --wall --python's sched:sched_switch: the thread going
 * off the CPU is current), which takes only tracepoint programs; 1 keeps the sample. */
SEC("tracepoint")
int pystack_tracepoint(void *ctx)
{
	return walk_current();
}

/* A new process of a registered one walks from its first sample; user space hears of it before
 * the child's first event (the tracepoint runs before the child is woken). */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(pystack_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ppid = parent->tgid, cpid = child->tgid;
	if (ppid == cpid) /* a thread */
		return 0;
	struct pystack_proc *p = bpf_map_lookup_elem(&procs, &ppid);
	if (!p)
		return 0;
	struct pystack_proc copy = *p;
	if (bpf_map_update_elem(&procs, &cpid, &copy, BPF_ANY))
		return 0;
	struct pystack_fork *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e)
		return note_dropped(0);
	e->time = bpf_ktime_get_ns();
	e->pid = cpid;
	e->ppid = ppid;
	e->nframes = 0;
	e->flags = PYSTACK_FORK;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/* A new program: whatever it runs, the entry described the old image. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(pystack_exec, struct task_struct *p, int old_pid, struct linux_binprm *bprm)
{
	__u32 pid = p->tgid;
	bpf_map_delete_elem(&procs, &pid);
	return 0;
}

/* The last thread of a process exits: its pid may be reused. */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(pystack_exit, struct task_struct *p)
{
	if (p->signal->live.counter)
		return 0;
	__u32 pid = p->tgid;
	bpf_map_delete_elem(&procs, &pid);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";

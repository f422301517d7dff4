/* What lperf's BPF program (pystack.bpf.c) and user space (src/python/pybpf.c) share: the
 * per-process configuration user space writes and the event the program sends for each sample
 * of a Python thread. Plain fixed-size types: compiled both for the BPF target and natively. */
#ifndef LPERF_PYTHON_BPF_PYSTACK_H
#define LPERF_PYTHON_BPF_PYSTACK_H

#define PYSTACK_MAX_FRAMES 1024 /* deeper stacks are cut (flagged); a power of two */
#define PYSTACK_MAX_THREADS 64  /* thread states searched for the sampled thread */

/* One process: where its interpreter's thread list is and the offsets to walk it. Offsets of -1
 * (as unsigned: 0xffffffff) are fields the version lacks. */
struct pystack_proc {
	unsigned long long runtime;          /* _PyRuntime */
	unsigned int runtime_interp_head, interp_tstate_head, tstate_next, tstate_thread_id;
	unsigned int tstate_frame, cframe_current, frame_back, frame_code, frame_lasti;
	unsigned int frame_aux;              /* 3.11 is_entry, 3.12+ owner; else -1 */
	unsigned int lasti_is_int;           /* 2.7, 3.6-3.10: f_lasti is a 4-byte int */
	unsigned int code_name, code_filename, code_firstlineno; /* the code's signature (pyread_sig) */
	unsigned int max_frames;             /* frames kept (at most PYSTACK_MAX_FRAMES) */
	/* The GIL (python/pylayout.h): its state at gil, or (interp_gil != -1) where the
	 * interpreter's pointer at interp_gil points; gil_locked (-1: none, 2.7/3.6) an int that is
	 * 1 while held, gil_holder the holder's thread state. gil_known 0: not read. */
	unsigned long long gil;
	unsigned int interp_gil, gil_locked, gil_holder, gil_known;
};

#define PYSTACK_TRUNCATED 1
#define PYSTACK_FORK 2                       /* the event is a struct pystack_fork */
#define PYSTACK_GIL 4                        /* the sampled thread held the GIL */

/* One frame: the code object, the instruction position with the frame's entry byte (3.11
 * is_entry, 3.12+ owner) in its top 8 bits (positions are ints or user addresses, below 2^56),
 * and the code object's signature (pyread_sig). */
struct pystack_frame {
	unsigned long long code, lasti_aux, sig;
};

/* Sent with only its nframes frames (the ring buffer record is as long as the stack). */
struct pystack_event {
	unsigned long long time;             /* bpf_ktime_get_ns: CLOCK_MONOTONIC, as the samples */
	unsigned int pid, tid;
	unsigned int nframes, flags;
	struct pystack_frame f[PYSTACK_MAX_FRAMES];
};
#define PYSTACK_EVENT_HEAD 24                /* the bytes before f */

/* Process pid was forked by the registered process ppid and registered with its entry. The
 * fields up to flags are laid out as an event's. */
struct pystack_fork {
	unsigned long long time;
	unsigned int pid, ppid;
	unsigned int nframes, flags;         /* 0, PYSTACK_FORK */
};

#endif

/* Python stacks while recording (record --python / sample --python on CPython 2.7, 3.6-3.13 started
 * without -X perf): the processes to watch are given as they appear (the command, -p, each exec);
 * once one maps a CPython lperf knows, it is registered with the BPF program attached to the
 * sampling events (exact: the stack at each sample's instant), or, where BPF cannot be loaded,
 * its threads' stacks are read with process_vm_readv every millisecond (the threads that ran
 * since) and at every drained batch (approximate: joined with the nearest samples). Code
 * objects are named while the process lives; pyrec_store hands one python/pystore.h blob per
 * process to the recording. */
#ifndef LPERF_PYTHON_PYREC_H
#define LPERF_PYTHON_PYREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "record/record.h"

struct pyrec;

/* try_bpf false: the process_vm_readv reader from the start. Never fails: where BPF does not
 * load, pyrec_fallback_reason says why. */
struct pyrec *pyrec_new(bool try_bpf);
/* Attaches the BPF program to the sampling events' fds; on failure falls back (reason set). */
void pyrec_attach(struct pyrec *r, const int *fds, size_t n);
/* NULL when BPF is in use, else one line: why not. */
const char *pyrec_fallback_reason(const struct pyrec *r);
/* "BPF at each sample", the paused sampler's, CPython's own frames (every process under -X perf)
 * or "process_vm_readv every millisecond (approximate)". */
const char *pyrec_method(const struct pyrec *r);
/* A process to look at. exec: it starts a new program (looked for every 2 ms until its libpython
 * is mapped, 3 s at most); else a running process, looked at once. */
void pyrec_watch(struct pyrec *r, pid_t pid, bool exec);
/* A new process (not a thread) forked by ppid: when ppid is a Python being read, the child is
 * read with its parent's layout at once; else it is looked at once, as pyrec_watch does. */
void pyrec_fork(struct pyrec *r, pid_t pid, pid_t ppid);
/* After each batch of records: finds interpreters, drains the BPF events (or reads the stacks)
 * and names new code objects. now: CLOCK_MONOTONIC ns. */
void pyrec_poll(struct pyrec *r, uint64_t now);
/* The blob of each process with Python stacks (add must copy it). */
void pyrec_store(struct pyrec *r, void (*add)(void *arg, int32_t pid, const uint8_t *blob, size_t len), void *arg);
/* While the run goes on (lperf top): the blob of each process with the stacks read since the
 * last take (the code objects so far), which are then dropped; the finder keeps looking. */
void pyrec_take(struct pyrec *r, void (*add)(void *arg, int32_t pid, const uint8_t *blob, size_t len), void *arg);
/* The GIL requests stored with every process's stacks: PYSTORE_GIL_ONLY (record --gil: views
 * keep only samples of the thread holding the GIL), PYSTORE_GIL_MARK (record --wall: views mark
 * them), python/pystore.h. */
void pyrec_gil(struct pyrec *r, uint32_t flags);
/* What was found: Python processes, stacks, BPF events lost, and the first problem met with a
 * process (one line, or NULL). */
struct pyrec_stats {
	size_t procs;
	size_t gil_unknown;       /* of them, processes whose GIL cannot be read */
	uint64_t stacks, dropped;
	const char *problem;
	/* the threads paused at each sample (pyrec_pause): how often, how long (mean, longest), at
	 * what rate, and why a process could not be (the first; NULL) */
	uint64_t pauses, pause_mean_ns, pause_max_ns;
	unsigned pause_hz;
	const char *pause_problem;
};
void pyrec_stats(const struct pyrec *r, struct pyrec_stats *out);
void pyrec_free(struct pyrec *r);

/* The usual start: pyrec_new(true), attached to the events' fds, watching the command (about to
 * exec) or the attached process (and its threads' process), first look taken. depth: Python
 * frames kept per stack, the innermost (0: PYREC_DEPTH_MAX, also the most); deeper stacks are
 * stored cut and say so. */
#define PYREC_DEPTH_MAX 1024
struct pyrec *pyrec_start(const int *fds, size_t nfds, pid_t pid, bool command, const pid_t *tids, size_t ntids,
			  unsigned depth);
/* The one line to say when BPF could not be used, or NULL. The caller frees it. */
char *pyrec_fallback_line(const struct pyrec *r);

/* Without BPF, unless nonblocking (--nonblocking): exact stacks by pausing the threads at each
 * sample (python/pysampler.h), writing samples of the first of the nev events (attrs, as opened;
 * id: a sample id of it) at their rate, lowered to PYSAMPLER_HZ, or to PYSAMPLER_HZ_MAX when
 * hz_given (the user gave it: -F or -c). Only for one cpu-clock or task-clock event with a DWARF call graph;
 * otherwise the one line to say why not (the caller frees it), and the stacks are read without
 * pausing. Call after pyrec_start, before pyrec_fallback_line. */
char *pyrec_pause(struct pyrec *r, const struct perf_event_attr *attrs, size_t nev, uint64_t id, bool nonblocking,
		  bool hz_given);
/* The samples of paused threads written since the last flush, to cb (each tick of the run's
 * loop and once before the recording is finished). */
int pyrec_flush(struct pyrec *r, record_cb cb, void *arg);
/* Whether h is a kernel sample of a process whose threads are paused (the sampler's replace it:
 * drop it). */
bool pyrec_replaced(struct pyrec *r, const struct evsel_set *s, const struct perf_event_header *h);
/* Of a PERF_RECORD_LOST h (the kernel's samples a ring buffer had no room for), how many were of
 * the paused processes, whose kernel samples are replaced anyway: all of them when the buffer's
 * sample before the loss and the one its trailer names (the task whose record came next, at its
 * time) are both replaced ones (every sample in between was taken on that CPU while that process
 * ran, or ended there: a third process would have had to start and end within the loss); else
 * 0. Fed every record of the buffers in order (pyrec_replaced notes each sample's CPU). */
uint64_t pyrec_lost_replaced(struct pyrec *r, const struct evsel_set *s, const struct perf_event_header *h);

#endif

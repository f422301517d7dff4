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

struct pyrec;

/* try_bpf false: the process_vm_readv reader from the start. Never fails: where BPF does not
 * load, pyrec_fallback_reason says why. */
struct pyrec *pyrec_new(bool try_bpf);
/* Attaches the BPF program to the sampling events' fds; on failure falls back (reason set). */
void pyrec_attach(struct pyrec *r, const int *fds, size_t n);
/* NULL when BPF is in use, else one line: why not. */
const char *pyrec_fallback_reason(const struct pyrec *r);
/* "BPF at each sample" or "process_vm_readv every millisecond (approximate)". */
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

#endif

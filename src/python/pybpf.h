/* lperf's BPF Python stack walker (bpf/pystack.bpf.c), loaded through its libbpf skeleton and
 * attached to the sampling events' fds: at every sample of a registered process the kernel
 * walks the sampled thread's Python frames and queues them; pybpf_drain hands them over. A
 * process a registered one forks is registered by the kernel at the fork (with the parent's
 * configuration) and said in the queue before its first stack; an exec or exit unregisters. */
#ifndef LPERF_PYTHON_PYBPF_H
#define LPERF_PYTHON_PYBPF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "python/bpf/pystack.h"
#include "python/pylayout.h"

struct pybpf;

/* Loads and verifies the program. NULL with err_set() saying why in one line (no privilege,
 * no BTF, a kernel without BPF ring buffers, lperf built without libbpf). */
struct pybpf *pybpf_open(void);
/* Attaches the program to each perf event fd (fds < 0, and events that take no perf_event
 * program, such as tracepoints, are skipped). -1 with err_set() when none took it; the ones done
 * stay attached until pybpf_close. */
int pybpf_attach(struct pybpf *b, const int *fds, size_t n);
/* Starts (or restarts) walking the Python stacks of p's process, depth frames at most (0 or
 * more than PYSTACK_MAX_FRAMES: PYSTACK_MAX_FRAMES). */
int pybpf_add_proc(struct pybpf *b, const struct py_proc *p, unsigned depth);
void pybpf_remove_proc(struct pybpf *b, int pid);
/* Whether forks, execs and exits are followed in the kernel (false on a kernel whose BTF lacks
 * the scheduler's tracepoints: then user space registers forked children itself). */
bool pybpf_follows_forks(const struct pybpf *b);
/* Calls cb for every queued stack (e->f holds e->nframes frames, the record no more) and fork_cb for every fork of a registered process, in the
 * order they happened; returns how many, or -1. */
typedef void (*pybpf_cb)(const struct pystack_event *e, void *arg);
typedef void (*pybpf_fork_cb)(pid_t pid, pid_t ppid, void *arg);
long pybpf_drain(struct pybpf *b, pybpf_cb cb, pybpf_fork_cb fork_cb, void *arg);
/* Events lost because the BPF ring buffer was full. */
uint64_t pybpf_dropped(struct pybpf *b);
void pybpf_close(struct pybpf *b);

#endif

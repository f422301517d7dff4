/* Exact Python stacks without BPF (docs/python.md, "Without BPF"): a sampler that, at each tick,
 * pauses the threads of a process that ran since the last tick (PTRACE_SEIZE once per thread,
 * PTRACE_INTERRUPT per tick, PTRACE_CONT after, as py-spy pauses), and while they are stopped
 * reads, for each, its Python stack (the caller's hook, stored with the tick's time), its user
 * registers (PTRACE_GETREGSET) and a copy of its user stack (process_vm_readv), which become a
 * sample of the recording's own event (python/pysample.h): the native and the Python part of a
 * sample are of one instant. Its period is the thread's CPU time since its last sample (its
 * schedstat), so report's shares are shares of CPU time, as the kernel's cpu-clock samples are.
 * The kernel's samples of a process sampled here are to be dropped (pysampler_replaces), so
 * that each instant is counted once.
 *
 * Contract:
 * - pysampler_tick, pysampler_sweep and pysampler_release_all are called from one thread only,
 *   the tracer (ptrace ties a tracee to the thread that seized it). When that thread ends, the
 *   kernel detaches every tracee (also when lperf is killed): no thread is ever left stopped.
 *   Between ticks no thread is stopped by the sampler; a signal that reaches a traced thread
 *   stops it until the next tick, which delivers it.
 * - pysampler_drain, pysampler_replaces and pysampler_stats may be called from any thread.
 * - A traced process that is lperf's own child (a started command) is reaped by lperf's wait,
 *   which must not consume its stop notifications (target/target.c peeks with WNOWAIT); its
 *   leader's exit is left to that wait here, every other traced thread is reaped here.
 * - Library code: -1 after err_set, prints nothing. */
#ifndef LPERF_PYTHON_PYSAMPLER_H
#define LPERF_PYTHON_PYSAMPLER_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "record/record.h"

/* The default and highest rate of the pauses: each costs the process 0.1-0.5 ms (measured in
 * docs/python.md), so a higher rate slows it down more than the shares gain. */
#define PYSAMPLER_HZ 250

struct pysampler;

/* A sampler writing samples of attr's event with id (0 with one event); hz: the recording's
 * rate, lowered to PYSAMPLER_HZ. NULL with err_set when attr's samples cannot be written here
 * (not a DWARF call graph: no REGS_USER and STACK_USER; fields such a sample cannot have; not
 * x86-64). */
struct pysampler *pysampler_new(const struct perf_event_attr *attr, uint64_t id, unsigned hz);
void pysampler_free(struct pysampler *s);
/* ns to the next tick (twice the rate, jittered): a thread is sampled at the first tick after
 * it ran its due CPU time since its last sample, a quarter of the interval plus an exponential
 * time of mean three quarters, so that successive samples fall at nearly independent places of
 * a loop, in the thread's CPU time as cpu-clock's do. */
uint64_t pysampler_next_wait(struct pysampler *s);
/* The rate of the ticks. */
unsigned pysampler_hz(const struct pysampler *s);

/* The Python stacks of the n threads tids of pid, stopped now, stored with time. */
typedef void (*pysampler_py_fn)(void *arg, pid_t pid, const int32_t *tids, size_t n, uint64_t time);
/* One tick of pid (seizing its threads on the first and any new thread after). -1 with err_set
 * when its threads cannot be paused (another user's, already traced, Yama): pid is released
 * (nothing stays traced) and its kernel samples are kept from then on. */
int pysampler_tick(struct pysampler *s, pid_t pid, pysampler_py_fn fn, void *arg);
/* Releases (detaches) the processes not ticked since the last sweep. */
void pysampler_sweep(struct pysampler *s);
void pysampler_release_all(struct pysampler *s);

/* Hands the samples written since the last drain to cb (in time order per thread). The first
 * non-zero return of cb stops and is returned. */
int pysampler_drain(struct pysampler *s, record_cb cb, void *arg);
/* Whether the kernel's sample of pid at time is replaced by the sampler's (pid was being
 * sampled here then). */
bool pysampler_replaces(struct pysampler *s, uint32_t pid, uint64_t time);

struct pysampler_stats {
	uint64_t ticks, samples;
	uint64_t pause_ns, pause_max_ns;   /* total and longest time a process was stopped */
	unsigned hz;
};
void pysampler_stats(struct pysampler *s, struct pysampler_stats *out);

#endif

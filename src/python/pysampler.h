/* Exact Python stacks without BPF (docs/python.md, "Without BPF"): a sampler that stops each
 * thread of a process at its own CPU-time alarm (python/pyclock.h: PTRACE_SEIZE once per thread
 * with PTRACE_O_TRACECLONE, so that the threads it starts are traced from their start; the
 * alarm's signal stops the thread at that instant, the tracer takes the stop and suppresses the
 * signal; a thread without an alarm is stopped by PTRACE_INTERRUPT at a tick, as py-spy pauses),
 * and while it is stopped reads its Python stack (the caller's hook, stored with the sample's
 * time), its user registers (PTRACE_GETREGSET) and a copy of its user stack (process_vm_readv),
 * which become a sample of the recording's own event (python/pysample.h): the native and the
 * Python part of a sample are of one instant. Its period is the thread's CPU time since its last
 * sample (its schedstat), so report's shares are shares of CPU time, as the kernel's cpu-clock
 * samples are.
 * The kernel's samples of a process sampled here are to be dropped (pysampler_replaces), so
 * that each instant is counted once.
 *
 * Contract:
 * - pysampler_tick, pysampler_events, pysampler_block, pysampler_sweep and
 *   pysampler_release_all are called from one thread only, the tracer (ptrace ties a tracee to
 *   the thread that seized it; it waits for its tracees' stops with __WNOTHREAD). When that
 *   thread ends, the kernel detaches every tracee (also when lperf is killed): no thread is ever
 *   left stopped. A thread is held only while it is read; a signal that reaches a traced thread
 *   stops it until pysampler_events, which delivers it.
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

/* The default rate of the pauses, and the highest one a user may ask for (-F): each costs the
 * process 0.05-0.2 ms (measured in docs/python.md), so a higher rate slows it down more than the
 * shares gain; the default keeps the cost at a few percent. */
#define PYSAMPLER_HZ 250
#define PYSAMPLER_HZ_MAX 1000

struct pysampler;

/* A sampler writing samples of attr's event with id (0 with one event) at its rate (sample_freq,
 * or a sample_period in ns), lowered to PYSAMPLER_HZ, or to PYSAMPLER_HZ_MAX when given (the user
 * asked for it). NULL with err_set when attr's samples cannot be written here
 * (not a DWARF call graph: no REGS_USER and STACK_USER; fields such a sample cannot have; not
 * x86-64). */
struct pysampler *pysampler_new(const struct perf_event_attr *attr, uint64_t id, bool given);
void pysampler_free(struct pysampler *s);
/* ns to the next tick (twice the rate, jittered, while a thread has no alarm or READS: the
 * ticks also read a process that is not paused, as -X perf's; ten times longer else): a thread without an alarm is sampled at the first tick after it ran its due CPU time
 * since its last sample, the alarm's period: a quarter of the interval plus an exponential time
 * of mean three quarters, so that successive samples fall at nearly independent places of a
 * loop, in the thread's CPU time as cpu-clock's do. The ticks also seize new processes. */
uint64_t pysampler_next_wait(struct pysampler *s, bool reads);
/* The rate of the ticks; *asked (unless NULL): the rate given, when it was lowered to
 * PYSAMPLER_HZ_MAX, else 0. */
unsigned pysampler_hz(const struct pysampler *s, unsigned *asked);

/* The Python stacks of the n threads tids of pid, stopped now, stored with time. */
typedef void (*pysampler_py_fn)(void *arg, pid_t pid, const int32_t *tids, size_t n, uint64_t time);
/* One tick of pid (seizing its threads on the first; the stops reported taken). -1 with err_set
 * when its threads cannot be paused (another user's, already traced, Yama): pid is released
 * (nothing stays traced) and its kernel samples are kept from then on. */
int pysampler_tick(struct pysampler *s, pid_t pid, pysampler_py_fn fn, void *arg);
/* Between ticks: the stops of the threads traced (their CPU-time alarms, clones, signals, exits)
 * taken, the threads at an alarm sampled (fn as for a tick). */
void pysampler_events(struct pysampler *s, pysampler_py_fn fn, void *arg);
/* Waits ns at most, until a thread traced has stopped (or ended); whether one has (then
 * pysampler_events). From the tracer thread. */
bool pysampler_block(struct pysampler *s, uint64_t ns);
/* Releases (detaches) the processes not ticked since the last sweep. */
void pysampler_sweep(struct pysampler *s);
void pysampler_release_all(struct pysampler *s);

/* Hands the samples written since the last drain to cb (in time order per thread). The first
 * non-zero return of cb stops and is returned. */
int pysampler_drain(struct pysampler *s, record_cb cb, void *arg);
/* Whether the kernel's sample of pid at time is replaced by the sampler's (pid was being
 * sampled here then). */
bool pysampler_replaces(struct pysampler *s, uint32_t pid, uint64_t time);
/* The same for a kernel sample read from CPU cpu's ring buffer, noted (in the buffer's order)
 * for pysampler_lost. */
bool pysampler_replaces_on(struct pysampler *s, uint32_t pid, uint64_t time, uint32_t cpu);
/* Whether the samples a loss of CPU cpu's ring buffer dropped (its PERF_RECORD_LOST naming pid
 * at time: the task whose record came next) were of the processes sampled here: the buffer's
 * sample before it (pysampler_replaces_on) and pid at time are both replaced ones. */
bool pysampler_lost(struct pysampler *s, uint32_t pid, uint64_t time, uint32_t cpu);

struct pysampler_stats {
	uint64_t ticks, samples;
	uint64_t pause_ns, pause_max_ns;   /* total and longest time a process was stopped */
	unsigned hz;
};
void pysampler_stats(struct pysampler *s, struct pysampler_stats *out);

#endif

/* record --off-cpu (offcpu.c): lperf's BPF program on the scheduler's context switches sums,
 * per thread, user stack and sleeping state, the time threads spend off a CPU; at the end the
 * totals become samples of the "offcpu-time" event (a bpf-output software event, as perf 6.1
 * names it), one per total with the time as its period and the stack as its call chain, so
 * perf report and lperf report weigh functions by the time spent blocked under them. */
#ifndef LPERF_KERNEL_OFFCPU_H
#define LPERF_KERNEL_OFFCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "record/record.h"

#define OFFCPU_EVENT_NAME "offcpu-time"
/* The sample fields an off-CPU sample carries (perf's set, without the cgroup). */
#define OFFCPU_SAMPLE_TYPES (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			     PERF_SAMPLE_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN)

struct offcpu_prof;

/* Loads and attaches the program (not counting yet). filter: only the processes given with
 * offcpu_follow (and those they fork) count; else every thread. runnable (record --wall): the
 * time a thread was preempted counts too, so that off-CPU and on-CPU time add up to its wall
 * time. NULL after err_set when BPF is not available (not built in, no BTF, not allowed). */
struct offcpu_prof *offcpu_open(bool filter, bool runnable);
/* Adds a process to the filter. -1 after err_set. */
int offcpu_follow(struct offcpu_prof *p, pid_t pid);
/* Starts and stops counting. */
void offcpu_enable(struct offcpu_prof *p, bool on);
/* Stops counting and hands one PERF_RECORD_SAMPLE per total to sink, in the layout of attr
 * (its sample_type within OFFCPU_SAMPLE_TYPES) with sample id id; times after every recorded
 * event's, as perf puts them. *n: the samples written. -1 after err_set when sink failed. */
int offcpu_write(struct offcpu_prof *p, const struct perf_event_attr *attr, uint64_t id, record_cb sink,
		 void *arg, uint64_t *n);
void offcpu_close(struct offcpu_prof *p);

#endif

/* lperf lock contention -b (lockcon.c): the lock:contention_begin/end tracepoints counted in the
 * kernel by lperf's BPF program, per kernel stack, without a recording (perf 6.1's --use-bpf). */
#ifndef LPERF_KERNEL_LOCKCON_H
#define LPERF_KERNEL_LOCKCON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct lockcon_prof;

/* The waits of one kernel stack, ns. */
struct lockcon_totals {
	uint64_t total, max, min, count;
	unsigned flags;          /* contention_begin's flags */
};

/* Loads and attaches the program (not counting yet); filter: only the processes given with
 * lockcon_follow (and those they fork). NULL after err_set when BPF is not available. */
struct lockcon_prof *lockcon_open(bool filter);
int lockcon_follow(struct lockcon_prof *p, pid_t pid);
void lockcon_enable(struct lockcon_prof *p, bool on);
/* Stops counting and hands each stack's totals to fn (ips: the stack, innermost first); the
 * waits the maps could not hold in *lost. */
void lockcon_read(struct lockcon_prof *p, void (*fn)(void *arg, const uint64_t *ips, size_t n,
						    const struct lockcon_totals *t), void *arg, uint64_t *lost);
void lockcon_close(struct lockcon_prof *p);

#endif

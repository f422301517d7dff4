/* lperf lock contention -b (lockcon.c): the lock:contention_begin/end tracepoints counted in the
 * kernel by lperf's BPF program, per kernel stack, without a recording (perf 6.1's --use-bpf). */
#ifndef LPERF_KERNEL_LOCKCON_H
#define LPERF_KERNEL_LOCKCON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct lockcon_prof;

/* The waits of one kernel stack (or thread), ns. */
struct lockcon_totals {
	uint64_t total, max, min, count;
	unsigned flags;          /* contention_begin's flags */
};

/* One row of lockcon_read: a kernel stack's waits, or per thread a thread's. */
struct lockcon_row {
	const uint64_t *ips;     /* the stack, innermost first (per thread: none) */
	size_t n;
	pid_t tid;               /* per thread: the thread; else 0 */
	const char *comm;        /* per thread: its name at its latest wait; else "" */
	struct lockcon_totals t;
};

/* What to count: follow (only the processes given with lockcon_follow and those they fork),
 * per_thread (rows per thread, not per stack), cpus (only waits begun on these CPUs; n 0: all),
 * tids (only these threads; n 0: all). */
struct lockcon_opts {
	bool follow, per_thread;
	const int *cpus;
	size_t ncpus;
	const int *tids;
	size_t ntids;
};

/* Loads and attaches the program (not counting yet). NULL after err_set when BPF is not
 * available or a filter does not fit. */
struct lockcon_prof *lockcon_open(const struct lockcon_opts *o);
int lockcon_follow(struct lockcon_prof *p, pid_t pid);
void lockcon_enable(struct lockcon_prof *p, bool on);
/* Stops counting and hands each row to fn; the waits the maps could not hold in *lost. */
void lockcon_read(struct lockcon_prof *p, void (*fn)(void *arg, const struct lockcon_row *r), void *arg,
		  uint64_t *lost);
void lockcon_close(struct lockcon_prof *p);

#endif

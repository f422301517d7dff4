/* The threads the paused sampler traces (python/pysampler.h): each thread's state between
 * samples, its /proc files and CPU-time alarm (python/pyclock.h), and a table of every thread
 * traced sorted by tid (a stop reported by waitid is found by binary search, not by a pass over
 * every thread of every process). */
#ifndef LPERF_PYTHON_PYTRACE_H
#define LPERF_PYTHON_PYTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct pytrace_proc;

struct pytrace_thread {
	pid_t tid;
	struct pytrace_proc *p;
	int schedstat_fd, stat_fd;
	int clock_fd;             /* its CPU-time alarm (python/pyclock.h), or -1: ticks sample it */
	uint64_t cpu_ns;          /* its CPU time at its last sample (or when it was seized) */
	uint64_t due_ns;          /* the CPU time it runs between that and its next sample */
	uint64_t tick_cpu;        /* its CPU time at the last tick that looked at it */
	bool stopped;             /* stopped now (its stop taken by a tick or an event) */
	int sig;                  /* a signal its stop caught, given back when it goes on */
	bool group_stop;          /* stopped by SIGSTOP & co: kept stopped (PTRACE_LISTEN) */
	bool sample;              /* stopped at a sample's instant: sampled */
};

struct pytrace_proc {
	pid_t pid;
	bool own_child;           /* lperf's child: its leader is reaped by lperf's wait */
	bool ticked;
	bool traced;              /* some of its threads were seized: a failure later is its end */
	struct pytrace_thread **t;
	size_t n, cap;
};

struct pytrace_table {
	struct pytrace_thread **v;   /* by tid */
	size_t n, cap;
	bool user_only;              /* the alarms count user time only (perf_event_paranoid 2) */
};

/* tid's thread, or NULL. */
struct pytrace_thread *pytrace_find(const struct pytrace_table *tab, pid_t tid);
/* Takes on tid, a thread of p: seized here (PTRACE_SEIZE with PTRACE_O_TRACECLONE: its clones
 * are traced from their start) when seize, else traced already (a clone); its first sample
 * after due ns of its CPU time. NULL (errno) when it cannot be seized. */
struct pytrace_thread *pytrace_add(struct pytrace_table *tab, struct pytrace_proc *p, pid_t tid, bool seize,
				   uint64_t due);
/* Forgets a thread (gone or detached): out of the table and its process, its files closed. */
void pytrace_forget(struct pytrace_table *tab, struct pytrace_thread *t);
/* Closes a thread's files and alarm (it stays in the table). */
void pytrace_close(struct pytrace_thread *t);

/* The thread's CPU time (ns, its schedstat), or UINT64_MAX when it cannot be read (gone). */
uint64_t pytrace_cpu(const struct pytrace_thread *t);
/* Its state (/proc's stat, field 3: 'R' running or runnable, '?' unreadable) and the CPU it ran
 * on last (field 39). */
char pytrace_state(const struct pytrace_thread *t, uint32_t *cpu);

#endif

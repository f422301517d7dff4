/* The run engine shared by stat, record and sample: with the target started (held before exec)
 * or attached and the events armed, it lets the command go, then waits until the command ends,
 * the timeout passes, a stop signal arrives or the attached processes are gone, calling the
 * caller's hooks on the way (read the ring buffers, print an interval row, show progress).
 *
 * Signals (SIGINT, SIGTERM, SIGHUP) only set a flag here. Without a command, a signal or the
 * timeout ends the run. With a command the run goes on until the command ends, and lperf sees
 * that it does, as perf does: SIGTERM and SIGHUP are passed on to it; SIGINT, which a Ctrl-C on
 * the terminal also delivered to the command, gives it 0.25 s to end before SIGTERM (SIGINT sent
 * to lperf alone, by a script or a supervisor, so ends the command too); the timeout sends
 * SIGTERM; a command still alive 2 s after SIGTERM (or the passed-on signal) gets SIGKILL. A
 * second signal stops the waiting at once (the command gets SIGKILL). */
#ifndef LPERF_TARGET_RUN_LOOP_H
#define LPERF_TARGET_RUN_LOOP_H

#include <stdbool.h>
#include <sys/resource.h>

#include "target/target.h"

struct run_loop {
	struct target *target;   /* a started command (target->started), attached processes, or none */
	bool attached;           /* end when target->pid is gone (-p / -t) */
	double timeout_s;        /* 0: none */
	double tick_s;           /* tick every tick_s seconds from the start; 0: no tick */
	int max_wait_ms;         /* the longest single wait (how often the flags are looked at) */
	/* Waits up to ms for work and does it (sampling: reads the ring buffers). NULL: the engine
	 * sleeps, or waits for the command. Returns < 0 to stop the run with an error. */
	int (*wait)(int ms, void *arg);
	/* At each tick; returns 1 to end the run as a timeout would, < 0 to stop with an error. */
	int (*tick)(double now, void *arg);
	void *arg;
	/* Filled by run_loop_run: */
	double start, end;       /* CLOCK_MONOTONIC seconds */
	int status;              /* the command's exit status, as a shell reports it */
	struct rusage ru;        /* the command's resource use */
	int stop_signal;         /* the signal that stopped the run, 0 if none */
};

/* Installs the stop-signal handlers (no SA_RESTART, so waits end early). Call before arming. */
void run_signals_install(void);
/* The signal received since run_signals_install, 0 if none. */
int run_stop_signal(void);
/* Seconds on CLOCK_MONOTONIC. */
double run_now(void);

/* Starts the clock and lets a started command exec: -1 with err_set when it could not (then
 * nothing ran). */
int run_loop_start(struct run_loop *rl);
/* Loops as described above until the run is over. Returns 0, or -1 when a hook failed or
 * waiting for the command failed. */
int run_loop_run(struct run_loop *rl);

#endif

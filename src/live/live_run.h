/* The live sampling run shared by record and sample: start the command (or attach), open the
 * events, describe what already exists, then read the ring buffers until the command ends,
 * --timeout, a signal, or the attached processes exit (the run engine, target/run.h). The
 * commands differ only in where the records go (a perf.data writer, or the session) and what
 * they show meanwhile. */
#ifndef LPERF_LIVE_LIVE_RUN_H
#define LPERF_LIVE_LIVE_RUN_H

#include <stdbool.h>

#include "events/evlist.h"
#include "live/live.h"
#include "target/run_loop.h"
#include "target/target.h"
#include "util/cpuset.h"

/* What to sample: a command (held before exec, pinned to pin when that is non-NULL and
 * non-empty), else the processes of pid_list or the threads of tid_list, else the CPUs of the
 * live options. cpu_wide with a command (-a, -C): everything on the CPUs while the command runs,
 * as perf does; the command only bounds the time. */
struct live_run_target {
	char **cmd;
	const char *pid_list, *tid_list;
	const struct cpuset *pin;
	bool cpu_wide;
	bool stdout_to_stderr;  /* the command writes its standard output to lperf's stderr */
};

struct live_run {
	struct target t;
	struct live live;
	struct evsel_set evsels;  /* the events as opened, for parsing what they deliver */
	bool command;             /* a command was started */
	bool cpu_wide;            /* the events count CPUs, not the command */
	bool attached;            /* -p / -t */
	int delay_ms;             /* a command's events are enabled this long after it starts
				   * (live_opts.delay_ms; -1: never) */
	struct run_loop loop;
};

/* Starts the command or attaches, and opens the events of l with lo (whose pids it fills in).
 * -1 with err_set(). */
int live_run_open(struct live_run *r, const struct live_run_target *tg, struct evlist *l, struct live_opts *lo);
/* Records for what exists before sampling starts: the kernel, and the attached processes or,
 * when sampling CPUs without a command, every process. */
void live_run_synthesize(struct live_run *r, record_cb sink, void *arg);
/* The same for a recording that starts mid-run (record --switch-output's next file): the kernel
 * and what is sampled now (the started or attached process and the processes descended from it). */
void live_run_synthesize_again(struct live_run *r, record_cb sink, void *arg);
/* After live_run_start: a started command whose events waited (-D) missed its own exec and
 * mappings (the side-band comes with the events, disabled meanwhile): its processes as they are
 * now. Nothing otherwise. */
void live_run_synthesize_delayed(struct live_run *r, record_cb sink, void *arg);
/* Everything the buffers hold now through sink, then a finished round (a rotation closes the
 * file with the records made before it, the last ones a signal's wake-up left unread). -1
 * when sink fails. */
int live_run_drain(struct live_run *r, record_cb sink, void *arg);
/* Enables the events (or lets the command exec, which enables them): -1 with err_set when the
 * command could not be started (nothing ran). */
int live_run_start(struct live_run *r);
/* Runs to the end. Every record goes to sink, a FINISHED_ROUND after each non-empty batch, and
 * tick(n, now, arg) after each read (progress). Returns 0, or -1 when reading or sink failed
 * (what came before was delivered). *status is the command's exit status. */
int live_run_loop(struct live_run *r, double timeout_s, record_cb sink, void *arg,
		  void (*tick)(long n, double now, void *arg), void *tick_arg, int *status);
void live_run_close(struct live_run *r);

#endif

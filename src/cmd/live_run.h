/* The live sampling run shared by record and sample: start the command (or attach), open the
 * events, describe what already exists, then read the ring buffers until the command ends,
 * --timeout, a signal, or the attached processes exit. The commands differ only in where the
 * records go (a perf.data writer, or the session) and what they show meanwhile. */
#ifndef LPERF_CMD_LIVE_RUN_H
#define LPERF_CMD_LIVE_RUN_H

#include <stdbool.h>

#include "cmd/sample_opts.h"
#include "events/evlist.h"
#include "stream/live.h"
#include "target/target.h"

struct live_run {
	struct target t;
	struct live live;
	struct evsel_set evsels;  /* the events as opened, for parsing what they deliver */
	bool command;             /* a command was started */
};

/* Starts the command held before exec (pinned to the sampled CPUs when pin), or attaches to -p
 * / -t, and opens the events. -1 with err_set(). */
int live_run_open(struct live_run *r, const struct sample_opts *o, char **cmd, struct evlist *l, bool pin);
/* Records for what exists before sampling starts: the kernel, and the attached processes or,
 * when sampling CPUs without a command, every process. */
void live_run_synthesize(struct live_run *r, const struct sample_opts *o, record_cb sink, void *arg);
/* Runs to the end. Every record goes to sink, a FINISHED_ROUND after each non-empty batch, and
 * tick(n, now, arg) after each read (progress). Returns 0; -1 when reading or sink failed (what
 * came before was delivered); -2 when the command could not be started (nothing was). *status
 * is the command's exit status. */
int live_run_loop(struct live_run *r, const struct sample_opts *o, record_cb sink, void *arg,
		  void (*tick)(long n, double now, void *arg), void *tick_arg, int *status);
void live_run_close(struct live_run *r);
/* The signal that stopped the last run (SIGINT for Ctrl-C), or 0. */
int live_run_signal(void);
/* Seconds on CLOCK_MONOTONIC. */
double live_run_now(void);

#endif

#include "cmd/live_run.h"

#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stream/record.h"
#include "util/error.h"
#include "util/xalloc.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

int live_run_signal(void)
{
	return stop_signal;
}

double live_run_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int live_run_open(struct live_run *r, const struct sample_opts *o, char **cmd, struct evlist *l, bool pin)
{
	memset(r, 0, sizeof(*r));
	r->t = (struct target)TARGET_INIT;
	struct live_opts lo;
	sample_live_opts(o, &lo);
	if (cmd) {
		if (target_start_command(&r->t, cmd, pin ? &o->cpus : NULL) < 0)
			return -1;
		lo.pids = &r->t.pid;
		lo.npids = 1;
		lo.enable_on_exec = true;
		r->command = true;
	} else if (o->pid_list || o->tid_list) {
		if ((o->pid_list ? target_attach_pids(&r->t, o->pid_list) : target_attach_tids(&r->t, o->tid_list)) < 0)
			return -1;
		lo.pids = r->t.tids;
		lo.npids = r->t.ntids;
	}
	if (live_open(&r->live, l, &lo) < 0) {
		target_free(&r->t);
		return -1;
	}
	r->evsels.n = l->n;
	r->evsels.v = xcalloc(l->n ? l->n : 1, sizeof(struct evsel));
	for (size_t e = 0; e < l->n; e++) {
		r->evsels.v[e].attr = r->live.attrs[e];
		r->evsels.v[e].name = l->ev[e].name;
		r->evsels.v[e].ids = r->live.ids[e];
		r->evsels.v[e].nids = r->live.nids[e];
		r->evsels.v[e].idx = (int)e;
	}
	return 0;
}

void live_run_synthesize(struct live_run *r, const struct sample_opts *o, record_cb sink, void *arg)
{
	const struct perf_event_attr *a0 = &r->live.attrs[0];
	synth_kernel(a0, sink, arg);
	if (o->pid_list || o->tid_list)
		synth_process(a0, r->t.pid, sink, arg);
	else if (!r->command)
		synth_all_processes(a0, sink, arg);
}

int live_run_loop(struct live_run *r, const struct sample_opts *o, record_cb sink, void *arg,
		  void (*tick)(long n, double now, void *arg), void *tick_arg, int *status)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: waits end early and see the flag */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	*status = 0;
	if (!r->command)
		live_enable(&r->live);
	if (r->command && target_go(&r->t) < 0)
		return -2;
	double start = live_run_now(), deadline = o->timeout_s > 0 ? start + o->timeout_s : INFINITY;
	bool ended = false, signalled = false, attached = o->pid_list || o->tid_list;
	int rc = 0;
	const struct perf_event_header round = { REC_FINISHED_ROUND, 0, sizeof(round) };
	while (!ended) {
		long n = live_read(&r->live, 100, sink, arg);
		if (n < 0 || (n > 0 && sink(&round, arg) < 0)) {
			rc = -1;
			break;
		}
		double now = live_run_now();
		if (tick)
			tick(n, now, tick_arg);
		if (r->command) {
			struct rusage ru;
			if (target_wait(&r->t, 0, status, &ru) == 0)
				ended = true;
			if (!ended && ((stop_signal && !signalled) || now >= deadline)) {
				/* Ctrl-C reached the command through the terminal; anything else we pass on. */
				if (stop_signal != SIGINT)
					kill(r->t.pid, stop_signal ? stop_signal : SIGTERM);
				signalled = true;
				deadline = INFINITY;
			}
		} else if (stop_signal || now >= deadline || (attached && !target_alive(&r->t))) {
			ended = true;
		}
	}
	live_disable(&r->live);
	/* Whatever is still in the buffers belongs to the run. */
	if (rc == 0 && (live_read(&r->live, 0, sink, arg) < 0 || sink(&round, arg) < 0))
		rc = -1;
	return rc;
}

void live_run_close(struct live_run *r)
{
	free(r->evsels.v);
	live_close(&r->live);
	target_free(&r->t);
	memset(r, 0, sizeof(*r));
}

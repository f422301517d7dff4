#include "target/run_loop.h"

#include <math.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "util/error.h"

static volatile sig_atomic_t stop_signal, nsignals;

static void on_signal(int sig)
{
	if (!stop_signal)
		stop_signal = sig;
	nsignals++;
}

/* How long a started command may take to end after lperf was told to stop: a Ctrl-C on the
 * terminal reached it too, so it gets a moment before SIGTERM; anything that outlives SIGTERM
 * (or the forwarded signal) by KILL_GRACE_S gets SIGKILL. */
#define INT_GRACE_S 0.25
#define KILL_GRACE_S 2.0

void run_signals_install(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: waits end early and see the flag */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

int run_stop_signal(void)
{
	return stop_signal;
}

double run_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One wait of at most ms: the caller's, then (with a command) a look at whether it ended. Returns
 * 1 when the run is over, 0 to go on, -1 on error. */
static int wait_once(struct run_loop *rl, int ms)
{
	struct target *t = rl->target;
	bool command = t && t->started;
	if (rl->wait) {
		if (rl->wait(ms, rl->arg) < 0)
			return -1;
		ms = 0;
	}
	if (command) {
		int w = target_wait(t, ms, &rl->status, &rl->ru);
		return w < 0 ? -1 : w == 0;
	}
	if (ms > 0) {
		struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
		nanosleep(&ts, NULL);
	}
	return rl->attached && !target_alive(t);
}

int run_loop_start(struct run_loop *rl)
{
	struct target *t = rl->target;
	rl->status = 0;
	rl->stop_signal = 0;
	memset(&rl->ru, 0, sizeof(rl->ru));
	rl->start = run_now();
	return t && t->started ? target_go(t) : 0;
}

/* The command's way out once lperf was told to stop: the stages after the first signal (or the
 * timeout). Returns the time of the next step. */
static double escalate(struct target *t, int *stage, double now)
{
	switch ((*stage)++) {
	case 0:
		kill(t->pid, SIGTERM);
		return now + KILL_GRACE_S;
	case 1:
		kill(t->pid, SIGKILL);
		return INFINITY;
	default:
		return INFINITY;
	}
}

int run_loop_run(struct run_loop *rl)
{
	struct target *t = rl->target;
	bool command = t && t->started;
	double deadline = rl->timeout_s > 0 ? rl->start + rl->timeout_s : INFINITY;
	double next_tick = rl->tick_s > 0 ? rl->start + rl->tick_s : INFINITY;
	double next_step = INFINITY;  /* of the command's way out, once stopping */
	int stage = 0;
	bool stopping = false;
	int rc = 0;
	for (;;) {
		double now = run_now();
		int sig = stop_signal;
		if (sig && !command) {
			rl->stop_signal = sig;
			break;
		}
		if (sig && nsignals > 1) {
			/* A second signal: stop waiting now. */
			kill(t->pid, SIGKILL);
			target_wait(t, 1000, &rl->status, &rl->ru);
			break;
		}
		if (sig && !stopping) {
			stopping = true;
			rl->stop_signal = sig;
			if (sig == SIGINT) {
				next_step = now + INT_GRACE_S;
			} else {
				kill(t->pid, sig);
				stage = 1;
				next_step = now + KILL_GRACE_S;
			}
			deadline = INFINITY;
		}
		if (now >= next_step) {
			next_step = escalate(t, &stage, now);
			continue;
		}
		if (now >= next_tick) {
			int r = rl->tick ? rl->tick(now, rl->arg) : 0;
			next_tick += rl->tick_s;
			/* Fallen behind (a stalled machine): the next tick is one interval from now, not
			 * a burst of rows to catch up, as perf's interval sleep does. */
			if (next_tick <= now)
				next_tick = now + rl->tick_s;
			if (r < 0) {
				rc = -1;
				break;
			}
			if (r > 0)
				deadline = now; /* end like a timeout */
			continue;
		}
		if (now >= deadline) {
			if (!command)
				break;
			stopping = true;
			next_step = escalate(t, &stage, now);
			deadline = INFINITY;
			continue;
		}
		double until = deadline < next_tick ? deadline : next_tick;
		if (next_step < until)
			until = next_step;
		int ms = isinf(until) ? rl->max_wait_ms : (int)((until - now) * 1000) + 1;
		if (ms > rl->max_wait_ms)
			ms = rl->max_wait_ms;
		int r = wait_once(rl, ms);
		if (r < 0) {
			rc = -1;
			break;
		}
		if (r > 0)
			break;
	}
	rl->end = run_now();
	return rc;
}

#include "target/run.h"

#include <math.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "util/error.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

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

int run_loop_run(struct run_loop *rl)
{
	struct target *t = rl->target;
	bool command = t && t->started;
	double deadline = rl->timeout_s > 0 ? rl->start + rl->timeout_s : INFINITY;
	double next_tick = rl->tick_s > 0 ? rl->start + rl->tick_s : INFINITY;
	bool passed_on = false;
	int rc = 0;
	for (;;) {
		double now = run_now();
		int sig = stop_signal;
		if (sig && !command) {
			rl->stop_signal = sig;
			break;
		}
		if (sig && !passed_on) {
			/* Ctrl-C reached the command through the terminal; anything else we pass on. */
			if (sig != SIGINT)
				kill(t->pid, sig);
			rl->stop_signal = sig;
			passed_on = true;
		}
		if (now >= next_tick) {
			int r = rl->tick ? rl->tick(now, rl->arg) : 0;
			next_tick += rl->tick_s;
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
			if (!passed_on)
				kill(t->pid, SIGTERM);
			passed_on = true;
			deadline = INFINITY;
			continue;
		}
		double until = deadline < next_tick ? deadline : next_tick;
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

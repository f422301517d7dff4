#include "live/live_run.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "record/record.h"
#include "util/error.h"
#include "util/xalloc.h"

int live_run_open(struct live_run *r, const struct live_run_target *tg, struct evlist *l, struct live_opts *lo)
{
	memset(r, 0, sizeof(*r));
	r->t = (struct target)TARGET_INIT;
	run_signals_install();
	if (tg->cmd) {
		if (target_start_command_out(&r->t, tg->cmd, tg->pin, tg->stdout_to_stderr) < 0)
			return -1;
		r->command = true;
		r->cpu_wide = tg->cpu_wide;
		if (!tg->cpu_wide) {
			lo->pids = &r->t.pid;
			lo->npids = 1;
			lo->enable_on_exec = !lo->delay_ms;
			r->delay_ms = lo->delay_ms;
		}
	} else if (tg->pid_list || tg->tid_list) {
		if ((tg->pid_list ? target_attach_pids(&r->t, tg->pid_list) : target_attach_tids(&r->t, tg->tid_list)) < 0)
			return -1;
		lo->pids = r->t.tids;
		lo->npids = r->t.ntids;
		r->attached = true;
	}
	if (live_open(&r->live, l, lo) < 0) {
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

void live_run_synthesize(struct live_run *r, record_cb sink, void *arg)
{
	const struct perf_event_attr *a0 = &r->live.attrs[0];
	synth_kernel(a0, sink, arg);
	synth_bpf(a0, sink, arg);
	if (r->attached)
		synth_process(a0, r->t.pid, sink, arg);
	else if (!r->command || r->cpu_wide)
		synth_all_processes(a0, sink, arg);
}

void live_run_synthesize_again(struct live_run *r, record_cb sink, void *arg)
{
	const struct perf_event_attr *a0 = &r->live.attrs[0];
	synth_kernel(a0, sink, arg);
	synth_bpf(a0, sink, arg);
	if (r->attached || (r->command && !r->cpu_wide))
		synth_process_tree(a0, r->t.pid, sink, arg);
	else
		synth_all_processes(a0, sink, arg);
}

void live_run_synthesize_delayed(struct live_run *r, record_cb sink, void *arg)
{
	if (r->command && !r->cpu_wide && r->delay_ms > 0)
		synth_process_tree(&r->live.attrs[0], r->t.pid, sink, arg);
}

int live_run_start(struct live_run *r)
{
	r->loop = (struct run_loop){ .target = &r->t, .attached = r->attached, .max_wait_ms = 100 };
	if (!r->command || r->cpu_wide)
		live_enable(&r->live);
	int rc = run_loop_start(&r->loop);
	if (rc == 0 && r->delay_ms > 0) {
		/* -D: the events of a started command wait this long (none of its samples can be
		 * pending meanwhile: they are disabled). */
		struct timespec ts = { r->delay_ms / 1000, (long)(r->delay_ms % 1000) * 1000000L };
		while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !run_stop_signal())
			;
		live_enable(&r->live);
	}
	return rc;
}

struct reader {
	struct live *live;
	record_cb sink;
	void *arg;
	void (*tick)(long n, double now, void *arg);
	void *tick_arg;
};

static const struct perf_event_header round_rec = { REC_FINISHED_ROUND, 0, sizeof(round_rec) };

/* The run engine's wait: read what the buffers hold (waiting up to ms for it). */
static int read_buffers(int ms, void *arg)
{
	struct reader *rd = arg;
	long n = live_read(rd->live, ms, rd->sink, rd->arg);
	if (n < 0 || (n > 0 && rd->sink(&round_rec, rd->arg) < 0))
		return -1;
	if (rd->tick)
		rd->tick(n, run_now(), rd->tick_arg);
	return 0;
}

int live_run_loop(struct live_run *r, double timeout_s, record_cb sink, void *arg,
		  void (*tick)(long n, double now, void *arg), void *tick_arg, int *status)
{
	struct reader rd = { &r->live, sink, arg, tick, tick_arg };
	r->loop.timeout_s = timeout_s;
	r->loop.wait = read_buffers;
	r->loop.arg = &rd;
	int rc = run_loop_run(&r->loop);
	*status = r->loop.status;
	live_disable(&r->live);
	/* Whatever is still in the buffers belongs to the run. */
	if (rc == 0 && live_run_drain(r, sink, arg) < 0)
		rc = -1;
	return rc;
}

int live_run_drain(struct live_run *r, record_cb sink, void *arg)
{
	return live_read(&r->live, 0, sink, arg) < 0 || sink(&round_rec, arg) < 0 ? -1 : 0;
}

void live_run_close(struct live_run *r)
{
	free(r->evsels.v);
	live_close(&r->live);
	target_free(&r->t);
	memset(r, 0, sizeof(*r));
}

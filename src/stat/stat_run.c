#include "stat/stat_run.h"

#include <string.h>
#include <time.h>

#include "kernel/counter.h"
#include "target/run_loop.h"
#include "target/target.h"

struct interval_state {
	const struct stat_run_opts *o;
	const struct counters *c;
	struct stat_result prev, cur, delta;
	double start;
	int ticks;
	int err;
};

/* The row since the previous one, at now (a tick) or at the end. */
static int emit(struct interval_state *st, double now)
{
	if (stat_read(&st->cur, st->c) < 0)
		return -1;
	st->cur.duration = now - st->start;
	stat_diff(&st->delta, &st->cur, &st->prev);
	stat_compute_metrics(&st->delta);
	st->o->interval(&st->delta, st->ticks == 0, st->o->arg);
	stat_copy_values(&st->prev, &st->cur);
	return 0;
}

static int on_tick(double now, void *arg)
{
	struct interval_state *st = arg;
	if (emit(st, now) < 0)
		return -1;
	st->ticks++;
	return st->o->interval_count && st->ticks >= st->o->interval_count;
}

static void counters_opts_for(const struct stat_run_opts *o, struct target *t, struct counters_opts *co)
{
	memset(co, 0, sizeof(*co));
	if (o->per_thread) {
		/* Each thread on any CPU, not followed into children: a row each. */
		co->pids = t->tids;
		co->npids = t->ntids;
		co->allow_none = o->allow_none;
		return;
	}
	if (o->cpus && o->cpus->n) {
		co->cpus = o->cpus->cpu;
		co->ncpus = o->cpus->n;
	}
	if (t->ntids && (o->pid_list || o->tid_list)) {
		co->pids = t->tids; /* with a command: that is only the timer (perf's -p PID sleep N) */
		co->npids = t->ntids;
	} else if (o->cmd && !co->ncpus) {
		co->pids = &t->pid;
		co->npids = 1;
		co->enable_on_exec = true;
	} else if (t->ntids) {
		co->pids = t->tids;
		co->npids = t->ntids;
	}
	co->inherit = !o->no_inherit && co->npids > 0;
	co->allow_none = o->allow_none;
}

static int start_target(const struct stat_run_opts *o, struct target *t)
{
	if (o->per_thread && !o->pid_list && !o->tid_list) {
		if (o->cmd && target_start_command_out(t, o->cmd, o->pin_to, o->stdout_to_stderr) < 0)
			return -1;
		return target_attach_all(t);
	}
	if (o->cmd && target_start_command_out(t, o->cmd, o->pin_to, o->stdout_to_stderr) < 0)
		return -1;
	if (o->pid_list)
		return target_attach_pids(t, o->pid_list);
	if (o->tid_list)
		return target_attach_tids(t, o->tid_list);
	return 0;
}

static void result_init(const struct stat_run_opts *o, struct stat_result *r, const struct counters *c)
{
	if (o->per_thread)
		stat_result_init_threads(r, c, o->metrics, o->nmetrics);
	else
		stat_result_init(r, c, o->metrics, o->nmetrics);
}

/* Counts with c open until the run ends; fills res. */
static int count(const struct stat_run_opts *o, struct target *t, struct counters *c, bool enable_on_exec,
		 struct stat_result *res, struct stat_run_info *info)
{
	struct interval_state st = { .o = o, .c = c };
	bool intervals = o->interval_ms > 0;
	if (intervals) {
		result_init(o, &st.prev, c);
		result_init(o, &st.cur, c);
		result_init(o, &st.delta, c);
	}
	struct run_loop rl = { .target = t, .attached = o->pid_list || o->tid_list, .timeout_s = o->timeout_s,
			       .tick_s = intervals ? o->interval_ms / 1000.0 : 0, .max_wait_ms = 200,
			       .tick = intervals ? on_tick : NULL, .arg = &st };
	int rc = -1;
	if (!enable_on_exec)
		counters_enable(c);
	if (run_loop_start(&rl) < 0)
		goto out;
	st.start = rl.start;
	info->ran_command = o->cmd != NULL;
	if (run_loop_run(&rl) < 0)
		goto out;
	info->status = rl.status;
	info->stop_signal = rl.stop_signal;
	if (!o->cmd)
		counters_disable(c);
	bool count_reached = o->interval_count && st.ticks >= o->interval_count;
	/* The partial interval since the last row, so the rows add up to the totals. */
	if (intervals && !count_reached && rl.end - rl.start - st.prev.duration >= 0.001 && emit(&st, rl.end) < 0)
		goto out;
	if (stat_read(res, c) < 0)
		goto out;
	res->duration = rl.end - rl.start;
	if (o->cmd) {
		res->user_s = (double)rl.ru.ru_utime.tv_sec + (double)rl.ru.ru_utime.tv_usec / 1e6;
		res->sys_s = (double)rl.ru.ru_stime.tv_sec + (double)rl.ru.ru_stime.tv_usec / 1e6;
	}
	rc = 0;
out:
	if (intervals) {
		stat_result_free(&st.prev);
		stat_result_free(&st.cur);
		stat_result_free(&st.delta);
	}
	return rc;
}

int stat_run(const struct stat_run_opts *o, struct evlist *l, struct stat_result *res, struct stat_run_info *info)
{
	memset(info, 0, sizeof(*info));
	struct target t = TARGET_INIT;
	if (start_target(o, &t) < 0) {
		target_free(&t); /* a command started before an attach failed is abandoned */
		return -1;
	}
	struct counters_opts co;
	counters_opts_for(o, &t, &co);
	struct counters c;
	if (counters_open(&c, l, &co) < 0) {
		target_free(&t);
		return -1;
	}
	if (o->opened)
		o->opened(c.kernel_excluded, o->arg);
	result_init(o, res, &c);
	stat_result_set_units(res, o->unit_metrics, o->nunit_metrics);
	int rc = count(o, &t, &c, co.enable_on_exec, res, info);
	if (rc < 0)
		stat_result_free(res);
	counters_close(&c);
	target_free(&t);
	return rc;
}

static void pause_for(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
	/* A signal (Ctrl-C) ends the wait early; the series then stops. */
	nanosleep(&ts, NULL);
}

int stat_run_series(const struct stat_run_opts *o, struct evlist *l, const struct stat_series *s,
		    struct stat_result *acc, struct stat_run_info *info)
{
	bool ran_command = false;
	memset(acc, 0, sizeof(*acc));
	for (int run = 0; (!s->runs || run < s->runs) && !(run_stop_signal() && run > 0); run++) {
		if (s->before)
			s->before(run, s->arg);
		struct stat_result last;
		if (stat_run(o, l, &last, info) < 0) {
			if (run > 0)
				stat_result_free(acc);
			return -1;
		}
		ran_command |= info->ran_command;
		stat_compute_metrics(&last);
		if (s->after)
			s->after(&last, run, s->arg);
		stat_repeat_fold(acc, &last, run == 0);
		bool more = !s->runs || run + 1 < s->runs;
		if (s->pause && more && !run_stop_signal()) {
			if (s->paused)
				s->paused(true, s->arg);
			pause_for(s->pause_s);
			if (s->paused)
				s->paused(false, s->arg);
		}
	}
	info->ran_command = ran_command;
	/* The result: over more than one run the means, and the metrics over them. */
	stat_repeat_means(acc);
	stat_compute_metrics(acc);
	return 0;
}

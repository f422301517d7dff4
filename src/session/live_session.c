/* A live run feeding a session (see live_session.h). */
#include "session/live_session.h"

#include <stdlib.h>

#include "python/pyrec.h"
#include "python/pystore.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

struct feed {
	struct session *ss;
	bool hold;
	double next_release;
	struct pystore **old;    /* stores replaced while running: their symbols stay named */
	size_t nold;
	struct strbuf held;
	const struct live_session_opts *o;
	bool tee_failed;
	struct pyrec *py;
	const struct evsel_set *evsels;
};

static int feed_write(const struct perf_event_header *h, void *arg);

/* The run's records, less the kernel's samples of threads paused for their stacks (the
 * sampler's own samples of those instants replace them: python/pysampler.h). */
static int feed_record(const struct perf_event_header *h, void *arg)
{
	struct feed *f = arg;
	if (f->py && pyrec_replaced(f->py, f->evsels, h))
		return 0;
	return feed_write(h, arg);
}

static int feed_write(const struct perf_event_header *h, void *arg)
{
	struct feed *f = arg;
	if (f->o->tee && !f->tee_failed && f->o->tee(h, f->o->tee_arg) < 0)
		f->tee_failed = true;
	if (f->hold) {
		sb_add(&f->held, h, h->size);
		return 0;
	}
	return session_push(f->ss, h);
}

static int replay(struct feed *f)
{
	size_t off = 0;
	while (off + sizeof(struct perf_event_header) <= f->held.len) {
		const struct perf_event_header *h = (const void *)(f->held.buf + off);
		if (h->size < sizeof(*h) || h->size > f->held.len - off)
			break;
		if (session_push(f->ss, h) < 0)
			return -1;
		off += h->size;
	}
	return 0;
}

static void to_pystore(void *arg, int32_t pid, const uint8_t *blob, size_t len);
static int replay(struct feed *f);

/* --python in top: the stacks read since the last release into a store of their own, then the
 * records held meanwhile through the session, which joins them. */
static void release(struct feed *f, double now)
{
	struct session *ss = f->ss;
	if (ss->py) {
		f->old = xrealloc(f->old, (f->nold + 1) * sizeof(*f->old));
		f->old[f->nold++] = ss->py;
	}
	ss->py = pystore_new();
	pyrec_take(f->py, to_pystore, ss);
	if (replay(f) < 0)
		notes_add(&ss->notes, "%s", err_msg());
	f->held.len = 0;
	f->next_release = now + f->o->release_s;
}

static void feed_tick(long n, double now, void *arg)
{
	struct feed *f = arg;
	if (f->py)
		pyrec_poll(f->py, 0);
	if (f->py && pyrec_flush(f->py, feed_write, f) < 0)
		notes_add(&f->ss->notes, "%s", err_msg());
	if (f->py && f->hold && f->o->release_s > 0 && now >= f->next_release)
		release(f, now);
	if (f->o->tick)
		f->o->tick(n, now, f->o->tick_arg);
}

static void to_pystore(void *arg, int32_t pid, const uint8_t *blob, size_t len)
{
	struct session *ss = arg;
	if (!ss->py)
		ss->py = pystore_new();
	if (pystore_load(ss->py, pid, blob, len) < 0)
		notes_add(&ss->notes, "%s", err_msg());
}

int live_session_run(struct live_run *run, struct session *ss, const struct live_session_opts *o,
		     struct live_session_result *res)
{
	struct feed f = { .ss = ss, .held = STRBUF_INIT, .o = o };
	res->status = 0;
	res->failed = res->tee_failed = false;
	live_run_synthesize(run, feed_record, &f);
	if (o->python_frames) {
		f.py = pyrec_start(run->live.fds, run->live.nev * run->live.ncols * run->live.nrows, run->t.pid,
				   run->command, run->t.tids, run->t.ntids, 0);
		pyrec_gil(f.py, o->python_gil);
		f.evsels = &run->evsels;
		char *why = pyrec_pause(f.py, run->live.attrs, run->live.nev, run->live.nids[0] ? run->live.ids[0][0] : 0,
					o->python_nonblocking, o->python_rate_given);
		if (why)
			notes_take(&ss->notes, why);
		char *line = pyrec_fallback_line(f.py);
		if (line)
			notes_take(&ss->notes, line);
	}
	f.hold = o->hold;
	res->started = run_now();
	f.next_release = res->started + o->release_s;
	if (o->starting)
		o->starting(o->hook_arg, run);
	if (live_run_start(run) < 0) {
		pyrec_free(f.py);
		return -1;
	}
	live_run_synthesize_delayed(run, feed_record, &f);
	int lr = live_run_loop(run, o->timeout_s, feed_record, &f, feed_tick, &f, &res->status);
	char *why = lr < 0 ? xstrdup(err_msg()) : NULL;
	if (o->ending && o->ending(o->hook_arg, run, feed_record, &f) < 0 && !why)
		why = xstrdup(err_msg());
	if (f.py) {
		pyrec_poll(f.py, 0);
		if (pyrec_flush(f.py, feed_write, &f) < 0 && !why)
			why = xstrdup(err_msg());
		if (o->release_s > 0 && ss->py) { /* the last stacks in a store of their own */
			f.old = xrealloc(f.old, (f.nold + 1) * sizeof(*f.old));
			f.old[f.nold++] = ss->py;
			ss->py = pystore_new();
		}
		pyrec_store(f.py, to_pystore, ss);
		pyrec_free(f.py);
	}
	f.hold = false;
	if (replay(&f) < 0 && !why)
		why = xstrdup(err_msg());
	sb_release(&f.held);
	session_flush(ss);
	for (size_t i = 0; i < f.nold; i++)
		pystore_free(f.old[i]);
	free(f.old);
	res->tee_failed = f.tee_failed;
	if (why) {
		res->failed = true;
		err_set("%s", why);
		free(why);
	}
	return 0;
}

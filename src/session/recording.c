/* record's engine (see recording.h). */
#include "session/recording.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events/spe_terms.h"
#include "events/tracedata.h"
#include "python/pyrec.h"
#include "python/pystore.h"
#include "util/error.h"
#include "util/xalloc.h"

static int file_write(const struct perf_event_header *h, void *arg);

static void say(const struct recording *r, struct notes *ns)
{
	if (ns->n && r->o->say)
		r->o->say(r->o->arg, ns);
	notes_clear(ns);
}

/* Python stacks without -X perf: BPF on the sampling events, else process_vm_readv (said once). */
static struct pyrec *python_start(struct recording *r)
{
	struct live_run *run = &r->run;
	struct pyrec *py = pyrec_start(run->live.fds, run->live.nev * run->live.ncols * run->live.nrows,
				       run->t.pid, run->command, run->t.tids, run->t.ntids, r->o->python_depth);
	pyrec_gil(py, (r->o->python_gil ? PYSTORE_GIL_ONLY : 0) | (r->o->wall ? PYSTORE_GIL_MARK : 0));
	struct notes ns = NOTES_INIT;
	notes_take(&ns, pyrec_pause(py, run->live.attrs, run->live.nev, run->live.nids[0] ? run->live.ids[0][0] : 0,
				    r->o->python_nonblocking, r->o->python_rate_given));
	notes_take(&ns, pyrec_fallback_line(py));
	say(r, &ns);
	return py;
}

/* The recorder's watch: interpreters that start (exec) or fork while recording. */
static void watch_python(void *arg, const struct perf_event_header *h)
{
	struct pyrec *py = arg;
	if (h->type == PERF_RECORD_COMM) {
		struct rec_comm cm;
		if (record_parse_comm(h, &cm) == 0 && cm.pid == cm.tid)
			pyrec_watch(py, (pid_t)cm.pid, cm.exec);
	} else if (h->type == PERF_RECORD_FORK) {
		struct rec_task t;
		/* A forked Python (multiprocessing) runs the same interpreter image. */
		if (record_parse_task(h, &t) == 0 && t.pid == t.tid && t.pid != t.ppid)
			pyrec_fork(py, (pid_t)t.pid, (pid_t)t.ppid);
	}
}

static void add_pystacks(void *arg, int32_t pid, const uint8_t *blob, size_t len)
{
	perfdata_writer_add_jit_source(arg, JIT_SRC_PYSTACKS, pid, blob, len);
}

static void python_finish(struct pyrec *py, struct perfdata_writer *w, const struct recording_opts *o,
			  struct notes *ns)
{
	pyrec_poll(py, 0);
	pyrec_store(py, add_pystacks, w);
	struct pyrec_stats st;
	pyrec_stats(py, &st);
	if (!st.procs)
		notes_add(ns, "--python: no CPython 2.7 or 3.6-3.13 found in the recorded processes%s%s",
			  st.problem ? ": " : "", st.problem ? st.problem : "");
	else if (!o->quiet && st.pauses)
		notes_add_level(ns, NOTES_NOTE, "--python: %" PRIu64 " Python stacks from %zu process%s (%s; "
				"%" PRIu64 " pauses of %.2f ms on average, %.2f ms at most)", st.stacks, st.procs,
				st.procs == 1 ? "" : "es", pyrec_method(py), st.pauses, (double)st.pause_mean_ns / 1e6,
				(double)st.pause_max_ns / 1e6);
	else if (!o->quiet)
		notes_add_level(ns, NOTES_NOTE, "--python: %" PRIu64 " Python stacks from %zu process%s (%s)%s",
				st.stacks, st.procs, st.procs == 1 ? "" : "es", pyrec_method(py),
				st.dropped ? "; some lost: BPF buffer full" : "");
	if (st.pause_problem)
		notes_add(ns, "--python: %s", st.pause_problem);
	if (st.gil_unknown && (o->python_gil || o->wall))
		notes_add(ns, "--%s: the GIL of %zu of the Python processes cannot be read (their "
			  "interpreter does not say where it is): their samples %s", o->python_gil ? "gil" : "wall",
			  st.gil_unknown, o->python_gil ? "are all left out" : "are not marked");
	pyrec_free(py);
}

/* Tracepoint events carry their formats with them (TRACING_DATA), as perf records them, so that
 * readers can name and print the fields of each sample's raw data. */
static int tracing_data(struct perfdata_writer *w, const struct live *lv)
{
	uint64_t *ids = xcalloc(lv->nev ? lv->nev : 1, sizeof(uint64_t));
	size_t n = 0;
	for (size_t e = 0; e < lv->nev; e++)
		if (lv->attrs[e].type == PERF_TYPE_TRACEPOINT)
			ids[n++] = lv->attrs[e].config;
	uint8_t *data = NULL;
	size_t len = 0;
	int ret = n ? tracedata_build(ids, n, &data, &len) : 0;
	if (n && !ret)
		ret = perfdata_writer_set_tracing_data(w, data, len);
	free(data);
	free(ids);
	return ret;
}

/* A new file at the output for the events of the run: header, events, tracing data, a recorder.
 * 0; 1 (a bad request) or -1 after err_set. */
static int file_open(struct recording *r)
{
	const struct recording_opts *o = r->o;
	struct evlist *l = r->l;
	struct live_run *run = &r->run;
	struct perfdata_writer *w = perfdata_writer_open(o->sw.output);
	if (!w)
		return -1;
	int rc = 1;
	if (o->compression_level && perfdata_writer_compress(w, o->compression_level) < 0)
		goto fail;
	for (size_t e = 0; e < l->n; e++)
		perfdata_writer_add_event(w, &run->live.attrs[e], l->ev[e].name, run->live.ids[e],
					  run->live.nids[e]);
	perfdata_writer_set_cmdline(w, o->argc, o->argv);
	if (o->wall)
		perfdata_writer_set_wall(w);
	for (size_t e = 0; e < l->n; e++) { /* {a,b} groups, for perf's evlist -g and report --group */
		size_t nr = 0;
		for (size_t k = e; k < l->n && l->ev[k].leader == e; k++)
			nr++;
		if (l->ev[e].group >= 0 && l->ev[e].leader == e && nr > 1)
			perfdata_writer_add_group(w, NULL, (uint32_t)e, (uint32_t)nr);
	}
	rc = -1;
	if (tracing_data(w, &run->live) < 0)
		goto fail;
	struct recorder *c = recorder_new(w, &run->evsels);
	c->buildids = o->buildids;
	c->buildid_cache = o->buildid_cache;
	if (r->py) {
		c->watch = watch_python;
		c->watch_arg = r->py;
	}
	/* the Arm SPE AUXTRACE_INFO, ahead of the data */
	const struct ev *spe = spe_evlist_event(l);
	if (spe && o->auxtrace_info &&
	    o->auxtrace_info(w, spe->attr.type, run->live.ncols > 0 && run->live.cpus[0] >= 0) < 0)
		c->error = 1;
	r->w = w;
	r->c = c;
	return 0;
fail:;
	char *why = xstrdup(err_msg());
	perfdata_writer_close(w, false, false);
	err_set("%s", why);
	free(why);
	return rc;
}

/* Completes the file (build-ids, JIT sources, Python stacks with py, else the stacks read so far
 * when a rotation closes it) and renames it into place;
 * what it found in res (zeroed first), what it says in ns. -1 with err_set when writing failed:
 * the temporary is gone and the output unchanged. */
static int file_close(struct recording *r, struct pyrec *py, struct recording_result *res, struct notes *ns)
{
	struct recorder *c = r->c;
	memset(res, 0, sizeof(*res));
	if (r->py && pyrec_flush(r->py, file_write, r) < 0) /* the last samples of paused threads */
		c->error = 1;
	recorder_finish(c, r->o->force);
	if (py) {
		python_finish(py, r->w, r->o, ns);
	} else if (r->py) { /* --switch-output: this period's Python stacks, the reader goes on */
		pyrec_poll(r->py, 0);
		pyrec_take(r->py, add_pystacks, r->w);
	}
	for (size_t i = 0; i < c->warnings.n; i++)
		notes_add(ns, "%s", c->warnings.v[i]);
	if (perfdata_writer_compression(r->w, &res->raw, &res->packed) < 0)
		c->error = 1;
	res->bytes = perfdata_writer_bytes(r->w);
	/* Keep what was recorded up to a failure, unless writing itself failed (a full disk):
	 * then the temporary file goes and whatever was at the output stays. */
	res->why = c->error ? xstrdup(err_msg()) : NULL;
	res->error = c->error;
	res->samples = c->samples;
	uint64_t lost = c->lost > c->lost_samples ? c->lost : c->lost_samples;
	res->lost_replaced = c->lost_replaced < lost ? c->lost_replaced : lost;
	res->lost = lost - res->lost_replaced;
	int rc = perfdata_writer_close(r->w, true, r->o->sw.mode == SWITCH_NONE);
	if (rc < 0 && res->why)
		err_set("%s", res->why);
	recorder_free(c);
	r->w = NULL;
	r->c = NULL;
	return rc;
}

static void toggle_events(void *arg, bool on)
{
	struct live_run *run = arg;
	if (on)
		live_enable(&run->live);
	else
		live_disable(&run->live);
}

/* The held records (--overwrite) into the file, after the processes as they are now (perf's
 * tail synthesis). */
static void flush_hold(struct recording *r)
{
	if (!r->holding)
		return;
	live_run_synthesize_again(&r->run, recorder_record, r->c);
	if (record_hold_flush(&r->hold, recorder_record, r->c) < 0)
		r->c->error = 1;
}

/* --switch-output: the file so far is completed and renamed OUTPUT.<timestamp>; the next one
 * starts with the kernel and the processes described again, so each is a whole recording. */
static int file_record(const struct perf_event_header *h, void *arg);

static void rotate(struct recording *r)
{
	struct recording_result d;
	struct notes ns = NOTES_INIT;
	if (live_run_drain(&r->run, file_record, r) < 0)
		r->c->error = 1;
	flush_hold(r);
	int rc = file_close(r, NULL, &d, &ns);
	if (rc < 0) {
		char *msg = xstrdup(err_msg());
		err_set("%s; --switch-output stopped the recording", msg);
		free(msg);
	} else if (d.why) {
		notes_add(&ns, "%s", d.why);
	}
	say(r, &ns);
	free(d.why);
	char *name = rc < 0 ? NULL : record_switch_rename(&r->sw);
	if (name && file_open(r) != 0) {
		free(name);
		name = NULL;
	}
	if (r->o->switched)
		r->o->switched(r->o->arg, name, r->sw.wakeups);
	r->sw.wakeups = 0;
	free(name);
	if (r->c)
		live_run_synthesize_again(&r->run, recorder_record, r->c);
}

static void recording_progress(const struct recording *r, struct recording_progress *p)
{
	p->samples = r->c ? r->c->samples : 0;
	p->lost = r->c ? r->c->lost + r->c->lost_samples : 0;
	p->bytes = r->w ? perfdata_writer_bytes(r->w) : 0;
}

static void tick(long n, double now, void *arg)
{
	struct recording *r = arg;
	if (r->py)
		pyrec_poll(r->py, 0);
	if (r->py && r->c && pyrec_flush(r->py, file_write, r) < 0)
		r->c->error = 1;
	if (n > 0)
		r->sw.wakeups++;
	record_switch_control(&r->sw, toggle_events, &r->run);
	if (r->c && record_switch_due(&r->sw, now, perfdata_writer_bytes(r->w)))
		rotate(r);
	if (r->o->tick) {
		struct recording_progress p;
		recording_progress(r, &p);
		r->o->tick(r->o->arg, &p, now, false);
	}
}

/* The file being written now (the samples of paused threads come this way). */
static int file_write(const struct perf_event_header *h, void *arg)
{
	struct recording *r = arg;
	if (!r->c)
		return -1;
	return r->holding ? record_hold_push(h, &r->hold) : recorder_record(h, r->c);
}

/* The loop's sink: the file being written now, less the kernel's samples of paused threads. */
static int file_record(const struct perf_event_header *h, void *arg)
{
	struct recording *r = arg;
	if (!r->c) /* a switch failed: err_msg() says why */
		return -1;
	if (r->py && pyrec_replaced(r->py, &r->run.evsels, h)) /* its own sample of that instant */
		return 0;
	if (r->py && h->type == PERF_RECORD_LOST) /* written all the same: the buffer's truth */
		r->c->lost_replaced += pyrec_lost_replaced(r->py, &r->run.evsels, h);
	return file_write(h, r);
}

/* Opens the events and the file, and writes what already exists. */
static enum recording_end recording_open(struct recording *r, const struct live_run_target *tg, struct live_opts *lo)
{
	const struct recording_opts *o = r->o;
	if (record_switch_init(&r->sw, &o->sw, run_now()) < 0)
		return RECORDING_BAD_REQUEST;
	if (o->overwrite && spe_evlist_event(r->l)) {
		err_set("--overwrite does not take Arm SPE events (their AUX data is not held)");
		return RECORDING_BAD_REQUEST;
	}
	if (live_run_open(&r->run, tg, r->l, lo) < 0)
		return RECORDING_FAILED;
	r->run_open = true;
	live_wake_on(&r->run.live, r->sw.ctl); /* a control command is answered at once */
	r->py = o->python_frames ? python_start(r) : NULL;
	int rc = file_open(r);
	if (rc)
		return rc > 0 ? RECORDING_BAD_REQUEST : RECORDING_FAILED;
	if (o->overwrite) {
		long page = sysconf(_SC_PAGESIZE);
		/* as much as the ring buffers hold, as perf's overwritable buffers keep */
		record_hold_init(&r->hold, r->run.live.nrbs * lo->mmap_pages * (size_t)(page > 0 ? page : 4096));
		r->holding = true;
	}
	live_run_synthesize(&r->run, recorder_record, r->c);
	return RECORDING_DONE;
}

/* Starts the target and records until the run ends. */
static enum recording_end recording_run(struct recording *r)
{
	const struct recording_opts *o = r->o;
	if (o->events && r->run.delay_ms) /* a started command's events, enabled later or never */
		o->events(o->arg, false);
	if (o->starting)
		o->starting(o->arg, &r->run);
	if (live_run_start(&r->run) < 0) {
		char *why = xstrdup(err_msg());
		perfdata_writer_close(r->w, false, false);
		recorder_free(r->c);
		r->w = NULL;
		r->c = NULL;
		err_set("%s", why);
		free(why);
		return RECORDING_FAILED;
	}
	live_run_synthesize_delayed(&r->run, recorder_record, r->c);
	if (o->events && r->run.delay_ms > 0)
		o->events(o->arg, true);
	int lr = live_run_loop(&r->run, o->timeout_s, file_record, r, tick, r, &r->status);
	if (!r->c) /* a --switch-output that failed (without a switched hook to end the process) */
		return RECORDING_NOT_SAVED;
	if (lr < 0)
		r->c->error = 1;
	if (o->tick) {
		struct recording_progress p;
		recording_progress(r, &p);
		o->tick(o->arg, &p, run_now(), true);
	}
	return RECORDING_DONE;
}

/* Completes the file and moves it into place. */
static enum recording_end recording_close(struct recording *r, struct recording_result *res)
{
	flush_hold(r);
	struct notes ns = NOTES_INIT;
	if (r->o->ending && r->o->ending(r->o->arg, &r->run, recorder_record, r->c) < 0) {
		notes_add(&ns, "%s", err_msg());
		r->c->error = 1;
	}
	int rc = file_close(r, r->py, res, &ns);
	r->py = NULL;
	if (rc == 0 && res->why)
		notes_add(&ns, "recording stopped early: %s", res->why);
	say(r, &ns);
	if (rc == 0)
		return RECORDING_DONE;
	char *msg = xstrdup(err_msg());
	if (!strcmp(r->o->sw.output, "-"))
		err_set("%s; the recording is incomplete", msg);
	else
		err_set("%s; the recording was not saved ('%s' is unchanged)", msg, r->o->sw.output);
	free(msg);
	return RECORDING_NOT_SAVED;
}

enum recording_end recording_record(struct recording *r, struct evlist *l, const struct live_run_target *tg,
				    struct live_opts *lo, const struct recording_opts *o, struct recording_result *res)
{
	memset(r, 0, sizeof(*r));
	memset(res, 0, sizeof(*res));
	r->o = o;
	r->l = l;
	r->sw.ctl = r->sw.ack = -1;
	enum recording_end end = recording_open(r, tg, lo);
	if (end == RECORDING_DONE)
		end = recording_run(r);
	if (end == RECORDING_DONE)
		end = recording_close(r, res);
	if (end != RECORDING_DONE) { /* nothing left open; the error kept */
		char *msg = xstrdup(err_msg());
		free(res->why);
		res->why = NULL;
		recording_free(r);
		err_set("%s", msg);
		free(msg);
	}
	return end;
}

void recording_notes(const struct recording *r, const struct recording_result *res, struct notes *ns)
{
	if (res->lost)
		notes_add(ns, "%" PRIu64 " samples lost (%.2f%%): the ring buffers filled up; use a larger -m "
			  "or a lower -F", res->lost, 100.0 * (double)res->lost / (double)(res->lost + res->samples));
	if (res->lost_replaced)
		notes_add_level(ns, NOTES_NOTE, "%" PRIu64 " of the kernel's samples of the paused Python processes "
				"were lost (the ring buffers filled up): none of the profile's, lperf writes those "
				"processes' samples itself (the recording's LOST records count them, as perf's "
				"would)", res->lost_replaced);
	if (r->run_open)
		live_open_notes(&r->run.live, ns);
}

void recording_free(struct recording *r)
{
	if (r->c) {
		perfdata_writer_close(r->w, false, false);
		recorder_free(r->c);
	}
	pyrec_free(r->py);
	record_switch_free(&r->sw);
	if (r->holding)
		record_hold_free(&r->hold);
	if (r->run_open)
		live_run_close(&r->run);
	memset(r, 0, sizeof(*r));
	r->sw.ctl = r->sw.ack = -1;
}

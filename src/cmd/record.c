/* lperf record: the live source feeding a perf.data writer. Starts the command (or attaches),
 * writes what already exists (kernel and process maps), then every record the ring buffers
 * deliver until the command ends, the timeout, Ctrl-C or SIGTERM; the file is always completed
 * and renamed into place. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "output/pictures.h"
#include "analysis/stacks_load.h"
#include "cmd/sample_opts.h"
#include "events/evlist.h"
#include "events/spe_terms.h"
#include "events/tracedata.h"
#include "live/live_aux.h"
#include "live/live_run.h"
#include "output/spe_out.h"
#include "perfdata/perfdata.h"
#include "perfdata/record_switch.h"
#include "perfdata/recorder.h"
#include "python/pyrec.h"
#include "spe/spe_capture.h"
#include "session/session.h"
#include "spe/spe_view.h"
#include "util/error.h"
#include "util/opt.h"
#include "util/outfile.h"
#include "util/xalloc.h"

static void progress(const struct recorder *c, bool final)
{
	fprintf(stderr, "\r[ lperf record: %" PRIu64 " samples, %" PRIu64 " lost, %.1f MB ]%s", c->samples,
		c->lost + c->lost_samples, (double)perfdata_writer_bytes(c->w) / 1e6, final ? "\n" : "");
}

/* The file being written: its writer and recorder (a new pair at each --switch-output). */
struct rec_file {
	struct perfdata_writer *w;
	struct recorder *c;
	struct record_hold *hold;  /* --overwrite: the records wait here until written */
};

struct progress_ctx {
	struct rec_file *f;
	double next;
	bool tty;
	struct pyrec *py;
	struct record_switch *sw;
	/* what a switch needs to start the next file */
	struct sample_opts *o;
	struct evlist *l;
	struct live_run *run;
	int argc;
	char **argv;
};

static int rec_file_open(struct rec_file *f, struct sample_opts *o, struct evlist *l, struct live_run *run,
			 int argc, char **argv, struct pyrec *py);
/* What closing a file found. */
struct rec_done {
	uint64_t bytes, raw, packed, samples, lost;
	int error;  /* recording failed on the way */
	char *why;  /* and why (free it) */
};
static int rec_file_close(struct rec_file *f, struct sample_opts *o, struct pyrec *py, struct rec_done *d);

static void toggle_events(void *arg, bool on)
{
	struct live_run *run = arg;
	if (on)
		live_enable(&run->live);
	else
		live_disable(&run->live);
}

/* --switch-output: the file so far is completed and renamed OUTPUT.<timestamp>; the next one
 * starts with the kernel and the processes described again, so each is a whole recording. */
static void record_switch(struct progress_ctx *p)
{
	struct rec_done d;
	if (p->f->hold) /* perf's tail synthesis: the processes as they are when the records are written */
		live_run_synthesize_again(p->run, recorder_record, p->f->c);
	if (p->f->hold && record_hold_flush(p->f->hold, recorder_record, p->f->c) < 0)
		p->f->c->error = 1;
	if (rec_file_close(p->f, p->o, NULL, &d) < 0)
		err_die(EXIT_RUNTIME, "%s; --switch-output stopped the recording", err_msg());
	if (d.why)
		err_warn("%s", d.why);
	free(d.why);
	char *name = record_switch_rename(p->sw);
	if (!name)
		err_die_last(EXIT_RUNTIME);
	if (!p->o->quiet)
		fprintf(stderr, "[ lperf record: dump data: Woken up %lu times ]\n[ lperf record: Dump %s ]\n",
			p->sw->wakeups, name);
	p->sw->wakeups = 0;
	free(name);
	if (rec_file_open(p->f, p->o, p->l, p->run, p->argc, p->argv, p->py) < 0)
		err_die_last(EXIT_RUNTIME);
	live_run_synthesize_again(p->run, recorder_record, p->f->c);
}

static void progress_tick(long n, double now, void *arg)
{
	struct progress_ctx *p = arg;
	if (p->py)
		pyrec_poll(p->py, 0);
	if (n > 0)
		p->sw->wakeups++;
	record_switch_control(p->sw, toggle_events, p->run);
	if (record_switch_due(p->sw, now, perfdata_writer_bytes(p->f->w)))
		record_switch(p);
	if (p->tty && now >= p->next) {
		progress(p->f->c, false);
		p->next = now + 0.5;
	}
}

/* The loop's sink: the file being written now. */
static int file_record(const struct perf_event_header *h, void *arg)
{
	struct rec_file *f = arg;
	return f->hold ? record_hold_push(h, f->hold) : recorder_record(h, f->c);
}

/* Python stacks without -X perf: BPF on the sampling events, else process_vm_readv (said once). */
static struct pyrec *record_python_start(struct live_run *run)
{
	struct pyrec *py = pyrec_start(run->live.fds, run->live.nev * run->live.ncols * run->live.nrows,
				       run->t.pid, run->command, run->t.tids, run->t.ntids);
	char *line = pyrec_fallback_line(py);
	if (line)
		err_warn("%s", line);
	free(line);
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

static void record_python_finish(struct pyrec *py, struct perfdata_writer *w, bool quiet)
{
	pyrec_poll(py, 0);
	pyrec_store(py, add_pystacks, w);
	struct pyrec_stats st;
	pyrec_stats(py, &st);
	if (!st.procs)
		err_warn("--python: no CPython 3.8-3.13 found in the recorded processes%s%s",
			 st.problem ? ": " : "", st.problem ? st.problem : "");
	else if (!quiet)
		err_note("--python: %" PRIu64 " Python stacks from %zu process%s (%s)%s", st.stacks, st.procs,
			 st.procs == 1 ? "" : "es", pyrec_method(py), st.dropped ? "; some lost: BPF buffer full" : "");
	pyrec_free(py);
}

/* Tracepoint events carry their formats with them (TRACING_DATA), as perf records them, so that
 * readers can name and print the fields of each sample's raw data. */
static int record_tracing_data(struct perfdata_writer *w, const struct live *lv)
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

/* record --flamegraph: draws the recording just written. */
static void record_flamegraph(const struct sample_opts *o)
{
	struct stacks st;
	stacks_init(&st);
	st.python = o->python;
	struct session_opts so = { .force = o->force };
	struct pictures_req r = { .svg = o->flamegraph };
	struct notes said = NOTES_INIT;
	if (stacks_load(&st, o->output, &so, NULL, &said) < 0 || pictures_write(&r, &st, &said) < 0)
		notes_add(&said, "--flamegraph: %s", err_msg());
	err_print_notes(&said);
	notes_clear(&said);
	stacks_free(&st);
}

/* --dry-run: the events record would open (SPE filters encoded through the PMU's format files,
 * the AUX area size), without opening anything; the exit status (2 for an SPE interval below
 * the PMU's minimum). */
static int record_dry_run(struct sample_opts *o, struct evlist *l)
{
	struct spe_dry_row *rows = xcalloc(l->n ? l->n : 1, sizeof(*rows));
	int rc = 0;
	bool any_spe = false;
	for (size_t e = 0; e < l->n; e++) {
		struct ev *ev = &l->ev[e];
		struct spe_dry_row *r = &rows[e];
		r->spe = spe_pmu_name(ev->pmu);
		if (r->spe) {
			any_spe = true;
			if (spe_attr_prepare(&ev->attr, ev->pmu, ev->period ? ev->period : o->period) < 0) {
				err_warn("%s: %s", ev->name, err_msg());
				rc = EXIT_USAGE;
			}
		}
		r->name = ev->name;
		r->pmu = ev->pmu ? ev->pmu : "";
		r->encoding = ev->encoding ? ev->encoding : "";
		r->type = ev->attr.type;
		r->config = ev->attr.config;
		r->config1 = ev->attr.config1;
		r->config2 = ev->attr.config2;
		r->period = r->spe ? ev->attr.sample_period : (ev->period ? ev->period : o->period);
		r->freq = r->period ? 0 : o->freq;
	}
	long page = sysconf(_SC_PAGESIZE);
	spe_print_dry_run(stdout, rows, l->n, any_spe ? live_aux_pages(o->aux_pages) : 0,
			  (size_t)(page > 0 ? page : 4096), o->mmap_pages);
	free(rows);
	return rc;
}

static const char *const usage[] = {
	"lperf record [OPTIONS] [--] COMMAND [ARGS]",
	"lperf record [OPTIONS] -p PID | -t TID | -a | -C CPUS [--timeout DUR]",
	NULL,
};

/* A new file at o->output for the events of run: header, events, tracing data, a recorder.
 * 0, or the exit status after err_set. */
static int rec_file_open(struct rec_file *f, struct sample_opts *o, struct evlist *l, struct live_run *run,
			 int argc, char **argv, struct pyrec *py)
{
	struct perfdata_writer *w = perfdata_writer_open(o->output);
	if (!w)
		return EXIT_RUNTIME;
	int rc = EXIT_USAGE;
	if (o->compression_level && perfdata_writer_compress(w, o->compression_level) < 0)
		goto fail;
	for (size_t e = 0; e < l->n; e++)
		perfdata_writer_add_event(w, &run->live.attrs[e], l->ev[e].name, run->live.ids[e],
					  run->live.nids[e]);
	perfdata_writer_set_cmdline(w, argc, argv);
	for (size_t e = 0; e < l->n; e++) { /* {a,b} groups, for perf's evlist -g and report --group */
		size_t nr = 0;
		for (size_t k = e; k < l->n && l->ev[k].leader == e; k++)
			nr++;
		if (l->ev[e].group >= 0 && l->ev[e].leader == e && nr > 1)
			perfdata_writer_add_group(w, NULL, (uint32_t)e, (uint32_t)nr);
	}
	rc = EXIT_RUNTIME;
	if (record_tracing_data(w, &run->live) < 0)
		goto fail;
	struct recorder *c = recorder_new(w, &run->evsels);
	c->buildids = o->no_buildid ? RECORDER_BUILDIDS_NONE : o->buildid_all ? RECORDER_BUILDIDS_ALL
									  : RECORDER_BUILDIDS_HIT;
	c->buildid_cache = !o->no_buildid && !o->no_buildid_cache;
	if (py) {
		c->watch = watch_python;
		c->watch_arg = py;
	}
	/* the Arm SPE AUXTRACE_INFO, ahead of the data */
	const struct ev *spe = spe_evlist_event(l);
	if (spe && spe_capture_info(w, spe->attr.type, run->live.ncols > 0 && run->live.cpus[0] >= 0) < 0)
		c->error = 1;
	f->w = w;
	f->c = c;
	return 0;
fail:;
	char *why = xstrdup(err_msg());
	perfdata_writer_close(w, false, false);
	err_set("%s", why);
	free(why);
	return rc;
}

/* Completes the file (build-ids, JIT sources, Python stacks when py) and renames it into place.
 * -1 with err_set when writing failed: the temporary is gone and o->output unchanged. */
static int rec_file_close(struct rec_file *f, struct sample_opts *o, struct pyrec *py, struct rec_done *d)
{
	struct recorder *c = f->c;
	memset(d, 0, sizeof(*d));
	recorder_finish(c, o->force);
	if (py)
		record_python_finish(py, f->w, o->quiet);
	for (size_t i = 0; i < c->warnings.n; i++)
		err_warn("%s", c->warnings.v[i]);
	if (perfdata_writer_compression(f->w, &d->raw, &d->packed) < 0)
		c->error = 1;
	d->bytes = perfdata_writer_bytes(f->w);
	/* Keep what was recorded up to a failure, unless writing itself failed (a full disk):
	 * then the temporary file goes and whatever was at the output stays. */
	d->why = c->error ? xstrdup(err_msg()) : NULL;
	d->error = c->error;
	d->samples = c->samples;
	d->lost = c->lost > c->lost_samples ? c->lost : c->lost_samples;
	int rc = perfdata_writer_close(f->w, true, o->switch_mode == SWITCH_NONE);
	if (rc < 0 && d->why)
		err_set("%s", d->why);
	recorder_free(c);
	f->w = NULL;
	f->c = NULL;
	return rc;
}

/* record's run: the events of l on the target into o->output, with record's notes; the exit
 * status (the command's where one ran). Setup errors end the process. argc/argv: the command
 * line stored in the file. */
static int record_run(struct sample_opts *o, struct evlist *l, char **cmd, int argc, char **argv)
{
	if (cmd && sample_python_setup(o, cmd) < 0)
		err_die_last(EXIT_USAGE);
	struct record_switch sw;
	const struct record_switch_opts swo = { o->output, o->switch_mode, o->switch_size, o->switch_secs,
						o->switch_max_files, o->control };
	if (record_switch_init(&sw, &swo, run_now()) < 0)
		err_die_last(EXIT_USAGE);
	if (o->overwrite && spe_evlist_event(l))
		err_die(EXIT_USAGE, "--overwrite does not take Arm SPE events (their AUX data is not held)");
	struct live_run run;
	struct live_opts lo;
	sample_live_opts(o, &lo);
	struct live_run_target tg = { cmd, o->pid_list, o->tid_list, NULL, o->system_wide || o->cpus_given,
				     !strcmp(o->output, "-") /* as perf: the pipe carries the recording */ };
	if (live_run_open(&run, &tg, l, &lo) < 0)
		err_die_last(EXIT_RUNTIME);
	struct pyrec *py = o->python_frames ? record_python_start(&run) : NULL;
	struct rec_file f = { 0 };
	int frc = rec_file_open(&f, o, l, &run, argc, argv, py);
	if (frc) {
		live_run_close(&run);
		err_die_last(frc);
	}
	struct record_hold hold;
	if (o->overwrite) {
		long page = sysconf(_SC_PAGESIZE);
		/* as much as the ring buffers hold, as perf's overwritable buffers keep */
		record_hold_init(&hold, run.live.nrbs * lo.mmap_pages * (size_t)(page > 0 ? page : 4096));
		f.hold = &hold;
	}
	live_run_synthesize(&run, recorder_record, f.c);

	struct progress_ctx pc = { &f, run_now() + 0.5, !o->quiet && isatty(STDERR_FILENO), py, &sw,
				   o, l, &run, argc, argv };
	int status;
	if (o->delay_ms && cmd && !run.cpu_wide)
		fprintf(stderr, "Events disabled\n");
	if (live_run_start(&run) < 0) {
		perfdata_writer_close(f.w, false, false);
		recorder_free(f.c);
		live_run_close(&run);
		err_die_last(EXIT_RUNTIME);
	}
	if (o->delay_ms > 0 && cmd && !run.cpu_wide)
		fprintf(stderr, "Events enabled\n");
	int lr = live_run_loop(&run, o->timeout_s, file_record, &f, progress_tick, &pc, &status);
	if (lr < 0)
		f.c->error = 1;
	if (pc.tty)
		progress(f.c, true);
	if (f.hold)
		live_run_synthesize_again(&run, recorder_record, f.c);
	if (f.hold && record_hold_flush(f.hold, recorder_record, f.c) < 0)
		f.c->error = 1;
	struct rec_done d;
	if (rec_file_close(&f, o, py, &d) < 0) {
		char *msg = xstrdup(err_msg());
		live_run_close(&run);
		if (!strcmp(o->output, "-"))
			err_die(EXIT_RUNTIME, "%s; the recording is incomplete", msg);
		err_die(EXIT_RUNTIME, "%s; the recording was not saved ('%s' is unchanged)", msg, o->output);
	}
	if (d.why)
		err_warn("recording stopped early: %s", d.why);
	free(d.why);
	char *shown = NULL;
	if (o->switch_mode != SWITCH_NONE) { /* the last file too, as perf names it */
		char *name = record_switch_rename(&sw);
		if (!name)
			err_die_last(EXIT_RUNTIME);
		if (!o->quiet)
			fprintf(stderr, "[ lperf record: Dump %s ]\n", name);
		free(name);
		shown = xasprintf("%s.<timestamp>", o->output);
	}
	if (!o->quiet && d.packed)
		fprintf(stderr, "[ lperf record: Captured and wrote %.3f MB %s, compressed (original %.3f MB, "
			"ratio is %.3f) (%" PRIu64 " samples) ]\n", (double)d.bytes / 1e6, shown ? shown : o->output,
			(double)d.raw / 1e6, (double)d.raw / (double)d.packed, d.samples);
	else if (!o->quiet)
		fprintf(stderr, "[ lperf record: Captured and wrote %.3f MB %s (%" PRIu64 " samples) ]\n",
			(double)d.bytes / 1e6, shown ? shown : o->output, d.samples);
	free(shown);
	if (d.lost)
		err_warn("%" PRIu64 " samples lost (%.2f%%): the ring buffers filled up; use a larger -m "
			 "or a lower -F", d.lost, 100.0 * (double)d.lost / (double)(d.lost + d.samples));
	struct notes opened = NOTES_INIT;
	live_open_notes(&run.live, &opened);
	err_print_notes(&opened);
	notes_clear(&opened);
	if (o->flamegraph && strcmp(o->output, "-") && o->switch_mode == SWITCH_NONE)
		record_flamegraph(o);
	record_switch_free(&sw);
	if (f.hold)
		record_hold_free(f.hold);
	live_run_close(&run);
	return cmd ? status : (d.error ? EXIT_RUNTIME : 0);
}

bool record_has_spe(const struct evlist *l)
{
	return spe_evlist_event(l) != NULL;
}

int record_spe_sample(struct sample_opts *o, struct evlist *l, char **cmd, int argc, char **argv)
{
	/* A file of its own in a private directory under TMPDIR (mkdtemp, mode 0700): no other user
	 * can plant a link or a file at its name or read it; removed with the directory after. */
	char *dir = outfile_private_dir();
	if (!dir)
		err_die_last(EXIT_RUNTIME);
	char *path = xasprintf("%s/spe.data", dir);
	const char *output = o->output;
	bool quiet = o->quiet;
	o->output = path;
	o->quiet = true; /* no "Captured and wrote" line for a file the user never sees */
	int status = record_run(o, l, cmd, argc, argv);
	o->output = output;
	o->quiet = quiet;
	struct session ss;
	struct session_tool tool = { 0 };
	struct session_opts so = { 0 };
	int rc = 0;
	if (session_open(&ss, path, &so, &tool) < 0) {
		err_warn("%s", err_msg());
		rc = EXIT_RUNTIME;
	} else {
		if (spe_recording(ss.reader)) {
			struct spe_view_opts vo = { .report = true, .rows = (unsigned)o->display_rows,
						    .annotate = o->annotate, .disassemble = o->disassemble };
			struct spe_view sv;
			int lr = spe_view_load(&ss, &vo, &sv);
			err_print_notes(&ss.notes);
			if (lr == 0)
				spe_print_view(stdout, &sv, o->json);
			rc = lr == 0 ? 0 : sv.bad_itrace ? EXIT_USAGE : EXIT_RUNTIME;
			spe_view_free(&sv);
		} else {
			err_warn("no Arm SPE data was recorded");
			rc = EXIT_RUNTIME;
		}
		session_close(&ss);
	}
	outfile_private_dir_remove(dir);
	free(dir);
	free(path);
	return cmd ? status : rc ? rc : status;
}

int cmd_record(int argc, char **argv)
{
	struct sample_opts o;
	char **cmd = sample_parse_options(&o, argc, argv, "record", usage, SAMPLE_OPTS_PERF);
	err_quiet = o.quiet;
	outfile_force = o.force; /* -f: replace a link or another user's file at -o */
	/* Off-CPU time needs a BPF program lperf does not have yet: said as a perf built without
	 * BPF skeletons says it (scripts skip on BUILD_BPF_SKEL), and the recording goes on. */
	if (o.off_cpu)
		fprintf(stderr, "Warning: option `off-cpu' is being ignored: lperf has no off-CPU "
			"profiling yet (perf says so when built without BUILD_BPF_SKEL=1)\n");

	struct evlist l = { 0 };
	if (sample_build_events(&o, &l) < 0)
		err_die_last(EXIT_USAGE);
	int line_argc;
	char **line = opt_command_line(&line_argc); /* stored in the file: "lperf record ..." */
	int rc = o.dry_run ? record_dry_run(&o, &l) : record_run(&o, &l, cmd, line_argc, line);
	evlist_free(&l);
	sample_opts_free(&o);
	return rc;
}

/* lperf sample, and the body wperf sample and wperf record share (cmd/wperf_sample.c maps
 * WindowsPerf's line onto the same request): the live source feeding the same session and
 * histograms as report (session/live_session.h), printing the hot-function tables at the end;
 * no file involved. The personalities differ only in the view (struct sample_view). */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/annot_view.h"
#include "cmd/cmd.h"
#include "cmd/offcpu_opts.h"
#include "cmd/sample_opts.h"
#include "events/evlist.h"
#include "events/spe_terms.h"
#include "output/pictures.h"
#include "output/report_out.h"
#include "output/spe_out.h"
#include "output/wperf_out.h"
#include "perfdata/perfdata.h"
#include "python/pystore.h"
#include "session/live_session.h"
#include "session/recording.h"
#include "spe/spe_view.h"
#include "target/target_image.h"
#include "util/error.h"
#include "util/opt.h"
#include "util/outfile.h"
#include "util/xalloc.h"

/* Progress: WindowsPerf's marks, '.' for a second with samples, 'e' for an empty one (lperf
 * sample: on stderr when it is a terminal; wperf: on stdout after the base address line). */
struct marks {
	FILE *f;                 /* NULL: no marks */
	double next;
	long batch;
	pid_t pid;               /* wperf: the sampled process, for the base address line */
	const char *name;
	bool started;            /* "sampling " printed */
	uint64_t base, delta;
};

static void marks_start(struct marks *m)
{
	if (m->f && !m->started)
		fprintf(m->f, "sampling ");
	m->started = true;
	if (m->f)
		fflush(m->f);
}

/* wperf's "base address of 'NAME': 0x..., runtime delta: 0x..." once the image is mapped. */
static void base_line(struct marks *m)
{
	if (m->started)
		return;
	if (m->pid > 0 && target_image_base(m->pid, &m->base, &m->delta) < 0)
		return; /* not exec'd yet: try at the next tick */
	if (m->f && m->pid > 0)
		fprintf(m->f, "base address of '%s': 0x%" PRIx64 ", runtime delta: 0x%" PRIx64 "\n", m->name,
			m->base, m->delta);
	marks_start(m);
}

static void mark_tick(long n, double now, void *arg)
{
	struct marks *m = arg;
	if (!m->started) {
		base_line(m);
		return;
	}
	m->batch += n;
	if (m->f && now >= m->next) {
		fputc(m->batch ? '.' : 'e', m->f);
		fflush(m->f);
		m->batch = 0;
		m->next = now + 1.0;
	}
}

/* What collects the samples: the profile, the annotation (--annotate, --disassemble, or wperf
 * -v's per-PC counts), the flame graph. */
struct sample_tools {
	struct profile p;
	struct annot_view av;
	bool annot;
	struct pictures_tee tee;
};

static void tools_init(struct sample_tools *t, struct session_tool *tool, const struct sample_opts *o,
		       const struct sample_view *v, struct live_run *run, struct session *ss, char **cmd)
{
	enum hist_key keys[] = { HK_SYM, HK_DSO };
	profile_init(&t->p, &run->evsels, keys, 2, HIST_GRAPH_NONE, false);
	*tool = (struct session_tool){ .sample = profile_sample, .arg = &t->p,
				       .callchains = o->callchain != LIVE_CG_NONE, .python_view = o->python };
	t->annot = o->annotate || o->disassemble || (v->wperf && o->verbose && (o->json || v->json_path));
	if (t->annot) {
		annot_view_init(&t->av, &t->p, &ss->machine, o->disassemble, o->display_rows);
		tool->sample = annot_view_sample;
		tool->arg = &t->av;
	}
	t->tee = (struct pictures_tee){ tool->sample, tool->arg };
	if (o->flamegraph) {
		pictures_tee_init(&t->tee, cmd, o->python);
		t->tee.st.python_nolineno = o->nolineno;
		tool->sample = pictures_tee_sample;
		tool->arg = &t->tee;
	}
}

/* wperf --export_perf_data: every record also goes to a perf.data writer (the events, the
 * records and the command line, as wperf's export). */
static int to_writer(const struct perf_event_header *h, void *arg)
{
	return perfdata_writer_write(arg, h, h->size);
}

static struct perfdata_writer *export_open(const struct sample_view *v, const struct live_run *run,
					   const struct evlist *l)
{
	struct perfdata_writer *w = perfdata_writer_open(v->export_perf_data);
	if (!w)
		err_die_last(EXIT_RUNTIME);
	for (size_t e = 0; e < l->n; e++)
		perfdata_writer_add_event(w, &run->live.attrs[e], l->ev[e].name, run->live.ids[e],
					  run->live.nids[e]);
	perfdata_writer_set_cmdline(w, v->argc, v->argv);
	return w;
}

static void render(const struct sample_opts *o, const struct sample_view *v, struct sample_tools *t,
		   const struct session *ss, const struct marks *m, double started)
{
	struct report_opts ro = { .max_rows = o->display_rows, .long_names = o->display_long, .by_period = o->wall };
	struct annot_view *annot = o->annotate || o->disassemble ? &t->av : NULL;
	uint64_t lost = ss->lost_records + ss->lost_samples;
	bool text = !o->json && !v->silent;
	if (o->verbose && text)
		printf("sample generated: %" PRIu64 "\nsample dropped  : %" PRIu64 "\nsample drop rate: %.2f%%\n\n",
		       ss->nsamples + lost, lost,
		       ss->nsamples + lost ? 100.0 * (double)lost / (double)(ss->nsamples + lost) : 0.0);
	if (v->wperf && (o->json || v->json_path)) {
		struct outfile of;
		FILE *jf = v->json_path ? outfile_fopen(&of, v->json_path) : stdout;
		if (!jf)
			err_die_last(EXIT_RUNTIME);
		struct wperf_sample_info in = { v->pe_file, v->pdb_file, o->display_rows, ss->nsamples + lost,
						lost, m->base, m->delta };
		wperf_sample_json(jf, &in, &t->p, &ro, annot, o->verbose && t->annot ? &t->av : NULL);
		if (jf != stdout && outfile_commit(&of, false) < 0)
			err_die_last(EXIT_RUNTIME);
	}
	if (text || (!v->wperf && o->json)) {
		struct report_totals tot = { ss->nsamples, ss->lost_records, ss->lost_samples, 0,
					     pystore_approx(ss->py), pystore_paused(ss->py), pystore_own(ss->py) };
		report_print(stdout, o->json ? STYLE_JSON : STYLE_WPERF, &ro, &t->p, &tot, "live", annot);
	}
	if (text)
		printf("%10.3f seconds time elapsed\n", run_now() - started);
	fflush(stdout);
}

/* record's run of o into path, quietly (a file the user never sees): its warnings and notes,
 * and with --flamegraph the picture of it; the exit status, the command's where one ran. */
static int spe_record(struct sample_opts *o, struct evlist *l, char **cmd, const struct sample_view *v,
		      const char *path)
{
	const char *output = o->output;
	bool quiet = o->quiet;
	o->output = path;
	o->quiet = true;
	struct recording_opts ro = { 0 };
	struct recording rec;
	struct recording_result d;
	sample_record(o, l, cmd, v->argc, v->argv, &ro, &rec, &d);
	struct notes said = NOTES_INIT;
	recording_notes(&rec, &d, &said);
	err_print_notes(&said);
	notes_clear(&said);
	if (o->flamegraph)
		sample_flamegraph(o, path);
	int status = rec.status;
	recording_free(&rec);
	o->output = output;
	o->quiet = quiet;
	return cmd ? status : (d.error ? EXIT_RUNTIME : 0);
}

/* Arm SPE: the records need the whole AUX stream, so the run is recorded as record does into a
 * perf.data of its own, report's SPE views are shown of it (o->annotate/o->disassemble: the
 * per-function blocks; o->json as JSON), and the file is removed. The exit status. */
static int spe_sample(struct sample_opts *o, struct evlist *l, char **cmd, const struct sample_view *v)
{
	/* A file of its own in a private directory under TMPDIR (mkdtemp, mode 0700): no other user
	 * can plant a link or a file at its name or read it; removed with the directory after. */
	char *dir = outfile_private_dir();
	if (!dir)
		err_die_last(EXIT_RUNTIME);
	char *path = xasprintf("%s/spe.data", dir);
	int status = spe_record(o, l, cmd, v, path);
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

int sample_command(struct sample_opts *o, struct evlist *l, char **cmd, const struct sample_view *v)
{
	if (spe_evlist_event(l)) /* Arm SPE: recorded whole, then its views */
		return spe_sample(o, l, cmd, v);
	struct sample_tools t = { 0 };
	if (o->symbols && filter_add_syms(&t.p.filter, o->symbols) < 0)
		err_die_last(EXIT_USAGE);
	if (cmd && sample_python_setup(o, cmd) < 0)
		err_die_last(EXIT_USAGE);
	struct live_run run;
	struct live_opts lo;
	sample_live_opts(o, &lo);
	struct live_run_target tg = { cmd, o->pid_list, o->tid_list, o->cpus_given ? &o->cpus : NULL, false };
	if (live_run_open(&run, &tg, l, &lo) < 0)
		err_die_last(EXIT_RUNTIME);
	struct session ss;
	struct session_tool tool;
	tools_init(&t, &tool, o, v, &run, &ss, cmd); /* the filter set above is kept */
	session_init(&ss, &run.evsels, &tool);
	if (o->wall) /* one profile of the on- and off-CPU samples */
		session_wall(&ss, &run.evsels);
	machine_perfmap_path_policy(&ss.machine, o->force);
	struct live_session_opts so = { o->timeout_s, o->python, o->python_frames, NULL, NULL, mark_tick, NULL };
	so.python_gil = (o->gil ? PYSTORE_GIL_ONLY : 0) | (o->wall ? PYSTORE_GIL_MARK : 0);
	so.python_nonblocking = o->nonblocking;
	so.python_rate_given = o->freq_given || o->period;
	if (v->offcpu) {
		so.starting = offcpu_opts_starting;
		so.ending = offcpu_opts_ending;
		so.hook_arg = v->offcpu;
	}
	struct perfdata_writer *w = v->export_perf_data ? export_open(v, &run, l) : NULL;
	so.tee = w ? to_writer : NULL;
	so.tee_arg = w;
	struct marks m = { .pid = v->wperf ? (run.command ? run.t.pid : v->pid) : 0, .name = v->name };
	if (v->wperf)
		m.f = v->silent || o->json ? NULL : stdout;
	else
		m.f = !o->quiet && isatty(STDERR_FILENO) && !o->json ? stderr : NULL;
	if (!m.pid || !run.command)
		base_line(&m); /* attached (or nothing to name): now; a started command once it runs */
	m.next = run_now() + 1.0;
	so.tick_arg = &m;
	struct live_session_result res;
	if (live_session_run(&run, &ss, &so, &res) < 0)
		err_die_last(EXIT_RUNTIME);
	if (m.f) {
		marks_start(&m);
		fprintf(m.f, "%s done!\n", v->wperf && run_stop_signal() == SIGINT ? "Ctrl-C received, quit counting..." : "");
	}
	if (res.failed)
		err_warn("sampling stopped early: %s", err_msg());
	if (w && (perfdata_writer_close(w, !res.tee_failed, false) < 0 || res.tee_failed))
		err_warn("--export_perf_data %s: not written: %s", v->export_perf_data, err_msg());
	profile_sort(&t.p, false);
	render(o, v, &t, &ss, &m, res.started);
	session_diagnose(&ss, o->verbose);
	live_open_notes(&run.live, &ss.notes);
	err_print_notes(&ss.notes);
	struct notes said = NOTES_INIT;
	if (o->flamegraph && pictures_tee_finish(&t.tee, o->flamegraph, ss.lost_records + ss.lost_samples, &said) < 0)
		err_warn("--flamegraph: %s", err_msg());
	err_print_notes(&said);
	notes_clear(&said);
	if (t.annot)
		annot_view_free(&t.av);
	session_free(&ss);
	profile_free(&t.p);
	live_run_close(&run);
	/* perf's record exits with its command's status; wperf's with its own (0 after --timeout
	 * stopped the command). */
	return cmd && !v->wperf ? res.status : (res.failed ? EXIT_RUNTIME : 0);
}

static const char *const usage[] = {
	"lperf sample [OPTIONS] [--] COMMAND [ARGS]",
	"lperf sample [OPTIONS] -p PID | -c CPUS | -a [--timeout DUR]",
	NULL,
};

int cmd_sample(int argc, char **argv)
{
	struct sample_opts o;
	char **cmd = sample_parse_options(&o, argc, argv, "sample", usage, SAMPLE_OPTS_WPERF);
	err_quiet = o.quiet;
	err_no_hints = o.json;
	struct evlist l = { 0 };
	struct offcpu_opts_run offcpu;
	if (sample_build_events(&o, &l) < 0 || offcpu_opts_setup(&offcpu, &o, &l) < 0)
		err_die_last(EXIT_USAGE);
	struct sample_view v = { .offcpu = &offcpu };
	v.argv = opt_command_line(&v.argc);
	int rc = sample_command(&o, &l, cmd, &v);
	offcpu_opts_close(&offcpu);
	evlist_free(&l);
	sample_opts_free(&o);
	return rc;
}

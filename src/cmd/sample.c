/* lperf sample (WindowsPerf's sampling command): the live source feeding the same session and
 * histograms as report, printing the hot-function tables at the end; no file involved. */
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "output/pictures.h"
#include "cmd/record_spe.h"
#include "live/run.h"
#include "cmd/annotate_view.h"
#include "cmd/report_view.h"
#include "cmd/sample_opts.h"
#include "events/evlist.h"
#include "python/pyrec.h"
#include "python/pystore.h"
#include "target/target.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static int to_session(const struct perf_event_header *h, void *arg)
{
	return session_push(arg, h);
}

/* With --python the records wait until the command has ended: CPython writes its jitdump in
 * large buffered chunks, so JIT code can only be named once the file is complete. */
struct held {
	struct strbuf buf;
};

static int hold(const struct perf_event_header *h, void *arg)
{
	struct held *hd = arg;
	sb_add(&hd->buf, h, h->size);
	return 0;
}

static int replay(struct session *ss, const struct held *hd)
{
	size_t off = 0;
	while (off + sizeof(struct perf_event_header) <= hd->buf.len) {
		const struct perf_event_header *h = (const void *)(hd->buf.buf + off);
		if (h->size < sizeof(*h) || h->size > hd->buf.len - off)
			break;
		if (session_push(ss, h) < 0)
			return -1;
		off += h->size;
	}
	return 0;
}

/* WindowsPerf's progress marks: '.' for a second with samples, 'e' for an empty one. */
struct marks {
	double next;
	long batch;
	bool tty;
	struct pyrec *py;        /* Python stacks read from the interpreter (python/pyrec.h) */
};

static void to_pystore(void *arg, int32_t pid, const uint8_t *blob, size_t len)
{
	struct session *ss = arg;
	if (!ss->py)
		ss->py = pystore_new();
	if (pystore_load(ss->py, pid, blob, len) < 0)
		err_warn("%s", err_msg());
}

static void mark_tick(long n, double now, void *arg)
{
	struct marks *m = arg;
	if (m->py)
		pyrec_poll(m->py, 0);
	m->batch += n;
	if (m->tty && now >= m->next) {
		fputc(m->batch ? '.' : 'e', stderr);
		m->batch = 0;
		m->next = now + 1.0;
	}
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
	struct evlist l = { 0 };
	if (sample_build_events(&o, &l) < 0)
		err_die_last(EXIT_USAGE);
	struct profile p = { 0 };
	if (o.symbols && filter_add_syms(&p.filter, o.symbols) < 0)
		err_die_last(EXIT_USAGE);

	if (record_has_spe(&l)) { /* Arm SPE: recorded whole, then its views (record_spe.c) */
		int rc = record_spe_sample(&o, &l, cmd, argc + 1, argv - 1);
		profile_free(&p);
		evlist_free(&l);
		sample_opts_free(&o);
		return rc;
	}
	if (cmd && sample_python_setup(&o, cmd) < 0)
		err_die_last(EXIT_USAGE);
	struct live_run run;
	struct live_opts lo;
	sample_live_opts(&o, &lo);
	struct live_run_target tg = { cmd, o.pid_list, o.tid_list, o.cpus_given ? &o.cpus : NULL, false };
	if (live_run_open(&run, &tg, &l, &lo) < 0)
		err_die_last(EXIT_RUNTIME);
	enum hist_key keys[] = { HK_SYM, HK_DSO };
	bool chains = o.callchain != LIVE_CG_NONE;
	profile_init(&p, &run.evsels, keys, 2, HIST_GRAPH_NONE, false);
	struct session ss;
	struct session_tool tool = { .sample = profile_sample, .arg = &p, .callchains = chains,
				     .python_view = o.python };
	struct annot_view av;
	if (o.annotate || o.disassemble) {
		annot_view_init(&av, &p, &ss.machine, o.disassemble, o.display_rows);
		tool.sample = annot_view_sample;
		tool.arg = &av;
	}
	struct pictures_tee tee = { tool.sample, tool.arg };
	if (o.flamegraph) {
		pictures_tee_init(&tee, cmd, o.python);
		tool.sample = pictures_tee_sample;
		tool.arg = &tee;
	}
	session_init(&ss, &run.evsels, &tool);
	machine_perfmap_path_policy(&ss.machine, o.force);
	live_run_synthesize(&run, to_session, &ss);

	struct marks mk = { run_now() + 1.0, 0, !o.quiet && isatty(STDERR_FILENO) && !o.json, NULL };
	if (o.python_frames) {
		mk.py = pyrec_start(run.live.fds, run.live.nev * run.live.ncols * run.live.nrows, run.t.pid,
				    run.command, run.t.tids, run.t.ntids);
		char *line = pyrec_fallback_line(mk.py);
		if (line)
			err_warn("%s", line);
		free(line);
	}
	if (mk.tty)
		fprintf(stderr, "sampling ");
	double start = run_now();
	struct held hd = { STRBUF_INIT };
	record_cb sink = o.python ? hold : to_session;
	void *sink_arg = o.python ? (void *)&hd : (void *)&ss;
	int status;
	if (live_run_start(&run) < 0)
		err_die_last(EXIT_RUNTIME);
	int lr = live_run_loop(&run, o.timeout_s, sink, sink_arg, mark_tick, &mk, &status);
	int err = lr < 0;
	if (mk.py) {
		pyrec_poll(mk.py, 0);
		pyrec_store(mk.py, to_pystore, &ss);
		pyrec_free(mk.py);
	}
	if (o.python && replay(&ss, &hd) < 0)
		err = 1;
	sb_release(&hd.buf);
	session_flush(&ss);
	if (mk.tty)
		fprintf(stderr, " done!\n");
	if (err)
		err_warn("sampling stopped early: %s", err_msg());

	struct report_view v = { .style = o.json ? STYLE_JSON : STYLE_WPERF };
	v.ro.max_rows = o.display_rows;
	v.ro.long_names = o.display_long;
	if (o.annotate || o.disassemble)
		v.annot = &av;
	profile_sort(&p, false);
	if (o.verbose && !o.json) {
		uint64_t lost = ss.lost_records + ss.lost_samples;
		printf("sample generated: %" PRIu64 "\nsample dropped  : %" PRIu64 "\nsample drop rate: %.2f%%\n\n",
		       ss.nsamples + lost, lost,
		       ss.nsamples + lost ? 100.0 * (double)lost / (double)(ss.nsamples + lost) : 0.0);
	}
	report_view_print(stdout, &v, &p, &ss, "live");
	if (!o.json)
		printf("%10.3f seconds time elapsed\n", run_now() - start);
	report_warnings(&ss, o.quiet, o.verbose);
	struct notes said = NOTES_INIT;
	if (o.flamegraph && pictures_tee_finish(&tee, o.flamegraph, ss.lost_records + ss.lost_samples, &said) < 0)
		err_warn("--flamegraph: %s", err_msg());
	err_print_notes(&said);
	notes_clear(&said);
	if (v.annot)
		annot_view_free(&av);
	session_free(&ss);
	profile_free(&p);
	live_run_close(&run);
	evlist_free(&l);
	sample_opts_free(&o);
	return cmd ? status : (err ? EXIT_RUNTIME : 0);
}

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
#include "cmd/report_view.h"
#include "cmd/sample_opts.h"
#include "events/evlist.h"
#include "target/target.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

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

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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

	if (cmd && sample_python_setup(&o, cmd) < 0)
		err_die_last(EXIT_USAGE);
	struct target t = TARGET_INIT;
	struct live_opts lo;
	sample_live_opts(&o, &lo);
	if (cmd) {
		if (target_start_command(&t, cmd, o.cpus_given ? &o.cpus : NULL) < 0)
			err_die_last(EXIT_RUNTIME);
		lo.pids = &t.pid;
		lo.npids = 1;
		lo.enable_on_exec = true;
	} else if (o.pid_list) {
		if (target_attach_pids(&t, o.pid_list) < 0)
			err_die_last(EXIT_RUNTIME);
		lo.pids = t.tids;
		lo.npids = t.ntids;
	}
	struct live live;
	if (live_open(&live, &l, &lo) < 0) {
		target_free(&t);
		err_die_last(EXIT_RUNTIME);
	}
	struct evsel_set evsels = { xcalloc(l.n, sizeof(struct evsel)), l.n };
	for (size_t e = 0; e < l.n; e++) {
		evsels.v[e].attr = live.attrs[e];
		evsels.v[e].name = l.ev[e].name;
		evsels.v[e].ids = live.ids[e];
		evsels.v[e].nids = live.nids[e];
		evsels.v[e].idx = (int)e;
	}
	enum hist_key keys[] = { HK_SYM, HK_DSO };
	bool chains = o.callchain != LIVE_CG_NONE;
	profile_init(&p, &evsels, keys, 2, HIST_GRAPH_NONE, false);
	struct session ss;
	struct session_tool tool = { .sample = profile_sample, .arg = &p, .callchains = chains,
				     .python_view = o.python };
	session_init(&ss, &evsels, &tool);
	machine_perfmap_path_policy(&ss.machine, o.force);

	const struct perf_event_attr *a0 = &live.attrs[0];
	synth_kernel(a0, to_session, &ss);
	if (!cmd && !o.pid_list)
		synth_all_processes(a0, to_session, &ss);
	else if (o.pid_list)
		synth_process(a0, t.pid, to_session, &ss);

	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	bool tty = !o.quiet && isatty(STDERR_FILENO) && !o.json;
	if (tty)
		fprintf(stderr, "sampling ");
	if (!cmd)
		live_enable(&live);
	if (cmd && target_go(&t) < 0)
		err_die_last(EXIT_RUNTIME);
	double start = now_s(), deadline = o.timeout_s > 0 ? start + o.timeout_s : INFINITY;
	double next_mark = start + 1.0;
	long batch = 0;
	int status = 0, err = 0;
	bool ended = false, signalled = false;
	const struct perf_event_header round = { REC_FINISHED_ROUND, 0, sizeof(round) };
	struct held hd = { STRBUF_INIT };
	record_cb sink = o.python ? hold : to_session;
	void *sink_arg = o.python ? (void *)&hd : (void *)&ss;
	while (!ended) {
		long n = live_read(&live, 100, sink, sink_arg);
		if (n < 0) {
			err = 1;
			break;
		}
		if (n > 0)
			sink(&round, sink_arg);
		batch += n;
		double now = now_s();
		if (tty && now >= next_mark) {
			/* WindowsPerf's marks: '.' a second with samples, 'e' an empty one. */
			fputc(batch ? '.' : 'e', stderr);
			batch = 0;
			next_mark = now + 1.0;
		}
		if (cmd) {
			struct rusage ru;
			if (target_wait(&t, 0, &status, &ru) == 0)
				ended = true;
			if (!ended && ((stop_signal && !signalled) || now >= deadline)) {
				if (stop_signal != SIGINT)
					kill(t.pid, stop_signal ? stop_signal : SIGTERM);
				signalled = true;
				deadline = INFINITY;
			}
		} else if (stop_signal || now >= deadline || (o.pid_list && !target_alive(&t))) {
			ended = true;
		}
	}
	live_disable(&live);
	if (!err && live_read(&live, 0, sink, sink_arg) < 0)
		err = 1;
	if (o.python && replay(&ss, &hd) < 0)
		err = 1;
	sb_release(&hd.buf);
	session_flush(&ss);
	if (tty)
		fprintf(stderr, " done!\n");
	if (err)
		err_warn("sampling stopped early: %s", err_msg());

	struct report_view v = { .style = o.json ? STYLE_JSON : STYLE_WPERF };
	v.ro.max_rows = o.display_rows;
	v.ro.long_names = o.display_long;
	profile_sort(&p, false);
	if (o.verbose && !o.json) {
		uint64_t lost = ss.lost_records + ss.lost_samples;
		printf("sample generated: %" PRIu64 "\nsample dropped  : %" PRIu64 "\nsample drop rate: %.2f%%\n\n",
		       ss.nsamples + lost, lost,
		       ss.nsamples + lost ? 100.0 * (double)lost / (double)(ss.nsamples + lost) : 0.0);
	}
	report_view_print(stdout, &v, &p, &ss, "live");
	if (!o.json)
		printf("%10.3f seconds time elapsed\n", now_s() - start);
	report_warnings(&ss, o.quiet);
	session_free(&ss);
	profile_free(&p);
	free(evsels.v);
	live_close(&live);
	target_free(&t);
	evlist_free(&l);
	sample_opts_free(&o);
	return cmd ? status : (err ? EXIT_RUNTIME : 0);
}

/* lperf stat: counting. Parses perf's options (WindowsPerf's parser fills the same request for
 * `wperf stat`), builds the event list (events and metrics), opens counters on the target, runs
 * until the command ends / the timeout / Ctrl-C (printing interval rows on the way), and renders
 * the totals in perf's layouts, lperf's JSON document or another personality's view. */
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/stat_opts.h"
#include "events/evlist.h"
#include "events/metric.h"
#include "kernel/counter.h"
#include "kernel/perf_event.h"
#include "output/prom_out.h"
#include "output/prom_rw.h"
#include "output/stat_out.h"
#include "output/stat_perf.h"
#include "output/table.h"
#include "stat/stat_aggr.h"
#include "stat/stat_cumul.h"
#include "stat/stat_plan.h"
#include "stat/stat_run.h"
#include "stat/stat_result.h"
#include "target/run_loop.h"
#include "target/target.h"
#include "util/error.h"
#include "util/outfile.h"
#include "util/fileio.h"
#include "util/httpc.h"
#include "util/httpd.h"
#include "util/pushq.h"
#include "util/parse.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

struct run_ctx {
	struct stat_opts *o;
	char **cmd;
	struct statout_opts out;       /* --json-doc */
	struct statperf_opts pout;     /* perf's layouts */
	FILE *f;
	struct outfile of;             /* -o FILE (has_of) */
	bool has_of;
	struct stat_result *intervals; /* kept for --json-doc */
	size_t nintervals, icap;
	unsigned nprinted;             /* interval blocks printed */
	bool progress;                 /* "counting ... done" around each run */
	int prom_fd;                   /* --prometheus: the listening socket, -1 without */
	struct stat_result prom;       /* ...and the counts since the start (also for the pushes) */
	bool prom_have;
	/* --remote-write and --textfile: every push_ms, the counts since the start */
	struct httpc *http;
	struct prom_rw rw;             /* the series, made at the first push */
	struct pushq q;
	bool rw_ready, said_refused, said_textfile;
	double *vals;
	int64_t last_ts;               /* of the last snapshot: each is later than the one before */
	double next_push;              /* run_now() */
	char *textfile;                /* DIR/lperf.prom */
};

static char *prom_page(void *arg)
{
	struct run_ctx *rc = arg;
	if (!rc->prom_have) /* scraped before the first interval: the families without samples */
		return xstrdup("# TYPE lperf_event_total counter\n");
	return prom_format(&rc->prom, rc->o->prom_labels);
}

static int rw_send(const struct pushq *q, size_t n, void *arg)
{
	struct run_ctx *rc = arg;
	char *body;
	size_t len;
	if (prom_rw_encode(&rc->rw, q, n, &body, &len) < 0)
		return 2;
	const char *reply = "";
	int st = httpc_post(rc->http, body, len, prom_rw_headers, &reply);
	free(body);
	if (st < 0)
		return 1;
	if (st / 100 == 2)
		return 0;
	err_set("%s answered HTTP %d%s%s", rc->o->remote_write, st, *reply ? ": " : "", reply);
	/* 5xx and 429 (too many requests) are worth another try; any other answer is final */
	return st / 100 == 5 || st == 429 ? 1 : 2;
}

/* Says what a flush did: an outage once when it starts and once when it ends. */
static void rw_report(struct run_ctx *rc, enum pushq_event ev)
{
	const char *url = rc->o->remote_write;
	switch (ev) {
	case PUSHQ_FAILED:
		err_warn("--remote-write: %s; counting goes on, and the counts are pushed again with "
			 "back-off", err_msg());
		break;
	case PUSHQ_RESUMED:
		err_warn("--remote-write: pushing to %s again after %llu failed attempts%s", url,
			 (unsigned long long)rc->q.failed, rc->q.dropped ? " (the oldest periods were "
			 "dropped for room; the totals are whole)" : "");
		break;
	case PUSHQ_REJECTED:
		if (!rc->said_refused)
			err_warn("--remote-write: %s; refused periods are not sent again", err_msg());
		rc->said_refused = true;
		break;
	default:
		break;
	}
}

/* --remote-write, --textfile: the counts since the start (r), queued and pushed / written. */
static void push(struct run_ctx *rc, const struct stat_result *r, bool last)
{
	const struct stat_opts *o = rc->o;
	if (o->textfile) {
		char *text = prom_format(r, o->prom_labels);
		if (outfile_write(rc->textfile, text, strlen(text), 0644) < 0 && !rc->said_textfile) {
			err_warn("--textfile: %s", err_msg());
			rc->said_textfile = true;
		}
		free(text);
	}
	if (!rc->http)
		return;
	if (!rc->rw_ready) {
		char host[256] = "localhost";
		gethostname(host, sizeof(host) - 1);
		const char *extra[] = { "instance", host, "job", "lperf", NULL };
		prom_rw_init(&rc->rw, r, o->prom_labels, extra);
		pushq_init(&rc->q, rc->rw.n, 8 << 20, o->push_ms);
		rc->vals = xcalloc(rc->rw.n ? rc->rw.n : 1, sizeof(double));
		rc->rw_ready = true;
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	int64_t ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	rc->last_ts = ms > rc->last_ts ? ms : rc->last_ts + 1;
	prom_rw_values(r, o->prom_labels, rc->vals, rc->rw.n);
	pushq_add(&rc->q, rc->last_ts, rc->vals);
	rw_report(rc, pushq_flush(&rc->q, (int64_t)(run_now() * 1000), last, rw_send, rc));
	if (last && rc->q.n)
		err_warn("--remote-write: the last %zu periods could not be pushed", rc->q.n);
}

/* --prometheus: the interval adds to the running counts, then the scrapes waiting are served. */
static void prom_interval(struct run_ctx *rc, const struct stat_result *delta)
{
	if (!rc->prom_have) {
		stat_result_dup(&rc->prom, delta);
		rc->prom_have = true;
		rc->prom.duration = delta->timestamp;
	} else {
		stat_cumul_add(&rc->prom, delta);
	}
	if (rc->prom_fd >= 0)
		httpd_serve(rc->prom_fd, PROM_CONTENT_TYPE, prom_page, rc);
	if ((rc->http || rc->textfile) && run_now() >= rc->next_push) {
		push(rc, &rc->prom, false);
		rc->next_push = run_now() + rc->o->push_ms / 1000.0;
	}
}

static bool exporting(const struct run_ctx *rc)
{
	return rc->prom_fd >= 0 || rc->http || rc->textfile;
}

static void emit_interval(struct run_ctx *rc, struct stat_result *delta, bool first)
{
	if (exporting(rc)) {
		prom_interval(rc, delta);
		if (!rc->o->interval_ms)
			return; /* the intervals were only for the scrapes */
	}
	if (rc->o->view && rc->o->view->interval) {
		rc->o->view->interval(delta, rc->o->view->arg);
	} else if (rc->o->json_doc) {
		ALLOC_GROW(rc->intervals, rc->nintervals + 1, rc->icap);
		stat_result_dup(&rc->intervals[rc->nintervals++], delta);
	} else {
		statperf_interval(rc->f, delta, &rc->pout, rc->nprinted++);
	}
	(void)first;
}

static void on_opened(bool kernel_excluded, void *arg)
{
	struct run_ctx *rc = arg;
	if (kernel_excluded && !rc->o->noted_user_only) {
		err_note("kernel-mode counting is not permitted (kernel.perf_event_paranoid is %d): "
			 "counting user mode only", pe_paranoid());
		rc->o->noted_user_only = true;
	}
}

static void on_interval(struct stat_result *delta, bool first, void *arg)
{
	emit_interval(arg, delta, first);
}

static void before_run(int index, void *arg)
{
	struct run_ctx *rc = arg;
	if (rc->progress)
		fprintf(stderr, "counting ...");
}

static void after_run(const struct stat_result *run, int index, void *arg)
{
	struct run_ctx *rc = arg;
	const struct stat_opts *o = rc->o;
	if (rc->progress)
		fprintf(stderr, " done\n");
	if (o->view && o->view->after)
		o->view->after(run, index, o->view->arg);
	if (o->view && !o->pause && o->repeat > 1 && rc->cmd && !o->quiet && isatty(STDERR_FILENO))
		fprintf(stderr, "\rrun %d of %d", index + 1, o->repeat);
}

static void paused(bool begin, void *arg)
{
	const struct stat_opts *o = ((struct run_ctx *)arg)->o;
	if (o->view && o->view->paused)
		o->view->paused(begin, o->view->arg);
}

/* Every run (-r, a timeline): open, count until the end condition, read. Fills acc. */
static int run_all(struct run_ctx *rc, struct stat_plan *p, struct stat_result *acc, struct stat_run_info *info)
{
	struct stat_opts *o = rc->o;
	struct stat_run_opts ro = {
		.cmd = rc->cmd, .pid_list = o->pid_list, .tid_list = o->tid_list, .cpus = &o->cpus,
		.pin_to = o->pin_cpus, .no_inherit = o->no_inherit,
		.stdout_to_stderr = o->stdout_to_stderr, .allow_none = o->allow_none,
		.per_thread = o->aggr == STAT_AGGR_THREAD,
		.timeout_s = o->timeout_s, .interval_count = o->interval_count,
		/* --prometheus counts in steps of 100 ms, serving scrapes between them; the pushes
		 * every --push-interval */
		.interval_ms = o->interval_ms ? o->interval_ms : rc->prom_fd >= 0 ? 100 :
			       exporting(rc) ? (o->push_ms ? o->push_ms : 10000) : 0,
		.metrics = p->metrics, .nmetrics = p->nmetrics,
		.unit_metrics = p->unit_metrics, .nunit_metrics = p->nunit_metrics,
		.opened = on_opened, .interval = on_interval, .arg = rc,
	};
	struct stat_series s = {
		.runs = o->pause ? o->repeat : o->repeat > 0 ? o->repeat : 1, .pause = o->pause, .pause_s = o->pause_s,
		.before = before_run, .after = after_run, .paused = paused, .arg = rc,
	};
	/* WindowsPerf's "counting ... done"; perf prints nothing while it counts. */
	rc->progress = o->view && !rc->cmd && !o->interval_ms && !o->quiet && isatty(STDERR_FILENO);
	return stat_run_series(&ro, &p->l, &s, acc, info);
}

/* What perf's heading names: the command, or the system, CPUs, process or thread counted. */
static char *target_description(const struct stat_opts *o, char **cmd)
{
	struct strbuf sb = STRBUF_INIT;
	if (o->system_wide) {
		sb_adds(&sb, "'system wide'");
	} else if (o->cpus.n) {
		sb_addf(&sb, "'CPU(s) %s'", o->cpu_list);
	} else if (o->pid_list) {
		sb_addf(&sb, "process id '%s'", o->pid_list);
	} else if (o->tid_list) {
		sb_addf(&sb, "thread id '%s'", o->tid_list);
	} else if (cmd) {
		sb_addc(&sb, '\'');
		for (char **a = cmd; *a; a++)
			sb_addf(&sb, "%s%s", a == cmd ? "" : " ", *a);
		sb_addc(&sb, '\'');
	}
	return sb_detach(&sb);
}

/* Events without modifiers of their own get perf's ":u" when only user mode may be counted. */
static void name_user_only(struct evlist *l)
{
	for (size_t e = 0; e < l->n; e++) {
		struct ev *ev = &l->ev[e];
		if (ev->user_mods || ev->source == EV_SRC_TOOL)
			continue;
		char *name = xasprintf("%s:u", ev->name);
		free(ev->name);
		ev->name = name;
	}
}

/* The events to count: -e, the events of each -m metric, or the defaults. Exits on a bad name. */
static void build_plan(const struct stat_opts *o, struct stat_plan *p)
{
	struct stat_plan_req req = {
		.events = sb_str(&o->events), .metrics = sb_str(&o->metrics),
		.metric_files = o->metric_files, .nmetric_files = o->nmetric_files,
		.keep_unavailable = o->dry_run, .null_run = o->null_run,
		.wperf_simple = o->wperf_simple,
		.cpu_wide = o->system_wide || o->cpus.n,
		.cgroups = o->have_cgroups ? sb_str(&o->cgroups) : NULL, .cg_prefix = o->cg_prefix,
	};
	int r = stat_plan_build(p, &req);
	if (r == STAT_PLAN_UNAVAILABLE)
		err_die_last(EXIT_RUNTIME);
	if (r < 0)
		err_die_last(EXIT_USAGE);
}

/* The totals (the means over -r runs) through the chosen renderer. */
static void render(struct run_ctx *rc, const struct stat_result *acc, const struct evlist *l)
{
	const struct stat_opts *o = rc->o;
	rc->out.modes = stat_plan_modes(l);

	if (o->view) {
		if (o->view->final)
			o->view->final(acc, o->view->arg);
	} else if (o->json_doc) {
		statout_json(rc->f, acc, rc->intervals, rc->nintervals, &rc->out);
	} else if (!o->interval_ms || o->summary) {
		statperf_print(rc->f, acc, &rc->pout);
	}
}

/* The renderers' options and the stream: perf writes its counts to standard error, lperf's
 * --json-doc and another personality's view go to standard output; -o FILE gets either,
 * through a temporary file renamed at the end (rc->of). */
static void setup_output(struct run_ctx *rc, const char *desc)
{
	const struct stat_opts *o = rc->o;
	rc->out.target = desc;
	rc->out.per_cpu = o->per_cpu || o->aggr == STAT_AGGR_NONE;
	rc->out.big_num = o->big_num;
	rc->out.sep = o->csv_sep ? o->csv_sep : ",";
	rc->out.verbose = o->verbose > 0;
	rc->out.show_formula = o->verbose > 0;
	struct statperf_opts *po = &rc->pout;
	po->layout = o->json ? STATPERF_JSON : o->csv_sep ? STATPERF_CSV : STATPERF_TEXT;
	po->aggr = o->aggr;
	po->target = desc;
	po->sep = o->csv_sep;
	po->big_num = o->big_num;
	po->metric_only = o->metric_only;
	po->summary = o->summary && o->interval_ms;
	po->csv_summary = !o->no_csv_summary;
	po->rusage = rc->cmd && !o->system_wide && !o->cpus.n && !o->pid_list && !o->tid_list;
	po->hide_idle = o->system_wide;
	po->no_scale = o->no_scale;
	if (o->big_num)
		setlocale(LC_NUMERIC, "");

	rc->f = o->view || o->json_doc ? stdout : stderr;
	if (o->log_fd > 0 && !o->output && !(rc->f = fdopen(o->log_fd, "a")))
		err_die(EXIT_RUNTIME, "--log-fd %d: %s", o->log_fd, strerror(errno));
	if (!o->output)
		return;
	/* --append adds to the file in place; otherwise a new file replaces it at the end
	 * (util/outfile.h: never through another user's link or file). */
	rc->f = o->append ? outfile_fappend(&rc->of, o->output) : outfile_fopen(&rc->of, o->output);
	if (!rc->f)
		err_die_last(EXIT_RUNTIME);
	rc->has_of = true;
	if (!o->view && !o->json_doc) {
		time_t now = time(NULL);
		fprintf(rc->f, "# started on %s\n", ctime(&now));
	}
}

int stat_main(int argc, char **argv)
{
	struct stat_opts o;
	char **cmd = stat_parse_options(&o, argc, argv);
	return stat_command(&o, cmd);
}

int stat_command(struct stat_opts *op, char **cmd)
{
	struct stat_opts o = *op;
	err_quiet = o.quiet;

	struct stat_plan p;
	build_plan(&o, &p);

	if (o.kernel && !pe_kernel_allowed())
		err_die(EXIT_RUNTIME, "-k asks for kernel-mode counting, which kernel.perf_event_paranoid "
			"(%d) forbids for this user; run as root or with CAP_PERFMON, or set "
			"kernel.perf_event_paranoid to 1 or less", pe_paranoid());
	if (!pe_kernel_allowed() && !o.user_only && o.allow_none) {
		/* perf's fallback: user mode only, said by the names (task-clock:u), no note. */
		evlist_set_default_excludes(&p.l, true);
		name_user_only(&p.l);
		o.noted_user_only = true;
	} else if (!pe_kernel_allowed() && !o.user_only) {
		evlist_set_default_excludes(&p.l, true);
		err_note("kernel-mode counting is not permitted (kernel.perf_event_paranoid is %d): "
			 "counting user mode only", pe_paranoid());
		o.noted_user_only = true;
	} else if (o.user_only && !o.kernel) {
		evlist_set_default_excludes(&p.l, true);
	}

	if (o.dry_run) {
		statout_dry_run(stdout, &p.l);
		stat_plan_free(&p);
		stat_opts_free(&o);
		return 0;
	}
	if ((o.system_wide || o.cpus.n) && !pe_cpu_wide_allowed())
		err_die(EXIT_RUNTIME, "counting CPUs (-a, -C, -c) needs root or CAP_PERFMON, or "
			"kernel.perf_event_paranoid <= 0 (it is %d); count a command or -p PID instead",
			pe_paranoid());

	if (o.aggr == STAT_AGGR_THREAD) {
		/* A counter per thread and event: perf lifts the open-file limit to its hard limit too. */
		struct rlimit rl;
		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	struct run_ctx rc = { .o = &o, .cmd = cmd, .prom_fd = -1 };
	if (o.prometheus && (rc.prom_fd = httpd_listen(o.prometheus)) < 0)
		err_die(EXIT_USAGE, "--prometheus: %s", err_msg());
	if (o.remote_write && !(rc.http = httpc_new(o.remote_write)))
		err_die(EXIT_USAGE, "--remote-write: %s", err_msg());
	if (!o.push_ms)
		o.push_ms = 10000;
	if (o.textfile)
		rc.textfile = xasprintf("%s/lperf.prom", o.textfile);
	char *desc = target_description(&o, cmd);
	setup_output(&rc, desc);
	run_signals_install();
	if (o.sync)
		sync();

	struct stat_result acc;
	struct stat_run_info info;
	if (run_all(&rc, &p, &acc, &info) < 0) {
		if (rc.has_of)
			outfile_abort(&rc.of);
		err_die_last(EXIT_RUNTIME);
	}
	if (o.view && !o.pause && o.repeat > 1 && !o.quiet && isatty(STDERR_FILENO))
		fputc('\n', stderr);
	/* the last push: the final counts, those printed */
	if ((rc.http || rc.textfile) && rc.prom_have)
		push(&rc, acc.nev == rc.prom.nev && acc.ncpus == rc.prom.ncpus ? &acc : &rc.prom, true);
	render(&rc, &acc, &p.l);
	int exit_code = info.ran_command ? info.status : 0;

	if (rc.has_of) {
		if (outfile_commit(&rc.of, false) < 0)
			err_die_last(EXIT_RUNTIME);
	} else if (rc.f != stdout && rc.f != stderr && fclose(rc.f) != 0) {
		err_die(EXIT_RUNTIME, "cannot write '%s': %s", o.output ? o.output : "--log-fd", strerror(errno));
	}
	for (size_t i = 0; i < rc.nintervals; i++)
		stat_result_free(&rc.intervals[i]);
	free(rc.intervals);
	stat_result_free(&acc);
	if (rc.prom_have)
		stat_result_free(&rc.prom);
	if (rc.prom_fd >= 0)
		close(rc.prom_fd);
	if (rc.rw_ready) {
		pushq_free(&rc.q);
		prom_rw_free(&rc.rw);
		free(rc.vals);
	}
	httpc_free(rc.http);
	free(rc.textfile);
	free(desc);
	stat_plan_free(&p);
	stat_opts_free(&o);
	return exit_code;
}

/* lperf top: live sampling (system-wide by default, or -p PID, a command, -C CPUS) through the
 * same live session and resolver as lperf sample (session/live_session.h), shown every -d
 * seconds as perf top's table with decaying counts (analysis/topview.h), on a terminal in the
 * browser (tui/), else as refreshed text (--stdio). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "analysis/annot.h"
#include "analysis/topview.h"
#include "cmd/cmd.h"
#include "cmd/sample_opts.h"
#include "events/evlist.h"
#include "output/pictures.h"
#include "output/top_out.h"
#include "python/pystore.h"
#include "session/live_session.h"
#include "tui/tui.h"
#include "tui/tui_annot.h"
#include "util/error.h"
#include "util/opt.h"
#include "util/parse.h"
#include "target/run_loop.h"

struct top_args {
	struct sample_opts o;
	double delay_s;
	bool zero, stdio, tui;
	int rows;
};

static int opt_delay_s(const struct option *opt, const char *arg)
{
	struct top_args *a = opt->value;
	char *end;
	a->delay_s = strtod(arg, &end);
	if (*end || end == arg || a->delay_s < 0.1 || a->delay_s > 3600)
		return err_set("'%s' is not a refresh delay in seconds (0.1 to 3600)", arg);
	return 0;
}

static const char *const usage[] = {
	"lperf top [OPTIONS]                 (every CPU)",
	"lperf top [OPTIONS] -p PID | -C CPUS | -- COMMAND [ARGS]",
	NULL,
};

static char **parse_top(struct top_args *a, int argc, char **argv)
{
	struct sample_opts *o = &a->o;
	memset(a, 0, sizeof(*a));
	o->compression_level = 0;
	o->output = NULL;
	o->clockid = CLOCK_MONOTONIC;
	o->display_rows = 50;
	a->delay_s = 2.0;
	const struct option opts[] = {
		{ OPT_CALLBACK, 'e', "event", o, "EVENTS", "events to sample (default cycles, or cpu-clock "
		  "without a PMU)", sample_opt_event },
		{ OPT_CALLBACK, 'F', "freq", o, "HZ", "samples per second (default 1000)", sample_opt_freq },
		{ OPT_CALLBACK, 'g', NULL, o, NULL, "call chains: Children and Self columns", sample_opt_g, OPT_NOARG },
		{ OPT_CALLBACK, 0, "call-graph", o, "MODE", "fp, or dwarf[,SIZE]", sample_opt_call_graph },
		{ OPT_STRING, 'p', "pid", &o->pid_list, "PID", "existing process(es)" },
		{ OPT_STRING, 't', "tid", &o->tid_list, "TID", "existing thread(s)" },
		{ OPT_BOOL, 'a', "all-cpus", &o->system_wide, NULL, "every CPU (the default)" },
		{ OPT_CALLBACK, 'C', "cpu", o, "CPUS", "only these CPUs", sample_opt_cpus },
		{ OPT_CALLBACK, 'd', "delay", a, "SECS", "refresh every SECS seconds (default 2)", opt_delay_s },
		{ OPT_BOOL, 'z', "zero", &a->zero, NULL, "zero the counts at each refresh (no decay)" },
		{ OPT_INT, 'E', "entries", &a->rows, "N", "show N rows (default: what fits; --stdio 30)" },
		{ OPT_BOOL, 0, "stdio", &a->stdio, NULL, "a refreshed text table (the default when not a terminal)" },
		{ OPT_BOOL, 0, "tui", &a->tui, NULL, "the browser (the default on a terminal)" },
		{ OPT_BOOL, 0, "python", &o->python, NULL, "Python functions with own/total time and "
		  "line numbers (a command, or -p PID)" },
		SAMPLE_PYSPY_OPTS(o),
		{ OPT_CALLBACK, 0, "timeout", o, "DUR", "stop after DUR (2.5s, 1m)", sample_opt_timeout },
		{ OPT_BOOL, 'f', "force", &o->force, NULL, "use JIT symbol files whoever owns them" },
		{ OPT_BOOL, 'q', "quiet", &o->quiet, NULL, "no notes" },
		OPT_END_(),
	};
	struct opt_ctx ctx = { "top", usage, opts, true };
	int i = opt_parse(&ctx, argc, argv);
	char **cmd = i < argc ? argv + i : NULL;
	if (!!o->pid_list + !!o->tid_list + (cmd != NULL) > 1)
		opt_usage_error(&ctx, "give one target: a command, -p or -t");
	if (o->system_wide && o->cpus_given)
		opt_usage_error(&ctx, "-a samples every CPU; give either -a or a CPU list");
	if (a->stdio && a->tui)
		opt_usage_error(&ctx, "give either --stdio or --tui");
	if (a->rows < 0)
		opt_usage_error(&ctx, "--entries must be 0 or more");
	if (!o->pid_list && !o->tid_list && !cmd && !o->cpus_given)
		o->system_wide = true;
	if (!o->cpus_given && cpuset_online(&o->cpus) < 0)
		err_die_last(EXIT_RUNTIME);
	if (!o->freq && !o->period)
		o->freq = 1000;
	if (o->gil) /* the GIL holder is read with the frames, from the interpreter */
		o->python = o->python_frames = true;
	if (o->python && !cmd && !o->pid_list && !o->tid_list)
		opt_usage_error(&ctx, "--%s needs the Python: give -p PID or the command", o->gil ? "gil" : "python");
	if (o->python && !cmd) {
		o->python_frames = true;
		if (o->callchain == LIVE_CG_NONE) {
			o->callchain = LIVE_CG_DWARF;
			o->stack_size = 16384;
		}
	}
	if (cmd && o->python && sample_python_setup(o, cmd) < 0)
		err_die_last(EXIT_USAGE);
	return cmd;
}

/* What each refresh needs. */
struct top_run {
	struct top_args *a;
	struct top_view tv;
	struct session *ss;
	struct top_status st;
	double next, last;
	double cpu_last;
	char target[128];
	struct tui *tui;         /* the browser on a terminal; NULL: --stdio */
	bool quit;
	/* The browser's 'a' and 'f': every sample's instruction, and the stack tree (its
	 * timeline dropped at each refresh). */
	struct annot annot;
	struct pictures_tee tee;
	int flames;
};

static double cpu_seconds(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       (double)ru.ru_stime.tv_usec / 1e6;
}

static void top_refresh(struct top_run *x, double now)
{
	double span = now - x->last, cpu = cpu_seconds();
	x->st.samples_per_s = span > 0 ? (double)x->tv.interval_samples / span : 0;
	x->st.self_cpu = span > 0 ? 100.0 * (cpu - x->cpu_last) / span : 0;
	x->st.lost = x->ss->lost_samples + x->ss->lost_records;
	top_view_sort(&x->tv);
	if (x->tui)
		tui_show(x->tui, tui_model_top(&x->tv, &x->st));
	else
		top_print(stdout, &x->tv, &x->st, x->a->rows ? (size_t)x->a->rows : 30);
	top_view_age(&x->tv);
	for (size_t i = 0; x->tui && i < x->tee.st.nevents; i++)
		x->tee.st.events[i].ns = 0; /* the flame graph needs the tree only */
	x->last = now;
	x->cpu_last = cpu;
	x->next = now + x->a->delay_s;
}

static void top_tick(long n, double now, void *arg)
{
	struct top_run *x = arg;
	/* The browser's keys between reads (the run reads at least every 100 ms); q ends the run
	 * as Ctrl-C does. */
	if (x->tui && !x->quit && !tui_step(x->tui, 0)) {
		x->quit = true;
		raise(SIGINT);
	}
	if (now >= x->next)
		top_refresh(x, now);
}

/* The browser's samples: into the annotations and the stack tree, then top's view. */
static int top_browse_sample(const struct resolved_sample *rs, void *arg)
{
	struct top_run *x = arg;
	annot_add(&x->annot, rs);
	return pictures_tee_sample(rs, &x->tee);
}

static char *top_annotate_at(struct top_run *x, const struct top_row *t, uint64_t addr, char *name, size_t size)
{
	if (!t || t->pyname) {
		err_set("a Python function: no machine code to annotate");
		return NULL;
	}
	if (!t->sym && !addr) {
		err_set("no symbol to annotate");
		return NULL;
	}
	struct tui_annot_req q = { .ev = 0, .dso = t->dso, .sym = addr ? NULL : t->sym, .addr = addr, .fresh = true,
				   .event = x->st.event, .event_samples = x->annot.nev ? x->annot.ev_samples[0] : 0,
				   .event_period = x->annot.nev ? x->annot.ev_period[0] : 0 };
	return tui_annot_text(&x->annot, &q, name, size);
}

static char *top_annotate(void *arg, const struct tui_row *r)
{
	char name[256];
	return top_annotate_at(arg, r->ref, 0, name, sizeof(name));
}

static char *top_annotate_addr(void *arg, const struct tui_row *r, uint64_t addr, char *name, size_t size)
{
	return top_annotate_at(arg, r->ref, addr, name, size);
}

/* 'f': a flame graph of every sample since top started, lperf-top-flame.svg, then -2, -3 ... */
static int top_flame(void *arg, const struct tui_zoom *z, char *path, size_t size)
{
	struct top_run *x = arg;
	(void)z;
	if (x->flames++)
		snprintf(path, size, "lperf-top-flame-%d.svg", x->flames);
	else
		snprintf(path, size, "lperf-top-flame.svg");
	struct pictures_req pr = { .svg = path };
	struct notes said = NOTES_INIT;
	stacks_finish(&x->tee.st);
	int rc = pictures_write(&pr, &x->tee.st, &said);
	notes_clear(&said);
	return rc < 0 ? -1 : 0;
}

/* While the browser draws, what lperf and the command write to standard error and output goes
 * to a file instead of over the screen, and to the terminal once the screen is restored. */
struct capture {
	int fd, saved;
};

static void capture_start(struct capture *c)
{
	char path[] = "/tmp/lperf-top-XXXXXX";
	c->fd = mkstemp(path);
	c->saved = -1;
	if (c->fd < 0)
		return;
	unlink(path);
	fflush(stderr);
	c->saved = dup(STDERR_FILENO);
	if (c->saved < 0 || dup2(c->fd, STDERR_FILENO) < 0) {
		close(c->fd);
		c->fd = -1;
	}
}

static void capture_end(struct capture *c)
{
	if (c->fd < 0)
		return;
	fflush(stderr);
	dup2(c->saved, STDERR_FILENO);
	close(c->saved);
	char buf[8192];
	ssize_t n;
	if (lseek(c->fd, 0, SEEK_SET) == 0)
		while ((n = read(c->fd, buf, sizeof(buf))) > 0)
			fwrite(buf, 1, (size_t)n, stderr);
	close(c->fd);
	c->fd = -1;
}

static void describe_target(struct top_run *x, char **cmd)
{
	const struct sample_opts *o = &x->a->o;
	if (cmd)
		snprintf(x->target, sizeof(x->target), "command %s", cmd[0]);
	else if (o->pid_list)
		snprintf(x->target, sizeof(x->target), "pid %s", o->pid_list);
	else if (o->tid_list)
		snprintf(x->target, sizeof(x->target), "tid %s", o->tid_list);
	else if (o->cpus_given) {
		size_t len = (size_t)snprintf(x->target, sizeof(x->target), "CPU");
		for (size_t i = 0; i < o->cpus.n && len + 12 < sizeof(x->target); i++)
			len += (size_t)snprintf(x->target + len, sizeof(x->target) - len, "%s%d", i ? "," : " ",
						o->cpus.cpu[i]);
	} else
		snprintf(x->target, sizeof(x->target), "system-wide");
}

int cmd_top(int argc, char **argv)
{
	struct top_args a;
	char **cmd = parse_top(&a, argc, argv);
	err_quiet = a.o.quiet;
	struct evlist l = { 0 };
	if (sample_build_events(&a.o, &l) < 0)
		err_die_last(EXIT_USAGE);
	struct live_run run;
	struct live_opts lo;
	sample_live_opts(&a.o, &lo);
	bool browse = !a.stdio && (a.tui || (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)));
	/* The browser: the command's output (standard output too) held back until it ends. */
	struct capture cap = { -1, -1 };
	if (browse)
		capture_start(&cap);
	struct live_run_target tg = { cmd, a.o.pid_list, a.o.tid_list, a.o.cpus_given ? &a.o.cpus : NULL,
				      false, cmd != NULL || browse };
	if (live_run_open(&run, &tg, &l, &lo) < 0) {
		capture_end(&cap);
		err_die_last(EXIT_RUNTIME);
	}
	struct top_run x = { .a = &a };
	annot_init(&x.annot);
	pictures_tee_init(&x.tee, cmd, a.o.python);
	x.tee.next = top_view_sample;
	x.tee.next_arg = &x.tv;
	top_view_init(&x.tv, a.o.python, a.o.callchain != LIVE_CG_NONE, a.zero);
	struct session ss;
	struct session_tool tool = { .sample = top_view_sample, .arg = &x.tv,
				     .callchains = a.o.callchain != LIVE_CG_NONE, .python_view = a.o.python };
	if (browse) {
		tool.sample = top_browse_sample;
		tool.arg = &x;
	}
	session_init(&ss, &run.evsels, &tool);
	x.annot.machine = &ss.machine;
	machine_perfmap_path_policy(&ss.machine, a.o.force);
	x.ss = &ss;
	describe_target(&x, cmd);
	x.st = (struct top_status){ .event = l.n ? l.ev[0].name : "?", .freq = a.o.period ? 0 : a.o.freq,
				    .target = x.target, .interval_s = a.delay_s };
	if (browse) {
		struct tui_hooks hooks = { .arg = &x, .annotate = top_annotate, .annotate_addr = top_annotate_addr,
					   .flame = top_flame };
		x.tui = tui_open(&hooks);
		if (!x.tui) {
			capture_end(&cap);
			err_warn("%s; showing text tables", err_msg());
		} else {
			tui_show(x.tui, tui_model_top(&x.tv, &x.st));
		}
	}
	x.last = run_now();
	x.next = x.last + a.delay_s;
	x.cpu_last = cpu_seconds();
	/* Python frames read from the interpreter join the samples held meanwhile every 0.5 s. */
	struct live_session_opts so = { a.o.timeout_s, a.o.python_frames, a.o.python_frames, NULL, NULL, top_tick, &x,
					a.o.python_frames ? 0.5 : 0 };
	so.python_gil = a.o.gil ? PYSTORE_GIL_ONLY : 0;
	so.python_nonblocking = a.o.nonblocking;
	so.python_rate_given = a.o.freq_given || a.o.period;
	struct live_session_result res;
	if (live_session_run(&run, &ss, &so, &res) < 0) {
		if (x.tui)
			tui_close(x.tui);
		capture_end(&cap);
		err_die_last(EXIT_RUNTIME);
	}
	if (x.tui)
		tui_close(x.tui);
	else
		top_refresh(&x, run_now());
	capture_end(&cap);
	if (res.failed)
		err_warn("sampling stopped early: %s", err_msg());
	session_diagnose(&ss, 0);
	err_print_notes(&ss.notes);
	session_free(&ss);
	top_view_free(&x.tv);
	annot_free(&x.annot);
	stacks_free(&x.tee.st);
	live_run_close(&run);
	evlist_free(&l);
	sample_opts_free(&a.o);
	return res.failed ? EXIT_RUNTIME : 0;
}

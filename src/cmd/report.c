/* lperf report: a perf.data file (lperf's or Linux perf's) through the session into per-event
 * histograms, shown as perf's --stdio text, WindowsPerf's tables or JSON. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <traceevent/event-parse.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/annot_view.h"
#include "analysis/folded.h"
#include "analysis/stacks_load.h"
#include "cmd/cmd.h"
#include "events/tracedata.h"
#include "output/folded_out.h"
#include "output/pictures.h"
#include "output/report_out.h"
#include "output/spe_out.h"
#include "perfdata/perfdata.h"
#include "perfdata/perfdata_stats.h"
#include "python/pystore.h"
#include "session/session.h"
#include "session/trace_formats.h"
#include "spe/spe_view.h"
#include "symbols/demangle.h"
#include "tui/report_browse.h"
#include "util/cpuset.h"
#include "util/error.h"
#include "util/notes.h"
#include "util/opt.h"
#include "util/outfile.h"
#include "util/pager.h"
#include "util/parse.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static int opt_comm(const struct option *o, const char *a) { return filter_add_comms(o->value, a); }
static int opt_dso(const struct option *o, const char *a) { return filter_add_dsos(o->value, a); }
static int opt_sym(const struct option *o, const char *a) { return filter_add_syms(o->value, a); }
static int opt_pid(const struct option *o, const char *a) { return filter_add_pids(o->value, a); }
static int opt_tid(const struct option *o, const char *a) { return filter_add_tids(o->value, a); }
static int opt_time(const struct option *o, const char *a) { return cmd_time_opt(o->value, a); }

static int opt_call_graph(const struct option *o, const char *a);

/* -g alone, or perf's -g with a word ("-g none", "-g caller,0.5"). */
static int opt_graph(const struct option *o, const char *a)
{
	struct report_view *v = o->value;
	if (a)
		return opt_call_graph(o, a);
	v->graph_given = true;
	v->graph = HIST_CALLEE;
	return 0;
}

static int opt_call_graph(const struct option *o, const char *a)
{
	struct report_view *v = o->value;
	/* perf's -g/--call-graph takes "graph,0.5,caller"-style lists: honour the order word and a
	 * threshold, accept the rest. */
	v->graph = HIST_CALLEE;
	v->graph_given = true;
	char *copy = xstrdup(a), *save = NULL;
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		char *end;
		double x = strtod(w, &end);
		if (!*end && end != w)
			v->ro.graph_min = x;
		else if (!strcmp(w, "caller"))
			v->graph = HIST_CALLER;
		else if (!strcmp(w, "callee"))
			v->graph = HIST_CALLEE;
		else if (!strcmp(w, "none"))
			v->graph = HIST_GRAPH_NONE;
		else if (!strcmp(w, "graph"))
			v->ro.graph_style = RG_GRAPH;
		else if (!strcmp(w, "fractal"))
			v->ro.graph_style = RG_FRACTAL;
		else if (!strcmp(w, "flat"))
			v->ro.graph_style = RG_FLAT;
		else if (!strcmp(w, "folded"))
			v->ro.graph_style = RG_FOLDED;
		else if (strcmp(w, "function") && strcmp(w, "address")) {
			free(copy);
			return err_set("unknown call-graph word '%s' (use caller, callee, none, or a "
				       "percent threshold)", w);
		}
	}
	free(copy);
	return 0;
}

static int opt_inverted(const struct option *o, const char *a)
{
	struct report_view *v = o->value;
	v->graph_given = true;
	v->graph = HIST_CALLER;
	return 0;
}

static int opt_percent(const struct option *o, const char *a)
{
	struct report_view *v = o->value;
	char *end;
	v->ro.percent_limit = strtod(a, &end);
	if (*end || v->ro.percent_limit < 0 || v->ro.percent_limit > 100)
		return err_set("'%s' is not a percentage (0..100)", a);
	return 0;
}

/* Worker threads for the samples (session_opts.threads); more than 64 gains nothing. */
static int opt_threads(const struct option *o, const char *a)
{
	int n;
	if (parse_int(a, &n) < 0)
		return -1;
	if (n < 1 || n > 64)
		return err_set("'%s' is not a number of threads (1..64)", a);
	*(unsigned *)o->value = (unsigned)n;
	return 0;
}

static int opt_rows(const struct option *o, const char *a)
{
	struct report_view *v = o->value;
	int n;
	if (parse_int(a, &n) < 0)
		return -1;
	v->ro.max_rows = (size_t)n;
	v->style = v->style == STYLE_JSON ? STYLE_JSON : STYLE_WPERF;
	return 0;
}

/* perf report --stats / --task: a walk of their own, nothing else shown. */
static int report_stats_tasks(struct perfdata_reader *r, bool stats)
{
	int rc = 0;
	if (stats) {
		struct perfdata_stats st;
		rc = perfdata_stats(r, &st);
		report_print_stats(stdout, &st, &r->evsels);
		perfdata_stats_free(&st);
	} else {
		struct perfdata_tasks t;
		rc = perfdata_tasks(r, &t);
		report_print_tasks(stdout, &t);
		perfdata_tasks_free(&t);
	}
	fflush(stdout);
	if (rc < 0)
		err_warn("%s: the output above covers only the records before this point", err_msg());
	return rc < 0 ? EXIT_RUNTIME : 0;
}

struct fold_ctx {
	struct folded f;
	const struct sample_filter *filter;
};

static int fold_sample(const struct resolved_sample *rs, void *arg)
{
	struct fold_ctx *c = arg;
	if (filter_match(c->filter, rs))
		folded_add(&c->f, rs);
	return 0;
}

static const char *const usage[] = { "lperf report [OPTIONS]", NULL };

/* report's options, parsed. */
struct report_args {
	struct report_view v;
	const char *input, *sort, *symfs, *itrace;
	bool json, wperf, header, header_only, quiet, children, no_children, stdio, folded, force, python;
	bool annotate, disassemble, no_inline, nolineno;
	bool stats, task, tui, browse;
	enum colour_mode colour;
	char *fields_sort;     /* -F: the sort keys among the fields */
	int verbose;
	unsigned threads;      /* -j: threads for the walk (default: the online CPUs the running tasks leave) */
	bool threads_auto;     /* -j not given (session_opts.threads_auto) */
	enum hist_key keys[HK_NKEYS];
	size_t nkeys;
	struct pictures_req pr;
};

/* perf's -F/--fields: output fields; the sort keys among them become the sort order, and the
 * Overhead column shows only when "overhead" is one of them. */
static int opt_fields(const struct option *o, const char *a)
{
	struct report_args *ra = o->value;
	struct report_view *v = &ra->v;
	struct strbuf keys = STRBUF_INIT;
	bool overhead = false;
	char *copy = xstrdup(a), *save = NULL;
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (!strcmp(w, "overhead") || !strcmp(w, "overhead_children"))
			overhead = true;
		else if (!strcmp(w, "sample"))
			v->ro.show_nr = true;
		else if (strcmp(w, "period"))
			sb_addf(&keys, "%s%s", keys.len ? "," : "", w);
	}
	free(copy);
	v->ro.no_overhead = !overhead;
	free(ra->fields_sort);
	ra->fields_sort = keys.len ? sb_detach(&keys) : NULL;
	sb_release(&keys);
	return 0;
}

static void parse_report_options(struct report_args *a, struct profile *pr, int argc, char **argv)
{
	struct report_view *v = &a->v;
	struct sample_filter *filter = &pr->filter;
	const struct option opts[] = {
		{ OPT_STRING, 'i', "input", &a->input, "FILE", "the recording (default perf.data)" },
		{ OPT_STRING, 's', "sort", &a->sort, "KEYS", "sort keys: comm,pid,tid,dso,sym,cpu,srcline,srcfile,trace (default comm,dso,sym; trace for tracepoints only)" },
		{ OPT_BOOL, 'n', "show-nr-samples", &v->ro.show_nr, NULL, "a Samples column" },
		{ OPT_CALLBACK, 0, "percent-limit", v, "PCT", "hide entries below PCT percent", opt_percent },
		{ OPT_CALLBACK, 0, "comm", filter, "COMMS", "only these commands", opt_comm },
		{ OPT_CALLBACK, 0, "comms", filter, "COMMS", "perf's spelling of --comm", opt_comm, OPT_HIDDEN },
		{ OPT_CALLBACK, 0, "pid", filter, "PIDS", "only these processes", opt_pid },
		{ OPT_CALLBACK, 0, "tid", filter, "TIDS", "only these threads", opt_tid },
		{ OPT_CALLBACK, 0, "time", filter, "START,STOP", "only samples in these time ranges: "
		  "START,STOP in seconds as script prints them (either may be left out; several "
		  "separated by blanks), or percentages of the recording: 10%/2, 0%-10%,30%-40%", opt_time },
		{ OPT_CALLBACK, 'd', "dso", filter, "DSOS", "only these shared objects", opt_dso },
		{ OPT_CALLBACK, 0, "dsos", filter, "DSOS", "perf's spelling of --dso", opt_dso, OPT_HIDDEN },
		{ OPT_CALLBACK, 'S', "symbols", filter, "SYMS", "only these symbols; WindowsPerf patterns "
		  "'^prefix', 'suffix$'", opt_sym },
		{ OPT_CALLBACK, 0, "symbol", filter, "SYMS", "same as --symbols", opt_sym },
		{ OPT_CALLBACK, 'g', NULL, v, "ORDER", "show call graphs (callee order; or caller, none, "
		  "a threshold)", opt_graph, OPT_WORD_OPT },
		{ OPT_CALLBACK, 0, "call-graph", v, "ORDER", "call graphs: caller, callee, none, and a "
		  "threshold percent (e.g. caller,1)", opt_call_graph },
		{ OPT_CALLBACK, 'G', "inverted", v, NULL, "call graphs in caller order", opt_inverted, OPT_NOARG },
		{ OPT_BOOL, 0, "children", &a->children, NULL, "Children and Self columns (default with call graphs)" },
		{ OPT_BOOL, 0, "no-children", &a->no_children, NULL, "only self overhead" },
		{ OPT_BOOL, 0, "stdio", &a->stdio, NULL, "text output (the default when not a terminal)" },
		{ OPT_BOOL, 0, "tui", &a->tui, NULL, "the interactive browser (the default on a terminal)" },
		{ OPT_CALLBACK, 0, "color", &a->colour, "WHEN", "hot percentages in colour: auto (a "
		  "terminal), always, never", colour_opt, OPT_EQ_OPT },
		{ OPT_CALLBACK, 0, "stdio-color", &a->colour, "WHEN", "perf's spelling of --color",
		  colour_opt, OPT_HIDDEN },
		{ OPT_BOOL, 0, "json", &a->json, NULL, "JSON (docs/schemas/report.schema.json)" },
		{ OPT_BOOL, 0, "folded", &a->folded, NULL, "collapsed stacks for flame graphs: "
		  "comm;root;...;leaf COUNT" },
		{ OPT_STRING, 0, "flamegraph", &a->pr.svg, "FILE", "an SVG flame graph (icicle with --inverted)" },
		{ OPT_STRING, 0, "html", &a->pr.html, "FILE", "a self-contained HTML report" },
		{ OPT_STRING, 0, "speedscope", &a->pr.speedscope, "FILE", "speedscope JSON" },
		{ OPT_STRING, 0, "firefox", &a->pr.firefox, "FILE", "a Firefox Profiler profile (gzipped)" },
		{ OPT_STRING, 0, "pprof", &a->pr.pprof, "FILE", "a pprof profile (gzipped profile.proto)" },
		{ OPT_BOOL, 0, "wperf", &a->wperf, NULL, "WindowsPerf's hot-function tables" },
		{ OPT_CALLBACK, 0, "sample-display-row", v, "N", "WindowsPerf tables of the top N "
		  "functions", opt_rows },
		{ OPT_BOOL, 0, "sample-display-long", &v->ro.long_names, NULL, "WindowsPerf: full names" },
		{ OPT_BOOL, 0, "annotate", &a->annotate, NULL, "per hot function, samples per source line "
		  "(WindowsPerf's line_number/hits/filename table)" },
		{ OPT_BOOL, 0, "disassemble", &a->disassemble, NULL, "--annotate with each hot line's instructions" },
		{ OPT_BOOL, 0, "no-inline", &a->no_inline, NULL, "DWARF stacks without inlined functions' frames" },
		{ OPT_BOOL, 0, "header", &a->header, NULL, "print the recording's header first" },
		{ OPT_BOOL, 0, "header-only", &a->header_only, NULL, "print only the header" },
		{ OPT_STRING, 't', "field-separator", &v->ro.field_sep, "SEP", "columns separated by SEP "
		  "(no dotted line), as perf -t" },
		{ OPT_BOOL, 0, "stats", &a->stats, NULL, "the records counted by type, as perf --stats" },
		{ OPT_BOOL, 0, "task", &a->task, NULL, "the recording's tasks (pid, tid, ppid, comm) as a tree" },
		{ OPT_CALLBACK, 'F', "fields", a, "FIELDS", "output fields: overhead, sample and sort keys "
		  "(no Overhead column unless named)", opt_fields },
		{ OPT_STRING, 0, "symfs", &a->symfs, "DIR", "look for binaries under DIR" },
		{ OPT_STRING, 0, "itrace", &a->itrace, "OPTS", "Arm SPE recordings: records to count "
		  "(i, f, m, t, b, a, M as perf)" },
		{ OPT_BOOL, 'f', "force", &a->force, NULL, "read the input and /tmp JIT symbol files whoever owns them" },
		{ OPT_BOOL, 0, "python", &a->python, NULL, "Python view: stacks of py:: frames only, "
		  "interpreter frames folded away, each named func (file.py:LINE)" },
		{ OPT_BOOL, 0, "nolineno", &a->nolineno, NULL, "with --python: one frame per function, "
		  "func (file.py), its lines merged (py-spy's spelling)" },
		{ OPT_CALLBACK, 'j', "threads", &a->threads, "N", "N threads: the file's walk and N - 1 "
		  "workers resolving samples (default: the online CPUs less the other tasks running now; 1: no workers); the output is the same", opt_threads },
		{ OPT_BOOL, 'q', "quiet", &a->quiet, NULL, "no notes or warnings" },
		{ OPT_COUNT, 'v', "verbose", &a->verbose, NULL, "more detail" },
		OPT_END_(),
	};
	a->threads = 0; /* not given: cpuset_spare_now's, after the options */
	struct opt_ctx ctx = { "report", usage, opts, false };
	int i = opt_parse(&ctx, argc, argv);
	if (i < argc)
		opt_usage_error(&ctx, "unexpected argument '%s'", argv[i]);
	a->threads_auto = !a->threads;
	if (a->threads_auto)
		a->threads = cpuset_spare_now(64);
	outfile_force = a->force; /* -f: the pictures may replace a link or another user's file */
	if (a->json + a->wperf + a->folded > 1)
		opt_usage_error(&ctx, "give one of --json, --wperf and --folded");
	if (a->nolineno && !a->python)
		opt_usage_error(&ctx, "--nolineno goes with --python (the Python view's labels)");
	if (a->json)
		v->style = STYLE_JSON;
	else if (a->wperf)
		v->style = STYLE_WPERF;

	if (v->style == STYLE_WPERF && !a->sort)
		a->sort = "sym,dso";
	if (a->fields_sort && !a->sort)
		a->sort = a->fields_sort;
	if (hist_parse_sort(a->sort ? a->sort : v->sort, a->keys, &a->nkeys) < 0)
		opt_usage_error(&ctx, "--sort: %s", err_msg());
	if (a->tui && a->stdio)
		opt_usage_error(&ctx, "give either --tui or --stdio");
	/* perf's default on a terminal: the browser, for the text report only. */
	a->browse = v->style == STYLE_PERF && !a->folded && !a->header && !a->header_only && !a->stats &&
		    !a->task && !v->ro.field_sep && !a->annotate && !a->disassemble &&
		    report_browse_wanted(a->tui, a->stdio);
}

/* The picture files instead of text: the recording into a stack tree, then every file asked for. */
static int report_pictures(const struct report_args *a, const struct sample_filter *filter)
{
	struct stacks st;
	stacks_init(&st);
	st.python = a->python;
	st.python_nolineno = a->nolineno;
	st.no_inline = a->no_inline;
	st.lines = a->pr.pprof != NULL; /* pprof carries each function's file and line */
	struct session_opts so = { .force = a->force, .symfs = a->symfs, .threads = a->threads, .threads_auto = a->threads_auto };
	struct notes said = NOTES_INIT;
	int lr = stacks_load(&st, a->input, &so, filter, &said);
	err_print_notes(&said);
	notes_clear(&said);
	if (lr < 0) {
		stacks_free(&st);
		err_die_last(EXIT_RUNTIME);
	}
	if (!st.nevents && !a->quiet)
		err_warn("%s has no samples: the pictures are empty", a->input);
	int wr = pictures_write(&a->pr, &st, &said);
	err_print_notes(&said);
	notes_clear(&said);
	stacks_free(&st);
	if (wr < 0)
		err_die_last(EXIT_RUNTIME);
	return lr ? EXIT_RUNTIME : 0;
}

/* What the walk feeds: decided when the recording's events are known (report_ready). */
struct report_run {
	struct report_args *a;
	struct report_view v;
	struct profile p;
	struct fold_ctx fc;
	struct annot_view av;
	bool have_av;
	struct report_walk walk;  /* the browser's: both call-graph orders */
	struct tep_handle *tep;  /* tracepoint formats, for the "trace" sort key */
};

/* The "trace" sort key's text: the sample's tracepoint fields as perf prints them. */
static char *report_trace_text(void *arg, const struct perf_sample *s)
{
	struct strbuf sb = STRBUF_INIT;
	if (tracedata_print(arg, (int)s->cpu, s->raw, s->raw_size, &sb) < 0) {
		sb_release(&sb);
		return NULL;
	}
	return sb_detach(&sb);
}

/* As perf: a recording of tracepoints only is sorted by their fields (perf's "Trace output"). */
static void report_trace_sort(struct report_run *x, struct session *ss)
{
	struct report_args *a = x->a;
	bool all = ss->evsels->n > 0;
	for (size_t e = 0; e < ss->evsels->n; e++)
		all &= ss->evsels->v[e].attr.type == PERF_TYPE_TRACEPOINT;
	bool trace_key = false;
	for (size_t k = 0; k < a->nkeys; k++)
		trace_key |= a->keys[k] == HK_TRACE;
	if (all && x->v.style == STYLE_PERF && !a->sort && !a->fields_sort) {
		a->keys[0] = HK_TRACE;
		a->nkeys = 1;
		trace_key = true;
	}
	if (trace_key && !x->tep) {
		struct notes said = NOTES_INIT;
		x->tep = trace_formats_load(ss->reader, &said);
		if (!a->quiet)
			err_print_notes(&said);
		notes_clear(&said);
	}
}

static int report_ready(struct session *ss, void *arg)
{
	struct report_run *x = arg;
	struct report_view *v = &x->v;
	struct report_args *a = x->a;
	bool have_chains = session_has_callchains(ss);
	/* perf shows Children/Self whenever stacks were recorded, unless --no-children. */
	v->ro.children = !a->no_children && (a->children || (have_chains && v->style == STYLE_PERF));
	/* As perf: a recording with stacks shows them unless asked not to. */
	if (have_chains && !v->graph_given && v->style == STYLE_PERF)
		v->graph = v->ro.children ? HIST_CALLER : HIST_CALLEE;
	if (v->graph != HIST_GRAPH_NONE && !have_chains) {
		err_note("the recording has no call chains (record with -g); showing a flat profile");
		v->graph = HIST_GRAPH_NONE;
	}
	report_trace_sort(x, ss);
	profile_init(&x->p, ss->evsels, a->keys, a->nkeys, v->graph, v->ro.children);
	x->p.trace_text = x->tep ? report_trace_text : NULL;
	x->p.trace_arg = x->tep;
	ss->tool.callchains = have_chains;
	ss->tool.sample = profile_sample;
	ss->tool.arg = &x->p;
	if (a->folded) {
		x->fc.filter = &x->p.filter;
		folded_init(&x->fc.f, true, ss->wall_into != NULL); /* --wall: lines weigh time (ns) */
		ss->tool.sample = fold_sample;
		ss->tool.arg = &x->fc;
	} else if (a->annotate || a->disassemble || a->browse) {
		/* The browser's 'a' annotates from the same per-instruction counts. */
		annot_view_init(&x->av, &x->p, &ss->machine, a->disassemble, v->ro.max_rows);
		ss->tool.sample = annot_view_sample;
		ss->tool.arg = &x->av;
		x->have_av = true;
		if (!a->browse)
			v->annot = &x->av;
		if (a->browse) {
			report_walk_init(&x->walk, &x->av, &x->p);
			ss->tool.sample = report_walk_sample;
			ss->tool.arg = &x->walk;
		}
	}
	ss->tool.ksyms_later = ss->tool.sample == profile_sample && profile_ksyms_later(&x->p);
	return 0;
}

void cmd_open_failed(const char *input)
{
	bool missing = strcmp(input, "-") && access(input, F_OK) < 0 && errno == ENOENT;
	char *why = xstrdup(err_msg());
	fflush(stdout);
	fprintf(stderr, "lperf: %s\n", why);
	free(why);
	err_no_hints = 0; /* no output to keep clean: the advice is all there is */
	if (missing && !strcmp(input, "perf.data"))
		err_hint("there is no perf.data here: make one first with 'lperf record -- COMMAND', "
			 "or name a recording with -i FILE");
	else if (missing)
		err_hint("there is no recording at %s: make one first with 'lperf record -o %s -- COMMAND'",
			 input, input);
	err_exit(EXIT_RUNTIME);
}

/* perf's exit status for a --time it cannot use: its -EINVAL as a byte. */
#define PERF_EINVAL_STATUS 234

int cmd_time_opt(struct sample_filter *f, const char *spec)
{
	if (filter_set_time(f, spec) == 0)
		return 0;
	if (err_perf_name) {
		fflush(stdout);
		fputs("Invalid time string\n", stderr);
		err_exit(PERF_EINVAL_STATUS);
	}
	return -1;
}

void cmd_time_unreadable(const struct session *ss)
{
	if (!ss->window_no_times || !err_perf_name)
		return;
	fflush(stdout);
	fputs("HINT: no first/last sample time found in perf data.\n"
	      "Please use latest perf binary to execute 'perf record'\n"
	      "(if '--buildid-all' is enabled, please set '--timestamp-boundary').\n", stderr);
	err_exit(PERF_EINVAL_STATUS);
}

static int browse(const struct report_args *a, struct report_run *x, const struct session_opts *so)
{
	struct report_browse b = { .p = &x->p, .av = x->have_av ? &x->av : NULL,
				   .other = x->walk.have_other ? &x->walk.other : NULL, .children = x->v.ro.children,
				   .caller = x->v.graph == HIST_CALLER, .python = a->python,
				   .graph_min = x->v.ro.graph_min, .input = a->input, .so = so };
	return report_browse(&b);
}

int cmd_report(int argc, char **argv)
{
	struct report_args a = { .v = { .style = STYLE_PERF, .sort = "comm,dso,sym" }, .input = "perf.data" };
	a.v.ro.graph_min = 0.5;
	struct report_run x = { .a = &a };
	parse_report_options(&a, &x.p, argc, argv);
	a.v.ro.time_slices = x.p.filter.time_spec;
	err_quiet = a.quiet;
	/* hints are for a reader: not in the machine-readable forms */
	err_no_hints = a.json || a.folded || a.v.ro.field_sep != NULL;
	a.v.ro.no_header = a.quiet; /* perf report -q: the entries only */
	symbol_demangle_params(a.verbose > 0);
	if (pictures_requested(&a.pr)) {
		/* Caller order (-G/--inverted) draws an icicle. */
		a.pr.inverted = a.v.graph_given && a.v.graph == HIST_CALLER;
		int rc = report_pictures(&a, &x.p.filter);
		profile_free(&x.p);
		return rc;
	}
	x.v = a.v;
	struct session ss;
	struct session_tool tool = { .ready = report_ready, .arg = &x, .python_view = a.python,
				     .python_labels = a.python, .python_nolineno = a.nolineno,
				     .inline_frames = !a.no_inline, .wall = true,
				     .time_spec = x.p.filter.time_spec,
				     .window_skipped = &x.p.filtered_out };
	struct session_opts so = { .force = a.force, .symfs = a.symfs, .threads = a.threads, .threads_auto = a.threads_auto };
	if (session_open(&ss, a.input, &so, &tool) < 0) {
		cmd_time_unreadable(&ss);
		cmd_open_failed(a.input);
	}
	struct perfdata_reader *r = ss.reader;
	err_print_notes(&r->info.notes);
	int status = 0;
	if (!a.browse)
		pager_start();
	x.v.ro.colour = x.v.style == STYLE_PERF && colour_on(a.colour);
	if (a.header || a.header_only)
		report_print_header(stdout, r);
	if (a.header_only) {
		/* nothing more */
	} else if (a.stats || a.task) {
		status = report_stats_tasks(r, a.stats);
	} else if (spe_recording(r)) { /* Arm SPE AUX data: SPE's own views (spe/spe_view.h) */
		struct spe_view_opts vo = { .itrace = a.itrace, .report = true, .annotate = a.annotate,
					    .disassemble = a.disassemble };
		struct spe_view sv;
		int lr = spe_view_load(&ss, &vo, &sv);
		err_print_notes(&ss.notes);
		if (lr == 0)
			spe_print_view(stdout, &sv, a.json);
		status = lr == 0 ? 0 : sv.bad_itrace ? EXIT_USAGE : EXIT_RUNTIME;
		spe_view_free(&sv);
	} else {
		/* A corrupt record stops the walk: show what was read before it, say where it stopped,
		 * and fail so that scripts notice. */
		status = session_run(&ss) ? EXIT_RUNTIME : 0;
		/* why the walk stopped, kept now: what comes before the warning (kernel symbols found
		 * when the profile is sorted, the browser) may set and clear errors of its own */
		char *partial = status ? xstrdup(err_msg()) : NULL;
		if (a.folded) {
			folded_print(stdout, &x.fc.f);
			folded_free(&x.fc.f);
		} else {
			profile_sort(&x.p, x.v.ro.children);
			struct report_totals tot = { ss.nsamples, ss.lost_records, ss.lost_samples, 0,
						     pystore_approx(ss.py), pystore_paused(ss.py), pystore_own(ss.py) };
			session_lost(&ss, &tot.lost_replaced);
			if (a.browse && browse(&a, &x, &so) < 0) {
				err_warn("%s; showing the text report", err_msg());
				a.browse = false;
			}
			if (!a.browse)
				report_print(stdout, x.v.style, &x.v.ro, &x.p, &tot, a.input, x.v.annot);
		}
		session_diagnose(&ss, a.verbose);
		err_print_notes(&ss.notes);
		if (x.have_av)
			annot_view_free(&x.av);
		report_walk_free(&x.walk);
		if (partial)
			err_warn("%s: the report above covers only the records before this point", partial);
		free(partial);
	}
	session_close(&ss);
	profile_free(&x.p);
	if (x.tep)
		tep_free(x.tep);
	free(a.fields_sort);
	return status;
}

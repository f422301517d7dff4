/* lperf report: a perf.data file (lperf's or Linux perf's) through the session into per-event
 * histograms, shown as perf's --stdio text, WindowsPerf's tables or JSON. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "analysis/folded.h"
#include "cmd/pictures.h"
#include "cmd/report_view.h"
#include "stream/perfdata.h"
#include "stream/session.h"
#include "util/error.h"
#include "util/opt.h"
#include "util/parse.h"
#include "util/xalloc.h"

static struct report_view *V;
static struct sample_filter *F;
static bool inverted_given;

static int opt_comm(const struct option *o, const char *a) { return filter_add_comms(F, a); }
static int opt_dso(const struct option *o, const char *a) { return filter_add_dsos(F, a); }
static int opt_sym(const struct option *o, const char *a) { return filter_add_syms(F, a); }
static int opt_pid(const struct option *o, const char *a) { return filter_add_pids(F, a); }
static int opt_tid(const struct option *o, const char *a) { return filter_add_tids(F, a); }

static int opt_call_graph(const struct option *o, const char *a);

/* -g alone, or perf's -g with a word ("-g none", "-g caller,0.5"). */
static int opt_graph(const struct option *o, const char *a)
{
	if (a)
		return opt_call_graph(o, a);
	V->graph_given = true;
	V->graph = HIST_CALLEE;
	return 0;
}

static int opt_call_graph(const struct option *o, const char *a)
{
	/* perf's -g/--call-graph takes "graph,0.5,caller"-style lists: honour the order word and a
	 * threshold, accept the rest. */
	V->graph = HIST_CALLEE;
	V->graph_given = true;
	char *copy = xstrdup(a), *save = NULL;
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		char *end;
		double x = strtod(w, &end);
		if (!*end && end != w)
			V->ro.graph_min = x;
		else if (!strcmp(w, "caller"))
			V->graph = HIST_CALLER;
		else if (!strcmp(w, "callee"))
			V->graph = HIST_CALLEE;
		else if (!strcmp(w, "none"))
			V->graph = HIST_GRAPH_NONE;
		else if (strcmp(w, "graph") && strcmp(w, "flat") && strcmp(w, "fractal") && strcmp(w, "folded") &&
			 strcmp(w, "function") && strcmp(w, "address")) {
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
	V->graph_given = true;
	V->graph = HIST_CALLER;
	inverted_given = true;
	return 0;
}

static int opt_percent(const struct option *o, const char *a)
{
	char *end;
	V->ro.percent_limit = strtod(a, &end);
	if (*end || V->ro.percent_limit < 0 || V->ro.percent_limit > 100)
		return err_set("'%s' is not a percentage (0..100)", a);
	return 0;
}

static int opt_rows(const struct option *o, const char *a)
{
	int n;
	if (parse_int(a, &n) < 0)
		return -1;
	V->ro.max_rows = (size_t)n;
	V->style = V->style == STYLE_JSON ? STYLE_JSON : STYLE_WPERF;
	return 0;
}

static void print_header(FILE *f, const struct perfdata_reader *r)
{
	const struct perfdata_info *in = &r->info;
	fprintf(f, "# ========\n");
	if (in->hostname)
		fprintf(f, "# hostname : %s\n", in->hostname);
	if (in->osrelease)
		fprintf(f, "# os release : %s\n", in->osrelease);
	if (in->version)
		fprintf(f, "# perf version : %s\n", in->version);
	if (in->arch)
		fprintf(f, "# arch : %s\n", in->arch);
	if (in->nrcpus_online || in->nrcpus_avail)
		fprintf(f, "# nrcpus online : %u\n# nrcpus avail : %u\n", in->nrcpus_online, in->nrcpus_avail);
	if (in->cpudesc)
		fprintf(f, "# cpudesc : %s\n", in->cpudesc);
	if (in->total_mem_kb)
		fprintf(f, "# total memory : %" PRIu64 " kB\n", in->total_mem_kb);
	if (in->ncmdline) {
		fprintf(f, "# cmdline :");
		for (size_t i = 0; i < in->ncmdline; i++)
			fprintf(f, " %s", in->cmdline[i]);
		fputc('\n', f);
	}
	for (size_t i = 0; i < r->evsels.n; i++) {
		const struct evsel *e = &r->evsels.v[i];
		fprintf(f, "# event : name = %s, , id = {", e->name);
		for (size_t k = 0; k < e->nids; k++)
			fprintf(f, "%s %" PRIu64, k ? "," : "", e->ids[k]);
		fprintf(f, " }, type = %u, size = %u, config = %#llx, { sample_period, sample_freq } = %llu, "
			   "sample_type = %#llx, freq = %u\n",
			e->attr.type, e->attr.size, (unsigned long long)e->attr.config,
			(unsigned long long)e->attr.sample_period, (unsigned long long)e->attr.sample_type,
			e->attr.freq);
	}
	if (in->first_sample_time || in->last_sample_time)
		fprintf(f, "# time of first sample : %" PRIu64 ".%06" PRIu64 "\n# time of last sample : %" PRIu64
			   ".%06" PRIu64 "\n# sample duration : %10.3f ms\n",
			in->first_sample_time / 1000000000, in->first_sample_time % 1000000000 / 1000,
			in->last_sample_time / 1000000000, in->last_sample_time % 1000000000 / 1000,
			(double)(in->last_sample_time - in->first_sample_time) / 1e6);
	for (size_t i = 0; i < in->nbuildids; i++) {
		fprintf(f, "# build id : ");
		for (size_t k = 0; k < in->buildids[i].size && k < 20; k++)
			fprintf(f, "%02x", in->buildids[i].id[k]);
		fprintf(f, " %s\n", in->buildids[i].filename);
	}
	fprintf(f, "# features present:");
	for (int b = 1; b < FEAT_MAX; b++)
		if (in->has_feature[b])
			fprintf(f, " %s", perfdata_feature_name(b));
	fprintf(f, "\n# ========\n#\n");
}

void report_load_jit_sources(struct session *ss, const struct perfdata_reader *r, bool force)
{
	machine_perfmap_path_policy(&ss->machine, force);
	for (size_t i = 0; i < r->info.njit_sources; i++) {
		const struct perfdata_jit_source *js = &r->info.jit_sources[i];
		if (js->kind == JIT_SRC_PERFMAP)
			machine_set_perfmap_data(&ss->machine, js->pid, js->data, js->size);
		else if (js->kind == JIT_SRC_JITDUMP)
			machine_set_jitdump_data(&ss->machine, js->pid, js->data, js->size);
	}
}

void report_warnings(const struct session *ss, bool quiet)
{
	if (ss->truncated)
		err_note("%" PRIu64 " of %" PRIu64 " stacks are cut short and end in [truncated]: the user "
			 "stack copy was too small or code had no unwind information; try a larger "
			 "--call-graph dwarf,SIZE (up to 65528)", ss->truncated, ss->nsamples);
	if (ss->bad_samples)
		err_warn("%" PRIu64 " samples could not be parsed and were skipped", ss->bad_samples);
	if (ss->lost_records || ss->lost_samples) {
		/* perf writes the same loss twice (LOST records, and LOST_SAMPLES from the counters'
		 * lost counts): take the larger, never the sum. */
		uint64_t lost = ss->lost_records > ss->lost_samples ? ss->lost_records : ss->lost_samples;
		err_warn("%" PRIu64 " samples lost while recording (%.2f%%)", lost,
			 100.0 * (double)lost / (double)(lost + ss->nsamples));
	}
	const struct jit_source *js;
	size_t njs = machine_jit_sources((struct machine *)&ss->machine, &js);
	for (size_t i = 0; i < njs && !quiet; i++) {
		/* A JIT that writes a jitdump writes no perf map: its absence is no news then. */
		if (js[i].perfmap_note && !js[i].jitdump_path)
			err_note("%s: %s", js[i].perfmap_path ? js[i].perfmap_path : "perf map", js[i].perfmap_note);
		if (js[i].jitdump_note)
			err_note("%s: %s", js[i].jitdump_path ? js[i].jitdump_path : "jitdump", js[i].jitdump_note);
	}
	const struct dso_cache *c = &ss->machine.dsos;
	for (size_t i = 0; i < c->n; i++) {
		const struct dso *d = c->v[i];
		if (d->mismatch)
			err_warn("%s changed since recording (build-id mismatch): its samples are not "
				 "resolved", d->path);
		else if (!quiet && d->loaded && d->kind == DSO_KERNEL && d->load_note)
			err_note("%s: %s", d->path, d->load_note);
	}
}

struct fold_ctx {
	struct folded f;
	const struct sample_filter *filter;
};

static int fold_sample(struct session *ss, const struct resolved_sample *rs, void *arg)
{
	struct fold_ctx *c = arg;
	if (filter_match(c->filter, rs))
		folded_add(&c->f, rs);
	return 0;
}

static const char *const usage[] = { "lperf report [OPTIONS]", NULL };

int cmd_report(int argc, char **argv)
{
	struct report_view v = { .style = STYLE_PERF, .sort = "comm,dso,sym" };
	v.ro.graph_min = 0.5;
	struct profile p = { 0 };
	struct pictures_req pr = { 0 };
	V = &v;
	F = &p.filter;
	const char *input = "perf.data", *sort = NULL, *symfs = NULL;
	bool json = false, wperf = false, header = false, header_only = false, quiet = false;
	bool children = false, no_children = false, stdio = false, folded = false, force = false;
	bool python = false;
	int verbose = 0;
	const struct option opts[] = {
		{ OPT_STRING, 'i', "input", &input, "FILE", "the recording (default perf.data)" },
		{ OPT_STRING, 's', "sort", &sort, "KEYS", "sort keys: comm,pid,tid,dso,sym,cpu (default comm,dso,sym)" },
		{ OPT_BOOL, 'n', "show-nr-samples", &v.ro.show_nr, NULL, "a Samples column" },
		{ OPT_CALLBACK, 0, "percent-limit", NULL, "PCT", "hide entries below PCT percent", opt_percent },
		{ OPT_CALLBACK, 0, "comm", NULL, "COMMS", "only these commands", opt_comm },
		{ OPT_CALLBACK, 0, "pid", NULL, "PIDS", "only these processes", opt_pid },
		{ OPT_CALLBACK, 0, "tid", NULL, "TIDS", "only these threads", opt_tid },
		{ OPT_CALLBACK, 'd', "dso", NULL, "DSOS", "only these shared objects", opt_dso },
		{ OPT_CALLBACK, 'S', "symbols", NULL, "SYMS", "only these symbols; WindowsPerf patterns "
		  "'^prefix', 'suffix$'", opt_sym },
		{ OPT_CALLBACK, 0, "symbol", NULL, "SYMS", "same as --symbols", opt_sym },
		{ OPT_CALLBACK, 'g', NULL, NULL, "ORDER", "show call graphs (callee order; or caller, none, "
		  "a threshold)", opt_graph, OPT_WORD_OPT },
		{ OPT_CALLBACK, 0, "call-graph", NULL, "ORDER", "call graphs: caller, callee, none, and a "
		  "threshold percent (e.g. caller,1)", opt_call_graph },
		{ OPT_CALLBACK, 'G', "inverted", NULL, NULL, "call graphs in caller order", opt_inverted, OPT_NOARG },
		{ OPT_BOOL, 0, "children", &children, NULL, "Children and Self columns (default with call graphs)" },
		{ OPT_BOOL, 0, "no-children", &no_children, NULL, "only self overhead" },
		{ OPT_BOOL, 0, "stdio", &stdio, NULL, "text output (the default)" },
		{ OPT_BOOL, 0, "json", &json, NULL, "JSON (docs/schemas/report.schema.json)" },
		{ OPT_BOOL, 0, "folded", &folded, NULL, "collapsed stacks for flame graphs: "
		  "comm;root;...;leaf COUNT" },
		{ OPT_STRING, 0, "flamegraph", &pr.svg, "FILE", "an SVG flame graph (icicle with --inverted)" },
		{ OPT_STRING, 0, "html", &pr.html, "FILE", "a self-contained HTML report" },
		{ OPT_STRING, 0, "speedscope", &pr.speedscope, "FILE", "speedscope JSON" },
		{ OPT_STRING, 0, "firefox", &pr.firefox, "FILE", "a Firefox Profiler profile (gzipped)" },
		{ OPT_STRING, 0, "pprof", &pr.pprof, "FILE", "a pprof profile (gzipped profile.proto)" },
		{ OPT_BOOL, 0, "wperf", &wperf, NULL, "WindowsPerf's hot-function tables" },
		{ OPT_CALLBACK, 0, "sample-display-row", NULL, "N", "WindowsPerf tables of the top N "
		  "functions", opt_rows },
		{ OPT_BOOL, 0, "sample-display-long", &v.ro.long_names, NULL, "WindowsPerf: full names" },
		{ OPT_BOOL, 0, "header", &header, NULL, "print the recording's header first" },
		{ OPT_BOOL, 0, "header-only", &header_only, NULL, "print only the header" },
		{ OPT_STRING, 0, "symfs", &symfs, "DIR", "look for binaries under DIR" },
		{ OPT_BOOL, 'f', "force", &force, NULL, "use /tmp JIT symbol files whoever owns them" },
		{ OPT_BOOL, 0, "python", &python, NULL, "Python view: stacks of py:: frames only, "
		  "interpreter frames folded away" },
		{ OPT_BOOL, 'q', "quiet", &quiet, NULL, "no notes or warnings" },
		{ OPT_COUNT, 'v', "verbose", &verbose, NULL, "more detail" },
		OPT_END_(),
	};
	struct opt_ctx ctx = { "report", usage, opts, false };
	int i = opt_parse(&ctx, argc, argv);
	if (i < argc)
		opt_usage_error(&ctx, "unexpected argument '%s'", argv[i]);
	if (json + wperf + folded > 1)
		opt_usage_error(&ctx, "give one of --json, --wperf and --folded");
	if (json)
		v.style = STYLE_JSON;
	else if (wperf)
		v.style = STYLE_WPERF;
	err_quiet = quiet;
	if (pictures_requested(&pr)) {
		pr.inverted = inverted_given;
		int rc = pictures_report(&pr, input, python, force, symfs, &p.filter, quiet);
		profile_free(&p);
		return rc;
	}

	enum hist_key keys[HK_NKEYS];
	size_t nkeys;
	if (v.style == STYLE_WPERF && !sort)
		sort = "sym,dso";
	if (hist_parse_sort(sort ? sort : v.sort, keys, &nkeys) < 0)
		opt_usage_error(&ctx, "--sort: %s", err_msg());

	struct perfdata_reader r;
	if (perfdata_open(&r, input) < 0)
		err_die_last(EXIT_RUNTIME);
	for (size_t k = 0; k < r.info.nnotes; k++)
		err_warn("%s", r.info.notes[k]);
	if (header || header_only)
		print_header(stdout, &r);
	if (header_only) {
		perfdata_close(&r);
		profile_free(&p);
		return 0;
	}
	bool have_chains = false;
	for (size_t e = 0; e < r.evsels.n; e++)
		have_chains |= (r.evsels.v[e].attr.sample_type & PERF_SAMPLE_CALLCHAIN) != 0;
	/* perf shows Children/Self whenever stacks were recorded, unless --no-children. */
	v.ro.children = !no_children && (children || (have_chains && v.style == STYLE_PERF));
	/* As perf: a recording with stacks shows them unless asked not to. */
	if (have_chains && !v.graph_given && v.style == STYLE_PERF)
		v.graph = v.ro.children ? HIST_CALLER : HIST_CALLEE;
	if (v.graph != HIST_GRAPH_NONE && !have_chains) {
		err_note("the recording has no call chains (record with -g); showing a flat profile");
		v.graph = HIST_GRAPH_NONE;
	}
	profile_init(&p, &r.evsels, keys, nkeys, v.graph, v.ro.children);

	struct session ss;
	struct session_tool tool = { .sample = profile_sample, .arg = &p, .callchains = have_chains,
				     .python_view = python };
	struct fold_ctx fc = { .filter = &p.filter };
	if (folded) {
		folded_init(&fc.f, true, false);
		tool.sample = fold_sample;
		tool.arg = &fc;
	}
	session_init(&ss, &r.evsels, &tool);
	if (symfs)
		ss.machine.dsos.root = xstrdup(symfs);
	report_load_jit_sources(&ss, &r, force);
	int status = 0;
	if (session_process_file(&ss, &r) != 0) {
		/* A corrupt record stops the walk: show what was read before it, say where it
		 * stopped, and fail so that scripts notice. */
		status = EXIT_RUNTIME;
	}
	if (folded) {
		folded_print(&fc.f, stdout);
		folded_free(&fc.f);
	} else {
		profile_sort(&p, v.ro.children);
		report_view_print(stdout, &v, &p, &ss, input);
	}
	report_warnings(&ss, quiet);
	if (status)
		err_warn("%s: the report above covers only the records before this point", err_msg());
	session_free(&ss);
	profile_free(&p);
	perfdata_close(&r);
	return status;
}

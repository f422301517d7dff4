/* lperf script: every sample of a recording as perf script's text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "analysis/filter.h"
#include "analysis/folded.h"
#include "cmd/cmd.h"
#include "output/folded_out.h"
#include "output/script_out.h"
#include "output/spe_out.h"
#include "perfdata/perfdata.h"
#include "record/regname.h"
#include "session/session.h"
#include "session/trace_formats.h"
#include "spe/spe_view.h"
#include "symbols/demangle.h"
#include "util/error.h"
#include "util/notes.h"
#include "util/opt.h"
#include "util/pager.h"
#include "util/xalloc.h"

struct script_ctx {
	struct folded *folded;
	unsigned fields;
	bool fields_given;
	bool fields_rel;         /* -F +x,-y: add to / remove from the defaults */
	unsigned fields_add, fields_del;
	bool callchain;
	bool no_chain;           /* --no-call-graph */
	bool quiet;
	const struct evsel_set *evsels;
	struct script_style style;  /* tracepoint formats, event name width */
	struct sample_filter filter; /* --comm, --pid, --tid, -S, --time */
	struct machine *machine;    /* brstacksym: the branches' addresses are resolved here */
	struct addr_loc *br_locs;
	size_t br_cap;
};

/* The events are known: stacks when they were recorded and not refused, the tracepoint
 * formats, the event name width. */
static int script_ready(struct session *ss, void *arg)
{
	struct script_ctx *c = arg;
	c->callchain = session_has_callchains(ss) && !c->no_chain;
	c->evsels = ss->evsels;
	ss->tool.callchains = c->callchain;
	struct notes said = NOTES_INIT;
	c->style.tep = trace_formats_load(ss->reader, &said);
	if (!c->quiet)
		err_print_notes(&said);
	notes_clear(&said);
	c->style.regs_machine = regname_machine(ss->reader->info.arch);
	if (!c->style.regs_machine)
		c->style.regs_machine = regname_host();
	c->machine = &ss->machine;
	for (size_t e = 0; e < c->evsels->n; e++) /* perf pads event names to the longest */
		if (c->evsels->v[e].name && (int)strlen(c->evsels->v[e].name) > c->style.name_width)
			c->style.name_width = (int)strlen(c->evsels->v[e].name);
	return 0;
}

static int opt_comm(const struct option *o, const char *a) { return filter_add_comms(o->value, a); }
static int opt_pid(const struct option *o, const char *a) { return filter_add_pids(o->value, a); }
static int opt_tid(const struct option *o, const char *a) { return filter_add_tids(o->value, a); }
static int opt_sym(const struct option *o, const char *a) { return filter_add_syms(o->value, a); }
static int opt_time(const struct option *o, const char *a) { return cmd_time_opt(o->value, a); }

/* brstacksym: each branch's from and to, resolved in the sample's thread before printing. */
static const struct addr_loc *resolve_branches(struct script_ctx *c, const struct resolved_sample *rs)
{
	const struct perf_sample *s = rs->s;
	if (!s->branch_nr || !c->machine)
		return NULL;
	if (2 * s->branch_nr > c->br_cap) {
		c->br_cap = 2 * s->branch_nr;
		c->br_locs = xrealloc(c->br_locs, c->br_cap * sizeof(*c->br_locs));
	}
	for (uint64_t i = 0; i < s->branch_nr; i++) {
		const struct perf_branch_entry *b = &s->branches[i];
		if (!resolve_addr(c->machine, rs->thread, s->cpumode, b->from, s->time, &c->br_locs[2 * i]))
			c->br_locs[2 * i].sym = NULL;
		if (!resolve_addr(c->machine, rs->thread, s->cpumode, b->to, s->time, &c->br_locs[2 * i + 1]))
			c->br_locs[2 * i + 1].sym = NULL;
	}
	return c->br_locs;
}

static int on_sample(const struct resolved_sample *rs, void *arg)
{
	struct script_ctx *c = arg;
	if (!filter_match(&c->filter, rs))
		return 0;
	if (c->folded) {
		folded_add(c->folded, rs);
		return 0;
	}
	unsigned fields = c->fields_given ? c->fields
					  : script_default_fields(rs->s->evsel ? &rs->s->evsel->attr
										: &c->evsels->v[0].attr);
	if (c->fields_rel)
		fields = (fields | c->fields_add) & ~c->fields_del;
	c->style.br_locs = fields & SF_BRSTACKSYM ? resolve_branches(c, rs) : NULL;
	script_print_sample_style(stdout, rs, fields, c->callchain, &c->style);
	return 0;
}

static const char *const usage[] = { "lperf script [OPTIONS]", NULL };

int cmd_script(int argc, char **argv)
{
	const char *input = "perf.data", *fields = NULL, *itrace = NULL, *symfs = NULL;
	bool quiet = false, no_chain = false, fold = false, force = false, python = false;
	bool no_inline = false, inline_ = true, json = false, nolineno = false;
	int verbose = 0;
	struct script_ctx c = { 0 };
	const struct option opts[] = {
		{ OPT_STRING, 'i', "input", &input, "FILE", "the recording (default perf.data)" },
		{ OPT_STRING, 'F', "fields", &fields, "FIELDS", "comm,pid,tid,cpu,time,event,period,ip,sym,symoff,dso,srcline,trace,iregs,brstack,brstacksym; +srcline adds to the defaults" },
		{ OPT_BOOL, 0, "no-call-graph", &no_chain, NULL, "only the sampled address, no stacks" },
		{ OPT_BOOL, 'G', "hide-call-graph", &no_chain, NULL, "same as --no-call-graph (perf's spelling)" },
		{ OPT_BOOL, 0, "folded", &fold, NULL, "collapsed stacks for flame graphs: comm;root;...;leaf COUNT" },
		{ OPT_BOOL, 'f', "force", &force, NULL, "read the input and /tmp JIT symbol files whoever owns them" },
		{ OPT_STRING, 0, "symfs", &symfs, "DIR", "look for binaries under DIR" },
		{ OPT_BOOL, 0, "python", &python, NULL, "Python view: py:: frames only (with --folded "
		  "each named func (file.py:LINE))" },
		{ OPT_BOOL, 0, "nolineno", &nolineno, NULL, "with --python --folded: one frame per function, "
		  "func (file.py) (py-spy's spelling)" },
		{ OPT_BOOL, 0, "no-inline", &no_inline, NULL, "DWARF stacks without inlined functions' frames" },
		{ OPT_BOOL, 0, "inline", &inline_, NULL, "DWARF stacks with inlined functions' frames (the default)" },
		{ OPT_BOOL, 'q', "quiet", &quiet, NULL, "no notes or warnings" },
		{ OPT_COUNT, 'v', "verbose", &verbose, NULL, "C++ names with parameters; more notes" },
		{ OPT_STRING, 0, "itrace", &itrace, "OPTS", "Arm SPE recordings: one line per event "
		  "perf would synthesise (i, f, m, t, b, a, M; i1i)" },
		{ OPT_BOOL, 0, "json", &json, NULL, "Arm SPE recordings: the decoded records as JSON "
		  "(docs/schemas/spe-script.schema.json)" },
		{ OPT_CALLBACK, 0, "comm", &c.filter, "COMMS", "only these commands", opt_comm },
		{ OPT_CALLBACK, 0, "comms", &c.filter, "COMMS", "perf's spelling of --comm", opt_comm, OPT_HIDDEN },
		{ OPT_CALLBACK, 0, "pid", &c.filter, "PIDS", "only these processes", opt_pid },
		{ OPT_CALLBACK, 0, "tid", &c.filter, "TIDS", "only these threads", opt_tid },
		{ OPT_CALLBACK, 'S', "symbols", &c.filter, "SYMS", "only samples in these symbols", opt_sym },
		{ OPT_CALLBACK, 0, "time", &c.filter, "START,STOP", "only samples in these time ranges: "
		  "START,STOP in seconds as script prints them (either may be left out; several "
		  "separated by blanks), or percentages of the recording: 10%/2, 0%-10%,30%-40%", opt_time },
		OPT_END_(),
	};
	struct opt_ctx ctx = { "script", usage, opts, false };
	int i = opt_parse(&ctx, argc, argv);
	if (i < argc)
		opt_usage_error(&ctx, "unexpected argument '%s'", argv[i]);
	err_quiet = quiet;
	err_no_hints = 1; /* its output feeds other tools: no advice among it */
	symbol_demangle_params(verbose > 0);
	if (fields) {
		if (script_parse_fields_rel(fields, &c.fields, &c.fields_rel, &c.fields_add, &c.fields_del) < 0)
			opt_usage_error(&ctx, "-F: %s", err_msg());
		c.fields_given = !c.fields_rel;
	}
	if (nolineno && !(python && fold))
		opt_usage_error(&ctx, "--nolineno goes with --python --folded (the Python view's labels)");
	c.no_chain = no_chain;
	c.quiet = quiet;
	struct folded f;
	if (fold) {
		folded_init(&f, true, false);
		c.folded = &f;
	}
	struct session ss;
	/* the defaults have no srcline: only -F srcline or -F +srcline asks the resolver for them */
	unsigned asked = c.fields_given ? c.fields : c.fields_rel ? c.fields_add & ~c.fields_del : 0;
	struct session_tool tool = { .sample = on_sample, .ready = script_ready, .arg = &c,
				     .python_view = python, .inline_frames = !no_inline,
				     .python_labels = python && fold, .python_nolineno = nolineno,
				     .srclines = (asked & SF_SRCLINE) != 0,
				     .time_spec = c.filter.time_spec };
	struct session_opts so = { .force = force, .symfs = symfs };
	if (session_open(&ss, input, &so, &tool) < 0) {
		cmd_time_unreadable(&ss);
		cmd_open_failed(input);
	}
	struct perfdata_reader *r = ss.reader;
	err_print_notes(&r->info.notes);
	int status = 0;
	pager_start();
	if (spe_recording(r)) { /* Arm SPE AUX data: decoded records (spe/spe_view.h) */
		struct spe_view_opts vo = { .itrace = itrace };
		struct spe_view sv;
		int lr = spe_view_load(&ss, &vo, &sv);
		err_print_notes(&ss.notes);
		if (lr == 0)
			spe_print_view(stdout, &sv, json);
		status = lr == 0 ? 0 : sv.bad_itrace ? EXIT_USAGE : EXIT_RUNTIME;
		spe_view_free(&sv);
	} else if (json) {
		err_die(EXIT_USAGE, "--json: script writes JSON for Arm SPE recordings; %s holds none (report --json "
			"gives the samples' tables)", input);
	} else {
		status = session_run(&ss) ? EXIT_RUNTIME : 0;
		char *partial = status ? xstrdup(err_msg()) : NULL; /* before output's own errors */
		if (fold)
			folded_print(stdout, &f);
		fflush(stdout);
		session_diagnose(&ss, verbose);
		err_print_notes(&ss.notes);
		if (partial)
			err_warn("%s: the output above covers only the records before this point", partial);
		free(partial);
	}
	if (fold)
		folded_free(&f);
	if (c.style.tep)
		tep_free(c.style.tep);
	session_close(&ss);
	filter_free(&c.filter);
	free(c.br_locs);
	return status;
}

/* lperf script: every sample of a recording as perf script's text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>

#include "analysis/folded.h"
#include "output/folded_out.h"
#include "cmd/cmd.h"
#include "cmd/spe_cmd.h"
#include "cmd/report_view.h"
#include "cmd/trace_formats.h"
#include "output/script_out.h"
#include "perfdata/perfdata.h"
#include "session/session.h"
#include "symbols/demangle.h"
#include "util/error.h"
#include "util/opt.h"

struct script_ctx {
	struct folded *folded;
	unsigned fields;
	bool fields_given;
	bool fields_rel;         /* -F +x,-y: add to / remove from the defaults */
	unsigned fields_add, fields_del;
	bool callchain;
	const struct evsel_set *evsels;
	struct script_style style;  /* tracepoint formats, event name width */
};

static int on_sample(const struct resolved_sample *rs, void *arg)
{
	struct script_ctx *c = arg;
	if (c->folded) {
		folded_add(c->folded, rs);
		return 0;
	}
	unsigned fields = c->fields_given ? c->fields
					  : script_default_fields(rs->s->evsel ? &rs->s->evsel->attr
										: &c->evsels->v[0].attr);
	if (c->fields_rel)
		fields = (fields | c->fields_add) & ~c->fields_del;
	script_print_sample_style(stdout, rs, fields, c->callchain, &c->style);
	return 0;
}

static const char *const usage[] = { "lperf script [OPTIONS]", NULL };

int cmd_script(int argc, char **argv)
{
	const char *input = "perf.data", *fields = NULL, *itrace = NULL;
	bool quiet = false, no_chain = false, fold = false, force = false, python = false;
	bool no_inline = false, inline_ = true, json = false;
	int verbose = 0;
	const struct option opts[] = {
		{ OPT_STRING, 'i', "input", &input, "FILE", "the recording (default perf.data)" },
		{ OPT_STRING, 'F', "fields", &fields, "FIELDS", "comm,pid,tid,cpu,time,event,period,ip,sym,symoff,dso,srcline; +srcline adds to the defaults" },
		{ OPT_BOOL, 0, "no-call-graph", &no_chain, NULL, "only the sampled address, no stacks" },
		{ OPT_BOOL, 0, "folded", &fold, NULL, "collapsed stacks for flame graphs: comm;root;...;leaf COUNT" },
		{ OPT_BOOL, 'f', "force", &force, NULL, "read the input and /tmp JIT symbol files whoever owns them" },
		{ OPT_BOOL, 0, "python", &python, NULL, "Python view: py:: frames only" },
		{ OPT_BOOL, 0, "no-inline", &no_inline, NULL, "DWARF stacks without inlined functions' frames" },
		{ OPT_BOOL, 0, "inline", &inline_, NULL, "DWARF stacks with inlined functions' frames (the default)" },
		{ OPT_BOOL, 'q', "quiet", &quiet, NULL, "no notes or warnings" },
		{ OPT_COUNT, 'v', "verbose", &verbose, NULL, "C++ names with parameters; more notes" },
		{ OPT_STRING, 0, "itrace", &itrace, "OPTS", "Arm SPE recordings: one line per event "
		  "perf would synthesise (i, f, m, t, b, a, M; i1i)" },
		{ OPT_BOOL, 0, "json", &json, NULL, "Arm SPE recordings: the decoded records as JSON "
		  "(docs/schemas/spe-script.schema.json)" },
		OPT_END_(),
	};
	struct opt_ctx ctx = { "script", usage, opts, false };
	int i = opt_parse(&ctx, argc, argv);
	if (i < argc)
		opt_usage_error(&ctx, "unexpected argument '%s'", argv[i]);
	err_quiet = quiet;
	symbol_demangle_params(verbose > 0);
	struct script_ctx c = { 0 };
	if (fields) {
		if (script_parse_fields_rel(fields, &c.fields, &c.fields_rel, &c.fields_add, &c.fields_del) < 0)
			opt_usage_error(&ctx, "-F: %s", err_msg());
		c.fields_given = !c.fields_rel;
	}
	struct perfdata_reader r;
	if (perfdata_open_force(&r, input, force) < 0)
		err_die_last(EXIT_RUNTIME);
	for (size_t k = 0; k < r.info.notes.n; k++)
		err_warn("%s", r.info.notes.v[k]);
	if (spe_recording(&r)) { /* Arm SPE AUX data: decoded records (cmd/spe_cmd.c) */
		struct spe_cmd_opts so = { itrace, NULL, json, 0, 0, false, false };
		int rc = spe_cmd_script(&r, &so);
		perfdata_close(&r);
		return rc;
	}
	if (json)
		err_die(EXIT_USAGE, "--json: script writes JSON for Arm SPE recordings; %s holds none (report --json "
			"gives the samples' tables)", input);
	bool have_chains = false;
	for (size_t e = 0; e < r.evsels.n; e++)
		have_chains |= (r.evsels.v[e].attr.sample_type & PERF_SAMPLE_CALLCHAIN) != 0;
	c.callchain = have_chains && !no_chain;
	c.evsels = &r.evsels;
	c.style.tep = trace_formats_load(&r, quiet);
	for (size_t e = 0; e < r.evsels.n; e++) /* perf pads event names to the longest */
		if (r.evsels.v[e].name && (int)strlen(r.evsels.v[e].name) > c.style.name_width)
			c.style.name_width = (int)strlen(r.evsels.v[e].name);
	struct folded f;
	if (fold) {
		folded_init(&f, true, false);
		c.folded = &f;
	}
	struct session ss;
	struct session_tool tool = { .sample = on_sample, .arg = &c, .callchains = c.callchain,
				     .python_view = python, .inline_frames = !no_inline };
	session_init(&ss, &r.evsels, &tool);
	session_use_jit_sources(&ss, &r, force);
	int status = session_process_file(&ss, &r) ? EXIT_RUNTIME : 0;
	if (fold) {
		folded_print(stdout, &f);
		folded_free(&f);
	}
	fflush(stdout);
	report_warnings(&ss, quiet, verbose);
	if (status)
		err_warn("%s: the output above covers only the records before this point", err_msg());
	session_free(&ss);
	if (c.style.tep)
		tep_free(c.style.tep);
	perfdata_close(&r);
	return status;
}

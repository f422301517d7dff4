/* lperf annotate [SYMBOL...] [-i FILE]: samples per instruction and source line of the hottest
 * functions (or those named), disassembled in-process (src/analysis/annotate.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/annot.h"
#include "cmd/cmd.h"
#include "output/annotate_out.h"
#include "perfdata/perfdata.h"
#include "session/session.h"
#include "spe/spe_load.h"
#include "spe/spe_stats.h"
#include "symbols/srcline.h"
#include "symbols/demangle.h"
#include "util/error.h"
#include "util/opt.h"
#include "util/pager.h"
#include "util/xalloc.h"

static int on_sample(const struct resolved_sample *rs, void *arg)
{
	annot_add(arg, rs);
	return 0;
}

/* Arm SPE recordings: each SPE record (an operation the hardware sampled) counts at its PC, as a
 * sample of the SPE event (on_sample), through the session opened on the recording; --itrace
 * keeps those that produce the chosen events. */
static int spe_annotate_load(struct session *ss, struct annot *a, const char *itrace)
{
	struct spe_itrace it;
	if (spe_itrace_parse(itrace, &it) < 0)
		return -1;
	struct spe_load_opts o = { itrace ? &it : NULL, on_sample, a };
	struct spe_data d;
	int rc = spe_session_load(ss, SPE_V1P3, &o, &d);
	for (size_t i = 0; i < d.notes.n; i++)
		err_warn("%s", d.notes.v[i]);
	spe_data_free(&d);
	return rc;
}

/* Which functions to annotate: --percent-limit, -s / SYMBOL arguments (the options' value). */
struct wanted {
	double percent_limit;
	char **syms;
	size_t nsyms, cap;
};

static int opt_percent(const struct option *o, const char *a)
{
	struct wanted *w = o->value;
	char *end;
	w->percent_limit = strtod(a, &end);
	if (*end || w->percent_limit < 0 || w->percent_limit > 100)
		return err_set("'%s' is not a percentage (0..100)", a);
	return 0;
}

static void add_symbols(struct wanted *w, const char *a)
{
	/* A comma list, as perf's -s takes one name per option. */
	char *copy = xstrdup(a), *save = NULL;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		ALLOC_GROW(w->syms, w->nsyms + 1, w->cap);
		w->syms[w->nsyms++] = xstrdup(t);
	}
	free(copy);
}

static int opt_symbol(const struct option *o, const char *a)
{
	add_symbols(o->value, a);
	return 0;
}

static bool sym_wanted(const struct wanted *w, const struct annot_func *f)
{
	if (!w->nsyms)
		return true;
	for (size_t i = 0; i < w->nsyms; i++)
		if (!strcmp(f->sym->name, w->syms[i]) || (f->sym->mangled && !strcmp(f->sym->mangled, w->syms[i])))
			return true;
	return false;
}

static bool dso_wanted(const struct annot_func *f, const char *dsos)
{
	if (!dsos)
		return true;
	char *copy = xstrdup(dsos), *save = NULL;
	bool ok = false;
	for (char *t = strtok_r(copy, ",", &save); t && !ok; t = strtok_r(NULL, ",", &save))
		ok = !strcmp(t, f->dso->path) || (f->dso->short_name && !strcmp(t, f->dso->short_name));
	free(copy);
	return ok;
}

/* Notes per DSO, said once: why its functions are not annotated. */
static void note_once(const struct annot_func *f, struct dso ***said, size_t *n, size_t *cap)
{
	for (size_t i = 0; i < *n; i++)
		if ((*said)[i] == f->dso || ((*said)[i]->kind == DSO_KERNEL && f->dso->kind == DSO_KERNEL))
			return;
	ALLOC_GROW(*said, *n + 1, *cap);
	(*said)[(*n)++] = f->dso;
	err_note("%s: not annotated: %s", f->dso->path, f->note);
}

/* Each wanted hot function, annotated as text or (json_source set) one JSON document; returns
 * how many were shown. */
static size_t show_functions(struct annot *a, struct annot_opts *ao, const struct wanted *w, const char *dsos,
			     const struct evsel_set *evsels, const char *json_source)
{
	bool json = json_source != NULL;
	struct json j;
	if (json)
		annotate_json_begin(&j, stdout, json_source);
	struct dso **said = NULL;
	size_t nsaid = 0, scap = 0, shown = 0;
	for (size_t k = 0; k < a->n; k++) {
		struct annot_func *f = a->v[k];
		if (!sym_wanted(w, f) || !dso_wanted(f, dsos))
			continue;
		uint64_t evp = (size_t)f->evidx < a->nev ? a->ev_period[f->evidx] : 0;
		if (!w->nsyms && evp && 100.0 * (double)f->period / (double)evp < w->percent_limit)
			continue;
		ao->event = (size_t)f->evidx < evsels->n ? evsels->v[f->evidx].name : NULL;
		ao->event_samples = (size_t)f->evidx < a->nev ? a->ev_samples[f->evidx] : 0;
		ao->event_period = evp;
		if (annot_func_disassemble(a, f) < 0) {
			/* Functions of a DSO that cannot be annotated: the note once, on stderr. */
			bool again = false;
			for (size_t q = 0; q < nsaid; q++)
				again |= said[q] == f->dso || (said[q]->kind == DSO_KERNEL && f->dso->kind == DSO_KERNEL);
			note_once(f, &said, &nsaid, &scap);
			if (again || !w->nsyms)
				continue;
		}
		if (json)
			annotate_json_func(&j, f, ao);
		else
			annotate_text_func(stdout, f, ao);
		shown++;
	}
	if (json)
		annotate_json_end(&j);
	free(said);
	return shown;
}

static const char *const usage[] = { "lperf annotate [OPTIONS] [SYMBOL...]", NULL };

int cmd_annotate(int argc, char **argv)
{
	const char *input = "perf.data", *dsos = NULL, *symfs = NULL, *itrace = NULL;
	bool json = false, stdio_ = false, quiet = false, force = false, source_only = false;
	bool no_source = false;
	struct annot_opts ao = { 0 };
	struct wanted w = { 0 };
	int verbose = 0;
	enum colour_mode colour = COLOUR_AUTO;
	const struct option opts[] = {
		{ OPT_STRING, 'i', "input", &input, "FILE", "the recording (default perf.data)" },
		{ OPT_CALLBACK, 's', "symbol", &w, "SYM", "annotate this function (also given as arguments)",
		  opt_symbol },
		{ OPT_STRING, 'd', "dso", &dsos, "DSOS", "only functions of these shared objects" },
		{ OPT_BOOL, 'n', "show-nr-samples", &ao.show_nr, NULL, "sample counts instead of percentages" },
		{ OPT_CALLBACK, 0, "percent-limit", &w, "PCT", "only functions with at least PCT percent of "
		  "the samples", opt_percent },
		{ OPT_BOOL, 0, "source-only", &source_only, NULL, "samples per source line, no instructions" },
		{ OPT_BOOL, 0, "no-source", &no_source, NULL, "instructions only, no source rows" },
		{ OPT_BOOL, 0, "stdio", &stdio_, NULL, "text output (the default)" },
		{ OPT_BOOL, 0, "json", &json, NULL, "JSON (docs/schemas/annotate.schema.json)" },
		{ OPT_STRING, 0, "symfs", &symfs, "DIR", "look for binaries under DIR" },
		{ OPT_STRING, 0, "itrace", &itrace, "OPTS", "Arm SPE recordings: count the records that "
		  "produce these events (perf's letters: f, m, t, b, a, M, i)" },
		{ OPT_BOOL, 'f', "force", &force, NULL, "read the input and /tmp JIT symbol files whoever owns them" },
		{ OPT_CALLBACK, 0, "color", &colour, "WHEN", "hot percentages in colour: auto (a "
		  "terminal), always, never", colour_opt, OPT_EQ_OPT },
		{ OPT_CALLBACK, 0, "stdio-color", &colour, "WHEN", "perf's spelling of --color",
		  colour_opt, OPT_HIDDEN },
		{ OPT_BOOL, 'q', "quiet", &quiet, NULL, "no notes or warnings" },
		{ OPT_COUNT, 'v', "verbose", &verbose, NULL, "more detail" },
		OPT_END_(),
	};
	struct opt_ctx ctx = { "annotate", usage, opts, false };
	/* Symbols may come before, between and after options. */
	int i = opt_parse(&ctx, argc, argv);
	while (i < argc) {
		add_symbols(&w, argv[i]);
		i += opt_parse(&ctx, argc - i, argv + i);
	}
	err_quiet = quiet;
	err_no_hints = json;
	symbol_demangle_params(verbose > 0);
	ao.source_only = source_only;
	ao.no_source = no_source;

	struct annot a;
	annot_init(&a);
	struct session ss;
	struct session_tool tool = { .sample = on_sample, .arg = &a, .callchains = false };
	struct session_opts so = { .force = force, .symfs = symfs };
	if (session_open(&ss, input, &so, &tool) < 0)
		cmd_open_failed(input);
	struct perfdata_reader *r = ss.reader;
	err_print_notes(&r->info.notes);
	/* A DSO whose file has another build-id than the header's is refused (session_open), never
	 * annotated wrongly. */
	a.machine = &ss.machine;
	int status;
	if (spe_recording(r)) {
		status = spe_annotate_load(&ss, &a, itrace) ? EXIT_RUNTIME : 0;
	} else {
		if (itrace)
			err_die(EXIT_USAGE, "--itrace applies to Arm SPE recordings; %s holds none", input);
		status = session_run(&ss) ? EXIT_RUNTIME : 0;
	}
	annot_sort(&a);
	pager_start();
	ao.color = !json && colour_on(colour);

	size_t shown = show_functions(&a, &ao, &w, dsos, &r->evsels, json ? input : NULL);
	if (!shown && !status) {
		if (w.nsyms)
			err_warn("no samples in %s%s", w.syms[0], w.nsyms > 1 ? " or the other functions named" : "");
		else if (a.n)
			err_warn("no function has --percent-limit %g%% of its event's samples", w.percent_limit);
		else
			err_warn("no samples with a symbol to annotate in %s", input);
	}
	fflush(stdout);
	session_diagnose(&ss, verbose);
	err_print_notes(&ss.notes);
	/* Named functions that have no samples are an error; a limit that hides everything is not. */
	int rc = status ? status : shown ? 0 : (w.nsyms || !a.n) ? EXIT_RUNTIME : 0;
	annot_free(&a);
	annot_sources_free();
	session_close(&ss);
	srcline_cache_free();
	for (size_t k = 0; k < w.nsyms; k++)
		free(w.syms[k]);
	free(w.syms);
	return rc;
}

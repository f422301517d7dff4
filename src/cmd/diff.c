/* lperf diff OLD NEW: where two recordings differ. Per function as perf diff 6.1 compares them
 * (its -c delta|delta-abs|ratio|wdiff computations, --period, a Shared Object column), per stack
 * with -g (shares of each run's samples), as JSON, or a differential flame graph coloured by
 * change. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/filter.h"
#include "analysis/histdiff.h"
#include "analysis/stackdiff.h"
#include "analysis/stacks_load.h"
#include "cmd/cmd.h"
#include "output/diff_out.h"
#include "output/pictures.h"
#include "util/error.h"
#include "util/opt.h"
#include "util/pager.h"
#include "util/parse.h"
#include "util/xalloc.h"

static const char *const usage[] = { "lperf diff [OPTIONS] OLD.data NEW.data", NULL };

static int opt_percent(const struct option *o, const char *a)
{
	double *v = o->value;
	char *end;
	*v = strtod(a, &end);
	if (end == a || *end || *v < 0 || *v > 100)
		return err_set("'%s' is not a percentage (0..100)", a);
	return 0;
}

/* --time as perf diff reads it: one spec for both recordings (percentages of each one's own
 * span), or OLD:NEW, a spec for each. */
static int opt_time(const struct option *o, const char *a)
{
	struct sample_filter *f = o->value; /* [0] old, [1] new */
	const char *colon = strchr(a, ':');
	if (!colon)
		return cmd_time_opt(&f[0], a) < 0 || cmd_time_opt(&f[1], a) < 0 ? -1 : 0;
	char *old = xstrndup(a, (size_t)(colon - a));
	/* either side empty, or a third side (perf diff ignores it): perf's "Invalid time string" */
	bool bad = !*old || !colon[1] || strchr(colon + 1, ':');
	int rc = cmd_time_opt(&f[0], bad ? "" : old) < 0 || cmd_time_opt(&f[1], colon + 1) < 0 ? -1 : 0;
	free(old);
	if (rc < 0 && bad)
		err_set("'%s': OLD:NEW is one time spec for each of the two recordings, neither empty", a);
	return rc;
}

struct diff_args {
	bool json, by_stack, python, force, quiet;
	struct sample_filter when[2]; /* --time of OLD and NEW */
	const char *svg, *compute;
	int limit;
	struct diff_view v;
};

/* The stacks of both recordings: -g's comparison, the Python view and the flame graph. */
static int diff_stacks(struct diff_args *a, const char *old_path, const char *new_path, struct stacks *old,
		       struct stacks *new_)
{
	struct session_opts so = { .force = a->force };
	struct notes said = NOTES_INIT;
	old->python = new_->python = a->python;
	int lr = stacks_load(old, old_path, &so, &a->when[0], &said);
	if (lr >= 0)
		lr = stacks_load(new_, new_path, &so, &a->when[1], &said);
	err_print_notes(&said);
	notes_clear(&said);
	return lr < 0 ? -1 : 0;
}

/* Per function, perf diff's way. */
static int diff_functions(struct diff_args *a, const char *old_path, const char *new_path)
{
	struct histdiff d = { 0 };
	if (histdiff_parse_compute(&d, a->compute ? a->compute : "delta-abs") < 0)
		return -1;
	struct session_opts so = { .force = a->force };
	struct notes said = NOTES_INIT;
	int lr = histdiff_load(&d, old_path, false, a->when[0].time_spec, &so, &said);
	if (lr >= 0)
		lr = histdiff_load(&d, new_path, true, a->when[1].time_spec, &so, &said);
	err_print_notes(&said);
	notes_clear(&said);
	if (lr < 0) {
		histdiff_free(&d);
		return -1;
	}
	histdiff_finish(&d);
	bool any = false;
	for (size_t i = 0; i < d.n; i++)
		any |= (!a->v.event || !strcmp(a->v.event, d.ev[i].name)) && d.ev[i].old_samples && d.ev[i].new_samples;
	if (!any) {
		histdiff_free(&d);
		return err_set(a->v.event ? "event '%s' has no samples in one of the recordings"
					  : "no event has samples in both recordings%s", a->v.event ? a->v.event : "");
	}
	pager_start();
	if (a->json)
		diff_print_perf_json(stdout, &d, &a->v, old_path, new_path);
	else
		diff_print_perf(stdout, &d, &a->v);
	histdiff_free(&d);
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_args a = { .v = { .percent_limit = 0.5 } };
	const struct option opts[] = {
		{ OPT_STRING, 'c', "compute", &a.compute, "MODE", "delta, delta-abs (default), ratio or "
		  "wdiff:W1,W2, as perf diff" },
		{ OPT_BOOL, 'p', "period", &a.v.period, NULL, "Base period and Period columns" },
		{ OPT_BOOL, 'n', "show-nr-samples", &a.v.samples, NULL, "Base samples and Samples columns" },
		{ OPT_CALLBACK, 0, "percent-limit", &a.v.percent_limit, "PCT", "hide functions under PCT "
		  "percent in both recordings (default 0.5; 0 shows all)", opt_percent },
		{ OPT_INT, 0, "limit", &a.limit, "N", "show the N first rows (default all)" },
		{ OPT_BOOL, 'g', "stacks", &a.by_stack, NULL, "compare whole stacks (folded), not functions" },
		{ OPT_BOOL, 0, "json", &a.json, NULL, "JSON (docs/schemas/diff.schema.json)" },
		{ OPT_STRING, 0, "flamegraph", &a.svg, "FILE", "a differential flame graph of NEW coloured by "
		  "change (red grew, blue shrank)" },
		{ OPT_STRING, 'e', "event", &a.v.event, "EVENT", "the event to compare (default: every event "
		  "with samples in both; -g: NEW's first)" },
		{ OPT_BOOL, 0, "python", &a.python, NULL, "compare the Python view (per stack frame)" },
		{ OPT_BOOL, 'f', "force", &a.force, NULL, "use /tmp JIT symbol files whoever owns them" },
		{ OPT_BOOL, 'q', "quiet", &a.quiet, NULL, "no notes or warnings" },
		{ OPT_CALLBACK, 0, "time", a.when, "SPEC", "only samples in these time ranges (as report's "
		  "--time: 10%/2, 0%-10%,30%-40%, START,STOP in seconds) of both recordings, or OLD:NEW, "
		  "a spec for each", opt_time },
		OPT_END_(),
	};
	struct opt_ctx ctx = { "diff", usage, opts, false };
	int i = opt_parse(&ctx, argc, argv);
	if (argc - i != 2)
		opt_usage_error(&ctx, "give two recordings, OLD and NEW");
	if (a.limit < 0)
		opt_usage_error(&ctx, "--limit must be 0 or more");
	if (a.compute && (a.by_stack || a.python))
		opt_usage_error(&ctx, "-c compares functions: not with -g or --python");
	if (a.compute) {
		struct histdiff probe = { 0 };
		if (histdiff_parse_compute(&probe, a.compute) < 0)
			opt_usage_error(&ctx, "-c: %s", err_msg());
	}
	err_quiet = a.quiet;
	err_no_hints = a.json;
	a.v.limit = (size_t)a.limit;
	a.v.quiet = a.quiet;
	const char *old_path = argv[i], *new_path = argv[i + 1];
	bool stacks_needed = a.by_stack || a.python || a.svg;
	struct stacks old, new_;
	stacks_init(&old);
	stacks_init(&new_);
	int status = 0;
	if (stacks_needed && diff_stacks(&a, old_path, new_path, &old, &new_) < 0) {
		stacks_free(&old);
		stacks_free(&new_);
		err_die_last(EXIT_RUNTIME);
	}
	if (!a.by_stack && !a.python) {
		if (diff_functions(&a, old_path, new_path) < 0) {
			stacks_free(&old);
			stacks_free(&new_);
			err_die_last(EXIT_RUNTIME);
		}
	} else {
		struct stack_diff d;
		if (stack_diff_compute(&d, &old, &new_, a.v.event, a.by_stack) < 0) {
			stack_diff_free(&d);
			stacks_free(&old);
			stacks_free(&new_);
			err_die_last(EXIT_RUNTIME);
		}
		pager_start();
		if (a.json)
			diff_print_json(stdout, &d, old_path, new_path, (size_t)a.limit);
		else
			diff_print_text(stdout, &d, old_path, new_path, (size_t)a.limit);
		stack_diff_free(&d);
	}
	if (a.svg) {
		struct notes said = NOTES_INIT;
		double *delta = stack_diff_nodes(&old, &new_);
		char sub[512];
		snprintf(sub, sizeof(sub), "%s -> %s: red grew, blue shrank (share of samples)", old_path, new_path);
		struct pictures_req pr = { .svg = a.svg, .delta = delta, .subtitle = sub };
		if (pictures_write(&pr, &new_, &said) < 0) {
			err_warn("%s", err_msg());
			status = EXIT_RUNTIME;
		}
		err_print_notes(&said);
		notes_clear(&said);
		free(delta);
	}
	stacks_free(&old);
	stacks_free(&new_);
	filter_free(&a.when[0]);
	filter_free(&a.when[1]);
	return status;
}

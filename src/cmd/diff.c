/* lperf diff OLD NEW: where two recordings differ, by change of share per function (or per stack
 * with -g), as text, JSON, or a differential flame graph coloured by change. */
#include <stdio.h>
#include <stdlib.h>

#include "analysis/stackdiff.h"
#include "cmd/cmd.h"
#include "output/pictures.h"
#include "analysis/stacks_load.h"
#include "output/diff_out.h"
#include "util/error.h"
#include "util/opt.h"
#include "util/parse.h"
#include "util/pager.h"

static const char *const usage[] = { "lperf diff [OPTIONS] OLD.data NEW.data", NULL };

int cmd_diff(int argc, char **argv)
{
	bool json = false, by_stack = false, python = false, force = false, quiet = false;
	const char *svg = NULL, *event = NULL;
	int limit = 0;
	const struct option opts[] = {
		{ OPT_BOOL, 'g', "stacks", &by_stack, NULL, "compare whole stacks (folded), not functions" },
		{ OPT_BOOL, 0, "json", &json, NULL, "JSON (docs/schemas/diff.schema.json)" },
		{ OPT_STRING, 0, "flamegraph", &svg, "FILE", "a differential flame graph of NEW coloured by "
		  "change (red grew, blue shrank)" },
		{ OPT_STRING, 'e', "event", &event, "EVENT", "the event to compare (default: NEW's first with samples)" },
		{ OPT_INT, 'n', "limit", &limit, "N", "show the N largest changes (default all)" },
		{ OPT_BOOL, 0, "python", &python, NULL, "compare the Python view" },
		{ OPT_BOOL, 'f', "force", &force, NULL, "use /tmp JIT symbol files whoever owns them" },
		{ OPT_BOOL, 'q', "quiet", &quiet, NULL, "no notes or warnings" },
		OPT_END_(),
	};
	struct opt_ctx ctx = { "diff", usage, opts, false };
	int i = opt_parse(&ctx, argc, argv);
	if (argc - i != 2)
		opt_usage_error(&ctx, "give two recordings, OLD and NEW");
	if (limit < 0)
		opt_usage_error(&ctx, "--limit must be 0 or more");
	err_quiet = quiet;
	err_no_hints = json;
	const char *old_path = argv[i], *new_path = argv[i + 1];
	struct stacks old, new_;
	stacks_init(&old);
	stacks_init(&new_);
	int status = 0;
	old.python = new_.python = python;
	struct session_opts so = { .force = force };
	struct notes said = NOTES_INIT;
	int lr = stacks_load(&old, old_path, &so, NULL, &said);
	if (lr >= 0)
		lr = stacks_load(&new_, new_path, &so, NULL, &said);
	err_print_notes(&said);
	notes_clear(&said);
	if (lr < 0) {
		stacks_free(&old);
		stacks_free(&new_);
		err_die_last(EXIT_RUNTIME);
	}
	struct stack_diff d;
	if (stack_diff_compute(&d, &old, &new_, event, by_stack) < 0) {
		stack_diff_free(&d);
		stacks_free(&old);
		stacks_free(&new_);
		err_die_last(EXIT_RUNTIME);
	}
	pager_start();
	if (json)
		diff_print_json(stdout, &d, old_path, new_path, (size_t)limit);
	else
		diff_print_text(stdout, &d, old_path, new_path, (size_t)limit);
	if (svg) {
		double *delta = stack_diff_nodes(&old, &new_);
		char sub[512];
		snprintf(sub, sizeof(sub), "%s -> %s: red grew, blue shrank (share of samples)", old_path, new_path);
		struct pictures_req pr = { .svg = svg, .delta = delta, .subtitle = sub };
		if (pictures_write(&pr, &new_, &said) < 0) {
			err_warn("%s", err_msg());
			status = EXIT_RUNTIME;
		}
		err_print_notes(&said);
		notes_clear(&said);
		free(delta);
	}
	stack_diff_free(&d);
	stacks_free(&old);
	stacks_free(&new_);
	return status;
}

/* lperf dump -p PID: every thread's Python stack of a running CPython, now (py-spy's dump),
 * read with the threads paused for a consistent read (--nonblocking: without pausing). */
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cmd.h"
#include "output/pydump_out.h"
#include "python/pydump.h"
#include "util/error.h"
#include "util/opt.h"
#include "util/parse.h"

int cmd_dump(int argc, char **argv)
{
	const char *pid_s = NULL;
	bool json = false, nonblocking = false, locals = false, gil = false, native = false;
	static const char *const usage[] = { "lperf dump -p PID [--locals] [--native] [--nonblocking] [--gil] [--json]", NULL };
	const struct option opts[] = {
		{ OPT_STRING, 'p', "pid", &pid_s, "PID", "the CPython process (2.7, 3.6-3.13) to show", NULL, 0 },
		{ OPT_BOOL, 'l', "locals", &locals, NULL, "show each frame's local variables (arguments "
		  "first) and a short repr of each value", NULL, 0 },
		{ OPT_BOOL, 'n', "native", &native, NULL, "show the native (C) frames too, each call of "
		  "the eval loop replaced by its Python frames", NULL, 0 },
		{ OPT_BOOL, 0, "nonblocking", &nonblocking, NULL, "read the stacks without pausing the "
		  "threads (they may change during the read)", NULL, 0 },
		{ OPT_BOOL, 0, "gil", &gil, NULL, "only the thread holding the GIL (as py-spy --gil)", NULL, 0 },
		{ OPT_BOOL, 0, "json", &json, NULL, "print one JSON document (docs/schemas/dump.schema.json)",
		  NULL, 0 },
		OPT_END_(),
	};
	const struct opt_ctx ctx = { "dump", usage, opts, false };
	int i = opt_parse(&ctx, argc, argv);
	if (i < argc)
		opt_usage_error(&ctx, "unexpected argument '%s'", argv[i]);
	int pid;
	if (!pid_s)
		opt_usage_error(&ctx, "-p PID is required: the Python process to show");
	if (parse_int(pid_s, &pid) < 0 || pid <= 0)
		opt_usage_error(&ctx, "-p '%s': not a process id", pid_s);
	if (native && nonblocking)
		opt_usage_error(&ctx, "--native unwinds the threads while they are paused: not with --nonblocking");
	if (json)
		err_no_hints = 1;

	struct pydump d;
	if (pydump_take(pid, !nonblocking, 0, (locals ? PYDUMP_LOCALS : 0) | (native ? PYDUMP_NATIVE : 0), &d) < 0)
		err_die_last(EXIT_RUNTIME);
	if (gil)
		pydump_keep_gil(&d);
	if (json)
		pydump_print_json(stdout, &d);
	else
		pydump_print_text(stdout, &d);
	pydump_free(&d);
	return 0;
}

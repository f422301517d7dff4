/* lperf bench: perf bench's workloads that perf's shell tests use as a load. Only `sched
 * messaging` (hackbench) so far, with perf's options and output. */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <sys/prctl.h>

#include "cmd/cmd.h"
#include "output/bench_out.h"
#include "util/error.h"
#include "util/opt.h"
#include "workload/messaging.h"

static int bench_messaging(int argc, char **argv, bool simple)
{
	struct messaging_opts o = { .groups = 10, .loops = 100 };
	static const char *const usage[] = { "lperf bench sched messaging <options>", NULL };
	const struct option opts[] = {
		{ OPT_INT, 'g', "group", &o.groups, "n", "Specify number of groups", NULL, 0 },
		{ OPT_INT, 'l', "nr_loops", &o.loops, "n",
		  "Specify the number of loops to run (default: 100)", NULL, 0 },
		{ OPT_BOOL, 'p', "pipe", &o.pipe, NULL, "Use pipe() instead of socketpair()", NULL, 0 },
		{ OPT_BOOL, 't', "thread", &o.thread, NULL, "Be multi thread instead of multi process",
		  NULL, 0 },
		OPT_END_(),
	};
	const struct opt_ctx ctx = { "bench sched messaging", usage, opts, false };
	int i = opt_parse(&ctx, argc, argv);
	if (i < argc)
		opt_usage_error(&ctx, "unexpected argument '%s'", argv[i]);
	if (o.groups < 1 || o.groups > 10000 || o.loops < 0)
		opt_usage_error(&ctx, "--group must be 1..10000 and --nr_loops not negative");
	if (!simple)
		bench_running(stdout, "sched", "messaging");
	fflush(stdout);
	/* perf names the workers after the benchmark */
	prctl(PR_SET_NAME, "sched-messaging", 0, 0, 0);
	double secs = 0;
	const char *what = "";
	if (messaging_run(&o, &secs, &what) < 0) {
		fprintf(stderr, "lperf bench: %s: %s\n", what, strerror(errno));
		return 1;
	}
	/* as perf: the workers' lines after the run */
	if (!simple)
		bench_messaging_header(stdout, o.groups, MESSAGING_PER_GROUP, o.thread);
	bench_total_time(stdout, secs, simple);
	return 0;
}

int cmd_bench(int argc, char **argv)
{
	const char *format = "default";
	static const char *const usage[] = { "lperf bench [<common options>] sched messaging [<options>]",
					     NULL };
	const struct option opts[] = {
		{ OPT_STRING, 'f', "format", &format, "default|simple", "Specify the output formatting style",
		  NULL, 0 },
		OPT_END_(),
	};
	const struct opt_ctx ctx = { "bench", usage, opts, true };
	int i = opt_parse(&ctx, argc, argv);
	bool simple = !strcmp(format, "simple");
	if (!simple && strcmp(format, "default"))
		opt_usage_error(&ctx, "unknown format '%s' (default or simple)", format);
	if (argc - i >= 2 && !strcmp(argv[i], "sched") && !strcmp(argv[i + 1], "messaging"))
		return bench_messaging(argc - i - 1, argv + i + 1, simple);
	if (i < argc)
		opt_usage_error(&ctx, "lperf has only the benchmark 'sched messaging', not '%s%s%s'",
				argv[i], i + 1 < argc ? " " : "", i + 1 < argc ? argv[i + 1] : "");
	opt_usage(&ctx, stderr);
	return 2;
}

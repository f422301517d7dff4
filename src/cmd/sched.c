/* lperf sched: perf sched's `record` (the scheduler's tracepoints on every CPU, each hit a
 * sample, as perf sched record takes them), which perf sched latency, timehist and map read. The
 * analyses themselves are not lperf's yet: their names say so and point at perf's. */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "events/tracepoint.h"
#include "util/error.h"
#include "util/opt.h"
#include "util/xalloc.h"

/* perf sched record's events, those this kernel has (sched_stat_runtime is gone from some). */
static const char *const sched_events[] = {
	"sched:sched_switch", "sched:sched_stat_runtime", "sched:sched_process_fork",
	"sched:sched_wakeup_new", "sched:sched_migrate_task", "sched:sched_waking",
};

static int sched_record(int argc, char **argv)
{
	static const char *const fixed[] = { "record", "-a", "-m", "1024", "-c", "1" };
	size_t n = ARRAY_SIZE(fixed);
	char **args = xcalloc(n + 2 * ARRAY_SIZE(sched_events) + (size_t)argc + 1, sizeof(*args));
	for (size_t i = 0; i < n; i++)
		args[i] = (char *)fixed[i];
	for (size_t i = 0; i < ARRAY_SIZE(sched_events); i++) {
		uint64_t id;
		if (tp_lookup(sched_events[i], &id) != 1) {
			err_clear();
			continue;
		}
		args[n++] = (char *)"-e";
		args[n++] = (char *)sched_events[i];
	}
	for (int i = 1; i < argc; i++)
		args[n++] = argv[i];
	int rc = cmd_record((int)n, args);
	free(args);
	return rc;
}

int cmd_sched(int argc, char **argv)
{
	static const char *const usage[] = { "lperf sched record [<options>] [--] [<command>]", NULL };
	const struct option opts[] = { OPT_END_() };
	const struct opt_ctx ctx = { "sched", usage, opts, true };
	int i = opt_parse_subcommand(&ctx, argc, argv);
	const char *sub = argv[i];
	if (opt_abbrev(sub, "record", 3))
		return sched_record(argc - i, argv + i);
	static const char *const perf_only[] = { "latency", "lat", "map", "timehist", "replay", "script" };
	for (size_t k = 0; k < ARRAY_SIZE(perf_only); k++)
		if (!strcmp(sub, perf_only[k]))
			err_die(EXIT_USAGE, "lperf sched %s is not available yet; 'perf sched %s -i FILE' reads "
				"the recording of 'lperf sched record'", sub, sub);
	opt_usage_error(&ctx, "unknown subcommand '%s' (lperf has record)", sub);
}

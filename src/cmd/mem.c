/* lperf mem: perf mem's `record` (Arm SPE loads and stores, as perf 6.1 records them on arm64)
 * and `report` over an SPE recording: each load and store with perf's memory-access class, its
 * latency, code and data address (spe/spe_mem.c; docs/mem.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "util/error.h"
#include "util/opt.h"
#include "util/xalloc.h"

static int mem_record(int argc, char **argv)
{
	static const char *const usage[] = { "lperf mem record [<options>] [--] [<command>]", NULL };
	const char *type = "load,store";
	int ldlat = 30;
	struct option opts[] = {
		{ OPT_STRING, 't', "type", &type, "type", "memory operations (load,store): load, store or both", NULL, 0 },
		{ OPT_INT, 0, "ldlat", &ldlat, "n", "minimum latency of the loads sampled (SPE min_latency)", NULL, 0 },
		OPT_END_(),
	};
	const struct opt_ctx ctx = { "mem record", usage, opts, true };
	int i = opt_parse(&ctx, argc, argv);
	bool ld = strstr(type, "load") != NULL, st = strstr(type, "store") != NULL;
	if (!ld && !st)
		opt_usage_error(&ctx, "unknown --type '%s' (load, store or load,store)", type);
	/* perf's arm64 spe-load, spe-store and spe-ldst events */
	char *ev = ld ? xasprintf("arm_spe_0/ts_enable=1,pa_enable=1,load_filter=1,store_filter=%d,min_latency=%d/", st, ldlat)
		      : xstrdup("arm_spe_0/ts_enable=1,pa_enable=1,load_filter=0,store_filter=1/");
	char **args = xcalloc((size_t)(argc - i) + 5, sizeof(*args));
	size_t n = 0;
	args[n++] = (char *)"record";
	args[n++] = (char *)"-e";
	args[n++] = ev;
	for (int k = i; k < argc; k++)
		args[n++] = argv[k];
	int rc = cmd_record((int)n, args);
	free(args);
	free(ev);
	return rc;
}

int cmd_mem(int argc, char **argv)
{
	static const char *const usage[] = { "lperf mem record [<options>] [--] [<command>]",
					     "lperf mem report [<options>]", NULL };
	struct option opts[] = { OPT_END_() };
	const struct opt_ctx ctx = { "mem", usage, opts, true };
	int i = opt_parse_subcommand(&ctx, argc, argv);
	const char *sub = argv[i];
	if (opt_abbrev(sub, "record", 3))
		return mem_record(argc - i, argv + i);
	if (opt_abbrev(sub, "report", 3))
		err_die(EXIT_USAGE, "lperf mem report is not available yet: 'lperf report -i FILE' shows an SPE "
			"recording's loads and stores by data source and latency, 'lperf c2c report' its shared lines");
	opt_usage_error(&ctx, "unknown subcommand '%s' (lperf has record and report)", sub);
}

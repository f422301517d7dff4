/* lperf mem: perf mem's `record` (Arm SPE loads and stores, as perf 6.1 records them on arm64)
 * and `report` over an SPE recording: each load and store with perf's memory-access class, its
 * latency, code and data address (spe/spe_mem.c; docs/mem.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "output/mem_out.h"
#include "session/session.h"
#include "spe/spe_c2c.h"
#include "spe/spe_load.h"
#include "spe/spe_mem.h"
#include "util/error.h"
#include "util/opt.h"
#include "util/xalloc.h"

/* perf mem record's own options (-t, --ldlat) are taken out, the rest go to record as they are
 * (perf keeps the options it does not know for record too). */
/* perf mem's options before the subcommand, which both take. */
struct mem_common {
	const char *input, *type;
	bool force, phys;
};

static int mem_record(int argc, char **argv, const struct mem_common *mc)
{
	const char *type = mc->type, *ldlat = "30";
	char **args = xcalloc((size_t)argc + 4, sizeof(*args));
	size_t n = 3;
	bool rest = false;
	for (int k = 1; k < argc; k++) {
		const char *a = argv[k];
		if (rest || !strcmp(a, "--")) {
			rest = true;
			args[n++] = argv[k];
		} else if ((!strcmp(a, "-t") || !strcmp(a, "--type") || !strcmp(a, "--ldlat")) && k + 1 < argc) {
			*(strcmp(a, "--ldlat") ? &type : &ldlat) = argv[++k];
		} else if (!strncmp(a, "--type=", 7) || (!strncmp(a, "-t", 2) && a[2])) {
			type = a + (a[1] == '-' ? 7 : 2);
		} else if (!strncmp(a, "--ldlat=", 8)) {
			ldlat = a + 8;
		} else {
			args[n++] = argv[k];
		}
	}
	bool ld = strstr(type, "load") != NULL, st = strstr(type, "store") != NULL;
	char *end = NULL;
	long lat = strtol(ldlat, &end, 0);
	if ((!ld && !st) || !*ldlat || *end || lat < 0 || lat > 4095) {
		free(args);
		err_die(EXIT_USAGE, "mem record: %s", !ld && !st ? "--type takes load, store or load,store"
								       : "--ldlat takes a latency in cycles, 0..4095");
	}
	/* perf's arm64 spe-load, spe-store and spe-ldst events */
	char *ev = ld ? xasprintf("arm_spe_0/ts_enable=1,pa_enable=1,load_filter=1,store_filter=%d,min_latency=%ld/", st, lat)
		      : xstrdup("arm_spe_0/ts_enable=1,pa_enable=1,load_filter=0,store_filter=1/");
	args[0] = (char *)"record";
	args[1] = (char *)"-e";
	args[2] = ev;
	int rc = cmd_record((int)n, args);
	free(args);
	free(ev);
	return rc;
}

void mem_open_spe(struct session *ss, const char *input, bool force, const char *what, struct spe_data *d)
{
	struct session_tool tool = { 0 };
	struct session_opts so = { .force = force };
	if (session_open(ss, input, &so, &tool) < 0)
		cmd_open_failed(input);
	if (!spe_recording(ss->reader))
		err_die(EXIT_USAGE, "%s holds no Arm SPE data: lperf %s reads SPE recordings (lperf %s record on "
			"an Arm machine with SPE); x86 memory-sampling events are not available", input, what, what);
	int rc = spe_session_load(ss, SPE_V1P3, NULL, d);
	for (size_t k = 0; k < d->notes.n; k++)
		err_warn("%s", d->notes.v[k]);
	if (rc < 0)
		err_die(EXIT_RUNTIME, "%s: %s", input, err_msg());
}

static int mem_report(int argc, char **argv, const struct mem_common *mc)
{
	static const char *const usage[] = { "lperf mem report [<options>]", NULL };
	const char *input = mc->input;
	bool stdio_ = false, force = mc->force;
	struct option opts[] = {
		{ OPT_STRING, 'i', "input", &input, "file", "the input file to process", NULL, 0 },
		{ OPT_BOOL, 0, "stdio", &stdio_, NULL, "use the stdio interface (the only one lperf has)", NULL, 0 },
		{ OPT_BOOL, 'f', "force", &force, NULL, "don't complain, do it", NULL, 0 },
		OPT_END_(),
	};
	const struct opt_ctx ctx = { "mem report", usage, opts, false };
	int i = opt_parse(&ctx, argc, argv);
	if (i < argc)
		opt_usage_error(&ctx, "unexpected argument '%s'", argv[i]);
	struct session ss;
	struct spe_data d;
	mem_open_spe(&ss, input, force, "mem", &d);
	struct spe_mem_section sec[SPE_MEM_NKINDS];
	size_t n;
	if (spe_mem_build(&d, c2c_cpuid_neoverse(ss.reader->info.cpuid), sec, &n) < 0)
		err_die(EXIT_RUNTIME, "%s: %s", input, err_msg());
	mem_print_stdio(stdout, sec, n);
	spe_mem_free(sec, n);
	spe_data_free(&d);
	session_close(&ss);
	return 0;
}

int cmd_mem(int argc, char **argv)
{
	static const char *const usage[] = { "lperf mem record [<options>] [--] [<command>]",
					     "lperf mem report [<options>]", NULL };
	struct mem_common mc = { "perf.data", "load,store", false, false };
	struct option opts[] = {
		{ OPT_STRING, 'i', "input", &mc.input, "file", "input file name (report)", NULL, 0 },
		{ OPT_BOOL, 'f', "force", &mc.force, NULL, "don't complain, do it", NULL, 0 },
		{ OPT_STRING, 't', "type", &mc.type, "type", "memory operations (load,store), the default load,store", NULL, 0 },
		{ OPT_BOOL, 'p', "phys-data", &mc.phys, NULL, "accepted: SPE records carry the physical address "
		  "(record sets pa_enable)", NULL, 0 },
		OPT_END_(),
	};
	const struct opt_ctx ctx = { "mem", usage, opts, true };
	int i = opt_parse_subcommand(&ctx, argc, argv);
	const char *sub = argv[i];
	if (opt_abbrev(sub, "record", 3))
		return mem_record(argc - i, argv + i, &mc);
	if (opt_abbrev(sub, "report", 3))
		return mem_report(argc - i, argv + i, &mc);
	opt_usage_error(&ctx, "unknown subcommand '%s' (lperf has record and report)", sub);
}

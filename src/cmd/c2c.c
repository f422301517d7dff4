/* lperf c2c: perf c2c's `record` (Arm SPE loads and stores, as perf 6.1 records them on arm64)
 * and `report --stdio` over an SPE recording, lperf's or perf's: the cache lines that loads found
 * in another core's cache (peer snoops; SPE has no HITM) with the stores to them, per offset and
 * code address (spe/spe_c2c.c, text in output/c2c_out.c; docs/mem.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "events/memev.h"
#include "output/c2c_out.h"
#include "session/session.h"
#include "spe/spe_c2c.h"
#include "spe/spe_load.h"
#include "util/error.h"
#include "util/opt.h"
#include "util/xalloc.h"

/* perf c2c record: loads and stores with their data and physical addresses and CPUs, in one
 * event where the PMU has one (Arm SPE's spe-ldst, AMD's IBS), else Intel's two (memev.h). */
static int c2c_record(int argc, char **argv)
{
	struct memev m;
	memev_probe(&m);
	if (m.pmu == MEMEV_NONE)
		err_die(EXIT_USAGE, "c2c record: %s", memev_missing());
	char **args = xcalloc((size_t)argc + 12, sizeof(*args)), *ev[2] = { NULL, NULL };
	size_t n = 0;
	args[n++] = (char *)"record";
	args[n++] = (char *)"-W";
	args[n++] = (char *)"-d";
	args[n++] = (char *)"--phys-data";
	args[n++] = (char *)"--sample-cpu";
	if (m.tag[MEMEV_LDST]) {
		ev[0] = memev_event(&m, MEMEV_LDST, 30);
	} else {
		ev[0] = memev_event(&m, MEMEV_LOAD, 30);
		ev[1] = memev_event(&m, MEMEV_STORE, 30);
	}
	for (int i = 0; i < 2; i++)
		if (ev[i]) {
			args[n++] = (char *)"-e";
			args[n++] = ev[i];
		}
	for (int i = 1; i < argc; i++)
		args[n++] = !strcmp(argv[i], "-u") ? (char *)"--all-user" :
			    !strcmp(argv[i], "-k") ? (char *)"--all-kernel" : argv[i];
	int rc = cmd_record((int)n, args);
	free(ev[0]);
	free(ev[1]);
	free(args);
	return rc;
}

static int parse_display(const char *s, enum c2c_display *d)
{
	static const char *const names[] = { "tot", "rmt", "lcl", "peer" };
	for (int i = 0; i < 4; i++)
		if (!strcmp(s, names[i])) {
			*d = (enum c2c_display)i;
			return 0;
		}
	return -1;
}

static int c2c_report(int argc, char **argv)
{
	static const char *const usage[] = { "lperf c2c report [<options>]", NULL };
	const char *input = "perf.data", *display = NULL;
	bool stdio_ = false, force = false, no_source = false, tui = false;
	struct option opts[] = {
		{ OPT_STRING, 'i', "input", &input, "file", "the input file to process", NULL, 0 },
		{ OPT_STRING, 'd', "display", &display, "tot|rmt|lcl|peer", "lines to show: HITMs (x86) or peer snoops (Arm SPE; the default on arm64 recordings)", NULL, 0 },
		{ OPT_BOOL, 0, "stdio", &stdio_, NULL, "use the stdio interface (the only one lperf has)", NULL, 0 },
		{ OPT_BOOL, 0, "tui", &tui, NULL, "accepted: lperf writes the stdio text", NULL, OPT_HIDDEN },
		{ OPT_BOOL, 0, "no-source", &no_source, NULL, "no Source:Line column", NULL, 0 },
		{ OPT_BOOL, 'f', "force", &force, NULL, "don't complain, do it", NULL, 0 },
		OPT_END_(),
	};
	const struct opt_ctx ctx = { "c2c report", usage, opts, false };
	int i = opt_parse(&ctx, argc, argv);
	if (i < argc)
		opt_usage_error(&ctx, "unexpected argument '%s'", argv[i]);
	enum c2c_display disp = C2C_TOT_HITM;
	if (display && parse_display(display, &disp) < 0)
		opt_usage_error(&ctx, "unknown display type '%s' (tot, rmt, lcl or peer)", display);
	struct session ss;
	struct spe_data d;
	mem_open_samples(&ss, input, force, "c2c", &d);
	const char *arch = ss.reader->info.arch;
	if (!display && arch && (!strcmp(arch, "aarch64") || !strcmp(arch, "arm64")))
		disp = C2C_PEER;
	struct c2c_result r;
	if (c2c_build(&d, c2c_cpuid_neoverse(ss.reader->info.cpuid), disp, &r) < 0)
		err_die(EXIT_RUNTIME, "%s: %s", input, err_msg());
	if (!no_source)
		c2c_sources(&r);
	const char **ev = xcalloc(ss.evsels->n + 1, sizeof(*ev));
	for (size_t k = 0; k < ss.evsels->n; k++)
		ev[k] = ss.evsels->v[k].name ? ss.evsels->v[k].name : "";
	c2c_print_stdio(stdout, &r, ev, ss.evsels->n, ss.reader->info.cpu_node, ss.reader->info.ncpu_node);
	free(ev);
	c2c_result_free(&r);
	spe_data_free(&d);
	session_close(&ss);
	return 0;
}

int cmd_c2c(int argc, char **argv)
{
	static const char *const usage[] = { "lperf c2c record [<options>] [--] [<command>]",
					     "lperf c2c report [<options>]", NULL };
	int verbose = 0;
	struct option opts[] = {
		{ OPT_COUNT, 'v', "verbose", &verbose, NULL, "be more verbose (accepted)", NULL, 0 },
		OPT_END_(),
	};
	const struct opt_ctx ctx = { "c2c", usage, opts, true };
	int i = opt_parse_subcommand(&ctx, argc, argv);
	const char *sub = argv[i];
	if (opt_abbrev(sub, "record", 3))
		return c2c_record(argc - i, argv + i);
	if (opt_abbrev(sub, "report", 3))
		return c2c_report(argc - i, argv + i);
	opt_usage_error(&ctx, "unknown subcommand '%s' (lperf has record and report)", sub);
}

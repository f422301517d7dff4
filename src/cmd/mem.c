/* lperf mem: perf mem's `record` (Arm SPE loads and stores, as perf 6.1 records them on arm64)
 * and `report` over an SPE recording: each load and store with perf's memory-access class, its
 * latency, code and data address (spe/spe_mem.c; docs/mem.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "events/memev.h"
#include "output/mem_out.h"
#include "session/session.h"
#include "spe/spe_c2c.h"
#include "spe/spe_load.h"
#include "spe/spe_mem.h"
#include "util/error.h"
#include "util/opt.h"
#include "util/xalloc.h"

/* perf mem's options before the subcommand, which both take. */
struct mem_common {
	const char *input, *type;
	bool force, phys;
};

static void mem_list(const struct memev *m)
{
	for (int i = 0; i < MEMEV_NOPS; i++)
		if (m->tag[i])
			fprintf(stderr, "%-13s: %savailable\n", m->tag[i], m->supported[i] ? "" : "not ");
}

/* The events of a record: -e TAG's, else those -t asks for (both in one where the PMU has a
 * load-and-store event, as perf does). */
static size_t mem_pick(const struct memev *m, const char *type, const char *const *ev, size_t nev, int ops[3])
{
	size_t n = 0;
	for (size_t i = 0; i < nev; i++) {
		int op = memev_find(m, ev[i]);
		if (op < 0 || !m->supported[op])
			err_die(EXIT_USAGE, "mem record -e: '%s' is not a memory event %s ('lperf mem record -e "
				"list' lists them)", ev[i], op < 0 ? "of this machine's PMU" : "this machine has");
		ops[n++] = op;
	}
	if (n)
		return n;
	bool ld = strstr(type, "load") != NULL, st = strstr(type, "store") != NULL;
	if (!ld && !st)
		err_die(EXIT_USAGE, "mem record: --type takes load, store or load,store");
	if (ld && st && m->tag[MEMEV_LDST]) {
		ops[n++] = MEMEV_LDST;
		return n;
	}
	if (ld)
		ops[n++] = m->tag[MEMEV_LOAD] ? MEMEV_LOAD : MEMEV_LDST;
	if (st && m->tag[MEMEV_STORE])
		ops[n++] = MEMEV_STORE;
	else if (st && !n)
		ops[n++] = MEMEV_LDST; /* AMD's IBS samples loads and stores in one event */
	return n;
}

/* perf mem record's own options (-t, -e, --ldlat, -U, -K, -p) are taken out, the rest go to
 * record as they are (perf keeps the options it does not know for record too). */
static int mem_record(int argc, char **argv, const struct mem_common *mc)
{
	const char *type = mc->type, *ldlat = "30", *ev[3];
	char **args = xcalloc((size_t)argc + 16, sizeof(*args)), **rest = xcalloc((size_t)argc + 1, sizeof(*rest));
	size_t nr = 0, nev = 0, n = 0;
	bool after = false, user = false, kern = false, phys = mc->phys;
	for (int k = 1; k < argc; k++) {
		const char *a = argv[k];
		if (after || !strcmp(a, "--")) {
			after = true;
			rest[nr++] = argv[k];
		} else if ((!strcmp(a, "-t") || !strcmp(a, "--type")) && k + 1 < argc) {
			type = argv[++k];
		} else if (!strcmp(a, "--ldlat") && k + 1 < argc) {
			ldlat = argv[++k];
		} else if ((!strcmp(a, "-e") || !strcmp(a, "--event")) && k + 1 < argc) {
			if (nev == 3) /* a PMU has three memory events at most */
				err_die(EXIT_USAGE, "mem record: at most three -e (one per memory event)");
			ev[nev++] = argv[++k];
		} else if (!strncmp(a, "--type=", 7) || (!strncmp(a, "-t", 2) && a[2])) {
			type = a + (a[1] == '-' ? 7 : 2);
		} else if (!strncmp(a, "--ldlat=", 8)) {
			ldlat = a + 8;
		} else if (!strcmp(a, "-U") || !strcmp(a, "--all-user")) {
			user = true;
		} else if (!strcmp(a, "-K") || !strcmp(a, "--all-kernel")) {
			kern = true;
		} else if (!strcmp(a, "-p") || !strcmp(a, "--phys-data")) {
			phys = true;
		} else {
			rest[nr++] = argv[k];
		}
	}
	struct memev m;
	memev_probe(&m);
	bool listing = nev == 1 && !strcmp(ev[0], "list");
	if (m.pmu == MEMEV_NONE)
		err_die(EXIT_USAGE, "mem record: %s", memev_missing());
	if (listing) {
		mem_list(&m);
		exit(0);
	}
	char *end = NULL;
	long lat = strtol(ldlat, &end, 0);
	if (!*ldlat || *end || lat < 0 || lat > 4095)
		err_die(EXIT_USAGE, "mem record: --ldlat takes a latency in cycles, 0..4095");
	int ops[3];
	size_t nops = mem_pick(&m, type, ev, nev, ops);
	bool loads = false;
	for (size_t i = 0; i < nops; i++)
		loads |= ops[i] != MEMEV_STORE;
	char *evs[3];
	args[n++] = (char *)"record";
	if (loads)
		args[n++] = (char *)"-W";
	args[n++] = (char *)"-d";
	if (phys)
		args[n++] = (char *)"--phys-data";
	for (size_t i = 0; i < nops; i++) {
		evs[i] = memev_event(&m, (enum memev_op)ops[i], (unsigned)lat);
		args[n++] = (char *)"-e";
		args[n++] = evs[i];
	}
	if (user)
		args[n++] = (char *)"--all-user";
	if (kern)
		args[n++] = (char *)"--all-kernel";
	for (size_t i = 0; i < nr; i++)
		args[n++] = rest[i];
	int rc = cmd_record((int)n, args);
	for (size_t i = 0; i < nops; i++)
		free(evs[i]);
	free(args);
	free(rest);
	return rc;
}

void mem_open_samples(struct session *ss, const char *input, bool force, const char *what, struct spe_data *d)
{
	struct session_tool tool = { 0 };
	struct session_opts so = { .force = force };
	if (session_open(ss, input, &so, &tool) < 0)
		cmd_open_failed(input);
	int rc;
	if (spe_recording(ss->reader))
		rc = spe_session_load(ss, SPE_V1P3, NULL, d);
	else if (spe_memev_recording(ss))
		rc = spe_memev_load(ss, d);
	else
		err_die(EXIT_USAGE, "%s holds no memory samples: lperf %s reads Arm SPE data and the samples of "
			"memory events with data sources (lperf %s record, on an Arm machine with SPE, an Intel "
			"CPU with PEBS load latency or an AMD CPU with IBS)", input, what, what);
	for (size_t k = 0; k < d->notes.n; k++)
		err_warn("%s", d->notes.v[k]);
	if (rc < 0)
		err_die(EXIT_RUNTIME, "%s: %s", input, err_msg());
}

static int mem_report(int argc, char **argv, const struct mem_common *mc)
{
	static const char *const usage[] = { "lperf mem report [<options>]", NULL };
	const char *input = mc->input, *sep = NULL;
	bool stdio_ = false, force = mc->force, raw = false, hide = false, phys = mc->phys;
	struct option opts[] = {
		{ OPT_STRING, 'i', "input", &input, "file", "the input file to process", NULL, 0 },
		{ OPT_BOOL, 0, "stdio", &stdio_, NULL, "use the stdio interface (the only one lperf has)", NULL, 0 },
		{ OPT_BOOL, 'f', "force", &force, NULL, "don't complain, do it", NULL, 0 },
		{ OPT_BOOL, 'D', "dump-raw-samples", &raw, NULL, "dump raw samples in ASCII", NULL, 0 },
		{ OPT_BOOL, 'U', "hide-unresolved", &hide, NULL, "only samples resolved to a symbol (-D)", NULL, 0 },
		{ OPT_STRING, 'x', "field-separator", &sep, "separator", "separator of -D's columns", NULL, 0 },
		{ OPT_BOOL, 'p', "phys-data", &phys, NULL, "-D: the physical data addresses too", NULL, 0 },
		OPT_END_(),
	};
	const struct opt_ctx ctx = { "mem report", usage, opts, false };
	int i = opt_parse(&ctx, argc, argv);
	if (i < argc)
		opt_usage_error(&ctx, "unexpected argument '%s'", argv[i]);
	if ((sep || hide) && !raw)
		opt_usage_error(&ctx, "-x and -U go with -D (lperf's tables have perf's default columns only)");
	if (sep && !*sep)
		opt_usage_error(&ctx, "-x takes a separator");
	struct session ss;
	struct spe_data d;
	mem_open_samples(&ss, input, force, "mem", &d);
	if (raw) {
		size_t nr;
		struct spe_mem_raw *v = spe_mem_raw(&d, c2c_cpuid_neoverse(ss.reader->info.cpuid), &nr);
		mem_print_raw(stdout, v, nr, sep, phys, hide);
		free(v);
		spe_data_free(&d);
		session_close(&ss);
		return 0;
	}
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

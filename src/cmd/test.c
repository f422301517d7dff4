/* lperf test: what this machine can profile (WindowsPerf's `wperf test`). One "Test Name /
 * Result" row per fact, in plain words; --json adds the same facts as structured sections. */
#include <stdio.h>
#include <stdlib.h>

#include "cmd/cmd.h"
#include "output/test_out.h"
#include "python/pymethod.h"
#include "sysinfo/sysinfo.h"
#include "util/error.h"
#include "util/opt.h"
#include "util/xalloc.h"
#include "workload/workload.h"

int cmd_test(int argc, char **argv)
{
	bool json = false, no_python = false;
	int verbose = 0;
	const char *output = NULL, *workload = NULL;
	static const char *const usage[] = { "lperf test [--json] [-v] [-o FILE] [--no-python]",
					     "lperf test -w WORKLOAD [ARGS]", NULL };
	const struct option opts[] = {
		{ OPT_BOOL, 0, "json", &json, NULL, "print JSON instead of the table", NULL, 0 },
		{ OPT_COUNT, 'v', "verbose", &verbose, NULL,
		  "one row per PMU, with its caps; Python realpaths", NULL, 0 },
		{ OPT_STRING, 'o', "output", &output, "FILE",
		  "also write the JSON report to FILE", NULL, 0 },
		{ OPT_BOOL, 0, "no-python", &no_python, NULL,
		  "do not look for Pythons (they are started once each)", NULL, 0 },
		{ OPT_STRING, 'w', "workload", &workload, "NAME", "run one of perf's built-in workloads: noploop "
		  "[SEC], thloop [SEC], leafloop [SEC], sqrtloop [SEC], brstack [LOOPS], datasym", NULL, 0 },
		OPT_END_(),
	};
	const struct opt_ctx ctx = { "test", usage, opts, true };
	int i = opt_parse(&ctx, argc, argv);
	if (workload) {
		int r = workload_run(workload, argc - i, argv + i);
		if (r < 0) { /* perf's words and status */
			fprintf(stderr, "No workload found: %s\n", workload);
			return 255;
		}
		return r;
	}
	if (i < argc)
		opt_usage_error(&ctx, "unexpected argument '%s'", argv[i]);
	if (output && !*output)
		opt_usage_error(&ctx, "option '-o' needs a file name");

	struct sysinfo si;
	struct test_rows r = { 0 };
	sysinfo_collect(&si, no_python ? 0 : SYSINFO_PYTHONS);
	/* how --python would get each interpreter's stacks (whether BPF loads is tried here) */
	char **stacks = no_python ? NULL : xcalloc(si.npy ? si.npy : 1, sizeof(char *));
	for (size_t k = 0; stacks && k < si.npy; k++) {
		char method[768];
		if (!si.py[k].error)
			stacks[k] = xstrdup(pymethod_describe(&si.py[k], method, sizeof(method)));
	}
	test_rows_build(&r, &si, verbose, (const char *const *)stacks);
	for (size_t k = 0; stacks && k < si.npy; k++)
		free(stacks[k]);
	free(stacks);

	int ret = 0;
	if (output && test_write_json_file(output, &r, &si) < 0) {
		err_warn("%s", err_msg());
		ret = EXIT_RUNTIME;
	}
	if (json) {
		test_print_json(stdout, &r, &si);
	} else {
		test_print_table(stdout, &r);
	}
	test_rows_free(&r);
	sysinfo_free(&si);
	return ret;
}

/* lperf version (and lperf --version): the version, git revision and the libraries built in,
 * as one line, as WindowsPerf's Component/Version/GitVer/FeatureString table (-v), or JSON. */
#include <stdio.h>

#include "cmd/cmd.h"
#include "output/version_out.h"
#include "sysinfo/sysinfo.h"
#include "util/opt.h"

int cmd_version(int argc, char **argv)
{
	bool json = false, build_options = false;
	int verbose = 0;
	static const char *const usage[] = { "lperf version [--json] [-v] [--build-options]", "lperf --version", NULL };
	const struct option opts[] = {
		{ OPT_BOOL, 0, "json", &json, NULL, "print JSON (WindowsPerf's \"Version\" table)",
		  NULL, 0 },
		{ OPT_COUNT, 'v', "verbose", &verbose, NULL,
		  "show each library's version in a table", NULL, 0 },
		{ OPT_BOOL, 0, "build-options", &build_options, NULL, "the features built in, as perf "
		  "version --build-options lists them", NULL, 0 },
		OPT_END_(),
	};
	const struct opt_ctx ctx = { "version", usage, opts, false };
	int i = opt_parse(&ctx, argc, argv);
	if (i < argc)
		opt_usage_error(&ctx, "unexpected argument '%s'", argv[i]);

	struct sysinfo_component comp[SYSINFO_MAX_COMPONENTS];
	size_t n = sysinfo_components(comp);
	if (build_options)
		version_print_build_options(stdout, comp);
	else if (json)
		version_print_json(stdout, comp, n);
	else if (verbose)
		version_print_table(stdout, comp, n);
	else
		version_print_line(stdout, comp);
	return 0;
}

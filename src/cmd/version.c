/* lperf version (and lperf --version): the version, git revision and the libraries built in,
 * as one line, as WindowsPerf's Component/Version/GitVer/FeatureString table (-v), or JSON. */
#include <capstone/capstone.h>
#include <elfutils/libdwfl.h>
#include <perfmon/pfmlib.h>
#include <stdio.h>
#include <zlib.h>

#include "cmd/cmd.h"
#include "output/json.h"
#include "output/table.h"
#include "util/opt.h"
#include "util/xalloc.h"

#ifndef LPERF_VERSION
#define LPERF_VERSION "unknown"
#endif
#ifndef LPERF_GITREV
#define LPERF_GITREV "unknown"
#endif

struct component {
	const char *name;
	char version[32];
	const char *gitver;
	const char *features;
};

/* Each library row names the feature flag it provides; lperf's own row lists them all. */
#define FEATURES "+pfm +dw +capstone +zlib"

static size_t components(struct component *c)
{
	int maj = 0, min = 0;
	unsigned pfm = (unsigned)pfm_get_version();
	const char *dw = dwfl_version(NULL);
	size_t n = 0;

	c[n] = (struct component){ "lperf", "", LPERF_GITREV, FEATURES };
	snprintf(c[n++].version, sizeof(c->version), "%s", LPERF_VERSION);
	c[n] = (struct component){ "libpfm4", "", "", "+pfm" };
	snprintf(c[n++].version, sizeof(c->version), "%u.%u", PFM_MAJ_VERSION(pfm),
		 PFM_MIN_VERSION(pfm));
	c[n] = (struct component){ "elfutils", "", "", "+dw" };
	snprintf(c[n++].version, sizeof(c->version), "%s", dw ? dw : "unknown");
	cs_version(&maj, &min);
	c[n] = (struct component){ "capstone", "", "", "+capstone" };
	snprintf(c[n++].version, sizeof(c->version), "%d.%d", maj, min);
	c[n] = (struct component){ "zlib", "", "", "+zlib" };
	snprintf(c[n++].version, sizeof(c->version), "%s", zlibVersion());
	return n;
}

int cmd_version(int argc, char **argv)
{
	bool json = false;
	int verbose = 0;
	static const char *const usage[] = { "lperf version [--json] [-v]", "lperf --version", NULL };
	const struct option opts[] = {
		{ OPT_BOOL, 0, "json", &json, NULL, "print JSON (WindowsPerf's \"Version\" table)",
		  NULL, 0 },
		{ OPT_COUNT, 'v', "verbose", &verbose, NULL,
		  "show each library's version in a table", NULL, 0 },
		OPT_END_(),
	};
	const struct opt_ctx ctx = { "version", usage, opts, false };
	int i = opt_parse(&ctx, argc, argv);
	if (i < argc)
		opt_usage_error(&ctx, "unexpected argument '%s'", argv[i]);

	struct component c[8];
	size_t n = components(c);
	if (json) {
		struct json j;
		json_init(&j, stdout, true);
		json_begin_object(&j, NULL);
		json_begin_array(&j, "Version");
		for (size_t k = 0; k < n; k++) {
			json_begin_object(&j, NULL);
			json_str(&j, "Component", c[k].name);
			json_str(&j, "Version", c[k].version);
			json_str(&j, "GitVer", c[k].gitver);
			json_str(&j, "FeatureString", c[k].features);
			json_end_object(&j);
		}
		json_end_array(&j);
		json_end_object(&j);
		json_finish(&j);
	} else if (verbose) {
		static const char *const cols[] = { "Component", "Version", "GitVer", "FeatureString" };
		struct table t;
		table_init(&t, ARRAY_SIZE(cols), cols);
		t.indent = 8;
		t.underline = true;
		for (size_t k = 0; k < n; k++)
			table_rowv(&t, c[k].name, c[k].version, c[k].gitver, c[k].features);
		table_print(&t, stdout);
		table_free(&t);
	} else {
		printf("lperf version %s (%s) %s\n", c[0].version, c[0].gitver, c[0].features);
	}
	return 0;
}

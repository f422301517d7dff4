/* `lperf man NAME` and `wperf man NAME`: an event, metric or metric group described as
 * WindowsPerf's manual pages do (looked up by wperf/wperf_man.c, laid out by
 * output/wperf_info_out.c). */
#include "cmd/cmd.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/wperf_out.h"
#include "util/error.h"
#include "util/outfile.h"
#include "wperf/wperf.h"
#include "wperf/wperf_man.h"

/* Looks name up and prints its page (text, unless json or quiet), its JSON (json) and writes
 * the JSON to output (NULL: no file), as wperf does with --json and --output. */
static int man_run(const char *name, bool json, bool quiet, const char *output,
		   const char *metric_file)
{
	struct wperf_man m;
	switch (wperf_man_lookup(name, metric_file, &m)) {
	case WPERF_MAN_FOUND:
		break;
	case WPERF_MAN_NOT_FOUND:
		fprintf(stderr, "warning: %s\n", err_msg());
		return EXIT_RUNTIME;
	case WPERF_MAN_BAD_CPU:
		fprintf(stderr, "warning: %s\n", err_msg());
		return EXIT_USAGE;
	case WPERF_MAN_BAD_FILE:
		fprintf(stderr, "error: %s\n", err_msg());
		return EXIT_USAGE;
	case WPERF_MAN_NO_DATA:
		fprintf(stderr, "error: %s\n", err_msg());
		return EXIT_RUNTIME;
	}
	struct wperf_tab t;
	wperf_man_tab(&t, m.field, (const char *const *)m.value, m.n);
	int ret = 0;
	if (json)
		wperf_tabs_json(stdout, &t, 1);
	else if (!quiet)
		wperf_man_text(stdout, &t);
	if (output) {
		struct outfile of;
		FILE *f = outfile_fopen(&of, output);
		if (f)
			wperf_tabs_json(f, &t, 1);
		if (!f || outfile_commit(&of, false) < 0) {
			fprintf(stderr, "error: %s\n", err_msg());
			ret = EXIT_RUNTIME;
		}
	}
	wperf_tab_free(&t);
	wperf_man_free(&m);
	return ret;
}

int wperf_man(struct wperf_args *a)
{
	if (!a->man_name) {
		fprintf(stderr, "warning: no argument(s) specified, specify an event, metric, or group "
			"of metrics to obtain its manual page (e.g. wperf man ld_spec, wperf man "
			"neoverse-n1/branch_percentage).\n");
		return EXIT_RUNTIME;
	}
	char *path = a->output ? wperf_out_path(a, a->output) : NULL;
	int ret = man_run(a->man_name, a->json, a->quiet, path, a->metric_file);
	free(path);
	return ret;
}

int cmd_man(int argc, char **argv)
{
	bool json = false;
	const char *name = NULL, *mfile = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: lperf man [--json] [--metric-file FILE] NAME | CPU/NAME\n\n"
			       "Describes an event, a metric or a metric group (WindowsPerf's man).\n");
			return 0;
		} else if (!strcmp(argv[i], "--metric-file") && i + 1 < argc) {
			mfile = argv[++i];
		} else if (argv[i][0] == '-' || name) {
			fprintf(stderr, "lperf man: unexpected argument '%s'\n"
				"Run 'lperf man --help' for the usage.\n", argv[i]);
			return EXIT_USAGE;
		} else {
			name = argv[i];
		}
	}
	if (!name) {
		fprintf(stderr, "lperf man: give an event, metric or metric group name\n");
		return EXIT_USAGE;
	}
	return man_run(name, json, false, NULL, mfile);
}

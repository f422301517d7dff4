/* `lperf man NAME` and `wperf man NAME`: an event, metric or metric group described as
 * WindowsPerf's manual pages do (looked up by wperf/wperf_man.c, laid out by
 * output/wperf_info_out.c). */
#include "cmd/cmd.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/wperf_out.h"
#include "util/error.h"
#include "wperf/wperf.h"
#include "wperf/wperf_man.h"

static int man_run(const char *name, bool json, const char *metric_file)
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
	}
	struct wperf_tab t;
	wperf_man_tab(&t, m.field, (const char *const *)m.value, m.n);
	if (json)
		wperf_tabs_json(stdout, &t, 1);
	else
		wperf_man_text(stdout, &t);
	wperf_tab_free(&t);
	wperf_man_free(&m);
	return 0;
}

int wperf_man(struct wperf_args *a)
{
	if (!a->man_name) {
		fprintf(stderr, "error: man needs a NAME: an event, metric or metric group, or "
			"CPU/NAME (e.g. neoverse-n1/branch_percentage)\n");
		return EXIT_USAGE;
	}
	return man_run(a->man_name, a->json, a->metric_file);
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
	return man_run(name, json, mfile);
}

/* Fuzz harness: WindowsPerf's command line. The input's first byte picks a sysfs fixture tree
 * (AMD, Arm PMUv3 with DSU/DMC/SPE, a VM without a hardware PMU) for LPERF_SYSFS_ROOT; the rest
 * is NUL-separated words, argv[1..] of `wperf`. It is parsed as the personality parses it
 * (wperf_parse_args: one or two dashes, -c cores, -k, -C, -E, -t -i -n, durations, `sleep N`,
 * `--`), then the event list it asks for is built (-E custom names, DSU/DMC metrics, the cycle
 * counter wperf adds) and parsed with the -e grammar, as stat and sample would before running
 * anything, and WindowsPerf's checks of the line run (SPE filters, intervals, cores). Each word is
 * also read as a wperf duration. Nothing is run. Seeds: the command lines
 * of the WindowsPerf documentation and of tests/e2e/t90-wperf.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events/evlist.h"
#include "fuzz.h"
#include "util/error.h"
#include "util/strbuf.h"
#include "wperf/wperf.h"
#include "wperf/wperf_extra.h"

/* -C and -E name files the personality reads; a fuzzed path must not reach the machine's files
 * (a FIFO or a device would make the harness wait, not lperf wrong), so only inline -E lists
 * and no metric file are kept. */
static void drop_files(struct wperf_args *a)
{
	a->metric_file = NULL;
	if (a->extra_events && !strchr(a->extra_events, ':'))
		a->extra_events = NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 4096)
		return 0;
	fuzz_use_sysfs_fixture(data[0]);
	char *text = fuzz_strndup(data + 1, size - 1);
	size_t len = size - 1;

	char *argv[34];
	int argc = 0;
	argv[argc++] = "wperf";
	for (size_t i = 0; i < len && argc < 33; ) {
		argv[argc++] = text + i;
		i += strlen(text + i) + 1;
	}
	argv[argc] = NULL;

	for (int i = 1; i < argc; i++) {
		double s;
		if (wperf_parse_duration(argv[i], &s) < 0)
			err_clear();
	}

	struct wperf_args a;
	if (wperf_parse_args(&a, argc, argv) == 0) {
		drop_files(&a);
		struct strbuf events = { 0 }, metrics = { 0 };
		if (wperf_build_events(&a, &events, &metrics) == 0 && events.len) {
			struct evlist l = { 0 };
			if (evlist_parse(&l, events.buf) == 0)
				evlist_set_default_excludes(&l, !a.kernel);
			evlist_free(&l);
		}
		sb_release(&events);
		sb_release(&metrics);
		/* WindowsPerf's checks after the line (a process, one core, cores, stat's events). */
		if (wperf_check_request(&a, 4) < 0)
			err_clear();
		char *cores = a.cores ? wperf_cores_list(a.cores) : NULL;
		free(cores);
		err_clear();
	}
	wperf_args_free(&a);
	free(text);
	err_clear();
	return 0;
}

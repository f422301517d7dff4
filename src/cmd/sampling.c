/* The sampling commands (record, report, sample, script, annotate) are the next milestone
 * (issue 3: the sampling model; issue 4: Python and JIT stacks). Until they land, each says so
 * plainly and points at what works today, rather than pretending. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "util/error.h"

static int unavailable(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: lperf %s [OPTIONS]\n\n"
			       "'lperf %s' belongs to the sampling model, which this build does not\n"
			       "include yet. Counting works today: see 'lperf stat --help'.\n",
			       argv[0], argv[0]);
			return 0;
		}
	err_die(EXIT_RUNTIME, "'%s' is not available in this build: sampling (record, report, "
		"sample, script, annotate) is not built yet; counting with 'lperf stat' works", argv[0]);
}

int cmd_record(int argc, char **argv) { return unavailable(argc, argv); }
int cmd_report(int argc, char **argv) { return unavailable(argc, argv); }
int cmd_sample(int argc, char **argv) { return unavailable(argc, argv); }
int cmd_script(int argc, char **argv) { return unavailable(argc, argv); }
int cmd_annotate(int argc, char **argv) { return unavailable(argc, argv); }

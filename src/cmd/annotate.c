/* lperf annotate: samples per source line and instruction. Not in this build yet: it needs the
 * sampling model's line tables and disassembly (capstone), the next step after report. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "util/error.h"

int cmd_annotate(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: lperf annotate [OPTIONS]\n\n'lperf annotate' is not in this build yet; "
			       "'lperf report' shows where samples fall by function.\n");
			return 0;
		}
	err_die(EXIT_RUNTIME, "'annotate' is not available in this build yet; 'lperf report' shows "
		"where samples fall by function");
}

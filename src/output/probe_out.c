/* perf probe's text, as perf 6.1 prints it. */
#include "output/probe_out.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

void probe_print_event(FILE *f, const char *group, const char *event, const char *where, const char *bin,
		       const char *args)
{
	char *name = xasprintf("%s:%s", group, event);
	fprintf(f, "  %-20s (on %s%s%s%s%s)\n", name, where, bin ? " in " : "", bin ? bin : "",
		args && *args ? " with " : "", args && *args ? args : "");
	free(name);
}

void probe_print_added_head(FILE *f, size_t n)
{
	fprintf(f, "Added new event%s:\n", n == 1 ? "" : "s");
}

void probe_print_added_tail(FILE *f, const char *group, const char *event)
{
	fprintf(f, "\nYou can now use it in all perf tools, such as:\n\n\tperf record -e %s:%s -aR sleep 1\n\n", group,
		event);
}

void probe_print_vars(FILE *f, const char *point, const char *where, char *const *lines, size_t n)
{
	fprintf(f, "Available variables at %s\n\t@<%s>\n", point, where);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "\t\t%s\n", lines[i]);
}

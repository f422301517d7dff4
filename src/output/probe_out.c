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

void probe_print_lines(FILE *f, const char *func, const char *file, const char *text, int start, int end,
		       const uint8_t *numbered)
{
	fprintf(f, "<%s@%s:0>\n", func, file);
	const char *p = text;
	for (int l = 1; *p && l <= end + 3; l++) {
		const char *nl = strchr(p, '\n');
		int len = nl ? (int)(nl - p) : (int)strlen(p);
		if (l >= start && l <= end && numbered[l])
			fprintf(f, "%7d  %.*s\n", l - start, len, p);
		else if (l >= start)
			fprintf(f, "         %.*s\n", len, p);
		if (!nl)
			break;
		p = nl + 1;
	}
}

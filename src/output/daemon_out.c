#include "output/daemon_out.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/xalloc.h"

#define FIELDS_MAX 8

/* Splits a line of the answer at tabs, in place: the number of fields. */
static int fields(char *line, char **f)
{
	int n = 0;
	for (char *p = line, *w; n < FIELDS_MAX && (w = strsep(&p, "\t")) != NULL;)
		f[n++] = w;
	return n;
}

static long minutes_up(const char *start)
{
	long long t = atoll(start);
	time_t now = time(NULL);
	return t > 0 && now > t ? (long)((now - t) / 60) : 0;
}

int daemon_print_list(FILE *f, const char *answer, const char *sep, bool verbose, const char *tool)
{
	char *copy = xstrdup(answer), *line;
	int lines = 0;
	for (char *p = copy; (line = strsep(&p, "\n")) != NULL;) {
		char *v[FIELDS_MAX];
		int n = fields(line, v);
		if (n == 4 && !strcmp(v[0], "D")) {
			lines++;
			if (sep)
				fprintf(f, "%s%sdaemon%s%s%s%s/output%s%s/lock%s%ld\n", v[1], sep, sep, v[2], sep, v[2],
					sep, v[2], sep, minutes_up(v[3]));
			else
				fprintf(f, "[%s:daemon] base: %s\n", v[1], v[2]);
			if (!sep && verbose)
				fprintf(f, "  output:  %s/output\n  lock:    %s/lock\n  up:      %ld minutes\n", v[2],
					v[2], minutes_up(v[3]));
		} else if (n == 6 && !strcmp(v[0], "S")) {
			lines++;
			if (sep)
				fprintf(f, "%s%s%s%s%s%s%s%s%s/output%s%s/control%s%s/ack%s%ld\n", v[1], sep, v[2], sep,
					v[3], sep, v[4], sep, v[4], sep, v[4], sep, v[4], sep, minutes_up(v[5]));
			else
				fprintf(f, "[%s:%s] %s %s\n", v[1], v[2], tool, v[3]);
			if (!sep && verbose)
				fprintf(f, "  base:    %s\n  output:  %s/output\n  control: %s/control\n"
					   "  ack:     %s/ack\n  up:      %ld minutes\n", v[4], v[4], v[4], v[4],
					minutes_up(v[5]));
		}
	}
	free(copy);
	return lines;
}

void daemon_print_ping(FILE *f, const char *answer)
{
	char *copy = xstrdup(answer), *line;
	for (char *p = copy; (line = strsep(&p, "\n")) != NULL;) {
		char *v[FIELDS_MAX];
		if (fields(line, v) != 3 || strcmp(v[0], "P"))
			continue;
		if (!strcmp(v[2], "OK"))
			fprintf(f, "OK   %s\n", v[1]);
		else if (!strcmp(v[2], "NOTFOUND"))
			fprintf(f, "FAIL %s (not found)\n", v[1]);
		else
			fprintf(f, "FAIL %s\n", v[1]);
	}
	free(copy);
}

void daemon_print_signal(FILE *f, const char *answer)
{
	char *copy = xstrdup(answer), *line;
	for (char *p = copy; (line = strsep(&p, "\n")) != NULL;) {
		char *v[FIELDS_MAX];
		if (fields(line, v) != 3 || strcmp(v[0], "G"))
			continue;
		if (!strcmp(v[2], "NOTFOUND"))
			fprintf(f, "session '%s' not found\n", v[1]);
		else
			fprintf(f, "signal %d sent to session '%s [%s]'\n", SIGUSR2, v[1], v[2]);
	}
	free(copy);
}

/* lperf daemon's client output, as perf daemon prints it: the list (plain, -v, -x SEP), ping's and
 * signal's lines, from the daemon's tab-separated answers (target/daemon.h). */
#ifndef LPERF_OUTPUT_DAEMON_OUT_H
#define LPERF_OUTPUT_DAEMON_OUT_H

#include <stdbool.h>
#include <stdio.h>

/* sep: -x's separator, NULL for the plain list; tool: how a session's record is shown
 * ("perf record" under the name perf). Returns the number of lines the answer held. */
int daemon_print_list(FILE *f, const char *answer, const char *sep, bool verbose, const char *tool);
/* "OK   NAME", "FAIL NAME" or "FAIL NAME (not found)" per session. */
void daemon_print_ping(FILE *f, const char *answer);
/* "signal 12 sent to session 'NAME [PID]'" per session. */
void daemon_print_signal(FILE *f, const char *answer);

#endif

/* The pager and colour of long text output, as git and perf do them: on a terminal the output
 * goes through $LPERF_PAGER, else $PAGER, else less (LESS=FRSX unless set); never when standard
 * output is no terminal or --no-pager was given. Colour (--color=auto|always|never) is on for a
 * terminal or a pager on one, off under NO_COLOR unless 'always'. */
#ifndef LPERF_UTIL_PAGER_H
#define LPERF_UTIL_PAGER_H

#include <stdbool.h>

enum colour_mode { COLOUR_AUTO, COLOUR_ALWAYS, COLOUR_NEVER };

/* The global --no-pager (lperf.c). */
void pager_disable(void);
/* Starts the pager when standard output is a terminal and paging is allowed; standard output
 * (and standard error when it is the same terminal) then go to it until the process exits,
 * which waits for the pager. A pager that cannot be started leaves the output on the terminal. */
void pager_start(void);
bool pager_in_use(void);
/* "auto", "always", "never" (git's "true"/"false" too); -1 with err_set() otherwise. */
int colour_parse(const char *s, enum colour_mode *m);
/* The option callback of --color[=auto|always|never] (and perf's --stdio-color), for the
 * commands whose text shows percentages: value is an enum colour_mode; a bare --color is
 * 'always'. */
struct option;
int colour_opt(const struct option *o, const char *a);
/* Whether standard output gets colour in this mode. */
bool colour_on(enum colour_mode m);

#endif

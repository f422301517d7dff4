/* A recording read into a stack tree (analysis/stacks.h): what the pictures and lperf diff draw
 * and compare. */
#ifndef LPERF_ANALYSIS_STACKS_LOAD_H
#define LPERF_ANALYSIS_STACKS_LOAD_H

#include "analysis/filter.h"
#include "analysis/stacks.h"
#include "session/session.h"
#include "util/notes.h"

/* Reads the recording at input into st (every event; the Python view when st->python is set),
 * keeping the samples the filter (may be NULL) passes. What the reader and the walk met goes to
 * said (warnings and notes, in order). -1 after err_set() when the file cannot be read at all,
 * 1 when it was read only in part (st holds what came before; said says where), else 0. */
int stacks_load(struct stacks *st, const char *input, const struct session_opts *o,
		const struct sample_filter *filter, struct notes *said);

/* Where the profiled command starts in a recorder's command line (perf's cmdline feature): after
 * "--", else after record's (or sample's) own options and their values; argc when there is none
 * (-a, -p), 0 when the line is no recorder's. */
size_t stacks_command_start(int argc, char *const *argv);

/* The walk under stacks_load, for any tool: opens input, feeds every record to tool, calls done
 * (may be NULL) with the session before it closes; what the reader and the walk met goes to said
 * ("WHAT cover only the records before this point" when the walk stopped early). -1 after
 * err_set() when input cannot be opened, 1 when read only in part, else 0. */
int stacks_walk(const char *input, const struct session_opts *o, const struct session_tool *tool, const char *what,
		void (*done)(struct session *ss, void *arg), void *arg, struct notes *said);

#endif

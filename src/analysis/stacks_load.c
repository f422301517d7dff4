/* A recording into a stack tree (analysis/stacks.h), for the pictures and lperf diff. */
#include <string.h>

#include "analysis/stacks_load.h"
#include "util/error.h"

struct load_ctx {
	struct stacks *st;
	const struct sample_filter *filter;
};

static int load_sample(const struct resolved_sample *rs, void *arg)
{
	struct load_ctx *c = arg;
	if (!c->filter || filter_match(c->filter, rs))
		stacks_add(c->st, rs);
	return 0;
}

/* Options of perf's and lperf's record (and sample) that take their value as the next word. */
static bool takes_value(const char *opt)
{
	static const char *const longs[] = {
		"event", "count", "freq", "call-graph", "pid", "tid", "cpu", "output", "clockid", "mmap-pages",
		"timeout", "flamegraph", "html", "speedscope", "firefox", "pprof", "compression-level", "delay",
		"branch-filter", "switch-max-files", "control", "uid", "cgroup", "filter", "max-size",
		"affinity", "mmap-flush", "sample-display-row", "symbol", "period", "exclude-perf", NULL,
	};
	if (opt[1] == '-') {
		if (strchr(opt, '='))
			return false;
		for (size_t i = 0; longs[i]; i++)
			if (!strcmp(opt + 2, longs[i]))
				return true;
		return false;
	}
	/* A group of short options: the last one may take the next word, unless its value is attached. */
	static const char shorts[] = "ecFptCokmDjuGr";
	size_t n = strlen(opt);
	for (size_t i = 1; i < n; i++)
		if (strchr(shorts, opt[i]))
			return i == n - 1;
	return false;
}

size_t stacks_command_start(int argc, char *const *argv)
{
	size_t n = argc > 0 ? (size_t)argc : 0;
	for (size_t k = 0; k < n; k++)
		if (!strcmp(argv[k], "--"))
			return k + 1;
	/* "perf record OPTIONS COMMAND...", "lperf record ...", "lperf sample ...": the first word
	 * after the recorder's own options. */
	size_t k = 1;
	while (k < n && strcmp(argv[k], "record") && strcmp(argv[k], "sample"))
		k++;
	if (k >= n)
		return 0; /* not a recorder's line: all of it */
	for (k++; k < n; k++) {
		const char *a = argv[k];
		if (a[0] != '-' || !a[1])
			return k;
		if (takes_value(a)) {
			k++;
		} else if (!strcmp(a, "-z") && k + 1 < n && strspn(argv[k + 1], "0123456789") == strlen(argv[k + 1])) {
			k++; /* lperf's -z N (perf's level is attached: -z3) */
		}
	}
	return n; /* options only: a system-wide or attached recording */
}

/* The events are known: one tree per event, stacks when recorded, the profiled command. */
static int load_ready(struct session *ss, void *arg)
{
	struct load_ctx *c = arg;
	struct stacks *st = c->st;
	const struct perfdata_info *in = &ss->reader->info;
	ss->tool.callchains = session_has_callchains(ss);
	for (size_t e = 0; e < ss->evsels->n; e++)
		if (ss->evsels->v[e].name)
			stacks_event(st, ss->evsels->v[e].name);
	/* The recorded command line is the profiler's: show the profiled command. */
	size_t from = stacks_command_start((int)in->ncmdline, in->cmdline);
	if (from < in->ncmdline)
		stacks_set_command(st, (int)(in->ncmdline - from), in->cmdline + from);
	return 0;
}

int stacks_walk(const char *input, const struct session_opts *o, const struct session_tool *tool, const char *what,
		void (*done)(struct session *ss, void *arg), void *arg, struct notes *said)
{
	struct session ss;
	if (session_open(&ss, input, o, tool) < 0)
		return -1;
	notes_move(said, &ss.reader->info.notes);
	int status = 0;
	if (session_run(&ss) != 0) {
		notes_add(said, "%s: %s: %s cover only the records before this point", input, err_msg(), what);
		status = 1;
	}
	if (done)
		done(&ss, arg);
	session_diagnose(&ss, 0);
	notes_move(said, &ss.notes);
	session_close(&ss);
	return status;
}

static void load_done(struct session *ss, void *arg)
{
	struct stacks *st = ((struct load_ctx *)arg)->st;
	st->lost = session_lost(ss, NULL); /* the profile's, not paused Python processes' */
}

int stacks_load(struct stacks *st, const char *input, const struct session_opts *o,
		const struct sample_filter *filter, struct notes *said)
{
	struct load_ctx c = { st, filter };
	struct session_tool tool = { .sample = load_sample, .ready = load_ready, .arg = &c,
				     .python_view = st->python, .inline_frames = !st->no_inline, .wall = true };
	if (filter)
		tool.time_spec = filter->time_spec;
	int status = stacks_walk(input, o, &tool, "the pictures", load_done, &c, said);
	if (status >= 0)
		stacks_finish(st);
	return status;
}

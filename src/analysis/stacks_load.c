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
	/* The recorded command line is the profiler's: show the profiled command after "--". */
	size_t from = 0;
	for (size_t k = 0; k + 1 < in->ncmdline; k++)
		if (!strcmp(in->cmdline[k], "--")) {
			from = k + 1;
			break;
		}
	if (in->ncmdline)
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
	st->lost = ss->lost_records > ss->lost_samples ? ss->lost_records : ss->lost_samples;
}

int stacks_load(struct stacks *st, const char *input, const struct session_opts *o,
		const struct sample_filter *filter, struct notes *said)
{
	struct load_ctx c = { st, filter };
	struct session_tool tool = { .sample = load_sample, .ready = load_ready, .arg = &c,
				     .python_view = st->python, .inline_frames = !st->no_inline };
	int status = stacks_walk(input, o, &tool, "the pictures", load_done, &c, said);
	if (status >= 0)
		stacks_finish(st);
	return status;
}

/* Picture outputs for report, record, sample and diff: a recording through the session into a
 * stack tree (analysis/stacks.c), then one writer per requested file (src/output/). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/pictures.h"
#include "output/pictures.h"
#include "perfdata/perfdata.h"
#include "session/session.h"
#include "util/error.h"
#include "util/xalloc.h"

bool pictures_requested(const struct pictures_req *r)
{
	return r->svg || r->html || r->speedscope || r->firefox || r->pprof;
}

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

int pictures_load(struct stacks *st, const char *input, bool python, bool force, const char *symfs,
		  const struct sample_filter *filter, bool quiet)
{
	struct load_ctx c = { st, filter };
	struct session_tool tool = { .sample = load_sample, .ready = load_ready, .arg = &c, .python_view = python };
	struct session_opts so = { .force = force, .symfs = symfs };
	struct session ss;
	if (session_open(&ss, input, &so, &tool) < 0)
		return -1;
	err_print_notes(&ss.reader->info.notes);
	st->python = python;
	int status = 0;
	if (session_run(&ss) != 0) {
		err_warn("%s: %s: the pictures cover only the records before this point", input, err_msg());
		status = 1;
	}
	st->lost = ss.lost_records > ss.lost_samples ? ss.lost_records : ss.lost_samples;
	session_diagnose(&ss, 0);
	err_print_notes(&ss.notes);
	session_close(&ss);
	stacks_finish(st);
	return status;
}

static FILE *open_out(const char *path)
{
	if (!strcmp(path, "-"))
		return stdout;
	FILE *f = fopen(path, "w");
	if (!f)
		err_set("cannot write '%s': %s", path, strerror(errno));
	return f;
}

static int close_out(FILE *f, const char *path)
{
	int bad = ferror(f);
	if (f == stdout)
		return fflush(f) || bad ? err_set("cannot write to standard output") : 0;
	if (fclose(f) != 0 || bad)
		return err_set("cannot write '%s': %s", path, strerror(errno ? errno : EIO));
	return 0;
}

int pictures_write(const struct pictures_req *r, const struct stacks *st, bool quiet)
{
	struct picture_opts po = { .inverted = r->inverted, .delta = r->delta, .subtitle = r->subtitle };
	const char *paths[3] = { r->svg, r->html, r->speedscope };
	for (int k = 0; k < 3; k++) {
		if (!paths[k])
			continue;
		FILE *f = open_out(paths[k]);
		if (!f)
			return -1;
		if (k == 0)
			flamegraph_svg_write(f, st, &po, true);
		else if (k == 1)
			html_write(f, st, &po);
		else
			speedscope_write(f, st);
		if (close_out(f, paths[k]) < 0)
			return -1;
		if (!quiet && f != stdout)
			err_note("wrote %s", paths[k]);
	}
	if (r->firefox) {
		if (firefox_write(r->firefox, st) < 0)
			return -1;
		if (!quiet)
			err_note("wrote %s (open it at https://profiler.firefox.com, 'Load a profile from file')",
				 r->firefox);
	}
	if (r->pprof) {
		if (pprof_write(r->pprof, st) < 0)
			return -1;
		if (!quiet)
			err_note("wrote %s (go tool pprof -top %s)", r->pprof, r->pprof);
	}
	return 0;
}

int pictures_report(const struct pictures_req *r, const char *input, bool python, bool force,
		    const char *symfs, const struct sample_filter *filter, bool quiet)
{
	struct stacks st;
	stacks_init(&st);
	st.lines = r->pprof != NULL; /* pprof carries each function's file and line */
	int lr = pictures_load(&st, input, python, force, symfs, filter, quiet);
	if (lr < 0) {
		stacks_free(&st);
		err_die_last(EXIT_RUNTIME);
	}
	if (!st.nevents && !quiet)
		err_warn("%s has no samples: the pictures are empty", input);
	int wr = pictures_write(r, &st, quiet);
	stacks_free(&st);
	if (wr < 0)
		err_die_last(EXIT_RUNTIME);
	return lr ? EXIT_RUNTIME : 0;
}

int pictures_after_record(const char *svg, const char *data, bool python, bool force, bool quiet)
{
	struct stacks st;
	stacks_init(&st);
	struct pictures_req r = { .svg = svg };
	int rc = pictures_load(&st, data, python, force, NULL, NULL, quiet) < 0 ? -1 : pictures_write(&r, &st, quiet);
	stacks_free(&st);
	return rc;
}

void pictures_tee_init(struct pictures_tee *t, char **cmd, bool python)
{
	stacks_init(&t->st);
	t->st.python = python;
	int n = 0;
	while (cmd && cmd[n])
		n++;
	stacks_set_command(&t->st, n, cmd);
}

int pictures_tee_sample(const struct resolved_sample *rs, void *arg)
{
	struct pictures_tee *t = arg;
	stacks_add(&t->st, rs);
	return t->next(rs, t->next_arg);
}

int pictures_tee_finish(struct pictures_tee *t, const char *svg, uint64_t lost, bool quiet)
{
	struct pictures_req r = { .svg = svg };
	t->st.lost = lost;
	stacks_finish(&t->st);
	int rc = pictures_write(&r, &t->st, quiet);
	stacks_free(&t->st);
	return rc;
}

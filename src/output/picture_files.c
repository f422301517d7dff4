/* The picture files a command asked for, written from one stack tree (see pictures.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "output/pictures.h"
#include "util/error.h"
#include "util/outfile.h"

bool pictures_requested(const struct pictures_req *r)
{
	return r->svg || r->html || r->speedscope || r->firefox || r->pprof;
}

/* A picture file through util/outfile (a temporary renamed over the target); "-" is stdout. */
static FILE *open_out(struct outfile *o, const char *path)
{
	if (!strcmp(path, "-"))
		return stdout;
	return outfile_fopen(o, path);
}

static int close_out(FILE *f, struct outfile *o)
{
	if (f == stdout) {
		errno = 0;
		int bad = ferror(f);
		return fflush(f) || bad ? err_set("cannot write to standard output: %s", strerror(errno ? errno : EIO))
					: 0;
	}
	return outfile_commit(o, false);
}

int pictures_write(const struct pictures_req *r, const struct stacks *st, struct notes *said)
{
	struct picture_opts po = { .inverted = r->inverted, .delta = r->delta, .subtitle = r->subtitle };
	const char *paths[3] = { r->svg, r->html, r->speedscope };
	for (int k = 0; k < 3; k++) {
		if (!paths[k])
			continue;
		struct outfile o;
		FILE *f = open_out(&o, paths[k]);
		if (!f)
			return -1;
		if (k == 0 && r->inverted && !r->delta) {
			/* An icicle: the stacks merged from the sampled functions, drawn from the top. */
			struct stacks inv;
			stacks_invert(st, &inv);
			flamegraph_svg_write(f, &inv, &po, true);
			stacks_free(&inv);
		} else if (k == 0) {
			flamegraph_svg_write(f, st, &po, true);
		} else if (k == 1) {
			struct picture_opts ho = po;
			ho.inverted = false; /* the page's tables and tree read the stacks root first */
			html_write(f, st, &ho);
		}
		else
			speedscope_write(f, st);
		if (close_out(f, &o) < 0)
			return -1;
		if (f != stdout)
			notes_add_level(said, NOTES_NOTE, "wrote %s", paths[k]);
	}
	if (r->firefox) {
		if (firefox_write(r->firefox, st) < 0)
			return -1;
		notes_add_level(said, NOTES_NOTE, "wrote %s (open it at https://profiler.firefox.com, 'Load a "
				"profile from file')", r->firefox);
	}
	if (r->pprof) {
		if (pprof_write(r->pprof, st) < 0)
			return -1;
		notes_add_level(said, NOTES_NOTE, "wrote %s (go tool pprof -top %s)", r->pprof, r->pprof);
	}
	return 0;
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

int pictures_tee_finish(struct pictures_tee *t, const char *svg, uint64_t lost, struct notes *said)
{
	struct pictures_req r = { .svg = svg };
	t->st.lost = lost;
	stacks_finish(&t->st);
	int rc = pictures_write(&r, &t->st, said);
	stacks_free(&t->st);
	return rc;
}

#include "analysis/filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/error.h"
#include "util/parse.h"
#include "util/timerange.h"
#include "util/xalloc.h"

static int split(const char *list, char ***out, size_t *n)
{
	if (!list || !*list)
		return err_set("empty list");
	const char *p = list;
	while (*p) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (!len)
			return err_set("empty item in '%s'", list);
		*out = xrealloc(*out, (*n + 1) * sizeof(char *));
		(*out)[(*n)++] = xstrndup(p, len);
		p += len + (e ? 1 : 0);
	}
	return 0;
}

static int split_ints(const char *list, int **out, size_t *n)
{
	char **words = NULL;
	size_t nw = 0;
	int r = split(list, &words, &nw);
	for (size_t i = 0; i < nw; i++) {
		int v;
		if (r == 0 && parse_int(words[i], &v) < 0)
			r = err_set("'%s' is not a process or thread id", words[i]);
		if (r == 0) {
			*out = xrealloc(*out, (*n + 1) * sizeof(int));
			(*out)[(*n)++] = v;
		}
		free(words[i]);
	}
	free(words);
	return r;
}

int filter_add_comms(struct sample_filter *f, const char *l) { return split(l, &f->comms, &f->ncomms); }
int filter_add_dsos(struct sample_filter *f, const char *l) { return split(l, &f->dsos, &f->ndsos); }
int filter_add_syms(struct sample_filter *f, const char *l) { return split(l, &f->syms, &f->nsyms); }
int filter_add_pids(struct sample_filter *f, const char *l) { return split_ints(l, &f->pids, &f->npids); }
int filter_add_tids(struct sample_filter *f, const char *l) { return split_ints(l, &f->tids, &f->ntids); }

bool filter_symbol_matches(const char *pat, const char *name)
{
	size_t pl = strlen(pat), nl = strlen(name);
	bool pre = pl && pat[0] == '^', suf = pl > (size_t)pre && pat[pl - 1] == '$';
	const char *core = pat + pre;
	size_t cl = pl - pre - suf;
	if (pre && !suf)
		return nl >= cl && !strncasecmp(name, core, cl);
	if (suf && !pre)
		return nl >= cl && !strncasecmp(name + nl - cl, core, cl);
	return nl == cl && !strncasecmp(name, core, cl);
}

/* A Python frame the Python view labelled ("work (app.py:10)") also matches by its py:: name and
 * by its function alone. */
static bool label_matches(const char *pat, const struct frame *fr)
{
	const char *py = resolve_py_name(fr);
	if (!py || py == fr->loc.sym->name)
		return false;
	if (filter_symbol_matches(pat, py))
		return true;
	const char *fn, *file;
	size_t flen;
	resolve_py_split(py, &fn, &flen, &file);
	char buf[512];
	snprintf(buf, sizeof(buf), "%.*s", (int)flen, fn);
	return filter_symbol_matches(pat, buf);
}

static bool in_strs(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i], s))
			return true;
	return false;
}

static bool in_ints(const int *v, size_t n, int x)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == x)
			return true;
	return false;
}

int filter_set_time(struct sample_filter *f, const char *spec)
{
	struct time_ranges r;
	if (timerange_parse(spec, 0, 0, &r) < 0)
		return -1;
	timerange_free(&r);
	free(f->time_spec);
	f->time_spec = xstrdup(spec);
	return 0;
}

bool filter_match(const struct sample_filter *f, const struct resolved_sample *rs)
{
	if (f->ncomms && !in_strs(f->comms, f->ncomms, rs->thread && rs->thread->comm ? rs->thread->comm : ""))
		return false;
	if (f->npids && !in_ints(f->pids, f->npids, (int)rs->s->pid))
		return false;
	if (f->ntids && !in_ints(f->tids, f->ntids, (int)rs->s->tid))
		return false;
	const struct addr_loc *loc = rs->nframes ? &rs->frames[0].loc : NULL;
	if (f->ndsos) {
		if (!loc || !loc->dso)
			return false;
		if (!in_strs(f->dsos, f->ndsos, loc->dso->short_name) && !in_strs(f->dsos, f->ndsos, loc->dso->path))
			return false;
	}
	if (f->nsyms) {
		if (!loc || !loc->sym)
			return false;
		bool any = false;
		for (size_t i = 0; i < f->nsyms && !any; i++)
			any = filter_symbol_matches(f->syms[i], loc->sym->name) || label_matches(f->syms[i], &rs->frames[0]);
		if (!any)
			return false;
	}
	return true;
}

static void free_strs(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void filter_free(struct sample_filter *f)
{
	free_strs(f->comms, f->ncomms);
	free_strs(f->dsos, f->ndsos);
	free_strs(f->syms, f->nsyms);
	free(f->pids);
	free(f->tids);
	free(f->time_spec);
	memset(f, 0, sizeof(*f));
}

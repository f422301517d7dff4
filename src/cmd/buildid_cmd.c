/* lperf buildid-cache and buildid-list: perf's build-id cache (symbols/buildid_cache.h) and the
 * build-ids a recording carries. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "output/buildid_out.h"
#include "perfdata/dsohits.h"
#include "perfdata/perfdata.h"
#include "symbols/buildid_cache.h"
#include "util/error.h"
#include "util/opt.h"
#include "util/strbuf.h"

/* Options that take a file list: -a A -a B and -a A,B alike. */
struct file_list {
	char **v;
	size_t n;
};

static int opt_files(const struct option *opt, const char *arg)
{
	struct file_list *l = opt->value;
	char *copy = strdup(arg), *save = NULL;
	if (!copy)
		return err_set("out of memory");
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char **v = realloc(l->v, (l->n + 1) * sizeof(*v));
		if (!v)
			break;
		l->v = v;
		l->v[l->n++] = strdup(t);
	}
	free(copy);
	return 0;
}

static void files_free(struct file_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

/* perf caches a file under its absolute path. */
static char *absolute(const char *path)
{
	if (path[0] == '[')
		return strdup(path);
	char *r = realpath(path, NULL);
	return r ? r : strdup(path);
}

static int add_one(const char *file, bool verbose)
{
	char *abs = absolute(file);
	uint8_t id[BUILDID_SIZE];
	size_t n = 0;
	int r = abs ? buildid_cache_add(abs, NULL, 0, id, &n) : -1;
	if (verbose && n)
		buildid_print_action(stderr, "Adding", id, n, file, r >= 0);
	if (r < 0)
		err_warn("Couldn't add %s: %s", file, err_msg());
	free(abs);
	return r < 0 ? -1 : 0;
}

static int remove_one(const char *file, bool purge, bool verbose)
{
	char *abs = absolute(file);
	int r;
	if (purge) {
		r = abs ? buildid_cache_purge(abs) : -1;
		if (verbose && r >= 0)
			fprintf(stderr, "Removing %s: %d build-id%s\n", file, r, r == 1 ? "" : "s");
	} else {
		uint8_t id[BUILDID_SIZE];
		size_t n = buildid_read(file, id);
		r = abs && n ? buildid_cache_remove(abs, id, n) : err_set("Couldn't read a build-id in %s", file);
		if (verbose && n)
			buildid_print_action(stderr, "Removing", id, n, file, r > 0);
	}
	if (r < 0)
		err_warn("Couldn't remove %s: %s", file, err_msg());
	free(abs);
	return r < 0 ? -1 : 0;
}

static int purge_all(bool verbose)
{
	struct buildid_cache_entry *v;
	size_t n;
	if (buildid_cache_list(&v, &n) < 0)
		return -1;
	int ret = 0;
	for (size_t i = 0; i < n; i++) {
		uint8_t id[BUILDID_SIZE];
		int sz = buildid_parse(v[i].hex, id);
		int r = sz > 0 ? buildid_cache_remove(v[i].name, id, (size_t)sz) : -1;
		if (verbose)
			buildid_print_action(stderr, "Removing", id, (size_t)(sz > 0 ? sz : 0), v[i].name, r > 0);
		ret |= r < 0;
	}
	buildid_cache_list_free(v, n);
	buildid_cache_purge_own();
	return ret ? -1 : 0;
}

/* -M: the recording's build-ids that have no copy in the cache. */
static int list_missing(const char *path)
{
	struct perfdata_reader r;
	if (perfdata_open(&r, path) < 0) {
		err_warn("%s", err_msg());
		return -1;
	}
	for (size_t i = 0; i < r.info.nbuildids; i++) {
		const struct perfdata_buildid *b = &r.info.buildids[i];
		char *file;
		if (buildid_cache_path(b->id, b->size, &file) == 0)
			free(file);
		else
			buildid_print(stdout, b->id, b->size, b->filename);
	}
	perfdata_close(&r);
	return 0;
}

int cmd_buildid_cache(int argc, char **argv)
{
	struct file_list add = { 0 }, rm = { 0 }, purge = { 0 };
	bool list = false, purge_everything = false, force = false;
	int verbose = 0;
	const char *dir = NULL, *missing = NULL;
	static const char *const usage[] = { "lperf buildid-cache [-a FILE] [-r FILE] [-p FILE] [-P] [-l] [-M PERF.DATA] [-v]",
					     NULL };
	const struct option opts[] = {
		{ OPT_CALLBACK, 'a', "add", &add, "FILE", "copy FILE into the cache (a comma list)", opt_files },
		{ OPT_CALLBACK, 'u', "update", &add, "FILE", "the same as -a", opt_files },
		{ OPT_CALLBACK, 'r', "remove", &rm, "FILE", "remove FILE's current build-id from the cache",
		  opt_files },
		{ OPT_CALLBACK, 'p', "purge", &purge, "FILE", "remove every build-id cached for FILE", opt_files },
		{ OPT_BOOL, 'P', "purge-all", &purge_everything, NULL, "empty the cache" },
		{ OPT_BOOL, 'l', "list", &list, NULL, "list the cache: BUILDID PATH" },
		{ OPT_STRING, 'M', "missing", &missing, "PERF.DATA", "the recording's build-ids the cache has no "
		  "copy of" },
		{ OPT_BOOL, 'f', "force", &force, NULL, "accepted, as perf's" },
		{ OPT_COUNT, 'v', "verbose", &verbose, NULL, "say what was added or removed" },
		{ OPT_STRING, 0, "buildid-dir", &dir, "DIR", "the cache directory (default ~/.debug)" },
		OPT_END_(),
	};
	const struct opt_ctx ctx = { "buildid-cache", usage, opts, false };
	int i = opt_parse(&ctx, argc, argv);
	if (i < argc)
		opt_usage_error(&ctx, "unexpected argument '%s'", argv[i]);
	if (dir)
		buildid_cache_set_dir(dir);
	int fail = 0;
	for (size_t k = 0; k < add.n; k++)
		fail |= add_one(add.v[k], verbose) < 0;
	for (size_t k = 0; k < rm.n; k++)
		fail |= remove_one(rm.v[k], false, verbose) < 0;
	for (size_t k = 0; k < purge.n; k++)
		fail |= remove_one(purge.v[k], true, verbose) < 0;
	if (purge_everything && purge_all(verbose) < 0) {
		err_warn("%s", err_msg());
		fail = 1;
	}
	if (missing && list_missing(missing) < 0)
		fail = 1;
	if (list) {
		struct buildid_cache_entry *v;
		size_t n;
		if (buildid_cache_list(&v, &n) < 0)
			err_die_last(EXIT_RUNTIME);
		buildid_print_cache(stdout, v, n);
		buildid_cache_list_free(v, n);
	}
	files_free(&add);
	files_free(&rm);
	files_free(&purge);
	return fail ? EXIT_RUNTIME : 0;
}

/* buildid-list --with-hits: the recording's build-ids of the DSOs its samples hit. */
struct with_hits {
	struct perfdata_reader *r;
	struct dsohits hits;
};

static int hits_cb(const struct perf_event_header *h, void *arg)
{
	struct with_hits *w = arg;
	if (h->type == REC_BUILD_ID && perfdata_buildid_record(&w->r->info, h) < 0)
		return -1;
	dsohits_record(&w->hits, &w->r->evsels, h);
	return 0;
}

static bool was_hit(const struct dsohits *d, const char *name)
{
	for (size_t i = 0; i < d->ndsos; i++)
		if (d->dsos[i].hit && !strcmp(d->dsos[i].name, name))
			return true;
	return false;
}

int cmd_buildid_list(int argc, char **argv)
{
	const char *input = "perf.data";
	bool kernel = false, with_hits = false, force = false;
	int verbose = 0;
	static const char *const usage[] = { "lperf buildid-list [-i FILE] [-k] [-H]", NULL };
	const struct option opts[] = {
		{ OPT_STRING, 'i', "input", &input, "FILE", "the recording (default perf.data; - reads "
		  "standard input)" },
		{ OPT_BOOL, 'k', "kernel", &kernel, NULL, "the running kernel's build-id" },
		{ OPT_BOOL, 'H', "with-hits", &with_hits, NULL, "only DSOs with samples" },
		{ OPT_BOOL, 'f', "force", &force, NULL, "read a recording another user owns" },
		{ OPT_COUNT, 'v', "verbose", &verbose, NULL, "accepted, as perf's" },
		OPT_END_(),
	};
	const struct opt_ctx ctx = { "buildid-list", usage, opts, false };
	int i = opt_parse(&ctx, argc, argv);
	if (i < argc)
		opt_usage_error(&ctx, "unexpected argument '%s'", argv[i]);
	if (kernel) {
		uint8_t id[BUILDID_SIZE];
		size_t n = buildid_kernel(id);
		if (!n)
			err_die(EXIT_RUNTIME, "cannot read the kernel's build-id from /sys/kernel/notes");
		buildid_print(stdout, id, n, NULL);
		return 0;
	}
	struct perfdata_reader r;
	if (perfdata_open_force(&r, input, force) < 0)
		err_die_last(EXIT_RUNTIME);
	struct with_hits w = { &r, { 0 } };
	/* Build-ids arrive as records in a pipe: the walk gathers them into r.info. */
	if ((with_hits || r.pipe) && perfdata_for_each(&r, hits_cb, &w) < 0)
		err_die_last(EXIT_RUNTIME);
	for (size_t k = 0; k < r.info.nbuildids; k++) {
		const struct perfdata_buildid *b = &r.info.buildids[k];
		if (!with_hits || was_hit(&w.hits, b->filename))
			buildid_print(stdout, b->id, b->size, b->filename);
	}
	dsohits_free(&w.hits);
	perfdata_close(&r);
	return 0;
}

/* lperf inject: perf inject for scripts that drive perf. With -j (--jit), jitdump markers become
 * jitted-PID-INDEX.so files and their mappings, so Linux perf report/script name JIT code; lperf
 * itself reads jitdumps directly and needs no such step. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "inject/jitinject.h"
#include "inject/pyinject.h"
#include "perfdata/perfdata.h"
#include "util/error.h"
#include "util/outfile.h"
#include "util/opt.h"
#include "util/xalloc.h"

static const char *const usage[] = { "lperf inject [-j] [-b] [-i IN] [-o OUT]", "lperf inject --python [--python-view] -i IN -o OUT", NULL };

/* Closes the output (kept only when the run succeeded); the reason of a failure, of the run or of
 * the close, to free (NULL when all went well, *ret then 0). */
static char *inject_close(struct perfdata_writer *w, int *ret)
{
	char *why = *ret ? xstrdup(err_msg()) : NULL;
	if (perfdata_writer_close(w, *ret == 0, false) < 0 && !*ret) {
		*ret = -1;
		why = xstrdup(err_msg());
	}
	return why;
}

/* The command's end: a failure says what was left of the output. */
static int inject_exit(int ret, char *why, const char *output)
{
	if (!ret)
		return 0;
	err_warn("%s: %s written", why ? why : "inject failed", strcmp(output, "-") ? "nothing" :
		 "the output is incomplete");
	free(why);
	return EXIT_RUNTIME;
}

/* --python: the Python frames as symbols of one ELF (inject/pyinject.h). */
static int inject_python(const char *input, const char *output, const char *dir, bool force, bool view,
			 bool quiet, int verbose)
{
	char *elf = pyinject_elf_path(output, dir);
	if (!elf)
		err_die_last(EXIT_RUNTIME);
	struct perfdata_reader r;
	if (perfdata_open_force(&r, input, force) < 0)
		err_die_last(EXIT_RUNTIME);
	struct perfdata_writer *w = perfdata_writer_open(output);
	if (!w) {
		perfdata_close(&r);
		err_die_last(EXIT_RUNTIME);
	}
	struct pyinject_opts o = { .elf_path = elf, .pipe_output = !strcmp(output, "-"), .force = force,
				   .view = view };
	struct pyinject_result res;
	int ret = pyinject_run(&r, w, &o, &res);
	char *why = inject_close(w, &ret);
	/* What the reader met is said when the copy was made; a failed one gets its one line. */
	for (size_t k = 0; k < r.info.notes.n && !quiet && !ret; k++)
		err_warn("%s", r.info.notes.v[k]);
	if (!quiet)
		for (size_t k = 0; k < res.warnings.n; k++)
			err_warn("%s", res.warnings.v[k]);
	if (verbose && !ret)
		fprintf(stderr, "lperf inject: %zu samples (%zu with Python frames, %zu unreadable dropped), %zu "
			"other records; %zu Python functions in %s, mapped into %zu processes; %zu events' stacks "
			"made call chains\n", res.stats.samples, res.stats.python_samples, res.stats.bad_samples,
			res.stats.records, res.stats.functions, res.stats.functions ? elf : "no file",
			res.stats.maps, res.stats.converted_events);
	pyinject_result_free(&res);
	perfdata_close(&r);
	free(elf);
	return inject_exit(ret, why, output);
}

int cmd_inject(int argc, char **argv)
{
	const char *input = "-", *output = "-";
	bool jit = false, force = false, quiet = false, buildids = false, python = false, view = false;
	const char *jit_dir = NULL;
	int verbose = 0;
	const struct option opts[] = {
		{ OPT_BOOL, 'j', "jit", &jit, NULL, "turn jitdumps into jitted .so files and their mappings" },
		{ OPT_STRING, 0, "jit-dir", &jit_dir, "DIR", "with -j: write the jitted .so files into DIR (default: "
		  "next to each jitdump, when it exists); with --python: the ELF of Python functions" },
		{ OPT_BOOL, 0, "python", &python, NULL, "Python frames lperf read (record --python) as symbols perf "
		  "names: one ELF of Python functions (OUT.python.so), stacks as call chains" },
		{ OPT_BOOL, 0, "python-view", &view, NULL, "with --python: the stacks as report --python shows them "
		  "(interpreter frames folded away), so perf's Self column is lperf's too" },
		{ OPT_BOOL, 'b', "build-ids", &buildids, NULL, "add the build-ids of the DSOs hit (and copy them "
		  "into the build-id cache)" },
		{ OPT_STRING, 'i', "input", &input, "FILE", "the recording (default -: standard input)" },
		{ OPT_STRING, 'o', "output", &output, "FILE", "the new recording (default -: perf's pipe format "
		  "on standard output)" },
		{ OPT_BOOL, 'f', "force", &force, NULL, "read the input and jitdumps whoever owns them" },
		{ OPT_BOOL, 'q', "quiet", &quiet, NULL, "no warnings" },
		{ OPT_COUNT, 'v', "verbose", &verbose, NULL, "say what each jitdump became" },
		OPT_END_(),
	};
	struct opt_ctx ctx = { "inject", usage, opts, false };
	int i = opt_parse(&ctx, argc, argv);
	if (i < argc)
		opt_usage_error(&ctx, "unexpected argument '%s'", argv[i]);
	err_quiet = quiet;
	outfile_force = force; /* -f: -o may replace a link or another user's file */

	if (python && (jit || buildids))
		opt_usage_error(&ctx, "--python does not combine with -j or -b");
	if (view && !python)
		opt_usage_error(&ctx, "--python-view goes with --python");
	if (python)
		return inject_python(input, output, jit_dir, force, view, quiet, verbose);

	struct perfdata_reader r;
	if (perfdata_open_force(&r, input, force) < 0)
		err_die_last(EXIT_RUNTIME);
	if (!quiet)
		for (size_t k = 0; k < r.info.notes.n; k++)
			err_warn("%s", r.info.notes.v[k]);
	struct perfdata_writer *w = perfdata_writer_open(output);
	if (!w) {
		perfdata_close(&r);
		err_die_last(EXIT_RUNTIME);
	}
	struct jitinject_opts o = { .jit = jit, .force = force, .jit_dir = jit_dir, .pipe_output = !strcmp(output, "-"), .buildids = buildids };
	struct jitinject_result res;
	int ret = jitinject_run(&r, w, &o, &res);
	char *why = inject_close(w, &ret);
	if (!quiet)
		for (size_t k = 0; k < res.warnings.n; k++)
			err_warn("%s", res.warnings.v[k]);
	if (verbose) {
		for (size_t k = 0; k < res.notes.n; k++)
			fprintf(stderr, "lperf inject: %s\n", res.notes.v[k]);
		fprintf(stderr, "lperf inject: %zu records; %zu jitdumps, %zu jitted files; %zu marker and %zu "
			"anonymous mappings dropped; %zu build-ids added\n", res.stats.records, res.stats.dumps,
			res.stats.elfs, res.stats.markers_dropped, res.stats.anon_dropped, res.stats.buildids);
	}
	jitinject_result_free(&res);
	perfdata_close(&r);
	return inject_exit(ret, why, output);
}

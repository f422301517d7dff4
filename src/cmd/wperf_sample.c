/* `wperf sample` and `wperf record` on Linux: WindowsPerf's line mapped onto lperf sample's
 * request (struct sample_opts) and run by the same body (cmd/sample.c:sample_command) in
 * WindowsPerf's view:
 *   sample --pe_file PATH -c CORE   the running process of that executable, on that core,
 *                                   until Ctrl-C, --timeout or its exit
 *   record -c CORE -- COMMAND       the command (or --pe_file), started pinned to CORE
 * Events are EVENT:PERIOD (wperf's default period 0x4000000), user mode only unless -k. The
 * output is wperf's: the base address line, progress marks, the Ctrl-C line, the "sample
 * source" tables, or its JSON. */
#include "wperf/wperf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/sample_opts.h"
#include "events/evlist.h"
#include "kernel/perf_event.h"
#include "output/table.h"
#include "symbols/elf.h"
#include "target/target_image.h"
#include "util/cpuset.h"
#include "util/error.h"
#include "util/xalloc.h"
#include "wperf/wperf_extra.h"

#define WPERF_INTERVAL_DEFAULT 0x4000000ULL /* wperf/parsers.h PARSE_INTERVAL_DEFAULT */

/* The one core (wperf_check_request has refused more than one). */
static int one_core(const struct wperf_args *a, struct sample_opts *o)
{
	char *list = a->cores ? wperf_cores_list(a->cores) : NULL;
	int r = list ? cpuset_parse(list, &o->cpus) : cpuset_online(&o->cpus);
	free(list);
	if (r < 0 || o->cpus.n != 1)
		return err_set("you can specify only one core for sampling");
	o->cpus_given = true;
	return 0;
}

/* --pe_file names an executable (a path, a name on PATH) or a running process (its name, a
 * link's, the name it was started by: target_find_image); --pdb_file a file. Checked in the
 * order of the line, as wperf does, with its messages. */
static bool pe_file_exists(const struct wperf_args *a)
{
	struct stat st;
	if (stat(a->pe_file, &st) == 0)
		return true;
	if (!strchr(a->pe_file, '/')) {
		const char *path = getenv("PATH");
		char *dirs = xstrdup(path ? path : "");
		bool found = false;
		for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d && !found;
		     d = strtok_r(NULL, ":", &save)) {
			char *f = xasprintf("%s/%s", *d ? d : ".", a->pe_file);
			found = access(f, X_OK) == 0;
			free(f);
		}
		free(dirs);
		if (found)
			return true;
	}
	pid_t pid;
	return target_find_image(a->pe_file, a->image_name, -1, &pid) == 0;
}

static void check_files(const struct wperf_args *a)
{
	struct stat st;
	bool pdb_first = wperf_arg_index(a, "pdb_file") < wperf_arg_index(a, "pe_file");
	for (int i = 0; i < 2; i++) {
		bool pdb = (i == 0) == pdb_first;
		if (pdb && a->pdb_file && stat(a->pdb_file, &st) < 0) {
			fprintf(stderr, "PDB file '%s' doesn't exist\n", a->pdb_file);
			exit(EXIT_RUNTIME);
		}
		if (!pdb && a->pe_file && !pe_file_exists(a)) {
			fprintf(stderr, "PE file '%s' doesn't exist\n", a->pe_file);
			exit(EXIT_RUNTIME);
		}
	}
}

/* sample_opts from a wperf line: one core, EVENT:PERIOD with wperf's default period, the
 * debug file and notes. */
static void build_request(struct wperf_args *a, struct sample_opts *o, bool record)
{
	memset(o, 0, sizeof(*o));
	o->style = SAMPLE_OPTS_WPERF;
	o->output = "perf.data";
	o->clockid = CLOCK_MONOTONIC;
	o->quiet = a->quiet || a->json;
	o->json = a->json;
	o->verbose = a->verbose;
	o->display_rows = a->display_rows ? (size_t)a->display_rows : 50;
	o->display_long = a->display_long;
	o->symbols = a->symbol;
	o->annotate = a->annotate;
	o->disassemble = a->disassemble;
	o->timeout_s = a->timeout_s > 0 ? a->timeout_s : 0;
	o->period = WPERF_INTERVAL_DEFAULT;
	o->no_inherit = !record; /* record follows what the command starts; sample one process */
	err_quiet = o->quiet;
	if (one_core(a, o) < 0)
		err_die_last(EXIT_USAGE);
	struct strbuf met = STRBUF_INIT;
	if (wperf_build_events(a, &o->events, &met) < 0)
		err_die_last(EXIT_USAGE);
	/* wperf_build_events adds the cycle counter that counting shows; sampling has none. */
	if (!strncmp(sb_str(&o->events), "cycles,", 7)) {
		char *rest = xstrdup(sb_str(&o->events) + 7);
		sb_reset(&o->events);
		sb_adds(&o->events, rest);
		free(rest);
	} else if (!strcmp(sb_str(&o->events), "cycles") && !a->events.len) {
		sb_reset(&o->events);
	}
	sb_release(&met);
	/* A PDB is matched to its image by GUID; a debug ELF by build-id. */
	if (a->pdb_file)
		debuginfo_add_file(a->pdb_file);
	if (a->spawn_delay_s >= 0 && !o->quiet)
		err_note("--record_spawn_delay: not needed on Linux (modules are seen as they are "
			 "mapped); the command is sampled from its first instruction");
}

/* What is sampled: record's command (or --pe_file started), or sample's running process of
 * --pe_file (o->pid_list, written into pidbuf). Returns the command, or NULL. */
static char **choose_target(struct wperf_args *a, bool record, struct sample_opts *o,
			    struct sample_view *v, char pidbuf[32], char *pe_cmd[2])
{
	char **cmd = NULL;
	if (record) {
		cmd = a->command;
		if (!cmd && a->pe_file) {
			pe_cmd[0] = (char *)a->pe_file;
			pe_cmd[1] = NULL;
			cmd = pe_cmd;
		}
		if (!cmd)
			err_die(EXIT_USAGE, "record: give the command after '--' (or --pe_file)");
	} else {
		if (a->command)
			err_die(EXIT_USAGE, "sample attaches to a running process (--pe_file); to start "
				"a command use 'wperf record -- COMMAND'");
		if (a->pe_file && !a->dry_run) {
			pid_t pid;
			if (target_find_image(a->pe_file, a->image_name, o->cpus.cpu[0], &pid) < 0)
				err_die_last(EXIT_RUNTIME);
			snprintf(pidbuf, 32, "%d", (int)pid);
			o->pid_list = pidbuf;
			v->pid = pid;
		}
	}
	const char *name = a->image_name ? a->image_name : a->pe_file ? a->pe_file : cmd ? cmd[0] : NULL;
	if (name && strrchr(name, '/'))
		name = strrchr(name, '/') + 1;
	v->name = name;
	return cmd;
}

/* --dry-run: what would be sampled, nothing opened (the Arm fixture's events on any machine). */
static int dry_run(const struct evlist *l, const struct sample_opts *o, char **cmd)
{
	const char *cols[] = { "event", "pmu", ">type", ">config", ">config1", ">config2", "modifiers",
			       ">period" };
	struct table t;
	table_init(&t, 8, cols);
	t.indent = 8;
	t.underline = true;
	for (size_t e = 0; e < l->n; e++) {
		const struct ev *ev = &l->ev[e];
		const struct perf_event_attr *at = &ev->attr;
		char type[16], c0[32], c1[32], c2[32], mods[8] = "", period[32];
		snprintf(type, sizeof(type), "%u", at->type);
		snprintf(c0, sizeof(c0), "%#llx", (unsigned long long)at->config);
		snprintf(c1, sizeof(c1), "%#llx", (unsigned long long)at->config1);
		snprintf(c2, sizeof(c2), "%#llx", (unsigned long long)at->config2);
		snprintf(mods, sizeof(mods), "%s%s", at->exclude_user ? "" : "u", at->exclude_kernel ? "" : "k");
		snprintf(period, sizeof(period), "%llu", (unsigned long long)(ev->period ? ev->period : o->period));
		const char *cells[] = { ev->name, ev->pmu ? ev->pmu : "", type, c0, c1, c2, mods, period };
		table_row(&t, cells);
	}
	printf("\n Events resolved for core %d%s%s (nothing opened):\n\n", o->cpus.cpu[0],
	       cmd ? ", command " : "", cmd ? cmd[0] : "");
	table_print(&t, stdout);
	table_free(&t);
	return 0;
}

int wperf_sample(struct wperf_args *a, bool record)
{
	struct sample_opts o;
	if (!a->dry_run)
		check_files(a);
	wperf_check_or_die(a);
	build_request(a, &o, record);
	char *pe_cmd[2] = { NULL, NULL };
	char pidbuf[32];
	struct sample_view v = { .wperf = true, .silent = a->quiet, .export_perf_data = a->export_perf_data,
				 .pe_file = a->pe_file, .pdb_file = a->pdb_file, .argc = a->argc, .argv = a->argv };
	char **cmd = choose_target(a, record, &o, &v, pidbuf, pe_cmd);
	char *json_path = a->output ? wperf_out_path(a, a->output) : NULL;
	v.json_path = json_path;

	struct evlist l = { 0 };
	if (sample_build_events(&o, &l) < 0)
		err_die_last(EXIT_USAGE);
	if (!a->kernel)
		evlist_set_default_excludes(&l, true);
	else if (!pe_kernel_allowed())
		err_die(EXIT_RUNTIME, "-k: kernel-mode sampling is not permitted "
			"(kernel.perf_event_paranoid is %d)", pe_paranoid());
	err_no_hints = 1; /* WindowsPerf's output as WindowsPerf prints it: lperf's advice is not in it */
	int rc = a->dry_run ? dry_run(&l, &o, cmd) : sample_command(&o, &l, cmd, &v);
	free(json_path);
	evlist_free(&l);
	sample_opts_free(&o);
	debuginfo_clear_files();
	return rc;
}

/* lperf record: the live source feeding a perf.data writer (session/recording.h, record's
 * engine). Starts the command (or attaches), writes what already exists (kernel and process
 * maps), then every record the ring buffers deliver until the command ends, the timeout, Ctrl-C
 * or SIGTERM; the file is always completed and renamed into place. This file parses, prints the
 * progress and the end's lines, and --dry-run. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/offcpu_opts.h"
#include "output/pprof_dir.h"
#include "cmd/sample_opts.h"
#include "events/evlist.h"
#include "events/spe_terms.h"
#include "live/live_aux.h"
#include "live/live_run.h"
#include "output/spe_out.h"
#include "session/recording.h"
#include "spe/spe_capture.h"
#include "util/error.h"
#include "util/opt.h"
#include "util/outfile.h"
#include "util/xalloc.h"

/* The recording's progress line on a terminal, every half second and at the end. */
struct progress_ctx {
	bool tty, quiet;
	double next;
	struct offcpu_opts_run *offcpu; /* --off-cpu, --wall */
	struct pprof_dir pprof;         /* --pprof-dir */
};

static void offcpu_starting(void *arg, const struct live_run *run)
{
	offcpu_opts_starting(((struct progress_ctx *)arg)->offcpu, run);
}

static int offcpu_ending(void *arg, const struct live_run *run, record_cb sink, void *sink_arg)
{
	return offcpu_opts_ending(((struct progress_ctx *)arg)->offcpu, run, sink, sink_arg);
}

static void progress_tick(void *arg, const struct recording_progress *p, double now, bool final)
{
	struct progress_ctx *pc = arg;
	pprof_dir_reap(&pc->pprof, false);
	if (!pc->tty || (!final && now < pc->next))
		return;
	fprintf(stderr, "\r[ lperf record: %" PRIu64 " samples, %" PRIu64 " lost, %.1f MB ]%s", p->samples, p->lost,
		(double)p->bytes / 1e6, final ? "\n" : "");
	pc->next = now + 0.5;
}

static void events_line(void *arg, bool enabled)
{
	fprintf(stderr, "Events %s\n", enabled ? "enabled" : "disabled");
}

/* --switch-output completed a file. */
static void switched(void *arg, const char *name, unsigned long wakeups)
{
	struct progress_ctx *pc = arg;
	if (!name)
		err_die_last(EXIT_RUNTIME);
	if (!pc->quiet)
		fprintf(stderr, "[ lperf record: dump data: Woken up %lu times ]\n[ lperf record: Dump %s ]\n",
			wakeups, name);
	pprof_dir_period(&pc->pprof, name);
}

/* --dry-run: the events record would open (SPE filters encoded through the PMU's format files,
 * the AUX area size), without opening anything; the exit status (2 for an SPE interval below
 * the PMU's minimum). */
static int record_dry_run(struct sample_opts *o, struct evlist *l)
{
	struct spe_dry_row *rows = xcalloc(l->n ? l->n : 1, sizeof(*rows));
	int rc = 0;
	bool any_spe = false;
	for (size_t e = 0; e < l->n; e++) {
		struct ev *ev = &l->ev[e];
		struct spe_dry_row *r = &rows[e];
		r->spe = spe_pmu_name(ev->pmu);
		if (r->spe) {
			any_spe = true;
			if (spe_attr_prepare(&ev->attr, ev->pmu, ev->period ? ev->period : o->period) < 0) {
				err_warn("%s: %s", ev->name, err_msg());
				rc = EXIT_USAGE;
			}
		}
		r->name = ev->name;
		r->pmu = ev->pmu ? ev->pmu : "";
		r->encoding = ev->encoding ? ev->encoding : "";
		r->type = ev->attr.type;
		r->config = ev->attr.config;
		r->config1 = ev->attr.config1;
		r->config2 = ev->attr.config2;
		r->period = r->spe ? ev->attr.sample_period : (ev->period ? ev->period : o->period);
		r->freq = r->period ? 0 : o->freq;
	}
	long page = sysconf(_SC_PAGESIZE);
	spe_print_dry_run(stdout, rows, l->n, any_spe ? live_aux_pages(o->aux_pages) : 0,
			  (size_t)(page > 0 ? page : 4096), o->mmap_pages);
	free(rows);
	return rc;
}

static const char *const usage[] = {
	"lperf record [OPTIONS] [--] COMMAND [ARGS]",
	"lperf record [OPTIONS] -p PID | -t TID | -a | -C CPUS [--timeout DUR]",
	NULL,
};

/* record's run: the events of l on the target into o->output, with record's notes; the exit
 * status (the command's where one ran). Setup errors end the process. argc/argv: the command
 * line stored in the file. */
static int record_run(struct sample_opts *o, struct evlist *l, char **cmd, int argc, char **argv,
		      struct offcpu_opts_run *offcpu)
{
	struct progress_ctx pc = { !o->quiet && isatty(STDERR_FILENO), o->quiet, run_now() + 0.5, offcpu, { 0 } };
	if (pprof_dir_init(&pc.pprof, o->pprof_dir, o->service, cmd, o->python, o->force, o->clockid,
			      o->switch_max_files) < 0)
		err_die_last(EXIT_USAGE);
	pc.pprof.nolineno = o->nolineno;
	struct recording_opts ro = { .events = events_line, .tick = progress_tick, .switched = switched,
				     .starting = offcpu_starting, .ending = offcpu_ending, .arg = &pc };
	struct recording rec;
	struct recording_result d;
	sample_record(o, l, cmd, argc, argv, &ro, &rec, &d);
	char *shown = NULL;
	if (o->switch_mode != SWITCH_NONE) { /* the last file too, as perf names it */
		char *name = record_switch_rename(&rec.sw);
		if (!name)
			err_die_last(EXIT_RUNTIME);
		if (!o->quiet)
			fprintf(stderr, "[ lperf record: Dump %s ]\n", name);
		pprof_dir_period(&pc.pprof, name);
		free(name);
		shown = xasprintf("%s.<timestamp>", o->output);
	}
	if (!o->quiet && d.packed)
		fprintf(stderr, "[ lperf record: Captured and wrote %.3f MB %s, compressed (original %.3f MB, "
			"ratio is %.3f) (%" PRIu64 " samples) ]\n", (double)d.bytes / 1e6, shown ? shown : o->output,
			(double)d.raw / 1e6, (double)d.raw / (double)d.packed, d.samples);
	else if (!o->quiet)
		fprintf(stderr, "[ lperf record: Captured and wrote %.3f MB %s (%" PRIu64 " samples) ]\n",
			(double)d.bytes / 1e6, shown ? shown : o->output, d.samples);
	free(shown);
	if (o->switch_mode == SWITCH_NONE)
		pprof_dir_period(&pc.pprof, o->output);
	pprof_dir_free(&pc.pprof); /* waits for the last profiles */
	struct notes said = NOTES_INIT;
	recording_notes(&rec, &d, &said);
	err_print_notes(&said);
	notes_clear(&said);
	if (o->flamegraph && strcmp(o->output, "-") && o->switch_mode == SWITCH_NONE)
		sample_flamegraph(o, o->output);
	int status = rec.status;
	recording_free(&rec);
	return cmd ? status : (d.error ? EXIT_RUNTIME : 0);
}

int cmd_record(int argc, char **argv)
{
	struct sample_opts o;
	char **cmd = sample_parse_options(&o, argc, argv, "record", usage, SAMPLE_OPTS_PERF);
	err_quiet = o.quiet;
	outfile_force = o.force; /* -f: replace a link or another user's file at -o */
	struct evlist l = { 0 };
	struct offcpu_opts_run offcpu;
	if (sample_build_events(&o, &l) < 0 || offcpu_opts_setup(&offcpu, &o, &l) < 0)
		err_die_last(EXIT_USAGE);
	int line_argc;
	char **line = opt_command_line(&line_argc); /* stored in the file: "lperf record ..." */
	int rc = o.dry_run ? record_dry_run(&o, &l) : record_run(&o, &l, cmd, line_argc, line, &offcpu);
	offcpu_opts_close(&offcpu);
	evlist_free(&l);
	sample_opts_free(&o);
	return rc;
}

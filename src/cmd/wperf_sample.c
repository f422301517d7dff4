/* `wperf sample` and `wperf record` on Linux, over lperf sample's request (struct sample_opts)
 * and engine (live_run, session, profile):
 *   sample --pe_file PATH -c CORE   the running process of that executable, on that core,
 *                                   until Ctrl-C, --timeout or its exit
 *   record -c CORE -- COMMAND       the command (or --pe_file), started pinned to CORE
 * Events are EVENT:PERIOD (wperf's default period 0x4000000), user mode only unless -k. The
 * output is wperf's: the base address line, progress marks, the Ctrl-C line, the "sample
 * source" tables, or its JSON. */
#include "wperf/wperf.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/record_spe.h"
#include "live/run.h"
#include "cmd/report_view.h"
#include "cmd/sample_opts.h"
#include "events/evlist.h"
#include "kernel/perf_event.h"
#include "output/table.h"
#include "output/wperf_out.h"
#include "perfdata/perfdata.h"
#include "symbols/dso.h"
#include "symbols/elf.h"
#include "util/cpuset.h"
#include "util/error.h"
#include "util/xalloc.h"
#include "wperf/wperf_annotate.h"
#include "wperf/wperf_extra.h"
#include "wperf/wperf_image.h"

#define WPERF_INTERVAL_DEFAULT 0x4000000ULL /* wperf/parsers.h PARSE_INTERVAL_DEFAULT */

static int to_session(const struct perf_event_header *h, void *arg)
{
	return session_push(arg, h);
}

/* The profile, and for --annotate the sampled PCs of the samples it kept. */
struct collect {
	struct profile *p;
	struct wperf_pcs pcs;
	bool annotate;
};

static int on_sample(const struct resolved_sample *rs, void *arg)
{
	struct collect *c = arg;
	uint64_t kept = c->p->kept;
	int r = profile_sample(rs, c->p);
	if (c->annotate && c->p->kept > kept && rs->nframes)
		wperf_pcs_add(&c->pcs, rs->s->evsel ? (size_t)rs->s->evsel->idx : 0, &rs->frames[0].loc);
	return r;
}

/* --export_perf_data: every record also goes to a perf.data writer (as wperf's export: the
 * events, COMM/MMAP/SAMPLE records and the command line). */
struct tee {
	struct session *ss;
	struct perfdata_writer *w;
	bool failed;
};

static int to_both(const struct perf_event_header *h, void *arg)
{
	struct tee *t = arg;
	if (!t->failed && perfdata_writer_write(t->w, h, h->size) < 0)
		t->failed = true;
	return session_push(t->ss, h);
}

struct progress {
	struct wperf_args *a;
	pid_t pid;                 /* the sampled process, for the base address line */
	const char *name;
	bool base_done, talk;
	uint64_t base, delta;
	double next;
	long batch;
};

static void base_line(struct progress *p)
{
	if (p->base_done || p->pid <= 0)
		return;
	if (wperf_image_base(p->pid, &p->base, &p->delta) < 0)
		return; /* not exec'd yet: try at the next tick */
	p->base_done = true;
	if (p->talk)
		printf("base address of '%s': 0x%" PRIx64 ", runtime delta: 0x%" PRIx64 "\n", p->name,
		       p->base, p->delta);
	if (p->talk)
		printf("sampling ");
	fflush(stdout);
}

/* '.' for a second that brought samples, 'e' for one that did not (wperf polls once a second). */
static void tick(long n, double now, void *arg)
{
	struct progress *p = arg;
	if (!p->base_done) {
		base_line(p);
		return;
	}
	p->batch += n;
	if (p->talk && now >= p->next) {
		putchar(p->batch ? '.' : 'e');
		fflush(stdout);
		p->batch = 0;
		p->next = now + 1.0;
	}
}

static int one_core(const struct wperf_args *a, struct sample_opts *o)
{
	if (!a->cores)
		return err_set("sampling: you can specify 1 core with -c option");
	if (cpuset_parse(a->cores, &o->cpus) < 0)
		return -1;
	if (o->cpus.n != 1)
		return err_set("sampling: you can specify 1 core with -c option (got '%s')", a->cores);
	o->cpus_given = true;
	return 0;
}

/* The annotations of the hot functions shown for event ev ("unknown" has none). */
static size_t annotate_event(const struct wperf_args *a, struct collect *c, const struct report_section *s,
			     const struct report_opts *ro, struct wperf_annot_fn **out)
{
	*out = NULL;
	if (!a->annotate)
		return 0;
	struct report_wperf_row *rows;
	size_t n = report_wperf_rows(s, ro, &rows);
	size_t shown = ro->max_rows && ro->max_rows < n ? ro->max_rows : n;
	struct wperf_annot_fn *fns = xcalloc(shown ? shown : 1, sizeof(*fns));
	size_t nf = 0;
	uint64_t missing = 0;
	size_t ev = (size_t)(s->hist - c->p->hists);
	for (size_t i = 0; i < shown; i++) {
		if (strcmp(rows[i].name, "unknown") &&
		    wperf_annotate_fn(&c->pcs, ev, rows[i].name, ro->long_names, a->disassemble, &fns[nf],
				      &missing) == 0) {
			if (fns[nf].n)
				nf++;
			else
				wperf_annot_fn_free(&fns[nf]);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(rows[i].name);
	free(rows);
	if (missing && !a->quiet)
		fprintf(stderr, "No line for %" PRIu64 " sample%s found (no DWARF line tables there).\n",
			missing, missing == 1 ? "" : "s");
	*out = fns;
	return nf;
}

static void free_fns(struct wperf_annot_fn *fns, size_t n)
{
	for (size_t i = 0; i < n; i++)
		wperf_annot_fn_free(&fns[i]);
	free(fns);
}

static struct report_section section(const struct profile *p, size_t i)
{
	struct report_section s = {
		.event = i < p->evsels->n ? p->evsels->v[i].name : "?",
		.hist = &p->hists[i],
		.samples = p->hists[i].total_samples,
		.period = p->hists[i].total_period,
		.sample_period = i < p->evsels->n && !p->evsels->v[i].attr.freq
					 ? p->evsels->v[i].attr.sample_period : 0,
	};
	return s;
}

static void print_result(struct wperf_args *a, struct progress *pg, struct collect *c,
			 struct session *ss, double elapsed)
{
	struct profile *p = c->p;
	struct report_opts ro = { 0 };
	ro.max_rows = a->display_rows ? (size_t)a->display_rows : 50;
	ro.long_names = a->display_long;
	ro.lost = ss->lost_records;
	ro.lost_samples = ss->lost_samples;
	uint64_t lost = ss->lost_records + ss->lost_samples;
	wperf_pcs_compact(&c->pcs);
	bool text = !a->json && !a->quiet;
	if (text && a->verbose)
		printf("sample generated: %" PRIu64 "\nsample dropped  : %" PRIu64 "\nsample drop rate: %.2f%%\n",
		       ss->nsamples + lost, lost,
		       ss->nsamples + lost ? 100.0 * (double)lost / (double)(ss->nsamples + lost) : 0.0);
	struct json j;
	FILE *jf = NULL;
	char *path = NULL;
	if (a->json || a->output) {
		struct wperf_sample_info in = { a->pe_file, a->pdb_file, ro.max_rows,
						ss->nsamples + lost, lost, pg->base, pg->delta };
		path = a->output ? wperf_out_path(a, a->output) : NULL;
		jf = path ? fopen(path, "w") : stdout;
		if (!jf)
			err_die(EXIT_RUNTIME, "cannot write '%s'", path);
		json_init(&j, jf, true);
		wperf_sample_json_begin(&j, &in);
	}
	for (size_t i = 0; i < p->n; i++) {
		struct report_section s = section(p, i);
		if (!s.samples && p->n > 1)
			continue;
		struct wperf_annot_fn *fns;
		size_t nf = annotate_event(a, c, &s, &ro, &fns);
		if (jf) {
			struct wperf_event_extra x = { fns, nf, a->disassemble, NULL, 0, a->verbose > 0 };
			struct wperf_pc_row *pcs = NULL;
			if (x.verbose)
				x.npcs = wperf_pcs_rows(&c->pcs, i, ro.long_names, &pcs);
			x.pcs = pcs;
			wperf_sample_json_event(&j, &s, &ro, &x);
			wperf_pc_rows_free(pcs, x.npcs);
		}
		if (text) {
			report_wperf(stdout, &s, &ro);
			for (size_t k = 0; k < nf; k++)
				wperf_annotate_text(stdout, &fns[k], a->disassemble);
		}
		free_fns(fns, nf);
	}
	if (jf) {
		wperf_sample_json_end(&j);
		if (path) {
			fclose(jf);
			free(path);
		}
	}
	if (text)
		printf("%20.3f seconds time elapsed\n", elapsed);
	fflush(stdout);
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
	o->verbose = a->verbose;
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
	if (a->pdb_file) {
		struct stat st;
		if (stat(a->pdb_file, &st) < 0)
			err_die(EXIT_USAGE, "--pdb_file '%s': no such file", a->pdb_file);
		/* A PDB is matched to its image by GUID; a debug ELF by build-id. */
		debuginfo_add_file(a->pdb_file);
	}
	if (a->spawn_delay_s >= 0 && !o->quiet)
		err_note("--record_spawn_delay: not needed on Linux (modules are seen as they are "
			 "mapped); the command is sampled from its first instruction");
}

/* What is sampled: record's command (or --pe_file started), or sample's running process of
 * --pe_file (o->pid_list, written into pidbuf). Returns the command, or NULL. */
static char **choose_target(struct wperf_args *a, bool record, struct sample_opts *o,
			    struct progress *pg, char pidbuf[32], char *pe_cmd[2])
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
			if (wperf_find_process(a->pe_file, a->image_name, o->cpus.cpu[0], &pid) < 0)
				err_die_last(EXIT_RUNTIME);
			snprintf(pidbuf, 32, "%d", (int)pid);
			o->pid_list = pidbuf;
			pg->pid = pid;
		}
	}
	const char *name = a->image_name ? a->image_name : a->pe_file ? a->pe_file : cmd ? cmd[0] : NULL;
	if (name && strrchr(name, '/'))
		name = strrchr(name, '/') + 1;
	pg->name = name;
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
	build_request(a, &o, record);
	char *pe_cmd[2] = { NULL, NULL };
	char pidbuf[32];
	struct progress pg = { .a = a, .talk = !a->quiet && !a->json };
	char **cmd = choose_target(a, record, &o, &pg, pidbuf, pe_cmd);

	struct evlist l = { 0 };
	if (sample_build_events(&o, &l) < 0)
		err_die_last(EXIT_USAGE);
	if (!a->kernel)
		evlist_set_default_excludes(&l, true);
	else if (!pe_kernel_allowed())
		err_die(EXIT_RUNTIME, "-k: kernel-mode sampling is not permitted "
			"(kernel.perf_event_paranoid is %d)", pe_paranoid());
	if (a->dry_run) {
		dry_run(&l, &o, cmd);
		evlist_free(&l);
		sample_opts_free(&o);
		debuginfo_clear_files();
		return 0;
	}
	if (record_has_spe(&l)) { /* Arm SPE: recorded whole, then its views (record_spe.c) */
		int rc = record_spe_sample(&o, &l, cmd, a->argc, a->argv);
		evlist_free(&l);
		sample_opts_free(&o);
		return rc;
	}
	struct profile p = { 0 };
	if (a->symbol && filter_add_syms(&p.filter, a->symbol) < 0)
		err_die_last(EXIT_USAGE);
	struct live_run run;
	struct live_opts lo;
	sample_live_opts(&o, &lo);
	struct live_run_target tg = { cmd, o.pid_list, o.tid_list, &o.cpus, false };
	if (live_run_open(&run, &tg, &l, &lo) < 0)
		err_die_last(EXIT_RUNTIME);
	if (run.command)
		pg.pid = run.t.pid;
	enum hist_key keys[] = { HK_SYM, HK_DSO };
	profile_init(&p, &run.evsels, keys, 2, HIST_GRAPH_NONE, false);
	struct session ss;
	struct collect col = { .p = &p, .annotate = a->annotate || a->verbose };
	struct session_tool tool = { .sample = on_sample, .arg = &col };
	session_init(&ss, &run.evsels, &tool);
	struct tee tee = { &ss, NULL, false };
	record_cb sink = to_session;
	void *sink_arg = &ss;
	if (a->export_perf_data) {
		tee.w = perfdata_writer_open(a->export_perf_data);
		if (!tee.w)
			err_die_last(EXIT_RUNTIME);
		for (size_t e = 0; e < l.n; e++)
			perfdata_writer_add_event(tee.w, &run.live.attrs[e], l.ev[e].name, run.live.ids[e],
						  run.live.nids[e]);
		perfdata_writer_set_cmdline(tee.w, a->argc, a->argv);
		sink = to_both;
		sink_arg = &tee;
	}
	live_run_synthesize(&run, sink, sink_arg);
	if (!pg.pid) {
		pg.base_done = true;
		if (pg.talk)
			printf("sampling ");
	} else if (!run.command) {
		base_line(&pg);
	}
	pg.next = run_now() + 1.0;
	double start = run_now();
	int status;
	if (live_run_start(&run) < 0)
		err_die_last(EXIT_RUNTIME);
	int lr = live_run_loop(&run, o.timeout_s, sink, sink_arg, tick, &pg, &status);
	session_flush(&ss);
	if (pg.talk) {
		if (!pg.base_done)
			printf("sampling ");
		printf("%s done!\n", run_stop_signal() == SIGINT ? "Ctrl-C received, quit counting..." : "");
	}
	if (lr < 0)
		err_warn("sampling stopped early: %s", err_msg());
	if (tee.w && (perfdata_writer_close(tee.w, !tee.failed, false) < 0 || tee.failed))
		err_warn("--export_perf_data %s: not written: %s", a->export_perf_data, err_msg());
	profile_sort(&p, false);
	print_result(a, &pg, &col, &ss, run_now() - start);
	wperf_pcs_free(&col.pcs);
	wperf_annotate_cleanup();
	report_warnings(&ss, o.quiet, o.verbose);
	session_free(&ss);
	profile_free(&p);
	live_run_close(&run);
	evlist_free(&l);
	sample_opts_free(&o);
	debuginfo_clear_files();
	return record ? status : (lr < 0 ? EXIT_RUNTIME : 0);
}

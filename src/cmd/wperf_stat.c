/* `wperf stat`: WindowsPerf's counting semantics mapped onto lperf stat's request (struct
 * stat_opts) and engine (stat_run): all cores when no -c, user mode only unless -k, `sleep N`
 * and --timeout, -t -i -n as repeated counts written to a CSV file named as wperf names it,
 * --json/-o in wperf's shapes (src/output/wperf_stat.c). */
#include "wperf/wperf.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cmd/stat_opts.h"
#include "events/evlist.h"
#include "output/wperf_out.h"
#include "stat/stat_result.h"
#include "sysinfo/sysinfo.h"
#include "target/run_loop.h"
#include "util/cpuset.h"
#include "util/error.h"
#include "util/outfile.h"
#include "util/xalloc.h"
#include "wperf/wperf_extra.h"

struct wstat {
	struct wperf_args *a;
	struct wperf_stat_view view;
	char vendor[64], product[64];
	/* timeline */
	FILE *csv;
	struct outfile csv_file;
	char *csv_path;
	bool csv_mux;              /* the file's layout: sched_times columns (first count multiplexed) */
	char stamp[32];
	double interval_s;
	struct stat_result *runs;  /* the timeline's counts, kept for its JSON */
	size_t nruns, cap;
	struct cpuset first_core;  /* a started command runs on the first -c core */
};

static void cpu_identity(struct wstat *w)
{
	struct sysinfo_cpu cpu;
	sysinfo_read_cpu(&cpu, NULL);
	if (cpu.have_midr && cpu.vendor)
		snprintf(w->vendor, sizeof(w->vendor), "%s%s", cpu.vendor,
			 !strcmp(cpu.vendor, "Arm") ? " Limited" : "");
	else
		snprintf(w->vendor, sizeof(w->vendor), "%s", cpu.model ? cpu.model : "unknown");
	snprintf(w->product, sizeof(w->product), "%s", cpu.product ? cpu.product : "unknown");
	sysinfo_cpu_free(&cpu);
	w->view.vendor = w->vendor;
	w->view.product = w->product;
}

static FILE *open_out(const struct wperf_args *a, const char *name, char **path, struct outfile *o)
{
	*path = wperf_out_path(a, name);
	FILE *f = outfile_fopen(o, *path);
	if (!f)
		err_die_last(EXIT_RUNTIME);
	return f;
}

static void replace(struct strbuf *sb, const char *tmpl, const char *tok, const char *val)
{
	sb_reset(sb);
	for (const char *p = tmpl; *p;) {
		if (!strncmp(p, tok, strlen(tok))) {
			sb_adds(sb, val);
			p += strlen(tok);
		} else {
			sb_addc(sb, *p++);
		}
	}
}

/* wperf's timeline file name (pmu_device.cpp timeline_init). */
static char *timeline_name(const struct wstat *w, const struct stat_result *r)
{
	const struct wperf_args *a = w->a;
	char core[16];
	snprintf(core, sizeof(core), "%d", r->ncpus ? r->cpus[0] : 0);
	const char *tmpl = a->output_csv ? a->output_csv : !a->json && a->output ? a->output : NULL;
	if (!tmpl)
		return a->cores ? xasprintf("wperf_core_%s_%s.core.csv", core, w->stamp)
				: xasprintf("wperf_system_side_%s.core.csv", w->stamp);
	struct strbuf s1 = STRBUF_INIT, s2 = STRBUF_INIT;
	replace(&s1, tmpl, "{timestamp}", w->stamp);
	replace(&s2, sb_str(&s1), "{class}", "core");
	replace(&s1, sb_str(&s2), "{core}", core);
	sb_release(&s2);
	return sb_detach(&s1);
}

/* A timeline's count: a row of the CSV file (opened at the first), a JSON object kept. */
static void each_count(const struct stat_result *run, int index, void *arg)
{
	struct wstat *w = arg;
	if (!w->csv) {
		char *name = timeline_name(w, run);
		w->csv = open_out(w->a, name, &w->csv_path, &w->csv_file);
		if (w->a->verbose)
			printf("timeline file: '%s'\n", w->csv_path);
		free(name);
		w->csv_mux = stat_multiplexed(run);
		wperf_timeline_csv_header(w->csv, run, &w->view, w->interval_s, w->csv_mux);
	}
	wperf_timeline_csv_row(w->csv, run, w->csv_mux);
	if (!w->a->quiet && !w->a->json)
		printf("counting ... done\n");
	if (w->a->json || (w->a->output && w->a->output_csv)) {
		ALLOC_GROW(w->runs, w->nruns + 1, w->cap);
		stat_result_dup(&w->runs[w->nruns++], run);
	}
}

static void pause_mark(bool begin, void *arg)
{
	struct wstat *w = arg;
	if (!w->a->quiet && !w->a->json)
		printf(begin ? "sleeping ..." : " done\n");
	fflush(stdout);
}

static void write_json(struct wstat *w, FILE *f, const struct stat_result *r)
{
	if (w->a->timeline) {
		wperf_timeline_json(f, w->runs, w->nruns, w->a->timeout_s, w->interval_s, &w->view);
		return;
	}
	struct json j;
	json_init(&j, f, true);
	wperf_stat_json(&j, NULL, r, &w->view);
	json_finish(&j);
}

static void final(const struct stat_result *r, void *arg)
{
	struct wstat *w = arg;
	const struct wperf_args *a = w->a;
	if (a->json)
		write_json(w, stdout, r);
	if (a->output && (!a->timeline || a->json)) {
		char *path;
		struct outfile of;
		FILE *out = open_out(a, a->output, &path, &of);
		write_json(w, out, r);
		if (outfile_commit(&of, false) < 0)
			err_die_last(EXIT_RUNTIME);
		free(path);
	}
	if (!a->json && !a->quiet && !a->timeline)
		wperf_stat_text(stdout, r, &w->view);
}

void wperf_check_or_die(const struct wperf_args *a)
{
	struct cpuset online = { 0 };
	int ncores = cpuset_online(&online) == 0 && online.n ? online.cpu[online.n - 1] + 1 : 0;
	cpuset_free(&online);
	if (wperf_check_request(a, ncores) < 0) {
		fprintf(stderr, "%s\n", err_msg());
		exit(EXIT_RUNTIME);
	}
}

int wperf_stat(struct wperf_args *a)
{
	wperf_check_or_die(a);
	struct stat_opts o;
	memset(&o, 0, sizeof(o));
	o.big_num = true;
	int gpc = wperf_counters();
	o.wperf_simple = gpc > 0 ? gpc : -1;
	struct wstat w = { .a = a };
	cpu_identity(&w);
	w.view.kernel = a->kernel;
	w.view.big_num = true;

	if (wperf_build_events(a, &o.events, &o.metrics) < 0)
		err_die_last(EXIT_USAGE);
	if (a->metric_file) {
		o.metric_files = xmalloc(sizeof(char *));
		o.metric_files[0] = a->metric_file;
		o.nmetric_files = 1;
	}
	if (a->cores) {
		o.cpu_list = wperf_cores_list(a->cores);
		if (!o.cpu_list || cpuset_parse(o.cpu_list, &o.cpus) < 0)
			err_die(EXIT_USAGE, "-c: %s", err_msg());
		/* The first core as written ("1,0" -> 1); the list itself comes back sorted. */
		char first[16];
		snprintf(first, sizeof(first), "%.*s", (int)strcspn(a->cores, ",-"), a->cores);
		if (cpuset_parse(first, &w.first_core) < 0)
			cpuset_parse("0", &w.first_core);
		o.pin_cpus = &w.first_core;
	} else {
		if (cpuset_online(&o.cpus) < 0)
			err_die_last(EXIT_RUNTIME);
		o.cpu_list = xstrdup("all");
		w.view.all_cores = true;
	}
	o.kernel = a->kernel;
	o.user_only = true;
	o.quiet = a->quiet || a->json;
	o.verbose = a->verbose;
	o.dry_run = a->dry_run;
	o.timeout_s = a->timeout_s > 0 ? a->timeout_s : 0;
	if (a->timeline) {
		/* wperf: -t implies -i 60 and --timeout 1 unless given. */
		if (a->timeout_s < 0)
			a->timeout_s = o.timeout_s = 1;
		w.interval_s = a->interval_s >= 0 ? a->interval_s : 60;
		o.repeat = a->count > 0 ? a->count : 0;
		o.pause = true;
		o.pause_s = w.interval_s;
		o.quiet = true; /* wperf's own counting/sleeping marks replace the progress line */
		time_t now = time(NULL);
		struct tm tm;
		localtime_r(&now, &tm);
		strftime(w.stamp, sizeof(w.stamp), "%Y_%m_%d_%H_%M_%S", &tm);
	}
	if (a->config)
		err_note("--config %s: the driver settings of WindowsPerf have no Linux counterpart "
			 "(the kernel multiplexes every perf_event_mux_interval_ms); ignored", a->config);
	if (a->dmc)
		err_note("--dmc %s: every DMC-620 PMU in sysfs is counted", a->dmc);
	if (a->verbose && !a->json) {
		printf("events to be counted:\n        %s%s%s\n", sb_str(&o.events),
		       o.events.len && o.metrics.len ? "," : "", sb_str(&o.metrics));
	}
	struct stat_view view = { a->timeline ? each_count : NULL, pause_mark, final, &w };
	o.view = &view;
	char **cmd = a->command;
	int r = stat_command(&o, cmd);
	/* wperf sleeps after every count of a timeline, the last one too (not after Ctrl-C). */
	if (a->timeline && a->count > 0 && !run_stop_signal() && !a->dry_run) {
		pause_mark(true, &w);
		struct timespec ts = { (time_t)w.interval_s,
				       (long)((w.interval_s - (double)(time_t)w.interval_s) * 1e9) };
		nanosleep(&ts, NULL);
		pause_mark(false, &w);
	}
	if (w.csv) {
		if (outfile_commit(&w.csv_file, false) < 0)
			err_warn("%s", err_msg());
		free(w.csv_path);
	}
	for (size_t i = 0; i < w.nruns; i++)
		stat_result_free(&w.runs[i]);
	free(w.runs);
	cpuset_free(&w.first_core);
	return r;
}

/* lperf stat: counting. Parses perf's and WindowsPerf's options, builds the event list (events
 * and metrics), opens counters on the target, runs until the command ends / the timeout /
 * Ctrl-C (printing interval rows on the way), and renders the totals. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/stat_opts.h"
#include "events/evlist.h"
#include "events/metric.h"
#include "kernel/counter.h"
#include "kernel/perf_event.h"
#include "output/stat_out.h"
#include "output/table.h"
#include "stat/run.h"
#include "stat/stat.h"
#include "target/run.h"
#include "target/target.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/parse.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

/* The events of each -m name: a group's metrics' events together, one {} group when small
 * enough to fit a PMU's counters (so ratios compare counts of the same time slices). */
#define METRIC_MAX_GROUP 6

/* Returns 0, -1 for a usage error (unknown name), or -2 when the metric needs a PMU that this
 * machine lacks (a runtime condition, not a typo). */
static int add_metric_events(struct evlist *l, const struct metric_set *set, const char *token)
{
	const struct metric **ms;
	long n = metric_expand(set, token, &ms);
	if (n < 0)
		return -1;
	for (long i = 0; i < n; i++) {
		if (metric_arch_present(ms[i]->arch))
			continue;
		const char *arch = ms[i]->arch == METRIC_ARM ? "Arm" : metric_arch_name(ms[i]->arch);
		if (!ev_have_hw_pmu())
			err_set("metric '%s' needs %s PMU events (%s...): this machine exposes no hardware "
				"PMU (virtual machine?); software metrics such as 'cpus_utilized' still work",
				token, arch, ms[i]->nevents ? ms[i]->events[0] : "");
		else
			err_set("metric '%s' needs %s PMU events (%s...), which this machine's PMU does not "
				"have; see 'lperf list --metrics' for the metrics available here", token, arch,
				ms[i]->nevents ? ms[i]->events[0] : "");
		free(ms);
		return -2;
	}
	char **names = NULL;
	size_t nn = 0, cap = 0;
	for (long i = 0; i < n; i++) {
		for (size_t k = 0; k < ms[i]->nevents; k++) {
			const char *name = ms[i]->events[k];
			bool have = evlist_find(l, name) >= 0;
			for (size_t j = 0; j < nn && !have; j++)
				have = !strcasecmp(names[j], name);
			if (have)
				continue;
			ALLOC_GROW(names, nn + 1, cap);
			names[nn++] = (char *)name;
		}
	}
	int r = 0;
	if (nn)
		r = evlist_add_metric_events(l, (const char *const *)names, nn, token,
					     nn > 1 && nn <= METRIC_MAX_GROUP);
	free(names);
	free(ms);
	return r;
}

/* Every metric the -m list names, in order, without duplicates. */
static size_t collect_metrics(const struct metric_set *set, const char *list,
			      const struct metric ***out)
{
	const struct metric **ms = NULL;
	long n = list ? metric_expand(set, list, &ms) : 0;
	*out = ms;
	return n > 0 ? (size_t)n : 0;
}

static void default_events(struct stat_opts *o, struct strbuf *ev, struct strbuf *met)
{
	sb_adds(ev, "task-clock,context-switches,cpu-migrations,page-faults");
	if (ev_have_hw_pmu())
		sb_adds(ev, ",cycles,instructions,branches,branch-misses");
	sb_adds(met, "cpus_utilized");
	(void)o;
}

static const char *modes_of(const struct evlist *l)
{
	bool user = false, kernel = false;
	for (size_t e = 0; e < l->n; e++) {
		if (l->ev[e].source == EV_SRC_TOOL)
			continue;
		user |= !l->ev[e].attr.exclude_user;
		kernel |= !l->ev[e].attr.exclude_kernel;
	}
	return user && kernel ? "user and kernel" : kernel ? "kernel" : "user";
}

struct run_ctx {
	struct stat_opts *o;
	struct evlist *evl;
	const struct metric **metrics;
	size_t nmetrics;
	struct statout_opts out;
	FILE *f;
	struct stat_result *intervals; /* kept for --json */
	size_t nintervals, icap;
	int status;                    /* the command's exit status */
	bool ran_command;
};

static void emit_interval(struct run_ctx *rc, struct stat_result *delta, bool first)
{
	stat_compute_metrics(delta);
	if (rc->o->json) {
		ALLOC_GROW(rc->intervals, rc->nintervals + 1, rc->icap);
		struct stat_result *copy = &rc->intervals[rc->nintervals++];
		*copy = *delta;
		/* Deep copy: the delta is reused for the next interval. */
		struct stat_result tmp = *delta;
		copy->cpus = xmalloc(tmp.ncpus * sizeof(int));
		memcpy(copy->cpus, tmp.cpus, tmp.ncpus * sizeof(int));
		copy->why = xcalloc(tmp.nev ? tmp.nev : 1, sizeof(char *));
		copy->ev = xcalloc(tmp.nev ? tmp.nev : 1, sizeof(*copy->ev));
		for (size_t e = 0; e < tmp.nev; e++)
			copy->ev[e].cpu = xcalloc(tmp.ncpus, sizeof(struct stat_value));
		copy->met = xcalloc(tmp.nmet ? tmp.nmet : 1, sizeof(*copy->met));
		for (size_t i = 0; i < tmp.nmet; i++) {
			copy->met[i].m = tmp.met[i].m;
			copy->met[i].cpu = xcalloc(tmp.ncpus, sizeof(double));
		}
		stat_copy_values(copy, delta);
	} else if (rc->o->csv_sep) {
		statout_csv(rc->f, delta, &rc->out, true);
	} else {
		statout_text_interval(rc->f, delta, &rc->out, first);
	}
}

static void on_opened(bool kernel_excluded, void *arg)
{
	struct run_ctx *rc = arg;
	if (kernel_excluded && !rc->o->noted_user_only) {
		err_note("kernel-mode counting is not permitted (kernel.perf_event_paranoid is %d): "
			 "counting user mode only", pe_paranoid());
		rc->o->noted_user_only = true;
	}
}

static void on_interval(struct stat_result *delta, bool first, void *arg)
{
	emit_interval(arg, delta, first);
}

/* One run: open, count until the end condition, read. Fills `res` (initialised here). */
static int run_once(struct run_ctx *rc, struct stat_result *res, char **cmd)
{
	struct stat_opts *o = rc->o;
	struct stat_run_opts ro = {
		.cmd = cmd, .pid_list = o->pid_list, .tid_list = o->tid_list, .cpus = &o->cpus,
		.pin = o->wperf_pin, .pin_to = o->pin_cpus, .task_per_cpu = o->task_per_cpu, .no_inherit = o->no_inherit,
		.timeout_s = o->timeout_s, .interval_ms = o->interval_ms, .interval_count = o->interval_count,
		.metrics = rc->metrics, .nmetrics = rc->nmetrics,
		.opened = on_opened, .interval = on_interval, .arg = rc,
	};
	bool progress = !cmd && !o->interval_ms && !o->quiet && isatty(STDERR_FILENO);
	if (progress)
		fprintf(stderr, "counting ...");
	struct stat_run_info info;
	int r = stat_run(&ro, rc->evl, res, &info);
	if (progress && r == 0)
		fprintf(stderr, " done\n");
	rc->ran_command |= info.ran_command;
	rc->status = info.status;
	return r;
}

static char *target_description(const struct stat_opts *o, char **cmd)
{
	struct strbuf sb = STRBUF_INIT;
	if (cmd) {
		sb_addc(&sb, '\'');
		for (char **a = cmd; *a; a++)
			sb_addf(&sb, "%s%s", a == cmd ? "" : " ", *a);
		sb_addc(&sb, '\'');
		if (o->cpus.n && !o->task_per_cpu)
			sb_addf(&sb, " on CPUs %s", o->cpu_list);
	} else if (o->pid_list) {
		sb_addf(&sb, "process id '%s'", o->pid_list);
	} else if (o->tid_list) {
		sb_addf(&sb, "thread id '%s'", o->tid_list);
	} else if (o->system_wide) {
		sb_adds(&sb, "system-wide");
	} else {
		sb_addf(&sb, "CPUs %s", o->cpu_list);
	}
	return sb_detach(&sb);
}

/* The events to count: -e, the events of each -m metric, or the defaults. Exits on a bad name. */
static void build_events(struct stat_opts *o, struct metric_set *set, struct evlist *l,
			 const struct metric ***metrics, size_t *nmetrics)
{
	metric_set_builtin(set);
	for (size_t i = 0; i < o->nmetric_files; i++)
		if (metric_set_load_file(set, o->metric_files[i]) < 0)
			err_die_last(EXIT_USAGE);
	struct strbuf ev = STRBUF_INIT, met = STRBUF_INIT;
	sb_adds(&ev, sb_str(&o->events));
	sb_adds(&met, sb_str(&o->metrics));
	if (!ev.len && !met.len)
		default_events(o, &ev, &met);
	if (ev.len && evlist_parse(l, sb_str(&ev)) < 0)
		err_die_last(EXIT_USAGE);
	*metrics = NULL;
	*nmetrics = 0;
	if (met.len) {
		char *list = xstrdup(sb_str(&met)), *save = NULL;
		for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			int r = add_metric_events(l, set, tok);
			/* --dry-run shows what would be counted even where it cannot be. */
			if (r == -2 && !o->dry_run)
				err_die_last(EXIT_RUNTIME);
			if (r == -1)
				err_die_last(EXIT_USAGE);
		}
		free(list);
		*nmetrics = collect_metrics(set, sb_str(&met), metrics);
	}
	sb_release(&ev);
	sb_release(&met);
}

/* The totals (the means over -r runs) through the chosen renderer. */
static void render(struct run_ctx *rc, struct stat_result *acc, const struct evlist *l)
{
	const struct stat_opts *o = rc->o;
	if (acc->runs > 1) {
		/* Show the means; metrics are computed over them. */
		for (size_t e = 0; e < acc->nev; e++)
			acc->ev[e].total.scaled = acc->ev[e].mean;
		acc->duration = acc->dur_mean;
	}
	stat_compute_metrics(acc);
	rc->out.modes = modes_of(l);

	if (o->hooks) {
		if (o->hooks->final)
			o->hooks->final(rc->f, acc, &rc->out, o->hooks->arg);
	} else if (o->json) {
		statout_json(rc->f, acc, rc->intervals, rc->nintervals, &rc->out);
	} else if (o->csv_sep && !o->interval_ms) {
		statout_csv(rc->f, acc, &rc->out, false);
	} else if (!o->interval_ms || o->verbose) {
		statout_text(rc->f, acc, &rc->out);
	}
}

int cmd_stat(int argc, char **argv)
{
	struct stat_opts o;
	char **cmd = stat_parse_options(&o, argc, argv);
	return stat_command(&o, cmd);
}

int stat_command(struct stat_opts *op, char **cmd)
{
	struct stat_opts o = *op;
	err_quiet = o.quiet;

	struct metric_set set = { 0 };
	struct evlist l = { 0 };
	const struct metric **metrics;
	size_t nmetrics;
	build_events(&o, &set, &l, &metrics, &nmetrics);

	if (o.kernel && !pe_kernel_allowed())
		err_die(EXIT_RUNTIME, "-k asks for kernel-mode counting, which kernel.perf_event_paranoid "
			"(%d) forbids for this user; run as root or with CAP_PERFMON, or set "
			"kernel.perf_event_paranoid to 1 or less", pe_paranoid());
	if (!pe_kernel_allowed() && !o.user_only) {
		evlist_set_default_excludes(&l, true);
		err_note("kernel-mode counting is not permitted (kernel.perf_event_paranoid is %d): "
			 "counting user mode only", pe_paranoid());
		o.noted_user_only = true;
	} else if (o.user_only && !o.kernel) {
		evlist_set_default_excludes(&l, true);
	}

	if (o.dry_run) {
		statout_dry_run(stdout, &l);
		free(metrics);
		evlist_free(&l);
		metric_set_free(&set);
		stat_opts_free(&o);
		return 0;
	}
	if ((o.system_wide || o.cpus.n) && !pe_cpu_wide_allowed())
		err_die(EXIT_RUNTIME, "counting CPUs (-a, -C, -c) needs root or CAP_PERFMON, or "
			"kernel.perf_event_paranoid <= 0 (it is %d); count a command or -p PID instead",
			pe_paranoid());

	struct run_ctx rc = { .o = &o, .evl = &l, .metrics = metrics, .nmetrics = nmetrics };
	char *desc = target_description(&o, cmd);
	rc.out.target = desc;
	rc.out.per_cpu = o.per_cpu;
	rc.out.big_num = o.big_num;
	rc.out.sep = o.csv_sep ? o.csv_sep : ",";
	rc.out.verbose = o.verbose > 0;
	rc.out.show_formula = o.verbose > 0;

	char *tmp_path = NULL;
	rc.f = stdout;
	if (o.output) {
		tmp_path = xasprintf("%s.tmp.%d", o.output, (int)getpid());
		rc.f = fopen(tmp_path, "w");
		if (!rc.f)
			err_die(EXIT_RUNTIME, "cannot write '%s': %s", o.output, strerror(errno));
	}
	run_signals_install();

	struct stat_result acc, last;
	bool have_acc = false;
	int runs = o.repeat > 0 ? o.repeat : 1;
	int exit_code = 0;
	for (int run = 0; run < runs && !(run_stop_signal() && run > 0); run++) {
		if (run_once(&rc, &last, cmd) < 0) {
			if (tmp_path) {
				fclose(rc.f);
				unlink(tmp_path);
			}
			err_die_last(EXIT_RUNTIME);
		}
		if (o.hooks && o.hooks->each_run)
			o.hooks->each_run(&last, run, o.hooks->arg);
		if (!have_acc) {
			acc = last;
			memset(&last, 0, sizeof(last));
			have_acc = true;
			acc.runs = 0;
			for (size_t e = 0; e < acc.nev; e++)
				acc.ev[e].mean = acc.ev[e].m2 = 0;
			acc.dur_mean = acc.dur_m2 = 0;
			stat_accumulate(&acc, &acc);
		} else {
			stat_accumulate(&acc, &last);
			stat_copy_values(&acc, &last);
			stat_result_free(&last);
		}
		if (runs > 1 && rc.ran_command && !o.quiet && isatty(STDERR_FILENO))
			fprintf(stderr, "\rrun %d of %d", run + 1, runs);
	}
	if (runs > 1 && !o.quiet && isatty(STDERR_FILENO))
		fputc('\n', stderr);
	render(&rc, &acc, &l);
	if (rc.ran_command)
		exit_code = rc.status;

	if (tmp_path) {
		if (fclose(rc.f) != 0 || rename(tmp_path, o.output) < 0)
			err_die(EXIT_RUNTIME, "cannot write '%s': %s", o.output, strerror(errno));
		free(tmp_path);
	}
	for (size_t i = 0; i < rc.nintervals; i++)
		stat_result_free(&rc.intervals[i]);
	free(rc.intervals);
	stat_result_free(&acc);
	free(desc);
	free(metrics);
	evlist_free(&l);
	metric_set_free(&set);
	stat_opts_free(&o);
	return exit_code;
}

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
#include "stat/stat.h"
#include "target/target.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/parse.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void install_signals(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal; /* no SA_RESTART: waits end early and see the flag */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

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

static void dry_run(const struct evlist *l)
{
	const char *cols[] = { "event", "pmu", ">type", ">config", ">config1", ">config2", "modifiers",
			       "group", ">period", "encoding" };
	struct table t;
	table_init(&t, ARRAY_SIZE(cols), cols);
	t.indent = 8;
	t.underline = true;
	for (size_t e = 0; e < l->n; e++) {
		const struct ev *ev = &l->ev[e];
		const struct perf_event_attr *a = &ev->attr;
		char type[16], c0[32], c1[32], c2[32], mods[16] = "", group[48], period[32];
		snprintf(type, sizeof(type), "%u", a->type);
		snprintf(c0, sizeof(c0), "%#llx", (unsigned long long)a->config);
		snprintf(c1, sizeof(c1), "%#llx", (unsigned long long)a->config1);
		snprintf(c2, sizeof(c2), "%#llx", (unsigned long long)a->config2);
		if (!a->exclude_user)
			strcat(mods, "u");
		if (!a->exclude_kernel)
			strcat(mods, "k");
		if (!a->exclude_hv)
			strcat(mods, "h");
		if (ev->group >= 0)
			snprintf(group, sizeof(group), "g%d%s", ev->group, ev->leader == e ? " (leader)" : "");
		else
			snprintf(group, sizeof(group), "-");
		snprintf(period, sizeof(period), "%llu", (unsigned long long)ev->period);
		const char *cells[] = { ev->name, ev->pmu ? ev->pmu : "", type, c0, c1, c2, mods, group,
					ev->period ? period : "-", ev->encoding ? ev->encoding : "" };
		table_row(&t, cells);
	}
	printf("\n Events resolved (nothing opened):\n\n");
	table_print(&t, stdout);
	table_free(&t);
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

/* One run: open, count until the end condition, read. Fills `res` (initialised here). */
static int run_once(struct run_ctx *rc, struct stat_result *res, char **cmd)
{
	struct stat_opts *o = rc->o;
	struct target t = TARGET_INIT;
	struct counters c;
	struct counters_opts co = { 0 };
	int rc_ = -1;

	if (cmd) {
		if (target_start_command(&t, cmd, o->pin_cpus ? o->pin_cpus : o->wperf_pin ? &o->cpus : NULL) < 0)
			return -1;
	} else if (o->pid_list) {
		if (target_attach_pids(&t, o->pid_list) < 0)
			return -1;
	} else if (o->tid_list) {
		if (target_attach_tids(&t, o->tid_list) < 0)
			return -1;
	}
	if (o->cpus.n) {
		co.cpus = o->cpus.cpu;
		co.ncpus = o->cpus.n;
	}
	if (cmd && (!o->cpus.n || o->task_per_cpu)) {
		co.pids = &t.pid;
		co.npids = 1;
		co.enable_on_exec = true;
	} else if (t.ntids) {
		co.pids = t.tids;
		co.npids = t.ntids;
	}
	co.inherit = !o->no_inherit && co.npids > 0;
	if (counters_open(&c, rc->evl, &co) < 0) {
		target_free(&t);
		return -1;
	}
	if (c.kernel_excluded && !o->noted_user_only) {
		err_note("kernel-mode counting is not permitted (kernel.perf_event_paranoid is %d): "
			 "counting user mode only", pe_paranoid());
		o->noted_user_only = true;
	}
	stat_result_init(res, &c, rc->metrics, rc->nmetrics);
	struct stat_result prev, cur, delta;
	bool intervals = o->interval_ms > 0;
	if (intervals) {
		stat_result_init(&prev, &c, rc->metrics, rc->nmetrics);
		stat_result_init(&cur, &c, rc->metrics, rc->nmetrics);
		stat_result_init(&delta, &c, rc->metrics, rc->nmetrics);
	}

	bool progress = !cmd && !intervals && !o->quiet && isatty(STDERR_FILENO);
	if (progress)
		fprintf(stderr, "counting ...");
	double start = now_s();
	if (!co.enable_on_exec)
		counters_enable(&c);
	if (cmd && target_go(&t) < 0) {
		counters_close(&c);
		stat_result_free(res);
		goto out;
	}
	rc->ran_command = cmd != NULL;

	double deadline = o->timeout_s > 0 ? start + o->timeout_s : INFINITY;
	double next_tick = intervals ? start + o->interval_ms / 1000.0 : INFINITY;
	int ticks = 0;
	bool ended = false, killed = false;
	struct rusage ru;
	memset(&ru, 0, sizeof(ru));
	while (!ended) {
		double now = now_s();
		double until = deadline < next_tick ? deadline : next_tick;
		if (stop_signal && !cmd)
			break;
		if (stop_signal && cmd && !killed) {
			/* SIGINT from a terminal reached the command too; other signals we pass on. */
			if (stop_signal != SIGINT)
				kill(t.pid, stop_signal);
			killed = true;
		}
		if (now >= next_tick) {
			if (stat_read(&cur, &c) < 0)
				goto fail;
			cur.duration = now - start;
			stat_diff(&delta, &cur, &prev);
			emit_interval(rc, &delta, ticks == 0);
			stat_copy_values(&prev, &cur);
			ticks++;
			next_tick += o->interval_ms / 1000.0;
			if (o->interval_count && ticks >= o->interval_count) {
				if (!cmd)
					break;
				deadline = now; /* end like a timeout */
			}
			continue;
		}
		if (now >= deadline) {
			if (!cmd)
				break;
			if (!killed) {
				kill(t.pid, SIGTERM);
				killed = true;
			}
			deadline = INFINITY;
			continue;
		}
		int wait_ms = isinf(until) ? 200 : (int)((until - now) * 1000) + 1;
		if (wait_ms > 200)
			wait_ms = 200;
		if (cmd) {
			int w = target_wait(&t, wait_ms, &rc->status, &ru);
			if (w < 0)
				goto fail;
			if (w == 0)
				ended = true;
		} else {
			struct timespec ts = { wait_ms / 1000, (long)(wait_ms % 1000) * 1000000L };
			nanosleep(&ts, NULL);
			if ((o->pid_list || o->tid_list) && !target_alive(&t))
				ended = true;
		}
	}
	double end = now_s();
	if (!cmd)
		counters_disable(&c);
	bool count_reached = o->interval_count && ticks >= o->interval_count;
	if (intervals && !count_reached && end - start - prev.duration >= 0.001) {
		/* The partial interval since the last row, so the rows add up to the totals. */
		if (stat_read(&cur, &c) < 0)
			goto fail;
		cur.duration = end - start;
		stat_diff(&delta, &cur, &prev);
		emit_interval(rc, &delta, ticks == 0);
	}
	if (progress)
		fprintf(stderr, " done\n");
	if (stat_read(res, &c) < 0)
		goto fail;
	res->duration = end - start;
	if (cmd) {
		res->user_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6;
		res->sys_s = (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	}
	rc_ = 0;
	goto out;
fail:
	stat_result_free(res);
out:
	if (intervals) {
		stat_result_free(&prev);
		stat_result_free(&cur);
		stat_result_free(&delta);
	}
	counters_close(&c);
	target_free(&t);
	return rc_;
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

int cmd_stat(int argc, char **argv)
{
	struct stat_opts o;
	char **cmd = stat_parse_options(&o, argc, argv);
	return stat_run(&o, cmd);
}

int stat_run(struct stat_opts *op, char **cmd)
{
	struct stat_opts o = *op;
	err_quiet = o.quiet;

	struct metric_set set = { 0 };
	metric_set_builtin(&set);
	for (size_t i = 0; i < o.nmetric_files; i++)
		if (metric_set_load_file(&set, o.metric_files[i]) < 0)
			err_die_last(EXIT_USAGE);

	struct strbuf ev = STRBUF_INIT, met = STRBUF_INIT;
	sb_adds(&ev, sb_str(&o.events));
	sb_adds(&met, sb_str(&o.metrics));
	if (!ev.len && !met.len)
		default_events(&o, &ev, &met);

	struct evlist l = { 0 };
	if (ev.len && evlist_parse(&l, sb_str(&ev)) < 0)
		err_die_last(EXIT_USAGE);
	const struct metric **metrics = NULL;
	size_t nmetrics = 0;
	if (met.len) {
		char *list = xstrdup(sb_str(&met)), *save = NULL;
		for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			int r = add_metric_events(&l, &set, tok);
			/* --dry-run shows what would be counted even where it cannot be. */
			if (r == -2 && !o.dry_run)
				err_die_last(EXIT_RUNTIME);
			if (r == -1)
				err_die_last(EXIT_USAGE);
		}
		free(list);
		nmetrics = collect_metrics(&set, sb_str(&met), &metrics);
	}

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
		dry_run(&l);
		free(metrics);
		evlist_free(&l);
		metric_set_free(&set);
		sb_release(&ev);
		sb_release(&met);
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
	install_signals();

	struct stat_result acc, last;
	bool have_acc = false;
	int runs = o.repeat > 0 ? o.repeat : 1;
	int exit_code = 0;
	for (int run = 0; run < runs && !(stop_signal && run > 0); run++) {
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
	if (acc.runs > 1) {
		/* Show the means; metrics are computed over them. */
		for (size_t e = 0; e < acc.nev; e++)
			acc.ev[e].total.scaled = acc.ev[e].mean;
		acc.duration = acc.dur_mean;
	}
	stat_compute_metrics(&acc);
	rc.out.modes = modes_of(&l);

	if (o.hooks)
		o.hooks->final ? o.hooks->final(rc.f, &acc, &rc.out, o.hooks->arg) : (void)0;
	else if (o.json)
		statout_json(rc.f, &acc, rc.intervals, rc.nintervals, &rc.out);
	else if (o.csv_sep && !o.interval_ms)
		statout_csv(rc.f, &acc, &rc.out, false);
	else if (!o.interval_ms || o.verbose)
		statout_text(rc.f, &acc, &rc.out);
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
	sb_release(&ev);
	sb_release(&met);
	stat_opts_free(&o);
	return exit_code;
}

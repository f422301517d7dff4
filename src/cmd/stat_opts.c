#include "cmd/stat_opts.h"

#include <stdlib.h>
#include <string.h>

#include "util/cpuset.h"
#include "util/error.h"
#include "util/opt.h"
#include "util/parse.h"
#include "util/xalloc.h"


static void append(struct strbuf *sb, const char *s)
{
	if (sb->len)
		sb_addc(sb, ',');
	sb_adds(sb, s);
}

static int opt_event(const struct option *opt, const char *arg)
{
	struct stat_opts *so = opt->value;
	if (!*arg)
		return err_set("empty event list");
	append(&so->events, arg);
	return 0;
}

static int opt_metric(const struct option *opt, const char *arg)
{
	struct stat_opts *so = opt->value;
	if (!*arg)
		return err_set("empty metric list");
	append(&so->metrics, arg);
	return 0;
}

static int opt_metric_file(const struct option *opt, const char *arg)
{
	struct stat_opts *so = opt->value;
	so->metric_files = xrealloc(so->metric_files, (so->nmetric_files + 1) * sizeof(char *));
	so->metric_files[so->nmetric_files++] = arg;
	return 0;
}

static int set_cpus(struct stat_opts *so, const char *arg)
{
	cpuset_free(&so->cpus);
	free(so->cpu_list);
	so->cpu_list = xstrdup(arg);
	return cpuset_parse(arg, &so->cpus);
}

static int opt_cpu(const struct option *opt, const char *arg) { return set_cpus(opt->value, arg); }

static int opt_wperf_cpu(const struct option *opt, const char *arg)
{
	struct stat_opts *so = opt->value;
	so->wperf_pin = true;
	return set_cpus(so, arg);
}

/* -t: perf's TID list when a number follows, else WindowsPerf's timeline switch. */
static int opt_t(const struct option *opt, const char *arg)
{
	struct stat_opts *so = opt->value;
	if (arg)
		so->tid_list = arg;
	else
		so->wperf_timeline = true;
	return 0;
}

static int opt_timeout(const struct option *opt, const char *arg)
{
	struct stat_opts *so = opt->value;
	return parse_duration(arg, &so->timeout_s);
}

static int opt_wperf_interval(const struct option *opt, const char *arg)
{
	struct stat_opts *so = opt->value;
	if (parse_duration(arg, &so->wperf_interval_s) < 0)
		return -1;
	/* Kept in milliseconds as an int: a day is more than any timeline needs. */
	if (so->wperf_interval_s > 86400)
		return err_set("interval '%s' is longer than a day", arg);
	return 0;
}

static int opt_sep(const struct option *opt, const char *arg)
{
	struct stat_opts *so = opt->value;
	if (!*arg)
		return err_set("the field separator cannot be empty");
	so->csv_sep = arg;
	return 0;
}

static const char *const usage[] = {
	"lperf stat [OPTIONS] [--] COMMAND [ARGS]",
	"lperf stat [OPTIONS] -p PID | -t TID | -a | -C CPUS [--timeout DUR | sleep DUR]",
	NULL,
};

char **stat_parse_options(struct stat_opts *o, int argc, char **argv)
{
	memset(o, 0, sizeof(*o));
	o->big_num = true;
	o->wperf_interval_s = -1;
	bool no_big_num = false;
	const struct option opts[] = {
		{ OPT_GROUP, 0, NULL, NULL, NULL, "What to count" },
		{ OPT_CALLBACK, 'e', "event", o, "EVENTS", "events to count, comma-separated; {a,b} "
		  "groups, :u/:k modifiers (see 'lperf list')", opt_event, 0 },
		{ OPT_CALLBACK, 'm', "metrics", o, "METRICS", "metrics or metric groups (imix, ipc, "
		  "cpus_utilized, ...)", opt_metric, 0 },
		{ OPT_CALLBACK, 'M', NULL, o, "METRICS", "same as -m (perf's spelling)", opt_metric, 0 },
		{ OPT_CALLBACK, 0, "metric-file", o, "FILE", "load user metrics from FILE",
		  opt_metric_file, 0 },
		{ OPT_BOOL, 'k', NULL, &o->kernel, NULL, "require kernel-mode counting (WindowsPerf); "
		  "an error where it is not permitted" },
		{ OPT_GROUP, 0, NULL, NULL, NULL, "Where to count" },
		{ OPT_STRING, 'p', "pid", &o->pid_list, "PID", "existing process(es), comma-separated" },
		{ OPT_CALLBACK, 't', NULL, o, "TID", "thread(s) with a number; timeline mode "
		  "without one (WindowsPerf)", opt_t, OPT_NUMERIC_OPT },
		{ OPT_STRING, 0, "tid", &o->tid_list, "TID", "existing thread(s), comma-separated" },
		{ OPT_BOOL, 'a', "all-cpus", &o->system_wide, NULL, "count every CPU (system-wide)" },
		{ OPT_CALLBACK, 'C', "cpu", o, "CPUS", "count these CPUs, e.g. 0,3-5", opt_cpu, 0 },
		{ OPT_CALLBACK, 'c', NULL, o, "CPUS", "count these CPUs and pin the command to "
		  "them (WindowsPerf)", opt_wperf_cpu, 0 },
		{ OPT_BOOL, 0, "no-inherit", &o->no_inherit, NULL, "do not count child processes and "
		  "new threads" },
		{ OPT_GROUP, 0, NULL, NULL, NULL, "How long" },
		{ OPT_CALLBACK, 0, "timeout", o, "DUR", "stop after DUR (2.5s, 100ms, 3m, 1h); "
		  "the trailing pseudo-command 'sleep DUR' does the same with -a/-C/-c", opt_timeout, 0 },
		{ OPT_INT, 'r', "repeat", &o->repeat, "N", "run the command N times; show means and "
		  "variation" },
		{ OPT_GROUP, 0, NULL, NULL, NULL, "Timeline" },
		{ OPT_INT, 'I', "interval-print", &o->interval_ms, "MS", "print counts every MS "
		  "milliseconds" },
		{ OPT_CALLBACK, 'i', NULL, o, "DUR", "timeline interval with -t (WindowsPerf; "
		  "default 1s)", opt_wperf_interval, 0 },
		{ OPT_INT, 'n', "interval-count", &o->interval_count, "N", "stop after N intervals" },
		{ OPT_GROUP, 0, NULL, NULL, NULL, "Output" },
		{ OPT_BOOL, 'A', "no-aggr", &o->per_cpu, NULL, "show each CPU, then the total" },
		{ OPT_BOOL, 0, "per-core", &o->per_cpu, NULL, "same as -A" },
		{ OPT_CALLBACK, 'x', "field-separator", o, "SEP", "CSV output with separator SEP",
		  opt_sep, 0 },
		{ OPT_BOOL, 'j', "json", &o->json, NULL, "JSON output (docs/schemas/stat.schema.json)" },
		{ OPT_STRING, 'o', "output", &o->output, "FILE", "write results to FILE (.csv and "
		  ".json names choose the format)" },
		{ OPT_BOOL, 0, "no-big-num", &no_big_num, NULL, "no thousands separators" },
		{ OPT_BOOL, 0, "dry-run", &o->dry_run, NULL, "print each event's perf_event_attr and "
		  "open nothing" },
		{ OPT_BOOL, 'q', "quiet", &o->quiet, NULL, "no notes or progress" },
		{ OPT_COUNT, 'v', "verbose", &o->verbose, NULL, "more detail (metric formulas)" },
		OPT_END_(),
	};
	struct opt_ctx ctx = { "stat", usage, opts, true };
	int i = opt_parse(&ctx, argc, argv);
	bool dashdash = i > 1 && !strcmp(argv[i - 1], "--");
	char **cmd = i < argc ? argv + i : NULL;
	o->big_num = !no_big_num;

	if (o->system_wide) {
		if (o->cpus.n)
			opt_usage_error(&ctx, "-a counts every CPU; give either -a or a CPU list");
		if (cpuset_online(&o->cpus) < 0)
			err_die_last(EXIT_RUNTIME);
		o->cpu_list = xstrdup("all");
	}
	/* WindowsPerf's `sleep N` pseudo-command: a duration, when CPUs are the target. Without
	 * a CPU target `sleep N` is a real command, as in perf. */
	if (cmd && !dashdash && o->cpus.n && !strcmp(cmd[0], "sleep") && cmd[1] && !cmd[2]) {
		if (parse_duration(cmd[1], &o->timeout_s) < 0)
			opt_usage_error(&ctx, "pseudo-command 'sleep %s': %s", cmd[1], err_msg());
		cmd = NULL;
	}
	if (o->wperf_timeline || o->wperf_interval_s >= 0) {
		if (o->interval_ms)
			opt_usage_error(&ctx, "give either -I MS or the WindowsPerf timeline -t -i DUR");
		o->interval_ms = o->wperf_interval_s >= 0 ? (int)(o->wperf_interval_s * 1000 + 0.5) : 1000;
	}
	if (o->interval_ms && o->interval_ms < 10)
		opt_usage_error(&ctx, "the interval must be at least 10 ms (got %d ms)", o->interval_ms);
	if (o->interval_count < 0 || o->repeat < 0)
		opt_usage_error(&ctx, "counts must not be negative");
	if (o->interval_count && !o->interval_ms)
		opt_usage_error(&ctx, "-n/--interval-count needs -I MS or -t");
	int kinds = !!o->pid_list + !!o->tid_list;
	if (kinds > 1)
		opt_usage_error(&ctx, "give either -p or -t, not both");
	if (kinds && cmd)
		opt_usage_error(&ctx, "give either a command or -p/-t, not both");
	if (!cmd && !kinds && !o->cpus.n && !o->dry_run)
		opt_usage_error(&ctx, "nothing to count: give a command ('lperf stat -- CMD'), -p PID, "
				"-t TID, -a or -C CPUS");
	if (o->repeat > 1 && !cmd)
		opt_usage_error(&ctx, "-r repeats a command; give one");
	if (o->repeat > 1 && o->interval_ms)
		opt_usage_error(&ctx, "-r and interval printing do not combine");
	if (o->per_cpu && !o->cpus.n && cpuset_online(&o->cpus) == 0) {
		/* -A with a command: count it on each CPU so the rows mean something. */
		o->cpu_list = xstrdup("all");
		o->task_per_cpu = cmd || kinds;
	}
	if (o->output) {
		size_t n = strlen(o->output);
		if (n > 4 && !strcmp(o->output + n - 4, ".csv") && !o->csv_sep && !o->json)
			o->csv_sep = ",";
		if (n > 5 && !strcmp(o->output + n - 5, ".json") && !o->csv_sep)
			o->json = true;
	}
	if (o->json && o->csv_sep)
		opt_usage_error(&ctx, "give either --json or -x, not both");
	return cmd;
}

void stat_opts_free(struct stat_opts *o)
{
	sb_release(&o->events);
	sb_release(&o->metrics);
	free(o->metric_files);
	cpuset_free(&o->cpus);
	free(o->cpu_list);
}

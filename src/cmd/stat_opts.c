#include "cmd/stat_opts.h"

#include <stdlib.h>
#include <string.h>

#include "util/cpuset.h"
#include "util/error.h"
#include "util/opt.h"
#include "util/parse.h"
#include "util/xalloc.h"
#include "output/prom_out.h"
#include "stat/stat_aggr.h"


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

/* -G NAME[,NAME...]: the cgroups of the events named so far, in order (perf's rule). */
static int opt_cgroup(const struct option *opt, const char *arg)
{
	struct stat_opts *so = opt->value;
	if (!so->events.len)
		return err_set("must define events before cgroups");
	if (!so->have_cgroups)
		so->cg_prefix = so->events.len;
	else
		sb_addc(&so->cgroups, ',');
	sb_adds(&so->cgroups, arg);
	so->have_cgroups = true;
	return 0;
}

/* --labels comm,pid: what the Prometheus series of --per-thread may show of each thread. */
static int opt_labels(const struct option *opt, const char *arg)
{
	struct stat_opts *so = opt->value;
	for (const char *s = arg; *s;) {
		size_t len = strcspn(s, ",");
		if (len == 4 && !strncmp(s, "comm", 4))
			so->prom_labels |= PROM_LABEL_COMM;
		else if (len == 3 && !strncmp(s, "pid", 3))
			so->prom_labels |= PROM_LABEL_PID;
		else
			return err_set("'%.*s' is not a label lperf adds (comm, pid)", (int)len, s);
		s += len + (s[len] == ',');
	}
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

static int opt_timeout(const struct option *opt, const char *arg)
{
	struct stat_opts *so = opt->value;
	return parse_duration(arg, &so->timeout_s);
}

/* The aggregation modes are one choice; the last given wins, as in perf. */
#define AGGR_OPT(fn, mode)                                              \
	static int fn(const struct option *opt, const char *arg)        \
	{                                                               \
		(void)arg;                                              \
		((struct stat_opts *)opt->value)->aggr = mode;          \
		return 0;                                               \
	}
AGGR_OPT(opt_no_aggr, STAT_AGGR_NONE)
AGGR_OPT(opt_per_core, STAT_AGGR_CORE)
AGGR_OPT(opt_per_die, STAT_AGGR_DIE)
AGGR_OPT(opt_per_socket, STAT_AGGR_SOCKET)
AGGR_OPT(opt_per_node, STAT_AGGR_NODE)
AGGR_OPT(opt_per_thread, STAT_AGGR_THREAD)

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
	"lperf stat [OPTIONS] -p PID | -t TID | -a | -C CPUS (until Ctrl-C or --timeout)",
	"lperf stat record [-o FILE] [OPTIONS] [--] COMMAND",
	"lperf stat report [-i FILE]",
	NULL,
};

/* perf refuses a mode it cannot honour with its usage; so does lperf. */
static void check_modes(struct opt_ctx *ctx, struct stat_opts *o, bool have_cmd)
{
	bool cpu_target = o->system_wide || o->cpus.n;
	if (o->aggr == STAT_AGGR_THREAD) {
		if (have_cmd && !cpu_target && !o->pid_list && !o->tid_list)
			opt_usage_error(ctx, "--per-thread counts existing threads: give -p, -t or -a (or no "
					"command), not a command");
	} else if (o->aggr != STAT_AGGR_GLOBAL && !cpu_target) {
		opt_usage_error(ctx, "-A/--no-aggr and --per-core/die/socket/node need system-wide counting "
				"(-a or -C CPUS)");
	}
	if (o->json && o->csv_sep)
		opt_usage_error(ctx, "give either --json or -x, not both");
	if (o->json_doc && (o->csv_sep || o->json))
		opt_usage_error(ctx, "--json-doc is a layout of its own: not with -x or -j");
	if (o->json_doc && o->aggr != STAT_AGGR_GLOBAL && o->aggr != STAT_AGGR_NONE)
		opt_usage_error(ctx, "--json-doc shows totals and per-CPU values (-A) only");
}

/* --prometheus, --remote-write, --textfile: counting that goes on, not -r's repeated runs; -G
 * on CPUs. */
static void check_exports(struct opt_ctx *ctx, struct stat_opts *o)
{
	if (o->have_cgroups && !o->system_wide && !o->cpus.n)
		opt_usage_error(ctx, "-G counts in cgroups on CPUs: give -a or -C");
	if (o->push_ms < 0 || (o->push_ms && o->push_ms < 10))
		opt_usage_error(ctx, "--push-interval must be at least 10 ms (got %d ms)", o->push_ms);
	if (!o->push_ms)
		o->push_ms = 10000;
	if ((o->remote_write || o->textfile || o->prometheus) && o->repeat > 1)
		opt_usage_error(ctx, "-r and --prometheus/--remote-write/--textfile do not combine");
}

char **stat_parse_options(struct stat_opts *o, int argc, char **argv)
{
	memset(o, 0, sizeof(*o));
	o->big_num = true;
	o->log_fd = -1;
	bool no_big_num = false, scale = false;
	const struct option opts[] = {
		{ OPT_GROUP, 0, NULL, NULL, NULL, "What to count" },
		{ OPT_CALLBACK, 'e', "event", o, "EVENTS", "events to count, comma-separated; {a,b} "
		  "groups, :u/:k modifiers (see 'lperf list')", opt_event, 0 },
		{ OPT_CALLBACK, 'M', "metrics", o, "METRICS", "metrics or metric groups (imix, ipc, "
		  "cpus_utilized, ...)", opt_metric, 0 },
		{ OPT_CALLBACK, 'm', NULL, o, "METRICS", "same as -M", opt_metric, OPT_HIDDEN },
		{ OPT_CALLBACK, 0, "metric-file", o, "FILE", "load user metrics from FILE",
		  opt_metric_file, 0 },
		{ OPT_BOOL, 'n', "null", &o->null_run, NULL, "count no events: only the elapsed time" },
		{ OPT_BOOL, 'k', NULL, &o->kernel, NULL, "require kernel-mode counting; an error where it "
		  "is not permitted" },
		{ OPT_BOOL, 0, "all-user", &o->user_only, NULL, "count user mode only (every event :u)" },
		{ OPT_GROUP, 0, NULL, NULL, NULL, "Where to count (default with no command: every CPU)" },
		{ OPT_STRING, 'p', "pid", &o->pid_list, "PID", "existing process(es), comma-separated" },
		{ OPT_STRING, 't', "tid", &o->tid_list, "TID", "existing thread(s), comma-separated" },
		{ OPT_BOOL, 'a', "all-cpus", &o->system_wide, NULL, "count every CPU (system-wide)" },
		{ OPT_CALLBACK, 'C', "cpu", o, "CPUS", "count these CPUs, e.g. 0,3-5", opt_cpu, 0 },
		{ OPT_BOOL, 'i', "no-inherit", &o->no_inherit, NULL, "do not count child processes and "
		  "new threads" },
		{ OPT_GROUP, 0, NULL, NULL, NULL, "How long" },
		{ OPT_CALLBACK, 0, "timeout", o, "DUR", "stop after DUR (2.5s, 100ms, 3m, 1h)",
		  opt_timeout, 0 },
		{ OPT_INT, 'r', "repeat", &o->repeat, "N", "run the command N times; show means and "
		  "variation" },
		{ OPT_INT, 'I', "interval-print", &o->interval_ms, "MS", "print counts every MS "
		  "milliseconds" },
		{ OPT_INT, 0, "interval-count", &o->interval_count, "N", "stop after N intervals" },
		{ OPT_BOOL, 0, "summary", &o->summary, NULL, "the totals after the interval rows" },
		{ OPT_BOOL, 0, "no-csv-summary", &o->no_csv_summary, NULL, "no 'summary' prefix on the "
		  "--summary rows of -x" },
		{ OPT_GROUP, 0, NULL, NULL, NULL, "Aggregation (with -a or -C)" },
		{ OPT_CALLBACK, 'A', "no-aggr", o, NULL, "a row per CPU", opt_no_aggr, OPT_NOARG },
		{ OPT_CALLBACK, 0, "per-core", o, NULL, "a row per core (S0-D0-C1)", opt_per_core, OPT_NOARG },
		{ OPT_CALLBACK, 0, "per-die", o, NULL, "a row per die", opt_per_die, OPT_NOARG },
		{ OPT_CALLBACK, 0, "per-socket", o, NULL, "a row per socket", opt_per_socket, OPT_NOARG },
		{ OPT_CALLBACK, 0, "per-node", o, NULL, "a row per NUMA node", opt_per_node, OPT_NOARG },
		{ OPT_CALLBACK, 0, "per-thread", o, NULL, "a row per thread (-p, -t, -a)", opt_per_thread,
		  OPT_NOARG },
		{ OPT_CALLBACK, 'G', "cgroup", o, "NAME[,NAME]", "count the events named so far only in "
		  "these cgroups, the Nth event in the Nth (one: all of them; with -a or -C)", opt_cgroup, 0 },
		{ OPT_BOOL, 0, "no-merge", &o->no_merge, NULL, "keep the counts of each PMU of an event "
		  "apart (lperf never merges them)" },
		{ OPT_GROUP, 0, NULL, NULL, NULL, "Output (on standard error, as perf's)" },
		{ OPT_CALLBACK, 'x', "field-separator", o, "SEP", "CSV rows with separator SEP",
		  opt_sep, 0 },
		{ OPT_BOOL, 'j', "json-output", &o->json, NULL, "one JSON object per line (perf's keys)" },
		{ OPT_BOOL, 0, "json", &o->json, NULL, "same as -j", NULL, OPT_HIDDEN },
		{ OPT_STRING, 0, "prometheus", &o->prometheus, "ADDR:PORT", "serve the counts since the start "
		  "at http://ADDR:PORT/metrics (Prometheus text; ADDR 127.0.0.1 unless given)" },
		{ OPT_STRING, 0, "remote-write", &o->remote_write, "URL", "push the counts to URL by "
		  "Prometheus remote write (Prometheus, VictoriaMetrics), retried with back-off" },
		{ OPT_STRING, 0, "textfile", &o->textfile, "DIR", "keep the counts in DIR/lperf.prom" },
		{ OPT_CALLBACK, 0, "labels", o, "comm,pid", "with --per-thread: a series per thread, "
		  "labelled with its command name and/or thread id", opt_labels, 0 },
		{ OPT_INT, 0, "push-interval", &o->push_ms, "MS", "push or write every MS milliseconds "
		  "(10000)" },
		{ OPT_BOOL, 0, "json-doc", &o->json_doc, NULL, "lperf's JSON document, on standard "
		  "output (docs/schemas/stat.schema.json)" },
		{ OPT_BOOL, 0, "metric-only", &o->metric_only, NULL, "only the -M metrics" },
		{ OPT_STRING, 'o', "output", &o->output, "FILE", "write the results to FILE" },
		{ OPT_BOOL, 0, "append", &o->append, NULL, "add to the -o file instead of replacing it" },
		{ OPT_INT, 0, "log-fd", &o->log_fd, "N", "write the results to file descriptor N" },
		{ OPT_BOOL, 0, "scale", &scale, NULL, "scale multiplexed counts to the time enabled (the "
		  "default)" },
		{ OPT_BOOL, 0, "no-scale", &o->no_scale, NULL, "the raw counts of multiplexed events, not "
		  "scaled to the time enabled" },
		{ OPT_BOOL, 'S', "sync", &o->sync, NULL, "call sync() before counting" },
		{ OPT_BOOL, 'B', "big-num", &o->big_num, NULL, "thousands separators of the locale "
		  "(the default)" },
		{ OPT_BOOL, 0, "no-big-num", &no_big_num, NULL, "no thousands separators" },
		{ OPT_BOOL, 0, "dry-run", &o->dry_run, NULL, "print each event's perf_event_attr and "
		  "open nothing" },
		{ OPT_BOOL, 'q', "quiet", &o->quiet, NULL, "no notes" },
		{ OPT_COUNT, 'v', "verbose", &o->verbose, NULL, "more detail (metric formulas)" },
		OPT_END_(),
	};
	struct opt_ctx ctx = { "stat", usage, opts, true };
	int i = opt_parse(&ctx, argc, argv);
	char **cmd = i < argc ? argv + i : NULL;
	o->big_num = !no_big_num;
	(void)scale; /* --scale is the default; --no-scale turns it off */
	o->allow_none = true;

	if (o->system_wide) {
		if (o->cpus.n)
			opt_usage_error(&ctx, "-a counts every CPU; give either -a or a CPU list");
	}
	if (o->interval_ms && o->interval_ms < 10)
		opt_usage_error(&ctx, "the interval must be at least 10 ms (got %d ms)", o->interval_ms);
	if (o->interval_count < 0 || o->repeat < 0)
		opt_usage_error(&ctx, "counts must not be negative");
	if (o->interval_count && !o->interval_ms)
		opt_usage_error(&ctx, "--interval-count needs -I MS");
	int kinds = !!o->pid_list + !!o->tid_list;
	if (kinds > 1)
		opt_usage_error(&ctx, "give either -p or -t, not both");
	/* With -p/-t a command is perf's timer: it runs uncounted while the threads are counted. */
	/* perf's default target: with nothing named, the whole system. */
	if (!cmd && !kinds && !o->cpus.n)
		o->system_wide = true;
	check_exports(&ctx, o);
	check_modes(&ctx, o, cmd != NULL);
	if (o->system_wide) {
		if (cpuset_online(&o->cpus) < 0)
			err_die_last(EXIT_RUNTIME);
		o->cpu_list = xstrdup("all");
	}
	if (o->repeat > 1 && !cmd)
		opt_usage_error(&ctx, "-r repeats a command; give one");
	if (o->repeat > 1 && o->interval_ms)
		opt_usage_error(&ctx, "-r and interval printing do not combine");
	return cmd;
}

void stat_opts_free(struct stat_opts *o)
{
	sb_release(&o->events);
	sb_release(&o->metrics);
	sb_release(&o->cgroups);
	free(o->metric_files);
	cpuset_free(&o->cpus);
	free(o->cpu_list);
}

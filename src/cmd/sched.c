/* lperf sched: perf sched's `record` (the scheduler's tracepoints on every CPU, each hit a
 * sample, as perf sched record takes them) and the analyses that read such a recording, lperf's
 * or perf's: `latency` (per task: run time, switches, delays from wakeup to running), `timehist`
 * (one line per switch with the wait, scheduling delay and run time; its summary) and `map`
 * (which task each CPU runs). The analyses are analysis/sched_*.c, the text output/sched_out.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "analysis/sched.h"
#include "cmd/cmd.h"
#include "events/tracepoint.h"
#include "output/sched_out.h"
#include "record/record.h"
#include "session/session.h"
#include "session/trace_formats.h"
#include "util/error.h"
#include "util/opt.h"
#include "util/xalloc.h"

/* perf sched record's events, those this kernel has (sched_stat_runtime is gone from some). */
static const char *const sched_events[] = {
	"sched:sched_switch", "sched:sched_stat_runtime", "sched:sched_process_fork",
	"sched:sched_wakeup_new", "sched:sched_migrate_task", "sched:sched_waking",
};

static int sched_record(int argc, char **argv)
{
	static const char *const fixed[] = { "record", "-a", "-m", "1024", "-c", "1" };
	size_t n = ARRAY_SIZE(fixed);
	char **args = xcalloc(n + 2 * ARRAY_SIZE(sched_events) + (size_t)argc + 1, sizeof(*args));
	for (size_t i = 0; i < n; i++)
		args[i] = (char *)fixed[i];
	for (size_t i = 0; i < ARRAY_SIZE(sched_events); i++) {
		uint64_t id;
		if (tp_lookup(sched_events[i], &id) != 1) {
			err_clear();
			continue;
		}
		args[n++] = (char *)"-e";
		args[n++] = (char *)sched_events[i];
	}
	for (int i = 1; i < argc; i++)
		args[n++] = argv[i];
	int rc = cmd_record((int)n, args);
	free(args);
	return rc;
}

/* perf sched's options before the subcommand, which the analyses take too. */
struct sched_common {
	const char *input;
	bool force;
	int verbose;
};

enum sched_mode { SCHED_LATENCY, SCHED_TIMEHIST, SCHED_MAP };

struct sched_ctx {
	enum sched_mode mode;
	struct tep_handle *tep;
	struct sched_tp tp;
	struct session *ss;
	int ready_rc;
	uint64_t bad, lost_chunks;
	struct sched_lat lat;
	struct sched_hist hist;
	struct sched_hist_out out;
	struct sched_map map;
	bool compact, summary;
	bool summary_only, wakeups, migrations, idle_hist; /* timehist -s, -w, -M, -I: set into hist once
							     * it is made */
	int verbose;
	const struct cpuset *cpus;         /* timehist -C, map --cpus */
	const struct sched_ids *pids, *tids; /* timehist -p, -t */
	uint64_t tstart, tend;             /* timehist --time */
	int keys[8];
	size_t nkeys;
};

static void sched_hist_row_out(void *arg, const struct sched_hist_row *r)
{
	sched_hist_line(arg, r);
}

static void sched_map_row_out(void *arg, const struct sched_map_row *r)
{
	sched_map_line(arg, r);
}

static int sched_ready(struct session *ss, void *arg)
{
	struct sched_ctx *c = arg;
	struct notes said = NOTES_INIT;
	c->ss = ss;
	c->tep = trace_formats_load(ss->reader, &said);
	err_print_notes(&said);
	notes_clear(&said);
	if (sched_tp_init(&c->tp, c->tep) < 0)
		return c->ready_rc = -1;
	ss->tool.callchains = false;
	if (c->mode == SCHED_LATENCY)
		return 0;
	if (c->mode == SCHED_MAP) {
		sched_map_init(&c->map, &ss->machine, (uint32_t)sysconf(_SC_NPROCESSORS_CONF));
		c->map.compact = c->compact;
		c->map.cpus = c->cpus;
		c->map.verbose = c->verbose > 0;
		c->map.row = sched_map_row_out;
		c->map.arg = stdout;
		return 0;
	}
	sched_hist_init(&c->hist, &ss->machine, ss->reader->info.nrcpus_online);
	c->hist.summary_only = c->summary_only;
	c->hist.wakeups = c->wakeups;
	c->hist.migrations = c->migrations;
	c->hist.idle_hist = c->idle_hist;
	c->hist.cpus = c->cpus;
	c->hist.tstart = c->tstart;
	c->hist.tend = c->tend;
	c->hist.pids = c->pids;
	c->hist.tids = c->tids;
	c->hist.row = sched_hist_row_out;
	c->hist.arg = &c->out;
	if (!c->summary_only)
		sched_hist_header(&c->out, c->hist.max_cpu + 1);
	if (c->out.callchain && !session_has_callchains(ss)) {
		fputs("Samples do not have callchains.\n", stderr);
		c->out.callchain = false;
	}
	c->hist.chain_max = c->out.callchain ? (size_t)c->out.max_stack : 0;
	return 0;
}

static int sched_on_sample(const struct resolved_sample *rs, void *arg)
{
	struct sched_ctx *c = arg;
	struct sched_event ev;
	if (c->mode == SCHED_TIMEHIST && rs->s->cpu > c->hist.max_cpu)
		c->hist.max_cpu = rs->s->cpu; /* perf counts every sample's CPU */
	int rc = sched_tp_decode(&c->tp, rs, &ev);
	if (rc < 0)
		c->bad++;
	if (rc <= 0)
		return 0;
	if (c->mode == SCHED_LATENCY)
		sched_lat_event(&c->lat, &ev);
	else if (c->mode == SCHED_TIMEHIST)
		sched_hist_event(&c->hist, &ev);
	else
		sched_map_event(&c->map, &ev);
	return 0;
}

/* timehist's and map's threads follow FORK, EXIT and COMM as perf's do. */
static int sched_on_record(struct session *ss, const struct perf_event_header *h, void *arg)
{
	struct sched_ctx *c = arg;
	if (h->type == PERF_RECORD_LOST) {
		struct rec_lost lost;
		struct perf_sample s;
		c->lost_chunks++;
		if (c->mode == SCHED_TIMEHIST && c->ready_rc == 0 && record_parse_lost(h, &lost) == 0 &&
		    sample_id_parse(ss->evsels, h, &s) == 0)
			sched_hist_lost(&c->out, s.time, s.cpu, lost.lost);
		return 0;
	}
	struct sched_hist *sh = c->mode == SCHED_TIMEHIST ? &c->hist : c->mode == SCHED_MAP ? &c->map.h : NULL;
	if (!sh || c->ready_rc < 0 || !sh->m)
		return 0;
	struct rec_task t;
	struct rec_comm cm;
	struct rec_mmap mm;
	if (h->type == PERF_RECORD_FORK && record_parse_task(h, &t) == 0)
		sched_hist_fork(sh, (int32_t)t.pid, (int32_t)t.tid, (int32_t)t.ppid, (int32_t)t.ptid);
	else if (h->type == PERF_RECORD_EXIT && record_parse_task(h, &t) == 0)
		sched_hist_exit(sh, (int32_t)t.tid);
	else if (h->type == PERF_RECORD_COMM && record_parse_comm(h, &cm) == 0) {
		/* perf marks the renamed task by the record's sample_id, which perf record leaves
		 * zero in the COMM records it synthesizes: then the idle task is the one marked */
		struct perf_sample s;
		sched_hist_mmap(sh, (int32_t)cm.pid, (int32_t)cm.tid);
		if (sample_id_parse(ss->evsels, h, &s) == 0)
			sched_hist_comm(sh, (int32_t)s.pid, (int32_t)s.tid);
	}
	else if ((h->type == PERF_RECORD_MMAP || h->type == PERF_RECORD_MMAP2) &&
		 (h->misc & PERF_RECORD_MISC_CPUMODE_MASK) != PERF_RECORD_MISC_KERNEL && record_parse_mmap(h, &mm) == 0)
		sched_hist_mmap(sh, (int32_t)mm.pid, (int32_t)mm.tid);
	return 0;
}

/* Walks the recording through the analysis; exits on a recording it cannot read. */
static int sched_walk(struct sched_ctx *c, struct sched_common *sc, const char *sub)
{
	struct session ss;
	struct session_tool tool = { .sample = sched_on_sample, .record = sched_on_record, .ready = sched_ready,
				     .arg = c };
	struct session_opts so = { .force = sc->force };
	if (session_open(&ss, sc->input, &so, &tool) < 0)
		cmd_open_failed(sc->input);
	int status = session_run(&ss) ? EXIT_RUNTIME : 0;
	if (c->ready_rc < 0) {
		fprintf(stderr, "lperf sched %s: %s: %s\n", sub, sc->input, err_msg());
		exit(EXIT_RUNTIME);
	}
	if (status)
		err_warn("%s: the output covers only the records before this point", err_msg());
	if (c->bad)
		err_warn("%llu scheduler samples whose fields did not read were skipped", (unsigned long long)c->bad);
	struct sched_bad bad = { .nr_events = ss.nrecords, .lost = ss.lost_records,
				 .lost_chunks = c->lost_chunks };
	if (c->mode == SCHED_LATENCY) {
		sched_lat_finish(&c->lat, &ss.machine, c->keys, c->nkeys);
		sched_print_latency(stdout, &c->lat, &bad);
		sched_lat_free(&c->lat);
	} else if (c->mode == SCHED_TIMEHIST) {
		if (c->summary)
			sched_hist_summary(&c->out, &c->hist);
		sched_hist_free(&c->hist);
	} else {
		sched_print_bad(stdout, NULL, &bad);
		sched_map_free(&c->map);
	}
	if (c->tep)
		tep_free(c->tep);
	session_close(&ss);
	return status;
}

static const struct option *sched_common_opts(struct sched_common *sc, struct option *o)
{
	o[0] = (struct option){ OPT_STRING, 'i', "input", &sc->input, "file", "input file name", NULL, 0 };
	o[1] = (struct option){ OPT_COUNT, 'v', "verbose", &sc->verbose, NULL, "be more verbose (show symbol address, etc)",
				NULL, 0 };
	o[2] = (struct option){ OPT_BOOL, 'f', "force", &sc->force, NULL, "don't complain, do it", NULL, 0 };
	return o;
}

static int sched_latency(int argc, char **argv, struct sched_common *sc)
{
	const char *sort = "avg, max, switch, runtime";
	int cpu = -1;
	bool per_pid = false;
	static const char *const usage[] = { "lperf sched latency [<options>]", NULL };
	struct option opts[] = {
		{ OPT_STRING, 's', "sort", &sort, "key[,key2...]", "sort by key(s): runtime, switch, avg, max", NULL, 0 },
		{ OPT_INT, 'C', "CPU", &cpu, "n", "CPU to profile on", NULL, 0 },
		{ OPT_BOOL, 'p', "pids", &per_pid, NULL, "latency stats per pid instead of per comm", NULL, 0 },
		OPT_END_(), OPT_END_(), OPT_END_(), OPT_END_(), OPT_END_(),
	};
	sched_common_opts(sc, opts + 3);
	const struct opt_ctx ctx = { "sched latency", usage, opts, true };
	int i = opt_parse(&ctx, argc, argv);
	if (i < argc)
		opt_usage_error(&ctx, "unexpected argument '%s'", argv[i]);
	struct sched_ctx c = { .mode = SCHED_LATENCY };
	if (sched_lat_keys(sort, c.keys, ARRAY_SIZE(c.keys), &c.nkeys) < 0)
		opt_usage_error(&ctx, "%s", err_msg());
	sched_lat_init(&c.lat, cpu, per_pid);
	return sched_walk(&c, sc, "latency");
}

static int sched_timehist(int argc, char **argv, struct sched_common *sc)
{
	struct sched_ctx c = { .mode = SCHED_TIMEHIST, .out = { .f = stdout, .comm_width = 30 } };
	bool with_summary = false, callchain = true, no_callchain = false;
	const char *vmlinux = NULL, *kallsyms = NULL, *symfs = NULL, *tm = NULL, *pids = NULL, *tids = NULL,
		   *cpus = NULL;
	int max_stack = 5;
	static const char *const usage[] = { "lperf sched timehist [<options>]", NULL };
	struct option opts[] = {
		{ OPT_STRING, 'k', "vmlinux", &vmlinux, "file", "vmlinux pathname", NULL, 0 },
		{ OPT_STRING, 0, "kallsyms", &kallsyms, "file", "kallsyms pathname", NULL, 0 },
		{ OPT_BOOL, 'g', "call-graph", &callchain, NULL, "Display call chains if present (default on)", NULL, 0 },
		{ OPT_BOOL, 0, "no-call-graph", &no_callchain, NULL, "Display no call chains", NULL, OPT_HIDDEN },
		{ OPT_INT, 0, "max-stack", &max_stack, "n", "Maximum number of functions to display backtrace.", NULL, 0 },
		{ OPT_STRING, 0, "symfs", &symfs, "directory", "Look for files with symbols relative to this directory",
		  NULL, 0 },
		{ OPT_BOOL, 's', "summary", &c.summary_only, NULL, "Show only syscall summary with statistics",
		  NULL, 0 },
		{ OPT_BOOL, 'S', "with-summary", &with_summary, NULL, "Show all syscalls and summary with statistics",
		  NULL, 0 },
		{ OPT_BOOL, 'w', "wakeups", &c.wakeups, NULL, "Show wakeup events", NULL, 0 },
		{ OPT_BOOL, 'n', "next", &c.out.next, NULL, "Show next task", NULL, 0 },
		{ OPT_BOOL, 'M', "migrations", &c.migrations, NULL, "Show migration events", NULL, 0 },
		{ OPT_BOOL, 'V', "cpu-visual", &c.out.visual, NULL, "Add CPU visual", NULL, 0 },
		{ OPT_BOOL, 'I', "idle-hist", &c.idle_hist, NULL, "Show idle events only", NULL, 0 },
		{ OPT_STRING, 0, "time", &tm, "str", "Time span for analysis (start,stop)", NULL, 0 },
		{ OPT_BOOL, 0, "state", &c.out.state, NULL, "Show task state when sched-out", NULL, 0 },
		{ OPT_STRING, 'p', "pid", &pids, "pid[,pid...]", "analyze events only for given process id(s)", NULL, 0 },
		{ OPT_STRING, 't', "tid", &tids, "tid[,tid...]", "analyze events only for given thread id(s)", NULL, 0 },
		{ OPT_STRING, 'C', "cpu", &cpus, "cpu", "list of cpus to profile", NULL, 0 },
		OPT_END_(), OPT_END_(), OPT_END_(), OPT_END_(), OPT_END_(),
	};
	sched_common_opts(sc, opts + 18);
	const struct opt_ctx ctx = { "sched timehist", usage, opts, true };
	int i = opt_parse(&ctx, argc, argv);
	if (i < argc)
		opt_usage_error(&ctx, "unexpected argument '%s'", argv[i]);
	if ((c.wakeups || c.out.next) && c.summary_only)
		opt_usage_error(&ctx, "-s and -[n|w] are mutually exclusive");
	if (max_stack < 0)
		opt_usage_error(&ctx, "--max-stack must not be negative");
	if (tm && sched_time_window(tm, &c.tstart, &c.tend) < 0)
		opt_usage_error(&ctx, "%s", err_msg());
	struct cpuset cpuset = { 0 };
	struct sched_ids pid_ids = { 0 }, tid_ids = { 0 };
	if ((cpus && cpuset_parse(cpus, &cpuset) < 0) || (pids && sched_ids_parse(pids, &pid_ids) < 0) ||
	    (tids && sched_ids_parse(tids, &tid_ids) < 0))
		opt_usage_error(&ctx, "%s", err_msg());
	c.cpus = cpus ? &cpuset : NULL;
	c.pids = pids ? &pid_ids : NULL;
	c.tids = tids ? &tid_ids : NULL;
	c.out.wakeups = c.wakeups;
	c.out.callchain = callchain && !no_callchain;
	c.out.max_stack = max_stack + 2;
	c.summary = with_summary || c.summary_only;
	int rc = sched_walk(&c, sc, "timehist");
	cpuset_free(&cpuset);
	sched_ids_free(&pid_ids);
	sched_ids_free(&tid_ids);
	return rc;
}

static int sched_map(int argc, char **argv, struct sched_common *sc)
{
	struct sched_ctx c = { .mode = SCHED_MAP };
	const char *color_pids = NULL, *color_cpus = NULL, *cpus = NULL;
	static const char *const usage[] = { "lperf sched map [<options>]", NULL };
	struct option opts[] = {
		{ OPT_BOOL, 0, "compact", &c.compact, NULL, "map output in compact mode", NULL, 0 },
		{ OPT_STRING, 0, "color-pids", &color_pids, "pids", "highlight given pids in map", NULL, 0 },
		{ OPT_STRING, 0, "color-cpus", &color_cpus, "cpus", "highlight given CPUs in map", NULL, 0 },
		{ OPT_STRING, 0, "cpus", &cpus, "cpus", "display given CPUs in map", NULL, 0 },
		OPT_END_(), OPT_END_(), OPT_END_(), OPT_END_(), OPT_END_(),
	};
	sched_common_opts(sc, opts + 4);
	const struct opt_ctx ctx = { "sched map", usage, opts, true };
	int i = opt_parse(&ctx, argc, argv);
	if (i < argc)
		opt_usage_error(&ctx, "unexpected argument '%s'", argv[i]);
	struct cpuset cpuset = { 0 };
	if (cpus && cpuset_parse(cpus, &cpuset) < 0)
		opt_usage_error(&ctx, "--cpus: %s", err_msg());
	c.cpus = cpus ? &cpuset : NULL;
	/* --color-pids/--color-cpus only colour a terminal's lines: the map is the same without */
	c.verbose = sc->verbose;
	int rc = sched_walk(&c, sc, "map");
	cpuset_free(&cpuset);
	return rc;
}

int cmd_sched(int argc, char **argv)
{
	static const char *const usage[] = { "lperf sched record [<options>] [--] [<command>]",
					     "lperf sched latency|timehist|map [<options>]", NULL };
	struct sched_common sc = { .input = "perf.data" };
	struct option opts[] = { OPT_END_(), OPT_END_(), OPT_END_(), OPT_END_(), OPT_END_() };
	sched_common_opts(&sc, opts);
	const struct opt_ctx ctx = { "sched", usage, opts, true };
	int i = opt_parse_subcommand(&ctx, argc, argv);
	const char *sub = argv[i];
	if (opt_abbrev(sub, "record", 3))
		return sched_record(argc - i, argv + i);
	if (!strncmp(sub, "lat", 3))
		return sched_latency(argc - i, argv + i, &sc);
	if (!strcmp(sub, "timehist"))
		return sched_timehist(argc - i, argv + i, &sc);
	if (!strcmp(sub, "map"))
		return sched_map(argc - i, argv + i, &sc);
	if (!strcmp(sub, "replay") || !strcmp(sub, "script"))
		err_die(EXIT_USAGE, "lperf sched %s is not available; 'perf sched %s -i FILE' reads the recording of "
			"'lperf sched record'%s", sub, sub, !strcmp(sub, "script") ? " (so does 'lperf script')" : "");
	opt_usage_error(&ctx, "unknown subcommand '%s' (lperf has record, latency, timehist and map)", sub);
}

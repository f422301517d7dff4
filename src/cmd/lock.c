/* lperf lock: perf lock's `record` (the lock:contention_begin/end tracepoints with call chains)
 * and `contention` (the waits they record, per caller or per thread, in perf's table on standard
 * error as perf writes it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "analysis/lockstat.h"
#include "analysis/sched.h"
#include "cmd/cmd.h"
#include "output/lock_out.h"
#include "session/session.h"
#include "session/trace_formats.h"
#include "kernel/lockcon.h"
#include "target/target.h"
#include "symbols/kallsyms.h"
#include "util/cpuset.h"
#include "util/error.h"
#include "util/opt.h"
#include "util/xalloc.h"

static int lock_record(int argc, char **argv)
{
	static const char *const events[] = { "record", "-e", "lock:contention_begin", "-e",
					      "lock:contention_end", "-c", "1", "-g" };
	size_t n = ARRAY_SIZE(events);
	char **args = xcalloc(n + (size_t)argc + 1, sizeof(*args));
	for (size_t i = 0; i < n; i++)
		args[i] = (char *)events[i];
	for (int i = 1; i < argc; i++)
		args[n + (size_t)i - 1] = argv[i];
	int rc = cmd_record((int)n + argc - 1, args);
	free(args);
	return rc;
}

/* perf lock's options before the subcommand, which contention takes too. */
struct lock_common {
	const char *input, *kallsyms;
	bool quiet, force;
	int verbose;
};

struct lock_ctx {
	struct lockstat ls;
	const char *kallsyms;
	struct tep_handle *tep;
	bool quiet, per_thread, by_addr;
	int max_stack, stack_skip;
	int ready_rc;
	char *partial;           /* the recording ended early: why */
};

static int lock_ready(struct session *ss, void *arg)
{
	struct lock_ctx *c = arg;
	struct notes said = NOTES_INIT;
	c->tep = trace_formats_load(ss->reader, &said);
	if (!c->quiet)
		err_print_notes(&said);
	notes_clear(&said);
	if (lockstat_init(&c->ls, c->tep, c->kallsyms ? c->kallsyms : kallsyms_path()) < 0)
		return c->ready_rc = -1;
	c->ls.per_thread = c->per_thread;
	c->ls.by_addr = c->by_addr && !c->per_thread;
	c->ls.max_stack = c->max_stack;
	c->ls.stack_skip = c->stack_skip;
	ss->tool.callchains = true;
	return 0;
}

static int lock_on_sample(const struct resolved_sample *rs, void *arg)
{
	lockstat_sample(&((struct lock_ctx *)arg)->ls, rs);
	return 0;
}

static void lock_bpf_row(void *arg, const struct lockcon_row *r)
{
	const struct lockcon_totals *t = &r->t;
	if (((struct lockstat *)arg)->per_thread)
		lockstat_add_thread(arg, (uint32_t)r->tid, r->comm, t->flags, t->count, t->total, t->max, t->min);
	else
		lockstat_add_stack(arg, r->ips, r->n, t->flags, t->count, t->total, t->max, t->min);
}

/* -b's targets: -a, -p, -C and --tid as given (NULL: not given). */
struct lock_targets {
	bool all;
	const char *pids, *cpus, *tids;
};

/* -b: the kernel counts while the command runs (-a, -C: every process, on -C's CPUs; --tid:
 * only those threads; else the command's and those it forks, and -p's); the rows as from a
 * recording. The exit status is the command's. */
static int lock_contention_bpf(struct lock_ctx *c, char **cmd, const struct lock_targets *tg)
{
	if (!cmd || !*cmd)
		err_die(EXIT_USAGE, "lock contention -b: give the command to run (lperf lock con -b [-a] -- CMD)");
	struct cpuset cpus = { 0 };
	struct sched_ids pids = { 0 }, tids = { 0 };
	if (tg->cpus && cpuset_parse(tg->cpus, &cpus) < 0)
		err_die(EXIT_USAGE, "lock contention -C: %s", err_msg());
	if ((tg->pids && sched_ids_parse(tg->pids, &pids) < 0) || (tg->tids && sched_ids_parse(tg->tids, &tids) < 0))
		err_die(EXIT_USAGE, "lock contention: %s", err_msg());
	struct lockcon_opts o = { .follow = !tg->all && !tg->cpus && !tg->tids, .per_thread = c->per_thread,
				  .cpus = cpus.cpu, .ncpus = cpus.n, .tids = tids.v, .ntids = tids.n };
	struct lockcon_prof *p = lockcon_open(&o);
	if (!p)
		err_die(EXIT_RUNTIME, "lock contention -b: %s", err_msg());
	struct target t = TARGET_INIT;
	if (target_start_command(&t, cmd, NULL) < 0)
		err_die_last(EXIT_RUNTIME);
	if (o.follow && lockcon_follow(p, t.pid) < 0)
		err_die_last(EXIT_RUNTIME);
	for (size_t k = 0; o.follow && k < pids.n; k++)
		if (pids.v[k] > 0 && lockcon_follow(p, (pid_t)pids.v[k]) < 0)
			err_die_last(EXIT_RUNTIME);
	lockcon_enable(p, true);
	if (target_go(&t) < 0)
		err_die_last(EXIT_RUNTIME);
	int status = 0, w;
	while ((w = target_wait(&t, -1, &status, NULL)) == 1)
		;
	lockstat_init_stacks(&c->ls, c->kallsyms ? c->kallsyms : kallsyms_path());
	c->ls.max_stack = c->max_stack;
	c->ls.stack_skip = c->stack_skip;
	c->ls.per_thread = c->per_thread;
	uint64_t lost = 0;
	lockcon_read(p, lock_bpf_row, &c->ls, &lost);
	lockcon_close(p);
	target_free(&t);
	cpuset_free(&cpus);
	sched_ids_free(&pids);
	sched_ids_free(&tids);
	if (lost && !c->quiet)
		err_warn("lock contention -b: %llu waits not counted (the BPF maps were full)", (unsigned long long)lost);
	return w < 0 ? EXIT_RUNTIME : status;
}

/* A -k or -F name: contention's five, and report's "acquired" too; exits 2 on another. */
static int lock_key(const char *name, bool report, const char *what)
{
	int k = lockstat_sort_key(name);
	if (k < 0 || (k == LOCK_SORT_ACQUIRED && !report))
		err_die(EXIT_USAGE, "lock %s: unknown %s '%s' (%scontended, wait_total, wait_max, wait_min, "
			"avg_wait)", report ? "report" : "contention", what, name, report ? "acquired, " : "");
	return k;
}

/* -F: the columns, comma-separated, then the sort key's when -F leaves it out (as perf adds
 * it); the number of columns. */
static size_t lock_fields(const char *spec, int sort, bool report, int *fields, size_t max)
{
	size_t n = 0;
	char *copy = xstrdup(spec), *save = NULL;
	bool shown = false;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (n == max - 1)
			err_die(EXIT_USAGE, "lock: -F lists more than %zu fields", max - 1);
		fields[n] = lock_key(t, report, "field");
		shown |= fields[n++] == sort;
	}
	free(copy);
	if (!shown)
		fields[n++] = sort;
	return n;
}

/* Reads the recording into c->ls; the exit status (the error said). */
static int lock_read(struct lock_ctx *c, const char *input, bool force, const char *what)
{
	struct session ss;
	struct session_tool tool = { .sample = lock_on_sample, .ready = lock_ready, .arg = c, .callchains = true };
	struct session_opts so = { .force = force };
	if (session_open(&ss, input, &so, &tool) < 0)
		cmd_open_failed(input);
	int status = session_run(&ss) ? EXIT_RUNTIME : 0;
	if (c->ready_rc < 0) {
		fprintf(stderr, "lperf lock %s: %s: %s\n", what, input, err_msg());
		status = EXIT_RUNTIME;
	} else if (status) {
		c->partial = xstrdup(err_msg());
	}
	if (c->tep)
		tep_free(c->tep);
	c->tep = NULL;
	session_close(&ss);
	return status;
}

static void lock_partial(struct lock_ctx *c)
{
	if (c->partial)
		err_warn("%s: the table above covers only the records before this point", c->partial);
	free(c->partial);
}

static int lock_contention(int argc, char **argv, struct lock_common *lc)
{
	const char *key = "wait_total", *field = NULL;
	int entries = -1;
	struct lock_ctx c = { .max_stack = 8, .stack_skip = 3 };
	bool bpf = false, all = false;
	const char *pid = NULL, *tid = NULL, *cpu = NULL, *map_nr = NULL;
	static const char *const usage[] = { "lperf lock contention [<options>]", NULL };
	const struct option opts[] = {
		{ OPT_STRING, 'i', "input", &lc->input, "file", "input file name", NULL, 0 },
		{ OPT_STRING, 'k', "key", &key, "wait_total", "key for sorting (contended / wait_total / "
		  "wait_max / wait_min / avg_wait)", NULL, 0 },
		{ OPT_STRING, 'F', "field", &field, "contended,wait_total,wait_max,avg_wait", "output fields "
		  "(contended / wait_total / wait_max / wait_min / avg_wait)", NULL, 0 },
		{ OPT_INT, 'E', "entries", &entries, "n", "display this many functions", NULL, 0 },
		{ OPT_BOOL, 't', "threads", &c.per_thread, NULL, "show per-thread lock stats", NULL, 0 },
		{ OPT_BOOL, 'q', "quiet", &lc->quiet, NULL, "do not show any warnings or messages", NULL, 0 },
		{ OPT_BOOL, 'f', "force", &lc->force, NULL, "don't complain, do it", NULL, 0 },
		{ OPT_STRING, 0, "kallsyms", &lc->kallsyms, "file", "kallsyms pathname", NULL, 0 },
		{ OPT_COUNT, 'v', "verbose", &lc->verbose, NULL, "be more verbose", NULL, 0 },
		{ OPT_INT, 0, "max-stack", &c.max_stack, "n", "the maximum stack depth when finding a lock "
		  "caller, default: 8", NULL, 0 },
		{ OPT_INT, 0, "stack-skip", &c.stack_skip, "n", "the number of stack frames to skip when "
		  "finding a lock caller, default: 3", NULL, 0 },
		{ OPT_BOOL, 'b', "use-bpf", &bpf, NULL, "use BPF program to collect lock contention stats "
		  "while a command runs", NULL, 0 },
		{ OPT_BOOL, 'a', "all-cpus", &all, NULL, "system-wide collection from all CPUs (with -b)", NULL, 0 },
		{ OPT_STRING, 'C', "cpu", &cpu, "cpu", "list of cpus to monitor (with -b)", NULL, 0 },
		{ OPT_STRING, 'p', "pid", &pid, "pid", "trace on existing process id (with -b)", NULL, 0 },
		{ OPT_STRING, 0, "tid", &tid, "tid", "trace on existing thread id (with -b)", NULL, 0 },
		{ OPT_STRING, 0, "map-nr-entries", &map_nr, "num", "max number of BPF map entries (with -b)",
		  NULL, 0 },
		OPT_END_(),
	};
	const struct opt_ctx ctx = { "lock contention", usage, opts, true };
	int i = opt_parse(&ctx, argc, argv);
	if (!bpf && (i < argc || all || cpu || pid || tid))
		opt_usage_error(&ctx, "a command, -a, -C, -p and --tid need -b (live collection)");
	int sort = lock_key(key, false, "key");
	if (c.max_stack < 1 || c.stack_skip < 0)
		opt_usage_error(&ctx, "--max-stack must be positive and --stack-skip not negative");
	int fields[8];
	size_t nfields = lock_fields(field ? field : "contended,wait_total,wait_max,avg_wait", sort, false, fields,
				     ARRAY_SIZE(fields));
	c.quiet = lc->quiet;
	c.kallsyms = lc->kallsyms;
	err_quiet = c.quiet;
	const char *input = lc->input;
	if (bpf) {
		const struct lock_targets tg = { all, pid, cpu, tid };
		int rc = lock_contention_bpf(&c, argv + i, &tg);
		lockstat_sort(&c.ls, (enum lock_sort)sort);
		lock_print_contention(stderr, &c.ls, fields, nfields, entries < 0 ? (size_t)-1 : (size_t)entries,
				      c.quiet);
		lockstat_free(&c.ls);
		return rc;
	}

	int status = lock_read(&c, input, lc->force, "contention");
	if (c.ready_rc >= 0) {
		lockstat_sort(&c.ls, (enum lock_sort)sort);
		lock_print_contention(stderr, &c.ls, fields, nfields, entries < 0 ? (size_t)-1 : (size_t)entries,
				      c.quiet);
		lock_partial(&c);
	}
	lockstat_free(&c.ls);
	return status;
}

/* perf lock report from the contention tracepoints: a row per lock (its address; -t per thread,
 * -c per name), named by the caller of its first wait, to standard error. */
static int lock_report(int argc, char **argv, struct lock_common *lc)
{
	const char *key = "acquired", *field = NULL;
	int entries = -1;
	bool combine = false;
	struct lock_ctx c = { .max_stack = 8, .stack_skip = 3, .by_addr = true };
	static const char *const usage[] = { "lperf lock report [<options>]", NULL };
	const struct option opts[] = {
		{ OPT_STRING, 'i', "input", &lc->input, "file", "input file name", NULL, 0 },
		{ OPT_STRING, 'k', "key", &key, "acquired", "key for sorting (acquired / contended / avg_wait / "
		  "wait_total / wait_max / wait_min)", NULL, 0 },
		{ OPT_STRING, 'F', "field", &field, NULL, "output fields (acquired / contended / avg_wait / "
		  "wait_total / wait_max / wait_min)", NULL, 0 },
		{ OPT_BOOL, 'c', "combine-locks", &combine, NULL, "combine locks in the same class", NULL, 0 },
		{ OPT_BOOL, 't', "threads", &c.per_thread, NULL, "show per-thread lock stats", NULL, 0 },
		{ OPT_INT, 'E', "entries", &entries, "n", "display this many functions", NULL, 0 },
		{ OPT_BOOL, 'q', "quiet", &lc->quiet, NULL, "do not show any warnings or messages", NULL, 0 },
		{ OPT_BOOL, 'f', "force", &lc->force, NULL, "don't complain, do it", NULL, 0 },
		{ OPT_STRING, 0, "kallsyms", &lc->kallsyms, "file", "kallsyms pathname", NULL, 0 },
		OPT_END_(),
	};
	const struct opt_ctx ctx = { "lock report", usage, opts, true };
	int i = opt_parse(&ctx, argc, argv);
	if (i < argc)
		opt_usage_error(&ctx, "unexpected argument '%s'", argv[i]);
	int sort = lock_key(key, true, "key");
	int fields[8];
	size_t nfields = lock_fields(field ? field : "acquired,contended,avg_wait,wait_total,wait_max,wait_min", sort,
				     true, fields, ARRAY_SIZE(fields));
	c.quiet = lc->quiet;
	c.kallsyms = lc->kallsyms;
	err_quiet = c.quiet;
	int status = lock_read(&c, lc->input, lc->force, "report");
	if (c.ready_rc >= 0) {
		if (combine && !c.per_thread)
			lockstat_combine(&c.ls);
		lockstat_sort(&c.ls, (enum lock_sort)sort);
		lock_print_report(stderr, &c.ls, fields, nfields, entries < 0 ? (size_t)-1 : (size_t)entries);
		lock_partial(&c);
	}
	lockstat_free(&c.ls);
	return status;
}

/* perf lock info: -t the threads that waited (by id), -m each lock's address and name (by name,
 * then address); -t wins when both are given, as in perf. */
static int lock_info(int argc, char **argv, struct lock_common *lc)
{
	bool threads = false, map = false;
	struct lock_ctx c = { .max_stack = 8, .stack_skip = 3, .by_addr = true };
	static const char *const usage[] = { "lperf lock info [<options>]", NULL };
	const struct option opts[] = {
		{ OPT_STRING, 'i', "input", &lc->input, "file", "input file name", NULL, 0 },
		{ OPT_BOOL, 't', "threads", &threads, NULL, "dump thread list in perf.data", NULL, 0 },
		{ OPT_BOOL, 'm', "map", &map, NULL, "map of lock instances (address:name table)", NULL, 0 },
		{ OPT_BOOL, 'q', "quiet", &lc->quiet, NULL, "do not show any warnings or messages", NULL, 0 },
		{ OPT_BOOL, 'f', "force", &lc->force, NULL, "don't complain, do it", NULL, 0 },
		{ OPT_STRING, 0, "kallsyms", &lc->kallsyms, "file", "kallsyms pathname", NULL, 0 },
		OPT_END_(),
	};
	const struct opt_ctx ctx = { "lock info", usage, opts, true };
	int i = opt_parse(&ctx, argc, argv);
	if (i < argc)
		opt_usage_error(&ctx, "unexpected argument '%s'", argv[i]);
	if (!threads && !map)
		opt_usage_error(&ctx, "give -t (the threads) or -m (the lock instances)");
	c.per_thread = threads;
	c.quiet = lc->quiet;
	c.kallsyms = lc->kallsyms;
	err_quiet = c.quiet;
	int status = lock_read(&c, lc->input, lc->force, "info");
	if (c.ready_rc >= 0) {
		lockstat_sort_info(&c.ls);
		lock_print_info(stderr, &c.ls);
		lock_partial(&c);
	}
	lockstat_free(&c.ls);
	return status;
}

int cmd_lock(int argc, char **argv)
{
	static const char *const usage[] = { "lperf lock record [<options>] [--] <command>",
					     "lperf lock report [<options>]", "lperf lock contention [<options>]",
					     "lperf lock info [<options>]", NULL };
	struct lock_common lc = { .input = "perf.data" };
	const struct option opts[] = {
		{ OPT_STRING, 'i', "input", &lc.input, "file", "input file name", NULL, 0 },
		{ OPT_BOOL, 'q', "quiet", &lc.quiet, NULL, "do not show any warnings or messages", NULL, 0 },
		{ OPT_BOOL, 'f', "force", &lc.force, NULL, "don't complain, do it", NULL, 0 },
		{ OPT_STRING, 0, "kallsyms", &lc.kallsyms, "file", "kallsyms pathname", NULL, 0 },
		{ OPT_COUNT, 'v', "verbose", &lc.verbose, NULL, "be more verbose", NULL, 0 },
		OPT_END_(),
	};
	const struct opt_ctx ctx = { "lock", usage, opts, true };
	int i = opt_parse_subcommand(&ctx, argc, argv);
	const char *sub = argv[i];
	if (opt_abbrev(sub, "record", 3))
		return lock_record(argc - i, argv + i);
	if (!strcmp(sub, "con") || !strcmp(sub, "contention"))
		return lock_contention(argc - i, argv + i, &lc);
	if (opt_abbrev(sub, "report", 3))
		return lock_report(argc - i, argv + i, &lc);
	if (!strcmp(sub, "info"))
		return lock_info(argc - i, argv + i, &lc);
	opt_usage_error(&ctx, "unknown subcommand '%s' (lperf has record, report, contention and info)", sub);
}

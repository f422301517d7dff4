#include "cmd/sample_opts.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "analysis/stacks_load.h"
#include "events/evlist.h"
#include "kernel/perf_event.h"
#include "output/pictures.h"
#include "python/pymethod.h"
#include "python/pyrec.h"
#include "record/regname.h"
#include "spe/spe_capture.h"
#include "util/cpuset.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/notes.h"
#include "util/opt.h"
#include "util/parse.h"
#include "util/xalloc.h"


static int opt_event(const struct option *opt, const char *arg)
{
	struct sample_opts *so = opt->value;
	if (!*arg)
		return err_set("empty event list");
	if (so->events.len)
		sb_addc(&so->events, ',');
	sb_adds(&so->events, arg);
	return 0;
}

static int opt_period(const struct option *opt, const char *arg)
{
	struct sample_opts *so = opt->value;
	if (parse_u64(arg, &so->period) < 0 || !so->period)
		return err_set("'%s' is not a sampling period (a positive number of events)", arg);
	return 0;
}

static int opt_freq(const struct option *opt, const char *arg)
{
	struct sample_opts *so = opt->value;
	so->freq_given = true;
	if (!strcmp(arg, "max")) {
		long v;
		so->freq = file_read_int("/proc/sys/kernel/perf_event_max_sample_rate", &v) == 0 && v > 0
				  ? (uint64_t)v : 4000;
		return 0;
	}
	if (parse_u64(arg, &so->freq) < 0 || !so->freq)
		return err_set("'%s' is not a frequency (samples per second, or 'max')", arg);
	return 0;
}

static int set_callgraph(struct sample_opts *so, const char *arg)
{
	if (!arg || !strcmp(arg, "fp")) {
		so->callchain = LIVE_CG_FP;
		return 0;
	}
	if (!strncmp(arg, "dwarf", 5) && (arg[5] == 0 || arg[5] == ',')) {
		so->callchain = LIVE_CG_DWARF;
		so->stack_size = 8192;
		if (arg[5] == ',') {
			uint64_t sz;
			if (parse_u64(arg + 6, &sz) < 0 || sz == 0 || sz > 65528)
				return err_set("dwarf stack size '%s' must be 8..65528 bytes", arg + 6);
			so->stack_size = (uint32_t)((sz + 7) & ~7ULL);
			if (so->stack_size > 65528)
				so->stack_size = 65528;
		}
		return 0;
	}
	if (!strcmp(arg, "lbr"))
		return err_set("'lbr' call graphs need Intel's Last Branch Record hardware; use fp or dwarf");
	return err_set("unknown call-graph mode '%s' (use fp or dwarf[,SIZE])", arg);
}

static int opt_g(const struct option *opt, const char *arg) { return set_callgraph(opt->value, NULL); }
static int opt_call_graph(const struct option *opt, const char *arg) { return set_callgraph(opt->value, arg); }

static int opt_cpus(const struct option *opt, const char *arg)
{
	struct sample_opts *so = opt->value;
	cpuset_free(&so->cpus);
	so->cpus_given = true;
	return cpuset_parse(arg, &so->cpus);
}

static int opt_clockid(const struct option *opt, const char *arg)
{
	struct sample_opts *so = opt->value;
	static const struct { const char *name; int id; } clocks[] = {
		{ "realtime", CLOCK_REALTIME }, { "mono", CLOCK_MONOTONIC }, { "monotonic", CLOCK_MONOTONIC },
		{ "monotonic_raw", CLOCK_MONOTONIC_RAW }, { "raw", CLOCK_MONOTONIC_RAW },
		{ "boottime", CLOCK_BOOTTIME }, { "tai", CLOCK_TAI },
	};
	const char *name = !strncasecmp(arg, "CLOCK_", 6) ? arg + 6 : arg;
	for (size_t i = 0; i < ARRAY_SIZE(clocks); i++)
		if (!strcasecmp(name, clocks[i].name)) {
			so->clockid = clocks[i].id;
			return 0;
		}
	int v;
	if (parse_int(arg, &v) < 0)
		return err_set("unknown clock '%s' (use mono, realtime, monotonic_raw, boottime, tai or a "
			       "number)", arg);
	so->clockid = v;
	return 0;
}

/* perf's -m: a number of pages (a power of two), or a size with B/K/M/G. */
static int opt_mmap(const struct option *opt, const char *arg)
{
	struct sample_opts *so = opt->value;
	const char *comma = strchr(arg, ',');
	if (comma) { /* perf's -m PAGES,AUXPAGES: the AUX area size (SPE) */
		size_t data = so->mmap_pages;
		if (comma[1] && (opt_mmap(opt, comma + 1) < 0))
			return -1;
		so->aux_pages = comma[1] ? so->mmap_pages : 0;
		so->mmap_pages = data;
		if (comma == arg)
			return 0;
		char *head = strndup(arg, (size_t)(comma - arg));
		int r = head ? opt_mmap(opt, head) : err_set("out of memory");
		free(head);
		return r;
	}
	char *end;
	unsigned long long v = strtoull(arg, &end, 10);
	long page = sysconf(_SC_PAGESIZE);
	if (end == arg)
		return err_set("'%s' is not a number of pages or a size", arg);
	switch (toupper((unsigned char)*end)) {
	case 0: break;
	case 'B': v = v / (unsigned long long)page; break;
	case 'K': v = v * 1024 / (unsigned long long)page; break;
	case 'M': v = v * 1024 * 1024 / (unsigned long long)page; break;
	case 'G': v = v * 1024 * 1024 * 1024 / (unsigned long long)page; break;
	default: return err_set("'%s': unknown unit (use pages, or B, K, M, G)", arg);
	}
	if (v == 0 || (v & (v - 1)) || v > (1ULL << 20))
		return err_set("'%s': the buffer must be a power of two pages (1, 2, 4, ... 1048576)", arg);
	so->mmap_pages = (size_t)v;
	return 0;
}

static int opt_compress(const struct option *opt, const char *arg)
{
	struct sample_opts *so = opt->value;
	int v = 1;
	if (arg && (parse_int(arg, &v) < 0 || v < 0 || v > 22))
		return err_set("'%s' is not a zstd level (1..22, or 0 for none)", arg);
	so->compression_level = v;
	return 0;
}

static int opt_timeout(const struct option *opt, const char *arg)
{
	struct sample_opts *so = opt->value;
	return parse_duration(arg, &so->timeout_s);
}

/* perf's --switch-output[=signal|SIZE|TIME]: SIZE with B/K/M/G, TIME with s/m/h/d. */
static int opt_switch_output(const struct option *opt, const char *arg)
{
	struct sample_opts *so = opt->value;
	if (!arg || !strcmp(arg, "signal")) {
		so->switch_mode = SWITCH_SIGNAL;
		return 0;
	}
	char *end;
	errno = 0;
	unsigned long long v = strtoull(arg, &end, 10);
	if (end == arg || errno || !v || !*end || end[1])
		return err_set("'%s': --switch-output takes signal, a size (10M) or a time (30s)", arg);
	static const struct { char c; uint64_t size; double secs; } units[] = {
		{ 'B', 1, 0 }, { 'K', 1ULL << 10, 0 }, { 'M', 1ULL << 20, 0 }, { 'G', 1ULL << 30, 0 },
		{ 's', 0, 1 }, { 'm', 0, 60 }, { 'h', 0, 3600 }, { 'd', 0, 86400 },
	};
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (units[i].c != *end && !(units[i].size && units[i].c == toupper((unsigned char)*end)))
			continue;
		if (units[i].size) {
			so->switch_mode = SWITCH_SIZE;
			so->switch_size = (uint64_t)v * units[i].size;
		} else {
			so->switch_mode = SWITCH_TIME;
			so->switch_secs = (double)v * units[i].secs;
		}
		return 0;
	}
	return err_set("'%s': --switch-output takes signal, a size (B, K, M, G) or a time (s, m, h, d)", arg);
}

static int opt_delay(const struct option *opt, const char *arg)
{
	struct sample_opts *so = opt->value;
	if (!strcmp(arg, "-1")) {
		so->delay_ms = -1;
		return 0;
	}
	if (parse_int(arg, &so->delay_ms) < 0)
		return err_set("'%s' is not a delay in milliseconds (-1: start with events disabled)", arg);
	return 0;
}

/* --intr-regs=REGS (perf's names, any case), --intr-regs=? lists them, --intr-regs alone takes
 * them all. */
static int opt_intr_regs(const struct option *opt, const char *arg)
{
	struct sample_opts *so = opt->value;
	if (arg && !strcmp(arg, "?")) {
		char *names = regname_list(regname_host());
		printf("available registers: %s\n", names);
		free(names);
		exit(0);
	}
	if (!arg) {
		so->intr_regs = regname_all(regname_host());
		return so->intr_regs ? 0 : err_set("--intr-regs: no register names known on this architecture");
	}
	return regname_parse_mask(regname_host(), arg, &so->intr_regs);
}

/* perf's -j/--branch-filter words; a filter of privilege levels alone means any branch. */
static int opt_branch_filter(const struct option *opt, const char *arg)
{
	static const struct { const char *name; uint64_t bit; } modes[] = {
		{ "u", PERF_SAMPLE_BRANCH_USER }, { "k", PERF_SAMPLE_BRANCH_KERNEL },
		{ "hv", PERF_SAMPLE_BRANCH_HV }, { "any", PERF_SAMPLE_BRANCH_ANY },
		{ "any_call", PERF_SAMPLE_BRANCH_ANY_CALL }, { "any_ret", PERF_SAMPLE_BRANCH_ANY_RETURN },
		{ "ind_call", PERF_SAMPLE_BRANCH_IND_CALL }, { "abort_tx", PERF_SAMPLE_BRANCH_ABORT_TX },
		{ "in_tx", PERF_SAMPLE_BRANCH_IN_TX }, { "no_tx", PERF_SAMPLE_BRANCH_NO_TX },
		{ "cond", PERF_SAMPLE_BRANCH_COND }, { "ind_jmp", PERF_SAMPLE_BRANCH_IND_JUMP },
		{ "call", PERF_SAMPLE_BRANCH_CALL }, { "save_type", PERF_SAMPLE_BRANCH_TYPE_SAVE },
		{ "stack", PERF_SAMPLE_BRANCH_CALL_STACK }, { "priv", PERF_SAMPLE_BRANCH_PRIV_SAVE },
	};
	const uint64_t levels = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV;
	struct sample_opts *so = opt->value;
	uint64_t mask = 0;
	for (const char *p = arg ? arg : "any"; *p;) {
		size_t len = strcspn(p, ",");
		size_t i;
		for (i = 0; i < ARRAY_SIZE(modes); i++)
			if (strlen(modes[i].name) == len && !strncmp(modes[i].name, p, len))
				break;
		if (i == ARRAY_SIZE(modes))
			return err_set("unknown branch filter '%.*s' (use any, any_call, any_ret, ind_call, "
				       "ind_jmp, call, cond, save_type, stack, priv, in_tx, no_tx, abort_tx, "
				       "and u, k, hv)", (int)len, p);
		mask |= modes[i].bit;
		p += len + (p[len] == ',');
	}
	if (!(mask & ~levels & ~(uint64_t)(PERF_SAMPLE_BRANCH_TYPE_SAVE | PERF_SAMPLE_BRANCH_PRIV_SAVE)))
		mask |= PERF_SAMPLE_BRANCH_ANY;
	so->branch_filter |= mask;
	return 0;
}

static int opt_rows(const struct option *opt, const char *arg)
{
	struct sample_opts *so = opt->value;
	int v;
	if (parse_int(arg, &v) < 0 || v < 1)
		return err_set("'%s' is not a number of rows", arg);
	so->display_rows = (size_t)v;
	return 0;
}

/* The combinations sample_parse_options refuses, and the defaults that depend on them. */
static void sample_check_options(const struct opt_ctx *ctxp, struct sample_opts *o, char **command,
				 const char *cmd, bool wp)
{
	const struct opt_ctx ctx = *ctxp;
	int kinds = !!o->pid_list + !!o->tid_list + (command != NULL);
	if (kinds > 1)
		opt_usage_error(&ctx, "give one target: a command, -p or -t");
	if (!kinds && !o->system_wide && !o->cpus_given)
		opt_usage_error(&ctx, "nothing to sample: give a command ('lperf %s -- CMD'), -p PID, -a "
				"or -C CPUS", cmd);
	if (o->system_wide && o->cpus_given)
		opt_usage_error(&ctx, "-a samples every CPU; give either -a or a CPU list");
	if (!o->cpus_given && cpuset_online(&o->cpus) < 0)
		err_die_last(EXIT_RUNTIME);
	if (o->freq && o->period)
		opt_usage_error(&ctx, "give either -F or -c, not both");
	if (o->all_user && o->all_kernel)
		opt_usage_error(&ctx, "give either --all-user or --all-kernel, not both");
	if (o->pprof_dir && (!*o->pprof_dir || !o->output || !strcmp(o->output, "-")))
		opt_usage_error(&ctx, "--pprof-dir needs a directory and a recording file, not -o -");
	if (o->per_thread && (o->system_wide || o->cpus_given))
		opt_usage_error(&ctx, "--per-thread samples tasks; it does not go with -a or -C");
	if (o->per_thread)
		o->no_inherit = true;
	/* The GIL's holder is read with the frames, from the interpreter: --gil, and --wall's marks
	 * on 3.12+ (which would otherwise run with -X perf). */
	if (o->gil || (o->wall && o->python))
		o->python = o->python_frames = true;
	if (o->subprocesses && o->no_inherit)
		opt_usage_error(&ctx, "--subprocesses follows children, --no-inherit does not: give one");
	if (o->python_frames)
		o->python = true;
	if (o->wall && o->events.len)
		opt_usage_error(&ctx, "--wall samples cpu-clock and the time off a CPU; it does not go with -e");
	if (o->wall && o->off_cpu)
		opt_usage_error(&ctx, "--wall records the time off a CPU already; give either --wall or --off-cpu");
	if (o->wall && !o->python && o->callchain == LIVE_CG_NONE) /* a wall-clock profile is of stacks */
		o->callchain = LIVE_CG_FP;
	if (o->python_depth < 0 || o->python_depth > PYREC_DEPTH_MAX)
		opt_usage_error(&ctx, "--python-depth %d: give 1 to %d Python frames", o->python_depth, PYREC_DEPTH_MAX);
	if (o->python_depth && !o->python)
		opt_usage_error(&ctx, "--python-depth goes with --python or --python-frames");
	/* --python records DWARF stacks: CPython's documentation samples at about 1 kHz. */
	if (!o->freq && !o->period)
		o->freq = o->python ? 999 : 4000;
	if (o->nolineno && (!o->python || (!o->flamegraph && !o->pprof_dir)))
		opt_usage_error(&ctx, "--nolineno goes with --python and %s", wp ? "--flamegraph (the "
				"picture's Python labels)" : "--flamegraph or --pprof-dir (the pictures' Python "
				"labels; the recording keeps the lines: 'lperf report --python --nolineno')");
	if (o->python && !command && !o->pid_list && !o->tid_list)
		opt_usage_error(&ctx, "--python needs the Python: give the command ('lperf %s --python -- "
				"python3 script.py') or -p PID", cmd);
	/* A running interpreter cannot be given -X perf: its frames are read. */
	if (o->python && !command) {
		o->python_frames = true;
		if (o->callchain == LIVE_CG_NONE) {
			o->callchain = LIVE_CG_DWARF;
			o->stack_size = 16384;
		}
	}
	/* Python's DWARF stack copies are large and compress well: --python records compressed
	 * unless -z says otherwise (-z 0: plain records). Not on a pipe. */
	if (o->compression_level < 0)
		o->compression_level = o->python && o->output && strcmp(o->output, "-") ? 1 : 0;
}

static void sample_opts_defaults(struct sample_opts *o, int style)
{
	memset(o, 0, sizeof(*o));
	o->compression_level = -1;
	o->style = style;
	o->output = "perf.data";
	o->clockid = CLOCK_MONOTONIC;
	o->display_rows = 50;
}

/* perf record's options that add fields to each sample (-d, -W, ...), for the perf table. */
static size_t field_opts(struct sample_opts *o, struct option *v)
{
	const struct option t[] = {
		{ OPT_BOOL, 'd', "data", &o->data, NULL, "the data address of each sample, and its data "
		  "source (memory-sampling events fill them; others give 0)" },
		{ OPT_BOOL, 'W', "weight", &o->weight, NULL, "each sample's weight (a memory event's latency)" },
		{ OPT_BOOL, 0, "phys-data", &o->phys_data, NULL, "the physical data address of each sample" },
		{ OPT_BOOL, 0, "data-page-size", &o->data_page_size, NULL, "the page size of each sample's "
		  "data address" },
		{ OPT_BOOL, 0, "code-page-size", &o->code_page_size, NULL, "the page size of each sample's "
		  "code address" },
		{ OPT_BOOL, 'R', "raw-samples", &o->raw_samples, NULL, "each sample's raw data (a "
		  "tracepoint's fields are recorded anyway)" },
		{ OPT_BOOL, 'T', "timestamp", &o->accepted, NULL, "accepted: lperf records each sample's "
		  "time anyway" },
		{ OPT_BOOL, 'P', "period", &o->accepted, NULL, "accepted: lperf records each sample's "
		  "period anyway" },
		{ OPT_BOOL, 0, "sample-cpu", &o->accepted, NULL, "accepted: lperf records each sample's "
		  "CPU anyway" },
	};
	memcpy(v, t, sizeof(t));
	return sizeof(t) / sizeof(t[0]);
}

/* base (n options, the last OPT_END_) with field_opts before its end, into out. */
static void with_fields(struct sample_opts *o, const struct option *base, size_t n, struct option *out)
{
	memcpy(out, base, (n - 1) * sizeof(*base));
	out[n - 1 + field_opts(o, out + n - 1)] = base[n - 1];
}

/* Parses argv with the table opts, then checks the combinations. */
static char **parse_table(struct sample_opts *o, int argc, char **argv, const char *cmd,
			  const char *const *usage, const struct option *opts, bool wp)
{
	struct opt_ctx ctx = { cmd, usage, opts, true };
	int i = opt_parse(&ctx, argc, argv);
	char **command = i < argc ? argv + i : NULL;
	sample_check_options(&ctx, o, command, cmd, wp);
	return command;
}

/* lperf sample's and wperf's table (WindowsPerf's spellings); a copy that outlives the call, for
 * the parse (o is the one set of options of this process). */
static const struct option *wperf_table(struct sample_opts *o)
{
	static struct option *t;
	const struct option wperf_opts[] = {
		{ OPT_CALLBACK, 'e', "event", o, "EVENTS", "events to sample, NAME:PERIOD (e.g. "
		  "ld_spec:100000)", opt_event },
		{ OPT_CALLBACK, 'C', "cpu", o, "CPUS", "cores to sample", opt_cpus },
		{ OPT_CALLBACK, 'c', "count", o, "PERIOD", "one sample every PERIOD events (as perf's -c; "
		  "WindowsPerf's core list -c is 'wperf sample -c')", opt_period },
		{ OPT_CALLBACK, 'F', "freq", o, "HZ", "samples per second for events without a period "
		  "(default 4000)", opt_freq },
		{ OPT_CALLBACK, 'g', NULL, o, NULL, "record call chains (frame pointers)", opt_g, OPT_NOARG },
		{ OPT_CALLBACK, 0, "call-graph", o, "MODE", "fp, or dwarf[,SIZE]", opt_call_graph },
		{ OPT_STRING, 'p', "pid", &o->pid_list, "PID", "an existing process" },
		{ OPT_BOOL, 'a', "all-cpus", &o->system_wide, NULL, "every CPU" },
		{ OPT_CALLBACK, 0, "timeout", o, "DUR", "stop after DUR", opt_timeout },
		{ OPT_BOOL, 0, "json", &o->json, NULL, "JSON (docs/schemas/report.schema.json)" },
		{ OPT_BOOL, 0, "wall", &o->wall, NULL, "wall-clock profile: cpu-clock samples and the time "
		  "off a CPU in one profile" },
		{ OPT_BOOL, 0, "idle", &o->wall, NULL, "py-spy's spelling of --wall: waiting threads too" },
		SAMPLE_PYSPY_OPTS(o),
		{ OPT_STRING, 0, "flamegraph", &o->flamegraph, "FILE", "also draw an SVG flame graph" },
		SAMPLE_NOLINENO_OPT(o),
		{ OPT_BOOL, 0, "python", &o->python, NULL, "Python stacks (CPython 2.7, 3.6+, also -p)" },
		{ OPT_BOOL, 0, "python-frames", &o->python_frames, NULL, "Python frames read from the "
		  "interpreter even where -X perf works" },
		{ OPT_BOOL, 'f', "force", &o->force, NULL, "use JIT symbol files whoever owns them" },
		{ OPT_CALLBACK, 0, "sample-display-row", o, "N", "rows per table (default 50)", opt_rows },
		{ OPT_BOOL, 0, "sample-display-long", &o->display_long, NULL, "full symbol names" },
		{ OPT_BOOL, 0, "annotate", &o->annotate, NULL, "per hot function: samples per source line" },
		{ OPT_BOOL, 0, "disassemble", &o->disassemble, NULL, "--annotate with each hot line's "
		  "instructions" },
		{ OPT_STRING, 's', "symbol", &o->symbols, "PATTERN", "only symbols matching: exact, "
		  "'^prefix', 'suffix$'" },
		{ OPT_CALLBACK, 'm', "mmap-pages", o, "PAGES", "ring buffer size per CPU", opt_mmap },
		{ OPT_BOOL, 'q', "quiet", &o->quiet, NULL, "no progress" },
		{ OPT_COUNT, 'v', "verbose", &o->verbose, NULL, "more detail" },
		OPT_END_(),
	};
	free(t);
	t = xmalloc(sizeof(wperf_opts));
	memcpy(t, wperf_opts, sizeof(wperf_opts));
	return t;
}

char **sample_parse_options(struct sample_opts *o, int argc, char **argv, const char *cmd,
			    const char *const *usage, int style)
{
	sample_opts_defaults(o, style);
	bool wp = style == SAMPLE_OPTS_WPERF;
	const struct option perf_opts[] = {
		{ OPT_CALLBACK, 'e', "event", o, "EVENTS", "events to sample (NAME:PERIOD sets a period)", opt_event },
		{ OPT_CALLBACK, 'c', "count", o, "PERIOD", "one sample every PERIOD events", opt_period },
		{ OPT_CALLBACK, 'F', "freq", o, "HZ", "samples per second (default 4000; 'max')", opt_freq },
		{ OPT_CALLBACK, 'g', NULL, o, NULL, "record call chains (frame pointers)", opt_g, OPT_NOARG },
		{ OPT_CALLBACK, 0, "call-graph", o, "MODE", "fp, or dwarf[,SIZE] (user stack copies for "
		  "unwinding)", opt_call_graph },
		{ OPT_STRING, 'p', "pid", &o->pid_list, "PID", "existing process(es)" },
		{ OPT_STRING, 't', "tid", &o->tid_list, "TID", "existing thread(s)" },
		{ OPT_BOOL, 'a', "all-cpus", &o->system_wide, NULL, "every CPU (system-wide)" },
		{ OPT_CALLBACK, 'C', "cpu", o, "CPUS", "only these CPUs", opt_cpus },
		{ OPT_STRING, 'o', "output", &o->output, "FILE", "the recording (default perf.data; an "
		  "existing one is kept as FILE.old)" },
		{ OPT_CALLBACK, 'k', "clockid", o, "CLOCK", "sample timestamps' clock (default mono)", opt_clockid },
		{ OPT_CALLBACK, 'm', "mmap-pages", o, "PAGES[,AUX]", "ring buffer size per CPU, pages or "
		  "with K/M; ,AUX sizes the AUX area (SPE)", opt_mmap },
		{ OPT_CALLBACK, 0, "timeout", o, "DUR", "stop after DUR (2.5s, 100ms, 1m)", opt_timeout },
		{ OPT_BOOL, 0, "no-inherit", &o->no_inherit, NULL, "do not follow children and threads" },
		{ OPT_STRING, 0, "flamegraph", &o->flamegraph, "FILE", "also draw an SVG flame graph of the recording" },
		SAMPLE_NOLINENO_OPT(o),
		{ OPT_CALLBACK, 'z', "compression-level", o, "N", "zstd-compressed records (level 1..22, "
		  "default 1; 0: none), as perf record -z; on by default with --python", opt_compress, OPT_NUMERIC_OPT },
		{ OPT_BOOL, 0, "python", &o->python, NULL, "Python stacks: frames read from the interpreter at "
		  "each sample (CPython 2.7, 3.6+, also -p); else CPython 3.12+'s -X perf" },
		{ OPT_BOOL, 0, "python-frames", &o->python_frames, NULL, "Python stacks read from the "
		  "interpreter (BPF), with no -X perf, on any CPython 2.7, 3.6-3.13" },
		{ OPT_INT, 0, "python-depth", &o->python_depth, "N", "Python frames kept per stack read "
		  "from the interpreter, the innermost (1..1024, default 1024); deeper stacks say [truncated]" },
		{ OPT_BOOL, 'f', "force", &o->force, NULL, "store JIT symbol files (/tmp/perf-PID.map, "
		  "jitdumps) even when another user owns them" },
		{ OPT_BOOL, 'B', "no-buildid", &o->no_buildid, NULL, "no build-ids in the recording (and none "
		  "cached)" },
		{ OPT_BOOL, 'N', "no-buildid-cache", &o->no_buildid_cache, NULL, "do not copy the DSOs hit "
		  "into the build-id cache (~/.debug)" },
		{ OPT_BOOL, 0, "buildid-all", &o->buildid_all, NULL, "build-ids (and cache copies) of every "
		  "DSO mapped, not only those hit" },
		{ OPT_BOOL, 'q', "quiet", &o->quiet, NULL, "no progress or notes" },
		{ OPT_COUNT, 'v', "verbose", &o->verbose, NULL, "more detail" },
		{ OPT_BOOL, 0, "dry-run", &o->dry_run, NULL, "show each event's perf_event_attr (SPE "
		  "filters encoded) and open nothing" },
		{ OPT_BOOL, 0, "per-thread", &o->per_thread, NULL, "per-thread buffers: the command's "
		  "first thread only (no inherit)" },
		{ OPT_BOOL, 0, "user-callchains", &o->user_callchains, NULL, "call chains without their "
		  "kernel part" },
		{ OPT_BOOL, 0, "all-user", &o->all_user, NULL, "every event in user mode only" },
		{ OPT_BOOL, 0, "all-kernel", &o->all_kernel, NULL, "every event in kernel mode only" },
		{ OPT_CALLBACK, 'D', "delay", o, "MS", "enable the events MS milliseconds after the "
		  "command starts (-1: never)", opt_delay },
		{ OPT_CALLBACK, 0, "intr-regs", o, "REGS", "sample these registers at the interrupt "
		  "(perf's names; ? lists them)", opt_intr_regs, OPT_EQ_OPT },
		{ OPT_CALLBACK, 'b', "branch-any", o, NULL, "sample the branch stack (any branch; "
		  "needs a PMU that records branches)", opt_branch_filter, OPT_NOARG },
		{ OPT_CALLBACK, 'j', "branch-filter", o, "FILTER", "sample the branch stack of these "
		  "branches: any, any_call, any_ret, ind_call, call, cond, save_type, ... and u, k",
		  opt_branch_filter },
		{ OPT_BOOL, 0, "no-bpf-event", &o->no_bpf_event, NULL, "record no BPF_EVENT records (BPF programs' KSYMBOLs are kept)" },
		{ OPT_CALLBACK, 0, "switch-output", o, "signal|SIZE|TIME", "rotate the recording into "
		  "OUTPUT.<timestamp> files on SIGUSR2, past SIZE (10M) or every TIME (30s)", opt_switch_output,
		  OPT_EQ_OPT },
		{ OPT_INT, 0, "switch-max-files", &o->switch_max_files, "N", "with --switch-output, keep only the "
		  "last N files" },
		{ OPT_STRING, 0, "pprof-dir", &o->pprof_dir, "DIR", "also a labelled pprof (service, host, pid, "
		  "event) of each --switch-output period (or of the run) in DIR, for Pyroscope and Parca" },
		{ OPT_STRING, 0, "service", &o->service, "NAME", "--pprof-dir's service label (default: the "
		  "command's name; lperf daemon gives its sessions their name)" },
		{ OPT_BOOL, 0, "overwrite", &o->overwrite, NULL, "flight recorder: keep only the newest records "
		  "(as much as the ring buffers hold), written on SIGUSR2 with --switch-output and at the end" },
		{ OPT_STRING, 0, "control", &o->control, "fifo:CTL[,ACK]", "commands from the FIFO CTL (enable, "
		  "disable, snapshot, ping, stop), acknowledged on ACK" },
		{ OPT_BOOL, 0, "off-cpu", &o->off_cpu, NULL, "also the time threads spend blocked, per "
		  "stack, as offcpu-time samples (BPF; without it a warning)" },
		{ OPT_BOOL, 0, "wall", &o->wall, NULL, "wall-clock profile: cpu-clock samples and the time "
		  "off a CPU in one profile (as py-spy --idle)" },
		{ OPT_BOOL, 0, "idle", &o->wall, NULL, "py-spy's spelling of --wall: waiting threads too" },
		SAMPLE_PYSPY_OPTS(o),
		OPT_END_(),
	};
	struct option perf_all[ARRAY_SIZE(perf_opts) + 16];
	with_fields(o, perf_opts, ARRAY_SIZE(perf_opts), perf_all);
	return parse_table(o, argc, argv, cmd, usage, wp ? wperf_table(o) : perf_all, wp);
}

int sample_build_events(struct sample_opts *o, struct evlist *l)
{
	if (!o->events.len && o->wall) {
		sb_adds(&o->events, "cpu-clock"); /* its period is nanoseconds, as off-CPU time's */
	} else if (!o->events.len) {
		if (ev_have_hw_pmu()) {
			sb_adds(&o->events, "cycles");
		} else {
			sb_adds(&o->events, "cpu-clock");
			err_note("no hardware PMU (virtual machine?): sampling cpu-clock instead of cycles");
		}
	}
	if (evlist_parse(l, sb_str(&o->events)) < 0)
		return -1;
	for (size_t e = 0; e < l->n; e++)
		if (l->ev[e].source == EV_SRC_TOOL)
			return err_set("'%s' cannot be sampled: it is measured by lperf, not the kernel",
				       l->ev[e].name);
	if (!pe_kernel_allowed())
		evlist_set_default_excludes(l, true);
	/* --all-user / --all-kernel: every event in that mode, named as given (as perf does). */
	for (size_t e = 0; e < l->n && (o->all_user || o->all_kernel); e++) {
		l->ev[e].attr.exclude_kernel = o->all_user;
		l->ev[e].attr.exclude_user = o->all_kernel;
		l->ev[e].user_mods = true;
	}
	return 0;
}

void sample_flamegraph(const struct sample_opts *o, const char *path)
{
	struct stacks st;
	stacks_init(&st);
	st.python = o->python;
	st.python_nolineno = o->nolineno;
	struct session_opts so = { .force = o->force };
	struct pictures_req r = { .svg = o->flamegraph };
	struct notes said = NOTES_INIT;
	if (stacks_load(&st, path, &so, NULL, &said) < 0 || pictures_write(&r, &st, &said) < 0)
		notes_add(&said, "--flamegraph: %s", err_msg());
	err_print_notes(&said);
	notes_clear(&said);
	stacks_free(&st);
}

static void print_notes(void *arg, const struct notes *ns)
{
	err_print_notes(ns);
}

void sample_record(struct sample_opts *o, struct evlist *l, char **cmd, int argc, char **argv,
		   struct recording_opts *ro, struct recording *rec, struct recording_result *res)
{
	if (cmd && sample_python_setup(o, cmd) < 0)
		err_die_last(EXIT_USAGE);
	struct recording_opts hooks = *ro;
	*ro = (struct recording_opts){
		.sw = { o->output, o->switch_mode, o->switch_size, o->switch_secs, o->switch_max_files, o->control },
		.compression_level = o->compression_level,
		.force = o->force,
		.quiet = o->quiet,
		.buildids = o->no_buildid ? RECORDER_BUILDIDS_NONE
			  : o->buildid_all ? RECORDER_BUILDIDS_ALL : RECORDER_BUILDIDS_HIT,
		.buildid_cache = !o->no_buildid && !o->no_buildid_cache,
		.overwrite = o->overwrite,
		.python_frames = o->python_frames,
		.wall = o->wall,
		.python_gil = o->gil,
		.python_depth = (unsigned)o->python_depth,
		.python_nonblocking = o->nonblocking,
		.python_rate_given = o->freq_given || o->period,
		.timeout_s = o->timeout_s,
		.argc = argc,
		.argv = argv,
		.auxtrace_info = spe_capture_info,
		.say = print_notes,
		.events = hooks.events,
		.tick = hooks.tick,
		.switched = hooks.switched,
		.starting = hooks.starting,
		.ending = hooks.ending,
		.arg = hooks.arg,
	};
	struct live_opts lo;
	sample_live_opts(o, &lo);
	struct live_run_target tg = { cmd, o->pid_list, o->tid_list, NULL, o->system_wide || o->cpus_given,
				     !strcmp(o->output, "-") /* as perf: the pipe carries the recording */ };
	enum recording_end end = recording_record(rec, l, &tg, &lo, ro, res);
	if (end != RECORDING_DONE)
		err_die_last(end == RECORDING_BAD_REQUEST ? EXIT_USAGE : EXIT_RUNTIME);
	free(res->why);
	res->why = NULL;
}

/* The PERF_SAMPLE_* bits of -d, -W, --phys-data, ... as perf 6.1 sets them (x86 weighs with
 * WEIGHT_STRUCT: the latency and, beside it, the instruction latency; others with WEIGHT). */
static uint64_t sample_type_extra(const struct sample_opts *o)
{
	uint64_t t = 0;
	if (o->data)
		t |= PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC;
	if (o->weight)
#if defined(__x86_64__) || defined(__i386__)
		t |= PERF_SAMPLE_WEIGHT_STRUCT;
#else
		t |= PERF_SAMPLE_WEIGHT;
#endif
	if (o->phys_data)
		t |= PERF_SAMPLE_PHYS_ADDR;
	if (o->data_page_size)
		t |= PERF_SAMPLE_DATA_PAGE_SIZE;
	if (o->code_page_size)
		t |= PERF_SAMPLE_CODE_PAGE_SIZE;
	if (o->raw_samples)
		t |= PERF_SAMPLE_RAW;
	return t;
}

void sample_live_opts(const struct sample_opts *o, struct live_opts *lo)
{
	memset(lo, 0, sizeof(*lo));
	lo->cpus = o->cpus.cpu;
	lo->ncpus = o->cpus.n;
	lo->inherit = !o->no_inherit;
	lo->mmap_pages = live_mmap_pages(o->mmap_pages, o->callchain);
	lo->use_clockid = true;
	lo->clockid = o->clockid;
	lo->freq = o->period ? 0 : o->freq;
	lo->period = o->period;
	lo->callchain = o->callchain;
	lo->stack_size = o->stack_size;
	lo->exclude_kernel = !pe_kernel_allowed();
	lo->aux_pages = o->aux_pages;
	if (o->per_thread) {
		lo->cpus = NULL;
		lo->ncpus = 0;
	}
	lo->exclude_callchain_kernel = o->user_callchains;
	lo->sample_regs_intr = o->intr_regs;
	lo->branch_sample_type = o->branch_filter;
	lo->sample_type_extra = sample_type_extra(o);
	lo->mmap_data = o->data;
	lo->no_bpf_event = o->no_bpf_event;
	lo->delay_ms = o->delay_ms;
}

/* Whether o's recording, without BPF, pauses the Python threads at each sample (python/pyrec.h's
 * pyrec_pause): one cpu-clock or task-clock event (the default where no hardware PMU exists) with
 * DWARF unwinding (--python's) and no sample field a paused thread cannot give, not --nonblocking. */
static bool python_pausable(const struct sample_opts *o)
{
	if (o->nonblocking || o->wall || o->off_cpu || o->callchain == LIVE_CG_FP || o->branch_filter ||
	    o->intr_regs || o->data || o->weight || o->phys_data || o->data_page_size || o->code_page_size ||
	    o->raw_samples)
		return false;
	const char *e = sb_str(&o->events);
	if (!*e)
		return !ev_have_hw_pmu();
	size_t n = strcspn(e, ":,/");
	return (e[n] == '\0' || e[n] == ':') && !strchr(e, ',') &&
	       ((n == 9 && !strncmp(e, "cpu-clock", n)) || (n == 10 && !strncmp(e, "task-clock", n)));
}

int sample_python_setup(struct sample_opts *o, char **cmd)
{
	if (!o->python)
		return 0;
	static const enum pymethod_unwind to_py[] = { [LIVE_CG_NONE] = PYMETHOD_UNWIND_NONE,
		[LIVE_CG_FP] = PYMETHOD_UNWIND_FP, [LIVE_CG_DWARF] = PYMETHOD_UNWIND_DWARF };
	static const enum live_callchain to_live[] = { [PYMETHOD_UNWIND_NONE] = LIVE_CG_NONE,
		[PYMETHOD_UNWIND_FP] = LIVE_CG_FP, [PYMETHOD_UNWIND_DWARF] = LIVE_CG_DWARF };
	struct pymethod_setup s = { o->python_frames, to_py[o->callchain], o->stack_size, python_pausable(o),
				    pymethod_asks_own(cmd) };
	struct notes said = NOTES_INIT;
	int rc = pymethod_setup(cmd[0], &s, &said);
	err_print_notes(&said);
	notes_clear(&said);
	if (rc < 0)
		return -1;
	o->python_frames = s.frames;
	o->callchain = to_live[s.unwind];
	o->stack_size = s.stack_size;
	return 0;
}

void sample_opts_free(struct sample_opts *o)
{
	sb_release(&o->events);
	cpuset_free(&o->cpus);
}

/* The option callbacks lperf top shares (cmd/top.c builds its own table). */
int sample_opt_event(const struct option *opt, const char *arg) { return opt_event(opt, arg); }
int sample_opt_freq(const struct option *opt, const char *arg) { return opt_freq(opt, arg); }
int sample_opt_g(const struct option *opt, const char *arg) { return opt_g(opt, arg); }
int sample_opt_call_graph(const struct option *opt, const char *arg) { return opt_call_graph(opt, arg); }
int sample_opt_cpus(const struct option *opt, const char *arg) { return opt_cpus(opt, arg); }
int sample_opt_timeout(const struct option *opt, const char *arg) { return opt_timeout(opt, arg); }

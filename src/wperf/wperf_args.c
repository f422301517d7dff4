/* WindowsPerf's command-line grammar (after wperf/user_request.cpp parse_raw_args): options
 * with one or two dashes (`-pe_file` and `--pe_file`; '-' and '_' inside a name are the same),
 * `sleep N` for --timeout, `--` before a command, and unknown words warned about and skipped. */
#include "wperf/wperf.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/error.h"
#include "util/notes.h"
#include "util/parse.h"
#include "util/xalloc.h"
#include "wperf/wperf_extra.h"

enum { A_NONE, A_ARG };

enum wopt {
	W_EVENTS, W_METRICS, W_CORES, W_KERNEL, W_METRIC_FILE, W_EXTRA, W_TIMEOUT, W_TIMELINE,
	W_INTERVAL, W_COUNT, W_OUTPUT, W_OUTPUT_CSV, W_PREFIX, W_QUIET, W_VERBOSE, W_JSON,
	W_FORCE_LOCK, W_PE_FILE, W_IMAGE, W_PDB, W_SPAWN_DELAY, W_EXPORT, W_ANNOTATE, W_DISASM,
	W_ROWS, W_LONG, W_SYMBOL, W_CONFIG, W_DMC, W_DRY_RUN, W_HELP, W_VERSION, W_LIST,
};

static const struct {
	const char *name; /* without dashes, '_' for '-' */
	enum wopt id;
	int arg;
} wopts[] = {
	{ "e", W_EVENTS, A_ARG }, { "m", W_METRICS, A_ARG }, { "c", W_CORES, A_ARG },
	{ "cpu", W_CORES, A_ARG }, { "k", W_KERNEL, A_NONE }, { "C", W_METRIC_FILE, A_ARG },
	{ "E", W_EXTRA, A_ARG }, { "timeout", W_TIMEOUT, A_ARG }, { "t", W_TIMELINE, A_NONE },
	{ "i", W_INTERVAL, A_ARG }, { "n", W_COUNT, A_ARG }, { "o", W_OUTPUT, A_ARG },
	{ "output", W_OUTPUT, A_ARG }, { "output_csv", W_OUTPUT_CSV, A_ARG },
	{ "output_prefix", W_PREFIX, A_ARG }, { "cwd", W_PREFIX, A_ARG }, { "q", W_QUIET, A_NONE },
	{ "v", W_VERBOSE, A_NONE }, { "verbose", W_VERBOSE, A_NONE }, { "json", W_JSON, A_NONE },
	{ "force_lock", W_FORCE_LOCK, A_NONE }, { "pe_file", W_PE_FILE, A_ARG },
	{ "image_name", W_IMAGE, A_ARG }, { "pdb_file", W_PDB, A_ARG },
	{ "record_spawn_delay", W_SPAWN_DELAY, A_ARG }, { "export_perf_data", W_EXPORT, A_ARG },
	{ "annotate", W_ANNOTATE, A_NONE }, { "disassemble", W_DISASM, A_NONE },
	{ "sample_display_row", W_ROWS, A_ARG }, { "sample_display_long", W_LONG, A_NONE },
	{ "symbol", W_SYMBOL, A_ARG }, { "s", W_SYMBOL, A_ARG }, { "config", W_CONFIG, A_ARG },
	{ "dmc", W_DMC, A_ARG }, { "dry_run", W_DRY_RUN, A_NONE }, { "h", W_HELP, A_NONE },
	{ "help", W_HELP, A_NONE }, { "version", W_VERSION, A_NONE }, { "l", W_LIST, A_NONE },
};

static const char *const commands[] = { "stat", "sample", "record", "list", "test", "detect",
					"man", "help" };

int wperf_parse_duration(const char *s, double *seconds)
{
	const char *p = s;
	double v = 0;
	if (*p == '0') {
		p++;
	} else if (*p >= '1' && *p <= '9') {
		while (isdigit((unsigned char)*p) && p - s < 12)
			v = v * 10 + (*p++ - '0');
	} else {
		goto bad;
	}
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			goto bad;
		v += (*p++ - '0') / 10.0;
		if (isdigit((unsigned char)*p))
			v += (*p++ - '0') / 100.0;
	}
	double unit = 1;
	if (!strcmp(p, "ms"))
		unit = 0.001;
	else if (!strcmp(p, "s") || !*p)
		unit = 1;
	else if (!strcmp(p, "m"))
		unit = 60;
	else if (!strcmp(p, "h"))
		unit = 3600;
	else if (!strcmp(p, "d"))
		unit = 86400;
	else
		goto bad;
	*seconds = v * unit;
	return 0;
bad:
	return err_set("incorrect format for time argument '%s': use a number of up to 2 decimals "
		       "and an optional unit ms, s, m, h or d (e.g. 2.5s, 100ms, 1m)", s);
}

/* A duration of the option named as wperf names it in its message. */
static int duration_arg(const char *v, double *seconds, const char *name)
{
	if (wperf_parse_duration(v, seconds) == 0)
		return 0;
	return err_set("input: \"%s\" to argument '%s' is invalid", v, name);
}

/* "--pe-file" and "-pe_file" both give "pe_file"; NULL when arg is no option. */
static const char *opt_key(const char *arg, char *buf, size_t size)
{
	if (arg[0] != '-' || !arg[1] || !strcmp(arg, "--"))
		return NULL;
	const char *p = arg + (arg[1] == '-' ? 2 : 1);
	size_t n = strlen(p);
	if (n >= size)
		return NULL;
	for (size_t i = 0; i <= n; i++)
		buf[i] = p[i] == '-' ? '_' : p[i];
	return buf;
}

static int find_opt(const char *key)
{
	for (size_t i = 0; i < ARRAY_SIZE(wopts); i++)
		if (!strcmp(wopts[i].name, key))
			return (int)i;
	return -1;
}

static void join(struct strbuf *sb, const char *s)
{
	if (sb->len)
		sb_addc(sb, ',');
	sb_adds(sb, s);
}

static bool sampling(const struct wperf_args *a)
{
	return a->cmd && (!strcmp(a->cmd, "sample") || !strcmp(a->cmd, "record"));
}

static int set_value(struct wperf_args *a, enum wopt id, const char *v, const char *opt)
{
	int n;
	switch (id) {
	case W_EVENTS:
		join(&a->events, v);
		if (wperf_check_events(a, sb_str(&a->events), sampling(a) ? wperf_counters() : 0) < 0)
			return -1;
		break;
	case W_METRICS: join(&a->metrics, v); break;
	case W_CORES: a->cores = v; break;
	case W_METRIC_FILE: a->metric_file = v; break;
	case W_EXTRA: a->extra_events = v; break;
	case W_TIMEOUT:
		if (duration_arg(v, &a->timeout_s, "--timeout") < 0)
			return -1;
		break;
	case W_INTERVAL:
		if (duration_arg(v, &a->interval_s, "-i") < 0)
			return -1;
		break;
	case W_COUNT:
		if (parse_int(v, &n) < 0 || n < 0)
			return err_set("%s: '%s' is not a number of counts", opt, v);
		a->count = n;
		break;
	case W_OUTPUT: a->output = v; break;
	case W_OUTPUT_CSV: a->output_csv = v; break;
	case W_PREFIX: a->output_prefix = v; break;
	case W_PE_FILE: a->pe_file = v; break;
	case W_IMAGE: a->image_name = v; break;
	case W_PDB: a->pdb_file = v; break;
	case W_SPAWN_DELAY:
		if (parse_int(v, &n) < 0 || n < 0)
			return err_set("%s: '%s' is not a number of milliseconds", opt, v);
		a->spawn_delay_s = n / 1000.0;
		break;
	case W_EXPORT: a->export_perf_data = v; break;
	case W_ROWS:
		if (parse_int(v, &n) < 0 || n < 1)
			return err_set("%s: '%s' is not a number of rows", opt, v);
		a->display_rows = n;
		break;
	case W_SYMBOL: a->symbol = v; break;
	case W_CONFIG: a->config = v; break;
	case W_DMC: a->dmc = v; break;
	default: break;
	}
	return 0;
}

static void set_flag(struct wperf_args *a, enum wopt id)
{
	switch (id) {
	case W_KERNEL: a->kernel = true; break;
	case W_TIMELINE: a->timeline = true; break;
	case W_QUIET: a->quiet = true; break;
	case W_VERBOSE: a->verbose++; break;
	case W_JSON: a->json = true; break;
	case W_FORCE_LOCK: a->force_lock = true; break;
	case W_ANNOTATE: a->annotate = true; break;
	case W_DISASM: a->disassemble = a->annotate = true; break;
	case W_LONG: a->display_long = true; break;
	case W_DRY_RUN: a->dry_run = true; break;
	case W_HELP: a->help = true; break;
	case W_VERSION: if (!a->cmd) a->cmd = "version"; break;
	case W_LIST: if (!a->cmd) a->cmd = "list"; break;
	default: break;
	}
}

static bool is_command(const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i], s))
			return true;
	return false;
}

int wperf_parse_args(struct wperf_args *a, int argc, char **argv)
{
	memset(a, 0, sizeof(*a));
	a->timeout_s = a->interval_s = a->spawn_delay_s = -1;
	a->count = -1;
	a->argc = argc;
	a->argv = argv;
	char key[64];
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (!strcmp(arg, "--")) {
			if (i + 1 < argc)
				a->command = argv + i + 1;
			break;
		}
		const char *k = opt_key(arg, key, sizeof(key));
		int o = k ? find_opt(k) : -1;
		if (o < 0 && k) {
			/* "--timeout=5", "-e=ld_spec" */
			char *eq = strchr(key, '=');
			if (eq) {
				*eq = 0;
				o = find_opt(key);
				if (o >= 0 && wopts[o].arg == A_ARG) {
					if (set_value(a, wopts[o].id, strchr(arg, '=') + 1, arg) < 0)
						return -1;
					continue;
				}
			}
		}
		if (o >= 0) {
			if (wopts[o].arg == A_NONE) {
				set_flag(a, wopts[o].id);
				continue;
			}
			if (i + 1 >= argc)
				return err_set("option '%s' needs an argument", arg);
			if (set_value(a, wopts[o].id, argv[++i], arg) < 0)
				return -1;
			continue;
		}
		if (!k && !a->cmd && is_command(arg)) {
			a->cmd = arg;
			continue;
		}
		if (!k && !strcmp(arg, "sleep") && i + 1 < argc) {
			if (duration_arg(argv[++i], &a->timeout_s, "--timeout") < 0)
				return -1;
			continue;
		}
		if (!k && a->cmd && !strcmp(a->cmd, "man") && !a->man_name) {
			/* wperf keeps the first of a comma-separated list. */
			a->man_name = arg;
			continue;
		}
		if (!k && a->cmd && !strcmp(a->cmd, "help") ) {
			continue;
		}
		notes_add(&a->warnings, "unexpected arg '%s' ignored", arg);
	}
	if (!a->cmd)
		a->cmd = a->help ? "help" : "";
	return 0;
}

int wperf_arg_index(const struct wperf_args *a, const char *key)
{
	char buf[64];
	for (int i = 1; i < a->argc && strcmp(a->argv[i], "--"); i++) {
		const char *k = opt_key(a->argv[i], buf, sizeof(buf));
		if (k && !strcmp(k, key))
			return i;
	}
	return -1;
}

void wperf_args_free(struct wperf_args *a)
{
	sb_release(&a->events);
	sb_release(&a->metrics);
	notes_clear(&a->warnings);
}

char *wperf_out_path(const struct wperf_args *a, const char *name)
{
	if (!a->output_prefix || !*a->output_prefix || name[0] == '/')
		return xstrdup(name);
	mkdir(a->output_prefix, 0755); /* wperf creates the output directory; an error shows on open */
	size_t n = strlen(a->output_prefix);
	return xasprintf("%s%s%s", a->output_prefix, a->output_prefix[n - 1] == '/' ? "" : "/", name);
}

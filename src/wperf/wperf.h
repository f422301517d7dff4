/* lperf's second personality: WindowsPerf's command line (`wperf ...`, `lperf wperf ...`).
 *
 * WindowsPerf's grammar collides with perf's letters (-c cores, not a period; -k kernel mode,
 * not a clock; -C a metric file, not CPUs; -i an interval, not an input file), so it gets its
 * own parser (wperf_args.c) into a struct wperf_args. The commands (cmd/wperf.c's table,
 * cmd/wperf_stat.c, cmd/wperf_sample.c, cmd/man.c) map it onto the requests the lperf commands
 * build (struct stat_opts, struct sample_opts) and run them on the same engine; only parsing and
 * rendering (src/output/wperf_*.c) differ. This folder is the grammar and its spellings: it
 * prints nothing. Invoked as lperf, nothing of this is used except the SPE/DSU/DMC spellings
 * (events/wperf_spell.c), which both personalities accept. */
#ifndef LPERF_WPERF_WPERF_H
#define LPERF_WPERF_WPERF_H

#include <stdbool.h>
#include <stddef.h>

#include "util/notes.h"
#include "util/strbuf.h"

/* One wperf command line, as WindowsPerf's parse_raw_args reads it. */
struct wperf_args {
	const char *cmd;            /* stat, sample, record, list, test, detect, man, help, version */
	struct strbuf events;       /* -e, comma-joined, -E names substituted */
	struct strbuf metrics;      /* -m */
	const char *cores;          /* -c/--cpu as given; NULL = default */
	bool kernel;                /* -k */
	const char *metric_file;    /* -C FILE */
	const char *extra_events;   /* -E FILE or name:0xHEX,... */
	double timeout_s;           /* --timeout / sleep N; <0 = not given */
	bool timeline;              /* -t */
	double interval_s;          /* -i; <0 = not given */
	int count;                  /* -n; -1 = not given */
	const char *output;         /* -o/--output */
	const char *output_csv;     /* --output-csv TEMPLATE */
	const char *output_prefix;  /* --output-prefix/--cwd DIR */
	const char *config;         /* --config NAME=VALUE */
	const char *dmc;            /* --dmc IDX */
	bool json, quiet, force_lock, dry_run, annotate, disassemble, display_long;
	int verbose;
	const char *pe_file, *image_name, *pdb_file;
	double spawn_delay_s;       /* --record_spawn_delay MS, in seconds; <0 = default */
	const char *export_perf_data;
	long display_rows;          /* --sample-display-row; 0 = default 50 */
	const char *symbol;         /* --symbol/-s */
	char **command;             /* after --, NULL-terminated; NULL when none */
	const char *man_name;       /* man's argument */
	bool help;
	struct notes warnings;      /* unknown words, ignored as wperf does; the caller prints them */
	int argc;                   /* the whole command line, for perf.data's CMDLINE */
	char **argv;
};

/* Parses argv[1..] (argv[0] is the program). Unknown arguments are ignored, as wperf does, with
 * a line for each in a->warnings. -1 with err_set() for a malformed value (a bad duration, a missing argument). */
int wperf_parse_args(struct wperf_args *a, int argc, char **argv);
void wperf_args_free(struct wperf_args *a);

/* wperf's duration: ^(0|[1-9][0-9]*)(\.[0-9]{1,2})?(ms|s|m|h|d)?$, seconds by default. */
int wperf_parse_duration(const char *s, double *seconds);
/* The position in a->argv of the first option spelled KEY ("pe_file" for -pe_file or --pe-file),
 * or -1. */
int wperf_arg_index(const struct wperf_args *a, const char *key);

/* WindowsPerf's checks, with its messages (wperf_check.c); -1 with err_set(). At -e, in the
 * order of the line: SPE filters, sampling intervals, sample/record's events against the
 * counters (not checked when counters <= 0, unknown). */
int wperf_check_events(const struct wperf_args *a, const char *spec, int counters);
/* After the line, for stat, sample and record: a process to sample, one core for sampling,
 * cores below ncores (not with --dry-run), stat's events. */
int wperf_check_request(const struct wperf_args *a, int ncores);
/* -c's cores sorted, unique, descending ranges turned ("0-0,3-1" -> "0,1,2,3"); malloc'd, or
 * NULL with err_set(). */
char *wperf_cores_list(const char *list);
/* Joins --output-prefix/--cwd and a file name (malloc'd). */
char *wperf_out_path(const struct wperf_args *a, const char *name);

#endif

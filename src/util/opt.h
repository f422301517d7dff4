/* Command-line option parsing for the command layer: short and long options, "--opt=value",
 * "-xVALUE", bundled short flags, "--" and stopping at the first non-option (the profiled
 * command). An unknown option is a usage error (exit 2) with the closest valid spelling. */
#ifndef LPERF_UTIL_OPT_H
#define LPERF_UTIL_OPT_H

#include <stdbool.h>
#include <stdio.h>

enum opt_type {
	OPT_END,
	OPT_BOOL,     /* bool *value = true */
	OPT_COUNT,    /* int *value += 1 (-v -v) */
	OPT_STRING,   /* const char **value = arg (last one wins) */
	OPT_INT,      /* int *value = parsed arg */
	OPT_CALLBACK, /* cb(opt, arg): arg NULL for options without an argument */
	OPT_GROUP,    /* a heading in the help text */
};

/* Flags */
#define OPT_NOARG      1 /* OPT_CALLBACK without an argument */
#define OPT_NUMERIC_OPT 2 /* the argument is optional, taken only when the next word is a
			   * number or number list (for -t: perf's TID vs WindowsPerf's timeline) */
#define OPT_HIDDEN     4 /* accepted, not shown in help */
#define OPT_WORD_OPT   8 /* the argument is optional, taken only when the next word does not
			   * start with '-' and looks like a value for it (perf's "-g caller"):
			   * letters, digits, ',' and '.' only */
#define OPT_EQ_OPT    16 /* the argument is optional, taken only as --opt=VALUE (perf's
			   * --intr-regs[=REGS]) */

struct option;
typedef int (*opt_cb)(const struct option *opt, const char *arg);

struct option {
	enum opt_type type;
	char short_name;
	const char *long_name;
	void *value;
	const char *argh;  /* argument placeholder in help: "EVENTS" */
	const char *help;
	opt_cb cb;
	int flags;
};

#define OPT_END_() { OPT_END, 0, NULL, NULL, NULL, NULL, NULL, 0 }

struct opt_ctx {
	const char *cmd;              /* "stat" for messages: "lperf stat: ..." */
	const char *const *usage;     /* usage lines, NULL-terminated */
	const struct option *opts;
	bool stop_at_non_option;      /* the first non-option starts the profiled command */
};

/* Parses argv[1..]; returns the index of the first argument not consumed. Exits 0 after
 * printing help for -h/--help, and exits 2 on a usage error. A callback returning -1 makes a
 * usage error with err_msg(). */
int opt_parse(const struct opt_ctx *ctx, int argc, char **argv);
void opt_usage(const struct opt_ctx *ctx, FILE *f);
/* From now on --help (opt_usage) writes the command's manual page lperf-CMD(1) in roff, summary
 * its NAME line, from the same option table the parser uses ('lperf help --man CMD'). */
void opt_set_roff(const char *summary);
/* A manual page for a command whose help is its own text (not an option table): the text kept
 * as it is printed, under NAME (cmd, summary). */
void opt_roff_text_page(FILE *f, const char *cmd, const char *summary, const char *text);
/* The whole command line lperf runs (the program, the command's name, its arguments; perf's
 * global options before the command left out), as recordings store it: set once by main, read
 * by the commands that store it (record, sample). Before it is set, an empty line (*argc 0). */
void opt_set_command_line(int argc, char **argv);
char **opt_command_line(int *argc);
/* For a command of subcommands (lperf lock, lperf sched): parses the options before the
 * subcommand and returns its index; without one, prints the usage and exits 2. */
int opt_parse_subcommand(const struct opt_ctx *ctx, int argc, char **argv);
/* word is full or an abbreviation of it of at least min letters ("rec" for "record"). */
bool opt_abbrev(const char *word, const char *full, size_t min);
/* Prints "lperf CMD: msg", a hint to run --help, and exits 2. */
void opt_usage_error(const struct opt_ctx *ctx, const char *fmt, ...)
	__attribute__((noreturn, format(printf, 2, 3)));

#endif

/* Error reporting. Library code records what failed with err_set() and returns -1; only the
 * command layer prints (err_die, err_warn) and chooses the exit status. */
#ifndef LPERF_UTIL_ERROR_H
#define LPERF_UTIL_ERROR_H

#include <stdarg.h>

/* Exit codes: 0 ok, the profiled command's status where one ran, 1 runtime error, 2 usage. */
enum { EXIT_RUNTIME = 1, EXIT_USAGE = 2 };

/* Records the last error of this thread (printf-style); always returns -1 for `return err_set(..)`. */
int err_set(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prefixes the current error with more context: "ctx: old message". Returns -1. */
int err_wrap(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *err_msg(void);
void err_clear(void);

/* Command-layer helpers: print "lperf: ..." to stderr. */
void err_die(int code, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));
void err_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void err_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One "lperf: hint: ..." line, unless err_quiet or err_no_hints. */
void err_hint(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints a note list in order: its warnings with err_warn, its notes with err_note; then its
 * hints with err_hint. */
struct notes;
void err_print_notes(const struct notes *ns);
/* Print the recorded error (err_msg) and exit with code. */
void err_die_last(int code) __attribute__((noreturn));
/* Ends the process from an error or help path: flushes stdio, then exits without running
 * atexit handlers, so sanitizers judge leaks only on lperf's normal return paths. */
void err_exit(int code) __attribute__((noreturn));
/* One cleanup err_exit runs before it exits (the private temporary directory of a run that an
 * error ends: util/outfile.c), so an error path leaves nothing behind; fn NULL clears it. */
void err_at_exit(void (*fn)(void *), void *arg);
/* Silences err_note (the -q option). */
extern int err_quiet;
/* Silences err_hint: machine-readable output (--json, -x, -t, --folded, script). */
extern int err_no_hints;
/* lperf runs under the name perf (a link or a shim): where scripts look for perf's own words
 * (an unknown command, a bad --time), the commands print those. */
extern int err_perf_name;

#endif

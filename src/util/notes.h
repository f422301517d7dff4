/* Non-fatal diagnostics: an append-only list of one-line messages ("perf.data: feature HOSTNAME
 * at offset 0x...: ...", "stripped: only dynamic symbols"). Library code appends what it met and
 * goes on; commands decide whether and how to print (all of them, or the latest as the reason
 * something is missing). One list type for every module, so that a new source of notes needs no
 * new helper. A zeroed struct notes is an empty list. */
#ifndef LPERF_UTIL_NOTES_H
#define LPERF_UTIL_NOTES_H

#include <stdarg.h>
#include <stddef.h>

struct notes {
	char **v;                /* the messages, oldest first: v[0 .. n) */
	size_t n, cap;
	unsigned char *levels;   /* per message, when any was added with a level (notes_add_level) */
	size_t lcap;
};

/* How much a message weighs for a command: a warning (the default) is always printed; a note
 * is information that -q hides; a hint is advice that would make the profile better ("record
 * with --call-graph dwarf"): printed last, after the report, hidden by -q and in the
 * machine-readable modes. */
enum notes_level { NOTES_WARNING, NOTES_NOTE, NOTES_HINT };

#define NOTES_INIT { NULL, 0, 0 }

void notes_add(struct notes *ns, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void notes_vadd(struct notes *ns, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
void notes_add_level(struct notes *ns, enum notes_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The level of message i (NOTES_WARNING unless added otherwise). */
enum notes_level notes_level(const struct notes *ns, size_t i);
/* Appends msg, which the list now owns (NULL is ignored). */
void notes_take(struct notes *ns, char *msg);
/* Moves every message of from to the end of ns; from is left empty. */
void notes_move(struct notes *ns, struct notes *from);
/* The newest message, or NULL when there is none. */
const char *notes_last(const struct notes *ns);
/* Frees the messages; the list stays usable (a state that is recomputed starts over). */
void notes_clear(struct notes *ns);

#endif

/* The running kernel's symbols read ahead on a thread of their own (kahead.c), for report
 * --threads: a first report spends a fifth of its time waiting for the kernel to format
 * /proc/kallsyms (5 MB of text, made afresh on every read: about 37 ms of system time here),
 * work that needs nothing from the recording. Started when the recording names the running
 * kernel, the thread reads that text (or maps the snapshot, symbols/ksnap.h, when one is usable)
 * while the report reads its file; the walk's first kernel address takes what it read, waiting
 * for it if need be, and parses it on its own thread as it would have parsed its own read.
 *
 * Only the reading moves: the parse, sort and the snapshot's writing stay where they were, so
 * that their memory (about 20 MB for a moment) is the session's own heap's, as without the
 * thread (a thread's malloc arena keeps what it freed: 5 MB more of peak when it parsed). */
#ifndef LPERF_SYMBOLS_KAHEAD_H
#define LPERF_SYMBOLS_KAHEAD_H

#include <stdbool.h>
#include <stddef.h>

struct ksnap;
struct kahead;

/* Starts the thread; NULL when it cannot be started (the caller loads as usual). */
struct kahead *kahead_start(void);
/* Waits for the thread: a usable snapshot (*ks, the caller's: ksnap_free), else the text of the
 * kallsyms file (*text, *len, the caller's: free; NULL with *why set when it could not be read,
 * *why the caller's). False when taken already. */
bool kahead_take(struct kahead *k, struct ksnap **ks, char **text, size_t *len, char **why);
/* Joins the thread and frees what was not taken. NULL: nothing. */
void kahead_free(struct kahead *k);

#endif

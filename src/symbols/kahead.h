/* The running kernel's symbols loaded on a thread of their own (kahead.c), for report
 * --threads: a first report would spend a third of its time on /proc/kallsyms (5 MB of text the
 * kernel formats afresh on every read, about 35 ms of system time here, then 150,000 symbols
 * parsed and sorted and the snapshot written, 25 ms more), work that needs nothing from the
 * recording. Started when the recording names the running kernel, the thread does what the kernel
 * DSO's load would do (dso.c's load_running_kernel): maps the snapshot (symbols/ksnap.h) when one
 * is usable, else writes it as kallsyms is read (symbols/kstream.h) and keeps only the symbols
 * outside the core range (ksnap_stream_rest). Meanwhile the walk leaves the symbols of kernel
 * addresses for later where its tool allows (kahead_reading: resolve.h's addr_loc.later), and
 * the kernel DSO's first load after that takes the result.
 *
 * Memory: writing the snapshot so needs about 2.5 MB for a moment, in mappings of its own that go
 * back to the kernel whole, so it starts at once. When it cannot be written (the cache is not
 * writable; $LPERF_KALLSYMS) the text is parsed whole (kallsyms_parse_text: about 12 MB for a
 * moment), so the thread reads and then waits for kahead_go: the session lets it go on once the
 * files it reads ahead are open, whose inflated sections would otherwise be alive beside it (8 MB
 * more of a first report's peak); and as a thread's malloc arena keeps what is freed in it, the
 * thread then hands its free pages back to the kernel (malloc_trim) before it ends.
 */
#ifndef LPERF_SYMBOLS_KAHEAD_H
#define LPERF_SYMBOLS_KAHEAD_H

#include <stdbool.h>
#include <stddef.h>

#include "symbols/symtab.h"

struct ksnap;
struct kahead;

/* What the thread loaded, the taker's: ks alone (rest false, r empty) is a usable snapshot that
 * was there already; else r holds the symbols read (or the notes saying why none), and ks, when
 * set (rest true), the snapshot just written, r then only the symbols outside its range. */
struct kahead_result {
	struct ksnap *ks;
	bool rest;
	struct symtab_load r;
};

/* What the thread does, on the caller's thread (no kahead_go to wait for): the kernel DSO's load
 * without a thread, or when it was not started. */
void kahead_load(struct kahead_result *out);
/* Starts the thread; NULL when it cannot be started (the caller loads as usual). */
struct kahead *kahead_start(void);
/* Lets the thread go on from reading to parsing (kahead_take lets it too): called once the
 * caller's own transient memory is gone (see above). */
void kahead_go(struct kahead *k);
/* The thread is reading kallsyms to write the snapshot (a first report): a kahead_take now would
 * wait for it. False once it is done, or when it found a usable snapshot, which a lookup may as
 * well wait for (a moment: ksnap_load), so that a second report leaves nothing for later; while
 * the thread is still looking, waits until it knows. Any thread may ask; a lock only then. */
bool kahead_reading(struct kahead *k);
/* Waits for the thread and hands its result over (*out, the caller's). False when taken already. */
bool kahead_take(struct kahead *k, struct kahead_result *out);
/* Joins the thread and frees what was not taken. NULL: nothing. */
void kahead_free(struct kahead *k);

#endif

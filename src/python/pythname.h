/* The Python names of a running CPython's threads (threading.Thread.name), read from outside as
 * py-spy does: sys.modules['threading']._active, the dict {thread ident: Thread}, and each
 * Thread's _name (2.7: _Thread__name) from its instance attributes (a dict, a split dict, or
 * 3.11+'s values kept with the object). CPython 2.7 and 3.6-3.13; every read bounded and checked.
 * The idents are pthread_t values, the thread states' thread_id. */
#ifndef LPERF_PYTHON_PYTHNAME_H
#define LPERF_PYTHON_PYTHNAME_H

#include <stddef.h>
#include <stdint.h>

struct pyread;

struct pythname {
	uint64_t ident;       /* threading.get_ident() of the thread: its pthread_t */
	char name[64];        /* its Thread's name, cut at 63 bytes (UTF-8) */
};

/* Up to max threads' names into out; how many (0 when threading was never imported or cannot
 * be read). */
size_t pythname_read(struct pyread *r, struct pythname *out, size_t max);

/* Records the names of r's threads now in w (python/pystore.h), by their kernel tids; how many
 * were found. */
struct pystore_writer;
size_t pythname_store(struct pyread *r, struct pystore_writer *w);

#endif

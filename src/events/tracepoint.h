/* Tracepoints "subsys:name": the id the kernel assigns in <tracefs>/events/subsys/name/id, where
 * tracefs is <sysfs_root>/kernel/tracing or <sysfs_root>/kernel/debug/tracing. */
#ifndef LPERF_EVENTS_TRACEPOINT_H
#define LPERF_EVENTS_TRACEPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The mounted tracefs directory (owned by the module, valid until the next call), or NULL. As
 * perf does, a missing tracefs is mounted at /sys/kernel/tracing when lperf runs as root on the
 * real /sys. */
const char *tp_dir(void);

/* True when name has the shape of a tracepoint: one ':' between two non-empty words of
 * letters, digits, '_', '-' and '.'. */
bool tp_is_name(const char *name);

/* Looks up "subsys:name". 1 with *id set; 0 when the subsystem does not exist (so the name
 * may still be something else, e.g. a libpfm4 name); -1 with err_set() naming the path tried
 * and close names when the subsystem exists but the event does not, or the id is unreadable. */
int tp_lookup(const char *name, uint64_t *id);

/* For a tracepoint-shaped name whose subsystem does not exist: "; did you mean 'sched:x'?"
 * over similar subsystems, or a note that tracefs is not mounted; "" otherwise. */
/* When tracefs is mounted but this user may not read it (mode 0700, not root): -1 after err_set
 * with "WHAT: no permission to read tracefs at DIR ..." and how to remount it, as perf says;
 * 0 otherwise (readable, or not mounted at all). */
int tp_denied(const char *what);
void tp_hint(const char *name, char *buf, size_t size);

/* Calls fn for each tracepoint ("subsys:name", id), in directory order sorted by name.
 * Returns the count, 0 when tracefs is not mounted. */
typedef void (*tp_fn)(const char *name, uint64_t id, void *arg);
long tp_for_each(tp_fn fn, void *arg);

/* Tracepoint globs as perf takes them in -e ("sched:*", "sched:sched_w*", "*:sys_enter_open*"):
 * true when name is "GLOB:GLOB" with a wildcard ('*', '?', '[') in either part. */
bool tp_is_glob(const char *name);
/* The tracepoints "subsys:name" whose parts match the globs (fnmatch), sorted. Returns the count
 * (0 when none, or tracefs is not mounted); *names is an array of owned strings. */
size_t tp_glob(const char *glob, char ***names);

#endif

/* Metrics: formulas over event counts, with a unit. Built-in sets per architecture (Arm,
 * x86) and software metrics valid anywhere; metric groups; user metrics from a file.
 *
 * Formula language (metric_parse):
 *   expr    := term   (('+' | '-') term)*
 *   term    := unary  (('*' | '/') unary)*
 *   unary   := ('-' | '+')* primary
 *   primary := NUMBER | NAME | '#' NAME | '(' expr ')'
 *   NUMBER  is decimal: 42, 0.5, .5, 1e9, 2.5E-3 (no sign, no hex, no inf/nan).
 *   NAME    is an event name: a letter or '_', then letters, digits and '_'. A '-' followed
 *           by a letter or '_', or a '.' or ':' followed by a letter, digit or '_', continues
 *           the name, so perf's generic names (context-switches, L1-dcache-load-misses) and
 *           tracepoints (sched:sched_switch) work. Hence "a-b" is ONE name: subtracting two
 *           events needs spaces, "a - b" ("a-1" is a minus 1: a digit ends the name).
 *   duration_time is the elapsed wall-clock time in SECONDS; the counting code supplies it
 *           through the lookup like an event, but it is not listed in a metric's events.
 *   #slots  is a system constant: the core's issue slots per cycle (Arm caps/slots in sysfs),
 *           used by the topdown metrics. lookup("#slots") is asked first, so a caller can
 *           supply it (a recorded run); otherwise sysfs is read. Not listed in events either.
 * Formulas are at most 4096 bytes with parentheses nested at most 64 deep. A parse error is
 * one line: "formula 'TEXT': column N: what was expected".
 *
 * Evaluation gives NAN (printed as n/a) when an input is missing (lookup returns NAN), when a
 * divisor is zero, or when the result is not finite. */
#ifndef LPERF_EVENTS_METRIC_H
#define LPERF_EVENTS_METRIC_H

#include <stdbool.h>
#include <stddef.h>

enum metric_arch { METRIC_ANY, METRIC_ARM, METRIC_X86 };

struct metric_expr; /* a parsed formula; opaque */

struct metric {
	char *name;          /* "ipc", "load_percentage", "imix" */
	char *formula;       /* "inst_retired / cpu_cycles"; NULL for pure event-set metrics */
	char *unit;          /* "per cycle", "percent of operations", "MPKI"... */
	char *desc;
	char **events;       /* event names the formula uses (duration_time, #slots excluded) */
	size_t nevents;
	enum metric_arch arch;
	struct metric_expr *expr;  /* NULL for pure event-set metrics */
	bool user;           /* loaded from a metric file */
	/* An uncore metric ("arm_dsu_", "arm_dmc620_"): its events are those of every PMU whose
	 * name starts with this (arm_dsu_0/l3d_cache/, arm_dsu_1/l3d_cache/...), one reading each;
	 * it is evaluated per PMU (a DSU cluster, a memory channel) and over all of them together.
	 * NULL for the CPUs' own events. */
	char *pmu;
};

struct metric_group {
	char *name;          /* "imix", "Operation_Mix", "MPKI" */
	char *desc;
	char **metrics;
	size_t nmetrics;
	enum metric_arch arch;
	bool user;           /* loaded from a metric file */
};

struct metric_set {
	struct metric *m;
	size_t n, cap;
	struct metric_group *g;
	size_t ng, gcap;
};

/* Loads the built-in metrics and groups of every architecture. Several architectures may
 * define the same name (ipc on Arm and on x86); lookups pick the one that fits this machine.
 * Call it before metric_set_load_file so that user metrics replace built-ins. */
void metric_set_builtin(struct metric_set *s);
/* Adds user metrics and groups from a file, all or nothing. One definition per line:
 *   name = formula [; unit [; description]]     a computed metric (grammar above)
 *   name:{ev1,ev2,...}                          WindowsPerf's event set: counted, no formula
 *                                               (braces optional; events as -e spells them)
 *   group NAME = metric1,metric2,...            a metric group (members: any known metric)
 * Lines whose first non-blank character is '#' are comments ('#' elsewhere is text, so
 * descriptions and #slots work); blank lines are skipped. A user metric or group with the
 * name of an existing one (built-in or from an earlier file) replaces it, for every
 * architecture; defining a name twice in one file is an error. Errors say "FILE:LINE: ...".
 * Loading invalidates pointers returned earlier by metric_find/metric_expand. */
int metric_set_load_file(struct metric_set *s, const char *path);
/* WindowsPerf's meaning of imix, icache, dcache, itlb and dtlb (the wperf personality): Arm
 * event sets counted as one group, no formula, their events cut to the first `counters` (the
 * general-purpose counters; <= 0: all), replacing lperf's metric groups of those names. */
void metric_set_wperf_simple(struct metric_set *s, int counters);
void metric_set_free(struct metric_set *s);

/* Case-insensitive. Among namesakes, prefers one whose architecture is present here, then one
 * for the architecture lperf was built for. */
const struct metric *metric_find(const struct metric_set *s, const char *name);
const struct metric_group *metric_group_find(const struct metric_set *s, const char *name);
/* True when the metric's architecture matches a PMU present here (Arm: an armv8_* / armv9_*
 * PMU, or a core PMU with inst_retired and cpu_cycles events, under
 * <sysfs_root>/bus/event_source/devices; x86: "cpu", "cpu_core" or "cpu_atom");
 * METRIC_ANY always. */
bool metric_arch_present(enum metric_arch arch);
const char *metric_arch_name(enum metric_arch arch);

/* Expands a -m list ("imix,ipc" — metric or group names, case-insensitive; a metric wins over
 * a group of the same name) into metrics, groups replaced by their members, duplicates
 * dropped, first-seen order kept. *out is allocated (free() it). Returns the number found, or
 * -1 with err_set() naming an unknown name and suggestions. */
long metric_expand(const struct metric_set *s, const char *list, const struct metric ***out);

/* Parses a formula (grammar at the top of this file). NULL with err_set() on error. */
struct metric_expr *metric_parse(const char *formula);
/* Appends to names every distinct event name the formula refers to that is not already there
 * (case-insensitive), in order of first use; duration_time and #constants are left out. */
void metric_expr_events(const struct metric_expr *e, char ***names, size_t *n);
void metric_expr_free(struct metric_expr *e);

/* Evaluates with lookup(name) giving each event's (scaled) count, and duration_time in
 * seconds. Returns NAN when a divisor is zero, an input is missing (lookup returns NAN) or the
 * result is not finite; the caller prints n/a. */
typedef double (*metric_lookup_fn)(const char *name, void *arg);
double metric_eval(const struct metric_expr *e, metric_lookup_fn lookup, void *arg);

#endif

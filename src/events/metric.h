/* Metrics: formulas over event counts, with a unit. Built-in sets per architecture (Arm,
 * x86) and software metrics valid anywhere; metric groups; user metrics from a file. */
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
	char **events;       /* event names the formula uses (duration_time excluded) */
	size_t nevents;
	enum metric_arch arch;
	struct metric_expr *expr;
};

struct metric_group {
	char *name;          /* "imix", "Operation_Mix", "MPKI" */
	char *desc;
	char **metrics;
	size_t nmetrics;
	enum metric_arch arch;
};

struct metric_set {
	struct metric *m;
	size_t n, cap;
	struct metric_group *g;
	size_t ng, gcap;
};

/* Loads the built-in metrics and groups of every architecture. */
void metric_set_builtin(struct metric_set *s);
/* Adds user metrics from a file: one "name = formula [; unit [; description]]" per line, or
 * WindowsPerf's "name:{ev1,ev2}" event sets; '#' starts a comment. */
int metric_set_load_file(struct metric_set *s, const char *path);
void metric_set_free(struct metric_set *s);

const struct metric *metric_find(const struct metric_set *s, const char *name);
const struct metric_group *metric_group_find(const struct metric_set *s, const char *name);
/* True when the metric's architecture matches a PMU present here (Arm: an armv8/armv9 PMU in
 * sysfs; x86: a "cpu"/"cpu_core" PMU); METRIC_ANY always. */
bool metric_arch_present(enum metric_arch arch);
const char *metric_arch_name(enum metric_arch arch);

/* Expands a -m list ("imix,ipc" — metric or group names) into metrics, without duplicates.
 * Returns the number found, or -1 with err_set() naming an unknown name and suggestions. */
long metric_expand(const struct metric_set *s, const char *list, const struct metric ***out);

/* Parses a formula: + - * / unary minus, parentheses, decimal constants, event names
 * (letters, digits, '_', '-', '.', ':', '/' as in sysfs names), and duration_time (seconds). */
struct metric_expr *metric_parse(const char *formula);
/* Appends to names every distinct event name the formula refers to. */
void metric_expr_events(const struct metric_expr *e, char ***names, size_t *n);
void metric_expr_free(struct metric_expr *e);

/* Evaluates with lookup(name) giving each event's (scaled) count. Returns NAN when a divisor is
 * zero or an input is missing (lookup returns NAN); the caller prints n/a. */
typedef double (*metric_lookup_fn)(const char *name, void *arg);
double metric_eval(const struct metric_expr *e, metric_lookup_fn lookup, void *arg);

#endif

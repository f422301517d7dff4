/* Internal to the metric module: the built-in tables (one file per architecture) and the
 * helpers that metric.c and metric_file.c share. Nothing outside src/events/metric*.c
 * includes this. */
#ifndef LPERF_EVENTS_METRIC_BUILTIN_H
#define LPERF_EVENTS_METRIC_BUILTIN_H

#include <stdbool.h>
#include <stddef.h>

#include "events/metric.h"

/* Longest formula, metric name and event name accepted anywhere (built-in, file or -m). */
#define METRIC_FORMULA_MAX 4096
#define METRIC_NAME_MAX 128

struct metric_def {
	const char *name, *formula, *unit, *desc;
	const char *pmu;     /* an uncore metric: the prefix of its PMUs' names (struct metric) */
};

struct metric_group_def {
	const char *name, *desc;
	const char *metrics; /* comma-separated metric names */
};

struct metric_table {
	enum metric_arch arch;
	const struct metric_def *m;
	size_t nm;
	const struct metric_group_def *g;
	size_t ng;
};

extern const struct metric_table metric_table_sw, metric_table_arm, metric_table_x86;

/* Whether directory `name` under <sysfs>/bus/event_source/devices (full path `dir`) is a core
 * PMU of that architecture. */
bool metric_arm_core_pmu(const char *dir, const char *name);
bool metric_x86_core_pmu(const char *name);
/* Issue slots per cycle of the Arm core PMU (its caps/slots file), NAN when unknown. */
double metric_arm_slots(void);

/* Fills m from its parts (copied): parses the formula and lists its events. -1 with err_set()
 * when the formula does not parse. */
int metric_init(struct metric *m, const char *name, const char *formula, const char *unit,
		const char *desc, enum metric_arch arch);
/* Fills m as an event-set metric (no formula) over the given events, without duplicates. */
void metric_init_events(struct metric *m, const char *name, char *const *events, size_t n,
			const char *unit, const char *desc);
void metric_clear(struct metric *m);
void metric_group_clear(struct metric_group *g);
/* Splits a comma-separated list of names into g->metrics, trimmed, without duplicates.
 * -1 with err_set() on an empty or malformed item. */
int metric_group_fill(struct metric_group *g, const char *list);
/* True when s is a valid metric or group name: a letter or '_', then letters, digits, '_',
 * '.' or '-', at most METRIC_NAME_MAX bytes. */
bool metric_name_valid(const char *s, size_t len);

/* Moves m (or g) into the set. An existing entry of the same name, from any architecture, is
 * replaced in place (so list order is kept) and its namesakes are dropped. */
void metric_set_put(struct metric_set *s, struct metric *m);
void metric_set_put_group(struct metric_set *s, struct metric_group *g);

#endif

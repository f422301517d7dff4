/* perf stat's aggregation modes over the per-CPU (or per-thread) columns of a stat_result:
 * everything together, each CPU, each core/die/socket/NUMA node from the sysfs topology
 * (under LPERF_SYSFS_ROOT), each thread. A unit ("S0-D0-C1") is a set of columns; its value
 * for an event is the sum of theirs, scaled as one. */
#ifndef LPERF_STAT_STAT_AGGR_H
#define LPERF_STAT_STAT_AGGR_H

#include <stdbool.h>
#include <stddef.h>

#include "stat/stat_result.h"

enum stat_aggr {
	STAT_AGGR_GLOBAL, /* the default: one row per event */
	STAT_AGGR_NONE,   /* -A: one row per CPU */
	STAT_AGGR_CORE,
	STAT_AGGR_DIE,
	STAT_AGGR_SOCKET,
	STAT_AGGR_NODE,
	STAT_AGGR_THREAD,
};

/* Where one CPU sits; -1 where sysfs does not say. */
struct stat_cpu_topo {
	int socket, die, core, node;
};

/* Reads cpu's place from devices/system/cpu/cpuN/topology and devices/system/node. Missing
 * files leave 0 (a machine without a topology is one socket, die and node; the core is the CPU). */
void stat_cpu_topo_read(int cpu, struct stat_cpu_topo *t);

struct stat_aggr_unit {
	struct stat_cpu_topo id;  /* the unit's socket/die/core/node as the mode uses them */
	int cpu;                  /* STAT_AGGR_NONE: the CPU */
	size_t *cols;             /* the result's columns in this unit */
	size_t ncols;
	bool total;               /* every column: the result's own totals (means over -r runs) */
};

struct stat_aggr_units {
	enum stat_aggr mode;
	struct stat_aggr_unit *u;
	size_t n;
};

/* Groups r's columns by mode, in perf's order (by socket, die, core, node, CPU number). With
 * STAT_AGGR_GLOBAL, one unit holds every column; STAT_AGGR_THREAD gives a unit per column. */
void stat_aggr_build(struct stat_aggr_units *us, const struct stat_result *r, enum stat_aggr mode);
void stat_aggr_free(struct stat_aggr_units *us);
/* Event e over unit u: the columns' raw counts summed and scaled as one. */
void stat_aggr_value(const struct stat_result *r, size_t e, const struct stat_aggr_unit *u, struct stat_value *out);

#endif

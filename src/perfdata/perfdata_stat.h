/* perf stat record's records in perf.data (perf 6.1's layouts): THREAD_MAP, CPU_MAP,
 * STAT_CONFIG, one STAT per counter (event id, CPU and thread index, value, enabled and running
 * time) and STAT_ROUND, plus the EVENT_UPDATE unit and scale of an event. Written through the
 * perf.data writer and read back from a walk of its records, perf's files as lperf's. */
#ifndef LPERF_PERFDATA_PERFDATA_STAT_H
#define LPERF_PERFDATA_PERFDATA_STAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfdata/perfdata.h"

/* perf's aggregation modes as STAT_CONFIG stores them (enum aggr_mode of perf 6.1). */
enum perfdata_stat_aggr {
	PERFDATA_AGGR_NONE = 0, PERFDATA_AGGR_GLOBAL = 1, PERFDATA_AGGR_SOCKET = 2,
	PERFDATA_AGGR_DIE = 3, PERFDATA_AGGR_CORE = 4, PERFDATA_AGGR_THREAD = 5,
	PERFDATA_AGGR_UNSET = 6, PERFDATA_AGGR_NODE = 7,
};

enum { PERFDATA_STAT_ROUND_INTERVAL = 0, PERFDATA_STAT_ROUND_FINAL = 1 };

/* One counter's reading: cpu is the CPU's number (-1: any), thread an index into the thread map. */
struct perfdata_stat_count {
	uint64_t id;
	uint32_t cpu, thread;
	uint64_t val, ena, run;
};

struct perfdata_stat {
	uint64_t aggr_mode, interval_ms, scale;
	int *cpus;                  /* the CPU map (-1: any CPU, per-task counting) */
	size_t ncpus;
	int *pids;                  /* the thread map (-1: any thread) */
	size_t npids;
	struct perfdata_stat_count *counts; /* the last round's */
	size_t ncounts, cap;
	uint64_t time_ns;           /* the last round's time: the elapsed time (FINAL), the interval's
				     * end since counting began (INTERVAL) */
	uint64_t round_type;        /* the last round's */
	bool have_config, have_round;
	int nrounds;
};

/* The records after the events (which the writer holds): THREAD_MAP, CPU_MAP, STAT_CONFIG,
 * the STATs, and a FINAL STAT_ROUND. -1 with err_set() when writing failed. */
int perfdata_stat_write(struct perfdata_writer *w, const struct perfdata_stat *s);
/* The same in two steps, for interval rounds: the maps and the config once, then per round
 * the STATs (counts since counting began) and a STAT_ROUND of type at time_ns. */
int perfdata_stat_write_maps(struct perfdata_writer *w, const struct perfdata_stat *s);
int perfdata_stat_write_round(struct perfdata_writer *w, const struct perfdata_stat *s, uint64_t type);
/* EVENT_UPDATE records giving event id its unit ("msec") and scale (1e-6), as perf stat record
 * writes for clocks. */
int perfdata_stat_write_unit(struct perfdata_writer *w, uint64_t id, const char *unit, double scale);
/* Feeds one record of a walk (perfdata_for_each) into s: the stat records are taken, the
 * others ignored. A STAT_ROUND of type INTERVAL starts the next round's counts afresh.
 * -1 with err_set() naming the record's offset for a record too short for its kind. */
int perfdata_stat_read(struct perfdata_stat *s, const struct perf_event_header *h, uint64_t offset);
void perfdata_stat_free(struct perfdata_stat *s);

#endif

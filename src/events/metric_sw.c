/* Software metrics: kernel software events over wall time, valid on any machine (they are
 * the only metrics that work without a hardware PMU, e.g. in a VM). task-clock counts
 * nanoseconds; duration_time is seconds. */
#include "events/metric_builtin.h"
#include "util/xalloc.h"

#define PER_SEC "per second"

static const struct metric_def sw_metrics[] = {
	{ "cpus_utilized", "task-clock / (duration_time * 1e9)", "CPUs",
	  "How many CPUs were busy on average: task time over elapsed wall time" },
	{ "context_switches_per_sec", "context-switches / duration_time", PER_SEC,
	  "Context switches per second of wall time" },
	{ "cpu_migrations_per_sec", "cpu-migrations / duration_time", PER_SEC,
	  "Moves of the task to another CPU per second of wall time" },
	{ "page_faults_per_sec", "page-faults / duration_time", PER_SEC,
	  "Page faults (minor and major) per second of wall time" },
	{ "minor_faults_per_sec", "minor-faults / duration_time", PER_SEC,
	  "Page faults served without I/O per second of wall time" },
	{ "major_faults_per_sec", "major-faults / duration_time", PER_SEC,
	  "Page faults that needed I/O per second of wall time" },
};

static const struct metric_group_def sw_groups[] = {
	{ "software", "Software-event rates that work on every machine",
	  "cpus_utilized,context_switches_per_sec,cpu_migrations_per_sec,page_faults_per_sec,"
	  "minor_faults_per_sec,major_faults_per_sec" },
};

const struct metric_table metric_table_sw = {
	METRIC_ANY, sw_metrics, ARRAY_SIZE(sw_metrics), sw_groups, ARRAY_SIZE(sw_groups),
};

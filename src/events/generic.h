/* perf's generic event names, encoded exactly as perf 6.1 encodes them: hardware events,
 * hardware cache events (config = cache | op << 8 | result << 16), software events and the
 * duration_time tool event. Also the Arm PMUv3 recommended events that the kernel leaves out
 * of sysfs. */
#ifndef LPERF_EVENTS_GENERIC_H
#define LPERF_EVENTS_GENERIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum generic_kind { GENERIC_HW, GENERIC_SW, GENERIC_TOOL };

struct generic_event {
	const char *name;   /* perf's first spelling: "cpu-cycles" */
	const char *alias;  /* perf's other spelling: "cycles", or NULL */
	enum generic_kind kind;
	uint64_t config;
	const char *desc;
};

const struct generic_event *generic_events(size_t *n);

/* Matches name (case-insensitive) against the hardware, software and tool names. */
const struct generic_event *generic_find(const char *name);

/* Parses a hardware cache name ("L1-dcache-load-misses", "LLC-stores", "dTLB-load-refs").
 * 1 with *config set; 0 when name is not a cache event; -1 with err_set() when it names a
 * cache and operation that perf rejects (iTLB-stores). */
int generic_cache_parse(const char *name, uint64_t *config);

/* The hardware cache names `perf list` shows (every valid cache/op with access and miss),
 * e.g. "L1-dcache-loads", "L1-dcache-load-misses". Returns the count; fills at most max. */
struct generic_cache_name {
	char name[40];
	uint64_t config;
};
size_t generic_cache_names(struct generic_cache_name *out, size_t max);

/* Arm PMUv3 recommended (IMPDEF range) events: ld_spec 0x70, st_spec 0x71, ... */
struct generic_arm_event {
	const char *name;
	uint16_t code;
};
const struct generic_arm_event *generic_arm_events(size_t *n);

#endif

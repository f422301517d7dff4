/* perf stat's "shadow" metrics: the derived value perf prints after a count on the same line
 * (CPUs utilized for a clock, insn per cycle, GHz, the share of branch or cache misses, and
 * otherwise the count per second of task time), computed within one aggregation unit. */
#ifndef LPERF_STAT_STAT_SHADOW_H
#define LPERF_STAT_STAT_SHADOW_H

#include <stdbool.h>
#include <stddef.h>

#include "stat/stat_aggr.h"

enum stat_shadow_kind {
	STAT_SHADOW_NONE,
	STAT_SHADOW_RATIO,   /* 3 decimals: CPUs utilized, GHz, K/sec */
	STAT_SHADOW_IPC,     /* 2 decimals: insn per cycle */
	STAT_SHADOW_PERCENT, /* 2 decimals and '%': of all branches */
};

struct stat_shadow {
	enum stat_shadow_kind kind;
	double value;
	char unit[32];       /* "CPUs utilized", "K/sec", "insn per cycle" */
};

/* The shadow metric of event e in unit u. wall_s is the wall time the counts cover (the
 * interval's length for interval rows). kind NONE when the event has none or its inputs were
 * not counted. */
void stat_shadow_of(const struct stat_result *r, const struct stat_aggr_unit *u, size_t e, double wall_s,
		    struct stat_shadow *out);
/* True for the clocks perf shows in msec (task-clock, cpu-clock). */
bool stat_ev_is_clock(const struct ev *ev);

#endif

#include "stat/stat_shadow.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

bool stat_ev_is_clock(const struct ev *ev)
{
	return ev->source == EV_SRC_SOFTWARE &&
	       (ev->attr.config == PERF_COUNT_SW_CPU_CLOCK || ev->attr.config == PERF_COUNT_SW_TASK_CLOCK);
}

static bool same_mode(const struct ev *a, const struct ev *b)
{
	return a->attr.exclude_user == b->attr.exclude_user && a->attr.exclude_kernel == b->attr.exclude_kernel;
}

/* The value in unit u of the first counted event like `like` that `match` accepts; NAN if none. */
static double find_value(const struct stat_result *r, const struct stat_aggr_unit *u, const struct ev *like,
			 bool (*match)(const struct ev *ev, unsigned long long arg), unsigned long long arg)
{
	for (size_t e = 0; e < r->nev; e++) {
		const struct ev *ev = &r->evl->ev[e];
		if (!match(ev, arg) || !same_mode(ev, like))
			continue;
		struct stat_value v;
		stat_aggr_value(r, e, u, &v);
		if (v.status == COUNTER_NOT_SUPPORTED || v.status == COUNTER_NOT_COUNTED)
			continue;
		return v.scaled;
	}
	return NAN;
}

static bool match_clock(const struct ev *ev, unsigned long long arg)
{
	(void)arg;
	return stat_ev_is_clock(ev);
}

static bool match_hw(const struct ev *ev, unsigned long long config)
{
	return ev->attr.type == PERF_TYPE_HARDWARE && ev->attr.config == config;
}

static void set(struct stat_shadow *out, enum stat_shadow_kind kind, double v, const char *unit)
{
	out->kind = kind;
	out->value = v;
	snprintf(out->unit, sizeof(out->unit), "%s", unit);
}

/* Per second of task time, scaled as perf scales it: /sec, K/sec, M/sec, G/sec. */
static void rate(struct stat_shadow *out, double count, double clock_ns)
{
	double v = clock_ns > 0 ? 1e9 * count / clock_ns : 0;
	const char *unit = "/sec";
	if (v > 1e9) {
		v /= 1e9;
		unit = "G/sec";
	} else if (v > 1e6) {
		v /= 1e6;
		unit = "M/sec";
	} else if (v > 1e3) {
		v /= 1e3;
		unit = "K/sec";
	}
	set(out, STAT_SHADOW_RATIO, v, unit);
}

void stat_shadow_of(const struct stat_result *r, const struct stat_aggr_unit *u, size_t e, double wall_s,
		    struct stat_shadow *out)
{
	memset(out, 0, sizeof(*out));
	const struct ev *ev = &r->evl->ev[e];
	struct stat_value v;
	stat_aggr_value(r, e, u, &v);
	if (v.status == COUNTER_NOT_SUPPORTED || v.status == COUNTER_NOT_COUNTED)
		return;
	double x = ev->source == EV_SRC_TOOL ? r->duration * 1e9 : v.scaled;
	if (stat_ev_is_clock(ev)) {
		set(out, STAT_SHADOW_RATIO, wall_s > 0 ? x / (wall_s * 1e9) : 0, "CPUs utilized");
		return;
	}
	if (ev->attr.type == PERF_TYPE_HARDWARE) {
		double cycles = find_value(r, u, ev, match_hw, PERF_COUNT_HW_CPU_CYCLES);
		double clock = find_value(r, u, ev, match_clock, 0);
		switch (ev->attr.config) {
		case PERF_COUNT_HW_INSTRUCTIONS:
			if (isfinite(cycles))
				set(out, STAT_SHADOW_IPC, cycles > 0 ? x / cycles : 0, "insn per cycle");
			return;
		case PERF_COUNT_HW_CPU_CYCLES:
			if (isfinite(clock))
				set(out, STAT_SHADOW_RATIO, clock > 0 ? x / clock : 0, "GHz");
			return;
		case PERF_COUNT_HW_BRANCH_MISSES: {
			double br = find_value(r, u, ev, match_hw, PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
			if (isfinite(br))
				set(out, STAT_SHADOW_PERCENT, br > 0 ? 100 * x / br : 0, "of all branches");
			return;
		}
		case PERF_COUNT_HW_CACHE_MISSES: {
			double refs = find_value(r, u, ev, match_hw, PERF_COUNT_HW_CACHE_REFERENCES);
			if (isfinite(refs))
				set(out, STAT_SHADOW_PERCENT, refs > 0 ? 100 * x / refs : 0, "of all cache refs");
			return;
		}
		default:
			break;
		}
	}
	double clock = find_value(r, u, ev, match_clock, 0);
	if (isfinite(clock) && clock > 0)
		rate(out, x, clock);
}

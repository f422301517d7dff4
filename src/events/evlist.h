/* Event lists: the -e grammar shared by every command, and each item resolved to a
 * perf_event_attr.
 *
 * Grammar (comma-separated items, optionally inside one level of {} groups):
 *   generic perf names   cycles, instructions, L1-dcache-load-misses, cpu-clock, page-faults...
 *   sysfs PMU events     ld_spec (any PMU, case-insensitive), armv8_pmuv3_0/ld_spec/,
 *                        pmu/event=0x70,umask=0x1/ (terms encoded through the PMU's format/ files)
 *   libpfm4 names        INST_RETIRED:ANY_P
 *   raw events           r1b, r00c0 (also WindowsPerf's plain 0x1b)
 *   tracepoints          sched:sched_switch
 *   tool event           duration_time (EV_SRC_TOOL: measured by lperf, never opened)
 *   modifiers            :u :k :h (combinable, e.g. :uk) with perf's semantics, :p (precise_ip,
 *                        up to :ppp; :P the PMU's highest, caps/max_precise); after a PMU term
 *                        list as cpu/event=0x3c/u; after a group
 *                        as {a,b}:u (applied to every member); :W after a group makes it weak;
 *                        NAME//u (an empty term list after any event) is NAME:u
 *   sampling period      name:100000 (WindowsPerf's spelling, for record/sample)
 *
 * Resolution order: generic names, sysfs events (core PMUs first), raw codes, tracepoints,
 * libpfm4. Where ':' is ambiguous, the longest spelling that names an event wins and the parts
 * after it are read as modifiers and period (INST_RETIRED:ANY_P:u, sched:sched_switch:1000).
 * A name that is known but whose PMU is absent here still resolves: opening is the counting
 * code's job. Raw codes use the core PMU's type when exactly one core PMU exists (as newer
 * perf does on Arm), PERF_TYPE_RAW otherwise.
 */
#ifndef LPERF_EVENTS_EVLIST_H
#define LPERF_EVENTS_EVLIST_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ev_source {
	EV_SRC_SOFTWARE,   /* PERF_TYPE_SOFTWARE */
	EV_SRC_HARDWARE,   /* PERF_TYPE_HARDWARE generic names */
	EV_SRC_HWCACHE,    /* PERF_TYPE_HW_CACHE generic names */
	EV_SRC_SYSFS,      /* a named or term-list event of a sysfs PMU */
	EV_SRC_PFM,        /* resolved by libpfm4 */
	EV_SRC_RAW,        /* rNNNN */
	EV_SRC_TRACEPOINT, /* subsys:name */
	EV_SRC_TOOL,       /* duration_time: measured by lperf itself, never opened */
};

struct ev {
	char *name;        /* the user's spelling without period, e.g. "ld_spec:u", "cycles" */
	char *base;        /* name without modifiers, lower-case for sysfs names: "ld_spec" */
	char *pmu;         /* PMU that serves it: "cpu", "armv8_pmuv3_0", "software", "tracepoint" */
	char *encoding;    /* human-readable encoding: "armv8_pmuv3_0/event=0x70/" or libpfm's fstr */
	struct perf_event_attr attr;
	enum ev_source source;
	int group;         /* group number (0..), or -1 when not in a {} group (the tool event
			    * is never in one: it is not opened) */
	size_t leader;     /* index of the group leader in the list (itself when ungrouped) */
	uint64_t period;   /* from name:PERIOD, 0 when not given */
	char *metric;      /* the metric that asked for this event, NULL for -e events */
	bool user_mods;    /* :u/:k/:h given: exclude_* bits are the user's, not defaults */
	bool needs_hw;     /* counted by a hardware PMU (fails on machines without one) */
	bool weak;         /* a member of a weak group ({a,b}:W): opened one by one when the group
			    * cannot be opened as one */
	char *cgroup;      /* stat -G: counted only in this cgroup (a path under the cgroup mount,
			    * as given), NULL: everywhere */
	bool offcpu;       /* record --off-cpu's "offcpu-time": a bpf-output event whose samples
			    * lperf writes at the end (kernel/offcpu.h) */
};

struct evlist {
	struct ev *ev;
	size_t n, cap;
	int ngroups;
};

/* Parses spec and appends its events. 0, or -1 with err_set() naming the item and, for unknown
 * names, the closest known spellings. */
int evlist_parse(struct evlist *l, const char *spec);
/* Appends the events of one metric as a group (metric = its name), reusing nothing. */
int evlist_add_metric_events(struct evlist *l, const char *const *names, size_t n,
			     const char *metric, bool group);
/* Index of the first event whose base name or name equals `name` (case-insensitive), or -1. */
long evlist_find(const struct evlist *l, const char *name);
void evlist_free(struct evlist *l);

/* Resolves one event name (no modifiers, no period) into ev (name/base/pmu/encoding/attr/source
 * filled). Used by the parser and by metrics. */
int ev_resolve(const char *name, struct ev *ev);
/* Frees the strings of one event (from ev_resolve) and clears it. */
void ev_free(struct ev *ev);

/* Applies the default privilege filter: where the user gave no :u/:k/:h, exclude_kernel and
 * exclude_hv are set when `user_only` (perf_event_paranoid forbids kernel counting), and
 * cleared otherwise. Tracepoints (they fire in the kernel) and the tool event are left alone. */
void evlist_set_default_excludes(struct evlist *l, bool user_only);

/* A catalog of every event name usable here, for `lperf list` and suggestions. */
struct ev_info {
	const char *name;    /* "cycles", "ld_spec", "sched:sched_switch" */
	const char *alias;   /* perf's other spelling ("cpu-cycles" OR "cycles"), or NULL */
	const char *pmu;     /* "software", "cpu", "armv8_pmuv3_0", libpfm PMU name, "tracepoint" */
	const char *section; /* "software", "hardware", "hardware cache", "sysfs", "libpfm4", "tracepoint" */
	const char *desc;    /* may be NULL */
	uint32_t type;
	uint64_t config;
	bool usable;         /* false when this machine cannot open it (no such PMU here) */
};

struct ev_catalog {
	struct ev_info *info;
	size_t n, cap;
	char **strings;      /* owned strings, freed with the catalog */
	size_t nstrings, strcap;
};

/* Builds the catalog. include_pfm adds libpfm4's tables for the PMUs it detects (or forces via
 * LIBPFM_FORCE_PMU); include_tracepoints reads tracefs (can be thousands of entries). */
int ev_catalog_build(struct ev_catalog *c, bool include_pfm, bool include_tracepoints);
void ev_catalog_free(struct ev_catalog *c);

/* True when a core hardware PMU is exposed (sysfs has a PMU that serves PERF_TYPE_HARDWARE:
 * "cpu", "cpu_core", "cpu_atom", "armv8_*", "armv9_*", or any PMU directory with a "cpus"
 * file whose events/ has cpu_cycles, cycles, cpu-cycles, inst_retired or instructions).
 * Uncore PMUs publish "cpumask", not "cpus", and msr/software/tracepoint... never qualify. */
bool ev_have_hw_pmu(void);

#endif

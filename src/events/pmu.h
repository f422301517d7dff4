/* sysfs PMUs: <sysfs_root>/bus/event_source/devices/<pmu>/{type,cpus,cpumask,format/,events/},
 * read once per process (per sysfs root) and kept. Term lists such as "event=0x70,long=1" are
 * encoded into config/config1/config2 through the PMU's format files, the way perf does. */
#ifndef LPERF_EVENTS_PMU_H
#define LPERF_EVENTS_PMU_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { PMU_CONFIG, PMU_CONFIG1, PMU_CONFIG2, PMU_NFIELDS };

struct pmu_format {
	char *name;           /* "event", "umask", "long" */
	int field;            /* PMU_CONFIG.. */
	uint64_t mask;        /* the bits of that field, possibly several ranges */
	char *bad;            /* why the format file could not be used, or NULL */
};

struct pmu_event {
	char *name;           /* as the kernel spells it: "ld_spec", "cpu-cycles" */
	char *terms;          /* "event=0x0070" */
	char *unit;           /* from <name>.unit, or NULL */
	double scale;         /* from <name>.scale, 1 when absent */
	bool builtin;         /* from lperf's Arm table, not from sysfs */
};

struct pmu {
	char *name;
	uint32_t type;
	bool is_core;         /* serves the CPUs' own counters (see pmu_is_core_dir) */
	bool is_arm;          /* an Arm PMUv3 (armv8_* / armv9_*) */
	char *cpus;           /* "cpus" or "cpumask" contents, or NULL */
	bool uncore;          /* publishes a "cpumask" and serves no CPU's own counters: one unit
			       * counted whichever CPU reads it (DSU, DMC, RAPL) */
	struct pmu_format *fmt;
	size_t nfmt;
	struct pmu_event *ev;
	size_t nev;
};

struct pmu_table {
	struct pmu *p;        /* core PMUs first, then by name */
	size_t n;
};

/* The PMUs under the current sysfs root; never NULL (empty when the directory is missing). */
const struct pmu_table *pmu_table(void);
/* Forgets the cached table (tests switch LPERF_SYSFS_ROOT). */
void pmu_table_reset(void);

const struct pmu *pmu_find(const char *name);
const struct pmu_event *pmu_find_event(const struct pmu *p, const char *name);
const struct pmu_format *pmu_find_format(const struct pmu *p, const char *name);
/* Searches every PMU's events (core PMUs first) for name, case-insensitively. */
bool pmu_lookup_event(const char *name, const struct pmu **pmu, const struct pmu_event **ev);
/* The only core PMU, or NULL when there is none or more than one (hybrid systems). */
const struct pmu *pmu_single_core(void);
bool pmu_have_core(void);
/* True for PMUs whose events the CPU's counters do not serve: software, tracepoint... */
bool pmu_is_software(const char *name);

/* What a term list asks for besides config bits. */
struct pmu_extra {
	uint64_t period;      /* period=N, 0 when absent */
	char *name;           /* name=..., owned by the caller, NULL when absent */
	const char *event;    /* the named event the list referred to ("ld_spec"), or NULL */
};

/* Encodes "term=value,term,..." (perf's spelling) into attr->config/config1/config2.
 * A term is a format name, config/config1/config2, period or name, or one of the PMU's named
 * events (whose own terms are applied first). Later terms override earlier bits. */
int pmu_encode(const struct pmu *p, const char *terms, struct perf_event_attr *attr,
	       struct pmu_extra *x);
/* The valid term names of p as "event, long, config, ..." (caller frees). */
char *pmu_terms_list(const struct pmu *p);

#endif

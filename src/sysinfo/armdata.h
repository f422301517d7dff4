/* Arm's per-CPU PMU data, read at run time: the JSON files Arm publishes and Linux carries under
 * tools/perf/pmu-events/arch/arm64 (the Arm ARM's common and recommended events, each core's
 * events with their long descriptions, the Neoverse Telemetry Solution metrics), taken from
 * a Debian linux-source package (trixie-backports, else bookworm's 6.12) into a cache by
 * scripts/arm-data.sh. Parsed with json-c;
 * every file is untrusted (size, JSON syntax, UTF-8, field types). `wperf man` reads it
 * (wperf/wperf_man.c). Nothing here prints. */
#ifndef LPERF_SYSINFO_ARMDATA_H
#define LPERF_SYSINFO_ARMDATA_H

#include <stdbool.h>
#include <stddef.h>

struct armdata_event {
	char *name;     /* lower case, as wperf spells events: "ld_spec" */
	char *title;    /* the short description: "Operation speculatively executed, load" */
	char *desc;     /* the long one (the CPU's when it has one); "" when none */
	unsigned code;  /* the event number; 0 when the data gives none */
};

struct armdata_metric {
	char *name;     /* "branch_percentage" */
	char *desc;     /* "" when none */
	char *formula;  /* the expression as the data writes it */
	char *unit;     /* "percent of operations" (the scale before it left out) */
	char *events;   /* the events of the formula, lower case, in order: "br_immed_spec,..." */
	char *groups;   /* "MPKI;Branch_Effectiveness" ("" when none) */
};

/* What the data says about one CPU. */
struct armdata {
	struct armdata_event *ev;
	size_t nev;
	struct armdata_metric *m;
	size_t nm;
};

/* A CPU the data describes: "armv8-a" and "armv9-a" (the architecture's events; dir NULL), then
 * each core of mapfile.csv that sysinfo names ("neoverse-n2" -> "arm/neoverse-n2-v2"). */
struct armdata_cpu {
	char *name;
	char *dir;
	bool armv9;     /* armv9-a: also the Armv9 trace, cross-trigger and overflow events */
};

struct armdata_cpus {
	struct armdata_cpu *c;
	size_t n;
};

/* Where the data is: $LPERF_ARM_DATA, else the cache the build made (LPERF_ARMDATA_DIR), else
 * the one `make install` put in /usr/local/share/lperf/arm-data. */
const char *armdata_dir(void);

/* The CPUs of dir's mapfile.csv; -1 with err_set (naming the file, and the package when the
 * cache is missing). */
int armdata_cpus(const char *dir, struct armdata_cpus *out);
void armdata_cpus_free(struct armdata_cpus *c);
/* name, or an alias of one (a revision suffix, "neoverse-n2-r0p3" is neoverse-n2); NULL when
 * the data has no such CPU. */
const struct armdata_cpu *armdata_cpu_find(const struct armdata_cpus *c, const char *name);
/* The names, ", " between them ("armv8-a, armv9-a, cortex-a34, ..."); malloc'd. */
char *armdata_cpu_names(const struct armdata_cpus *c);

/* Everything the data has for cpu; -1 with err_set naming the file and what is wrong. */
int armdata_load(const char *dir, const struct armdata_cpu *cpu, struct armdata *out);
/* One JSON file (an array of event or metric objects) into out; std gives the entries an
 * "ArchStdEvent" refers to (NULL: none). A later entry of the same name replaces an earlier
 * one. -1 with err_set ("FILE: ..."). */
int armdata_load_file(const char *path, const struct armdata *std, struct armdata *out);
void armdata_free(struct armdata *d);

/* Case-insensitive lookups; NULL when absent. */
const struct armdata_event *armdata_event(const struct armdata *d, const char *name);
const struct armdata_metric *armdata_metric(const struct armdata *d, const char *name);
/* Whether a metric's groups include group (case-insensitive). */
bool armdata_in_group(const struct armdata_metric *m, const char *group);

#endif

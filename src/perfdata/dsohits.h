/* Which DSOs a recording's samples hit (perfdata/dsohits.c): perf's "DSOs hit" that decide
 * whose build-ids a recording carries and what goes into the build-id cache. A small model of
 * executable mappings per process (children inherit their parent's) fed with the records in
 * order; a sample hits the DSO of its IP and, unlike perf 6.1, those of its user and kernel
 * callchain entries too (so a report can resolve every frame through the cache), and a sample
 * with a user stack copy (--call-graph dwarf) every DSO its process maps (the unwinder may read
 * any of them). */
#ifndef LPERF_PERFDATA_DSOHITS_H
#define LPERF_PERFDATA_DSOHITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/record.h"
#include "util/hashmap.h"

struct dsohit_dso {
	char *name;               /* an absolute path, "[vdso]" or "[kernel.kallsyms]" */
	int32_t pid;              /* the first process that mapped it; -1 for the kernel */
	uint8_t cpumode;          /* PERF_RECORD_MISC_USER or _KERNEL */
	bool hit;
};

struct dsohit_map {
	uint32_t pid;
	uint64_t start, end;
	size_t dso;
};

struct dsohits {
	struct dsohit_dso *dsos;
	size_t ndsos, dcap;
	struct dsohit_map *maps;
	size_t nmaps, mcap;
	uint32_t (*forks)[2];     /* child, parent */
	size_t nforks, fcap;
	size_t last;              /* the map hit last (most samples hit the same one) */
	struct hashmap by_pid;    /* pid -> its maps (struct dsohit_pid) */
	struct hashmap by_name;   /* name -> DSO index + 1 */
	/* Optional: called when a sample first hits a DSO, before the sample is passed on. */
	int (*first_hit)(void *arg, const struct dsohit_dso *d);
	void *arg;
};

/* Feeds one record (MMAP/MMAP2, FORK and SAMPLE matter). -1 when first_hit returned -1. */
int dsohits_record(struct dsohits *d, const struct evsel_set *ev, const struct perf_event_header *h);
void dsohits_free(struct dsohits *d);

#endif

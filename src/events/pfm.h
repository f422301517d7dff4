/* libpfm4: vendor event names ("INST_RETIRED:ANY_P", "skx::UOPS_ISSUED:ANY:c=1") resolved to
 * perf_event_attr with pfm_get_os_event_encoding(PFM_OS_PERF_EVENT_EXT). libpfm detects the
 * PMU from the CPU, or takes the one named by $LIBPFM_FORCE_PMU (read by pfm_initialize()).
 *
 * libpfm ships its own copy of struct perf_event_attr, which clashes with <linux/perf_event.h>,
 * so this interface passes the attr as bytes: both are the kernel's ABI layout. */
#ifndef LPERF_EVENTS_PFM_H
#define LPERF_EVENTS_PFM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Initializes libpfm once per process. 0, or -1 with err_set(). libpfm cannot switch tables
 * later (pfm_terminate() leaves detected PMUs present), so one process sees one forced PMU. */
int epfm_init(void);

/* Encodes name into attr (attr_size bytes, zeroed first). 1 on success with *fstr (libpfm's
 * fully qualified spelling, caller frees) and *pmu (its PMU name, caller frees); 0 when libpfm
 * knows no such event on the PMUs it detected; -1 with err_set() when libpfm knows the event
 * but rejects the spelling (bad unit mask or attribute). */
int epfm_encode(const char *name, void *attr, size_t attr_size, char **fstr, char **pmu);

/* Calls fn for every event and event:UMASK of the PMUs libpfm detects (or is forced to),
 * leaving out its generic "perf" and "perf_raw" PMUs. Returns the count, or -1 with err_set(). */
typedef void (*epfm_fn)(const char *pmu, const char *name, const char *desc, uint32_t type,
			uint64_t config, void *arg);
long epfm_for_each(epfm_fn fn, void *arg);

#endif

/* The recorder between a live source and a perf.data writer (perfdata/recorder.c). */
#ifndef LPERF_PERFDATA_RECORDER_H
#define LPERF_PERFDATA_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "perfdata/dsohits.h"
#include "perfdata/perfdata.h"
#include "record/record.h"
#include "util/notes.h"

/* Whose build-ids a recording carries (perf record's default, --buildid-all, -B). */
enum recorder_buildids { RECORDER_BUILDIDS_HIT, RECORDER_BUILDIDS_ALL, RECORDER_BUILDIDS_NONE };

struct recorder {
	struct perfdata_writer *w;
	struct evsel_set evsels;
	uint64_t samples, lost, lost_samples, records;
	uint64_t lost_replaced;       /* of lost, samples the caller said it replaces anyway (record
				       * --python's paused processes: session/recording.c) */
	uint64_t first_time, last_time;
	struct dsohits hits;          /* DSOs mapped and hit: their build-ids go in the header */
	enum recorder_buildids buildids;
	bool buildid_cache;           /* and copies of them into the build-id cache (and lperf's
				       * kernel symbol snapshot, symbols/ksnap.h) */
	bool ksnap_checked;           /* the snapshot was checked (once per recorder) */
	pid_t *pids;                  /* processes seen: their perf maps are stored at the end */
	size_t npids, pidcap;
	char **dumps;                 /* jitdump marker paths, and their processes */
	pid_t *dump_pids;
	size_t ndumps, dcap;
	int error;                    /* writing failed (err_msg() said why) */
	uint64_t trimmed_bytes;       /* stack-copy bytes the kernel did not fill, left out */
	uint64_t trim[65536 / 8];     /* a sample being trimmed */
	struct notes warnings;        /* JIT sources that could not be stored */
	/* Optional: sees every side-band record before it is written (record --python watches
	 * COMM and FORK for interpreters). */
	void (*watch)(void *arg, const struct perf_event_header *h);
	void *watch_arg;
};

/* A recorder writing to w; evsels (copied by value, not owned) parse the records' times. */
struct recorder *recorder_new(struct perfdata_writer *w, const struct evsel_set *evsels);
/* A record_cb: counts, remembers, writes. -1 (and error set) when writing fails. */
int recorder_record(const struct perf_event_header *h, void *arg);
/* Adds the build-ids of the DSOs hit (all mapped with RECORDER_BUILDIDS_ALL, none with _NONE;
 * the kernel's as [kernel.kallsyms], the vDSO's as [vdso]) and, when buildid_cache, copies
 * them into the build-id cache (symbols/buildid_cache.h; failures are left out silently, as
 * perf does; with kernel samples, the kernel symbol snapshot is written when the cache has no
 * usable one: symbols/ksnap.h's ksnap_refresh), the build-ids of the executables mapped, the JIT sources of the processes seen (read as
 * their owner allows unless force; refusals go to warnings) and the first and last sample times.
 * Call before perfdata_writer_close. */
void recorder_finish(struct recorder *c, bool force);
void recorder_free(struct recorder *c);

#endif

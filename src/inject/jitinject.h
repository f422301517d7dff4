/* perf inject --jit: a recording rewritten so that Linux perf resolves JIT code from jitdumps.
 *
 * For each jitdump marker mapping (jit-PID.dump, mmapped by the runtime) the dump is read, from
 * the copy the recording stores (FEAT_LPERF_JIT) or else from the marker's path, each CODE_LOAD
 * becomes <dir of the dump>/jitted-PID-INDEX.so (jitelf) and a PERF_RECORD_MMAP2 of that file at
 * the code's address, and the marker is dropped. Once a process has a jitdump its later
 * anonymous mappings (//anon, [anon:..., /memfd:) are dropped too, so the jitted files win, as in
 * perf. Everything else is copied as it is, with the events, ids and the features the writer
 * carries (command line, build-ids plus those of the jitted files, sample times, JIT sources).
 *
 * Time order: each MMAP2 carries its CODE_LOAD's time in its sample_id trailer and is written
 * just before the first later record whose time reaches it, so readers that sort within
 * FINISHED_ROUND windows (perf, lperf) see the map appear when the code did, and never flush
 * early because of a map from the future. When the recording's clock is not the dump's
 * (CLOCK_MONOTONIC, or TSC with a TIME_CONV record), the maps take the marker's time instead. */
#ifndef LPERF_JITINJECT_H
#define LPERF_JITINJECT_H

#include <stdbool.h>
#include <stddef.h>

#include "perfdata/perfdata.h"
#include "util/notes.h"

struct jitinject_opts {
	bool jit;                /* false: copy the recording unchanged (perf inject without -j) */
	bool force;              /* read jitdumps whoever owns them */
	/* --jit-dir: where the jitted files go. NULL: next to the jitdump, and only when the dump
	 * exists there (a regular file): a directory merely named by the recording is never written
	 * into, whatever copy of the dump it stores. */
	const char *jit_dir;
	/* w writes pipe mode: build-ids go into the stream as BUILD_ID records, where perf reads
	 * them in a pipe (it reads a BUILD_ID feature record from the file descriptor, which a
	 * pipe has already moved past), and the stored JIT sources stay behind (perf 6.1 fails
	 * on a feature record it does not know). */
	bool pipe_output;
	bool buildids;           /* perf inject -b (inject/buildinject.h) */
};

struct jitinject_stats {
	size_t records;          /* records read */
	size_t dumps;            /* jitdumps turned into files */
	size_t elfs;             /* jitted .so files written (= MMAP2 records added) */
	size_t markers_dropped, anon_dropped;
	size_t buildids;         /* build-ids added (-b) */
};

struct jitinject_result {
	struct jitinject_stats stats;
	/* One line each: a dump that could not be used (its marker is kept), files that could not
	 * be written, a clock that does not match the dumps'. */
	struct notes warnings;
	/* One line per dump used: where it came from, how many files went where (for -v). */
	struct notes notes;
};

/* Copies r's events, features and records to w (which must have no events yet), doing the JIT
 * work when o->jit. Returns 0, or -1 with err_set() when reading or writing fails; problems
 * with single dumps are warnings in res, never errors. The caller closes both. */
int jitinject_run(struct perfdata_reader *r, struct perfdata_writer *w, const struct jitinject_opts *o,
		  struct jitinject_result *res);
void jitinject_result_free(struct jitinject_result *res);

/* What every inject copies ahead of the first record: r's events (attrs[i] in place of event i's
 * attr when attrs is given), command line, sample times, tracepoint formats, the JIT sources
 * lperf record stored (but those of kind skip_kind, and none in pipe mode, where perf 6.1 stops
 * at a feature it does not know) and the build-ids (BUILD_ID records in pipe mode). */
int jitinject_copy_header(struct perfdata_reader *r, struct perfdata_writer *w, const struct perf_event_attr *attrs,
			  bool pipe_output, uint32_t skip_kind);
/* A record's size with the data that follows AUXTRACE and TRACING_DATA records (the reader
 * checked that it lies inside the data section). */
size_t jitinject_record_bytes(const struct perf_event_header *h);

#endif

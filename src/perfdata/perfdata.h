/* perf.data (PERFILE2): the reader (files written by lperf and by Linux perf, either byte order,
 * attr sizes 64..136+, with or without feature sections, pipe mode) and the writer (files that
 * Linux perf 6.1 reads without warnings). */
#ifndef LPERF_PERFDATA_H
#define LPERF_PERFDATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "record/feature.h"
#include "record/record.h"
#include "util/notes.h"

/* One BUILD_ID feature entry. */
struct perfdata_buildid {
	int32_t pid;
	uint8_t cpumode;
	uint8_t id[20];
	uint8_t size;
	char *filename;
};

/* A JIT symbol source stored in a recording (FEAT_LPERF_JIT). */
enum jit_source_kind { JIT_SRC_PERFMAP = 1, JIT_SRC_JITDUMP = 2, JIT_SRC_PYSTACKS = 3 /* python/pystore.h */ };
struct perfdata_jit_source {
	uint32_t kind;
	int32_t pid;
	uint8_t *data;
	size_t size;
};

/* One GROUP_DESC entry: events [leader, leader + nr) form a group ({a,b}). */
struct perfdata_group {
	char *name;           /* "" for an anonymous group */
	uint32_t leader, nr;
};

/* What the header and feature sections say (NULL / 0 where absent). */
struct perfdata_info {
	char *hostname, *osrelease, *version, *arch, *cpudesc, *cpuid;
	uint32_t nrcpus_online, nrcpus_avail;
	uint64_t total_mem_kb;
	int *cpu_node;                                /* NUMA_TOPOLOGY: each CPU's node, -1 none */
	uint32_t ncpu_node;
	char **cmdline;
	size_t ncmdline;
	uint64_t first_sample_time, last_sample_time; /* SAMPLE_TIME */
	struct perfdata_buildid *buildids;
	size_t nbuildids;
	uint64_t clockid_res_ns;                      /* CLOCKID */
	/* COMPRESSED (perf record -z): type 1 = zstd, level, ratio (raw / compressed, rounded down) */
	uint32_t comp_type, comp_level, comp_ratio;
	bool has_feature[FEAT_MAX];
	uint64_t lost_replaced;                       /* LPERF_LOST: of the samples the LOST records
						       * count, those of paused Python processes */
	struct perfdata_jit_source *jit_sources;
	size_t njit_sources;
	/* perf's tracing data (the TRACING_DATA feature, or the data after a pipe's
	 * HEADER_TRACING_DATA record): the tracepoints' formats (events/tracedata.h). */
	struct perfdata_group *groups;                /* GROUP_DESC */
	size_t ngroups;
	uint8_t *tracing_data;
	size_t tracing_size;
	uint64_t tracing_off;                         /* its file offset, for messages */
	/* Warnings: damaged feature sections (the rest of the file is still read), a data size
	 * of 0. One line each, "perf.data: feature HOSTNAME at offset 0x...: ...". */
	struct notes notes;
};

struct perfdata_reader {
	const char *path;
	int fd;
	const uint8_t *map;   /* the whole file, mmapped read-only (regular files) */
	size_t size;
	bool swap;            /* written on a machine of the other byte order */
	bool pipe;            /* pipe-mode stream (header of 16 bytes, attrs as records) */
	struct evsel_set evsels;
	uint64_t data_offset, data_size;
	bool truncated;       /* the file ends inside its data section: data_size is cut to the file */
	uint64_t features[4];
	struct perfdata_info info;
	uint8_t *bounce;      /* byte-swapped copy of the current record */
	size_t bounce_cap;
	uint8_t *owned;       /* a pipe or stdin read into memory (map points here) */
	bool mapped;          /* map is an mmap of the file */
	uint64_t offset;      /* file offset of the record being delivered by perfdata_for_each */
	uint64_t seen_end;    /* pipe mode: how far a walk got; later walks do not re-add events */
	struct perfdata_decomp *decomp; /* perf record -z: the walk's zstd stream */
	uint64_t released;    /* mapped bytes before this were handed back (MADV_DONTNEED) */
	bool stream;          /* a pipe-mode stream on a pipe or stdin: read record by record from
			       * stream_fd by perfdata_for_each, which can walk it only once */
	int stream_fd;
	uint64_t compressed_records; /* COMPRESSED records the walks have opened */
	/* perfdata_for_each reads the data section with pread into a buffer of its own, not through
	 * the mapping: for a caller done with each record when cb returns (a report in the order an
	 * earlier one learnt; its workers keep records with perfdata_walk_hold). Faulting 80 MB of
	 * stack copies in page by page and handing the pages back cost more than copying them, and
	 * the copy is in the caches when the record is read. offset says where each record lies; a
	 * record over 128 KiB is still delivered from the mapping. */
	bool read_walk;
	struct perfdata_rring *ring; /* read_walk's buffers (perfdata_readwalk.c) */
	uint64_t consumed[17];       /* pipe-mode records the walks consumed (HEADER_ATTR,
				      * EVENT_UPDATE, HEADER_FEATURE), by type - REC_HEADER_ATTR */
};

/* Opens and validates the header, attrs, ids and features. -1 with err_set() naming the file,
 * the offset or field, and the problem ("perf.data: attr 0 at offset 104: size 512 is larger
 * than ..."). */
int perfdata_open(struct perfdata_reader *r, const char *path);
/* perfdata_open refuses a regular file owned by neither the effective user nor root (as perf
 * does without -f); force reads it anyway. */
int perfdata_open_force(struct perfdata_reader *r, const char *path, bool force);
/* A non-regular input (a pipe, standard input) is checked as soon as its first 16 bytes are in
 * (so /dev/zero is refused at once); a pipe-mode stream is then read as it comes, record by
 * record, in constant memory; a file-mode one is read whole (its sections need random access).
 * The same over bytes in memory (not copied: buf must outlive the reader); name is used in
 * messages. path "-" in perfdata_open reads standard input. */
int perfdata_open_mem(struct perfdata_reader *r, const char *name, const void *buf, size_t size);
/* Calls cb for every record of the data section, in file order; records of an other-endian file
 * are byte-swapped first. A record that overruns the section or has size < 8 stops with an error
 * naming its offset. cb returning non-zero stops the walk and is returned.
 * HEADER_ATTR, HEADER_FEATURE and EVENT_UPDATE records (pipe mode) are consumed here: they add
 * events, fill info and rename events; cb never sees them. The header cb receives is 8-aligned
 * and valid only during the call. AUXTRACE and TRACING_DATA records are followed by data that
 * header.size does not count; it lies right after the record in memory. */
int perfdata_for_each(struct perfdata_reader *r, record_cb cb, void *arg);
/* A record perfdata_for_each_peek read only the start of: at is where it lies in the mapping
 * (not read yet), head a copy of its first len bytes (8-aligned, valid during the call): the
 * whole record when len == at's size, else at least 256 bytes of a sample. */
typedef int (*record_peek_cb)(const struct perf_event_header *at, const struct perf_event_header *head, size_t len,
			      void *arg);
/* perfdata_for_each for a caller that reads most records later through the mapping (the time
 * ordering of a file without FINISHED_ROUND): after a large record (a DWARF sample's stack copy)
 * the next record's start is read with pread, not faulted in with the pages around it, which
 * the later reading would map a second time; such records go to peek, the others to cb. Only
 * until the first FINISHED_ROUND: records then go out soon after the walk passes them. A file
 * that is not mapped (a pipe, a buffer) is walked by perfdata_for_each. */
int perfdata_for_each_peek(struct perfdata_reader *r, record_cb cb, record_peek_cb peek, void *arg);
/* perfdata_reader.read_walk: keeps the read buffer that holds h (len bytes from h, a record cb
 * was given) from being reused after cb returns, so the record stays as it is without a copy;
 * the walk reads on into another buffer. NULL when h does not lie whole inside the walk's current
 * buffer (a record from the mapping, a byte-swapped or decompressed copy, no walk running): the
 * caller copies it then. Every hold is released (perfdata_walk_release, NULL is ignored) before
 * perfdata_close, on the walk's thread: the buffers are not locked. */
struct perfdata_rbuf;
struct perfdata_rbuf *perfdata_walk_hold(const struct perfdata_reader *r, const void *h, size_t len);
void perfdata_walk_release(struct perfdata_rbuf *b);
void perfdata_close(struct perfdata_reader *r);
/* A pipe's BUILD_ID record (perf inject -b writes them ahead of samples), added to info. */
int perfdata_buildid_record(struct perfdata_info *info, const struct perf_event_header *h);
/* "HOSTNAME", "CMDLINE"... (static). */
const char *perfdata_feature_name(int bit);

/* The writer. Records stream to "PATH.tmp.PID"; close(commit=true) writes the features and the
 * header, fsyncs, keeps an existing PATH as PATH.old (when keep_old) and renames into place.
 * PATH "-" writes pipe mode to standard output (perf record -o -): the events and the features
 * known at the first record go ahead of the data as records; close only flushes. */
struct perfdata_writer;
struct perfdata_writer *perfdata_writer_open(const char *path);
/* Events, before the first record: attr (written with size 128 as perf 6.1 expects), name (for
 * EVENT_DESC) and the kernel ids of its fds. */
int perfdata_writer_add_event(struct perfdata_writer *w, const struct perf_event_attr *attr,
			      const char *name, const uint64_t *ids, size_t nids);
int perfdata_writer_write(struct perfdata_writer *w, const void *rec, size_t size);
/* perf record -z: from now on records are written zstd-compressed (COMPRESSED records in
 * batches, FINISHED_ROUND between them, HEADER_COMPRESSED), as perf 6.1 writes and reads them.
 * level 1..22. Files only. -1 with err_set(). */
int perfdata_writer_compress(struct perfdata_writer *w, int level);
/* With -z: writes the batch still held, then gives the record bytes given and the bytes written
 * for them (0 and 0 without -z). -1 with err_set() when writing the batch failed. */
int perfdata_writer_compression(struct perfdata_writer *w, uint64_t *raw, uint64_t *written);
/* Feature content lperf cannot find itself: the command line and the build-ids of the DSOs hit.
 * argv is main's: CMDLINE holds lperf's own path (as perf stores its binary), then argv[1..]. */
void perfdata_writer_set_cmdline(struct perfdata_writer *w, int argc, char **argv);
void perfdata_writer_add_buildid(struct perfdata_writer *w, int32_t pid, uint8_t cpumode,
				 const uint8_t *id, size_t size, const char *filename);
/* Stores a copy of a JIT symbol source of process pid (FEAT_LPERF_JIT). */
void perfdata_writer_add_jit_source(struct perfdata_writer *w, uint32_t kind, int32_t pid,
				    const void *data, size_t size);
/* An event group ({a,b}): events [leader, leader + nr) in the order they were added, nr > 1;
 * name NULL for an anonymous one (GROUP_DESC, which perf's report --group and evlist -g read). */
void perfdata_writer_add_group(struct perfdata_writer *w, const char *name, uint32_t leader, uint32_t nr);
/* perf's tracing data (events/tracedata.h) for the tracepoint events: the TRACING_DATA feature, or
 * in pipe mode a HEADER_TRACING_DATA record ahead of the data. Before the first record. */
int perfdata_writer_set_tracing_data(struct perfdata_writer *w, const void *data, size_t len);
/* The CPUID feature (perf's spelling: "0x00000000410fd0c0" on arm64, whose MIDR Arm SPE's
 * data-source decoding needs). Without this call an arm64 machine's MIDR_EL1 is written. */
void perfdata_writer_set_cpuid(struct perfdata_writer *w, const char *cpuid);
/* The STAT feature: the file holds perf stat record's counts (perfdata_stat.h). */
void perfdata_writer_set_stat(struct perfdata_writer *w);
/* Marks a record --wall recording (FEAT_LPERF_WALL; not on a pipe, where perf 6.1 stops at a
 * feature it does not know). */
void perfdata_writer_set_wall(struct perfdata_writer *w);
/* LPERF_LOST: n of the samples the file's LOST records count were the kernel's samples of
 * processes whose samples lperf wrote itself (record --python's paused ones); 0 writes nothing.
 * Not on a pipe: its features go out before the data, and perf 6.1 stops at one it does not know. */
void perfdata_writer_set_lost_replaced(struct perfdata_writer *w, uint64_t n);
/* Without this call SAMPLE_TIME holds the first and last sample times the writer saw. */
void perfdata_writer_set_sample_times(struct perfdata_writer *w, uint64_t first, uint64_t last);
/* Writes HOSTNAME, OSRELEASE, VERSION, ARCH, NRCPUS, CPUDESC, TOTAL_MEM, CMDLINE, EVENT_DESC,
 * BUILD_ID, SAMPLE_TIME (and CLOCKID when attrs use one). A recording without records gets one
 * FINISHED_ROUND, as perf warns about an empty data section. Frees the writer in both cases;
 * !commit removes the temporary file. */
int perfdata_writer_close(struct perfdata_writer *w, bool commit, bool keep_old);
uint64_t perfdata_writer_bytes(const struct perfdata_writer *w);

#endif

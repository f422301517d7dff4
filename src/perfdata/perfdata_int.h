/* Internal to the perf.data reader and writer: perf's file layout constants and the feature
 * section parser shared by file mode (sections) and pipe mode (HEADER_FEATURE records). */
#ifndef LPERF_PERFDATA_INT_H
#define LPERF_PERFDATA_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "perfdata/perfdata.h"
#include "util/strbuf.h"

/* "PERFILE2" read as a little-endian u64. */
#define PERFDATA_MAGIC 0x32454c4946524550ULL
#define PERFDATA_HEADER_SIZE 104      /* struct perf_file_header */
#define PERFDATA_HEADER_OLD 72        /* before adds_features */
#define PERFDATA_PIPE_HEADER_SIZE 16  /* struct perf_pipe_file_header */
#define PERFDATA_NAME_ALIGN 64        /* perf pads feature strings to this */
#define PERFDATA_EVENT_UPDATE_NAME 2  /* PERF_EVENT_UPDATE__NAME */
#define PERFDATA_MAX_EVENTS 65536     /* perf records hundreds at most; more is a damaged file */

/* Native-endian words appended to a section or record being built. */
static inline void fput32(struct strbuf *sb, uint32_t v) { sb_add(sb, &v, sizeof(v)); }
static inline void fput64(struct strbuf *sb, uint64_t v) { sb_add(sb, &v, sizeof(v)); }
/* perf's do_write_string: u32 length including the NUL, padded to 64, then the bytes. */
static inline void fput_string(struct strbuf *sb, const char *s)
{
	static const char zeros[PERFDATA_NAME_ALIGN];
	size_t n = strlen(s) + 1, len = (n + PERFDATA_NAME_ALIGN - 1) / PERFDATA_NAME_ALIGN * PERFDATA_NAME_ALIGN;
	fput32(sb, (uint32_t)len);
	sb_add(sb, s, n);
	sb_add(sb, zeros, len - n);
}
/* The NUMA_TOPOLOGY feature from sysfs (perf c2c needs it): nodes with their memory and CPU
 * lists; one node holding every online CPU where sysfs has no node directory. */
void perfdata_numa_feature(struct strbuf *sb);

/* What the buffered walk (perfdata_readwalk.c) takes from the reader's own walk (perfdata_read.c):
 * check, the record whose header nh (native byte order) lies at file offset off, its size
 * checked against the data section ending at end and its size with the data after it in
 * *total (-1 with err_set() naming the offset and field otherwise); deliver, record h (total
 * bytes, at off) handed to cb as the walks hand records (byte-swapped or realigned first,
 * pipe-mode records consumed, COMPRESSED records opened). */
struct perfdata_walk_ops {
	int (*check)(const struct perfdata_reader *r, uint64_t off, uint64_t end, const struct perf_event_header *nh,
		     size_t *total);
	int (*deliver)(struct perfdata_reader *r, const struct perf_event_header *h, size_t total, uint64_t off,
		       record_cb cb, void *arg);
};
/* perfdata_for_each with r->read_walk. */
int perfdata_walk_read(struct perfdata_reader *r, record_cb cb, void *arg, const struct perfdata_walk_ops *ops);
/* Frees read_walk's buffers (perfdata_close). */
void perfdata_ring_free(struct perfdata_reader *r);

/* Parses feature feat from native bytes (swapped already) into r->info and r->evsels (EVENT_DESC
 * names). A damaged section adds a note naming file_off and returns -1; features lperf does not
 * read return 0. */
int perfdata_feat_parse(struct perfdata_reader *r, int feat, const uint8_t *data, size_t size, uint64_t file_off);
void perfdata_info_free(struct perfdata_info *info);
/* Keeps a copy of the first tracing data seen (file_off: where it lies, for messages). */
void perfdata_keep_tracing(struct perfdata_info *info, const uint8_t *data, size_t size, uint64_t file_off);

/* 1 when h is a pipe-mode record describing the recording (HEADER_ATTR, HEADER_FEATURE,
 * EVENT_UPDATE: perfdata_pipe.c), taken into r; 0 for any other record; -1 after err_set. */
int perfdata_consume(struct perfdata_reader *r, const struct perf_event_header *h);

#endif

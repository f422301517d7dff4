/* perf record -z: PERF_RECORD_COMPRESSED records carry other records, zstd-compressed, as one
 * stream across the whole data section (a record may continue in the next COMPRESSED record).
 * The decompressor turns them back into records; the writer side compresses batches of records
 * into COMPRESSED records perf 6.1 reads (HEADER_COMPRESSED describes them). */
#ifndef LPERF_PERFDATA_COMPRESS_H
#define LPERF_PERFDATA_COMPRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/record.h"

struct perfdata_decomp;

/* A decompressor; name (the file) is used in messages. NULL with err_set() when zstd cannot
 * allocate its context. */
struct perfdata_decomp *perfdata_decomp_new(const char *name);
/* Decompresses the payload of the COMPRESSED record at file offset off and calls cb for each
 * whole record now available (8-aligned, valid during the call; bytes of a record not yet
 * complete wait for the next call). A record smaller than its header, or bigger than 64 KiB,
 * or a zstd error is -1 with err_set() naming the offset; cb's non-zero is returned. */
int perfdata_decomp_feed(struct perfdata_decomp *d, const void *payload, size_t n, uint64_t off, record_cb cb,
			 void *arg);
/* Bytes of an unfinished record left at the end (0 for a whole stream). */
size_t perfdata_decomp_pending(const struct perfdata_decomp *d);
/* Totals for messages: compressed bytes in, record bytes out. */
void perfdata_decomp_totals(const struct perfdata_decomp *d, uint64_t *in, uint64_t *out);
void perfdata_decomp_free(struct perfdata_decomp *d);

/* The compressor (record -z). level: zstd's 1..22. NULL with err_set() as above. */
struct perfdata_comp;
struct perfdata_comp *perfdata_comp_new(int level);
/* Compresses the records in buf (n bytes of whole records) into COMPRESSED records of at most
 * 64 KiB each, appended to *out (grown with realloc; *out_len updated). -1 with err_set(). */
int perfdata_comp_records(struct perfdata_comp *c, const void *buf, size_t n, uint8_t **out, size_t *out_len,
			  size_t *out_cap);
void perfdata_comp_totals(const struct perfdata_comp *c, uint64_t *in, uint64_t *out);
void perfdata_comp_free(struct perfdata_comp *c);

#endif

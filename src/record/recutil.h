/* Small helpers shared by the record parsers, builders and swappers: unaligned-safe loads and
 * stores, and the sample_id trailer layout. Internal to src/stream. */
#ifndef LPERF_STREAM_RECUTIL_H
#define LPERF_STREAM_RECUTIL_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define REC_ALIGN8(x) (((x) + 7) & ~(uint64_t)7)

/* perf's PERF_RECORD_MISC_BUILD_ID_SIZE: the BUILD_ID entry carries its size byte. */
#define REC_MISC_BUILD_ID_SIZE (1 << 15)

static inline uint64_t ld64(const void *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t ld32(const void *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint16_t ld16(const void *p)
{
	uint16_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static inline void st64(void *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

static inline void st32(void *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

static inline void st16(void *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* The sample_id trailer fields, in their order. */
#define REC_ID_FIELDS (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | \
		       PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER)

static inline size_t rec_trailer_size(uint64_t sample_type)
{
	return 8 * (size_t)__builtin_popcountll(sample_type & REC_ID_FIELDS);
}

/* Position of the TIME field in a SAMPLE (valid when TIME is set). */
static inline size_t rec_sample_time_off(uint64_t st)
{
	return sizeof(struct perf_event_header) +
	       8 * (size_t)__builtin_popcountll(st & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID));
}

/* Position of the ID field in a SAMPLE (valid when ID is set). */
static inline size_t rec_sample_id_off(uint64_t st)
{
	return sizeof(struct perf_event_header) +
	       8 * (size_t)__builtin_popcountll(st & (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
						     PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR));
}

/* How far before the record's end the trailer's id sits: IDENTIFIER is last; otherwise ID is
 * followed by STREAM_ID and CPU. 0 when the trailer has no id. */
static inline size_t rec_trailer_id_back(uint64_t st)
{
	if (st & PERF_SAMPLE_IDENTIFIER)
		return 8;
	if (st & PERF_SAMPLE_ID)
		return 8 * (size_t)(1 + __builtin_popcountll(st & (PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU)));
	return 0;
}

/* User record types (>= 64) are perf's own and never carry a trailer. */
#define REC_USER_TYPE_START 64

#endif

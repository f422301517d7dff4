/* Byte swapping between the two byte orders, for perf.data files written on a machine of the
 * other endianness. Every function works in place in either direction: to_native turns foreign
 * bytes into native ones (reading); otherwise native bytes become foreign (writing a swapped
 * file, which tests do). Counts and lengths are always taken from their native value, and every
 * one is bounds-checked: whatever does not fit the given size is left as it is. */
#ifndef LPERF_SWAP_H
#define LPERF_SWAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/record.h"

/* The 8-byte record header (type, misc, size); the same both ways. */
void swap_header(struct perf_event_header *h);
/* A perf_event_attr of size bytes as stored in a file: the fields that lie within both size and
 * the attr's own size field (0 meaning 64), and the flag bitfield word moved field by field. */
void swap_attr(void *attr, size_t size, bool to_native);
/* A whole record of size bytes (its header included): the fields of known record types, the
 * SAMPLE fields that the event's sample_type selects and the sample_id trailer; unknown types get
 * only their header swapped. Raw tracepoint data, stack copies and AUX bytes are not numbers and
 * keep their order. s must hold the events with native attrs. */
void swap_record(const struct evsel_set *s, void *rec, size_t size, bool to_native);
/* The content of feature section feat (perf's HEADER_* numbering); features lperf does not
 * read are left alone. */
void swap_feature(int feat, void *data, size_t size, bool to_native);

#endif

/* The ordered queue between a record source and the session. */
#ifndef LPERF_SESSION_ORDERED_H
#define LPERF_SESSION_ORDERED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/record.h"

/* Time ordering: records are not globally time-ordered (one ring buffer per CPU). The queue keeps
 * copies and releases them in time order at each FINISHED_ROUND and at the end, as perf does. */
struct ordered_queue;
struct ordered_queue *ordered_new(const struct evsel_set *s, record_cb cb, void *arg);
/* Queues a copy of h; a FINISHED_ROUND releases everything queued before the previous round
 * (time <= the highest time seen when the previous FINISHED_ROUND came), then is itself passed
 * to cb. Records with time 0 (no sample_id trailer) count as "now": the highest time seen so
 * far, so they keep their place after what came before them. Equal times keep arrival order.
 * A queue holding more than 256 MiB releases its older half early. Returns cb's non-zero. */
int ordered_push(struct ordered_queue *q, const struct perf_event_header *h);
/* The same for a record at `at` in the stable range (ordered_set_stable) that is not read now:
 * head is a copy of its first len bytes (perfdata_for_each_peek's), its whole or a sample's start
 * (the time is read there). The record itself is first read when it is delivered. */
int ordered_push_at(struct ordered_queue *q, const struct perf_event_header *at, const struct perf_event_header *head,
		    size_t len);
/* Records lying in [base, base + len) are queued by reference, not copied (and do not count
 * towards the 256 MiB): the caller keeps that memory mapped and unchanged until the queue is
 * flushed. A report of a perf.data file maps it read-only, so only swapped, realigned and
 * decompressed records (in the reader's buffers) are copied; perf inject's output, which has no
 * FINISHED_ROUND, is then not copied whole. */
/* file_map: the range is a read-only mapping of a file, whose pages before the records being
 * delivered are handed back to the page cache as the flush goes (a later read faults them in
 * again); never for memory that holds the only copy. */
void ordered_set_stable(struct ordered_queue *q, const void *base, size_t len, bool file_map);
/* Pages of the stable range from `from` on are not handed back until this is called again (NULL:
 * no hold): records delivered but still being read (report --threads' workers resolve them after
 * their delivery). */
void ordered_hold(struct ordered_queue *q, const void *from);
/* The order a mapped file's records went out in, against the file's own order: before the record
 * at file offset `at` (the first not out yet in the file's order), the record at `rec` (further
 * on) went out. A file in time order has none. */
struct ordered_pull {
	uint64_t at, rec;
};
/* Notes the order records of the stable range (a file's mapping, file offsets from its start)
 * go out in, from the file's first record at offset from on. */
void ordered_learn(struct ordered_queue *q, uint64_t from);
/* After the flush: true, with the pulls (the queue's own, valid until it is freed), when every
 * record from `from` up to `to` went out by reference, each once, with at most 1,024 pulls and no
 * FINISHED_ROUND (whose windows can deliver late; such a file is walked the usual way). */
bool ordered_learned(const struct ordered_queue *q, uint64_t to, const struct ordered_pull **pulls, size_t *n);
/* From now on records go out as they are pushed, except as the pulls (a copy is kept) say: an
 * earlier run's order for the same file (session/order_memo.h), replayed without the queue. A
 * pull's record is bounds-checked before it is read. */
void ordered_replay(struct ordered_queue *q, const struct ordered_pull *pulls, size_t n);
/* ordered_push for a record in memory of the caller's own (valid during the call) that lies at
 * offset off of the stable range's file (perfdata_reader.read_walk): a replay places it by that
 * offset; otherwise it is queued as a copy. */
int ordered_push_copy(struct ordered_queue *q, const struct perf_event_header *h, uint64_t off);
/* Records released so far that came older than something already released (a late record). */
uint64_t ordered_late(const struct ordered_queue *q);
int ordered_flush(struct ordered_queue *q);
void ordered_free(struct ordered_queue *q);

#endif

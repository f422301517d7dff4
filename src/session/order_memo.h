/* What a report learnt about a recording's order, kept between runs (session/order_memo.c).
 *
 * A time-ordered report must see every record of a file without FINISHED_ROUND (perf inject's
 * output) before it can deliver the first: a walk that reads each record's start (a system call
 * per record, 10,000 for a deep-stack Python recording) and a heap of all of them. Such files
 * are mostly in time order already (perf inject -j's: but for a few MMAP2 records of JIT code
 * placed late). When a report has walked a file whole, it writes the order its records went out
 * in as a few pulls against the file's own order (session/ordered.h: ordered_learn) to the
 * build-id cache directory,
 *
 *   DIR/.lperf/order/NAME     (NAME: 16 hex digits of a hash of the identity below)
 *
 * and the next report of the same file delivers its records as it walks them, pulling those few
 * ahead of their place (ordered_replay): the same order, without the walk's reads and the heap.
 * The memo names the file by device, inode, size, data section, modification and status-change
 * times (the latter no user can set: any write, rename onto it or chmod moves it): another file,
 * or this one changed, never matches. It is checked as lperf's other stores are (magic, version,
 * CRC-32, this user's regular file, not writable by others; each pull inside the data section,
 * in order); a memo that fails is ignored, and written again. */
#ifndef LPERF_SESSION_ORDER_MEMO_H
#define LPERF_SESSION_ORDER_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "session/ordered.h"

struct order_memo_key {
	uint64_t dev, ino, size, data_offset, data_size;
	int64_t mtime_ns, ctime_ns;
};

/* The key of the open file fd whose data section is [data_offset, +data_size); false when it
 * cannot be had (fstat fails, not a regular file). */
bool order_memo_key_of(int fd, uint64_t data_offset, uint64_t data_size, struct order_memo_key *k);
/* The pulls a valid memo for key k holds (*pulls: free it; none for a file in time order), or
 * false. */
bool order_memo_load(const struct order_memo_key *k, struct ordered_pull **pulls, size_t *n);
/* Writes the memo of the file of key k; failures are silent (a report does not fail for want of
 * a cache). */
void order_memo_save(const struct order_memo_key *k, const struct ordered_pull *pulls, size_t n);

/* The memo's bytes (free them) and the check of them, for the unit test: 0 with the pulls (free
 * them), or -1 with err_set() naming the offset and field that failed. */
void *order_memo_build(const struct order_memo_key *k, const struct ordered_pull *pulls, size_t n, size_t *len);
int order_memo_parse(const void *buf, size_t len, const struct order_memo_key *k, struct ordered_pull **pulls,
		     size_t *n);

#endif

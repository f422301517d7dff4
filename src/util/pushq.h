/* The queue of a periodic push (stat --remote-write): snapshots of a fixed number of values,
 * each with its time, sent oldest first in batches; while the receiver fails (no answer, 5xx,
 * 429) they wait and the attempts back off (the period, doubled per failure, at most 32 periods
 * or 30 s); a rejected batch (another 4xx) is dropped, never retried. Bounded: when full the
 * oldest snapshot is dropped (the values are running totals, so a later one still carries the
 * counts; only the resolution of the outage is lost). */
#ifndef LPERF_UTIL_PUSHQ_H
#define LPERF_UTIL_PUSHQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pushq_snap {
	int64_t ts_ms; /* milliseconds since the epoch */
	double *v;     /* nvals values */
};

struct pushq {
	size_t nvals, cap, first, n;
	struct pushq_snap *ring;
	int64_t period_ms, backoff_ms, next_ms; /* next_ms: the next attempt (monotonic) */
	bool failing;                           /* in an outage */
	/* Of the current or last outage: attempts that failed, snapshots dropped for room. */
	uint64_t failed, dropped;
	uint64_t rejected;                      /* snapshots refused (4xx), in all */
};

/* What a flush did, for the caller to say once. */
enum pushq_event {
	PUSHQ_IDLE,     /* nothing due, or sent */
	PUSHQ_FAILED,   /* the first failure of an outage (err_msg says why) */
	PUSHQ_RETRYING, /* a later failure of the same outage */
	PUSHQ_RESUMED,  /* sent after an outage (failed, dropped say how long it was) */
	PUSHQ_REJECTED, /* a batch refused (err_msg says why) */
};

/* Sends the oldest n snapshots (pushq_at(q, 0..n-1)): 0 sent, 1 failed (retry later), 2 refused
 * (drop them); err_set on 1 and 2. */
typedef int (*pushq_send_fn)(const struct pushq *q, size_t n, void *arg);

#define PUSHQ_BATCH 64 /* snapshots per request at most */

/* At most max_bytes of values are kept (never fewer than 2 snapshots). */
void pushq_init(struct pushq *q, size_t nvals, size_t max_bytes, int64_t period_ms);
void pushq_add(struct pushq *q, int64_t ts_ms, const double *v);
const struct pushq_snap *pushq_at(const struct pushq *q, size_t i);
/* Sends what is queued when an attempt is due at now_ms (monotonic; force: even during a
 * back-off, for the last push): batches until the queue is empty or one fails. */
enum pushq_event pushq_flush(struct pushq *q, int64_t now_ms, bool force, pushq_send_fn send, void *arg);
void pushq_free(struct pushq *q);

#endif

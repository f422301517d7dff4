/* Time ordering of records, as perf's ordered_events: each CPU's ring buffer is in time order but
 * the buffers are drained one after the other, so a record may arrive after later ones from
 * another CPU. perf writes FINISHED_ROUND after each pass over all buffers; anything older than
 * the newest time of the pass before the previous one can no longer arrive, so it is released.
 * Records are kept in a min-heap on (time, arrival). */
#include "session/ordered.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "record/recutil.h"
#include "util/xalloc.h"

/* Past this many queued bytes the older half goes out early (perf's OE_FLUSH__HALF). */
#define ORDERED_MAX_BYTES (256u << 20)

struct oentry {
	uint64_t time, seq;
	const struct perf_event_header *rec;
	size_t size;
	bool owned;              /* rec is the queue's copy (else it points into the stable range) */
};

struct ordered_queue {
	const struct evsel_set *s;
	record_cb cb;
	void *arg;
	struct oentry *heap;
	size_t n, cap;
	uint64_t seq;
	uint64_t max_time;       /* highest time queued so far */
	uint64_t next_flush;     /* what the next FINISHED_ROUND releases: max_time at the last one */
	uint64_t last_released;
	uint64_t late;
	size_t bytes;            /* of the copies */
	const uint8_t *stable_lo, *stable_hi;
	bool file_map;           /* the stable range is a file's read-only mapping */
	uintptr_t released_to;   /* the stable range's pages before it were handed back */
	uintptr_t hold;          /* ordered_hold: none from here on (0: no hold) */
};

struct ordered_queue *ordered_new(const struct evsel_set *s, record_cb cb, void *arg)
{
	struct ordered_queue *q = xcalloc(1, sizeof(*q));
	q->s = s;
	q->cb = cb;
	q->arg = arg;
	return q;
}

static bool before(const struct oentry *a, const struct oentry *b)
{
	return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

static void heap_push(struct ordered_queue *q, struct oentry e)
{
	ALLOC_GROW(q->heap, q->n + 1, q->cap);
	size_t i = q->n++;
	while (i) {
		size_t parent = (i - 1) / 2;
		if (!before(&e, &q->heap[parent]))
			break;
		q->heap[i] = q->heap[parent];
		i = parent;
	}
	q->heap[i] = e;
}

static struct oentry heap_pop(struct ordered_queue *q)
{
	struct oentry top = q->heap[0], last = q->heap[--q->n];
	size_t i = 0;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= q->n)
			break;
		if (c + 1 < q->n && before(&q->heap[c + 1], &q->heap[c]))
			c++;
		if (!before(&q->heap[c], &last))
			break;
		q->heap[i] = q->heap[c];
		i = c;
	}
	if (q->n)
		q->heap[i] = last;
	return top;
}

/* Records of the mapped file are delivered nearly in the file's order: once one is, the pages
 * before it go back to the page cache (a step at a time), so that waiting for order does not keep
 * the file in the report's memory (perf inject's output has no FINISHED_ROUND: every record waits
 * to the end, and the reader hands back what it passed long before). A record delivered later
 * from there faults its pages back in. */
#define RELEASE_STEP (1u << 20)

static void release_before(struct ordered_queue *q, const void *rec)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t at = (uintptr_t)rec & ~(page - 1);
	if (q->hold && q->hold < at)
		at = q->hold & ~(page - 1);
	if (!q->released_to)
		q->released_to = (uintptr_t)q->stable_lo & ~(page - 1);
	if (at < q->released_to || at - q->released_to < RELEASE_STEP)
		return;
	madvise((void *)q->released_to, at - q->released_to, MADV_DONTNEED);
	q->released_to = at;
}

static int release_one(struct ordered_queue *q)
{
	struct oentry e = heap_pop(q);
	if (e.time < q->last_released)
		q->late++;
	else
		q->last_released = e.time;
	if (e.owned)
		q->bytes -= e.size;
	int ret = q->cb(e.rec, q->arg);
	if (e.owned)
		free((void *)e.rec);
	else if (q->file_map)
		release_before(q, e.rec);
	return ret;
}

static int release_upto(struct ordered_queue *q, uint64_t limit)
{
	while (q->n && q->heap[0].time <= limit) {
		int ret = release_one(q);
		if (ret)
			return ret;
	}
	return 0;
}

/* AUXTRACE and TRACING_DATA records carry data after header.size; the copy keeps it. */
static size_t record_total(const struct perf_event_header *h)
{
	if (h->type == REC_AUXTRACE && h->size >= 16)
		return h->size + (size_t)ld64((const uint8_t *)h + 8);
	if (h->type == REC_TRACING_DATA && h->size >= 12)
		return h->size + (size_t)ld32((const uint8_t *)h + 8);
	return h->size;
}

/* Queues record h of size bytes, whose time is t (0: none). */
static int queue(struct ordered_queue *q, const struct perf_event_header *h, size_t size, uint64_t t)
{
	if (!t)
		t = q->max_time;
	if (t > q->max_time)
		q->max_time = t;
	const uint8_t *p = (const uint8_t *)h;
	struct oentry e = { t, q->seq++, h, size, false };
	if (!(p >= q->stable_lo && p < q->stable_hi && size <= (size_t)(q->stable_hi - p))) {
		void *copy = xmalloc(size);
		memcpy(copy, h, size);
		e.rec = copy;
		e.owned = true;
		q->bytes += size;
	}
	heap_push(q, e);
	if (q->bytes > ORDERED_MAX_BYTES) {
		for (size_t n = q->n / 2; n; n--) {
			int ret = release_one(q);
			if (ret)
				return ret;
		}
	}
	return 0;
}

int ordered_push(struct ordered_queue *q, const struct perf_event_header *h)
{
	if (h->type == REC_FINISHED_ROUND) {
		int ret = release_upto(q, q->next_flush);
		q->next_flush = q->max_time;
		return ret ? ret : q->cb(h, q->arg);
	}
	return queue(q, h, record_total(h), record_time(q->s, h));
}

int ordered_push_at(struct ordered_queue *q, const struct perf_event_header *at, const struct perf_event_header *head,
		    size_t len)
{
	const uint8_t *p = (const uint8_t *)at;
	size_t size = head->size;
	if (head->type == REC_FINISHED_ROUND || !(p >= q->stable_lo && p < q->stable_hi && size <= (size_t)(q->stable_hi - p)))
		return ordered_push(q, len >= size ? head : at);
	if (len >= size)
		return queue(q, at, size, record_time(q->s, head));
	/* the sample's start, as a record of its own that ends there (its time is near the start) */
	union {
		struct perf_event_header h;
		uint64_t words[32];
	} cut;
	size_t n = len < sizeof(cut) ? len : sizeof(cut);
	memcpy(&cut, head, n);
	cut.h.size = (uint16_t)n;
	return queue(q, at, size, record_time(q->s, &cut.h));
}

void ordered_hold(struct ordered_queue *q, const void *from)
{
	q->hold = (uintptr_t)from;
}

void ordered_set_stable(struct ordered_queue *q, const void *base, size_t len, bool file_map)
{
	q->stable_lo = base;
	q->stable_hi = (const uint8_t *)base + len;
	q->file_map = file_map;
	q->released_to = 0;
}

int ordered_flush(struct ordered_queue *q)
{
	return release_upto(q, UINT64_MAX);
}

uint64_t ordered_late(const struct ordered_queue *q)
{
	return q->late;
}

void ordered_free(struct ordered_queue *q)
{
	if (!q)
		return;
	while (q->n) {
		struct oentry e = heap_pop(q);
		if (e.owned)
			free((void *)e.rec);
	}
	free(q->heap);
	free(q);
}

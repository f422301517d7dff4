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

/* ordered_learn gives up past this many records out of the file's order. */
#define ORDERED_MAX_PULLS 1024

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
	/* ordered_learn: the delivery order as pulls ahead of the file's order */
	bool learning, learn_failed;
	uint64_t cursor;         /* the lowest file offset not delivered yet */
	struct ordered_pull *pulls;
	size_t npulls, pulls_cap;
	struct span { uint64_t off, size; } *ahead; /* delivered past the cursor, not reached yet */
	size_t nahead, ahead_cap;
	struct span *gaps;       /* records the reader kept to itself (never pushed) */
	size_t ngaps, gaps_cap;
	uint64_t push_end;       /* where the last record pushed ends */
	/* ordered_replay: records go out as pushed, the pulls' records ahead of their place */
	bool replay;
	size_t next_pull;        /* the next pull to make */
	uint64_t *pulled;        /* the pulls' records by offset, to skip when the walk reaches them */
	size_t next_pulled;
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

/* ordered_learn: the cursor past the records out already and the reader's own. */
static void advance(struct ordered_queue *q)
{
	for (bool moved = true; moved;) {
		moved = false;
		for (size_t i = 0; i < q->nahead && !moved; i++)
			if (q->ahead[i].off == q->cursor) {
				q->cursor += q->ahead[i].size;
				q->ahead[i] = q->ahead[--q->nahead];
				moved = true;
			}
		for (size_t i = 0; i < q->ngaps && !moved && q->gaps[i].off <= q->cursor; i++)
			if (q->gaps[i].off == q->cursor) {
				q->cursor += q->gaps[i].size;
				moved = true;
			}
	}
}

/* ordered_learn: the record at file offset off (size bytes) goes out. */
static void learn(struct ordered_queue *q, uint64_t off, uint64_t size)
{
	advance(q);
	if (off == q->cursor) {
		q->cursor += size;
		advance(q);
		return;
	}
	if (off < q->cursor || q->npulls == ORDERED_MAX_PULLS) {
		q->learn_failed = true;
		return;
	}
	ALLOC_GROW(q->pulls, q->npulls + 1, q->pulls_cap);
	q->pulls[q->npulls++] = (struct ordered_pull){ q->cursor, off };
	ALLOC_GROW(q->ahead, q->nahead + 1, q->ahead_cap);
	q->ahead[q->nahead].off = off;
	q->ahead[q->nahead++].size = size;
}

static int release_one(struct ordered_queue *q)
{
	struct oentry e = heap_pop(q);
	if (e.time < q->last_released)
		q->late++;
	else
		q->last_released = e.time;
	if (q->learning && !q->learn_failed) {
		if (e.owned || !q->file_map)
			q->learn_failed = true;
		else
			learn(q, (uint64_t)((const uint8_t *)e.rec - q->stable_lo), e.size);
	}
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

/* ordered_learn: record p (size bytes) is pushed; the records the walk did not push before it
 * (the reader's own: attributes, event updates) are a gap the cursor steps over. */
static void learn_push(struct ordered_queue *q, const uint8_t *p, size_t size)
{
	if (!(p >= q->stable_lo && p < q->stable_hi)) {
		q->learn_failed = true;
		return;
	}
	uint64_t off = (uint64_t)(p - q->stable_lo);
	if (off != q->push_end) {
		if (off < q->push_end || q->ngaps == ORDERED_MAX_PULLS) {
			q->learn_failed = true;
			return;
		}
		ALLOC_GROW(q->gaps, q->ngaps + 1, q->gaps_cap);
		q->gaps[q->ngaps].off = q->push_end;
		q->gaps[q->ngaps++].size = off - q->push_end;
	}
	q->push_end = off + size;
}

/* A record handed on at once (ordered_replay), as release_one would. */
static int pass(struct ordered_queue *q, const struct perf_event_header *h, uint64_t t)
{
	if (!t)
		t = q->max_time;
	if (t > q->max_time)
		q->max_time = t;
	if (t < q->last_released)
		q->late++;
	else
		q->last_released = t;
	return q->cb(h, q->arg);
}

/* ordered_replay: record h, at the mapping's offset off, is pushed. */
static int replay(struct ordered_queue *q, const struct perf_event_header *h, uint64_t off)
{
	if (q->next_pulled < q->npulls && q->pulled[q->next_pulled] == off) {
		q->next_pulled++; /* out already */
		return 0;
	}
	size_t len = (size_t)(q->stable_hi - q->stable_lo);
	for (; q->next_pull < q->npulls && q->pulls[q->next_pull].at == off; q->next_pull++) {
		uint64_t at = q->pulls[q->next_pull].rec;
		const struct perf_event_header *p = (const struct perf_event_header *)(q->stable_lo + at);
		if (at % 8 || at >= len || len - at < sizeof(*p) || p->size < sizeof(*p) || record_total(p) > len - at)
			continue; /* not a record of this file: a memo made by hand */
		int ret = pass(q, p, record_time(q->s, p));
		if (ret)
			return ret;
	}
	return pass(q, h, record_time(q->s, h));
}

/* Queues record h of size bytes, whose time is t (0: none). */
static int queue(struct ordered_queue *q, const struct perf_event_header *h, size_t size, uint64_t t)
{
	if (q->learning && !q->learn_failed)
		learn_push(q, (const uint8_t *)h, size);
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
	if (q->replay) {
		const uint8_t *p = (const uint8_t *)h;
		if (p >= q->stable_lo && p < q->stable_hi)
			return replay(q, h, (uint64_t)(p - q->stable_lo));
		return pass(q, h, h->type == REC_FINISHED_ROUND ? 0 : record_time(q->s, h));
	}
	if (h->type == REC_FINISHED_ROUND) {
		q->learn_failed = true; /* a file with rounds is ordered by them: no memo */
		int ret = release_upto(q, q->next_flush);
		q->next_flush = q->max_time;
		return ret ? ret : q->cb(h, q->arg);
	}
	return queue(q, h, record_total(h), record_time(q->s, h));
}

int ordered_push_copy(struct ordered_queue *q, const struct perf_event_header *h, uint64_t off)
{
	if (q->replay && q->file_map && off < (uint64_t)(q->stable_hi - q->stable_lo))
		return replay(q, h, off);
	return ordered_push(q, h);
}

int ordered_push_at(struct ordered_queue *q, const struct perf_event_header *at, const struct perf_event_header *head,
		    size_t len)
{
	if (q->replay)
		return ordered_push(q, at);
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

void ordered_learn(struct ordered_queue *q, uint64_t from)
{
	q->learning = true;
	q->cursor = q->push_end = from;
}

bool ordered_learned(const struct ordered_queue *q, uint64_t to, const struct ordered_pull **pulls, size_t *n)
{
	if (!q->learning || q->learn_failed || q->n || q->cursor != q->push_end || q->push_end > to || q->nahead)
		return false;
	*pulls = q->pulls;
	*n = q->npulls;
	return true;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

void ordered_replay(struct ordered_queue *q, const struct ordered_pull *pulls, size_t n)
{
	q->replay = true;
	q->npulls = n;
	q->pulls = xmalloc((n ? n : 1) * sizeof(*pulls));
	memcpy(q->pulls, pulls, n * sizeof(*pulls));
	q->pulled = xmalloc((n ? n : 1) * sizeof(*q->pulled));
	for (size_t i = 0; i < n; i++)
		q->pulled[i] = pulls[i].rec;
	qsort(q->pulled, n, sizeof(*q->pulled), cmp_u64);
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
	free(q->pulls);
	free(q->ahead);
	free(q->gaps);
	free(q->pulled);
	free(q);
}

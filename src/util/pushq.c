#include "util/pushq.h"

#include <stdlib.h>
#include <string.h>

#include "util/xalloc.h"

#define MAX_BACKOFF_MS 30000

void pushq_init(struct pushq *q, size_t nvals, size_t max_bytes, int64_t period_ms)
{
	memset(q, 0, sizeof(*q));
	q->nvals = nvals;
	size_t per = nvals * sizeof(double) + sizeof(struct pushq_snap);
	q->cap = max_bytes / per;
	if (q->cap < 2)
		q->cap = 2;
	q->period_ms = period_ms > 0 ? period_ms : 1;
	q->ring = xcalloc(q->cap, sizeof(*q->ring));
}

const struct pushq_snap *pushq_at(const struct pushq *q, size_t i)
{
	return &q->ring[(q->first + i) % q->cap];
}

static void drop(struct pushq *q, size_t n)
{
	for (size_t i = 0; i < n && q->n; i++) {
		free(q->ring[q->first].v);
		q->ring[q->first].v = NULL;
		q->first = (q->first + 1) % q->cap;
		q->n--;
	}
}

void pushq_add(struct pushq *q, int64_t ts_ms, const double *v)
{
	if (q->n == q->cap) {
		drop(q, 1);
		q->dropped++;
	}
	struct pushq_snap *s = &q->ring[(q->first + q->n) % q->cap];
	s->ts_ms = ts_ms;
	s->v = xmalloc(q->nvals ? q->nvals * sizeof(double) : 1);
	if (q->nvals)
		memcpy(s->v, v, q->nvals * sizeof(double));
	q->n++;
}

enum pushq_event pushq_flush(struct pushq *q, int64_t now_ms, bool force, pushq_send_fn send, void *arg)
{
	if (!q->n || (!force && q->failing && now_ms < q->next_ms))
		return PUSHQ_IDLE;
	enum pushq_event ev = PUSHQ_IDLE;
	while (q->n) {
		size_t n = q->n < PUSHQ_BATCH ? q->n : PUSHQ_BATCH;
		int r = send(q, n, arg);
		if (r == 1) {
			int64_t max = q->period_ms * 32 < MAX_BACKOFF_MS ? q->period_ms * 32 : MAX_BACKOFF_MS;
			q->backoff_ms = q->backoff_ms ? q->backoff_ms * 2 : q->period_ms;
			if (q->backoff_ms > max)
				q->backoff_ms = max;
			q->next_ms = now_ms + q->backoff_ms;
			if (!q->failing) {
				q->failing = true;
				q->failed = 1;
				q->dropped = 0;
				return PUSHQ_FAILED;
			}
			q->failed++;
			return PUSHQ_RETRYING;
		}
		drop(q, n);
		if (r == 2) {
			q->rejected += n;
			return PUSHQ_REJECTED; /* the rest waits for the next period */
		}
		if (q->failing) {
			q->failing = false;
			q->backoff_ms = 0;
			ev = PUSHQ_RESUMED;
		}
	}
	return ev;
}

void pushq_free(struct pushq *q)
{
	drop(q, q->n);
	free(q->ring);
	memset(q, 0, sizeof(*q));
}

/* util/pushq: the queue of stat --remote-write. Bounded (the oldest dropped when full), batches
 * oldest first, back-off doubling from the period to its cap, said once per outage, refused
 * batches dropped and never sent again. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "util/pushq.h"

struct sink {
	int answer;          /* what send returns */
	int calls;
	int64_t first_ts[64]; /* the oldest timestamp of each call */
	size_t sizes[64];
};

static int send_fn(const struct pushq *q, size_t n, void *arg)
{
	struct sink *s = arg;
	if (s->calls < 64) {
		s->first_ts[s->calls] = pushq_at(q, 0)->ts_ms;
		s->sizes[s->calls] = n;
	}
	s->calls++;
	for (size_t i = 1; i < n; i++)
		assert_true(pushq_at(q, i - 1)->ts_ms < pushq_at(q, i)->ts_ms);
	return s->answer;
}

static void add(struct pushq *q, int64_t ts)
{
	double v[2] = { (double)ts, (double)ts * 2 };
	pushq_add(q, ts, v);
}

static void test_bounded(void **state)
{
	struct pushq q;
	/* room for 4 snapshots of 2 values */
	pushq_init(&q, 2, 4 * (2 * sizeof(double) + sizeof(struct pushq_snap)), 1000);
	assert_int_equal(q.cap, 4);
	for (int64_t t = 1; t <= 10; t++)
		add(&q, t);
	assert_int_equal(q.n, 4);
	assert_int_equal(q.dropped, 6);
	assert_int_equal(pushq_at(&q, 0)->ts_ms, 7); /* the newest kept */
	assert_true(pushq_at(&q, 3)->v[1] == 20.0);
	pushq_free(&q);
	/* never fewer than two */
	pushq_init(&q, 1000, 1, 1000);
	assert_int_equal(q.cap, 2);
	pushq_free(&q);
}

static void test_outage(void **state)
{
	struct pushq q;
	struct sink s = { .answer = 1 };
	pushq_init(&q, 2, 1 << 20, 100);
	add(&q, 1);
	assert_int_equal(pushq_flush(&q, 0, false, send_fn, &s), PUSHQ_FAILED);
	assert_int_equal(q.next_ms, 100);
	add(&q, 2);
	/* not yet due: nothing sent */
	assert_int_equal(pushq_flush(&q, 50, false, send_fn, &s), PUSHQ_IDLE);
	assert_int_equal(s.calls, 1);
	/* the back-off doubles: 100, 200, 400, ... up to 32 periods */
	int64_t now = 100;
	int64_t want[] = { 200, 400, 800, 1600, 3200, 3200 };
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_int_equal(pushq_flush(&q, now, false, send_fn, &s), PUSHQ_RETRYING);
		assert_int_equal(q.next_ms - now, want[i]);
		now = q.next_ms;
	}
	assert_int_equal(q.failed, 7);
	/* back: everything queued goes, oldest first */
	s.answer = 0;
	add(&q, 3);
	assert_int_equal(pushq_flush(&q, now, false, send_fn, &s), PUSHQ_RESUMED);
	assert_int_equal(q.n, 0);
	assert_int_equal(s.first_ts[s.calls - 1], 1);
	assert_int_equal(s.sizes[s.calls - 1], 3);
	add(&q, 4);
	assert_int_equal(pushq_flush(&q, now, false, send_fn, &s), PUSHQ_IDLE);
	/* a later outage is said again */
	s.answer = 1;
	add(&q, 5);
	assert_int_equal(pushq_flush(&q, now, false, send_fn, &s), PUSHQ_FAILED);
	assert_int_equal(q.next_ms - now, 100);
	/* the last push is forced through a back-off */
	s.answer = 0;
	assert_int_equal(pushq_flush(&q, now + 1, true, send_fn, &s), PUSHQ_RESUMED);
	pushq_free(&q);
}

static void test_batches_and_refusals(void **state)
{
	struct pushq q;
	struct sink s = { .answer = 1 };
	pushq_init(&q, 1, 1 << 20, 10);
	for (int64_t t = 1; t <= PUSHQ_BATCH * 2 + 5; t++)
		add(&q, t);
	s.answer = 0;
	assert_int_equal(pushq_flush(&q, 0, false, send_fn, &s), PUSHQ_IDLE);
	assert_int_equal(s.calls, 3);
	assert_int_equal(s.sizes[0], PUSHQ_BATCH);
	assert_int_equal(s.first_ts[1], PUSHQ_BATCH + 1);
	assert_int_equal(s.sizes[2], 5);
	/* refused: dropped, not sent again */
	s.answer = 2;
	add(&q, 1000);
	assert_int_equal(pushq_flush(&q, 0, false, send_fn, &s), PUSHQ_REJECTED);
	assert_int_equal(q.n, 0);
	assert_int_equal(q.rejected, 1);
	assert_int_equal(pushq_flush(&q, 0, false, send_fn, &s), PUSHQ_IDLE);
	assert_int_equal(s.calls, 4);
	pushq_free(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_outage),
		cmocka_unit_test(test_batches_and_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

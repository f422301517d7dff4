/* report --threads (session_batch.c): samples resolved by worker threads reach the tool in the
 * order they were pushed, resolved against the model as it was at their turn: an MMAP, a COMM or
 * a new thread between two samples is seen by the later one only, as in the one-thread session.
 * Records in the stable memory are read in place, the others (a copy in the ordering queue)
 * copied; a tool's error stops the delivery. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "record/record.h"
#include "session/session.h"

#define SAMPLE_TYPE (PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD)
#define NSAMPLES 3000

struct seen {
	size_t n, stop_at;
	char line[NSAMPLES][96];
};

/* What a report would make of the sample: its thread's command, time, and where the ip fell. */
static int on_sample(const struct resolved_sample *rs, void *arg)
{
	struct seen *s = arg;
	assert_true(s->n < NSAMPLES);
	const struct frame *f = &rs->frames[0];
	snprintf(s->line[s->n], sizeof(s->line[0]), "%s %u %llu %llx %s %llx", rs->thread->comm ? rs->thread->comm : "-",
		 rs->s->tid, (unsigned long long)rs->s->time, (unsigned long long)f->ip,
		 f->loc.dso ? f->loc.dso->path : "-", (unsigned long long)f->loc.addr);
	s->n++;
	return s->stop_at && s->n == s->stop_at ? -1 : 0;
}

struct stream {
	uint8_t *buf;
	size_t len, cap;
};

static void add(struct stream *st, const void *rec, size_t n)
{
	assert_true(n > 0 && n <= 8192);
	if (st->len + n > st->cap) {
		st->cap = (st->len + n) * 2;
		st->buf = realloc(st->buf, st->cap);
	}
	memcpy(st->buf + st->len, rec, n);
	st->len += n;
}

/* The sample_id trailer (TID, TIME, IDENTIFIER) of a side-band record: its time and event. */
static void trailer(uint8_t *rec, size_t n, uint64_t time)
{
	uint64_t id = 7;
	memcpy(rec + n - 16, &time, 8);
	memcpy(rec + n - 8, &id, 8);
}

static void add_mmap(struct stream *st, const struct perf_event_attr *a, uint32_t pid, uint64_t start,
		     const char *file, uint64_t time)
{
	uint8_t buf[8192];
	struct rec_mmap m = { .pid = pid, .tid = pid, .start = start, .len = 0x10000, .filename = file,
			      .cpumode = PERF_RECORD_MISC_USER };
	size_t n = record_build_mmap(buf, sizeof(buf), a, &m);
	trailer(buf, n, time);
	add(st, buf, n);
}

/* A recording: two processes whose maps and names change between their samples, thread 3 of
 * process 2 appearing midway. */
static void build(struct stream *st, const struct perf_event_attr *a)
{
	uint8_t buf[8192];
	uint64_t t = 1;
	add_mmap(st, a, 1, 0x400000, "/nonexistent/a1", t++);
	add_mmap(st, a, 2, 0x400000, "/nonexistent/b1", t++);
	for (int i = 0; i < NSAMPLES; i++, t++) {
		if (i == 700)
			add_mmap(st, a, 1, 0x400000, "/nonexistent/a2", t++); /* replaces a1 */
		if (i == 1500) {
			size_t n = record_build_comm(buf, sizeof(buf), a, 2, 2, "renamed", false);
			trailer(buf, n, t);
			add(st, buf, n);
			t++;
		}
		if (i == 2222)
			add_mmap(st, a, 2, 0x500000, "/nonexistent/b2", t++);
		uint32_t tid = i % 3 == 0 ? 1 : i >= 1000 && i % 3 == 1 ? 3 : 2;
		uint32_t pid = tid == 1 ? 1 : 2;
		struct perf_sample s = { .id = 7, .ip = 0x400000 + (uint64_t)(i % 5) * 0x1000 + (i % 7 == 0 ? 0x100000 : 0),
					 .pid = pid, .tid = tid, .time = t, .period = 1, .cpumode = PERF_RECORD_MISC_USER };
		size_t n = record_build_sample(buf, sizeof(buf), a, &s);
		((struct perf_event_header *)buf)->misc = PERF_RECORD_MISC_USER;
		add(st, buf, n);
	}
}

/* Walks the stream with threads workers. The stream is the session's stable memory (a mapped
 * file); in_place: its records are pushed from there, else each from a copy that goes away after
 * the push (the reader's buffers: swapped or decompressed records). */
static void walk(const struct stream *st, const struct evsel_set *set, unsigned threads, bool in_place,
		 struct seen *seen)
{
	struct session_tool tool = { .sample = on_sample, .arg = seen };
	struct session ss;
	session_init(&ss, set, &tool);
	ss.threads = threads;
	ordered_set_stable(ss.oq, st->buf, st->len, false);
	ss.stable_base = st->buf;
	ss.stable_len = st->len;
	int rc = 0;
	for (size_t off = 0; off < st->len && !rc;) {
		const struct perf_event_header *h = (const void *)(st->buf + off);
		if (in_place) {
			rc = session_push(&ss, h);
		} else {
			uint8_t *copy = malloc(h->size);
			memcpy(copy, h, h->size);
			rc = session_push(&ss, (void *)copy);
			free(copy);
		}
		off += h->size;
	}
	if (!rc)
		rc = session_flush(&ss);
	assert_int_equal(rc != 0, seen->stop_at != 0);
	session_free(&ss);
}

static void events(struct evsel_set *set)
{
	memset(set, 0, sizeof(*set));
	struct perf_event_attr a = { .type = PERF_TYPE_SOFTWARE, .size = sizeof(a), .config = PERF_COUNT_SW_CPU_CLOCK,
				     .sample_type = SAMPLE_TYPE, .sample_id_all = 1 };
	uint64_t id = 7;
	evsel_set_add(set, &a, "cpu-clock", &id, 1);
	evsel_set_index(set);
}

static void test_same_as_one_thread(void **state)
{
	struct evsel_set set;
	events(&set);
	struct stream st = { 0 };
	build(&st, &set.v[0].attr);
	struct seen *one = calloc(1, sizeof(*one)), *many = calloc(1, sizeof(*many));
	walk(&st, &set, 1, true, one);
	assert_int_equal(one->n, NSAMPLES);
	/* the model's changes are seen from their time on */
	assert_non_null(strstr(one->line[3], "/nonexistent/a1")); /* tid 1 at 0x403000 */
	assert_non_null(strstr(one->line[NSAMPLES - 3], "/nonexistent/a2"));
	assert_null(strstr(one->line[1], "renamed")); /* no COMM of process 2 yet */
	assert_non_null(strstr(one->line[NSAMPLES - 1], "renamed 2 "));
	for (unsigned threads = 2; threads <= 4; threads++) {
		for (int in_place = 0; in_place <= 1; in_place++) {
			memset(many, 0, sizeof(*many));
			walk(&st, &set, threads, in_place, many);
			assert_int_equal(many->n, NSAMPLES);
			for (size_t i = 0; i < NSAMPLES; i++)
				assert_string_equal(one->line[i], many->line[i]);
		}
	}
	free(one);
	free(many);
	free(st.buf);
	evsel_set_free(&set);
}

static void test_tool_error_stops(void **state)
{
	struct evsel_set set;
	events(&set);
	struct stream st = { 0 };
	build(&st, &set.v[0].attr);
	struct seen *seen = calloc(1, sizeof(*seen));
	seen->stop_at = 1234;
	walk(&st, &set, 3, true, seen);
	assert_int_equal(seen->n, 1234);
	free(seen);
	free(st.buf);
	evsel_set_free(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_one_thread),
		cmocka_unit_test(test_tool_error_stops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

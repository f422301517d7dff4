/* The time-ordering queue: perf's two-round release at FINISHED_ROUND, stable order for equal
 * times, records without a time kept in place, late records, the final flush, a callback that
 * stops the walk, and a large shuffled stream against a stable sort. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "session/ordered.h"
#include "util/xalloc.h"

static struct evsel_set set;
static struct perf_event_attr attr;

static int setup(void **state)
{
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_SOFTWARE;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	attr.sample_id_all = 1;
	memset(&set, 0, sizeof(set));
	evsel_set_add(&set, &attr, "cpu-clock", NULL, 0);
	return 0;
}

static int teardown(void **state)
{
	evsel_set_free(&set);
	return 0;
}

/* What the queue released: the sample's ip (the test's tag), or the record type + 1000. */
struct out {
	uint64_t tag[20000];
	size_t n;
	int stop_at;
};

static int collect(const struct perf_event_header *h, void *arg)
{
	struct out *o = arg;
	struct perf_sample s;
	uint64_t tag = h->type + 1000;
	if (h->type == PERF_RECORD_SAMPLE) {
		assert_int_equal(sample_parse(&set, h, &s), 0);
		tag = s.ip;
	} else if (h->type == PERF_RECORD_COMM) {
		struct rec_comm c;
		assert_int_equal(record_parse_comm(h, &c), 0);
		tag = 2000 + (uint64_t)atoi(c.comm);
	}
	o->tag[o->n++] = tag;
	return o->stop_at && (int)o->n == o->stop_at ? 7 : 0;
}

static uint8_t buf[256] __attribute__((aligned(8)));

static int sample(struct ordered_queue *q, uint64_t time, uint64_t tag)
{
	struct perf_sample s = { .ip = tag, .pid = 1, .tid = 1, .time = time };
	record_build_sample(buf, sizeof(buf), &attr, &s);
	return ordered_push(q, (struct perf_event_header *)buf);
}

/* A COMM as lperf synthesizes it: its trailer's time is 0. */
static void comm(struct ordered_queue *q, int tag)
{
	char name[16];
	snprintf(name, sizeof(name), "%d", tag);
	record_build_comm(buf, sizeof(buf), &attr, 1, 1, name, false);
	assert_int_equal(ordered_push(q, (struct perf_event_header *)buf), 0);
}

static int round_marker(struct ordered_queue *q)
{
	record_build_marker(buf, sizeof(buf), REC_FINISHED_ROUND);
	return ordered_push(q, (struct perf_event_header *)buf);
}

#define ROUND (1000 + REC_FINISHED_ROUND)

static void expect(const struct out *o, const uint64_t *want, size_t n)
{
	assert_int_equal(o->n, n);
	for (size_t i = 0; i < n; i++)
		if (o->tag[i] != want[i])
			fail_msg("release %zu: got %lu, expected %lu", i, (unsigned long)o->tag[i],
				 (unsigned long)want[i]);
}

static void test_two_rounds(void **state)
{
	struct out *o = calloc(1, sizeof(*o));
	struct ordered_queue *q = ordered_new(&set, collect, o);
	comm(q, 0);
	sample(q, 10, 1);
	sample(q, 30, 2);
	sample(q, 20, 3);
	/* The first round releases only what is not newer than nothing seen before: the comm. */
	assert_int_equal(round_marker(q), 0);
	expect(o, (uint64_t[]){ 2000, ROUND }, 2);
	sample(q, 25, 4);  /* older than the previous round's newest: still in time */
	sample(q, 40, 5);
	sample(q, 30, 6);  /* equal to 2: after it */
	comm(q, 1);        /* no time: "now", 40, after 5 */
	sample(q, 35, 7);
	assert_int_equal(round_marker(q), 0);
	expect(o, (uint64_t[]){ 2000, ROUND, 1, 3, 4, 2, 6, ROUND }, 8);
	sample(q, 5, 8);   /* after 30 went out: late, released at the next round all the same */
	assert_int_equal(round_marker(q), 0);
	expect(o, (uint64_t[]){ 2000, ROUND, 1, 3, 4, 2, 6, ROUND, 8, 7, 5, 2001, ROUND }, 13);
	sample(q, 50, 9);
	assert_int_equal(ordered_flush(q), 0);
	expect(o, (uint64_t[]){ 2000, ROUND, 1, 3, 4, 2, 6, ROUND, 8, 7, 5, 2001, ROUND, 9 }, 14);
	assert_int_equal(ordered_late(q), 1);
	assert_int_equal(ordered_flush(q), 0);
	assert_int_equal(o->n, 14);
	ordered_free(q);
	free(o);
}

static void test_callback_stops(void **state)
{
	struct out *o = calloc(1, sizeof(*o));
	struct ordered_queue *q = ordered_new(&set, collect, o);
	o->stop_at = 2;
	for (int i = 0; i < 5; i++)
		sample(q, 100 - (uint64_t)i, (uint64_t)i);
	assert_int_equal(ordered_flush(q), 7);
	expect(o, (uint64_t[]){ 4, 3 }, 2);
	o->stop_at = 0;
	assert_int_equal(ordered_flush(q), 0);
	expect(o, (uint64_t[]){ 4, 3, 2, 1, 0 }, 5);
	/* Records still queued are freed with the queue. */
	sample(q, 1, 1);
	sample(q, 2, 2);
	ordered_free(q);
	free(o);
}

/* AUXTRACE data lies after header.size; the queue's copy keeps it. */
static int aux_cb(const struct perf_event_header *h, void *arg)
{
	assert_int_equal(h->type, REC_AUXTRACE);
	assert_memory_equal((const uint8_t *)h + h->size, "0123456789abcdef", 16);
	++*(int *)arg;
	return 0;
}

static void test_auxtrace_data_travels(void **state)
{
	int seen = 0;
	struct ordered_queue *q = ordered_new(&set, aux_cb, &seen);
	uint8_t rec[48 + 16] __attribute__((aligned(8))) = { 0 };
	struct perf_event_header h = { REC_AUXTRACE, 0, 48 };
	uint64_t size = 16;
	memcpy(rec, &h, sizeof(h));
	memcpy(rec + 8, &size, 8);
	memcpy(rec + 48, "0123456789abcdef", 16);
	assert_int_equal(ordered_push(q, (struct perf_event_header *)rec), 0);
	memset(rec, 0, sizeof(rec));
	assert_int_equal(ordered_flush(q), 0);
	assert_int_equal(seen, 1);
	ordered_free(q);
}

static uint64_t rng = 88172645463325252ULL;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

struct pushed {
	uint64_t time, tag;
};

static int by_time(const void *a, const void *b)
{
	const struct pushed *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->tag < y->tag ? -1 : x->tag > y->tag;  /* tags grow with arrival */
}

static void test_shuffled_stream(void **state)
{
	enum { ROUNDS = 10, PER = 1000 };
	struct out *o = calloc(1, sizeof(*o));
	struct pushed *p = calloc(ROUNDS * PER, sizeof(*p));
	struct ordered_queue *q = ordered_new(&set, collect, o);
	size_t n = 0;
	for (int r = 0; r < ROUNDS; r++) {
		/* Each round overlaps the next by half: nothing arrives after its turn. */
		for (int i = 0; i < PER; i++, n++) {
			p[n].time = 1 + (uint64_t)r * 1000 + next_rand() % 1500;
			p[n].tag = 10000 + n;
			assert_int_equal(sample(q, p[n].time, p[n].tag), 0);
		}
		assert_int_equal(round_marker(q), 0);
	}
	assert_int_equal(ordered_flush(q), 0);
	qsort(p, n, sizeof(*p), by_time);
	size_t k = 0;
	for (size_t i = 0; i < o->n; i++) {
		if (o->tag[i] == ROUND)
			continue;
		assert_int_equal(o->tag[i], p[k++].tag);
	}
	assert_int_equal(k, n);
	assert_int_equal(ordered_late(q), 0);
	ordered_free(q);
	free(p);
	free(o);
}

/* Records inside the stable range are handed back where they lie (a mapped file); the others
 * are copies (the reader's bounce buffer is reused for the next record). */
static const struct perf_event_header *seen_at[4];
static size_t nseen_at;

static int where_cb(const struct perf_event_header *h, void *arg)
{
	(void)arg;
	seen_at[nseen_at++] = h;
	return 0;
}

static void test_stable_range_not_copied(void **state)
{
	(void)state;
	static uint8_t file[512] __attribute__((aligned(8)));
	struct ordered_queue *q = ordered_new(&set, where_cb, NULL);
	ordered_set_stable(q, file, sizeof(file), false);
	nseen_at = 0;
	struct perf_sample s = { .ip = 1, .pid = 1, .tid = 1, .time = 20 };
	size_t n = record_build_sample(file, sizeof(file), &attr, &s);
	assert_true(n > 0);
	s.time = 10;
	s.ip = 2;
	assert_true(record_build_sample(buf, sizeof(buf), &attr, &s) > 0);
	assert_int_equal(ordered_push(q, (struct perf_event_header *)file), 0);
	assert_int_equal(ordered_push(q, (struct perf_event_header *)buf), 0);
	memset(buf, 0xaa, sizeof(buf)); /* the bounce buffer moves on */
	assert_int_equal(ordered_flush(q), 0);
	assert_int_equal(nseen_at, 2);
	assert_true((const uint8_t *)seen_at[1] == file);            /* time 20: in place */
	assert_true((const uint8_t *)seen_at[0] != buf);             /* time 10: a copy */
	ordered_free(q);
}

static int count_cb(const struct perf_event_header *h, void *arg)
{
	(void)h;
	(*(size_t *)arg)++;
	return 0;
}

/* Resident KiB of the mapping that starts at addr (/proc/self/smaps). */
static long rss_kib(const void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	assert_non_null(f);
	char line[512];
	bool in = false;
	long kib = -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo;
		if (sscanf(line, "%lx-", &lo) == 1 && strchr(line, '-') && strchr(line, ' ') > strchr(line, '-'))
			in = lo == (unsigned long)(uintptr_t)addr;
		else if (in && sscanf(line, "Rss: %ld kB", &kib) == 1)
			break;
	}
	fclose(f);
	return kib;
}

/* A flushed queue over a file's mapping hands the pages of the records it delivered back: the
 * same file and records without file_map stay resident whole (the baseline). */
static long flushed_rss(bool file_map)
{
	char path[] = "/tmp/lperf-ordered-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	uint8_t rec[64];
	struct perf_sample s = { .ip = 1, .pid = 1, .tid = 1 };
	size_t n = record_build_sample(rec, sizeof(rec), &attr, &s), count = (8u << 20) / n;
	FILE *f = fdopen(dup(fd), "w");
	for (size_t i = 0; i < count; i++) {
		s.time = i + 1;
		assert_int_equal(record_build_sample(rec, sizeof(rec), &attr, &s), n);
		assert_int_equal(fwrite(rec, n, 1, f), 1);
	}
	fclose(f);
	size_t len = n * count, seen = 0;
	const uint8_t *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	assert_true(map != MAP_FAILED);
	close(fd);
	struct ordered_queue *q = ordered_new(&set, count_cb, &seen);
	ordered_set_stable(q, map, len, file_map);
	for (size_t off = 0; off < len; off += n)
		assert_int_equal(ordered_push(q, (const struct perf_event_header *)(map + off)), 0);
	assert_int_equal(ordered_flush(q), 0);
	assert_int_equal(seen, count);
	long kib = rss_kib(map);
	ordered_free(q);
	munmap((void *)map, len);
	return kib;
}

static void test_delivered_pages_handed_back(void **state)
{
	(void)state;
	long kept = flushed_rss(false), handed = flushed_rss(true);
	print_message("resident after the flush: %ld KiB kept, %ld KiB handed back\n", kept, handed);
	assert_true(kept >= 8000);         /* every page was read */
	assert_true(handed < kept / 2);    /* at most the last step's */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_rounds),
		cmocka_unit_test(test_callback_stops),
		cmocka_unit_test(test_auxtrace_data_travels),
		cmocka_unit_test(test_shuffled_stream),
		cmocka_unit_test(test_stable_range_not_copied),
		cmocka_unit_test(test_delivered_pages_handed_back),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}

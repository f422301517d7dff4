/* perfdata_for_each_peek (the walk of a time-ordered report) against perfdata_for_each on the
 * same file: the same records in the same order, the ones after a large record given by their
 * start read with pread (a copy equal to the mapping's bytes: the whole record, or a sample's
 * first 256 bytes; until the first FINISHED_ROUND), the others as perfdata_for_each gives them;
 * and the time ordering of such starts (ordered_push_at) is ordered_push's; the order a queue
 * learns (ordered_learn), replayed on a plain walk (ordered_replay), is the queue's order; a read
 * walk's records held past their cb (perfdata_walk_hold) stay as they were until released. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "perfdata/perfdata.h"
#include "session/ordered.h"
#include "util/error.h"
#include "util/xalloc.h"

static struct perf_event_attr attr;
static char path[64];

enum { NREC = 400 };

/* What a walk saw, record by record. */
struct seen {
	uint64_t off[NREC];
	uint32_t type[NREC], size[NREC];
	uint64_t sum[NREC];   /* of the record's bytes in the mapping */
	bool peeked[NREC];
	size_t n;
	const struct perfdata_reader *r;
};

static uint64_t sum_of(const uint8_t *p, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

static void note(struct seen *s, const struct perf_event_header *h, bool peeked)
{
	assert_true(s->n < NREC);
	s->off[s->n] = s->r->offset;
	s->type[s->n] = h->type;
	s->size[s->n] = h->size;
	s->sum[s->n] = sum_of((const uint8_t *)h, h->size);
	s->peeked[s->n++] = peeked;
}

static int whole_cb(const struct perf_event_header *h, void *arg)
{
	note(arg, h, false);
	return 0;
}

static int peek_cb(const struct perf_event_header *at, const struct perf_event_header *head, size_t len, void *arg)
{
	struct seen *s = arg;
	assert_ptr_equal(at, s->r->map + s->r->offset);
	assert_int_equal(head->size, at->size);
	assert_true(len == head->size || (head->type == PERF_RECORD_SAMPLE && len >= 256 && len < head->size));
	assert_memory_equal(head, at, len);
	note(s, at, true);
	return 0;
}

/* Times: scrambled, or in order but for a few records placed late (as perf inject -j places
 * MMAP2 records of JIT code). */
static bool sorted_times;

static uint64_t time_of(size_t i)
{
	if (!sorted_times)
		return 1000 + (i * 37) % 500;
	return 1000 + i * 10 - (i % 50 == 7 ? 35 : 0);
}

/* Large DWARF-like samples (a 3 KB raw part), small samples, COMMs and (with rounds)
 * FINISHED_ROUNDs mixed, times out of order; returns the number of records written. */
static size_t write_file(bool rounds)
{
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_SOFTWARE;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW;
	attr.sample_id_all = 1;
	snprintf(path, sizeof(path), "/tmp/lperf-peek-%d.data", (int)getpid());
	struct perfdata_writer *w = perfdata_writer_open(path);
	assert_non_null(w);
	uint64_t id = 7;
	perfdata_writer_add_event(w, &attr, "cpu-clock", &id, 1);
	static uint8_t raw[3000], rec[4096] __attribute__((aligned(8)));
	size_t n = 0;
	for (size_t i = 0; i < NREC; i++) {
		for (size_t k = 0; k < sizeof(raw); k++)
			raw[k] = (uint8_t)(i * 31 + k);
		size_t len;
		unsigned kind = (unsigned)(i * 7919 % 10);
		if (kind == 0 || (kind == 1 && !rounds)) {
			len = record_build_comm(rec, sizeof(rec), &attr, 1, 1, i % 2 ? "a" : "bb", false);
			if (sorted_times) /* the sample_id trailer's time, the record's last word */
				memcpy(rec + len - 8, &(uint64_t){ time_of(i) }, 8);
		} else if (kind == 1) {
			len = record_build_marker(rec, sizeof(rec), REC_FINISHED_ROUND);
		} else {
			struct perf_sample s = { .ip = i, .pid = 1, .tid = 1, .time = time_of(i),
						 .raw = raw, .raw_size = kind < 4 ? 4 : (uint32_t)sizeof(raw) - (uint32_t)i };
			len = record_build_sample(rec, sizeof(rec), &attr, &s);
		}
		assert_true(len > 0);
		assert_int_equal(perfdata_writer_write(w, rec, len), 0);
		n++;
	}
	assert_int_equal(perfdata_writer_close(w, true, false), 0);
	return n;
}

/* Without FINISHED_ROUND every record after a large one is read by its start; with them, only
 * those before the first (the records then go out soon after the walk passes them). */
static void peek_walk(bool rounds)
{
	size_t n = write_file(rounds);
	struct perfdata_reader r;
	if (perfdata_open(&r, path) < 0)
		fail_msg("%s", err_msg());
	struct seen *a = xcalloc(1, sizeof(*a)), *b = xcalloc(1, sizeof(*b));
	a->r = b->r = &r;
	assert_int_equal(perfdata_for_each(&r, whole_cb, a), 0);
	assert_int_equal(perfdata_for_each_peek(&r, whole_cb, peek_cb, b), 0);
	assert_int_equal(a->n, n);
	assert_int_equal(b->n, n);
	size_t peeked = 0, after_large = 0;
	bool round_seen = false;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(a->off[i], b->off[i]);
		assert_int_equal(a->type[i], b->type[i]);
		assert_int_equal(a->size[i], b->size[i]);
		if (a->sum[i] != b->sum[i])
			fail_msg("record %zu at offset %lu differs", i, (unsigned long)a->off[i]);
		bool want = i && a->size[i - 1] >= 2048 && !round_seen;
		round_seen |= a->type[i] == REC_FINISHED_ROUND;
		peeked += b->peeked[i];
		after_large += want;
		assert_int_equal(b->peeked[i], want);
	}
	print_message("%zu records, %zu read by their start\n", n, peeked);
	assert_true(rounds ? peeked >= 1 : peeked > n / 3);
	assert_int_equal(peeked, after_large);
	free(a);
	free(b);
	perfdata_close(&r);
	unlink(path);
}

static void test_peek_walk_is_the_walk(void **state)
{
	(void)state;
	peek_walk(false);
	peek_walk(true);
}

/* The queue's releases: the records' addresses. */
struct released {
	const void *at[NREC];
	size_t n;
};

static int released_cb(const struct perf_event_header *h, void *arg)
{
	struct released *o = arg;
	assert_true(o->n < NREC);
	o->at[o->n++] = h;
	return 0;
}

struct both {
	struct ordered_queue *whole, *peek;
};

static int push_whole(const struct perf_event_header *h, void *arg)
{
	struct both *b = arg;
	int rc = ordered_push(b->whole, h);
	return rc ? rc : ordered_push(b->peek, h);
}

static int push_peek(const struct perf_event_header *at, const struct perf_event_header *head, size_t len, void *arg)
{
	struct both *b = arg;
	int rc = ordered_push(b->whole, at);
	return rc ? rc : ordered_push_at(b->peek, at, head, len);
}

static void ordered_starts(bool rounds)
{
	write_file(rounds);
	struct perfdata_reader r;
	if (perfdata_open(&r, path) < 0)
		fail_msg("%s", err_msg());
	struct released *x = xcalloc(1, sizeof(*x)), *y = xcalloc(1, sizeof(*y));
	struct both b = { ordered_new(&r.evsels, released_cb, x), ordered_new(&r.evsels, released_cb, y) };
	ordered_set_stable(b.whole, r.map, r.size, false);
	ordered_set_stable(b.peek, r.map, r.size, false);
	assert_int_equal(perfdata_for_each_peek(&r, push_whole, push_peek, &b), 0);
	assert_int_equal(ordered_flush(b.whole), 0);
	assert_int_equal(ordered_flush(b.peek), 0);
	assert_int_equal(x->n, y->n);
	assert_true(x->n > NREC / 2);
	size_t in_map = 0;
	for (size_t i = 0; i < x->n; i++) {
		const struct perf_event_header *hx = x->at[i], *hy = y->at[i];
		/* FINISHED_ROUND goes through at once, from wherever the walk had it */
		if (hx->type == REC_FINISHED_ROUND) {
			assert_int_equal(hy->type, REC_FINISHED_ROUND);
			continue;
		}
		assert_ptr_equal(hx, hy);
		in_map += (const uint8_t *)hy >= r.map && (const uint8_t *)hy < r.map + r.size;
	}
	assert_true(in_map > NREC / 2);
	ordered_free(b.whole);
	ordered_free(b.peek);
	free(x);
	free(y);
	perfdata_close(&r);
	unlink(path);
}

static void test_ordered_starts(void **state)
{
	(void)state;
	ordered_starts(false);
	ordered_starts(true);
}

/* A queue that learns the order (walked with the starts read, as a report's first run) and one
 * that replays it on the plain walk (a later run): the same records, in the same order. */
static int push_one(const struct perf_event_header *h, void *arg)
{
	return ordered_push(arg, h);
}

static int push_one_at(const struct perf_event_header *at, const struct perf_event_header *head, size_t len,
		       void *arg)
{
	return ordered_push_at(arg, at, head, len);
}

/* Queue a learns the order of r's file, walked as a report's first run walks it. */
static bool learn_order(const struct perfdata_reader *r, struct ordered_queue *a, const struct ordered_pull **pulls,
			size_t *n)
{
	ordered_set_stable(a, r->map, r->size, true);
	ordered_learn(a, r->data_offset);
	assert_int_equal(perfdata_for_each_peek((struct perfdata_reader *)r, push_one, push_one_at, a), 0);
	assert_int_equal(ordered_flush(a), 0);
	return ordered_learned(a, r->data_offset + r->data_size, pulls, n);
}

static void learn_replay(bool rounds, bool sorted)
{
	sorted_times = sorted;
	write_file(rounds);
	struct perfdata_reader r;
	if (perfdata_open(&r, path) < 0)
		fail_msg("%s", err_msg());
	struct released *x = xcalloc(1, sizeof(*x)), *y = xcalloc(1, sizeof(*y));
	struct ordered_queue *a = ordered_new(&r.evsels, released_cb, x), *b = ordered_new(&r.evsels, released_cb, y);
	const struct ordered_pull *pulls;
	size_t n;
	bool learnt = learn_order(&r, a, &pulls, &n);
	assert_int_equal(learnt, !rounds); /* FINISHED_ROUND: walked the usual way */
	if (learnt) {
		print_message("%zu records, %zu pulls\n", x->n, n);
		assert_true(sorted ? n > 0 && n < x->n / 20 : n > x->n / 4);
		ordered_set_stable(b, r.map, r.size, true);
		ordered_replay(b, pulls, n);
		assert_int_equal(perfdata_for_each(&r, push_one, b), 0);
		assert_int_equal(ordered_flush(b), 0);
		assert_int_equal(x->n, y->n);
		for (size_t i = 0; i < x->n; i++)
			assert_ptr_equal(x->at[i], y->at[i]);
		assert_int_equal(ordered_late(b), 0);
	}
	ordered_free(a);
	ordered_free(b);
	free(x);
	free(y);
	perfdata_close(&r);
	unlink(path);
	sorted_times = false;
}

static void test_learn_replay(void **state)
{
	(void)state;
	learn_replay(false, false);
	learn_replay(false, true);
	learn_replay(true, false);
}

/* ---- perfdata_reader.read_walk: the data section read into a buffer, not through the mapping */

/* A read walk's caller keeping records past their cb (perfdata_walk_hold), as report's workers
 * do: up to HOLD_MAX at a time (several buffers' worth), the oldest released first; each is
 * checked unchanged when released. */
enum { HOLD_MAX = 150 };

struct holder {
	struct seen *s;
	const struct perfdata_reader *r;
	struct perfdata_rbuf *b[NREC];
	const struct perf_event_header *h[NREC];
	size_t idx[NREC];  /* the record's number in s */
	size_t first, n;
	size_t held;       /* holds taken in all */
	size_t unaligned;  /* records delivered from a realigned copy (not held) */
};

static void release_oldest(struct holder *o)
{
	size_t k = o->first++;
	o->n--;
	uint64_t sum = sum_of((const uint8_t *)o->h[k], o->s->size[o->idx[k]]);
	if (sum != o->s->sum[o->idx[k]])
		fail_msg("held record %zu changed before it was released", o->idx[k]);
	perfdata_walk_release(o->b[k]);
}

static int hold_cb(const struct perf_event_header *h, void *arg)
{
	struct holder *o = arg;
	whole_cb(h, o->s);
	/* Not the record (a byte before it, or more than the buffer holds after it): no hold. */
	assert_null(perfdata_walk_hold(o->r, (const uint8_t *)h - 4096 * 1024, 8));
	assert_null(perfdata_walk_hold(o->r, h, (size_t)1 << 30));
	struct perfdata_rbuf *b = perfdata_walk_hold(o->r, h, h->size);
	if (!b) { /* only a record the walk realigned (a damaged size before it): cb's copy */
		assert_true(o->r->offset % 8 != 0);
		o->unaligned++;
		return 0;
	}
	size_t k = o->first + o->n++;
	o->b[k] = b;
	o->h[k] = h;
	o->idx[k] = o->s->n - 1;
	o->held++;
	if (o->n > HOLD_MAX)
		release_oldest(o);
	return 0;
}

/* One walk of the file at path, read_walk (holding records: hold) or not: what it saw, its
 * result and message. */
static int walk_file_as(bool read_walk, bool hold, struct seen *s, char *msg, size_t cap)
{
	struct perfdata_reader r;
	if (perfdata_open(&r, path) < 0)
		fail_msg("%s", err_msg());
	s->r = &r;
	s->n = 0;
	r.read_walk = read_walk;
	struct holder *o = xcalloc(1, sizeof(*o));
	o->s = s;
	o->r = &r;
	int rc = hold ? perfdata_for_each(&r, hold_cb, o) : perfdata_for_each(&r, whole_cb, s);
	snprintf(msg, cap, "%s", rc ? err_msg() : "");
	if (hold) {
		assert_int_equal(o->held + o->unaligned, s->n);
		assert_true(o->held > s->n / 2 || s->n < 10);
		assert_null(perfdata_walk_hold(&r, &r, 8)); /* no walk running */
		while (o->n)                                  /* after the walk, still as they were */
			release_oldest(o);
	}
	free(o);
	perfdata_close(&r);
	return rc;
}

static int walk_file(bool read_walk, struct seen *s, char *msg, size_t cap)
{
	return walk_file_as(read_walk, false, s, msg, cap);
}

static int outside_cb(const struct perf_event_header *h, void *arg)
{
	struct seen *s = arg;
	const uint8_t *p = (const uint8_t *)h;
	assert_true(p < s->r->map || p >= s->r->map + s->r->size); /* a copy, not the mapping */
	return whole_cb(h, arg);
}

static void same_walks(void)
{
	struct seen *a = xcalloc(1, sizeof(*a)), *b = xcalloc(1, sizeof(*b));
	char ma[512], mb[512];
	int ra = walk_file(false, a, ma, sizeof(ma));
	for (int hold = 0; hold < 2; hold++) {
		int rb = walk_file_as(true, hold, b, mb, sizeof(mb));
		assert_int_equal(ra, rb);
		assert_string_equal(ma, mb);
		assert_int_equal(a->n, b->n);
		for (size_t i = 0; i < a->n; i++) {
			assert_int_equal(a->off[i], b->off[i]);
			assert_int_equal(a->type[i], b->type[i]);
			assert_int_equal(a->size[i], b->size[i]);
			if (a->sum[i] != b->sum[i])
				fail_msg("record %zu at offset %lu differs", i, (unsigned long)a->off[i]);
		}
	}
	free(a);
	free(b);
}

/* The file's bytes, changed at off, written back. */
static void poke(size_t off, const void *v, size_t n)
{
	FILE *f = fopen(path, "r+b");
	assert_non_null(f);
	assert_int_equal(fseek(f, (long)off, SEEK_SET), 0);
	assert_int_equal(fwrite(v, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

static void test_read_walk_is_the_walk(void **state)
{
	(void)state;
	size_t n = write_file(false); /* about 800 KB: the 256 KiB buffer is refilled mid-record */
	struct perfdata_reader r;
	if (perfdata_open(&r, path) < 0)
		fail_msg("%s", err_msg());
	assert_true(r.data_size > (512u << 10));
	uint64_t data = r.data_offset, size = r.data_size;
	struct seen *s = xcalloc(1, sizeof(*s));
	s->r = &r;
	r.read_walk = true;
	assert_int_equal(perfdata_for_each(&r, outside_cb, s), 0);
	assert_int_equal(s->n, n);
	perfdata_close(&r);
	same_walks();
	/* Damaged sizes, and bytes flipped anywhere in the data section: the same records before
	 * the damage, the same error naming the same offset. */
	uint8_t *orig = xmalloc(size);
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, (long)data, SEEK_SET), 0);
	assert_int_equal(fread(orig, 1, size, f), size);
	fclose(f);
	uint64_t at = s->off[n / 2];
	poke(at + 6, &(uint16_t){ 3 }, 2);      /* smaller than its header */
	same_walks();
	poke(at + 6, &(uint16_t){ 65535 }, 2);  /* another record's bytes as its own, or past the end */
	same_walks();
	poke(s->off[n - 1] + 6, &(uint16_t){ 65535 }, 2);
	same_walks();
	srand(27);
	for (int round = 0; round < 40; round++) {
		poke(data, orig, size);
		for (int k = 0; k < 3; k++) {
			size_t o = (size_t)rand() % size;
			poke(data + o, &(uint8_t){ (uint8_t)(orig[o] ^ (1u << (rand() % 8))) }, 1);
		}
		same_walks();
	}
	/* Cut after the reader opened it: an error, not a fault. */
	poke(data, orig, size);
	if (perfdata_open(&r, path) < 0)
		fail_msg("%s", err_msg());
	r.read_walk = true;
	assert_int_equal(truncate(path, (off_t)(data + size / 2)), 0);
	s->r = &r;
	s->n = 0;
	assert_int_equal(perfdata_for_each(&r, whole_cb, s), -1);
	assert_non_null(strstr(err_msg(), "shorter than when it was opened"));
	assert_true(s->n > 0 && s->n < n);
	perfdata_close(&r);
	/* The same with the records held: the ones delivered before the cut stay as they were. */
	poke(data, orig, size);
	assert_int_equal(truncate(path, (off_t)(data + size / 2)), 0);
	char msg[512];
	assert_int_equal(walk_file_as(true, true, s, msg, sizeof(msg)), -1);
	assert_true(s->n > 0 && s->n < n);
	free(orig);
	free(s);
	unlink(path);
}

/* The records a queue released, by their bytes (a read walk's are copies). */
struct released_sums {
	uint64_t sum[NREC];
	size_t n;
};

static int sums_cb(const struct perf_event_header *h, void *arg)
{
	struct released_sums *o = arg;
	assert_true(o->n < NREC);
	o->sum[o->n++] = sum_of((const uint8_t *)h, h->size);
	return 0;
}

struct copy_push {
	struct ordered_queue *q;
	const struct perfdata_reader *r;
};

static int push_copy(const struct perf_event_header *h, void *arg)
{
	struct copy_push *c = arg;
	return ordered_push_copy(c->q, h, c->r->offset);
}

/* A replay fed by a read walk (ordered_push_copy, records placed by their file offsets) releases
 * what a replay on the mapping does, in the same order. */
static void test_read_walk_replay(void **state)
{
	(void)state;
	sorted_times = true;
	write_file(false);
	struct perfdata_reader r;
	if (perfdata_open(&r, path) < 0)
		fail_msg("%s", err_msg());
	struct released *x = xcalloc(1, sizeof(*x));
	struct ordered_queue *a = ordered_new(&r.evsels, released_cb, x);
	const struct ordered_pull *pulls;
	size_t n;
	assert_true(learn_order(&r, a, &pulls, &n));
	assert_true(n > 0);
	struct released_sums *y = xcalloc(1, sizeof(*y)), *z = xcalloc(1, sizeof(*z));
	struct ordered_queue *b = ordered_new(&r.evsels, sums_cb, y), *c = ordered_new(&r.evsels, sums_cb, z);
	ordered_set_stable(b, r.map, r.size, true);
	ordered_set_stable(c, r.map, r.size, true);
	ordered_replay(b, pulls, n);
	ordered_replay(c, pulls, n);
	assert_int_equal(perfdata_for_each(&r, push_one, b), 0);
	r.read_walk = true;
	assert_int_equal(perfdata_for_each(&r, push_copy, &(struct copy_push){ c, &r }), 0);
	assert_int_equal(ordered_flush(b), 0);
	assert_int_equal(ordered_flush(c), 0);
	assert_int_equal(y->n, x->n);
	assert_int_equal(z->n, x->n);
	for (size_t i = 0; i < x->n; i++) {
		const struct perf_event_header *h = x->at[i];
		assert_true(y->sum[i] == sum_of(x->at[i], h->size));
		assert_true(z->sum[i] == y->sum[i]);
	}
	assert_int_equal(ordered_late(c), 0);
	ordered_free(a);
	ordered_free(b);
	ordered_free(c);
	free(x);
	free(y);
	free(z);
	perfdata_close(&r);
	unlink(path);
	sorted_times = false;
}

/* A data section that starts off an 8-byte boundary (the header's data offset is the file's
 * word): the read walk meets its records where the mapped walk does, the same records or error. */
static void test_read_walk_unaligned_data(void **state)
{
	(void)state;
	write_file(false);
	for (uint64_t shift = 1; shift < 8; shift++) {
		struct seen *a = xcalloc(1, sizeof(*a)), *b = xcalloc(1, sizeof(*b));
		int rc[2];
		char msg[2][512];
		for (int rw = 0; rw < 2; rw++) {
			struct perfdata_reader r;
			if (perfdata_open(&r, path) < 0)
				fail_msg("%s", err_msg());
			r.data_offset += shift;
			r.data_size -= shift;
			r.read_walk = rw;
			struct seen *s = rw ? b : a;
			s->r = &r;
			rc[rw] = perfdata_for_each(&r, whole_cb, s);
			snprintf(msg[rw], sizeof(msg[rw]), "%s", rc[rw] ? err_msg() : "");
			perfdata_close(&r);
		}
		assert_int_equal(rc[0], rc[1]);
		assert_string_equal(msg[0], msg[1]);
		assert_int_equal(a->n, b->n);
		for (size_t i = 0; i < a->n; i++)
			assert_true(a->off[i] == b->off[i] && a->sum[i] == b->sum[i]);
		free(a);
		free(b);
	}
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_peek_walk_is_the_walk),
		cmocka_unit_test(test_ordered_starts),
		cmocka_unit_test(test_learn_replay),
		cmocka_unit_test(test_read_walk_is_the_walk),
		cmocka_unit_test(test_read_walk_replay),
		cmocka_unit_test(test_read_walk_unaligned_data),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

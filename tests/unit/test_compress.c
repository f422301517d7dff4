/* zstd-compressed records (perf record -z): records of every size survive compression into
 * COMPRESSED records and come back whole and in order, also when a record continues in the next
 * COMPRESSED record; a damaged stream, a record smaller than its header and a callback that
 * stops are reported, never crash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "perfdata/compress.h"
#include "util/error.h"
#include "util/xalloc.h"

/* n records of growing sizes, each filled with its index. */
static uint8_t *make_records(size_t n, size_t *len)
{
	uint8_t *buf = NULL;
	size_t cap = 0;
	*len = 0;
	for (size_t i = 0; i < n; i++) {
		size_t size = 8 + (i * 56) % 4096 / 8 * 8;
		ALLOC_GROW(buf, *len + size, cap);
		struct perf_event_header h = { PERF_RECORD_SAMPLE, (uint16_t)i, (uint16_t)size };
		memcpy(buf + *len, &h, sizeof(h));
		memset(buf + *len + 8, (int)(i & 0xff), size - 8);
		*len += size;
	}
	return buf;
}

struct seen {
	size_t n;
	int stop_at;
	const uint8_t *expect;
	size_t off;
};

static int check(const struct perf_event_header *h, void *arg)
{
	struct seen *s = arg;
	assert_int_equal((uintptr_t)h & 7, 0);
	assert_memory_equal(h, s->expect + s->off, h->size);
	s->off += h->size;
	s->n++;
	return s->stop_at && (int)s->n == s->stop_at ? 7 : 0;
}

/* Feeds each COMPRESSED record of out[0..len) to d. */
static int feed_all(struct perfdata_decomp *d, const uint8_t *out, size_t len, struct seen *s)
{
	for (size_t p = 0; p < len;) {
		struct perf_event_header h;
		memcpy(&h, out + p, sizeof(h));
		assert_int_equal(h.type, 81);
		int r = perfdata_decomp_feed(d, out + p + 8, h.size - 8, p, check, s);
		if (r)
			return r;
		p += h.size;
	}
	return 0;
}

static void test_round_trip(void **state)
{
	size_t len;
	uint8_t *recs = make_records(5000, &len);
	struct perfdata_comp *c = perfdata_comp_new(1);
	assert_non_null(c);
	uint8_t *out = NULL;
	size_t out_len = 0, out_cap = 0;
	/* Two batches, the second starting mid-stream. */
	assert_int_equal(perfdata_comp_records(c, recs, len / 2 / 8 * 8, &out, &out_len, &out_cap), 0);
	struct perfdata_decomp *d = perfdata_decomp_new("test");
	struct seen s = { 0, 0, recs, 0 };
	/* The first batch may end inside a record: it waits for the rest. */
	assert_int_equal(feed_all(d, out, out_len, &s), 0);
	size_t first = out_len;
	assert_int_equal(perfdata_comp_records(c, recs + len / 2 / 8 * 8, len - len / 2 / 8 * 8, &out, &out_len,
					       &out_cap), 0);
	assert_int_equal(feed_all(d, out + first, out_len - first, &s), 0);
	assert_int_equal(s.n, 5000);
	assert_int_equal(perfdata_decomp_pending(d), 0);
	uint64_t in, got;
	perfdata_decomp_totals(d, &in, &got);
	assert_int_equal(got, len);
	perfdata_comp_totals(c, &in, &got);
	assert_int_equal(in, len);
	assert_true(got < len);
	perfdata_decomp_free(d);
	perfdata_comp_free(c);
	free(out);
	free(recs);
}

static void test_incompressible_splits(void **state)
{
	/* Random bytes do not shrink: the output must be split into records under 64 KiB. */
	size_t len = 300000;
	uint8_t *recs = xmalloc(len);
	size_t p = 0;
	srand(7);
	while (p < len) {
		size_t size = len - p < 4096 ? len - p : 4096;
		struct perf_event_header h = { PERF_RECORD_SAMPLE, 0, (uint16_t)size };
		memcpy(recs + p, &h, 8);
		for (size_t i = 8; i < size; i++)
			recs[p + i] = (uint8_t)rand();
		p += size;
	}
	struct perfdata_comp *c = perfdata_comp_new(3);
	uint8_t *out = NULL;
	size_t out_len = 0, out_cap = 0;
	assert_int_equal(perfdata_comp_records(c, recs, len, &out, &out_len, &out_cap), 0);
	assert_true(out_len / 65535 >= 4);
	struct perfdata_decomp *d = perfdata_decomp_new("test");
	struct seen s = { 0, 0, recs, 0 };
	assert_int_equal(feed_all(d, out, out_len, &s), 0);
	assert_int_equal(s.off, len);
	perfdata_decomp_free(d);
	perfdata_comp_free(c);
	free(out);
	free(recs);
}

static void test_damage(void **state)
{
	size_t len;
	uint8_t *recs = make_records(300, &len);
	struct perfdata_comp *c = perfdata_comp_new(1);
	uint8_t *out = NULL;
	size_t out_len = 0, out_cap = 0;
	assert_int_equal(perfdata_comp_records(c, recs, len, &out, &out_len, &out_cap), 0);
	for (size_t i = 12; i < out_len && i < 40; i++)
		out[i] ^= 0x5a;
	struct perfdata_decomp *d = perfdata_decomp_new("bad.data");
	struct seen s = { 0, 0, recs, 0 };
	assert_int_equal(feed_all(d, out, out_len, &s), -1);
	assert_non_null(strstr(err_msg(), "bad.data: COMPRESSED record at offset 0x0"));
	perfdata_decomp_free(d);

	/* A record claiming 4 bytes. */
	uint8_t tiny[16] = { 9, 0, 0, 0, 0, 0, 4, 0 };
	out_len = 0;
	assert_int_equal(perfdata_comp_records(c, tiny, sizeof(tiny), &out, &out_len, &out_cap), 0);
	d = perfdata_decomp_new("tiny.data");
	assert_int_equal(feed_all(d, out, out_len, &s), -1);
	assert_non_null(strstr(err_msg(), "smaller than its header"));
	perfdata_decomp_free(d);
	perfdata_comp_free(c);
	free(out);
	free(recs);
}

static void test_callback_stops(void **state)
{
	size_t len;
	uint8_t *recs = make_records(100, &len);
	struct perfdata_comp *c = perfdata_comp_new(1);
	uint8_t *out = NULL;
	size_t out_len = 0, out_cap = 0;
	assert_int_equal(perfdata_comp_records(c, recs, len, &out, &out_len, &out_cap), 0);
	struct perfdata_decomp *d = perfdata_decomp_new("t");
	struct seen s = { 0, 10, recs, 0 };
	assert_int_equal(feed_all(d, out, out_len, &s), 7);
	assert_int_equal(s.n, 10);
	perfdata_decomp_free(d);
	perfdata_comp_free(c);
	free(out);
	free(recs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_incompressible_splits),
		cmocka_unit_test(test_damage),
		cmocka_unit_test(test_callback_stops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

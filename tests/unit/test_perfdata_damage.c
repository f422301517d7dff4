/* Damaged perf.data files give one-line errors naming the file, the offset and the problem, never
 * crashes (run under ASan/UBSan too): every truncation of a file, random byte flips in native,
 * swapped and pipe-mode files, bad headers, attrs and sections; attrs of other sizes (64 to 136
 * bytes), the old 72-byte header, and damaged features that only cost a note. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "perfdata_test.h"
#include "session/ordered.h"

static char tmpdir[64];

static int group_setup(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/lperf-pdd.XXXXXX");
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int group_teardown(void **state)
{
	pd_run("rm -rf %s", tmpdir);
	return 0;
}

static char *tmp(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
}

static int parse_all(const struct perf_event_header *h, void *arg)
{
	const struct perfdata_reader *r = arg;
	struct perf_sample p;
	union {
		struct rec_mmap m;
		struct rec_comm c;
		struct rec_task t;
		struct rec_lost l;
	} u;
	if (h->type == PERF_RECORD_SAMPLE)
		sample_parse(&r->evsels, h, &p);
	else
		sample_id_parse(&r->evsels, h, &p);
	record_time(&r->evsels, h);
	if (p.evsel && p.callchain_nr)
		(void)p.callchain[p.callchain_nr - 1];
	if (h->type == PERF_RECORD_MMAP || h->type == PERF_RECORD_MMAP2) {
		if (record_parse_mmap(h, &u.m) == 0)
			(void)strlen(u.m.filename);
	}
	if (h->type == PERF_RECORD_COMM && record_parse_comm(h, &u.c) == 0)
		(void)strlen(u.c.comm);
	if (h->type == PERF_RECORD_FORK || h->type == PERF_RECORD_EXIT)
		record_parse_task(h, &u.t);
	if (h->type == PERF_RECORD_LOST)
		record_parse_lost(h, &u.l);
	return 0;
}

struct fuzz {
	struct perfdata_reader *r;
	struct ordered_queue *q;
};

static int fuzz_cb(const struct perf_event_header *h, void *arg)
{
	struct fuzz *f = arg;
	parse_all(h, f->r);
	return ordered_push(f->q, h);
}

static int fuzz_release(const struct perf_event_header *h, void *arg)
{
	return 0;
}

/* Opens and walks bytes that may be damaged: 1 when everything read, 0 on an error. */
static bool last_truncated; /* try_bytes' file was read as truncated (its data section cut) */

static int try_bytes(const uint8_t *buf, size_t n)
{
	last_truncated = false;
	uint8_t *copy = malloc(n ? n : 1);  /* exactly n bytes, so ASan sees overreads */
	memcpy(copy, buf, n);
	struct perfdata_reader r;
	int ok = 0;
	if (perfdata_open_mem(&r, "fuzz", copy, n) == 0) {
		assert_true(strlen(err_msg()) < 400);
		struct fuzz f = { &r, ordered_new(&r.evsels, fuzz_release, NULL) };
		ok = perfdata_for_each(&r, fuzz_cb, &f) == 0;
		last_truncated = r.truncated;
		ordered_flush(f.q);
		ordered_free(f.q);
		perfdata_close(&r);
	} else {
		const char *m = err_msg();
		assert_non_null(strstr(m, "fuzz"));
		assert_null(strchr(m, '\n'));
	}
	free(copy);
	return ok;
}

static void test_every_truncation(void **state)
{
	char *p = pd_fixture("perf61-two-events.data");
	size_t n;
	uint8_t *buf = pd_slurp(p, &n);
	uint64_t data_end;
	memcpy(&data_end, buf + 40, 8);
	uint64_t ds;
	memcpy(&ds, buf + 48, 8);
	data_end += ds;
	for (size_t len = 0; len <= n; len++) {
		int ok = try_bytes(buf, len);
		/* Cut before the data ends: the data section no longer fits; it is read up to the
		 * cut (docs/report.md), which succeeds only where the cut falls between records, and
		 * is then said to be truncated. After: only features. */
		if (len < data_end)
			assert_true(!ok || last_truncated);
		else
			assert_int_equal(ok, 1);
	}
	free(buf);
	free(p);

	p = pd_fixture("perf61-pipe.data");
	buf = pd_slurp(p, &n);
	for (size_t len = 0; len <= n; len += 3)
		try_bytes(buf, len);
	free(buf);
	free(p);
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void flip_bytes(const uint8_t *buf, size_t n, int rounds, size_t *ok)
{
	uint8_t *copy = malloc(n);
	for (int i = 0; i < rounds; i++) {
		memcpy(copy, buf, n);
		int flips = 1 + (int)(next_rand() % 3);
		for (int j = 0; j < flips; j++) {
			size_t at = next_rand() % n;
			/* Half the flips land in the first 1 KiB: header, attrs and ids. */
			if (next_rand() & 1)
				at %= n < 1024 ? n : 1024;
			copy[at] ^= (uint8_t)(1 + next_rand() % 255);
		}
		*ok += try_bytes(copy, n);
	}
	free(copy);
}

static void test_random_byte_flips(void **state)
{
	char *p = pd_fixture("perf61-two-events.data");
	size_t n, ok = 0;
	uint8_t *buf = pd_slurp(p, &n);
	flip_bytes(buf, n, 3000, &ok);
	/* Most flips land in sample payloads, which still parse. */
	assert_true(ok > 100);
	struct perfdata_reader nat;
	assert_int_equal(perfdata_open_mem(&nat, p, buf, n), 0);
	uint8_t *sw = pd_swap_file(buf, n, &nat);
	flip_bytes(sw, n, 1000, &ok);
	perfdata_close(&nat);
	free(sw);
	free(buf);
	free(p);

	p = pd_fixture("perf61-pipe.data");
	buf = pd_slurp(p, &n);
	flip_bytes(buf, n, 1000, &ok);
	free(buf);
	free(p);
}

static void expect_error(const uint8_t *buf, size_t n, const char *want)
{
	struct perfdata_reader r;
	int rc = perfdata_open_mem(&r, "bad.data", buf, n);
	if (rc == 0) {
		rc = perfdata_for_each(&r, parse_all, &r);
		perfdata_close(&r);
	}
	assert_int_equal(rc, -1);
	if (!strstr(err_msg(), want))
		fail_msg("expected '%s' in: %s", want, err_msg());
	assert_null(strchr(err_msg(), '\n'));
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

static void test_damaged_headers(void **state)
{
	char *p = pd_fixture("perf61-two-events.data");
	size_t n;
	uint8_t *orig = pd_slurp(p, &n), *b = malloc(n);
	uint64_t attrs = get64(orig + 24), data = get64(orig + 40);
#define RESET() memcpy(b, orig, n)
	RESET();
	memcpy(b, "\x7f" "ELF\2\1\1\0", 8);
	expect_error(b, n, "bad.data: not a perf.data file: the magic at offset 0x0 is 7f 45 4c 46");
	RESET();
	memcpy(b, "PERFFILE", 8);
	expect_error(b, n, "version 1 perf.data file");
	expect_error(orig, 10, "too short");
	RESET();
	put64(b + 8, 50);
	expect_error(b, n, "header size 50 at offset 0x8");
	RESET();
	put64(b + 16, 0);
	expect_error(b, n, "attr_size 0 at offset 0x10");
	RESET();
	memcpy(b + attrs + 4, &(uint32_t){ 512 }, 4);
	char want[128];
	snprintf(want, sizeof(want), "attr 0 at offset 0x%llx: size 512 is larger than", (unsigned long long)attrs);
	expect_error(b, n, want);
	RESET();
	memcpy(b + attrs + 144 + 4, &(uint32_t){ 32 }, 4);
	expect_error(b, n, "attr 1 at offset");
	expect_error(b, n, "size 32 is smaller than");
	RESET();
	put64(b + attrs + 128 + 8, 1ULL << 62);  /* ids section size */
	expect_error(b, n, "ids section");
	RESET();
	put64(b + 32, 0);
	expect_error(b, n, "describes no events");
	RESET();
	put64(b + 48, n);  /* data size past the end: read as a file cut short, up to its end */
	{
		struct perfdata_reader r;
		assert_int_equal(perfdata_open_mem(&r, "bad.data", b, n), 0);
		assert_true(r.truncated);
		assert_non_null(strstr(r.info.notes.v[0], "bad.data: truncated: the data section"));
		perfdata_close(&r);
	}
	RESET();
	put64(b + 40, UINT64_MAX - 4);
	expect_error(b, n, "data section");
	RESET();
	memcpy(b + data + 6, &(uint16_t){ 4 }, 2);
	snprintf(want, sizeof(want), "bad.data: record at offset 0x%llx: size 4 is smaller than its header",
		 (unsigned long long)data);
	expect_error(b, n, want);
	RESET();
	/* The last record claims more than the section holds. */
	uint64_t end = data + get64(orig + 48), at = data, last = data;
	while (at < end) {
		last = at;
		uint16_t sz;
		memcpy(&sz, orig + at + 6, 2);
		at += sz;
	}
	memcpy(b + last + 6, &(uint16_t){ 0xfff8 }, 2);
	expect_error(b, n, "runs past the end of the data section");

	/* Files on disk: missing, empty. */
	struct perfdata_reader r;
	assert_int_equal(perfdata_open(&r, "/nonexistent/perf.data"), -1);
	assert_non_null(strstr(err_msg(), "/nonexistent/perf.data: cannot open"));
	char *empty = tmp("empty.data");
	pd_spit(empty, "", 0);
	assert_int_equal(perfdata_open(&r, empty), -1);
	assert_non_null(strstr(err_msg(), "empty"));
	free(empty);
#undef RESET
	free(b);
	free(orig);
	free(p);
}

/* Attrs of other sizes: moved to a new section at the end of the file, with room for size. */
static uint8_t *resize_attrs(const uint8_t *in, size_t n, uint32_t asz, uint32_t field, size_t *outn)
{
	uint64_t attr_size = get64(in + 16), aoff = get64(in + 24), nattr = get64(in + 32) / attr_size;
	uint64_t nsize = asz + 16;
	*outn = n + nattr * nsize;
	uint8_t *out = calloc(1, *outn);
	memcpy(out, in, n);
	for (uint64_t i = 0; i < nattr; i++) {
		uint8_t *a = out + n + i * nsize;
		memset(a, 0xab, asz);  /* a newer perf's fields we do not know */
		memcpy(a, in + aoff + i * attr_size, asz < 128 ? asz : 128);
		memcpy(a + 4, &field, 4);
		memcpy(a + asz, in + aoff + i * attr_size + 128, 16);
	}
	put64(out + 16, nsize);
	put64(out + 24, n);
	put64(out + 32, nattr * nsize);
	return out;
}

static void test_attr_sizes(void **state)
{
	char *p = pd_fixture("perf61-two-events.data");
	size_t n, m;
	uint8_t *orig = pd_slurp(p, &n);
	struct perfdata_reader base, r;
	assert_int_equal(perfdata_open_mem(&base, p, orig, n), 0);
	struct {
		uint32_t asz, field;
	} cases[] = { { 136, 136 }, { 64, 64 }, { 64, 0 }, { 112, 112 } };
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		uint8_t *b = resize_attrs(orig, n, cases[i].asz, cases[i].field, &m);
		if (perfdata_open_mem(&r, "resized", b, m) < 0)
			fail_msg("attr size %u: %s", cases[i].asz, err_msg());
		assert_int_equal(r.evsels.n, 2);
		for (size_t e = 0; e < 2; e++) {
			const struct perf_event_attr *x = &r.evsels.v[e].attr, *y = &base.evsels.v[e].attr;
			size_t keep = cases[i].asz < 128 ? cases[i].asz : 128;
			assert_int_equal(x->size, sizeof(*x));
			assert_memory_equal((const uint8_t *)x + 8, (const uint8_t *)y + 8, keep - 8);
			assert_string_equal(r.evsels.v[e].name, base.evsels.v[e].name);
		}
		struct walk w;
		walk_ok(&r, &w);
		assert_true(w.samples > 0);
		perfdata_close(&r);
		free(b);
	}
	/* Smaller than the first published attr, or larger than the room the file gives it. */
	uint8_t *b = resize_attrs(orig, n, 64, 48, &m);
	expect_error(b, m, "size 48 is smaller than the 64 bytes");
	free(b);
	b = resize_attrs(orig, n, 64, 72, &m);
	expect_error(b, m, "size 72 is larger than the 64 bytes");
	free(b);
	perfdata_close(&base);
	free(orig);
	free(p);
}

static void test_old_header_and_damaged_features(void **state)
{
	char *p = pd_fixture("perf61-cpu-clock.data");
	size_t n;
	uint8_t *orig = pd_slurp(p, &n), *b = malloc(n);
	struct perfdata_reader r;

	/* A 72-byte header (before adds_features): no features, the records are all there. */
	memcpy(b, orig, n);
	put64(b + 8, 72);
	assert_int_equal(perfdata_open_mem(&r, "old", b, n), 0);
	assert_null(r.info.hostname);
	assert_false(r.info.has_feature[FEAT_HOSTNAME]);
	assert_string_equal(r.evsels.v[0].name, "cpu-clock");  /* from the attr, without EVENT_DESC */
	struct walk w;
	walk_ok(&r, &w);
	assert_true(w.samples > 0);
	perfdata_close(&r);

	/* A HOSTNAME length that runs off its section: a note, the rest reads. */
	memcpy(b, orig, n);
	uint64_t feat = get64(b + 40) + get64(b + 48);
	uint64_t bits = get64(b + 72);
	size_t idx = (size_t)__builtin_popcountll(bits & ((1ULL << FEAT_HOSTNAME) - 1));
	uint64_t host_off = get64(b + feat + 16 * idx);
	memcpy(b + host_off, &(uint32_t){ 0x7fffffff }, 4);
	assert_int_equal(perfdata_open_mem(&r, "damaged", b, n), 0);
	assert_null(r.info.hostname);
	assert_non_null(r.info.osrelease);
	assert_int_equal(r.info.notes.n, 1);
	assert_non_null(strstr(r.info.notes.v[0], "damaged: feature HOSTNAME at offset"));
	perfdata_close(&r);

	/* A feature section outside the file, and a table outside the file. */
	memcpy(b, orig, n);
	put64(b + feat + 16 * idx, n - 2);
	assert_int_equal(perfdata_open_mem(&r, "damaged", b, n), 0);
	assert_null(r.info.hostname);
	assert_non_null(strstr(r.info.notes.v[0], "HOSTNAME"));
	perfdata_close(&r);
	assert_int_equal(perfdata_open_mem(&r, "damaged", b, (size_t)feat + 20), 0);
	assert_int_equal(r.info.notes.n, 1);
	assert_non_null(strstr(r.info.notes.v[0], "feature table"));
	walk_ok(&r, &w);
	perfdata_close(&r);
	free(b);
	free(orig);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_truncation),
		cmocka_unit_test(test_random_byte_flips),
		cmocka_unit_test(test_damaged_headers),
		cmocka_unit_test(test_attr_sizes),
		cmocka_unit_test(test_old_header_and_damaged_features),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}

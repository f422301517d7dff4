/* Helpers shared by the perf.data unit tests (test_perfdata, test_perfdata_write, test_ordered):
 * files in memory, record lists, a byte-swapped copy of a file, and runs of Linux perf. */
#ifndef LPERF_TESTS_PERFDATA_TEST_H
#define LPERF_TESTS_PERFDATA_TEST_H

#include <byteswap.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfdata/perfdata.h"
#include "record/swap.h"
#include "util/error.h"
#include "util/xalloc.h"

/* Tests run from the repository root; $FIXTURES overrides where the fixtures live. */
static inline char *pd_fixture(const char *name)
{
	const char *dir = getenv("FIXTURES");
	return xasprintf("%s/perfdata/%s", dir && *dir ? dir : "tests/fixtures", name);
}

static inline uint8_t *pd_slurp(const char *path, size_t *n)
{
	*n = 0;
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, len = 0;
	uint8_t *buf = xmalloc(cap);
	size_t got;
	while ((got = fread(buf + len, 1, cap - len, f)) > 0) {
		len += got;
		if (len == cap)
			buf = xrealloc(buf, cap *= 2);
	}
	fclose(f);
	*n = len;
	return buf;
}

static inline int pd_spit(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	int ok = fwrite(data, 1, n, f) == n;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/* Records copied out of a walk. */
struct pd_recs {
	struct perf_event_header **v;
	size_t n, cap;
};

static inline int pd_collect(const struct perf_event_header *h, void *arg)
{
	struct pd_recs *r = arg;
	ALLOC_GROW(r->v, r->n + 1, r->cap);
	r->v[r->n] = xmalloc(h->size);
	memcpy(r->v[r->n++], h, h->size);
	return 0;
}

static inline void pd_recs_free(struct pd_recs *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i]);
	free(r->v);
	memset(r, 0, sizeof(*r));
}

static inline size_t pd_count_type(const struct pd_recs *r, uint32_t type)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n; i++)
		n += r->v[i]->type == type;
	return n;
}

static inline void pd_swap64(uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	v = bswap_64(v);
	memcpy(p, &v, 8);
}

/* The file as a machine of the other byte order would have written it, made with the reader's
 * swap code run the other way. nat is the same file opened (and, for pipe mode, walked) natively,
 * which supplies the events' layouts. */
static inline uint8_t *pd_swap_file(const uint8_t *in, size_t n, const struct perfdata_reader *nat)
{
	uint8_t *out = xmalloc(n);
	memcpy(out, in, n);
	uint64_t hsize, data_off, data_size;
	memcpy(&hsize, in + 8, 8);
	if (hsize == 16) {
		data_off = 16;
		data_size = n - 16;
		pd_swap64(out);
		pd_swap64(out + 8);
	} else {
		uint64_t attr_size, aoff, asize, feats[4];
		memcpy(&attr_size, in + 16, 8);
		memcpy(&aoff, in + 24, 8);
		memcpy(&asize, in + 32, 8);
		memcpy(&data_off, in + 40, 8);
		memcpy(&data_size, in + 48, 8);
		memcpy(feats, in + 72, sizeof(feats));
		for (size_t i = 0; i < hsize / 8; i++)
			pd_swap64(out + 8 * i);
		for (uint64_t a = aoff; a < aoff + asize; a += attr_size) {
			uint64_t ids_off, ids_size;
			memcpy(&ids_off, in + a + attr_size - 16, 8);
			memcpy(&ids_size, in + a + attr_size - 8, 8);
			swap_attr(out + a, attr_size - 16, false);
			pd_swap64(out + a + attr_size - 16);
			pd_swap64(out + a + attr_size - 8);
			for (uint64_t j = 0; j < ids_size; j += 8)
				pd_swap64(out + ids_off + j);
		}
		uint64_t at = data_off + data_size;
		for (int bit = 0; bit < 256 && hsize == 104; bit++) {
			if (!(feats[bit / 64] >> (bit % 64) & 1))
				continue;
			uint64_t off, size;
			memcpy(&off, in + at, 8);
			memcpy(&size, in + at + 8, 8);
			swap_feature(bit, out + off, size, false);
			pd_swap64(out + at);
			pd_swap64(out + at + 8);
			at += 16;
		}
	}
	for (uint64_t off = data_off; off < data_off + data_size;) {
		struct perf_event_header h;
		memcpy(&h, in + off, sizeof(h));
		size_t extra = 0;
		if (h.type == REC_AUXTRACE)
			memcpy(&extra, in + off + 8, 8);
		swap_record(&nat->evsels, out + off, h.size + extra, false);
		off += h.size + extra;
	}
	return out;
}

/* Linux perf, when installed and allowed to record; reason says why not. */
static inline bool pd_have_perf(char *reason, size_t size)
{
	if (system("perf version >/dev/null 2>&1") != 0) {
		snprintf(reason, size, "perf is not installed");
		return false;
	}
	return true;
}

static inline int pd_run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline int pd_run(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *cmd;
	int n = vasprintf(&cmd, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	int rc = system(cmd);
	free(cmd);
	return rc;
}

/* The walk helpers use cmocka: include this after <cmocka.h>. */
/* A walk that parses every record it is given. */
struct walk {
	const struct perfdata_reader *r;
	size_t by_type[128];
	size_t samples, per_evsel[4], with_callchain, with_stack, kernel;
	uint64_t tmin, tmax;
	uint32_t true_pid;
	size_t other_pid;
	char err[512];
};

static inline int fail_walk(struct walk *w)
{
	if (!w->err[0])
		snprintf(w->err, sizeof(w->err), "%s", err_msg());
	return 0;
}

static inline int walk_cb(const struct perf_event_header *h, void *arg)
{
	struct walk *w = arg;
	const struct evsel_set *s = &w->r->evsels;
	if (h->type < 128)
		w->by_type[h->type]++;
	struct perf_sample p;
	if (h->type == PERF_RECORD_SAMPLE) {
		if (sample_parse(s, h, &p) < 0)
			return fail_walk(w);
		if (record_time(s, h) != p.time)
			snprintf(w->err, sizeof(w->err), "record_time %lu != sample time %lu",
				 (unsigned long)record_time(s, h), (unsigned long)p.time);
		w->samples++;
		if (!(p.sample_type & PERF_SAMPLE_PERIOD) && p.period != p.evsel->attr.sample_period)
			snprintf(w->err, sizeof(w->err), "period %lu without PERF_SAMPLE_PERIOD",
				 (unsigned long)p.period);
		if (p.evsel->idx < 4)
			w->per_evsel[p.evsel->idx]++;
		if (!w->tmin || p.time < w->tmin)
			w->tmin = p.time;
		if (p.time > w->tmax)
			w->tmax = p.time;
		w->with_callchain += p.callchain_nr > 0;
		w->with_stack += p.user_stack_size > 0;
		w->kernel += p.cpumode == PERF_RECORD_MISC_KERNEL;
		if (w->true_pid && p.pid != w->true_pid)
			w->other_pid++;
		return 0;
	}
	if (h->type < 64 && sample_id_parse(s, h, &p) < 0)
		return fail_walk(w);
	struct rec_mmap m;
	struct rec_comm c;
	struct rec_task t;
	switch (h->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		if (record_parse_mmap(h, &m) < 0)
			return fail_walk(w);
		break;
	case PERF_RECORD_COMM:
		if (record_parse_comm(h, &c) < 0)
			return fail_walk(w);
		if (!strcmp(c.comm, "true"))
			w->true_pid = c.pid;
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		if (record_parse_task(h, &t) < 0)
			return fail_walk(w);
		break;
	}
	return 0;
}

static inline void walk_ok(struct perfdata_reader *r, struct walk *w)
{
	memset(w, 0, sizeof(*w));
	w->r = r;
	if (perfdata_for_each(r, walk_cb, w) != 0)
		fail_msg("walking %s: %s", r->path, err_msg());
	if (w->err[0])
		fail_msg("%s: %s", r->path, w->err);
}

static inline void open_ok(struct perfdata_reader *r, const char *path)
{
	if (perfdata_open(r, path) < 0)
		fail_msg("%s", err_msg());
}

#endif

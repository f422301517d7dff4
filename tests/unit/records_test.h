/* Helpers shared by the record-stream unit tests (test_live, test_synth): a callback that
 * keeps copies of the records it is given, and checks on them. */
#ifndef LPERF_TESTS_RECORDS_TEST_H
#define LPERF_TESTS_RECORDS_TEST_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct rec {
	uint8_t *bytes;
	int rb; /* the buffer it came from, -1 when unknown */
};

struct coll {
	struct rec *v;
	size_t n, cap;
	int rb;
	size_t bad; /* records that failed a sanity check */
};

static inline bool sane(const struct perf_event_header *h)
{
	if (h->size < sizeof(*h) || h->size % 8)
		return false;
	/* Kernel record types, and nothing else, come out of a ring buffer. */
	return h->type >= PERF_RECORD_MMAP && h->type <= 21;
}

static inline int collect(const struct perf_event_header *h, void *arg)
{
	struct coll *c = arg;
	if (!sane(h))
		c->bad++;
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 256;
		c->v = realloc(c->v, c->cap * sizeof(*c->v));
	}
	c->v[c->n].bytes = malloc(h->size);
	memcpy(c->v[c->n].bytes, h, h->size);
	c->v[c->n].rb = c->rb;
	c->n++;
	return 0;
}

static inline void coll_free(struct coll *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].bytes);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

static inline const struct perf_event_header *hdr(const struct coll *c, size_t i)
{
	return (const struct perf_event_header *)c->v[i].bytes;
}

static inline size_t count_type(const struct coll *c, uint32_t type)
{
	size_t n = 0;
	for (size_t i = 0; i < c->n; i++)
		n += hdr(c, i)->type == type;
	return n;
}

#endif

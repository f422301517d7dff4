/* The perf.data reader's pipe-mode records that describe the recording (HEADER_ATTR,
 * HEADER_FEATURE, EVENT_UPDATE): taken into the reader's events and info, not passed on. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "perfdata/perfdata_int.h"
#include "record/recutil.h"
#include "util/error.h"
#include "util/xalloc.h"

/* HEADER_ATTR (pipe mode): an event, its attr and its ids. */
static int consume_attr(struct perfdata_reader *r, const struct perf_event_header *h)
{
	const uint8_t *p = (const uint8_t *)h;
	uint32_t asz = h->size >= 16 ? ld32(p + 12) : 0;
	if (!asz)
		asz = PERF_ATTR_SIZE_VER0;
	if (asz < PERF_ATTR_SIZE_VER0 || asz > h->size - sizeof(*h))
		return err_set("%s: HEADER_ATTR record at offset 0x%" PRIx64 ": attr size %u does not fit the "
			       "record's %u bytes", r->path, r->offset, asz, h->size);
	struct perf_event_attr attr = { 0 };
	memcpy(&attr, p + 8, asz < sizeof(attr) ? asz : sizeof(attr));
	attr.size = sizeof(attr);
	size_t nids = (h->size - sizeof(*h) - asz) / 8;
	uint64_t *ids = xmalloc((nids ? nids : 1) * sizeof(*ids));
	memcpy(ids, p + 8 + asz, nids * 8);
	if (r->evsels.n >= PERFDATA_MAX_EVENTS)
		return err_set("%s: HEADER_ATTR record at offset 0x%" PRIx64 ": more than %d events", r->path,
			       r->offset, PERFDATA_MAX_EVENTS);
	evsel_set_add(&r->evsels, &attr, "", ids, nids);
	free(ids);
	return 0;
}

/* EVENT_UPDATE: only the name matters to lperf (unit, scale and cpus are for stat). */
static void consume_update(struct perfdata_reader *r, const struct perf_event_header *h)
{
	const uint8_t *p = (const uint8_t *)h;
	if (h->size < 24 || ld64(p + 8) != PERFDATA_EVENT_UPDATE_NAME)
		return;
	const char *name = (const char *)p + 24;
	if (h->size == 24 || !memchr(name, 0, h->size - 24u) || !name[0])
		return;
	uint64_t id = ld64(p + 16);
	for (size_t i = 0; i < r->evsels.n; i++) {
		struct evsel *e = &r->evsels.v[i];
		for (size_t j = 0; j < e->nids; j++) {
			if (e->ids[j] == id) {
				free(e->name);
				e->name = xstrdup(name);
				return;
			}
		}
	}
}

/* 1 when the record was perf's own description of the recording, 0 to pass it on. */
int perfdata_consume(struct perfdata_reader *r, const struct perf_event_header *h)
{
	bool again = r->offset < r->seen_end;
	/* A pipe's tracing data follows its record (the reader holds both); the record still goes
	 * on to cb, so that inject passes it through. */
	if (h->type == REC_TRACING_DATA && h->size >= 12 && !again)
		perfdata_keep_tracing(&r->info, (const uint8_t *)h + h->size, ld32((const uint8_t *)h + 8),
				      r->offset + h->size);
	switch (h->type) {
	case REC_HEADER_ATTR:
	case REC_HEADER_FEATURE:
	case REC_EVENT_UPDATE:
		r->consumed[h->type - REC_HEADER_ATTR]++;
		if (again)
			return 1;
		break;
	default:
		return 0;
	}
	switch (h->type) {
	case REC_HEADER_ATTR:
		return consume_attr(r, h) < 0 ? -1 : 1;
	case REC_HEADER_FEATURE:
		if (h->size >= 16) {
			uint64_t feat = ld64((const uint8_t *)h + 8);
			if (feat < FEAT_MAX)
				perfdata_feat_parse(r, (int)feat, (const uint8_t *)h + 16, h->size - 16u, r->offset + 16);
		}
		return 1;
	case REC_EVENT_UPDATE:
		consume_update(r, h);
		return 1;
	default:
		return 0;
	}
}

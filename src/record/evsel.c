/* The events of a recording: evsel sets (lookup by sample id) and the names perf gives them.
 * Side-band records are parsed in sideband.c, samples in sample_parse.c, records built in build.c. */
#include "record/record.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/generic.h"
#include "events/tracepoint.h"
#include "util/error.h"
#include "util/xalloc.h"

struct evsel_id {
	uint64_t id;
	size_t idx;
};

static int id_cmp(const void *a, const void *b)
{
	const struct evsel_id *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

void evsel_set_index(struct evsel_set *s)
{
	free(s->byid);
	s->byid = NULL;
	s->nbyid = 0;
	s->byid_nev = s->n;
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++)
		n += s->v[i].nids;
	if (!n)
		return;
	s->byid = xmalloc(n * sizeof(*s->byid));
	for (size_t i = 0; i < s->n; i++)
		for (size_t j = 0; j < s->v[i].nids; j++)
			s->byid[s->nbyid++] = (struct evsel_id){ s->v[i].ids[j], i };
	qsort(s->byid, s->nbyid, sizeof(*s->byid), id_cmp);
}

const struct evsel *evsel_by_id(const struct evsel_set *s, uint64_t id)
{
	if (!s || !s->n)
		return NULL;
	/* perf gives synthesized records (id 0) to the first event, and one event needs no id. */
	if (s->n == 1 || id == 0)
		return &s->v[0];
	if (s->byid && s->byid_nev == s->n) {
		size_t lo = 0, hi = s->nbyid;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (s->byid[mid].id < id)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < s->nbyid && s->byid[lo].id == id && s->byid[lo].idx < s->n)
			return &s->v[s->byid[lo].idx];
		return NULL;
	}
	for (size_t i = 0; i < s->n; i++)
		for (size_t j = 0; j < s->v[i].nids; j++)
			if (s->v[i].ids[j] == id)
				return &s->v[i];
	return NULL;
}

struct evsel *evsel_set_add(struct evsel_set *s, const struct perf_event_attr *attr, const char *name,
			    const uint64_t *ids, size_t nids)
{
	/* capacity: the next power of two */
	if (!(s->n & (s->n - 1)))
		s->v = xrealloc(s->v, (s->n ? 2 * s->n : 1) * sizeof(*s->v));
	struct evsel *e = &s->v[s->n];
	memset(e, 0, sizeof(*e));
	e->attr = *attr;
	e->name = name ? xstrdup(name) : evsel_default_name(attr);
	if (nids) {
		e->ids = xmalloc(nids * sizeof(*ids));
		memcpy(e->ids, ids, nids * sizeof(*ids));
		e->nids = nids;
	}
	e->idx = (int)s->n;
	s->n++;
	return e;
}

void evsel_set_free(struct evsel_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].name);
		free(s->v[i].ids);
	}
	free(s->v);
	free(s->byid);
	memset(s, 0, sizeof(*s));
}

/* perf's evsel__hw_names and evsel__sw_names (util/evsel.c): the names perf shows for an
 * event, which are not always the spellings its parser takes first. */
static const char *const hw_names[] = {
	"cycles", "instructions", "cache-references", "cache-misses", "branches", "branch-misses",
	"bus-cycles", "stalled-cycles-frontend", "stalled-cycles-backend", "ref-cycles",
};
static const char *const sw_names[] = {
	"cpu-clock", "task-clock", "page-faults", "context-switches", "cpu-migrations",
	"minor-faults", "major-faults", "alignment-faults", "emulation-faults", "dummy",
	"bpf-output", "cgroup-switches",
};

/* perf's evsel__add_modifiers, without the host/guest letters that only matter for KVM. */
static void add_modifiers(char *buf, size_t size, const struct perf_event_attr *a)
{
	char mod[8];
	size_t n = 0;
	if (a->exclude_kernel || a->exclude_user || a->exclude_hv) {
		if (!a->exclude_kernel)
			mod[n++] = 'k';
		if (!a->exclude_user)
			mod[n++] = 'u';
		if (!a->exclude_hv)
			mod[n++] = 'h';
	}
	for (unsigned i = 0; i < a->precise_ip && i < 3; i++)
		mod[n++] = 'p';
	mod[n] = 0;
	if (n) {
		size_t len = strlen(buf);
		snprintf(buf + len, size - len, ":%s", mod);
	}
}

struct tp_find {
	uint64_t id;
	char *name;
};

static void tp_match(const char *name, uint64_t id, void *arg)
{
	struct tp_find *f = arg;
	if (id == f->id && !f->name)
		f->name = xstrdup(name);
}

char *evsel_default_name(const struct perf_event_attr *a)
{
	char buf[128];
	uint64_t c = a->config;
	buf[0] = 0;
	switch (a->type) {
	case PERF_TYPE_HARDWARE:
		if (c < ARRAY_SIZE(hw_names))
			snprintf(buf, sizeof(buf), "%s", hw_names[c]);
		break;
	case PERF_TYPE_SOFTWARE:
		if (c < ARRAY_SIZE(sw_names))
			snprintf(buf, sizeof(buf), "%s", sw_names[c]);
		break;
	case PERF_TYPE_HW_CACHE: {
		struct generic_cache_name names[64];
		size_t n = generic_cache_names(names, ARRAY_SIZE(names));
		for (size_t i = 0; i < n && i < ARRAY_SIZE(names); i++)
			if (names[i].config == c)
				snprintf(buf, sizeof(buf), "%.*s", (int)sizeof(names[i].name), names[i].name);
		break;
	}
	case PERF_TYPE_RAW:
		snprintf(buf, sizeof(buf), "raw 0x%" PRIx64, (uint64_t)c);
		break;
	case PERF_TYPE_BREAKPOINT: {
		uint32_t t = a->bp_type;
		snprintf(buf, sizeof(buf), "mem:0x%" PRIx64 ":%s%s%s", (uint64_t)a->bp_addr, t & 1 ? "r" : "",
			 t & 2 ? "w" : "", t & 4 ? "x" : "");
		break;
	}
	case PERF_TYPE_TRACEPOINT: {
		/* Without EVENT_DESC the only name is this machine's tracefs; perf says
		 * "unknown tracepoint". */
		struct tp_find f = { c, NULL };
		tp_for_each(tp_match, &f);
		if (f.name) {
			snprintf(buf, sizeof(buf), "%s", f.name);
			free(f.name);
		} else {
			snprintf(buf, sizeof(buf), "tracepoint %" PRIu64, (uint64_t)c);
		}
		break;
	}
	default:
		break;
	}
	if (!buf[0])
		snprintf(buf, sizeof(buf), "type %u config 0x%" PRIx64, a->type, (uint64_t)c);
	add_modifiers(buf, sizeof(buf), a);
	return xstrdup(buf);
}

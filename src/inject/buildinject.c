/* perf inject -b: build-ids of the DSOs hit (see buildinject.h). */
#include "inject/buildinject.h"

#include <stdlib.h>
#include <string.h>

#include "symbols/buildid_cache.h"
#include "util/xalloc.h"

static bool named(const struct buildinject *b, const char *name)
{
	for (size_t i = 0; i < b->nnamed; i++)
		if (!strcmp(b->named[i], name))
			return true;
	return false;
}

static void add_named(struct buildinject *b, const char *name)
{
	if (named(b, name))
		return;
	ALLOC_GROW(b->named, b->nnamed + 1, b->cap);
	b->named[b->nnamed++] = xstrdup(name);
}

static int first_hit(void *arg, const struct dsohit_dso *d)
{
	struct buildinject *b = arg;
	uint8_t id[BUILDID_SIZE];
	size_t n;
	if (named(b, d->name) || !(n = buildid_read(d->name, id)))
		return 0;
	add_named(b, d->name);
	if (b->cache)
		buildid_cache_add(d->name, id, n, NULL, NULL);
	b->added++;
	/* pid -1: the host machine, as perf writes them */
	return b->emit(b->arg, -1, d->cpumode, id, n, d->name);
}

void buildinject_init(struct buildinject *b, const struct perfdata_info *in, buildinject_emit emit, void *arg,
		      bool cache)
{
	memset(b, 0, sizeof(*b));
	b->emit = emit;
	b->arg = arg;
	b->cache = cache;
	b->hits.first_hit = first_hit;
	b->hits.arg = b;
	for (size_t i = 0; i < in->nbuildids; i++)
		add_named(b, in->buildids[i].filename);
}

int buildinject_record(struct buildinject *b, const struct evsel_set *ev, const struct perf_event_header *h)
{
	/* a pipe's own BUILD_ID records: {header, pid, id[24], name} */
	if (h->type == REC_BUILD_ID && h->size > 36) {
		const char *name = (const char *)h + 36;
		if (memchr(name, 0, h->size - 36u))
			add_named(b, name);
		return 0;
	}
	return dsohits_record(&b->hits, ev, h);
}

void buildinject_free(struct buildinject *b)
{
	for (size_t i = 0; i < b->nnamed; i++)
		free(b->named[i]);
	free(b->named);
	dsohits_free(&b->hits);
}

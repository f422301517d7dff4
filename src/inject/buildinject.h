/* perf inject -b (inject/buildinject.c): the build-id of each DSO the samples hit, added where a
 * reader finds it before the first sample that needs it (a BUILD_ID record ahead of the sample
 * in a pipe, the BUILD_ID feature in a file), unless the recording names one already; each is
 * also copied into the build-id cache, as record does. */
#ifndef LPERF_INJECT_BUILDINJECT_H
#define LPERF_INJECT_BUILDINJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "perfdata/dsohits.h"
#include "perfdata/perfdata.h"

typedef int (*buildinject_emit)(void *arg, int32_t pid, uint8_t cpumode, const uint8_t *id, size_t n,
				const char *name);

struct buildinject {
	struct dsohits hits;
	char **named;             /* DSOs that have a build-id in the recording already */
	size_t nnamed, cap;
	buildinject_emit emit;
	void *arg;
	bool cache;
	size_t added;
};

/* in: the recording's features (its BUILD_ID entries are not added again). */
void buildinject_init(struct buildinject *b, const struct perfdata_info *in, buildinject_emit emit, void *arg,
		      bool cache);
/* Sees one record before it is written; -1 when emit failed. */
int buildinject_record(struct buildinject *b, const struct evsel_set *ev, const struct perf_event_header *h);
void buildinject_free(struct buildinject *b);

#endif

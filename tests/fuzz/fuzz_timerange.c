/* Fuzz harness: --time specs (util/timerange.h). The input's first 16 bytes are the recording's
 * first and last sample times (little-endian u64s: any values, reversed and at the top of u64
 * included), the rest the spec: parsed (percentages against those times, seconds ranges, blanks,
 * commas), then every range's ends and their neighbours are asked whether they are kept; the
 * one-range form of sched timehist reads the same spec. A parsed seconds spec keeps each
 * range's own start (perf's ranges are closed).
 * Seeds: the specs of tests/unit/test_timerange.c and perf's manual pages. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "util/timerange.h"

static uint64_t u64_at(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 16 || size > 65536)
		return 0;
	uint64_t first = u64_at(data), last = u64_at(data + 8);
	char *spec = fuzz_strndup(data + 16, size - 16);
	struct time_ranges r;
	if (timerange_parse(spec, first, last, &r) == 0) {
		for (size_t i = 0; i < r.n; i++) {
			uint64_t s = r.v[i].start, e = r.v[i].end;
			(void)timerange_keeps(&r, s - 1);
			(void)timerange_keeps(&r, e + 1);
			if (!timerange_is_percent(spec) && s && (!e || s <= e) && !timerange_keeps(&r, s))
				abort();
		}
		timerange_free(&r);
	} else if (r.n || r.v) {
		abort(); /* a refused spec leaves nothing */
	}
	struct time_range one;
	if (timerange_parse_one(spec, &one) == 0 && one.end && one.end < one.start)
		abort();
	free(spec);
	return 0;
}

/* perf 6.1's --time grammar (report, script): which sample times a command keeps.
 *
 *   START,STOP                  seconds as script prints them (up to 9 decimals); either end
 *                               may be left out ("1234.5," ",1235")
 *   START,STOP START,STOP ...   several ranges, separated by blanks, each after the one before
 *                               (a range's STOP before the next one's START)
 *   P%                          the first P percent of the recording
 *   P%/N                        the Nth slice of P percent ("10%/2": from 10% to 20%)
 *   P%-Q%                       from P percent to Q percent
 *   P%/N,P%/M  P%-Q%,R%-S%      several slices or spans, separated by commas
 *
 * Percentages are of the span between the recording's first and last sample times (the
 * header's SAMPLE_TIME feature, as perf reads them), with perf's arithmetic: start + round(p x
 * span) in doubles, and a range's end one nanosecond short of the next slice unless it is the
 * last sample's time, so that 10%/1 and 10%/2 share no sample. A sample whose time is 0 (a
 * recording without PERF_SAMPLE_TIME) is always kept, as perf keeps it.
 *
 * Where perf's own parser gives an accident instead of an answer, lperf refuses the spec:
 * negative or overflowing times (perf's strtoul wraps them), an empty piece between commas
 * (perf keeps every sample), a percent span without '-' among spans (perf crashes), text after
 * a '%' other than blanks, a percent that is not a finite number, a slice number beyond int. */
#ifndef LPERF_UTIL_TIMERANGE_H
#define LPERF_UTIL_TIMERANGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* [start, end] in ns; start 0: open; end 0: open. */
struct time_range {
	uint64_t start, end;
};

struct time_ranges {
	struct time_range *v;
	size_t n; /* 0: no --time, every sample kept */
};

/* Whether spec is in percent (it has a '%'): it needs the recording's first and last sample
 * times, and a recording without them cannot take it. */
bool timerange_is_percent(const char *spec);
/* Parses spec into *out (owned; timerange_free), percentages against [first, last]. -1 after
 * err_set (naming the piece that is wrong) on anything perf refuses, and on the accidents above;
 * *out is then empty. Whether a spec parses does not depend on first and last. */
int timerange_parse(const char *spec, uint64_t first, uint64_t last, struct time_ranges *out);
/* perf sched timehist's --time, one range in seconds as perf reads it there: START,STOP, either
 * side empty (open), or START alone (no comma: from START on). -1 after err_set. */
int timerange_parse_one(const char *spec, struct time_range *r);
/* Whether a sample at time t (ns) is in one of the ranges (always, without ranges or at t 0). */
bool timerange_keeps(const struct time_ranges *r, uint64_t t);
void timerange_free(struct time_ranges *r);

#endif

/* perf 6.1's --time grammar (timerange.h). Written from perf's documentation and its behaviour
 * on real recordings; every piece is read from a bounded slice of the spec, never past it. */
#include "util/timerange.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/xalloc.h"

#define NS_PER_SEC 1000000000ULL

/* isspace() in the C locale, which perf's strtoul and skip_spaces read. */
static bool blank(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

static bool digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Why the spec was refused: the piece and the reason, with the whole spec. */
static int refuse(const char *spec, const char *piece, size_t len, const char *why)
{
	if (piece && len)
		return err_set("'%s' is not a time range perf reads: '%.*s': %s", spec, (int)len, piece, why);
	return err_set("'%s' is not a time range perf reads: %s", spec, why);
}

/* s[0..len) as seconds: blanks and a '+' before the whole seconds as strtoul reads them (a spec
 * without them reads nothing, and then the '.' must come first: ".5"), up to 9 decimals. No
 * sign, no overflow of u64 nanoseconds. */
static int seconds(const char *s, size_t len, uint64_t *ns)
{
	size_t i = 0;
	while (i < len && blank(s[i]))
		i++;
	if (i < len && s[i] == '+')
		i++;
	size_t first_digit = i;
	uint64_t sec = 0;
	for (; i < len && digit(s[i]); i++) {
		if (sec > (UINT64_MAX - 9) / 10)
			return -1;
		sec = sec * 10 + (uint64_t)(s[i] - '0');
	}
	if (i == first_digit)
		i = 0;
	uint64_t frac = 0;
	if (i < len && s[i] == '.') {
		size_t n = 0;
		for (i++; i < len && digit(s[i]); i++, n++) {
			if (n == 9)
				return -1;
			frac = frac * 10 + (uint64_t)(s[i] - '0');
		}
		for (; n < 9; n++)
			frac *= 10;
	}
	if (i != len || sec > (UINT64_MAX - frac) / NS_PER_SEC)
		return -1;
	*ns = sec * NS_PER_SEC + frac;
	return 0;
}

/* "START,STOP" in s[0..len), split at its first comma; an empty end is open, and so is a missing
 * one ("START": timerange_parse_one's). */
static int seconds_range(const char *spec, const char *s, size_t len, struct time_range *r)
{
	const char *comma = memchr(s, ',', len);
	size_t l1 = comma ? (size_t)(comma - s) : len, l2 = comma ? len - l1 - 1 : 0;
	r->start = r->end = 0;
	if ((l1 && seconds(s, l1, &r->start) < 0) || (l2 && seconds(comma + 1, l2, &r->end) < 0))
		return refuse(spec, s, len, "give START,STOP in seconds as script prints them (123.456789,"
			      "124), either may be left out");
	if (r->end && r->end < r->start)
		return refuse(spec, s, len, "the range ends before it starts");
	return 0;
}

static void push(struct time_ranges *out, size_t *cap, struct time_range r)
{
	if (out->n == *cap) {
		*cap = *cap ? 2 * *cap : 4;
		out->v = xrealloc(out->v, *cap * sizeof(*out->v));
	}
	out->v[out->n++] = r;
}

/* Ranges in seconds: one comma each, separated by blanks ("1,2 3,4"); every range but the last
 * has a STOP, and each STOP comes before the next range's START. */
static int seconds_ranges(const char *spec, struct time_ranges *out)
{
	size_t ncomma = 0, cap = 0;
	for (const char *c = spec; *c; c++)
		ncomma += *c == ',';
	if (!ncomma)
		return refuse(spec, NULL, 0, "give START,STOP in seconds (either may be left out: 123.4, "
			      "or ,125), ranges separated by blanks, or percentages (10%/2, 0%-10%)");
	const char *p = spec;
	for (size_t k = 0; k + 1 < ncomma; k++) {
		const char *q = strchr(p, ',') + 1;
		while (blank(*q))
			q++;
		for (; *q && !blank(*q); q++)
			if (*q == ',')
				return refuse(spec, p, strlen(p), "several ranges are separated by blanks "
					      "(1.5,2.5 3.5,4.5)");
		struct time_range r;
		if (seconds_range(spec, p, (size_t)(q - p), &r) < 0)
			return -1;
		push(out, &cap, r);
		p = *q ? q + 1 : q;
	}
	struct time_range r;
	if (seconds_range(spec, p, strlen(p), &r) < 0)
		return -1;
	push(out, &cap, r);
	for (size_t i = 0; i + 1 < out->n; i++)
		if (out->v[i].end >= out->v[i + 1].start)
			return refuse(spec, NULL, 0, "each range must end before the next one starts");
	return 0;
}

/* "P%" in s[0..len), blanks after the '%' allowed: P / 100, a finite number. */
static int percent(const char *s, size_t len, double *out)
{
	const char *pct = memchr(s, '%', len);
	if (!pct || pct == s || (size_t)(pct - s) > 64)
		return -1;
	for (const char *c = pct + 1; c < s + len; c++)
		if (!blank(*c))
			return -1;
	char buf[72];
	memcpy(buf, s, (size_t)(pct - s));
	buf[pct - s] = 0;
	char *end;
	double d = strtod(buf, &end);
	if (*end || !isfinite(d))
		return -1;
	*out = d / 100.0;
	return 0;
}

/* The range of fractions [from, to] of the recording's span, rounded to ns as perf rounds it;
 * its end a nanosecond short unless it is the last sample's time. */
static int fractions(double from, double to, uint64_t first, uint64_t last, struct time_range *r)
{
	if (from < 0.0 || from > 1.0 || to < 0.0 || to > 1.0)
		return -1;
	double span = (double)(last - first), a = (double)first + round(from * span),
	       b = (double)first + round(to * span), top = 18446744073709551615.0;
	r->start = a >= top ? UINT64_MAX : (uint64_t)a;
	r->end = b >= top ? UINT64_MAX : (uint64_t)b;
	if (r->end > r->start && r->end != last)
		r->end--;
	return 0;
}

/* "P%/N": the Nth slice of P percent. */
static int slice(const char *spec, const char *s, size_t len, uint64_t first, uint64_t last,
		 struct time_range *r)
{
	const char *slash = memchr(s, '/', len);
	double p;
	if (!slash || percent(s, (size_t)(slash - s), &p) < 0)
		return refuse(spec, s, len, "a slice is P%/N (10%/2: the second tenth)");
	char buf[32];
	size_t nlen = len - (size_t)(slash - s) - 1;
	if (!nlen || nlen >= sizeof(buf))
		return refuse(spec, s, len, "N of P%/N is a slice number from 1");
	memcpy(buf, slash + 1, nlen);
	buf[nlen] = 0;
	char *end;
	long long n = strtoll(buf, &end, 10);
	if (*end || end == buf || n < 1 || n > INT_MAX)
		return refuse(spec, s, len, "N of P%/N is a slice number from 1");
	if (p <= 0.0)
		return refuse(spec, s, len, "the slice's percentage must be above 0");
	if (fractions(p * (double)(n - 1), p * (double)n, first, last, r) < 0)
		return refuse(spec, s, len, "the slice ends beyond 100%");
	return 0;
}

/* "P%-Q%": from P to Q percent (Q below P: an empty range, as perf keeps it). */
static int span(const char *spec, const char *s, size_t len, uint64_t first, uint64_t last,
		struct time_range *r)
{
	const char *dash = memchr(s, '-', len);
	double p, q;
	if (!dash || percent(s, (size_t)(dash - s), &p) < 0 ||
	    percent(dash + 1, len - (size_t)(dash - s) - 1, &q) < 0)
		return refuse(spec, s, len, "a span is P%-Q% (0%-10%: the first tenth)");
	if (fractions(p, q, first, last, r) < 0)
		return refuse(spec, s, len, "percentages go from 0% to 100%");
	return 0;
}

/* Comma-separated slices (any '/' in the spec) or spans (any '-'), or one "P%". A trailing comma
 * ends the list, as in perf; any other empty piece is refused. */
static int percent_ranges(const char *spec, uint64_t first, uint64_t last, struct time_ranges *out)
{
	size_t len = strlen(spec), cap = 0;
	struct time_range r;
	bool slices = strchr(spec, '/'), spans = !slices && strchr(spec, '-');
	if (!slices && !spans) {
		double p;
		if (strchr(spec, '%') != spec + len - 1 || percent(spec, len, &p) < 0)
			return refuse(spec, NULL, 0, "percentages are P% (the first P percent), P%/N, P%-Q%, "
				      "and lists of the last two separated by commas");
		if (p <= 0.0)
			return refuse(spec, NULL, 0, "the percentage must be above 0");
		if (fractions(0.0, p, first, last, &r) < 0)
			return refuse(spec, NULL, 0, "percentages go from 0% to 100%");
		push(out, &cap, r);
		return 0;
	}
	for (const char *p = spec; p < spec + len;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);
		if (!n)
			return refuse(spec, NULL, 0, "an empty piece between commas");
		if ((slices ? slice : span)(spec, p, n, first, last, &r) < 0)
			return -1;
		push(out, &cap, r);
		p += n + (comma != NULL);
	}
	return 0;
}

bool timerange_is_percent(const char *spec)
{
	return strchr(spec, '%') != NULL;
}

int timerange_parse(const char *spec, uint64_t first, uint64_t last, struct time_ranges *out)
{
	out->v = NULL;
	out->n = 0;
	int rc = timerange_is_percent(spec) ? percent_ranges(spec, first, last, out) : seconds_ranges(spec, out);
	if (rc < 0)
		timerange_free(out);
	return rc;
}

int timerange_parse_one(const char *spec, struct time_range *r)
{
	return seconds_range(spec, spec, strlen(spec), r);
}

bool timerange_keeps(const struct time_ranges *r, uint64_t t)
{
	if (!r->n || !t)
		return true;
	for (size_t i = 0; i < r->n; i++)
		if (t >= r->v[i].start && (!r->v[i].end || t <= r->v[i].end))
			return true;
	return false;
}

void timerange_free(struct time_ranges *r)
{
	free(r->v);
	r->v = NULL;
	r->n = 0;
}

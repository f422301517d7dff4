/* "Did you mean" suggestions by edit distance. */
#ifndef LPERF_UTIL_SUGGEST_H
#define LPERF_UTIL_SUGGEST_H

#include <stddef.h>

struct suggest {
	const char *best[3];
	unsigned dist[3];
	size_t n;
	const char *word;
};

void suggest_init(struct suggest *s, const char *word);
/* Offers one candidate; keeps the three closest within a distance that still looks like a typo. */
void suggest_offer(struct suggest *s, const char *candidate);
/* Formats "; did you mean 'a', 'b' or 'c'?" into buf ("" when nothing is close). */
const char *suggest_format(const struct suggest *s, char *buf, size_t size);
/* Case-insensitive Damerau-Levenshtein distance (adjacent swaps count one). */
unsigned suggest_distance(const char *a, const char *b);

#endif

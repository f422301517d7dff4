#include "util/suggest.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/xalloc.h"

unsigned suggest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return 1000;
	unsigned d[65][65];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (unsigned)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
			unsigned cost = ca != cb;
			unsigned v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < v)
				v = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[la][lb];
}

void suggest_init(struct suggest *s, const char *word)
{
	memset(s, 0, sizeof(*s));
	s->word = word;
}

void suggest_offer(struct suggest *s, const char *cand)
{
	size_t len = strlen(s->word);
	unsigned limit = len < 4 ? 1 : len < 8 ? 2 : 3;
	unsigned dist = suggest_distance(s->word, cand);
	/* A word that is a prefix of the candidate (or the other way round) is a likely intent too. */
	if (dist > limit && len >= 3 && !strncasecmp(cand, s->word, len))
		dist = limit;
	if (dist > limit)
		return;
	for (size_t i = 0; i < s->n; i++)
		if (!strcasecmp(s->best[i], cand))
			return;
	size_t pos = s->n;
	while (pos > 0 && s->dist[pos - 1] > dist)
		pos--;
	if (pos >= ARRAY_SIZE(s->best))
		return;
	size_t last = s->n < ARRAY_SIZE(s->best) ? s->n : ARRAY_SIZE(s->best) - 1;
	for (size_t i = last; i > pos; i--) {
		s->best[i] = s->best[i - 1];
		s->dist[i] = s->dist[i - 1];
	}
	s->best[pos] = cand;
	s->dist[pos] = dist;
	if (s->n < ARRAY_SIZE(s->best))
		s->n++;
}

const char *suggest_format(const struct suggest *s, char *buf, size_t size)
{
	buf[0] = 0;
	if (!s->n)
		return buf;
	size_t off = (size_t)snprintf(buf, size, "; did you mean ");
	for (size_t i = 0; i < s->n && off < size; i++) {
		const char *sep = i == 0 ? "" : i + 1 == s->n ? " or " : ", ";
		off += (size_t)snprintf(buf + off, size - off, "%s'%s'", sep, s->best[i]);
	}
	if (off < size)
		snprintf(buf + off, size - off, "?");
	return buf;
}

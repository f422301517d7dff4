/* Strict UTF-8: see utf8.h. */
#include "util/utf8.h"

#include <string.h>

#include "util/xalloc.h"

static bool nonchar(uint32_t cp)
{
	return cp == 0xFFFE || cp == 0xFFFF;
}

size_t utf8_next(const char *str, uint32_t *cp, bool *same)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n;
	uint32_t v, min;
	if (s[0] < 0x80) {
		*cp = s[0];
		if (same)
			*same = true;
		return 1;
	}
	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		n = 2, v = s[0] & 0x1F, min = 0x80;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		n = 3, v = s[0] & 0x0F, min = 0x800;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		n = 4, v = s[0] & 0x07, min = 0x10000;
	else
		goto bad;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80) /* also the NUL of a cut sequence */
			goto bad;
		v = v << 6 | (s[i] & 0x3F);
	}
	if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
		goto bad;
	*cp = nonchar(v) ? UTF8_REPLACEMENT : v;
	if (same)
		*same = !nonchar(v);
	return n;
bad:
	*cp = UTF8_REPLACEMENT;
	if (same)
		*same = false;
	return 1;
}

size_t utf8_put(char out[4], uint32_t cp)
{
	if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF || nonchar(cp))
		cp = UTF8_REPLACEMENT;
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xC0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xE0 | cp >> 12);
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		out[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	out[0] = (char)(0xF0 | cp >> 18);
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	out[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

bool utf8_valid(const char *s)
{
	while (*s) {
		uint32_t cp;
		bool same;
		s += utf8_next(s, &cp, &same);
		if (!same)
			return false;
	}
	return true;
}

char *utf8_clean(const char *s)
{
	size_t len = strlen(s);
	char *out = xmalloc(len * 3 + 1), *o = out; /* a byte becomes at most U+FFFD's 3 */
	while (*s) {
		uint32_t cp;
		bool same;
		size_t n = utf8_next(s, &cp, &same);
		if (same)
			memcpy(o, s, n), o += n;
		else
			o += utf8_put(o, cp);
		s += n;
	}
	*o = 0;
	return out;
}

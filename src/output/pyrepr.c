#include "output/pyrepr.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/utf8.h"

struct sbuf {
	char *b;
	size_t len, at;
};

static void put(struct sbuf *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct sbuf *s, const char *fmt, ...)
{
	if (s->at + 1 >= s->len)
		return;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(s->b + s->at, s->len - s->at, fmt, ap);
	va_end(ap);
	if (n > 0)
		s->at = s->at + (size_t)n < s->len ? s->at + (size_t)n : s->len - 1;
}

/* An int from its base 2**30 digits: converted to base 10**9 limbs, most significant last. */
static void put_int(struct sbuf *s, const struct pyvalue *v)
{
	uint32_t dec[PYVAL_INT_DIGITS * 30 / 29 + 2];
	size_t n = 0;
	if (v->ndigits > PYVAL_INT_DIGITS) {
		put(s, "<int at 0x%" PRIx64 ">", v->addr);
		return;
	}
	for (unsigned i = v->ndigits; i-- > 0;) {
		uint64_t carry = v->digits[i];
		for (size_t k = 0; k < n; k++) {
			uint64_t x = ((uint64_t)dec[k] << 30) + carry;
			dec[k] = (uint32_t)(x % 1000000000u);
			carry = x / 1000000000u;
		}
		while (carry) {
			dec[n++] = (uint32_t)(carry % 1000000000u);
			carry /= 1000000000u;
		}
	}
	if (!n) {
		put(s, "0");
		return;
	}
	put(s, "%s%" PRIu32, v->neg ? "-" : "", dec[n - 1]);
	for (size_t k = n - 1; k-- > 0;)
		put(s, "%09" PRIu32, dec[k]);
}

/* Python's repr of a float: the shortest digits that read back as the same double, in fixed
 * notation for decimal exponents -4 to 15 (with ".0" when whole), else as d.ddde+XX. */
static void put_float(struct sbuf *s, double x)
{
	if (isnan(x)) {
		put(s, "nan");
		return;
	}
	if (isinf(x)) {
		put(s, x < 0 ? "-inf" : "inf");
		return;
	}
	char e[40], digits[24];
	int p;
	for (p = 1; p < 17; p++) {
		snprintf(e, sizeof(e), "%.*e", p - 1, x);
		if (strtod(e, NULL) == x)
			break;
	}
	snprintf(e, sizeof(e), "%.*e", p - 1, x);
	/* e: [-]d[.ddd]e[+-]XX */
	const char *c = e;
	bool neg = *c == '-';
	if (neg)
		c++;
	size_t nd = 0;
	for (; *c && *c != 'e'; c++)
		if (*c >= '0' && *c <= '9' && nd < sizeof(digits) - 1)
			digits[nd++] = *c;
	while (nd > 1 && digits[nd - 1] == '0')
		nd--;
	digits[nd] = 0;
	int exp = *c == 'e' ? atoi(c + 1) : 0;
	if (neg)
		put(s, "-");
	if (exp >= 16 || exp < -4) {
		put(s, "%c", digits[0]);
		if (nd > 1)
			put(s, ".%s", digits + 1);
		put(s, "e%+03d", exp);
	} else if (exp < 0) {
		put(s, "0.");
		for (int i = -1; i > exp; i--)
			put(s, "0");
		put(s, "%s", digits);
	} else {
		for (int i = 0; i <= exp; i++)
			put(s, "%c", (size_t)i < nd ? digits[i] : '0');
		put(s, ".%s", nd > (size_t)exp + 1 ? digits + exp + 1 : "0");
	}
}

/* A str (UTF-8, non-ASCII printable characters kept) or bytes (anything outside printable
 * ASCII as \xNN) between the quotes Python would choose. */
static void put_quoted(struct sbuf *s, const struct pyvalue *v)
{
	const char *d = v->data;
	bool sq = memchr(d, '\'', v->len) != NULL, dq = memchr(d, '"', v->len) != NULL;
	char q = sq && !dq ? '"' : '\'';
	bool str = v->kind == PYVAL_STR;
	put(s, "%s%c", v->b_prefix ? "b" : "", q);
	for (size_t i = 0; i < v->len;) {
		unsigned char ch = (unsigned char)d[i];
		uint32_t cp = ch;
		size_t n = 1;
		if (str && ch >= 0x80)
			n = utf8_next(d + i, &cp, NULL);
		if (ch == '\\' || ch == (unsigned char)q)
			put(s, "\\%c", ch);
		else if (ch == '\n')
			put(s, "\\n");
		else if (ch == '\r')
			put(s, "\\r");
		else if (ch == '\t')
			put(s, "\\t");
		else if (cp < 0x20 || cp == 0x7f || (!str && cp >= 0x80) || (cp >= 0x80 && cp < 0xa0))
			put(s, "\\x%02x", (unsigned)cp);
		else
			put(s, "%.*s", (int)n, d + i);
		i += n;
	}
	put(s, "%c%s", q, v->cut ? "..." : "");
}

char *pyrepr_format(const struct pyvalue *v, char *buf, size_t len)
{
	struct sbuf s = { buf, len, 0 };
	if (!len)
		return buf;
	buf[0] = 0;
	switch (v->kind) {
	case PYVAL_NONE:
		put(&s, "None");
		break;
	case PYVAL_BOOL:
		put(&s, v->truth ? "True" : "False");
		break;
	case PYVAL_INT:
		put_int(&s, v);
		break;
	case PYVAL_FLOAT:
		put_float(&s, v->f);
		break;
	case PYVAL_STR:
	case PYVAL_BYTES:
		put_quoted(&s, v);
		break;
	case PYVAL_LIST:
	case PYVAL_TUPLE:
	case PYVAL_DICT:
	case PYVAL_SET:
		put(&s, "<%s of %" PRId64 ">", v->type, v->count);
		break;
	case PYVAL_OTHER:
		put(&s, "<%s at 0x%" PRIx64 ">", v->type, v->addr);
		break;
	case PYVAL_UNREADABLE:
	default:
		put(&s, "<unreadable at 0x%" PRIx64 ">", v->addr);
		break;
	}
	return buf;
}

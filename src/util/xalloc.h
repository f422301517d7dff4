/* Allocation that cannot fail (out of memory aborts with a message), and array growth. */
#ifndef LPERF_UTIL_XALLOC_H
#define LPERF_UTIL_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grows array `a` (with capacity `cap`) so that it holds at least `n` elements. */
#define ALLOC_GROW(a, n, cap)                                                        \
	do {                                                                         \
		if ((size_t)(n) > (size_t)(cap)) {                                   \
			size_t nc_ = (cap) ? (size_t)(cap) * 2 : 8;                  \
			while (nc_ < (size_t)(n))                                    \
				nc_ *= 2;                                            \
			(a) = xrealloc((a), nc_ * sizeof(*(a)));                     \
			(cap) = nc_;                                                 \
		}                                                                    \
	} while (0)

#define ARRAY_SIZE(x) (sizeof(x) / sizeof((x)[0]))

#endif

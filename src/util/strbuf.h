/* A growable, always NUL-terminated string. */
#ifndef LPERF_UTIL_STRBUF_H
#define LPERF_UTIL_STRBUF_H

#include <stddef.h>

struct strbuf {
	char *buf;
	size_t len, cap;
};

#define STRBUF_INIT { NULL, 0, 0 }

void sb_add(struct strbuf *sb, const void *data, size_t n);
void sb_adds(struct strbuf *sb, const char *s);
void sb_addc(struct strbuf *sb, char c);
void sb_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_reset(struct strbuf *sb);
/* The buffer's string ("" when empty); valid until the next change. */
const char *sb_str(const struct strbuf *sb);
/* Hands the string to the caller (who frees it) and resets the buffer. */
char *sb_detach(struct strbuf *sb);
void sb_release(struct strbuf *sb);

#endif

/* Strict UTF-8, in one place for every text writer (SVG, HTML, JSON, pprof's strings) and for
 * the names read from Python processes. Strict means what a conforming decoder (and CPython's
 * "strict" codec) accepts: no stray continuation bytes, no 0xC0/0xC1/0xF5-0xFF, no overlong forms,
 * no surrogates (U+D800-DFFF), nothing above U+10FFFF, no cut sequence. Whatever is not strict is
 * replaced by U+FFFD, one replacement per offending byte; so are the noncharacters U+FFFE and
 * U+FFFF, which XML forbids. */
#ifndef LPERF_UTIL_UTF8_H
#define LPERF_UTIL_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define UTF8_REPLACEMENT 0xFFFDu

/* The code point at s (NUL-terminated, *s != 0): its length in bytes (1..4) and *cp. An invalid
 * byte gives length 1 and U+FFFD; a noncharacter its length and U+FFFD. *same (may be NULL) says
 * whether the bytes s[0..len) are the UTF-8 of *cp, i.e. may be copied unchanged. */
size_t utf8_next(const char *s, uint32_t *cp, bool *same);
/* Encodes cp into out (1..4 bytes); a surrogate, a value over U+10FFFF or a noncharacter
 * (U+FFFE, U+FFFF) is encoded as U+FFFD. The length written. */
size_t utf8_put(char out[4], uint32_t cp);
/* True when s is strict UTF-8 with no noncharacter (nothing would be replaced). */
bool utf8_valid(const char *s);
/* A copy of s with everything utf8_next replaces replaced (free it). */
char *utf8_clean(const char *s);

#endif
